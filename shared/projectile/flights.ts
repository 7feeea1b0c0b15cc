/**
 * The projectiles of one match in flat arrays (a bounded count), flown the same way by the server's
 * match and by the audit that re-flies them from the log, so both reach the same bits:
 * - spawn: a launched shot (verdict LAUNCH) at its eye point and direction, its flight starting at
 *   catchUpStartMs(fire time, present) and caught up at once to the present (the newest tick);
 * - step: at each tick, every live projectile flown on toward the tick's time.
 * A flight is flown on a grid of sub-steps of the spawn's stepMs counted from its start, each
 * against the players posed at the sub-step's start (./catchUp flyGridSteps), up to the last grid
 * point reached: the catch-up sub-steps are rewound poses, the later ones the present's. The path
 * is then the same however the time is split into calls, so a shooter that flies its own launch
 * frame by frame on the same grid (shared/client/projectiles.ts) meets the level on the same bits.
 * - an end (PLAYER, LEVEL, FUSE, EXPIRED) is resolved here: a direct hit's damage (directDamage x
 *   the zone's multiplier, the weapon's table else the rules'), and for every end but EXPIRED the
 *   blast (./explosion) among the players posed at the end's time (flight start + age, at most
 *   the step's present), the shooter included (its own blast hurts it), the direct victim too.
 * Each end is handed to the caller's `onEnd` with `ended` (and `blast` when it exploded) filled;
 * the caller applies the damage (team rules, health, deaths) and logs it. Entries are kept by
 * index (the lowest free one is reused) and stepped in index order: the same spawns and ends give
 * the same order everywhere. Only + - * /, Math.sqrt and comparisons.
 */
import type { PlayerHistory } from '../lagcomp/history';
import type { VolumeRewinder } from '../lagcomp/rewindVolume';
import { weaponById, type WeaponSpec } from '../weapons';
import type { World } from '../world/world';
import { catchUpProjectile, catchUpStartMs, flyGridSteps, gridSteps } from './catchUp';
import { createSplashHits, explode, type SplashHits } from './explosion';
import { createFlightEvent, createProjectileState, FlightEventKind, launchProjectile, stepProjectile, type FlightEvent, type ProjectileState } from './flight';

/** Live projectiles a match keeps at most by default. */
export const DEFAULT_MAX_PROJECTILES = 256;

/** Why a spawn was refused (ProjectileFlights.spawn returns -1 and sets `refusal`). */
export const SpawnRefusal = {
  NONE: 0,
  /** As many projectiles fly as the match keeps. */
  PROJECTILE_LIMIT: 1,
  /** The weapon has no projectile spec. */
  NOT_PROJECTILE: 2,
  /** Non-finite or zero launch numbers. */
  BAD_LAUNCH: 3,
} as const;
export type SpawnRefusal = (typeof SpawnRefusal)[keyof typeof SpawnRefusal];

/** A spawn as the log carries it: the launch and the state after the catch-up. */
export interface ProjectileSpawnData {
  id: number; index: number; shooter: number; weapon: number; seq: number;
  /** The verdict's rewound time, the catch-up's start and end (the newest tick), its sub-step, ms. */
  fireMs: number; fromMs: number; toMs: number; stepMs: number;
  /** Launch point and unit direction. */
  x: number; y: number; z: number; dx: number; dy: number; dz: number;
  /** State after the catch-up. */
  sx: number; sy: number; sz: number; vx: number; vy: number; vz: number; ageMs: number; bounces: number; mode: number; alive: boolean;
}

/** How a flight ended, and a direct hit's damage and what the match did with it. */
export interface ProjectileEndData {
  /** The projectile's id and its index in the flights' arrays (free again once the end is handled). */
  id: number; index: number; shooter: number; weapon: number;
  /** The launch's seq (the shooter's weapon message). */
  seq: number;
  /** The tick whose step ended it, -1 for the catch-up. */
  tick: number;
  kind: FlightEventKind;
  /** Time of the end (flight start + age, at most the step's present): the blast's pose time, ms. */
  timeMs: number;
  x: number; y: number; z: number; ageMs: number; bounces: number;
  /** Player touched first in the ending call (-1 none), its zone and hitbox; the direct damage (0 unless PLAYER). */
  player: number; zone: number; hitbox: number; damage: number;
  /** Set by the match: damage applied (0: a teammate, dead, gone), health after (-1 none), kill. */
  applied: number; healthAfter: number; killed: boolean;
}

/** A blast: its centre and time, who it damages (SplashHits) and what the match applied to each. */
export interface ProjectileBlastData {
  id: number; shooter: number; weapon: number;
  timeMs: number; x: number; y: number; z: number;
  hits: SplashHits;
  /** Per entry of hits (set by the match). */
  applied: Float64Array; healthAfter: Float64Array; killed: Uint8Array;
}

export function createSpawnData(): ProjectileSpawnData {
  return {
    id: -1, index: -1, shooter: -1, weapon: -1, seq: -1, fireMs: NaN, fromMs: NaN, toMs: NaN, stepMs: NaN,
    x: NaN, y: NaN, z: NaN, dx: NaN, dy: NaN, dz: NaN, sx: NaN, sy: NaN, sz: NaN, vx: NaN, vy: NaN, vz: NaN, ageMs: NaN, bounces: 0, mode: 0, alive: false,
  };
}

export function createEndData(): ProjectileEndData {
  return {
    id: -1, index: -1, shooter: -1, weapon: -1, seq: -1, tick: -1, kind: FlightEventKind.NONE, timeMs: NaN, x: NaN, y: NaN, z: NaN, ageMs: NaN, bounces: 0,
    player: -1, zone: 0, hitbox: -1, damage: 0, applied: 0, healthAfter: -1, killed: false,
  };
}

export function createBlastData(capacity = 64): ProjectileBlastData {
  return {
    id: -1, shooter: -1, weapon: -1, timeMs: NaN, x: NaN, y: NaN, z: NaN, hits: createSplashHits(capacity),
    applied: new Float64Array(capacity), healthAfter: new Float64Array(capacity), killed: new Uint8Array(capacity),
  };
}

/** Called for each end: `blast` is null for EXPIRED. */
export type FlightEndHandler = (end: ProjectileEndData, blast: ProjectileBlastData | null) => void;

export class ProjectileFlights {
  readonly capacity: number;
  readonly live: Uint8Array;
  readonly id: Float64Array;
  readonly shooter: Int32Array;
  readonly weapon: Int32Array;
  /** The launch's seq. */
  readonly seq: Float64Array;
  /** Flight start (catch-up start), and the time flown to, ms. */
  readonly startMs: Float64Array;
  readonly timeMs: Float64Array;
  /** The flight's sub-step (the spawn's stepMs) and the grid sub-steps flown so far. */
  readonly stepMs: Float64Array;
  readonly steps: Float64Array;
  readonly x: Float64Array; readonly y: Float64Array; readonly z: Float64Array;
  readonly vx: Float64Array; readonly vy: Float64Array; readonly vz: Float64Array;
  readonly ageMs: Float64Array;
  readonly bounces: Int32Array;
  readonly mode: Uint8Array;
  /** Live projectiles. */
  count = 0;
  /** Ids handed out so far (the next spawn's id). */
  nextId = 0;
  /** Why the last spawn was refused. */
  refusal: SpawnRefusal = SpawnRefusal.NONE;
  readonly spawned = createSpawnData();
  readonly ended = createEndData();
  readonly blast: ProjectileBlastData;
  private readonly state: ProjectileState = createProjectileState();
  private readonly event: FlightEvent = createFlightEvent();

  /**
   * `grid` false: the format-10 flight policy, for auditing logs of that format (a spawn caught up
   * to the present with a last partial sub-step; each tick flown in one call against the players
   * posed at the tick's time). True (every writer now): flown on the spawn's sub-step grid.
   */
  constructor(
    readonly weapons: readonly WeaponSpec[], readonly zoneMultipliers: ArrayLike<number>, readonly world: World | null,
    readonly vol: VolumeRewinder, capacity = DEFAULT_MAX_PROJECTILES, maxPlayers = 64, readonly grid = true,
  ) {
    if (!Number.isInteger(capacity) || capacity < 0 || capacity > 1 << 16) throw new RangeError(`ProjectileFlights: capacity must be an integer 0..65536 (got ${capacity})`);
    this.capacity = capacity;
    const f = () => new Float64Array(capacity);
    this.live = new Uint8Array(capacity); this.id = f(); this.shooter = new Int32Array(capacity); this.weapon = new Int32Array(capacity); this.seq = f();
    this.startMs = f(); this.timeMs = f(); this.stepMs = f(); this.steps = f(); this.x = f(); this.y = f(); this.z = f(); this.vx = f(); this.vy = f(); this.vz = f();
    this.ageMs = f(); this.bounces = new Int32Array(capacity); this.mode = new Uint8Array(capacity);
    this.blast = createBlastData(Math.max(1, maxPlayers));
  }

  /**
   * Spawns a launched shot of `shooter` (slot) with weapon id `weapon` at (x, y, z) along the unit
   * (dx, dy, dz), fired at fireMs, caught up to nowMs (the newest tick) in sub-steps of stepMs
   * against `histories` (a slot's undefined: not a target). Fills `spawned`; an end during the
   * catch-up goes to onEnd (tick -1) before this returns. Returns the entry's index, or -1 with
   * `refusal` set (nothing changes).
   */
  spawn(
    shooter: number, weapon: number, seq: number, fireMs: number, nowMs: number, stepMs: number,
    x: number, y: number, z: number, dx: number, dy: number, dz: number,
    histories: ArrayLike<PlayerHistory | undefined>, onEnd: FlightEndHandler,
  ): number {
    const w = weaponById(this.weapons, weapon);
    const spec = w?.projectile;
    if (spec === undefined) return this.refuse(SpawnRefusal.NOT_PROJECTILE);
    if (this.count >= this.capacity) return this.refuse(SpawnRefusal.PROJECTILE_LIMIT);
    const from = catchUpStartMs(fireMs, nowMs);
    const s = this.state;
    if (!(from === from) || !launchOk(x, y, z, dx, dy, dz)) return this.refuse(SpawnRefusal.BAD_LAUNCH);
    let i = 0;
    while (this.live[i] === 1) i++;
    launchProjectile(s, spec, shooter, x, y, z, dx, dy, dz);
    const id = this.nextId++;
    this.live[i] = 1;
    this.count++;
    this.id[i] = id; this.shooter[i] = shooter; this.weapon[i] = weapon; this.seq[i] = seq; this.startMs[i] = from;
    const ev = this.event;
    this.stepMs[i] = stepMs;
    if (this.grid) {
      const n = gridSteps(from, nowMs, stepMs);
      flyGridSteps(ev, s, spec, from, 0, n, stepMs, this.world, this.vol, histories);
      this.steps[i] = n;
      this.timeMs[i] = from + n * stepMs;
    } else {
      catchUpProjectile(ev, s, spec, from, nowMs, stepMs, this.world, this.vol, histories);
      this.timeMs[i] = nowMs > from ? nowMs : from;
    }
    this.store(i);
    const o = this.spawned;
    o.id = id; o.index = i; o.shooter = shooter; o.weapon = weapon; o.seq = seq;
    o.fireMs = fireMs; o.fromMs = from; o.toMs = nowMs; o.stepMs = stepMs;
    o.x = x; o.y = y; o.z = z; o.dx = dx; o.dy = dy; o.dz = dz;
    o.sx = s.x; o.sy = s.y; o.sz = s.z; o.vx = s.vx; o.vy = s.vy; o.vz = s.vz; o.ageMs = s.ageMs; o.bounces = s.bounces; o.mode = s.mode; o.alive = s.alive;
    this.refusal = SpawnRefusal.NONE;
    if (ev.kind !== FlightEventKind.NONE) this.finish(i, w!, -1, this.timeMs[i]!, histories, onEnd);
    return i;
  }

  /**
   * Flies every live projectile through the whole grid sub-steps that end by tickMs, each against
   * `histories` posed at the sub-step's start (format 10: to tickMs at once, posed at tickMs); ends
   * go to onEnd in index order.
   */
  step(tick: number, tickMs: number, histories: ArrayLike<PlayerHistory | undefined>, onEnd: FlightEndHandler): void {
    if (this.count === 0) return;
    for (let i = 0; i < this.capacity; i++) {
      if (this.live[i] !== 1) continue;
      const w = weaponById(this.weapons, this.weapon[i]!)!;
      if (this.grid) {
        const q = this.stepMs[i]!, start = this.startMs[i]!, done = this.steps[i]!;
        const n = gridSteps(start, tickMs, q);
        if (!(n > done)) continue;
        this.load(i);
        flyGridSteps(this.event, this.state, w.projectile!, start, done, n, q, this.world, this.vol, histories);
        this.steps[i] = n;
        this.timeMs[i] = start + n * q;
      } else {
        const dt = tickMs - this.timeMs[i]!;
        if (!(dt > 0)) continue;
        this.load(i);
        stepProjectile(this.event, this.state, w.projectile!, dt, this.world, this.vol, histories, tickMs);
        this.timeMs[i] = tickMs;
      }
      this.store(i);
      if (this.event.kind !== FlightEventKind.NONE) this.finish(i, w, tick, this.timeMs[i]!, histories, onEnd);
    }
  }

  /** Drops entry i without an end (a client's prediction that the server's end replaced). */
  discard(i: number): void {
    if (this.live[i] !== 1) return;
    this.live[i] = 0;
    this.count--;
  }

  /** Drops every projectile (a match's end or reset). */
  clear(): void {
    this.live.fill(0);
    this.count = 0;
  }

  private refuse(r: SpawnRefusal): number {
    this.refusal = r;
    return -1;
  }

  private load(i: number): void {
    const s = this.state;
    s.x = this.x[i]!; s.y = this.y[i]!; s.z = this.z[i]!; s.vx = this.vx[i]!; s.vy = this.vy[i]!; s.vz = this.vz[i]!;
    s.ageMs = this.ageMs[i]!; s.bounces = this.bounces[i]!; s.mode = this.mode[i]! as ProjectileState['mode']; s.shooter = this.shooter[i]!; s.alive = true;
  }

  private store(i: number): void {
    const s = this.state;
    this.x[i] = s.x; this.y[i] = s.y; this.z[i] = s.z; this.vx[i] = s.vx; this.vy[i] = s.vy; this.vz[i] = s.vz;
    this.ageMs[i] = s.ageMs; this.bounces[i] = s.bounces; this.mode[i] = s.mode;
  }

  /** The flight of entry i ended (this.event): fills ended (and blast), frees the entry, calls onEnd. */
  private finish(i: number, w: WeaponSpec, tick: number, ceilMs: number, histories: ArrayLike<PlayerHistory | undefined>, onEnd: FlightEndHandler): void {
    const ev = this.event, spec = w.projectile!;
    this.live[i] = 0;
    this.count--;
    const e = this.ended;
    const end = this.startMs[i]! + ev.ageMs;
    e.id = this.id[i]!; e.index = i; e.shooter = this.shooter[i]!; e.weapon = w.id; e.seq = this.seq[i]!; e.tick = tick; e.kind = ev.kind;
    e.timeMs = end < ceilMs ? end : ceilMs;
    e.x = ev.x; e.y = ev.y; e.z = ev.z; e.ageMs = ev.ageMs; e.bounces = this.bounces[i]!;
    e.player = ev.player; e.zone = ev.zone; e.hitbox = ev.hitbox;
    const table = w.zoneMultipliers ?? this.zoneMultipliers;
    e.damage = ev.kind === FlightEventKind.PLAYER ? spec.directDamage * (table[ev.zone] ?? 1) : 0;
    e.applied = 0; e.healthAfter = -1; e.killed = false;
    const splash = spec.splash;
    if (ev.kind === FlightEventKind.EXPIRED || splash === undefined) {
      onEnd(e, null);
      return;
    }
    const b = this.blast;
    b.id = e.id; b.shooter = e.shooter; b.weapon = w.id; b.timeMs = e.timeMs; b.x = ev.x; b.y = ev.y; b.z = ev.z;
    explode(b.hits, this.world, this.vol, histories, e.timeMs, ev.x, ev.y, ev.z, splash, -1);
    b.applied.fill(0);
    b.healthAfter.fill(-1);
    b.killed.fill(0);
    onEnd(e, b);
  }
}

function launchOk(x: number, y: number, z: number, dx: number, dy: number, dz: number): boolean {
  const c = x + y + z + dx + dy + dz;
  const len2 = dx * dx + dy * dy + dz * dz;
  return c - c === 0 && len2 > 0 && len2 < Infinity;
}
