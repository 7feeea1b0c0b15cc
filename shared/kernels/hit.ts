/**
 * The hit record every segment-vs-triangle kernel writes into. The caller owns it and reuses it:
 * kernels never allocate. A segment runs from start S to stop E; t is the fraction along it
 * (point = S + t (E - S)), and the policy everywhere is inclusive: 0 <= t <= 1, and a point on an
 * edge or vertex of the triangle counts as inside.
 */
export interface SegmentHit {
  /** Whether the last query hit. Every other field is meaningful only when this is true. */
  hit: boolean;
  /** Fraction along the segment, 0..1 inclusive. */
  t: number;
  /** The hit point, S + t (E - S). */
  x: number;
  y: number;
  z: number;
  /** Barycentric weights of b and c: point = (1 - u - v) a + u b + v c. */
  u: number;
  v: number;
  /** Unit geometric normal of the triangle, oriented toward the segment's start. */
  nx: number;
  ny: number;
  nz: number;
  /** True when the segment met the front face (a, b, c counter-clockwise seen from the start). */
  front: boolean;
}

export function createSegmentHit(): SegmentHit {
  return { hit: false, t: 0, x: 0, y: 0, z: 0, u: 0, v: 0, nx: 0, ny: 0, nz: 0, front: false };
}

/** Marks `out` as a miss and returns it. */
export function clearSegmentHit(out: SegmentHit): SegmentHit {
  out.hit = false;
  return out;
}

/** Copies every field of `src` into `out` and returns `out`. */
export function copySegmentHit(out: SegmentHit, src: SegmentHit): SegmentHit {
  out.hit = src.hit;
  out.t = src.t;
  out.x = src.x;
  out.y = src.y;
  out.z = src.z;
  out.u = src.u;
  out.v = src.v;
  out.nx = src.nx;
  out.ny = src.ny;
  out.nz = src.nz;
  out.front = src.front;
  return out;
}
