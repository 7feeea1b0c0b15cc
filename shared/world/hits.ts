/**
 * The record of World.allHits: every triangle a segment meets, in flat typed arrays the caller
 * allocates once (createWorldHits) and reuses, so a query allocates nothing. Also the reading of a
 * hit's front bit as entering or leaving solid, for penetration.
 */
import type { TriangleHits } from '../bvh/allHits';

export type { TriangleHits } from '../bvh/allHits';

/**
 * Every triangle one segment meets (both faces, 0 <= t <= 1 inclusive, as firstHit), one entry per
 * triangle in flat arrays of `capacity` entries. Entries 0 .. count - 1 are sorted by t ascending,
 * equal t by triangle index (the same order whatever the tree). Per entry: t, point x y z, unit
 * normal nx ny nz toward the segment's start, front (1 when the front face was met), triangle (index
 * in the soup the world was built from) and surface (index into world.surfaces, -1 when no range
 * covers the triangle). count = entries stored; total = hits found, more than count when the
 * capacity overflowed: the nearest `capacity` are kept.
 */
export interface WorldHits extends TriangleHits {
  readonly surface: Int32Array;
}

/** Hit arrays for World.allHits holding `capacity` entries (an integer, 0 .. 2^24). */
export function createWorldHits(capacity = 64): WorldHits {
  if (!Number.isInteger(capacity) || capacity < 0 || capacity > 1 << 24) {
    throw new RangeError(`createWorldHits: capacity must be an integer from 0 to 2^24 (got ${capacity}).`);
  }
  return {
    capacity,
    t: new Float64Array(capacity),
    x: new Float64Array(capacity),
    y: new Float64Array(capacity),
    z: new Float64Array(capacity),
    nx: new Float64Array(capacity),
    ny: new Float64Array(capacity),
    nz: new Float64Array(capacity),
    front: new Uint8Array(capacity),
    triangle: new Int32Array(capacity),
    surface: new Int32Array(capacity),
    count: 0,
    total: 0,
  };
}

/**
 * Whether entry i of `hits` is where the segment enters solid (true) or leaves it (false). With the
 * normals of closed meshes pointing outward (the glTF convention: counter-clockwise front faces,
 * seen from outside), a segment coming from outside meets a front face as it goes in and the back
 * face of a triangle as it comes out: so entering = the front bit. Meaningful for closed, outward
 * wound meshes only; an open or inward-wound mesh gives the bit without that reading. No index check.
 */
export function hitEntersSolid(hits: TriangleHits, i: number): boolean {
  return hits.front[i] === 1;
}
