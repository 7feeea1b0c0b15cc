/**
 * What a verdict does to the match: a hit takes health (and may kill: death, respawn timer, kill
 * feed), the shooter gets a hit confirmation and the victim the direction the damage came from, a
 * world hit that is not a player hit leaves a bullet hole, and every message gets its verdict reply.
 * Nothing else in the room changes health.
 */
import type { Client } from '@colyseus/core';
import type { ArraySchema } from '@colyseus/schema';
import { Msg, type DamagedReply, type HitReply, type RewoundPose, type VerdictReply } from '../../shared/protocol/messages';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { rewindStatusUsable } from '../../shared/lagcomp/history';
import { reasonName, VerdictKind, type Verdict } from '../../shared/validate/verdict';
import { BulletHole, KillFeedEntry, type ArenaState } from '../state/schema';
import type { ArenaConfig } from './config';
import { MatchEventKind, type MatchEvent } from './recorder';
import type { Slot } from './slot';
import type { MatchScene } from './scene';

/** The room as verdicts see it. */
export interface VerdictHost {
  readonly cfg: ArenaConfig;
  readonly slots: readonly Slot[];
  readonly state: ArenaState;
  readonly scene: MatchScene;
  /** Alive flags by slot as the pipeline reads them (cleared on a kill). */
  readonly targetsAlive: boolean[];
  now(): number;
  syncStatus(slot: Slot): void;
  recordEvent(e: MatchEvent): void;
}

export interface AppliedVerdict {
  /** Health of the target after the hit (-1 when no target was hit). */
  targetHealthAfter: number;
  killed: boolean;
}

const applied: AppliedVerdict = { targetHealthAfter: -1, killed: false };
const direction = new Float64Array(3);

/**
 * Applies `v` (judged for `shooter`) and replies to `client` (null: the shooter's connection is
 * lost, nothing to reply to); returns what it did (reused object).
 */
export function applyVerdict(host: VerdictHost, shooter: Slot, client: Client | null, v: Verdict): AppliedVerdict {
  const stats = host.cfg.stats;
  applied.targetHealthAfter = -1;
  applied.killed = false;
  if (v.kind === VerdictKind.HIT) {
    stats.hits++;
    const target = host.slots[v.target];
    if (target !== undefined && target.alive && target.client !== null) {
      target.health = Math.max(0, target.health - v.damage);
      applied.targetHealthAfter = target.health;
      if (target.health <= 0) {
        applied.killed = true;
        kill(host, target, shooter, v);
      }
      host.syncStatus(target);
      const hit: HitReply = { seq: v.seq, target: v.target, zone: v.zone, damage: v.damage, killed: applied.killed };
      client?.send(Msg.HIT, hit);
      damageDirection(direction, host.slots[v.shooter], target, v);
      const dmg: DamagedReply = { from: shooter.index, damage: v.damage, health: target.health, dx: direction[0]!, dy: direction[1]!, dz: direction[2]! };
      if (target.connected) target.client.send(Msg.DAMAGED, dmg);
    }
  } else if (v.kind === VerdictKind.MISS) {
    stats.misses++;
  } else if (v.kind === VerdictKind.ACTION) {
    stats.actions++;
    host.syncStatus(shooter);
  } else {
    const name = reasonName(v.reason);
    stats.rejects[name] = (stats.rejects[name] ?? 0) + 1;
  }
  if (v.kind === VerdictKind.HIT || v.kind === VerdictKind.MISS) host.syncStatus(shooter);
  if (v.worldHit && v.kind !== VerdictKind.HIT) addHole(host, shooter.index, v);

  const reply: VerdictReply = {
    seq: v.seq, kind: v.kind, reason: v.reason, reasonName: reasonName(v.reason), target: v.target, zone: v.zone,
    t: v.t, damage: v.damage, rewindTimeMs: Number.isFinite(v.rewindTimeMs) ? v.rewindTimeMs : -1, timeSource: v.timeSource,
    originOffsetM: Number.isFinite(v.originOffsetM) ? v.originOffsetM : -1,
  };
  if (shooter.debug && host.cfg.debugVerdicts && Number.isFinite(v.rewindTimeMs)) reply.rewound = rewoundPoses(host, shooter.index, v.rewindTimeMs);
  client?.send(Msg.VERDICT, reply);
  return applied;
}

const rewoundPose = createPlayerPose();

/** Every other player's pose at `timeMs` as the rewind sampled it (same histories, same policy). */
function rewoundPoses(host: VerdictHost, shooter: number, timeMs: number): RewoundPose[] {
  const out: RewoundPose[] = [];
  const { histories, eyePolicy } = host.scene;
  for (let s = 0; s < histories.length; s++) {
    const h = histories[s]!;
    if (s === shooter || h.size() === 0) continue;
    if (!rewindStatusUsable(h.sampleAt(rewoundPose, timeMs, eyePolicy)) || !rewoundPose.alive) continue;
    const p = rewoundPose;
    out.push({ slot: s, x: p.x, y: p.y, z: p.z, qx: p.qx, qy: p.qy, qz: p.qz, qw: p.qw, clip: p.clip, time: p.time });
  }
  return out;
}

/** Unit vector from the victim's position toward the shooter's (where the damage came from). */
function damageDirection(out: Float64Array, shooter: Slot | undefined, target: Slot, v: Verdict): void {
  const sx = shooter !== undefined ? shooter.move.x : v.x;
  const sy = shooter !== undefined ? shooter.move.y : v.y;
  const sz = shooter !== undefined ? shooter.move.z : v.z;
  const dx = sx - target.move.x, dy = sy - target.move.y, dz = sz - target.move.z;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (l > 1e-9) {
    out[0] = dx / l; out[1] = dy / l; out[2] = dz / l;
  } else {
    out[0] = 0; out[1] = 0; out[2] = 0;
  }
}

function kill(host: VerdictHost, target: Slot, killer: Slot, v: Verdict): void {
  const t = host.now();
  target.alive = false;
  target.diedAtMs = t;
  target.shooter.alive = false;
  target.inputs.clear();
  target.deaths++;
  target.respawnAtMs = Math.max(t + host.cfg.respawnDelayMs, 1e-9);
  host.targetsAlive[target.index] = false;
  if (killer !== target) killer.kills++;
  host.syncStatus(killer);
  const feed = host.state.killFeed;
  const e = new KillFeedEntry();
  e.killer = killer.index;
  e.victim = target.index;
  e.weapon = v.weapon;
  e.zone = v.zone;
  e.timeMs = t;
  feed.push(e);
  while (feed.length > host.cfg.killFeedLength) feed.shift();
  host.cfg.stats.kills++;
  host.recordEvent({ kind: MatchEventKind.DEATH, slot: target.index, timeMs: t, other: killer.index });
}

function addHole(host: VerdictHost, shooter: number, v: Verdict): void {
  const holes = host.state.holes as ArraySchema<BulletHole>;
  const h = new BulletHole();
  h.x = v.x; h.y = v.y; h.z = v.z;
  h.nx = v.nx; h.ny = v.ny; h.nz = v.nz;
  const s = host.cfg.world.surfaces[v.surface];
  h.surface = s !== undefined ? `${s.node}/${s.material}` : '';
  h.shooter = shooter;
  h.seq = v.seq >>> 0;
  holes.push(h);
  while (holes.length > host.cfg.maxBulletHoles) holes.shift();
}
