/**
 * The fog backfills record (log format 16 on): the backfills a server-side fog of war (hitreg/server
 * FogFilter.backfillFor) handed the game for viewers it sent an enemy again, after one tick. A
 * backfill carries the enemy's poses of its current life from `fromMs` up to (not including) the
 * tick of the send, which the viewer received with that send: with the fog records (./fogRecord.ts)
 * they say what each client was sent, the late poses included. Written after that tick's fog record.
 * Layout (little-endian): f64 time ms of the tick, u16 n, then n x (u16 viewer slot, u16 enemy slot,
 * f64 time ms of the backfill's first pose).
 */

/** Bytes before the backfills, and per backfill. */
export const FOG_BACKFILLS_HEAD_BYTES = 10;
export const FOG_BACKFILL_BYTES = 12;
/** Most backfills one record holds (a writer splits more into several records of the same time). */
export const FOG_BACKFILLS_MAX = 0xffff;

/** The backfills of one update, in flat arrays the caller owns: `count` entries of viewer, enemy and first pose's time. */
export interface FogBackfills {
  timeMs: number;
  count: number;
  viewer: ArrayLike<number>;
  enemy: ArrayLike<number>;
  fromMs: ArrayLike<number>;
}

export function fogBackfillsRecordBytes(count: number): number {
  return FOG_BACKFILLS_HEAD_BYTES + FOG_BACKFILL_BYTES * count;
}

/** Writes backfills [from, from + n) of `c` at `at`; returns the record's length. */
export function writeFogBackfills(view: DataView, at: number, c: FogBackfills, from: number, n: number): number {
  view.setFloat64(at, c.timeMs, true);
  view.setUint16(at + 8, n, true);
  let o = at + FOG_BACKFILLS_HEAD_BYTES;
  for (let i = from; i < from + n; i++, o += FOG_BACKFILL_BYTES) {
    view.setUint16(o, c.viewer[i]! & 0xffff, true);
    view.setUint16(o + 2, c.enemy[i]! & 0xffff, true);
    view.setFloat64(o + 4, c.fromMs[i]!, true);
  }
  return o - at;
}

/**
 * Calls `visit(viewer, enemy, fromMs, timeMs)` for each backfill of the record at `at` of `length`
 * bytes and returns its time, or NaN when the record is malformed (its length does not match its
 * count, a first pose's time that is not finite or is after the record's; nothing is visited).
 */
export function readFogBackfills(view: DataView, at: number, length: number, visit: (viewer: number, enemy: number, fromMs: number, timeMs: number) => void): number {
  if (length < FOG_BACKFILLS_HEAD_BYTES) return Number.NaN;
  const n = view.getUint16(at + 8, true);
  if (length !== fogBackfillsRecordBytes(n)) return Number.NaN;
  const t = view.getFloat64(at, true);
  for (let i = 0, o = at + FOG_BACKFILLS_HEAD_BYTES; i < n; i++, o += FOG_BACKFILL_BYTES) {
    const f = view.getFloat64(o + 4, true);
    if (!(Number.isFinite(f) && f <= t)) return Number.NaN;
  }
  for (let i = 0, o = at + FOG_BACKFILLS_HEAD_BYTES; i < n; i++, o += FOG_BACKFILL_BYTES) visit(view.getUint16(o, true), view.getUint16(o + 2, true), view.getFloat64(o + 4, true), t);
  return t;
}
