/**
 * The fog ends record (log format 15 on): which viewers a server-side fog of war (hitreg/server
 * FogFilter.tellEnd) let a game tell a projectile's end, and how. Written once per end the game
 * asks about, right after it asks (after the flight's END record). A viewer not listed was told
 * nothing of that end; a listed one was told it with the struck player withheld (END_STRUCK_MASKED:
 * the game says it struck no one) and with some of its victims left out (END_VICTIMS_MASKED) when
 * those flags are set.
 * Layout (little-endian): f64 time ms of the end, u32 flight id (the id of the projectile's SPAWN
 * record, projectileRecord.ts), u16 n, then n x (u16 viewer slot, u8 flags).
 */

/** Bytes before the viewers, and per viewer. */
export const FOG_ENDS_HEAD_BYTES = 14;
export const FOG_END_BYTES = 3;
/** Most viewers one record holds. */
export const FOG_ENDS_MAX = 0xffff;
/** Flags of a told viewer: the struck player was not told; some victims were not told. */
export const END_STRUCK_MASKED = 1;
export const END_VICTIMS_MASKED = 2;

/** Who was told one end, in flat arrays the caller owns: `count` viewers and their flags. */
export interface FogEndTells {
  timeMs: number;
  id: number;
  count: number;
  viewer: ArrayLike<number>;
  flags: ArrayLike<number>;
}

export function fogEndsRecordBytes(count: number): number {
  return FOG_ENDS_HEAD_BYTES + FOG_END_BYTES * count;
}

/** Writes `c` (at most FOG_ENDS_MAX viewers) at `at`; returns the record's length. */
export function writeFogEnds(view: DataView, at: number, c: FogEndTells): number {
  const n = c.count < FOG_ENDS_MAX ? c.count : FOG_ENDS_MAX;
  view.setFloat64(at, c.timeMs, true);
  view.setUint32(at + 8, c.id >>> 0, true);
  view.setUint16(at + 12, n, true);
  let o = at + FOG_ENDS_HEAD_BYTES;
  for (let i = 0; i < n; i++, o += FOG_END_BYTES) {
    view.setUint16(o, c.viewer[i]! & 0xffff, true);
    view.setUint8(o + 2, c.flags[i]! & 0xff);
  }
  return o - at;
}

/**
 * Calls `visit(viewer, flags, id, timeMs)` for each viewer of the record at `at` of `length` bytes and
 * returns the flight id, or NaN when the record is malformed (its length does not match its count;
 * nothing is visited).
 */
export function readFogEnds(view: DataView, at: number, length: number, visit: (viewer: number, flags: number, id: number, timeMs: number) => void): number {
  if (length < FOG_ENDS_HEAD_BYTES) return Number.NaN;
  const n = view.getUint16(at + 12, true);
  if (length !== fogEndsRecordBytes(n)) return Number.NaN;
  const t = view.getFloat64(at, true), id = view.getUint32(at + 8, true);
  for (let i = 0, o = at + FOG_ENDS_HEAD_BYTES; i < n; i++, o += FOG_END_BYTES) visit(view.getUint16(o, true), view.getUint8(o + 2), id, t);
  return id;
}
