/**
 * Projectiles on a predicting client.
 * - LaunchPredictor: the shooter's own rockets and grenades, flown from the moment it fires with the
 *   server's own flight code (../projectile/flights) against what the client renders: the level and
 *   the players of its view (view.ts) posed at its render time as it advances. Its end is the
 *   predicted impact: where, on whom, and whom the blast reaches; the server's `projectile` message
 *   says what really happened.
 * - SyncedProjectiles: every projectile the server flies, as its synced snapshots give them (the
 *   state at a server time, rewritten at spawn, bounces and mode changes), re-flown from the latest
 *   snapshot against the level on the server's sub-step grid to the time drawn. Players are not
 *   touched here: a projectile that ends on one disappears when the server's end arrives.
 * Neither reads a clock: the caller passes its render time (server ms).
 */
import type { ValidationConfig } from '../validate/rules';
import type { WeaponSpec } from '../weapons';
import { weaponById } from '../weapons';
import type { World } from '../world/world';
import { ProjectileFlights, type FlightEndHandler } from '../projectile/flights';
import { createFlightEvent, createProjectileState, FlightEventKind, FlightMode, type ProjectileState } from '../projectile/flight';
import { catchUpStartMs, flyGridSteps, gridSteps } from '../projectile/catchUp';
import type { MatchView } from './view';

/** Own projectiles predicted at once by default. */
export const DEFAULT_PREDICTED_PROJECTILES = 16;

export class LaunchPredictor {
  /** The predicted flights (ProjectileFlights: flat arrays; `seq` names each one's launch). */
  readonly flights: ProjectileFlights;
  /** The flight sub-step: the server's tick period (1000 / tickRate), so the grids match. */
  readonly stepMs: number;
  /** The last launches (a ring of `capacity`), kept to re-fly one from the server's start: seq, slot, weapon, start, point, direction. */
  private readonly launches: Float64Array;
  private next = 0;
  private lastRenderMs = Number.NaN;

  constructor(private readonly view: MatchView, rules: ValidationConfig, tickRate: number, readonly capacity = DEFAULT_PREDICTED_PROJECTILES) {
    this.stepMs = 1000 / tickRate;
    this.flights = new ProjectileFlights(rules.weapons, rules.zoneMultipliers, view.world, view.volumes, capacity, view.maxPlayers);
    this.launches = new Float64Array(capacity * LAUNCH_STRIDE).fill(Number.NaN);
  }

  /**
   * The shooter in `slot` launched weapon `weapon` with message `seq` from (x, y, z) along the unit
   * (dx, dy, dz) at render time renderTimeMs (the time its shot states). Returns the flight's index,
   * -1 when it cannot fly (no projectile weapon, bad numbers, as many in flight as the capacity).
   * `arrivalMs`: when the server is expected to judge it (its clock then, about the client's server
   * clock plus half a round trip). The server starts the flight at catchUpStartMs(render time,
   * arrival): more than MAX_CATCH_UP_MS late, the start moves later by the excess; the prediction
   * starts where the server will, so its sub-steps meet the players at the times the server's do
   * (the same poses: the client's rings hold the server's). Default: the render time (no delay).
   * Nothing is flown yet: its end comes from advance.
   */
  launch(
    slot: number, weapon: number, seq: number, x: number, y: number, z: number, dx: number, dy: number, dz: number, renderTimeMs: number, onEnd: FlightEndHandler,
    arrivalMs: number = renderTimeMs,
  ): number {
    const start = catchUpStartMs(renderTimeMs, arrivalMs);
    const i = this.flights.spawn(slot, weapon, seq, start, start, this.stepMs, x, y, z, dx, dy, dz, this.view.historiesFrom(start), onEnd);
    if (i < 0) return i;
    const L = this.launches, o = this.next * LAUNCH_STRIDE;
    this.next = (this.next + 1) % this.capacity;
    L[o] = seq; L[o + 1] = slot; L[o + 2] = weapon; L[o + 3] = start;
    L[o + 4] = x; L[o + 5] = y; L[o + 6] = z; L[o + 7] = dx; L[o + 8] = dy; L[o + 9] = dz;
    return i;
  }

  /**
   * The server's verdict named the start of launch `seq`'s flight (VerdictReply.projectileStartMs).
   * When the prediction started elsewhere it is flown again from that start up to the last render
   * time advanced to, against the same rings: its end (again to onEnd, replacing the first) is then
   * the server's own unless a player was posed differently. Returns true when it was re-flown.
   */
  confirm(seq: number, startMs: number, onEnd: FlightEndHandler): boolean {
    const L = this.launches;
    let o = -1;
    for (let k = 0; k < this.capacity; k++) if (L[k * LAUNCH_STRIDE] === seq) o = k * LAUNCH_STRIDE;
    if (o < 0 || !(startMs - startMs === 0) || L[o + 3] === startMs) return false;
    const f = this.flights;
    this.drop(seq);
    L[o + 3] = startMs;
    const i = f.spawn(L[o + 1]!, L[o + 2]!, seq, startMs, startMs, this.stepMs, L[o + 4]!, L[o + 5]!, L[o + 6]!, L[o + 7]!, L[o + 8]!, L[o + 9]!, this.view.historiesFrom(startMs), onEnd);
    if (i >= 0 && this.lastRenderMs === this.lastRenderMs) f.step(-1, this.lastRenderMs, this.view.historiesFrom(startMs), onEnd);
    return i >= 0;
  }

  /**
   * Flies every predicted projectile through the grid sub-steps that end by renderTimeMs, against
   * the view's players whose received data reaches back to the earliest flight's time (a player
   * back from the server's fog meets nothing before its first snapshot); ends go to onEnd.
   */
  advance(renderTimeMs: number, onEnd: FlightEndHandler): void {
    if (!(renderTimeMs <= this.lastRenderMs)) this.lastRenderMs = renderTimeMs;
    const f = this.flights;
    let from = renderTimeMs;
    for (let i = 0; i < f.capacity; i++) if (f.live[i] === 1 && f.timeMs[i]! < from) from = f.timeMs[i]!;
    f.step(-1, renderTimeMs, this.view.historiesFrom(from), onEnd);
  }

  /**
   * Drops the prediction of launch `seq` still flying (the server's end for it arrived): it ends
   * without a predicted end. Returns whether one was flying.
   */
  drop(seq: number): boolean {
    const f = this.flights;
    for (let i = 0; i < f.capacity; i++) {
      if (f.live[i] === 1 && f.seq[i] === seq) {
        f.remove(i);
        return true;
      }
    }
    return false;
  }

  /** Forgets every prediction (a new life, a new match). */
  clear(): void {
    this.flights.clear();
    this.launches.fill(Number.NaN);
  }
}

/** Numbers kept per launch: seq, slot, weapon, start, x, y, z, dx, dy, dz. */
const LAUNCH_STRIDE = 10;

/** A synced projectile as the game's state carries it (hitreg's arena: ProjectileSnapshot). */
export interface ProjectileSnapshotLike {
  id: number; shooter: number; weapon: number; seq: number;
  /** Server ms of this state, and the flight's age then. */
  timeMs: number; ageMs: number;
  x: number; y: number; z: number; vx: number; vy: number; vz: number;
  bounces: number; mode: number;
}

/** One synced projectile, re-flown against the level from its latest snapshot. */
export interface SyncedProjectile {
  readonly id: number;
  readonly shooter: number;
  readonly weapon: number;
  readonly seq: number;
  /** The flight as the server flies it: the state at `timeMs`, a point of the flight's sub-step grid. */
  readonly state: ProjectileState;
  timeMs: number;
  /** Where to draw it at the time last advanced to: `state` carried on along its arc for the part of a sub-step after timeMs. */
  x: number; y: number; z: number;
  /** The snapshot it was last reset from (its time and bounces). */
  snapTimeMs: number;
  snapBounces: number;
  /** Seen in the latest update (entries not seen are dropped). */
  seen: boolean;
}

export class SyncedProjectiles {
  /** Live synced projectiles by id. */
  readonly entries = new Map<number, SyncedProjectile>();
  private readonly event = createFlightEvent();
  /** The flight sub-step: the server's tick period. */
  readonly stepMs: number;

  constructor(private readonly world: World | null, private readonly weapons: readonly WeaponSpec[], tickRate: number) {
    this.stepMs = 1000 / tickRate;
  }

  /** The server's current list: new ones appear, changed ones are reset to their snapshot, missing ones go. */
  update(list: Iterable<ProjectileSnapshotLike>): void {
    for (const e of this.entries.values()) e.seen = false;
    for (const s of list) {
      if (weaponById(this.weapons, s.weapon)?.projectile === undefined) continue;
      let e = this.entries.get(s.id);
      if (e === undefined) {
        e = { id: s.id, shooter: s.shooter, weapon: s.weapon, seq: s.seq, state: createProjectileState(), timeMs: Number.NaN, x: s.x, y: s.y, z: s.z, snapTimeMs: Number.NaN, snapBounces: -1, seen: true };
        this.entries.set(s.id, e);
      }
      e.seen = true;
      if (e.snapTimeMs === s.timeMs && e.snapBounces === s.bounces) continue;
      const st = e.state;
      st.x = s.x; st.y = s.y; st.z = s.z; st.vx = s.vx; st.vy = s.vy; st.vz = s.vz;
      st.ageMs = s.ageMs; st.bounces = s.bounces; st.mode = s.mode as FlightMode; st.shooter = s.shooter; st.alive = true;
      e.timeMs = s.timeMs; e.snapTimeMs = s.timeMs; e.snapBounces = s.bounces;
      e.x = s.x; e.y = s.y; e.z = s.z;
    }
    for (const [id, e] of this.entries) if (!e.seen) this.entries.delete(id);
  }

  /**
   * Flies each through the whole sub-steps that end by timeMs, against the level only, with the
   * server's code on the server's grid (the same bits as the server's flight while no player is
   * touched), then sets the drawn point part of a sub-step further along its arc. Never backward.
   * One the level ends stays where it ended until the server removes it.
   */
  advance(timeMs: number): void {
    const q = this.stepMs, ev = this.event;
    for (const e of this.entries.values()) {
      const st = e.state;
      if (!st.alive) continue;
      const n = gridSteps(e.timeMs, timeMs, q);
      const spec = weaponById(this.weapons, e.weapon)!.projectile!;
      if (n > 0) {
        flyGridSteps(ev, st, spec, e.timeMs, 0, n, q, this.world, null, NO_PLAYERS);
        e.timeMs += n * q;
        if (ev.kind !== FlightEventKind.NONE) {
          e.x = ev.x; e.y = ev.y; e.z = ev.z;
          st.alive = false;
          continue;
        }
      }
      const r = timeMs > e.timeMs ? (timeMs - e.timeMs) / 1000 : 0;
      const g = st.mode === FlightMode.FLYING ? spec.gravity : 0;
      e.x = st.x + st.vx * r; e.y = st.y + st.vy * r - 0.5 * g * r * r; e.z = st.z + st.vz * r;
    }
  }
}

const NO_PLAYERS: ArrayLike<undefined> = [];
