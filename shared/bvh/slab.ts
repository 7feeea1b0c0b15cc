/**
 * The slab test's per-query setup and tolerances, shared by every BVH traversal (./traverse: closest
 * and any hit of a segment; ./sweep: swept sphere): the inverse direction, the start as used against
 * each side of a box, which node words hold the near and far bound per axis, and the constants that
 * keep the box test conservative and the pruning fair to rounding.
 *
 * A query calls prepareSlabs once, with its segment in a Float64Array and two scratch arrays of its
 * module, and reads the results into locals: no doubles cross the call (V8 passes them to a call it
 * does not inline as tagged values, heap numbers per query) and nothing is allocated.
 */

/** u = 2^-53; gamma(3) = 3u / (1 - 3u). Three roundings per slab distance: (b - s), 1 / d, product. */
const GAMMA3 = (3 * 1.1102230246251565e-16) / (1 - 3 * 1.1102230246251565e-16);
/**
 * Exit distances are multiplied by this before entry <= exit is compared. Ize's bound is 1 + 2 gamma(3)
 * (entry and exit each off by at most gamma(3)); it is doubled here because the scaling product is
 * itself rounded, which Ize's bound assumes exact. Still only ~1.3e-15 of extra width.
 */
export const SLAB_GROW = 1 + 4 * GAMMA3;

/**
 * 2^-50 = 8.881784197001252e-16: four ulps of 1 (ulp(1) = 2^-52 is the gap between 1 and the next
 * double). Relative to a number s, |s| * ULP4_OF_ONE is at least 4 ulps of s (ulp(s) <= |s| * 2^-52),
 * so s plus or minus it is a different double however s rounds. Absolute, it is a few roundings of
 * a t in [0, 1]. Used as the still-axis nudge (relative, prepareSlabs) and as the absolute pruning
 * slack (PRUNE_ABS).
 */
export const ULP4_OF_ONE = 8.881784197001252e-16;
/**
 * A movement along an axis below this counts as none (a still axis): its inverse would overflow to
 * Infinity without the nudge that keeps 0 * Infinity out. Also the nudge's floor, so a start at 0
 * (or subnormal) is nudged too.
 */
export const STILL_MOVE = 1e-300;

/**
 * Pruning slack on the best t so far. The kernel's t carries its own rounding (a few ulps, more for
 * grazing hits), so a triangle whose computed t ties or undercuts the best by that much must still be
 * reached: boxes and triangles are tested against best * PRUNE_REL + PRUNE_ABS, and the winner is
 * then chosen by computed t alone, as brute force does. The slack costs no measurable time.
 */
export const PRUNE_REL = 1 + 9.094947017729282e-13; // 1 + 2^-40
export const PRUNE_ABS = ULP4_OF_ONE;

/** Words of the slab doubles prepareSlabs writes: inverse direction, then the nudged starts. */
export const SLAB_IX = 0, SLAB_IY = 1, SLAB_IZ = 2;
/** Start per axis as used against the near-side (min for +D) ... */
export const SLAB_SXL = 3, SLAB_SYL = 5, SLAB_SZL = 7;
/** ... and against the far-side bound (the one read with the far word). */
export const SLAB_SXH = 4, SLAB_SYH = 6, SLAB_SZH = 8;
/** Doubles in a slab scratch. */
export const SLAB_DOUBLES = 9;
/**
 * Ints in a slab-sides scratch: per axis the node word of the bound the segment meets first (entry,
 * 0 1 2 = min x y z when it runs toward +axis, 3 4 5 = max when toward -axis), then the word of the
 * other (exit) bound: [xl, yl, zl, xh, yh, zh]. xl = 3 means the segment runs toward -x.
 */
export const SLAB_SIDES = 6;

/*
 * Note on still axes. On an axis the segment does not move along (D = 0) the inverse is +Infinity
 * and the test must read "min <= s <= max", inclusive. With the start itself, a start exactly on a
 * bound gives 0 * Infinity = NaN, which compares false (and Math.max/min spread it) and would cull
 * a box the segment lies on. So the start is nudged up for the min bound and down for the max bound:
 * (min - s') and (max - s'') are not 0 for a start on the face, the products are +-Infinity, and a
 * start on the face still counts as inside. The nudge (>= 4 ulps of s, see ULP4_OF_ONE) can only
 * widen the slab, never narrow it. A product can still be NaN when the start lies exactly the nudge
 * outside a bound (s' equals the bound); then the box is culled, which is right: the start is
 * outside. On a moving axis the nudge is 0 and both starts are s.
 *
 * Written without conditionals that mix a constant with a computed double (V8 boxed the double:
 * garbage on every query). d + 0 turns -0 into +0, so 1 / (d + 0) is +Infinity on a still axis.
 */

/**
 * The slab constants of the segment S -> E (q = sx sy sz ex ey ez): the doubles into `d`
 * (SLAB_DOUBLES, layout SLAB_*), the near and far bound words into `sides` (SLAB_SIDES).
 */
export function prepareSlabs(d: Float64Array, sides: Int32Array, q: Float64Array): void {
  const sx = q[0], sy = q[1], sz = q[2];
  const rdx = q[3] - sx, rdy = q[4] - sy, rdz = q[5] - sz;
  const dx = rdx * (Math.abs(rdx) < STILL_MOVE ? 0 : 1);
  const dy = rdy * (Math.abs(rdy) < STILL_MOVE ? 0 : 1);
  const dz = rdz * (Math.abs(rdz) < STILL_MOVE ? 0 : 1);
  const nx = (dx === 0 ? 1 : 0) * (Math.abs(sx) * ULP4_OF_ONE + STILL_MOVE);
  const ny = (dy === 0 ? 1 : 0) * (Math.abs(sy) * ULP4_OF_ONE + STILL_MOVE);
  const nz = (dz === 0 ? 1 : 0) * (Math.abs(sz) * ULP4_OF_ONE + STILL_MOVE);
  const ix = 1 / (dx + 0);
  const iy = 1 / (dy + 0);
  const iz = 1 / (dz + 0);
  d[SLAB_IX] = ix;
  d[SLAB_IY] = iy;
  d[SLAB_IZ] = iz;
  d[SLAB_SXL] = sx + nx;
  d[SLAB_SXH] = sx - nx;
  d[SLAB_SYL] = sy + ny;
  d[SLAB_SYH] = sy - ny;
  d[SLAB_SZL] = sz + nz;
  d[SLAB_SZH] = sz - nz;
  const xl = ix >= 0 ? 0 : 3, yl = iy >= 0 ? 1 : 4, zl = iz >= 0 ? 2 : 5;
  sides[0] = xl;
  sides[1] = yl;
  sides[2] = zl;
  sides[3] = 3 - xl;
  sides[4] = 5 - yl;
  sides[5] = 7 - zl;
}
