/**
 * The projectile audit (format 10 logs on): walks the log in order beside the replay (its onRecord
 * hook: the histories are the replay's, rebuilt from the ticks) and re-flies every projectile from
 * its spawn record with shared/projectile/flights.ts, the match's own code: the state after the
 * catch-up, each flight end and each blast must equal what the log recorded, field by field and
 * bit for bit (the damage the match applied is checked for consistency: 0 or the whole share, a
 * kill exactly at health 0). A launch verdict (shot record) must precede its spawn with the same
 * point and direction. Every death must have a cause: a kill the log's judged actions account for
 * (a shot hit's kill, a direct projectile hit's or a blast share's), recorded right after the death
 * and before the next tick; a death by oneself with none (the game's own damage or kill) is counted
 * as the game's, one credited to another player with none is reported.
 */
import { RecordType, readEvent } from '../matchlog/records';
import { GAP_FRAME_TYPE, LOG_VERSION_WITH_GRID_FLIGHTS, type FrameRef } from '../matchlog/frame';
import { readBlast, readEnd, readSpawn } from '../matchlog/projectileRecord';
import { createShotInput, readShotInput, readVerdict } from '../matchlog/shotRecord';
import type { FieldMismatch } from '../matchlog/verdictCompare';
import { VolumeRewinder } from '../lagcomp/rewindVolume';
import type { PlayerHistory } from '../lagcomp/history';
import type { MatchScene } from '../validate/scene';
import type { ValidationConfig } from '../validate/rules';
import { createVerdict, VerdictKind } from '../validate/verdict';
import {
  createBlastData, createEndData, createSpawnData, ProjectileFlights,
  type ProjectileBlastData, type ProjectileEndData, type ProjectileSpawnData,
} from '../projectile/flights';

/** Live projectiles the audit can hold (spawn records name their index; the match keeps at most its maxProjectiles). */
const AUDIT_CAPACITY = 4096;

export interface ProjectileMismatch {
  /** Which record: 'spawn', 'end', 'blast'; 'missing' when the log lacks one the replay computed, 'extra' for one it did not. */
  record: 'spawn' | 'end' | 'blast' | 'missing' | 'extra';
  offset: number;
  id: number;
  fields: FieldMismatch[];
}

export interface UnexplainedDeath {
  offset: number;
  slot: number;
  killer: number;
  timeMs: number;
}

export interface ProjectileAudit {
  /** Spawn records re-flown. */
  flights: number;
  mismatches: ProjectileMismatch[];
  deaths: {
    /** Deaths a judged kill accounts for. */
    explained: number;
    /** Deaths by oneself with no judged cause: the game's own damage or kill (a fall, the zone). */
    byGame: number;
    /** Deaths credited to another player with no judged cause. */
    unexplained: UnexplainedDeath[];
  };
  /**
   * Findings the log cannot settle: deaths and flight ends whose records may have been lost (the
   * writer dropped records, or the log was cut before their cause could follow).
   */
  unresolved: number;
}

type Expected = { kind: 'end'; end: ProjectileEndData } | { kind: 'blast'; blast: ProjectileBlastData };

/** The walk's state; `record` is the replay's onRecord hook (after each record is applied). */
export class ProjectileAuditor {
  readonly result: ProjectileAudit = { flights: 0, mismatches: [], deaths: { explained: 0, byGame: 0, unexplained: [] }, unresolved: 0 };
  /** Records were dropped by the writer: a missing or extra record may be one of them. */
  private gapSeen = false;
  private readonly flights: ProjectileFlights;
  private readonly present: (PlayerHistory | undefined)[];
  private readonly view: DataView;
  private readonly input = createShotInput();
  private readonly verdict = createVerdict();
  private readonly spawn = createSpawnData();
  private readonly end = createEndData();
  private readonly blast = createBlastData();
  /** Computed ends and blasts the log must hold next, in order. */
  private readonly expected: Expected[] = [];
  /** Launch verdicts by `shooter:seq`: point, direction, rewound time, weapon. */
  private readonly launches = new Map<string, number[]>();
  /** Deaths since the last tick waiting for their cause; judged kills waiting for their death, by slot. */
  private readonly deaths: UnexplainedDeath[] = [];
  private readonly kills: number[];
  private readonly onEnd = (e: ProjectileEndData, b: ProjectileBlastData | null) => {
    this.expected.push({ kind: 'end', end: { ...e } });
    if (b !== null) this.expected.push({ kind: 'blast', blast: copyBlast(b) });
  };

  constructor(private readonly scene: MatchScene, config: ValidationConfig, bytes: Uint8Array, private readonly version: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.flights = new ProjectileFlights(config.weapons, config.zoneMultipliers, scene.world, new VolumeRewinder(scene.rewinder), AUDIT_CAPACITY, scene.histories.length, version >= LOG_VERSION_WITH_GRID_FLIGHTS);
    this.present = new Array<PlayerHistory | undefined>(scene.histories.length).fill(undefined);
    this.kills = new Array<number>(scene.histories.length).fill(0);
  }

  record(f: FrameRef, tick: number, tickMs: number): void {
    const view = this.view, at = f.payloadOffset, len = f.payloadLength;
    switch (f.type) {
      case GAP_FRAME_TYPE:
        this.settle(f.offset, false);
        this.gapSeen = true;
        break;
      case RecordType.TICK:
        this.settle(f.offset);
        this.flights.step(tick, tickMs, this.present, this.onEnd);
        break;
      case RecordType.EVENT: {
        const e = readEvent(view, at, len);
        if (e === null || e.slot >= this.present.length) break;
        if (e.kind === 'join') this.present[e.slot] = this.scene.histories[e.slot];
        else if (e.kind === 'leave') this.present[e.slot] = undefined;
        else if (e.kind === 'death') this.death(f.offset, e.slot, e.other, e.timeMs);
        break;
      }
      case RecordType.SHOT: {
        const o = readShotInput(this.input, view, at, len, null, this.version);
        if (o < 0 || readVerdict(this.verdict, view, o, at + len, this.version) !== at + len) break;
        const v = this.verdict, input = this.input;
        for (let i = 0; i < input.hitKilled.length; i++) if (input.hitKilled[i]) this.killed(v.hits.target[i]!);
        if (v.kind === VerdictKind.LAUNCH) this.launches.set(`${input.shooter}:${v.seq}`, [v.x, v.y, v.z, v.nx, v.ny, v.nz, v.rewindTimeMs, v.weapon]);
        break;
      }
      case RecordType.PROJECTILE_SPAWN:
        this.spawned(f, tickMs);
        break;
      case RecordType.PROJECTILE_END: {
        if (!readEnd(this.end, view, at, len)) break;
        const x = this.next(f.offset, 'end', this.end.id);
        if (x !== null && x.kind === 'end') this.compareEnd(f.offset, x.end, this.end);
        if (this.end.killed) this.killed(this.end.player);
        break;
      }
      case RecordType.PROJECTILE_BLAST: {
        if (!readBlast(this.blast, view, at, len)) break;
        const x = this.next(f.offset, 'blast', this.blast.id);
        if (x !== null && x.kind === 'blast') this.compareBlast(f.offset, x.blast, this.blast);
        const b = this.blast;
        for (let k = 0; k < b.hits.count; k++) if (b.killed[k] === 1) this.killed(b.hits.player[k]!);
        break;
      }
    }
  }

  /**
   * The log's end: what is still expected or unexplained is reported when the log is complete (its
   * end record written); a cut log may have lost the records that would settle them.
   */
  finish(offset: number, complete: boolean): ProjectileAudit {
    this.settle(offset, complete);
    return this.result;
  }

  private spawned(f: FrameRef, newestTickMs: number): void {
    const s = this.spawn;
    if (!readSpawn(s, this.view, f.payloadOffset, f.payloadLength)) return;
    this.settle(f.offset);
    this.result.flights++;
    const fields: FieldMismatch[] = [];
    const launch = this.launches.get(`${s.shooter}:${s.seq}`);
    if (launch === undefined) fields.push({ field: 'launch verdict', recorded: false, replayed: true });
    else {
      const want = [s.x, s.y, s.z, s.dx, s.dy, s.dz, s.fireMs, s.weapon];
      const names = ['x', 'y', 'z', 'dx', 'dy', 'dz', 'fireMs', 'weapon'];
      for (let k = 0; k < want.length; k++) if (!Object.is(want[k], launch[k])) fields.push({ field: `launch.${names[k]}`, recorded: want[k]!, replayed: launch[k]! });
    }
    if (!Object.is(s.toMs, newestTickMs)) fields.push({ field: 'toMs', recorded: s.toMs, replayed: newestTickMs });
    const fl = this.flights;
    const i = fl.spawn(s.shooter, s.weapon, s.seq, s.fireMs, newestTickMs, s.stepMs, s.x, s.y, s.z, s.dx, s.dy, s.dz, this.present, this.onEnd);
    if (i < 0) fields.push({ field: 'spawn refused', recorded: false, replayed: fl.refusal });
    else compareFields(fields, s as unknown as Record<string, number | boolean>, fl.spawned as unknown as Record<string, number | boolean>, SPAWN_FIELDS);
    if (fields.length > 0) this.result.mismatches.push({ record: 'spawn', offset: f.offset, id: s.id, fields });
  }

  private next(offset: number, kind: 'end' | 'blast', id: number): Expected | null {
    const x = this.expected.shift();
    if (x === undefined || x.kind !== kind) {
      if (this.gapSeen) this.result.unresolved++;
      else this.result.mismatches.push({ record: 'extra', offset, id, fields: [{ field: `${kind} record`, recorded: true, replayed: false }] });
      if (x !== undefined) this.expected.unshift(x);
      return null;
    }
    return x;
  }

  private compareEnd(offset: number, want: ProjectileEndData, got: ProjectileEndData): void {
    const fields = compareFields([], got as unknown as Record<string, number | boolean>, want as unknown as Record<string, number | boolean>, END_FIELDS);
    checkApplied(fields, '', got.damage, got.applied, got.healthAfter, got.killed);
    if (fields.length > 0) this.result.mismatches.push({ record: 'end', offset, id: got.id, fields });
  }

  private compareBlast(offset: number, want: ProjectileBlastData, got: ProjectileBlastData): void {
    const fields = compareFields([], got as unknown as Record<string, number | boolean>, want as unknown as Record<string, number | boolean>, BLAST_FIELDS);
    const a = got.hits, b = want.hits;
    for (const k of ['count', 'total', 'blocked'] as const) if (a[k] !== b[k]) fields.push({ field: k, recorded: a[k], replayed: b[k] });
    const n = Math.min(a.count, b.count);
    for (let k = 0; k < n; k++) {
      for (const name of ['player', 'zone', 'via', 'hitbox', 'distance', 'damage', 'x', 'y', 'z'] as const) {
        if (!Object.is(a[name][k], b[name][k])) fields.push({ field: `${name}[${k}]`, recorded: a[name][k]!, replayed: b[name][k]! });
      }
      checkApplied(fields, `[${k}]`, a.damage[k]!, got.applied[k]!, got.healthAfter[k]!, got.killed[k] === 1);
    }
    if (fields.length > 0) this.result.mismatches.push({ record: 'blast', offset, id: got.id, fields });
  }

  /** Before a tick or a spawn: computed records the log lacks, and deaths no judged kill followed (unresolved when `sure` is false). */
  private settle(offset: number, sure = !this.gapSeen): void {
    for (const x of this.expected.splice(0)) {
      const id = x.kind === 'end' ? x.end.id : x.blast.id;
      if (!sure) this.result.unresolved++;
      else this.result.mismatches.push({ record: 'missing', offset, id, fields: [{ field: `${x.kind} record`, recorded: false, replayed: true }] });
    }
    const d = this.result.deaths;
    for (const death of this.deaths.splice(0)) {
      if (death.killer === death.slot) d.byGame++;
      else if (!sure) this.result.unresolved++;
      else d.unexplained.push(death);
    }
    this.kills.fill(0);
  }

  private death(offset: number, slot: number, killer: number, timeMs: number): void {
    if (this.kills[slot]! > 0) {
      this.kills[slot]!--;
      this.result.deaths.explained++;
    } else this.deaths.push({ offset, slot, killer, timeMs });
  }

  /** A judged kill of `slot`: it explains a death waiting for it, or the one that follows. */
  private killed(slot: number): void {
    if (!(slot >= 0 && slot < this.kills.length)) return;
    const i = this.deaths.findIndex((d) => d.slot === slot);
    if (i >= 0) {
      this.deaths.splice(i, 1);
      this.result.deaths.explained++;
    } else this.kills[slot]!++;
  }
}

const SPAWN_FIELDS = ['id', 'index', 'fromMs', 'sx', 'sy', 'sz', 'vx', 'vy', 'vz', 'ageMs', 'bounces', 'mode', 'alive'] as const;
const END_FIELDS = ['id', 'shooter', 'weapon', 'tick', 'kind', 'timeMs', 'x', 'y', 'z', 'ageMs', 'bounces', 'player', 'zone', 'hitbox', 'damage'] as const;
const BLAST_FIELDS = ['id', 'shooter', 'weapon', 'timeMs', 'x', 'y', 'z'] as const;

function compareFields(out: FieldMismatch[], recorded: Record<string, number | boolean>, replayed: Record<string, number | boolean>, names: readonly string[]): FieldMismatch[] {
  for (const n of names) if (!Object.is(recorded[n], replayed[n])) out.push({ field: n, recorded: recorded[n]!, replayed: replayed[n]! });
  return out;
}

/** What the match applied of a share: nothing or all of it; a kill exactly at health 0. */
function checkApplied(out: FieldMismatch[], at: string, damage: number, applied: number, healthAfter: number, killed: boolean): void {
  if (!(applied === 0 || Object.is(applied, damage))) out.push({ field: `applied${at}`, recorded: applied, replayed: damage });
  if (applied === 0 ? healthAfter !== -1 : !(healthAfter >= 0)) out.push({ field: `healthAfter${at}`, recorded: healthAfter, replayed: applied === 0 ? -1 : NaN });
  if (killed !== (applied > 0 && healthAfter === 0)) out.push({ field: `killed${at}`, recorded: killed, replayed: applied > 0 && healthAfter === 0 });
}

function copyBlast(b: ProjectileBlastData): ProjectileBlastData {
  const c = createBlastData(Math.max(1, b.hits.count));
  c.id = b.id; c.shooter = b.shooter; c.weapon = b.weapon; c.timeMs = b.timeMs; c.x = b.x; c.y = b.y; c.z = b.z;
  const h = b.hits, o = c.hits;
  o.count = h.count; o.total = h.total; o.blocked = h.blocked;
  for (let k = 0; k < h.count; k++) {
    o.player[k] = h.player[k]!; o.zone[k] = h.zone[k]!; o.via[k] = h.via[k]!; o.hitbox[k] = h.hitbox[k]!;
    o.distance[k] = h.distance[k]!; o.damage[k] = h.damage[k]!; o.x[k] = h.x[k]!; o.y[k] = h.y[k]!; o.z[k] = h.z[k]!;
  }
  return c;
}

export type { ProjectileSpawnData };
