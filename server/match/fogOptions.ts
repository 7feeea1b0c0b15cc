/**
 * FogFilter's settings (part of "hitreg/server"): the movement bounds it needs, its options with their
 * defaults, and the level's walk grid a movement gives (./fogFilter uses them).
 */
import { buildWalkGrid, type ClimbMap, type FogConfig, type WalkGrid } from '../../shared/fog/index';
import type { World } from '../../shared/world/world';

/**
 * The rays after which an update tests no more pairs unless the config says otherwise (FogConfig.maxRaysPerUpdate): a
 * crowd in partial cover can ask for ten times the usual work in one tick (a 64-player load match
 * on the default level: about 1,200 rays a tick at the median, 15,000 at the 99th percentile). The
 * cap spreads that over updates, sending the pairs it leaves untested meanwhile; at 64 players the
 * fog bench's mean is 8,400 rays a tick on the default level and 11,500 on the rooms level, so it
 * binds on their peaks only (npm run bench:fog -- --players 64 --max-rays N).
 */
export const DEFAULT_FOG_RAYS_PER_UPDATE = 12_000;

/**
 * FogFilter's default precisionBudgetMs: the time FogOfWar.update may take before no more viewers are
 * made precise (shared/fog/precision). At 32 players the walled rooms level decides every viewer
 * precisely within it, and open ground's cached verdicts alone about fill it (npm run bench:fog).
 */
export const DEFAULT_FOG_PRECISION_MS = 1;

/** Movement bounds the fog needs (hitreg's MoveConfig has them). */
export interface FogMovement {
  maxSpeed: number;
  jumpSpeed: number;
  gravity: number;
  maxFallSpeed: number;
  stepHeight: number;
  /** Horizontal acceleration bound, m/s^2 (hitreg's MoveConfig.accel): tighter reach from slow speeds (shared/fog/reach). Omit for a movement without one. */
  accel?: number;
  /**
   * The wall probe (hitreg's MoveConfig.radius and probeHeights): a movement that stops a sphere of
   * this radius at the lowest of these heights above the feet at every wall. With them, eye regions
   * are cut by the walls a player cannot cross (shared/fog/walk). Omit for a movement without one.
   */
  radius?: number;
  probeHeights?: readonly number[];
}

export interface FogFilterOptions {
  /** The players' movement bounds (an upper bound: no honest player may move faster or jump higher). */
  movement: FogMovement;
  /** Time between patches the game sends, ms (default and minimum: one tick). */
  patchMs?: number;
  /** Safety margin added to the horizons of a viewer whose client does not stamp its inputs, ms (default 50; see ./fogFeed). */
  safetyMs?: number;
  /**
   * Safety margin for a viewer whose client stamps its inputs (its lead is measured in the clock its
   * screen renders by; what is left is that clock's corrections), ms (default 16; see ./fogFeed).
   */
  measuredSafetyMs?: number;
  /** One-way delay assumed before a viewer's first round trip sample, ms (default 150). */
  unknownOneWayMs?: number;
  /** Dead players: judged like standing bodies ('sight', default) or withheld from enemies ('hidden'). */
  corpses?: 'sight' | 'hidden';
  /**
   * The level's climb map (ramps, steps, floors: tighter regions): true (default) builds it from the
   * match's world (tens of ms on a large level: rooms of one level may share one, built once with
   * buildClimbMap), false for none.
   */
  climb?: boolean | ClimbMap;
  /**
   * The level's walk grid (eye regions cut by walls the player cannot cross): true (default) builds
   * it from the match's world when the movement states its wall probe (radius, probeHeights), false
   * for none; rooms of one level may share one built once with buildWalkGrid.
   */
  walk?: boolean | WalkGrid | null;
  /**
   * FogOfWar settings over fogConfigOf's defaults (openingM, caches, maxDistance, ...), and over
   * maxRaysPerUpdate = DEFAULT_FOG_RAYS_PER_UPDATE (Infinity: no cap).
   */
  config?: Partial<Omit<FogConfig, 'motion'>>;
  /**
   * How long a pair must be judged hidden before it is withheld, ms (default: patchMs, for clients
   * that draw a withheld player's received tail as MatchView does; a client that drops it at once
   * needs its interpolation delay; see the module comment).
   */
  withdrawDelayMs?: number;
  /**
   * The update time, ms, that precise viewers may fill (default DEFAULT_FOG_PRECISION_MS; 0: none):
   * updateTimed() times an update now and then, and while the work leaves room, viewers are made precise one by
   * one (their pairs decided on the plain regions, edge-line verdicts not held: more withheld, more
   * rays; shared/fog/precision). Which viewers are precise then depends on how long the updates
   * take (the machine, the crowd); whichever they are, every verdict keeps the rule's guarantees.
   */
  precisionBudgetMs?: number;
  /** Called for each flight newly sent to a viewer after update(), in the flight change list's order. */
  onFlightSent?: (viewerSlot: number, flightIndex: number) => void;
  /** Called for each change after update(), in the change list's order. */
  onChange?: (viewerSlot: number, enemySlot: number, sent: boolean) => void;
  /** A recorder call that threw (the filter goes on). */
  onProblem?: (message: string, error?: unknown) => void;
}

/** v when a finite number (at least min), else fallback. */
export function finiteAtLeast(v: number | undefined, fallback: number, min: number): number {
  return typeof v === 'number' && v - v === 0 ? Math.max(min, v) : fallback;
}

/** The walk grid for a movement that states its wall probe (the lowest of its heights), else none. */
export function walkGridOf(world: World, m: FogMovement): WalkGrid | undefined {
  const h = m.probeHeights;
  if (m.radius === undefined || h === undefined || h.length === 0) return undefined;
  let low = Infinity;
  for (const y of h) if (y < low) low = y;
  return buildWalkGrid(world, low, m.radius) ?? undefined;
}
