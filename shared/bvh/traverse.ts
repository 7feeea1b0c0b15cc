/**
 * Segment traversal of the BVH built by ./build: closest hit and any hit. Iterative, near child
 * first, pruned by the best t so far, with a stack preallocated per tree, so a query allocates
 * nothing. The box test is conservative (Ize, "Robust BVH Ray Traversal", JCGT 2013: exit distances
 * are scaled up, see SLAB_GROW in ./slab, which also sets up each query's slabs), so a segment the
 * triangle test says hits is never culled by a box on the way down, and the watertight guarantee of
 * the kernel holds through the tree.
 *
 * Triangle test: the segment is prepared once with the watertight kernel (../kernels/watertight,
 * prepareSegment). In the leaf loop the kernel's hit decision is mirrored inline, operation for
 * operation (same subtractions, same products, same order, so the same doubles), reading corners by
 * the prepared axis permutation straight out of the vertex array through the triangle's indices; only hit/miss and t are
 * computed there, and the winner's full record (point, barycentrics, normal, front) is written once
 * at the end by the kernel itself (intersectPreparedAt on the winner's corners). Why mirror the decision
 * instead of calling the kernel per triangle: the kernel is too large for V8 to inline, a call with a
 * fractional tMax boxes it (garbage on every test), and writing a full record per candidate cost
 * time. test/bvh.test.ts checks every answer against brute force with the kernel
 * (intersectPrepared), bit for bit, on real levels and random meshes.
 *
 * Coordinates: vertices are float32 in world space (as glTF stores them; the World rounds other
 * input once at build), read as the doubles they convert to exactly, and every computation is in
 * doubles, so the triangle test sees exactly the numbers brute force over the same vertices would.
 * Vertices are numbered in the order the leaves first use them, so a leaf's corners sit close
 * together in memory. Boxes are float32 too, rounded outward, so they always hold their triangles.
 */
import type { SegmentHit } from '../kernels/hit';
import { createPreparedSegment, intersectPreparedAt, prepareSegment, prepareSegmentOf, type PreparedSegment } from '../kernels/watertight';
import {
  PRUNE_ABS, PRUNE_REL, SLAB_DOUBLES, SLAB_GROW, SLAB_IX, SLAB_IY, SLAB_IZ, SLAB_SIDES, SLAB_SXH, SLAB_SXL, SLAB_SYH,
  SLAB_SYL, SLAB_SZH, SLAB_SZL, prepareSlabs,
} from './slab';

/** The arrays a traversal reads. Views over one World buffer plus this tree's own scratch stacks. */
export interface BvhArrays {
  /** Node bounds, 8 floats per node (see ./build for the layout). */
  nodesF: Float32Array;
  /** The same bytes as int32: word 6 = first triangle / left child, word 7 = leaf count, or -1 - split axis. */
  nodesI: Int32Array;
  /** Vertices, xyz float32 each (the kernel reads them as the doubles they convert to exactly). */
  verts: Float32Array;
  /**
   * Triangles in leaf order, three words each: the low 24 bits are a vertex index (a, b, c); the
   * high 8 bits carry the World's original triangle index and are masked off here (TRI_VERTEX).
   */
  tris: Int32Array;
  /** Scratch traversal stack (node ids), sized to the tree depth + 1. Owned by one tree. */
  stackNode: Int32Array;
  /** Scratch: entry t of each stacked node, for pruning when it is popped. */
  stackT: Float64Array;
}

/** Mask of the vertex index in a triangle word. */
export const TRI_VERTEX = 0xffffff;

/** A comparison as 0 or 1 for bitwise and-ing (JavaScript does this itself; this only tells the types). */
function bit(x: boolean): number {
  return x as unknown as number;
}

// Scratch (module level, reused by every query, never escapes).
const scratchSeg: PreparedSegment = createPreparedSegment();
const scratchSlab = new Float64Array(SLAB_DOUBLES);
const scratchSides = new Int32Array(SLAB_SIDES);

/**
 * Why the segment comes in a Float64Array (q = sx sy sz ex ey ez) and not as six numbers: V8 passes
 * arguments to a call it does not inline as tagged values, so six doubles would become six heap
 * numbers per query (garbage, and collections during a query loop). The World's small wrappers take
 * numbers, are inlined by the caller's JIT, and copy them into their own scratch q.
 */

/**
 * Closest hit of the segment S -> E (in q) over both faces. Returns the leaf-order index of the triangle hit
 * (and fills `out` exactly as the kernel does for that triangle), or -1 with out.hit = false. The
 * smallest computed t wins, as in brute force; on an exact tie the triangle met first in traversal
 * order is kept, which may differ from brute force's choice (same t, neighbouring triangle).
 */
export function bvhFirstHit(out: SegmentHit, b: BvhArrays, q: Float64Array): number {
  out.hit = false;
  const sx = q[0], sy = q[1], sz = q[2], ex = q[3], ey = q[4], ez = q[5];
  const seg = prepareSegment(scratchSeg, sx, sy, sz, ex, ey, ez);
  if (seg.ok !== 1) return -1;
  const F = b.nodesF;
  const U = b.nodesI;
  const T = b.tris;
  const V = b.verts;
  const stackNode = b.stackNode;
  const stackT = b.stackT;
  // Slab constants (./slab: inverse direction, starts nudged on a still axis, near and far words).
  const D = scratchSlab, W = scratchSides;
  prepareSlabs(D, W, q);
  const ix = D[SLAB_IX], iy = D[SLAB_IY], iz = D[SLAB_IZ];
  const sxl = D[SLAB_SXL], sxh = D[SLAB_SXH], syl = D[SLAB_SYL], syh = D[SLAB_SYH], szl = D[SLAB_SZL], szh = D[SLAB_SZH];
  const xl = W[0], yl = W[1], zl = W[2], xh = W[3], yh = W[4], zh = W[5];
  // Per axis: 1 when the segment runs toward -axis, so the right (larger) child is nearer.
  const fx = ix >= 0 ? 0 : 1, fy = iy >= 0 ? 0 : 1, fz = iz >= 0 ? 0 : 1;
  // Kernel setup (see ../kernels/watertight): permutation and shear.
  const kx = seg.kx, ky = seg.ky, kz = seg.kz;
  const Sx = seg.Sx, Sy = seg.Sy, Sz = seg.Sz;
  const skx = seg.skx, sky = seg.sky, skz = seg.skz;

  let best = 1;
  let bestTri = -1;
  // Limit handed to boxes and triangles: exactly 1 until something is hit (the segment ends there).
  let limit = 1;
  let node = 0;
  let sp = 0;
  // Root box.
  {
    const lo = Math.max(0, (F[xl] - sxl) * ix, (F[yl] - syl) * iy, (F[zl] - szl) * iz);
    const hi = Math.min(1, (F[xh] - sxh) * ix, (F[yh] - syh) * iy, (F[zh] - szh) * iz);
    if (!(lo <= hi * SLAB_GROW)) return -1;
  }
  for (;;) {
    const w = node << 3;
    const cnt = U[w + 7];
    if (cnt > 0) {
      const first = U[w + 6];
      for (let i = first, k = first * 3, end = first + cnt; i < end; i++, k += 3) {
        // Mirror of intersectPrepared(..., cullBack = false, tMax = limit): keep every operation in step.
        const a = (T[k] & TRI_VERTEX) * 3, b = (T[k + 1] & TRI_VERTEX) * 3, c = (T[k + 2] & TRI_VERTEX) * 3;
        const akz = V[a + kz] - skz;
        const bkz = V[b + kz] - skz;
        const ckz = V[c + kz] - skz;
        const Ax = V[a + kx] - skx - Sx * akz;
        const Ay = V[a + ky] - sky - Sy * akz;
        const Bx = V[b + kx] - skx - Sx * bkz;
        const By = V[b + ky] - sky - Sy * bkz;
        const Cx = V[c + kx] - skx - Sx * ckz;
        const Cy = V[c + ky] - sky - Sy * ckz;
        const Ue = Cx * By - Cy * Bx;
        const Ve = Ax * Cy - Ay * Cx;
        const We = Bx * Ay - By * Ax;
        if ((Ue < 0 || Ve < 0 || We < 0) && (Ue > 0 || Ve > 0 || We > 0)) continue;
        const det = Ue + Ve + We;
        const Tn = Ue * (Sz * akz) + Ve * (Sz * bkz) + We * (Sz * ckz);
        if (det > 0) {
          if (!(Tn >= 0 && Tn <= limit * det)) continue;
        } else if (det < 0) {
          if (!(Tn <= 0 && Tn >= limit * det)) continue;
        } else continue;
        const t = Tn * (1 / det);
        if (t < best || bestTri < 0) {
          best = t;
          bestTri = i;
          limit = best * PRUNE_REL + PRUNE_ABS;
        }
      }
    } else {
      // Near child first: along the split axis, the left child holds the smaller centroids.
      const l = U[w + 6];
      const flip = cnt === -1 ? fx : cnt === -2 ? fy : fz;
      const c1 = l + flip, c2 = l + 1 - flip;
      const o = c1 << 3, p = c2 << 3;
      const lim = limit * SLAB_GROW;
      // Both children's slab tests, branch-free: a box is entered iff every entry distance is at
      // most every exit distance (exits scaled by Ize's factor), every entry is at most the limit
      // and every exit is at least 0. That is max(entries, 0) <= min(exits, limit) without a
      // max or min: V8 compiles Math.max/min and if-chains to data-dependent branches, and their
      // mispredictions were about a third of the query time. A NaN product compares false: a miss,
      // which is right (see the note on still axes in ./slab).
      const ax0 = (F[o + xl] - sxl) * ix, ay0 = (F[o + yl] - syl) * iy, az0 = (F[o + zl] - szl) * iz;
      const ax1 = (F[o + xh] - sxh) * ix * SLAB_GROW, ay1 = (F[o + yh] - syh) * iy * SLAB_GROW, az1 = (F[o + zh] - szh) * iz * SLAB_GROW;
      const in1 =
        bit(ax0 <= ax1) & bit(ax0 <= ay1) & bit(ax0 <= az1) & bit(ay0 <= ax1) & bit(ay0 <= ay1) &
        bit(ay0 <= az1) & bit(az0 <= ax1) & bit(az0 <= ay1) & bit(az0 <= az1) & bit(ax0 <= lim) &
        bit(ay0 <= lim) & bit(az0 <= lim) & bit(ax1 >= 0) & bit(ay1 >= 0) & bit(az1 >= 0);
      const bx0 = (F[p + xl] - sxl) * ix, by0 = (F[p + yl] - syl) * iy, bz0 = (F[p + zl] - szl) * iz;
      const bx1 = (F[p + xh] - sxh) * ix * SLAB_GROW, by1 = (F[p + yh] - syh) * iy * SLAB_GROW, bz1 = (F[p + zh] - szh) * iz * SLAB_GROW;
      const in2 =
        bit(bx0 <= bx1) & bit(bx0 <= by1) & bit(bx0 <= bz1) & bit(by0 <= bx1) & bit(by0 <= by1) &
        bit(by0 <= bz1) & bit(bz0 <= bx1) & bit(bz0 <= by1) & bit(bz0 <= bz1) & bit(bx0 <= lim) &
        bit(by0 <= lim) & bit(bz0 <= lim) & bit(bx1 >= 0) & bit(by1 >= 0) & bit(bz1 >= 0);
      if (in1 !== 0) {
        if (in2 !== 0) {
          // Entry distance kept so the far child can be skipped if a closer hit turns up first.
          stackNode[sp] = c2;
          stackT[sp] = Math.max(0, bx0, by0, bz0);
          sp++;
        }
        node = c1;
        continue;
      }
      if (in2 !== 0) {
        node = c2;
        continue;
      }
    }
    // Pop the next node still closer than the best hit.
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
  writeRecord(out, seg, V, T, bestTri * 3);
  return bestTri;
}

// The winner's corners as doubles, for the kernel's flat-array form (module level, never escapes).
const scratchCorners = new Float64Array(9);

/**
 * Writes the full hit record for the triangle whose words start at T[k], which is known to be hit,
 * with the kernel itself (its flat-array form over the corners converted to doubles, which is exact:
 * the same doubles the leaf loop read; no doubles cross the call, so nothing is boxed).
 */
function writeRecord(out: SegmentHit, seg: PreparedSegment, V: Float32Array, T: Int32Array, k: number): void {
  const C = scratchCorners;
  const a = (T[k] & TRI_VERTEX) * 3, b = (T[k + 1] & TRI_VERTEX) * 3, c = (T[k + 2] & TRI_VERTEX) * 3;
  C[0] = V[a]; C[1] = V[a + 1]; C[2] = V[a + 2];
  C[3] = V[b]; C[4] = V[b + 1]; C[5] = V[b + 2];
  C[6] = V[c]; C[7] = V[c + 1]; C[8] = V[c + 2];
  intersectPreparedAt(out, seg, C, 0, false, 1);
}

/** The tris offset of the triangle bvhAnyHit last met (read by bvhAnyHitCached right after a true answer). */
let anyHitTriangle = -1;

/**
 * True when anything lies on the segment S -> E in q (both faces, inclusive ends). Stops at the first.
 * `root` (a node id, 0 by default: the whole tree) limits the search to that node's subtree.
 * The traversal stays in this one function: split into a separate traversal function, callers such
 * as the explosion's line-of-sight tests allocated per ray (test/explosion.test.ts measures it).
 */
export function bvhAnyHit(b: BvhArrays, q: Float64Array, root = 0): boolean {
  const sx = q[0], sy = q[1], sz = q[2], ex = q[3], ey = q[4], ez = q[5];
  const seg = prepareSegment(scratchSeg, sx, sy, sz, ex, ey, ez);
  if (seg.ok !== 1) return false;
  const F = b.nodesF;
  const U = b.nodesI;
  const T = b.tris;
  const V = b.verts;
  const stackNode = b.stackNode;
  // Slab constants (./slab: inverse direction, starts nudged on a still axis, near and far words).
  const D = scratchSlab, W = scratchSides;
  prepareSlabs(D, W, q);
  const ix = D[SLAB_IX], iy = D[SLAB_IY], iz = D[SLAB_IZ];
  const sxl = D[SLAB_SXL], sxh = D[SLAB_SXH], syl = D[SLAB_SYL], syh = D[SLAB_SYH], szl = D[SLAB_SZL], szh = D[SLAB_SZH];
  const xl = W[0], yl = W[1], zl = W[2], xh = W[3], yh = W[4], zh = W[5];
  const kx = seg.kx, ky = seg.ky, kz = seg.kz;
  const Sx = seg.Sx, Sy = seg.Sy, Sz = seg.Sz;
  const skx = seg.skx, sky = seg.sky, skz = seg.skz;
  {
    const r = root << 3;
    const lo = Math.max(0, (F[r + xl] - sxl) * ix, (F[r + yl] - syl) * iy, (F[r + zl] - szl) * iz);
    const hi = Math.min(1, (F[r + xh] - sxh) * ix, (F[r + yh] - syh) * iy, (F[r + zh] - szh) * iz);
    if (!(lo <= hi * SLAB_GROW)) return false;
  }
  let node = root;
  let sp = 0;
  for (;;) {
    const w = node << 3;
    const cnt = U[w + 7];
    if (cnt > 0) {
      for (let k = U[w + 6] * 3, end = k + cnt * 3; k < end; k += 3) {
        // Mirror of intersectPrepared(..., cullBack = false, tMax = 1).
        const a = (T[k] & TRI_VERTEX) * 3, b = (T[k + 1] & TRI_VERTEX) * 3, c = (T[k + 2] & TRI_VERTEX) * 3;
        const akz = V[a + kz] - skz;
        const bkz = V[b + kz] - skz;
        const ckz = V[c + kz] - skz;
        const Ax = V[a + kx] - skx - Sx * akz;
        const Ay = V[a + ky] - sky - Sy * akz;
        const Bx = V[b + kx] - skx - Sx * bkz;
        const By = V[b + ky] - sky - Sy * bkz;
        const Cx = V[c + kx] - skx - Sx * ckz;
        const Cy = V[c + ky] - sky - Sy * ckz;
        const Ue = Cx * By - Cy * Bx;
        const Ve = Ax * Cy - Ay * Cx;
        const We = Bx * Ay - By * Ax;
        if ((Ue < 0 || Ve < 0 || We < 0) && (Ue > 0 || Ve > 0 || We > 0)) continue;
        const det = Ue + Ve + We;
        const Tn = Ue * (Sz * akz) + Ve * (Sz * bkz) + We * (Sz * ckz);
        if (det > 0) {
          if (Tn >= 0 && Tn <= det) { anyHitTriangle = k; return true; }
        } else if (det < 0) {
          if (Tn <= 0 && Tn >= det) { anyHitTriangle = k; return true; }
        }
      }
    } else {
      // Same branch-free tests as bvhFirstHit, limit 1, no ordering needed to find any hit.
      const l = U[w + 6];
      const o = l << 3, p = o + 8;
      const lim = SLAB_GROW;
      const ax0 = (F[o + xl] - sxl) * ix, ay0 = (F[o + yl] - syl) * iy, az0 = (F[o + zl] - szl) * iz;
      const ax1 = (F[o + xh] - sxh) * ix * SLAB_GROW, ay1 = (F[o + yh] - syh) * iy * SLAB_GROW, az1 = (F[o + zh] - szh) * iz * SLAB_GROW;
      const inL =
        bit(ax0 <= ax1) & bit(ax0 <= ay1) & bit(ax0 <= az1) & bit(ay0 <= ax1) & bit(ay0 <= ay1) &
        bit(ay0 <= az1) & bit(az0 <= ax1) & bit(az0 <= ay1) & bit(az0 <= az1) & bit(ax0 <= lim) &
        bit(ay0 <= lim) & bit(az0 <= lim) & bit(ax1 >= 0) & bit(ay1 >= 0) & bit(az1 >= 0);
      const bx0 = (F[p + xl] - sxl) * ix, by0 = (F[p + yl] - syl) * iy, bz0 = (F[p + zl] - szl) * iz;
      const bx1 = (F[p + xh] - sxh) * ix * SLAB_GROW, by1 = (F[p + yh] - syh) * iy * SLAB_GROW, bz1 = (F[p + zh] - szh) * iz * SLAB_GROW;
      const inR =
        bit(bx0 <= bx1) & bit(bx0 <= by1) & bit(bx0 <= bz1) & bit(by0 <= bx1) & bit(by0 <= by1) &
        bit(by0 <= bz1) & bit(bz0 <= bx1) & bit(bz0 <= by1) & bit(bz0 <= bz1) & bit(bx0 <= lim) &
        bit(by0 <= lim) & bit(bz0 <= lim) & bit(bx1 >= 0) & bit(by1 >= 0) & bit(bz1 >= 0);
      if (inL !== 0) {
        if (inR !== 0) stackNode[sp++] = l + 1;
        node = l;
        continue;
      }
      if (inR !== 0) {
        node = l + 1;
        continue;
      }
    }
    if (sp === 0) return false;
    node = stackNode[--sp];
  }
}

/**
 * bvhAnyHit with an occluder cache (shadow rays behind one wall meet the same few triangles): the
 * triangles at the tris offsets cache[0..n) (a triangle's first word, as returned: others are skipped; n 0: none) are tried first with the same mirrored
 * decision, then the subtree at node `subtree` when it is not 0 (./ancestors: near the cached ones),
 * then the tree. Returns the tris offset of a triangle on the segment (keep it in the
 * cache), or -1 when nothing is: the same yes or no as bvhAnyHit, since a triangle the decision
 * says the segment meets is one the tree would find too. The decision is written out in the loop,
 * the segment's numbers read once: a call per cached triangle was not inlined (6% slower on fog of
 * war's rays).
 */
export function bvhAnyHitCached(b: BvhArrays, q: Float64Array, cache: Int32Array, n: number, subtree = 0): number {
  const k = n > 0 ? bvhHintHit(b, q, cache, n) : -1;
  if (k !== -1) return k === -2 ? -1 : k;
  if (subtree > 0 && bvhAnyHit(b, q, subtree)) return anyHitTriangle;
  return bvhAnyHit(b, q) ? anyHitTriangle : -1;
}

/**
 * The first of the triangles cache[0..n) (tris offsets; others are skipped) that segment q meets,
 * by the leaf loop's exact decision; -1 when none does, -2 when the segment is degenerate (it meets
 * nothing). Only these triangles are tested.
 */
export function bvhHintHit(b: BvhArrays, q: Float64Array, cache: Int32Array, n: number): number {
  const seg = prepareSegmentOf(scratchSeg, q);
  if (seg.ok !== 1) return -2;
  const V = b.verts, T = b.tris, len = T.length;
  const kx = seg.kx, ky = seg.ky, kz = seg.kz;
  const Sx = seg.Sx, Sy = seg.Sy, Sz = seg.Sz;
  const skx = seg.skx, sky = seg.sky, skz = seg.skz;
  for (let i = 0; i < n; i++) {
    const k = cache[i];
    if (!(k >= 0 && k % 3 === 0 && k + 2 < len)) continue;
    // The leaf loop's decision for this one triangle (cullBack false, tMax 1).
    const a = (T[k] & TRI_VERTEX) * 3, bb = (T[k + 1] & TRI_VERTEX) * 3, c = (T[k + 2] & TRI_VERTEX) * 3;
    const akz = V[a + kz] - skz;
    const bkz = V[bb + kz] - skz;
    const ckz = V[c + kz] - skz;
    const Ax = V[a + kx] - skx - Sx * akz;
    const Ay = V[a + ky] - sky - Sy * akz;
    const Bx = V[bb + kx] - skx - Sx * bkz;
    const By = V[bb + ky] - sky - Sy * bkz;
    const Cx = V[c + kx] - skx - Sx * ckz;
    const Cy = V[c + ky] - sky - Sy * ckz;
    const Ue = Cx * By - Cy * Bx;
    const Ve = Ax * Cy - Ay * Cx;
    const We = Bx * Ay - By * Ax;
    if ((Ue < 0 || Ve < 0 || We < 0) && (Ue > 0 || Ve > 0 || We > 0)) continue;
    const det = Ue + Ve + We;
    const Tn = Ue * (Sz * akz) + Ve * (Sz * bkz) + We * (Sz * ckz);
    if (det > 0) {
      if (Tn >= 0 && Tn <= det) return k;
    } else if (det < 0) {
      if (Tn <= 0 && Tn >= det) return k;
    }
  }
  return -1;
}
