/**
 * Swept sphere through the BVH: how far a sphere of radius r can travel along P0 -> P1 before it
 * touches the world. Boxes are grown by r (plus a margin for rounding), so the traversal never culls a
 * triangle the swept-sphere kernel (../kernels/sweptSphere: face, edges and vertices, one-sided) would
 * touch; nearest box first, pruned by the earliest contact so far, preallocated stack.
 *
 * The per-triangle work is the kernel itself, over sweep frames precomputed per leaf-order triangle
 * (20 doubles each, built by the World on first use, not stored in the world's bytes).
 */
import { sweepSphereTriangleAt, type SweepHit } from '../kernels/sweptSphere';
import { createSweepHit } from '../kernels/sweptSphere';
import {
  PRUNE_ABS, PRUNE_REL, SLAB_DOUBLES, SLAB_GROW, SLAB_IX, SLAB_IY, SLAB_IZ, SLAB_SIDES, SLAB_SXH, SLAB_SXL, SLAB_SYH,
  SLAB_SYL, SLAB_SZH, SLAB_SZL, STILL_MOVE, prepareSlabs,
} from './slab';
import type { BvhArrays } from './traverse';

/** Relative size of the margin added to r for the rounding of (bound +- r - start): 2^-40. */
const GROW_MARGIN = 9.094947017729282e-13;

// Scratch (module level, never escapes).
const scratchSweep: SweepHit = createSweepHit();
const scratchSlab = new Float64Array(SLAB_DOUBLES);
const scratchSides = new Int32Array(SLAB_SIDES);

/**
 * Earliest contact of the sphere (q = p0x p0y p0z p1x p1y p1z radius) with any leaf-order triangle.
 * Returns that triangle's leaf index and fills `out` from the kernel, or -1 with out.hit = false.
 * Ties in t keep the first triangle found. `frames` holds the sweep frames in leaf order.
 */
export function bvhSweepSphere(out: SweepHit, b: BvhArrays, frames: Float64Array, q: Float64Array): number {
  out.hit = false;
  const sx = q[0], sy = q[1], sz = q[2], ex = q[3], ey = q[4], ez = q[5], r = q[6];
  const check = sx + sy + sz + ex + ey + ez + r;
  if (!(r >= 0) || check - check !== 0) return -1;
  const F = b.nodesF;
  const U = b.nodesI;
  const stackNode = b.stackNode;
  const stackT = b.stackT;
  // Margin for rounding in (bound +- r - start): relative to the magnitudes involved, never 0.
  const M = Math.max(Math.abs(F[0]), Math.abs(F[1]), Math.abs(F[2]), Math.abs(F[3]), Math.abs(F[4]), Math.abs(F[5]),
    Math.abs(sx), Math.abs(sy), Math.abs(sz), Math.abs(ex), Math.abs(ey), Math.abs(ez));
  const rr = r + (r + M) * GROW_MARGIN + STILL_MOVE;
  // Slab constants (./slab). On a still axis the start is nudged up against the min side and down
  // against the max side (see the note on still axes there): a start on the grown face stays inside,
  // and (bound - s') can only be 0, giving NaN and a miss, when the start is just outside the grown
  // box, where a miss is right.
  const D = scratchSlab, W = scratchSides;
  prepareSlabs(D, W, q);
  const ix = D[SLAB_IX], iy = D[SLAB_IY], iz = D[SLAB_IZ];
  const sxl = D[SLAB_SXL], sxh = D[SLAB_SXH], syl = D[SLAB_SYL], syh = D[SLAB_SYH], szl = D[SLAB_SZL], szh = D[SLAB_SZH];
  const xl = W[0], yl = W[1], zl = W[2], xh = W[3], yh = W[4], zh = W[5];
  // Every box is grown by rr on each side: gxl is added to the entry-side bound, taken from the exit side.
  const gxl = xl === 0 ? -rr : rr, gyl = yl === 1 ? -rr : rr, gzl = zl === 2 ? -rr : rr;
  const tmp = scratchSweep;
  let best = 1;
  let bestTri = -1;
  let limit = 1;
  {
    const lo = Math.max(0, (F[xl] + gxl - sxl) * ix, (F[yl] + gyl - syl) * iy, (F[zl] + gzl - szl) * iz);
    const hi = Math.min(1, (F[xh] - gxl - sxh) * ix, (F[yh] - gyl - syh) * iy, (F[zh] - gzl - szh) * iz);
    if (!(lo <= hi * SLAB_GROW)) return -1;
  }
  let node = 0;
  let sp = 0;
  for (;;) {
    const w = node << 3;
    const cnt = U[w + 7];
    if (cnt > 0) {
      const first = U[w + 6];
      for (let i = first, end = first + cnt; i < end; i++) {
        if (sweepSphereTriangleAt(tmp, frames, i, q, 0)) { // the path from q: no double crosses the call
          const t = tmp.t;
          if (t < best || bestTri < 0) {
            best = t;
            bestTri = i;
            limit = best * PRUNE_REL + PRUNE_ABS;
          }
        }
      }
    } else {
      const l = U[w + 6];
      const o = l << 3;
      const p = o + 8;
      let tl = Infinity;
      {
        const lo = Math.max(0, (F[o + xl] + gxl - sxl) * ix, (F[o + yl] + gyl - syl) * iy, (F[o + zl] + gzl - szl) * iz);
        const hi = Math.min(limit, (F[o + xh] - gxl - sxh) * ix, (F[o + yh] - gyl - syh) * iy, (F[o + zh] - gzl - szh) * iz);
        if (lo <= hi * SLAB_GROW) tl = lo;
      }
      let tr = Infinity;
      {
        const lo = Math.max(0, (F[p + xl] + gxl - sxl) * ix, (F[p + yl] + gyl - syl) * iy, (F[p + zl] + gzl - szl) * iz);
        const hi = Math.min(limit, (F[p + xh] - gxl - sxh) * ix, (F[p + yh] - gyl - syh) * iy, (F[p + zh] - gzl - szh) * iz);
        if (lo <= hi * SLAB_GROW) tr = lo;
      }
      if (tl <= tr) {
        if (tl !== Infinity) {
          if (tr !== Infinity) {
            stackNode[sp] = l + 1;
            stackT[sp] = tr;
            sp++;
          }
          node = l;
          continue;
        }
      } else if (tr !== Infinity) {
        if (tl !== Infinity) {
          stackNode[sp] = l;
          stackT[sp] = tl;
          sp++;
        }
        node = l + 1;
        continue;
      }
    }
    const popLimit = limit * SLAB_GROW;
    node = -1;
    while (sp > 0) {
      sp--;
      if (stackT[sp] <= popLimit) {
        node = stackNode[sp];
        break;
      }
    }
    if (node < 0) break;
  }
  if (bestTri < 0) return -1;
  sweepSphereTriangleAt(out, frames, bestTri, q, 0);
  return bestTri;
}
