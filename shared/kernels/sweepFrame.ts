/**
 * Sweep frames: each triangle precomputed in the standard orientation the swept-sphere test
 * (./sweptSphere) works in: a at the origin, c on the +x axis, b in the x/+z half-plane, so the
 * front face looks up (+y).
 *
 * Frame layout: SWEEP_FRAME_STRIDE = 20 doubles per triangle in one flat Float64Array:
 *   0..2   X axis (unit, along AC)          3..5   Y axis (unit front normal)
 *   6..8   Z axis (X x Y)                    9..11  a (frame origin, world)
 *   12..14 b in the frame (x1, y1, z1)       15..17 c in the frame (x2, y2, z2)
 *   18     1 when the standard orientation exists (y1 = y2 = z2 = 0, z1 > 0, x2 > 0), 0 for a
 *          degenerate triangle (then X Y Z is the identity and b, c are just b - a, c - a).
 *          Degenerate = zero area or a sliver whose sine at a is below SLIVER_SINE.
 *   19     reserved, 0 (keeps the stride a multiple of 4)
 * Only + - * / and Math.sqrt: bit-identical in every engine.
 */
import { fillPerTriangle, meshTriangleCount } from './perTriangle';

/** Doubles per triangle in a sweep-frame array. */
export const SWEEP_FRAME_STRIDE = 20;

/** |AB x AC| <= SLIVER_SINE |AB| |AC| counts as degenerate (2^-40, about 1e-12). */
export const SLIVER_SINE = 1 / 1099511627776;

/**
 * Writes the standard-orientation frame of triangle a, b, c at `offset` in `out`. Returns true when
 * the triangle has a front face (non-degenerate), false when it was stored as degenerate.
 */
export function writeSweepFrame(
  out: Float64Array,
  offset: number,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
): boolean {
  const e1x = bx - ax, e1y = by - ay, e1z = bz - az;
  const e2x = cx - ax, e2y = cy - ay, e2z = cz - az;
  const nx = e1y * e2z - e1z * e2y;
  const ny = e1z * e2x - e1x * e2z;
  const nz = e1x * e2y - e1y * e2x;
  const nLen = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const cLen = Math.sqrt(e2x * e2x + e2y * e2y + e2z * e2z);
  const o = offset;
  out[o + 9] = ax;
  out[o + 10] = ay;
  out[o + 11] = az;
  out[o + 19] = 0;
  const inN = 1 / nLen;
  const inC = 1 / cLen;
  // Slivers whose corner sines are below 2^-40 are treated as degenerate: their normal is rounding
  // noise (three collinear points rarely round to exactly collinear) and would make the one-sided
  // policy pick an arbitrary side.
  const l1 = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
  const sliver = !(nLen > SLIVER_SINE * l1 * cLen);
  if (!sliver && nLen > 0 && cLen > 0 && inN - inN === 0 && inC - inC === 0) {
    const Xx = e2x * inC, Xy = e2y * inC, Xz = e2z * inC;
    const Yx = nx * inN, Yy = ny * inN, Yz = nz * inN;
    const Zx = Xy * Yz - Xz * Yy;
    const Zy = Xz * Yx - Xx * Yz;
    const Zz = Xx * Yy - Xy * Yx;
    out[o] = Xx; out[o + 1] = Xy; out[o + 2] = Xz;
    out[o + 3] = Yx; out[o + 4] = Yy; out[o + 5] = Yz;
    out[o + 6] = Zx; out[o + 7] = Zy; out[o + 8] = Zz;
    out[o + 12] = e1x * Xx + e1y * Xy + e1z * Xz;
    out[o + 13] = 0;
    out[o + 14] = e1x * Zx + e1y * Zy + e1z * Zz;
    out[o + 15] = cLen;
    out[o + 16] = 0;
    out[o + 17] = 0;
    out[o + 18] = 1;
    return true;
  }
  out[o] = 1; out[o + 1] = 0; out[o + 2] = 0;
  out[o + 3] = 0; out[o + 4] = 1; out[o + 5] = 0;
  out[o + 6] = 0; out[o + 7] = 0; out[o + 8] = 1;
  out[o + 12] = e1x; out[o + 13] = e1y; out[o + 14] = e1z;
  out[o + 15] = e2x; out[o + 16] = e2y; out[o + 17] = e2z;
  out[o + 18] = 0;
  return false;
}

/**
 * Fills `out` (length >= 20 * triangle count) with the sweep frames of a mesh and returns it.
 * `indices` three per triangle, or null for a triangle soup (9 position numbers per triangle).
 */
export function buildSweepFramesInto(
  out: Float64Array,
  positions: ArrayLike<number>,
  indices: ArrayLike<number> | null,
): Float64Array {
  return fillPerTriangle(out, SWEEP_FRAME_STRIDE, positions, indices, writeSweepFrame, 'buildSweepFramesInto');
}

/** Allocating convenience: the sweep frames of a whole mesh in a new Float64Array. */
export function buildSweepFrames(positions: ArrayLike<number>, indices: ArrayLike<number> | null): Float64Array {
  return buildSweepFramesInto(new Float64Array(meshTriangleCount(positions, indices) * SWEEP_FRAME_STRIDE), positions, indices);
}
