/**
 * The behaviour measures as an observer of the integrity replay: a BehaviourRing fed every tick slot
 * the replay decodes, measuring each fired shot into the row's observed columns (MeasureCol). The
 * audit loads this module in each replay thread through its plugin (`measuresPlugin`), so the
 * replay and the audit's worker threads know nothing of behaviour.
 */
import { LOG_VERSION_WITH_VIEW } from '../../shared/matchlog/records';
import { ShotCol, OBSERVED_COLUMNS, type ObservedShot, type ReplayObserver, type TickSlotPose } from '../../shared/audit/replay';
import type { ObserverContext, ObserverPlugin } from '../audit/plugin';
import { BehaviourRing, REPLAY_RING_TICKS } from './measures';
import { clearShotMeasures, createShotMeasures, DEFAULT_MEASURE_WINDOWS, type MeasureWindows } from './shotMeasures';

/** The measures' columns in a replayed row (ShotMeasures; angles as chords). */
export const MeasureCol = {
  REACTION_MS: ShotCol.OBSERVED + 0, SNAP_COS: ShotCol.OBSERVED + 1, AIM_TARGET: ShotCol.OBSERVED + 2, SIGHT_START_MS: ShotCol.OBSERVED + 3,
  PEAK_TURN: ShotCol.OBSERVED + 4, VIEW_OFFSET: ShotCol.OBSERVED + 5, SHOT_ERROR: ShotCol.OBSERVED + 6, ON_TARGET_MS: ShotCol.OBSERVED + 7,
  TRACK_ERROR: ShotCol.OBSERVED + 8, PRE_AIM: ShotCol.OBSERVED + 9, TARGET_DIST_M: ShotCol.OBSERVED + 10, SERVER_GAP_MS: ShotCol.OBSERVED + 11,
  /** The crosshair's sweep at the shot, tracking lag, following a hidden target, input arrivals. */
  SWEEP: ShotCol.OBSERVED + 12, TRACK_LAG_MS: ShotCol.OBSERVED + 13, HIDDEN_FOLLOW: ShotCol.OBSERVED + 14, INPUT_SPREAD: ShotCol.OBSERVED + 15,
  /** The newest stepped input's stamp less the shot's claimed action time, ms. */
  INPUT_AHEAD_MS: ShotCol.OBSERVED + 16,
  /** Short holds of the shooter's input stream per second before the shot. */
  SHORT_HOLDS: ShotCol.OBSERVED + 17,
  /** A pattern pull's centroid (pattern.ts): its lean from the aim and the target's offset from the aim (right, up), its chord off the target. */
  PATTERN_LEAN_R: ShotCol.OBSERVED + 18, PATTERN_LEAN_U: ShotCol.OBSERVED + 19, PATTERN_OFF_R: ShotCol.OBSERVED + 20, PATTERN_OFF_U: ShotCol.OBSERVED + 21,
  PATTERN_ERROR: ShotCol.OBSERVED + 22,
} as const;
if (MeasureCol.PATTERN_ERROR >= ShotCol.OBSERVED + OBSERVED_COLUMNS) throw new Error('MeasureCol: more measures than observed columns');

/** The windows a replay's measures use (within the tick ring: see measureWindowsFor). */
export type MeasureOptions = Pick<MeasureWindows, 'lookbackMs' | 'preAimMs' | 'snapWindowMs'>;

/** Feeds a BehaviourRing and writes each shot's ShotMeasures into its row. */
export class MeasuresObserver implements ReplayObserver {
  private readonly ring: BehaviourRing;
  private readonly m = createShotMeasures();
  private readonly windows: MeasureWindows;
  private base = 0;

  constructor(ctx: ObserverContext, options: MeasureOptions) {
    this.ring = new BehaviourRing(ctx.slots, ctx.world, ctx.config.eyeHeightM, ctx.version < LOG_VERSION_WITH_VIEW);
    this.windows = { ...DEFAULT_MEASURE_WINDOWS, ...options };
  }

  beginTick(): void { this.base = this.ring.beginTick(); }
  slot(slot: number, pose: Readonly<TickSlotPose>): void { this.ring.putSlot(this.base, slot, pose); }
  endTick(tickMs: number): void { this.ring.endTick(tickMs); }

  shot(rows: Float64Array, o: number, s: Readonly<ObservedShot>): void {
    const m = this.m;
    if (s.fired) {
      this.ring.measureShot(m, s.shooter, s.hitTarget, s.claimedTarget, s.receivedMs, s.actionTimeMs, s.rewindTimeMs, s.sx, s.sy, s.sz, s.ex, s.ey, s.ez, this.windows, s.pellets, s.body);
    } else {
      clearShotMeasures(m);
    }
    rows[o + MeasureCol.REACTION_MS] = m.reactionMs;
    rows[o + MeasureCol.SNAP_COS] = m.snapCos;
    rows[o + MeasureCol.AIM_TARGET] = m.target;
    rows[o + MeasureCol.SIGHT_START_MS] = m.sightStartMs;
    rows[o + MeasureCol.PEAK_TURN] = m.peakTurn;
    rows[o + MeasureCol.VIEW_OFFSET] = m.viewOffset;
    rows[o + MeasureCol.SHOT_ERROR] = m.shotError;
    rows[o + MeasureCol.ON_TARGET_MS] = m.onTargetMs;
    rows[o + MeasureCol.TRACK_ERROR] = m.trackError;
    rows[o + MeasureCol.PRE_AIM] = m.preAim;
    rows[o + MeasureCol.TARGET_DIST_M] = m.distance;
    rows[o + MeasureCol.SERVER_GAP_MS] = m.serverGapMs;
    rows[o + MeasureCol.SWEEP] = m.sweep;
    rows[o + MeasureCol.TRACK_LAG_MS] = m.trackLag;
    rows[o + MeasureCol.HIDDEN_FOLLOW] = m.hiddenFollow;
    rows[o + MeasureCol.INPUT_SPREAD] = m.inputSpread;
    rows[o + MeasureCol.INPUT_AHEAD_MS] = m.inputAheadMs;
    rows[o + MeasureCol.SHORT_HOLDS] = m.shortHolds;
    rows[o + MeasureCol.PATTERN_LEAN_R] = m.patternLeanR;
    rows[o + MeasureCol.PATTERN_LEAN_U] = m.patternLeanU;
    rows[o + MeasureCol.PATTERN_OFF_R] = m.patternOffR;
    rows[o + MeasureCol.PATTERN_OFF_U] = m.patternOffU;
    rows[o + MeasureCol.PATTERN_ERROR] = m.patternError;
  }
}

/** The plugin entry the audit's replay threads call (ObserverPlugin.module). */
export function createReplayObserver(ctx: ObserverContext, options: MeasureOptions): ReplayObserver {
  return new MeasuresObserver(ctx, options);
}

/**
 * The windows for a match at `tickRate`: the reaction and snap walks must stay inside the tick
 * ring (REPLAY_RING_TICKS less a margin), so long windows are cut to it.
 */
export function measureWindowsFor(tickRate: number, given: Partial<MeasureOptions> = {}): MeasureOptions {
  const ringMs = ((REPLAY_RING_TICKS - 16) * 1000) / tickRate;
  return {
    lookbackMs: Math.min(given.lookbackMs ?? DEFAULT_MEASURE_WINDOWS.lookbackMs, ringMs / 2),
    snapWindowMs: Math.min(given.snapWindowMs ?? DEFAULT_MEASURE_WINDOWS.snapWindowMs, ringMs / 4),
    preAimMs: Math.min(given.preAimMs ?? DEFAULT_MEASURE_WINDOWS.preAimMs, ringMs / 4),
  };
}

/**
 * The measures as the audit's observer plugin for a match at `tickRate`: before a shot's rewound
 * time they read the sighting lookback, the pre-aim or hidden-follow window and the snap window;
 * before its arrival, the input window.
 */
export function measuresPlugin(tickRate: number, given: Partial<MeasureOptions> = {}): ObserverPlugin {
  const w = measureWindowsFor(tickRate, given);
  const d = DEFAULT_MEASURE_WINDOWS;
  return {
    module: new URL('./observer.ts', import.meta.url).href,
    options: w,
    lookbackMs: w.lookbackMs + Math.max(w.preAimMs, d.hiddenMs) + w.snapWindowMs,
    windowMs: d.inputWindowMs,
  };
}
