/**
 * The rows the audit replay writes, one per shot (ReplayResult.rows, SHOT_COLUMNS numbers each):
 * what the message and the verdict said, read by the seq-chain check, the report and the flags,
 * with a block of columns a replay observer fills (the behaviour measures); and a shot whose
 * replay differs from its record.
 */
import type { FieldMismatch } from '../matchlog/verdictCompare';

/** Columns of one replayed shot in ReplayResult.rows (SHOT_COLUMNS numbers per shot). */
export const ShotCol = {
  INDEX: 0, OFFSET: 1, SHOOTER: 2, SEQ: 3, WEAPON: 4, RECEIVED_MS: 5, KIND: 6, REASON: 7, ZONE: 8, TARGET: 9,
  TIME_SOURCE: 10, REWIND_DEPTH_MS: 11,
  SX: 12, SY: 13, SZ: 14, EX: 15, EY: 16, EZ: 17, PX: 18, PY: 19, PZ: 20, HOLED: 21, MISMATCH: 22, DAMAGE: 23,
  /** The shooter's lastSeq and fire clock before (from the record) and after (the verdict): the chain check. */
  BEFORE_SEQ: 24, AFTER_SEQ: 25, BEFORE_NEXT_FIRE: 26, AFTER_NEXT_FIRE: 27,
  /** ShotAction of the message (fire, switch, reload; -1 when it did not decode). */
  ACTION: 28,
  /** The time every target was rewound to, server ms (NaN when rejected before the time step). */
  REWIND_TIME_MS: 29,
  /** The server's round-trip estimate for the shooter when the shot arrived, ms; its declared interpolation delay. */
  RTT_MS: 30, INTERP_MS: 31,
  /** The render time the shot claims (NaN for a malformed shot or one that is not a fire). */
  CLAIMED_MS: 32,
  /** The action time the message claims (NaN when it did not decode). */
  ACTION_TIME_MS: 33,
  /** The shooter's pull count and spray heat (with its time) before and after: the chain check too. */
  BEFORE_PULLS: 34, AFTER_PULLS: 35, BEFORE_SPRAY_HEAT: 36, AFTER_SPRAY_HEAT: 37, BEFORE_SPRAY_AT: 38, AFTER_SPRAY_AT: 39,
  /** First of the OBSERVED_COLUMNS a replay observer fills (replay.ts ReplayObserver; NaN without one). */
  OBSERVED: 40,
} as const;
/** Columns a replay observer may fill, from ShotCol.OBSERVED. */
export const OBSERVED_COLUMNS = 23;
export const SHOT_COLUMNS = ShotCol.OBSERVED + OBSERVED_COLUMNS;

export interface ShotMismatch {
  /** Ordinal of the shot among all shot records of the log. */
  index: number;
  /** Byte offset of the shot's frame in the file. */
  offset: number;
  shooter: number;
  seq: number;
  fields: FieldMismatch[];
}
