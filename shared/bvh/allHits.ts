/**
 * Every triangle a segment meets, through the BVH built by ./build: the multi-hit query behind
 * World.allHits (bullets that pass through walls). The traversal is bvhFirstHit's (./traverse) with
 * its limit held at 1: the same slab setup (./slab) and conservative box test, and the same inline
 * mirror of the watertight kernel's hit decision (tMax = 1, both faces); nothing is pruned by a
 * nearer hit, so every triangle brute force would report is reached. Each triangle the mirror
 * accepts gets its full record from the kernel itself (intersectPreparedAt on its corners), so its
 * t, point, normal and front bit are exactly what the kernel gives for that triangle.
 *
 * Hits go into the caller's flat arrays (TriangleHits), kept sorted by (t, original triangle index)
 * by insertion as they are found, so the order does not depend on the traversal. When more hits are
 * found than the arrays hold, the nearest `capacity` are kept and `total` counts them all.
 * Allocates nothing.
 */
import { createSegmentHit, type SegmentHit } from '../kernels/hit';
import { createPreparedSegment, intersectPreparedAt, prepareSegment, type PreparedSegment } from '../kernels/watertight';
import {
  SLAB_DOUBLES, SLAB_GROW, SLAB_IX, SLAB_IY, SLAB_IZ, SLAB_SIDES, SLAB_SXH, SLAB_SXL, SLAB_SYH, SLAB_SYL, SLAB_SZH,
  SLAB_SZL, prepareSlabs,
} from './slab';
import { TRI_VERTEX, type BvhArrays } from './traverse';

/**
 * Hits of one segment, one entry per triangle met, in flat arrays of `capacity` entries: entries
 * 0 .. count - 1 are sorted by t ascending, equal t by triangle index.
 */
export interface TriangleHits {
  /** Entries the arrays hold. */
  readonly capacity: number;
  /** Fraction along the segment, 0..1 inclusive. */
  readonly t: Float64Array;
  /** The hit point, S + t (E - S). */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  /** Unit geometric normal of the triangle, oriented toward the segment's start (as the kernel gives). */
  readonly nx: Float64Array;
  readonly ny: Float64Array;
  readonly nz: Float64Array;
  /** 1 when the segment met the triangle's front face (counter-clockwise seen from the start), else 0. */
  readonly front: Uint8Array;
  /** Original triangle index (indices / 3 of the soup the world was built from). */
  readonly triangle: Int32Array;
  /** Entries stored (at most capacity). */
  count: number;
  /** Hits found; more than count when the capacity overflowed (the nearest were kept). */
  total: number;
}

/** A comparison as 0 or 1 for bitwise and-ing (as in ./traverse). */
function bit(x: boolean): number {
  return x as unknown as number;
}

// Scratch (module level, reused by every query, never escapes).
const scratchSeg: PreparedSegment = createPreparedSegment();
const scratchSlab = new Float64Array(SLAB_DOUBLES);
const scratchSides = new Int32Array(SLAB_SIDES);
const scratchHit: SegmentHit = createSegmentHit();
const scratchCorners = new Float64Array(9);

/**
 * Every triangle the segment S -> E (q = sx sy sz ex ey ez, see ./traverse for why an array) meets,
 * either face, 0 <= t <= 1, into `out` (sorted; original triangle indices). Returns out.count.
 * A zero-length or non-finite segment meets nothing.
 */
export function bvhAllHits(out: TriangleHits, b: BvhArrays, q: Float64Array): number {
  out.count = 0;
  out.total = 0;
  const sx = q[0], sy = q[1], sz = q[2], ex = q[3], ey = q[4], ez = q[5];
  const seg = prepareSegment(scratchSeg, sx, sy, sz, ex, ey, ez);
  if (seg.ok !== 1) return 0;
  const F = b.nodesF;
  const U = b.nodesI;
  const T = b.tris;
  const V = b.verts;
  const stackNode = b.stackNode;
  const D = scratchSlab, W = scratchSides;
  prepareSlabs(D, W, q);
  const ix = D[SLAB_IX], iy = D[SLAB_IY], iz = D[SLAB_IZ];
  const sxl = D[SLAB_SXL], sxh = D[SLAB_SXH], syl = D[SLAB_SYL], syh = D[SLAB_SYH], szl = D[SLAB_SZL], szh = D[SLAB_SZH];
  const xl = W[0], yl = W[1], zl = W[2], xh = W[3], yh = W[4], zh = W[5];
  const kx = seg.kx, ky = seg.ky, kz = seg.kz;
  const Sx = seg.Sx, Sy = seg.Sy, Sz = seg.Sz;
  const skx = seg.skx, sky = seg.sky, skz = seg.skz;
  {
    const lo = Math.max(0, (F[xl] - sxl) * ix, (F[yl] - syl) * iy, (F[zl] - szl) * iz);
    const hi = Math.min(1, (F[xh] - sxh) * ix, (F[yh] - syh) * iy, (F[zh] - szh) * iz);
    if (!(lo <= hi * SLAB_GROW)) return 0;
  }
  let node = 0;
  let sp = 0;
  for (;;) {
    const w = node << 3;
    const cnt = U[w + 7];
    if (cnt > 0) {
      for (let k = U[w + 6] * 3, end = k + cnt * 3; k < end; k += 3) {
        // Mirror of intersectPrepared(..., cullBack = false, tMax = 1), as in bvhFirstHit.
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
          if (!(Tn >= 0 && Tn <= det)) continue;
        } else if (det < 0) {
          if (!(Tn <= 0 && Tn >= det)) continue;
        } else continue;
        recordHit(out, seg, V, T, k);
      }
    } else {
      // bvhFirstHit's branch-free tests of both children with the limit at 1 (nothing prunes, so
      // the order children are visited in does not matter: left first).
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
    if (sp === 0) break;
    node = stackNode[--sp];
  }
  return out.count;
}

/**
 * The kernel's full record for the triangle whose words start at T[k] (corners converted to doubles
 * exactly, as bvhFirstHit's writeRecord does), inserted into out when the kernel confirms the hit.
 * Integer and object arguments only, so the call boxes no doubles.
 */
function recordHit(out: TriangleHits, seg: PreparedSegment, V: Float32Array, T: Int32Array, k: number): void {
  const C = scratchCorners;
  const a = (T[k] & TRI_VERTEX) * 3, b = (T[k + 1] & TRI_VERTEX) * 3, c = (T[k + 2] & TRI_VERTEX) * 3;
  C[0] = V[a]; C[1] = V[a + 1]; C[2] = V[a + 2];
  C[3] = V[b]; C[4] = V[b + 1]; C[5] = V[b + 2];
  C[6] = V[c]; C[7] = V[c + 1]; C[8] = V[c + 2];
  if (!intersectPreparedAt(scratchHit, seg, C, 0, false, 1)) return;
  // Original triangle index: one byte in the top of each of its three words (see World).
  const tri = (T[k] >>> 24) | ((T[k + 1] >>> 24) << 8) | ((T[k + 2] >>> 24) << 16);
  insertHit(out, scratchHit, tri);
}

/**
 * Inserts the hit h on triangle `tri` into the sorted entries of out (key: t, then triangle). A full
 * out drops its farthest entry, or the new hit when that is the farthest; total counts every call.
 */
function insertHit(out: TriangleHits, h: SegmentHit, tri: number): void {
  out.total++;
  const cap = out.capacity;
  const n = out.count;
  const t = h.t;
  const Tt = out.t, Tr = out.triangle;
  let i = n;
  while (i > 0 && (Tt[i - 1] > t || (Tt[i - 1] === t && Tr[i - 1] > tri))) i--;
  if (i >= cap) return;
  const X = out.x, Y = out.y, Z = out.z, NX = out.nx, NY = out.ny, NZ = out.nz, Fr = out.front;
  for (let j = n < cap ? n : cap - 1; j > i; j--) {
    Tt[j] = Tt[j - 1]; Tr[j] = Tr[j - 1];
    X[j] = X[j - 1]; Y[j] = Y[j - 1]; Z[j] = Z[j - 1];
    NX[j] = NX[j - 1]; NY[j] = NY[j - 1]; NZ[j] = NZ[j - 1];
    Fr[j] = Fr[j - 1];
  }
  Tt[i] = t; Tr[i] = tri;
  X[i] = h.x; Y[i] = h.y; Z[i] = h.z;
  NX[i] = h.nx; NY[i] = h.ny; NZ[i] = h.nz;
  Fr[i] = h.front ? 1 : 0;
  if (n < cap) out.count = n + 1;
}
