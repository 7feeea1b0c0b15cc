/**
 * The fog flights record (log format 14 on): which projectiles a server-side fog of war (hitreg/server
 * FogFilter) newly sent to which viewer, after one tick. Written after that tick's record (and after
 * its fog record, if any), only when a flight was newly sent. A flight once sent stays sent until it
 * ends (its projectile END record), and a viewer's sends end when its slot changes hands (a join or
 * leave event), so the records rebuild, per flight, who was sent it from when. The shooter is always
 * sent its own flight at the first update that sees it; a see-all viewer is sent every flight.
 * Layout (little-endian): f64 time ms of the tick, u16 n, then n x (u16 viewer slot, u32 flight id:
 * the id of the projectile's SPAWN record, projectileRecord.ts).
 * Who was told a flight's end is the fog ends record's (./fogEndRecord.ts, format 15).
 */

/** Bytes before the sends, and per send. */
export const FOG_FLIGHTS_HEAD_BYTES = 10;
export const FOG_FLIGHT_BYTES = 6;
/** Most sends one record holds (a writer splits more into several records of the same time). */
export const FOG_FLIGHTS_MAX = 0xffff;

/** The flight sends of one update, in flat arrays the caller owns: `count` entries of viewer slot and flight id. */
export interface FogFlightSends {
  timeMs: number;
  count: number;
  viewer: ArrayLike<number>;
  id: ArrayLike<number>;
}

export function fogFlightsRecordBytes(count: number): number {
  return FOG_FLIGHTS_HEAD_BYTES + FOG_FLIGHT_BYTES * count;
}

/** Writes sends [from, from + n) of `c` at `at`; returns the record's length. */
export function writeFogFlights(view: DataView, at: number, c: FogFlightSends, from: number, n: number): number {
  view.setFloat64(at, c.timeMs, true);
  view.setUint16(at + 8, n, true);
  let o = at + FOG_FLIGHTS_HEAD_BYTES;
  for (let i = from; i < from + n; i++, o += FOG_FLIGHT_BYTES) {
    view.setUint16(o, c.viewer[i]! & 0xffff, true);
    view.setUint32(o + 2, c.id[i]! >>> 0, true);
  }
  return o - at;
}

/**
 * Calls `visit(viewer, id, timeMs)` for each send of the record at `at` of `length` bytes and returns
 * its time, or NaN when the record is malformed (its length does not match its count; nothing is visited).
 */
export function readFogFlights(view: DataView, at: number, length: number, visit: (viewer: number, id: number, timeMs: number) => void): number {
  if (length < FOG_FLIGHTS_HEAD_BYTES) return Number.NaN;
  const n = view.getUint16(at + 8, true);
  if (length !== fogFlightsRecordBytes(n)) return Number.NaN;
  const t = view.getFloat64(at, true);
  for (let i = 0, o = at + FOG_FLIGHTS_HEAD_BYTES; i < n; i++, o += FOG_FLIGHT_BYTES) visit(view.getUint16(o, true), view.getUint32(o + 2, true), t);
  return t;
}
