/**
 * The fog record (log format 13 on): which enemies a server-side fog of war (hitreg/server
 * FogFilter) started or stopped sending to which viewer, after one tick. Written after that tick's
 * record, only when something changed. Every (viewer, enemy) pair starts withheld when either of the
 * two joins and ends when either leaves, so the records rebuild, per pair, when the enemy was sent.
 * Layout (little-endian): f64 time ms of the tick, u16 n, then n x (u16 viewer slot, u16 enemy
 * slot, u8 sent: 1 sent from this tick on, 0 withheld).
 */

/** Bytes before the changes, and per change. */
export const FOG_HEAD_BYTES = 10;
export const FOG_CHANGE_BYTES = 5;
/** Most changes one record holds (a writer splits more into several records of the same time). */
export const FOG_MAX_CHANGES = 0xffff;

/** The changes of one update, in flat arrays the caller owns: `count` entries of viewer, enemy, sent (1) or withheld (0). */
export interface FogChanges {
  timeMs: number;
  count: number;
  viewer: ArrayLike<number>;
  enemy: ArrayLike<number>;
  sent: ArrayLike<number>;
}

export function fogRecordBytes(count: number): number {
  return FOG_HEAD_BYTES + FOG_CHANGE_BYTES * count;
}

/** Writes changes [from, from + n) of `c` at `at`; returns the record's length. */
export function writeFog(view: DataView, at: number, c: FogChanges, from: number, n: number): number {
  view.setFloat64(at, c.timeMs, true);
  view.setUint16(at + 8, n, true);
  let o = at + FOG_HEAD_BYTES;
  for (let i = from; i < from + n; i++, o += FOG_CHANGE_BYTES) {
    view.setUint16(o, c.viewer[i]! & 0xffff, true);
    view.setUint16(o + 2, c.enemy[i]! & 0xffff, true);
    view.setUint8(o + 4, c.sent[i] === 1 ? 1 : 0);
  }
  return o - at;
}

/**
 * Calls `visit(viewer, enemy, sent)` for each change of the record at `at` of `length` bytes and
 * returns its time, or NaN when the record is malformed (then nothing is visited).
 */
export function readFog(view: DataView, at: number, length: number, visit: (viewer: number, enemy: number, sent: boolean) => void): number {
  if (length < FOG_HEAD_BYTES) return Number.NaN;
  const n = view.getUint16(at + 8, true);
  if (length !== fogRecordBytes(n)) return Number.NaN;
  for (let i = 0, o = at + FOG_HEAD_BYTES; i < n; i++, o += FOG_CHANGE_BYTES) {
    if (view.getUint8(o + 4) > 1) return Number.NaN;
  }
  for (let i = 0, o = at + FOG_HEAD_BYTES; i < n; i++, o += FOG_CHANGE_BYTES) {
    visit(view.getUint16(o, true), view.getUint16(o + 2, true), view.getUint8(o + 4) === 1);
  }
  return view.getFloat64(at, true);
}
