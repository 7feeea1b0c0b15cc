/**
 * Projectiles on a predicting client.
 * - LaunchPredictor: the shooter's own rockets and grenades, flown from the moment it fires with the
 *   server's own flight code (../projectile/flights) against what the client renders: the level and
 *   the players of its view (view.ts) posed at its render time as it advances. Its end is the
 *   predicted impact: where, on whom, and whom the blast reaches; the server's `projectile` message
 *   says what really happened.
 * - SyncedProjectiles: every projectile the server flies, as its synced snapshots give them (the
 *   state at a server time, rewritten at spawn, bounces and mode changes), re-flown from the latest
 *   snapshot against the level to the time drawn. Players are not touched here: a projectile that
 *   ends on one disappears when the server's end arrives.
 * Neither reads a clock: the caller passes its render time (server ms).
 */
import type { ValidationConfig } from '../validate/rules';
import type { WeaponSpec } from '../weapons';
import { weaponById } from '../weapons';
import type { World } from '../world/world';
import { ProjectileFlights, type FlightEndHandler } from '../projectile/flights';
import { createFlightEvent, createProjectileState, FlightEventKind, stepProjectile, type FlightMode, type ProjectileState } from '../projectile/flight';
import type { MatchView } from './view';

/** Own projectiles predicted at once by default. */
export const DEFAULT_PREDICTED_PROJECTILES = 16;

export class LaunchPredictor {
  /** The predicted flights (ProjectileFlights: flat arrays; `seq` names each one's launch). */
  readonly flights: ProjectileFlights;

  /** The flight sub-step: the server's tick period (1000 / tickRate), so the grids match. */
  readonly stepMs: number;

  constructor(private readonly view: MatchView, rules: ValidationConfig, tickRate: number, capacity = DEFAULT_PREDICTED_PROJECTILES) {
    this.stepMs = 1000 / tickRate;
    this.flights = new ProjectileFlights(rules.weapons, rules.zoneMultipliers, view.world, view.volumes, capacity, view.maxPlayers);
  }

  /**
   * The shooter in `slot` launched weapon `weapon` with message `seq` from (x, y, z) along the unit
   * (dx, dy, dz) at render time renderTimeMs (the time its shot states). Returns the flight's index,
   * -1 when it cannot fly (no projectile weapon, bad numbers, as many in flight as the capacity).
   * Its flight starts at renderTimeMs on the server's grid of tick-period sub-steps: no time is flown
   * yet, so its end comes from advance.
   */
  launch(slot: number, weapon: number, seq: number, x: number, y: number, z: number, dx: number, dy: number, dz: number, renderTimeMs: number, onEnd: FlightEndHandler): number {
    return this.flights.spawn(slot, weapon, seq, renderTimeMs, renderTimeMs, this.stepMs, x, y, z, dx, dy, dz, this.view.histories, onEnd);
  }

  /** Flies every predicted projectile through the grid sub-steps that end by renderTimeMs, against the view's players; ends go to onEnd. */
  advance(renderTimeMs: number, onEnd: FlightEndHandler): void {
    this.flights.step(-1, renderTimeMs, this.view.histories, onEnd);
  }

  /**
   * Drops the prediction of launch `seq` still flying (the server's end for it arrived): it ends
   * without a predicted end. Returns whether one was flying.
   */
  drop(seq: number): boolean {
    const f = this.flights;
    for (let i = 0; i < f.capacity; i++) {
      if (f.live[i] === 1 && f.seq[i] === seq) {
        f.discard(i);
        return true;
      }
    }
    return false;
  }

  /** Forgets every prediction (a new life, a new match). */
  clear(): void {
    this.flights.clear();
  }
}

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
  /** Where it is drawn: the state flown to `timeMs` (alive false once the level ended it here). */
  readonly state: ProjectileState;
  timeMs: number;
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

  constructor(private readonly world: World | null, private readonly weapons: readonly WeaponSpec[]) {}

  /** The server's current list: new ones appear, changed ones are reset to their snapshot, missing ones go. */
  update(list: Iterable<ProjectileSnapshotLike>): void {
    for (const e of this.entries.values()) e.seen = false;
    for (const s of list) {
      if (weaponById(this.weapons, s.weapon)?.projectile === undefined) continue;
      let e = this.entries.get(s.id);
      if (e === undefined) {
        e = { id: s.id, shooter: s.shooter, weapon: s.weapon, seq: s.seq, state: createProjectileState(), timeMs: Number.NaN, snapTimeMs: Number.NaN, snapBounces: -1, seen: true };
        this.entries.set(s.id, e);
      }
      e.seen = true;
      if (e.snapTimeMs === s.timeMs && e.snapBounces === s.bounces) continue;
      const st = e.state;
      st.x = s.x; st.y = s.y; st.z = s.z; st.vx = s.vx; st.vy = s.vy; st.vz = s.vz;
      st.ageMs = s.ageMs; st.bounces = s.bounces; st.mode = s.mode as FlightMode; st.shooter = s.shooter; st.alive = true;
      e.timeMs = s.timeMs; e.snapTimeMs = s.timeMs; e.snapBounces = s.bounces;
    }
    for (const [id, e] of this.entries) if (!e.seen) this.entries.delete(id);
  }

  /**
   * Flies each to timeMs against the level (never backward: a projectile whose snapshot is newer
   * than timeMs is drawn at its snapshot). One that the level ends stays where it ended until the
   * server removes it.
   */
  advance(timeMs: number): void {
    for (const e of this.entries.values()) {
      const dt = timeMs - e.timeMs;
      if (!(dt > 0) || !e.state.alive) continue;
      const spec = weaponById(this.weapons, e.weapon)!.projectile!;
      stepProjectile(this.event, e.state, spec, dt, this.world, null, NO_PLAYERS, timeMs);
      if (this.event.kind !== FlightEventKind.NONE) {
        const st = e.state;
        st.x = this.event.x; st.y = this.event.y; st.z = this.event.z;
        st.alive = false;
      }
      e.timeMs = timeMs;
    }
  }
}

const NO_PLAYERS: ArrayLike<undefined> = [];
