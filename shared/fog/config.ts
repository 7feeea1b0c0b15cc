/**
 * Fog of war's settings (./fog): the movement bounds and body envelope the regions are built from,
 * the margins, the sampling density, and the caches that keep the work per update small; with the
 * defaults used by fogConfigOf.
 */
import { bodyEnvelopeOf, type BodyEnvelope } from './body';
import type { ClimbMap } from './climb';
import type { WalkGrid } from './walk';
import type { FogMotion } from './reach';
import type { Rig } from '../rig/rig';

export interface FogConfig {
  motion: FogMotion;
  body: BodyEnvelope;
  /** Metres added to both regions all round (rounding, the rig's frame sampling). */
  marginM: number;
  /**
   * How far the client's rendered camera may be from the player's eye, metres: 0 for a first-person
   * view; a third-person camera's boom (its largest distance from the eye, the camera kept on the
   * eye's side of walls as a client pulls it in front of them). The eye region grows by it across,
   * up and down (./fog).
   */
  cameraM: number;
  /** Size of the smallest opening the grid lines are spaced to find, metres (see ./rays). */
  openingM: number;
  /**
   * Spacing of the crossing lines' points on each region's front chord, metres (./rays): they find
   * openings one behind the other (a doorway seen through another), whose clear (eye, body) offset
   * pairs are a thin set, so they are spaced finer than the matched grid. Default 0.25: players
   * walking the rooms level (test/fogPaths.test.ts) showed lines through two doorways in a
   * row that 0.5, 0.35 and 0.3 missed (0.25: half again the rays of 0.5 on that level).
   */
  crossOpeningM: number;
  /**
   * Most grid points a side (bounds the lines per test: FIXED_RAYS + 3 maxGridSide^2 with the fans).
   * Regions wider or taller than (maxGridSide - 1) * openingM get a coarser grid than openingM (the
   * defaults: 5.25 m, against about 3 m at 200 ms horizons); the crossing lines keep to crossOpeningM
   * up to (2 maxGridSide - 1) * openingM (11.25 m; ./rays initGrid).
   */
  maxGridSide: number;
  /** Also test each eye against the other's grid (./rays: slivers at grazing angles; twice the grid's lines). */
  fans: boolean;
  /**
   * Also test every lateral point of the eye region (at the eye) against every one of the body
   * region (at its middle): the crossing lines (./rays). They find lines through openings that must
   * line up (a doorway seen through another), which the matched lines miss. On by default.
   */
  crossLines: boolean;
  /** Seconds of each player's current motion a hidden pair's grown regions also cover (so the verdict lasts). */
  hiddenLeadS: number;
  /** Updates a visible verdict found by an aimed line (the enemy in sight) is kept untested, half as many for another line (0: every update re-tests; ./fog). */
  visibleHoldTicks: number;
  /** Metres a hidden pair's regions are grown by across, so the verdict can stand while both stay inside. */
  hiddenSlackM: number;
  /** The same up and down (a step, a ramp's walking term, a floor change move a region's heights). */
  hiddenSlackYM: number;
  /**
   * A pair hidden when last tested is first re-tested on regions whose slack and lead are this many
   * times larger (./fog: a verdict on them lasts longer); when those show a clear line it is tested
   * on the usual grown regions. 1: off.
   */
  hiddenWiden: number;
  /**
   * A pair that a grown region shows a clear line to, or that was visible, is decided on regions
   * grown this many times the slack and lead (0: the plain regions): a thin band, so what is withheld
   * is nearly what the plain regions give, and a hidden verdict there stands an update or two (./fog).
   */
  hiddenTight: number;
  /** Farthest distance between regions at which an enemy can be drawn, metres (Infinity: no limit). */
  maxDistance: number;
  /**
   * Rays after which an update tests no more pairs (the one under test finishes; Infinity: no cap).
   * Pairs left untested when it is spent are sent that update, keep what they remember (a hidden
   * verdict whose regions still hold the plain ones stands), and are tested first at the next update
   * (./fog update).
   */
  maxRaysPerUpdate: number;
  /** Where ramps and steps are (./climb); without it the motion's climbSlope and stepHeight apply everywhere. */
  climb?: ClimbMap;
  /**
   * Where bodies can walk (./walk buildWalkGrid, for the movement's wall probe): eye regions are cut
   * by the walls their player cannot cross over the horizon. Without it they are not cut.
   */
  walk?: WalkGrid;
  /** Grow bodies over the viewer's whole horizon instead of patch + safety (see the module comment). */
  enemyFullHorizon: boolean;
}

/**
 * Settings that turn the caches off: no visible hold, no grown or wide regions for a hidden verdict
 * to stand on, so every pair is decided on its own regions every update (what the caches give up of
 * what is withheld, at several times the rays). Spread over a configuration.
 */
export const FOG_NO_CACHES = { visibleHoldTicks: 0, hiddenSlackM: 0, hiddenSlackYM: 0, hiddenLeadS: 0, hiddenWiden: 1, hiddenTight: 0 } as const;

/** A configuration from movement bounds and a rig (its body envelope), with the defaults below. */
export function fogConfigOf(motion: FogMotion, rig: Rig, o: Partial<Omit<FogConfig, 'motion'>> = {}): FogConfig {
  return {
    motion,
    body: o.body ?? bodyEnvelopeOf(rig),
    marginM: o.marginM ?? 0.1,
    cameraM: o.cameraM !== undefined && o.cameraM >= 0 && o.cameraM < Infinity ? o.cameraM : 0,
    openingM: o.openingM ?? 0.75,
    crossOpeningM: o.crossOpeningM ?? 0.25,
    maxGridSide: o.maxGridSide ?? 8,
    fans: o.fans ?? false,
    crossLines: o.crossLines ?? true,
    hiddenLeadS: o.hiddenLeadS ?? 0.1,
    visibleHoldTicks: o.visibleHoldTicks ?? 6,
    hiddenSlackM: o.hiddenSlackM ?? 0.15,
    hiddenSlackYM: o.hiddenSlackYM ?? 0.15,
    hiddenWiden: o.hiddenWiden ?? 2,
    hiddenTight: o.hiddenTight ?? 1,
    maxDistance: o.maxDistance ?? Infinity,
    maxRaysPerUpdate: o.maxRaysPerUpdate ?? Infinity,
    climb: o.climb,
    walk: o.walk ?? undefined,
    enemyFullHorizon: o.enemyFullHorizon ?? false,
  };
}
