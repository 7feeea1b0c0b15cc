/**
 * What the audit replay measures of one shot (ShotMeasures, filled by BehaviourRing.measureShot in
 * ./measures) and the windows and limits those measures use (MeasureWindows).
 */

/** Windows and limits of the measures (ReplayOptions carries them). */
export interface MeasureWindows {
  /** How far back a sighting is followed, ms; a target in sight longer than this gives no reaction. */
  lookbackMs: number;
  /** The view-change window before a shot that the aim-snap measure reads, ms. */
  snapWindowMs: number;
  /** Half the horizontal field of view, degrees, as a cosine (cos 50 degrees: a 100-degree view). */
  fovHalfCos: number;
  /** Window before a sighting over which pre-aim is averaged, ms. */
  preAimMs: number;
  /** Window before a sighting over which following a hidden target is measured, ms. */
  hiddenMs: number;
  /** Window before a shot over which the turn speed is read when the sighting is older (and later shots count as one tracking event), ms. */
  trackMs: number;
  /** Window before a shot over which tracking wobble is measured, ms. */
  wobbleMs: number;
  /** Window before a shot over which tracking lag is regressed, ms. */
  lagMs: number;
  /** Longest time on target reported, ms. */
  onTargetCapMs: number;
  /** A miss is measured against the player it passed closest to (in metres) among those within this chord of its direction (10 degrees). */
  missTargetChord: number;
  /**
   * Half-width of a body for the on-target test, m: the shipped character's torso with its arms
   * reaches 0.26-0.30 m either side of its root (its hitboxes in the bind pose).
   */
  bodyHalfWidthM: number;
  /** Window of a shooter's ticks before a shot over which input arrivals are measured, ms. */
  inputWindowMs: number;
}

export const DEFAULT_MEASURE_WINDOWS: Readonly<MeasureWindows> = Object.freeze({
  lookbackMs: 1500, snapWindowMs: 50, fovHalfCos: 0.6427876096865394, preAimMs: 400, hiddenMs: 600, trackMs: 300, wobbleMs: 500, lagMs: 450, onTargetCapMs: 1000,
  missTargetChord: 0.17431148549531633, bodyHalfWidthM: 0.3, inputWindowMs: 2000,
});

/** What BehaviourRing.measureShot writes: NaN where unknown. Angles are chords (see above). */
export interface ShotMeasures {
  /**
   * The player the shot was aimed at: the one the shot claims when that player is there, alive and
   * within missTargetChord of the shot; else the one hit; else the one it passed closest to (in
   * metres, among those within missTargetChord); -1 none.
   */
  target: number;
  /** Cosine of the sharpest per-tick turn over the snap window, the shot's own direction included. */
  snapCos: number;
  /** Tick time the current sighting of the target began (NaN: not in sight at the rewound time, or longer than the lookback). */
  sightStartMs: number;
  /** Rewound time minus sightStartMs, ms. */
  reactionMs: number;
  /** Fastest view turn between consecutive ticks from the sighting's start (or the track window) to the shot, chord per ms. */
  peakTurn: number;
  /** The shot's direction against the view at the tick it arrived in. */
  viewOffset: number;
  /** The shot's direction against the direction to the target's chest (rewound). */
  shotError: number;
  /** Horizontal distance from the shot's start to the target (rewound), m. */
  distance: number;
  /**
   * The longest gap between consecutive recorded ticks over the 500 ms before the shot arrived, ms:
   * a server that stalled (the room's tick clock jumps after a stall of over four ticks) received
   * the shot late, and its timing checks read that lateness as the client's.
   */
  serverGapMs: number;
  /** How long the view ray had been on the target's body before the shot, ms (0: not on it). */
  onTargetMs: number;
  /**
   * How fast the view moved against the direction to the target over the last tick before the
   * shot, chord per ms: a crosshair still sweeping across the body as it fired.
   */
  sweep: number;
  /**
   * Tracking wobble: standard deviation over the wobble window of the offset between the view and
   * the target, across and in height (a constant offset does not count; a view locked onto the
   * target leaves almost none).
   */
  trackError: number;
  /**
   * Tracking lag, ms: the view's offset behind the target regressed on the target's angular
   * velocity over the lag window (a pursuit lagging tau behind trails by tau x velocity). NaN
   * when the target hardly moved across the view.
   */
  trackLag: number;
  /**
   * Mean chord between the view and the target over the preAimMs before the sighting began, for a
   * sighting of a target that came out of cover (in the field of view but out of line of sight the
   * tick before); NaN otherwise. hiddenFollow likewise.
   */
  preAim: number;
  /**
   * How much the view's turning followed the hidden target's bearing over the hiddenMs before the
   * sighting (regression gain: 1 follows it, 0 ignores it); NaN when the bearing hardly moved.
   */
  hiddenFollow: number;
  /**
   * Input arrivals over the inputWindowMs before the shot: variance over mean of the inputs taken
   * per tick (even arrivals under 1; inputs held and released in bunches far above).
   */
  inputSpread: number;
  /**
   * The stamp of the newest input the room had stepped for the shooter when it judged the shot, less
   * the shot's claimed action time, ms (NaN without stamps). One TCP stream delivers in order and a
   * room judges a shot after the inputs sent before it, so an honest client's inputs stepped by then
   * were stamped before its shot: at most a catch-up's few frames over 0. A shot claimed well before
   * inputs it sent earlier is backdated (a deeper rewind than it fired at).
   */
  inputAheadMs: number;
  /**
   * Short holds of the shooter's input stream per second over the inputWindowMs before the shot:
   * gaps too short for a TCP retransmission and too long for its frame rate, released in a bunch
   * (motion.ts shortHolds).
   */
  shortHolds: number;
  /**
   * A pattern pull's centroid (pattern.ts): its lean from the aim and the target's offset from the
   * aim (its rewound upper torso; its chest without a posed body), right and up in the aim's frame,
   * and the chord between the centroid and that point.
   * NaN for a shot of one pellet (or a format 3 log).
   */
  patternLeanR: number; patternLeanU: number; patternOffR: number; patternOffU: number;
  patternError: number;
}

export function createShotMeasures(): ShotMeasures {
  const m = {} as ShotMeasures;
  clearShotMeasures(m);
  return m;
}

export function clearShotMeasures(m: ShotMeasures): void {
  m.target = -1; m.snapCos = NaN; m.sightStartMs = NaN; m.reactionMs = NaN; m.peakTurn = NaN; m.viewOffset = NaN; m.shotError = NaN;
  m.distance = NaN; m.serverGapMs = NaN; m.onTargetMs = NaN; m.sweep = NaN; m.trackError = NaN; m.trackLag = NaN; m.preAim = NaN;
  m.hiddenFollow = NaN; m.inputSpread = NaN; m.inputAheadMs = NaN; m.shortHolds = NaN;
  m.patternLeanR = NaN; m.patternLeanU = NaN; m.patternOffR = NaN; m.patternOffU = NaN; m.patternError = NaN;
}
