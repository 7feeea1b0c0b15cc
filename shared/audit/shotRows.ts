/**
 * The rows the audit replay writes, one per shot (ReplayResult.rows, SHOT_COLUMNS numbers each):
 * what the verdict and the behaviour measures said, read by the flags, the report and the seq-chain
 * check; and a shot whose replay differs from its record.
 */
import type { FieldMismatch } from '../matchlog/shotRecord';

/** Columns of one replayed shot in ReplayResult.rows (SHOT_COLUMNS numbers per shot). */
export const ShotCol = {
  INDEX: 0, OFFSET: 1, SHOOTER: 2, SEQ: 3, WEAPON: 4, RECEIVED_MS: 5, KIND: 6, REASON: 7, ZONE: 8, TARGET: 9,
  TIME_SOURCE: 10, REWIND_DEPTH_MS: 11, REACTION_MS: 12, SNAP_COS: 13,
  SX: 14, SY: 15, SZ: 16, EX: 17, EY: 18, EZ: 19, PX: 20, PY: 21, PZ: 22, HOLED: 23, MISMATCH: 24, DAMAGE: 25,
  /** The shooter's lastSeq and fire clock before (from the record) and after (the verdict): the chain check. */
  BEFORE_SEQ: 26, AFTER_SEQ: 27, BEFORE_NEXT_FIRE: 28, AFTER_NEXT_FIRE: 29,
  /** ShotAction of the message (fire, switch, reload; -1 when it did not decode). */
  ACTION: 30,
  /** The time every target was rewound to, server ms (NaN when rejected before the time step). */
  REWIND_TIME_MS: 31,
  /** The server's round-trip estimate for the shooter when the shot arrived, ms; its declared interpolation delay. */
  RTT_MS: 32, INTERP_MS: 33,
  /** The behaviour measures of measures.ts (ShotMeasures; angles as chords). */
  AIM_TARGET: 34, SIGHT_START_MS: 35, PEAK_TURN: 36, VIEW_OFFSET: 37, SHOT_ERROR: 38, ON_TARGET_MS: 39, TRACK_ERROR: 40, PRE_AIM: 41, TARGET_DIST_M: 42, SERVER_GAP_MS: 43,
  /** The render time the shot claims (NaN for a malformed shot or one that is not a fire). */
  CLAIMED_MS: 44,
  /** The action time the message claims (NaN when it did not decode). */
  ACTION_TIME_MS: 45,
  /** More behaviour measures (ShotMeasures): the crosshair's sweep at the shot, tracking lag, following a hidden target, input arrivals. */
  SWEEP: 46, TRACK_LAG_MS: 47, HIDDEN_FOLLOW: 48, INPUT_SPREAD: 49,
  /** The newest stepped input's stamp less the shot's claimed action time, ms (ShotMeasures.inputAheadMs). */
  INPUT_AHEAD_MS: 50,
  /** Short holds of the shooter's input stream per second before the shot (ShotMeasures.shortHolds). */
  SHORT_HOLDS: 51,
} as const;
export const SHOT_COLUMNS = 52;

export interface ShotMismatch {
  /** Ordinal of the shot among all shot records of the log. */
  index: number;
  /** Byte offset of the shot's frame in the file. */
  offset: number;
  shooter: number;
  seq: number;
  fields: FieldMismatch[];
}
