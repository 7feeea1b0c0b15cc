/**
 * Watertight segment-vs-triangle test (Woop, Benthin and Wald, "Watertight Ray/Triangle
 * Intersection", JCGT 2(1), 2013). This is the kernel verdicts use: a segment that crosses a closed
 * mesh exactly through a shared edge or vertex always hits at least one of the triangles around it
 * (test/closedMeshLeak.test.ts checks this on an icosphere and the bunny, 0, 1e4 and 1e5 from the
 * origin).
 *
 * How: the segment is prepared once (largest direction axis kz, the other two kx ky, and a shear
 * that maps the direction onto +z). Each triangle vertex is then translated to the segment start and
 * sheared, which depends only on the vertex and the segment, never on the triangle, so two
 * triangles sharing an edge compute exactly the same (negated) 2D edge function for it. Hit or miss
 * is decided from the signs of those edge functions U, V, W; no epsilon anywhere.
 *
 * Precision: every value here is an IEEE double (a JavaScript number). The paper computes in single
 * precision and falls back to double when an edge function is exactly zero; here the double path is
 * the only path, so that fallback is implicit. JavaScript never fuses multiply-add, so the edge
 * functions are bit-identical in every engine.
 *
 * Conventions (shared with every kernel, see ./hit):
 * - segment S -> E, direction D = E - S, t in [0, tMax] inclusive (tMax <= 1);
 * - a point on an edge or vertex counts as inside (inclusive);
 * - front face = a, b, c counter-clockwise seen from the start, i.e. the geometric normal
 *   (b - a) x (c - a) points toward the start (dot(normal, D) < 0). With the shear below that is
 *   exactly det = U + V + W > 0, so `cullBack` accepts only det > 0;
 * - det == 0 (segment parallel to the plane, or a degenerate triangle) is a miss;
 * - a zero-length or non-finite segment is a miss (prepareSegment marks it `ok = 0`); non-finite
 *   triangle coordinates make every comparison false and miss too.
 */
import type { SegmentHit } from './hit';

/** A segment prepared for many triangle tests. Plain number fields only, so it stays monomorphic. */
export interface PreparedSegment {
  /** 1 when the segment is usable, 0 when it is zero-length or not finite (every test misses). */
  ok: number;
  /** Start S. */
  sx: number;
  sy: number;
  sz: number;
  /** Direction D = E - S (not normalised: t = 1 is the stop). */
  dx: number;
  dy: number;
  dz: number;
  /** Axis permutation: kz is the axis of largest |D|, kx ky the others (swapped when D[kz] < 0). */
  kx: number;
  ky: number;
  kz: number;
  /** The same permutation as one number, 2 kz + (1 if kx and ky were swapped): selects a branch. */
  perm: number;
  /** The start's coordinates along kx, ky, kz. */
  skx: number;
  sky: number;
  skz: number;
  /** Shear: Sx = D[kx] / D[kz], Sy = D[ky] / D[kz], Sz = 1 / D[kz]. */
  Sx: number;
  Sy: number;
  Sz: number;
}

export function createPreparedSegment(): PreparedSegment {
  return {
    ok: 0,
    sx: 0, sy: 0, sz: 0,
    dx: 0, dy: 0, dz: 0,
    kx: 0, ky: 1, kz: 2, perm: 4,
    skx: 0, sky: 0, skz: 0,
    Sx: 0, Sy: 0, Sz: 0,
  };
}

/** Component k (0 = x, 1 = y, 2 = z) of (x, y, z). Small and closure-free so the JIT inlines it. */
function component(k: number, x: number, y: number, z: number): number {
  return k === 0 ? x : k === 1 ? y : z;
}

/**
 * Prepares the segment S -> E into `out` and returns `out`. Small on purpose (stores, then a call
 * with the record only) so V8 inlines it and the six doubles are never boxed as call arguments.
 */
export function prepareSegment(
  out: PreparedSegment,
  sx: number, sy: number, sz: number,
  ex: number, ey: number, ez: number,
): PreparedSegment {
  out.sx = sx; out.sy = sy; out.sz = sz;
  out.dx = ex - sx; out.dy = ey - sy; out.dz = ez - sz;
  return finishPrepare(out);
}

/** prepareSegment for the segment in q (sx sy sz ex ey ez): no double crosses a call V8 may not inline (it would be boxed). */
export function prepareSegmentOf(out: PreparedSegment, q: Float64Array): PreparedSegment {
  out.sx = q[0]!; out.sy = q[1]!; out.sz = q[2]!;
  out.dx = q[3]! - q[0]!; out.dy = q[4]! - q[1]!; out.dz = q[5]! - q[2]!;
  return finishPrepare(out);
}

/** The rest of prepareSegment, from the start and direction already stored in `out`. */
function finishPrepare(out: PreparedSegment): PreparedSegment {
  const sx = out.sx, sy = out.sy, sz = out.sz;
  const dx = out.dx, dy = out.dy, dz = out.dz;
  const adx = Math.abs(dx);
  const ady = Math.abs(dy);
  const adz = Math.abs(dz);
  // Largest axis; ties resolve to the lower axis so the choice is deterministic.
  let kz = 0;
  if (ady > adx) kz = 1;
  if (adz > (kz === 0 ? adx : ady)) kz = 2;
  let kx = kz === 2 ? 0 : kz + 1;
  let ky = kx === 2 ? 0 : kx + 1;
  const dkz = component(kz, dx, dy, dz);
  // Swapping kx and ky when D[kz] < 0 keeps the winding, so det > 0 always means front face.
  let perm = 2 * kz;
  if (dkz < 0) {
    const swap = kx;
    kx = ky;
    ky = swap;
    perm++;
  }
  out.kx = kx; out.ky = ky; out.kz = kz; out.perm = perm;
  out.skx = component(kx, sx, sy, sz);
  out.sky = component(ky, sx, sy, sz);
  out.skz = component(kz, sx, sy, sz);
  const Sx = component(kx, dx, dy, dz) / dkz;
  const Sy = component(ky, dx, dy, dz) / dkz;
  const Sz = 1 / dkz;
  out.Sx = Sx; out.Sy = Sy; out.Sz = Sz;
  // dkz == 0 means D == 0 (kz is the largest axis). Any NaN/Infinity in S or E shows up in the
  // start, in D[kz] (the largest component) or in the shear; `x - x` is 0 only for finite x.
  const check = sx + sy + sz + dkz + Sx + Sy + Sz;
  out.ok = dkz !== 0 && check - check === 0 ? 1 : 0;
  return out;
}

/** Scratch for intersectPrepared: its nine numbers are copied here. Reused on every call. */
const scratchTriangle = new Float64Array(9);

/**
 * Woop-Benthin-Wald watertight test of a prepared segment; hit only when 0 <= t <= tMax (tMax <= 1).
 * Writes `out` (t, point S + t D, u v = barycentric weights of b and c, unit normal toward the
 * start, front flag) and returns out.hit. With `cullBack` only front faces (det > 0) can hit.
 *
 * A thin wrapper over intersectPreparedAt, kept small on purpose: V8 inlines it into the caller, so
 * the nine doubles go straight into a typed array instead of being boxed as call arguments (the
 * kernel itself is too large to inline, and every double passed to a call that is not inlined is a
 * heap allocation).
 */
export function intersectPrepared(
  out: SegmentHit,
  seg: PreparedSegment,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
  cullBack: boolean,
  tMax: number,
): boolean {
  const v = scratchTriangle;
  v[0] = ax; v[1] = ay; v[2] = az;
  v[3] = bx; v[4] = by; v[5] = bz;
  v[6] = cx; v[7] = cy; v[8] = cz;
  return intersectPreparedAt(out, seg, v, 0, cullBack, tMax);
}

/**
 * intersectPrepared for a triangle stored as nine numbers (a, b, c) at `offset` in a flat array, the
 * allocation-free form for loops over meshes. Pass tMax = 1 (a small integer) where possible: a
 * fractional tMax is one boxed number per call unless the call is inlined.
 */
export function intersectPreparedAt(
  out: SegmentHit,
  seg: PreparedSegment,
  triangles: Float64Array | Float32Array,
  offset: number,
  cullBack: boolean,
  tMax: number,
): boolean {
  out.hit = false;
  if (seg.ok !== 1) return false;
  const ax = triangles[offset], ay = triangles[offset + 1], az = triangles[offset + 2];
  const bx = triangles[offset + 3], by = triangles[offset + 4], bz = triangles[offset + 5];
  const cx = triangles[offset + 6], cy = triangles[offset + 7], cz = triangles[offset + 8];
  const Sx = seg.Sx;
  const Sy = seg.Sy;
  const Sz = seg.Sz;

  // The vertices' coordinates along kx, ky, kz: one branch per test instead of one per coordinate.
  let pax: number, pay: number, paz: number;
  let pbx: number, pby: number, pbz: number;
  let pcx: number, pcy: number, pcz: number;
  switch (seg.perm) {
    case 0: // kz = x, kx = y, ky = z
      pax = ay; pay = az; paz = ax; pbx = by; pby = bz; pbz = bx; pcx = cy; pcy = cz; pcz = cx;
      break;
    case 1: // kz = x, kx = z, ky = y
      pax = az; pay = ay; paz = ax; pbx = bz; pby = by; pbz = bx; pcx = cz; pcy = cy; pcz = cx;
      break;
    case 2: // kz = y, kx = z, ky = x
      pax = az; pay = ax; paz = ay; pbx = bz; pby = bx; pbz = by; pcx = cz; pcy = cx; pcz = cy;
      break;
    case 3: // kz = y, kx = x, ky = z
      pax = ax; pay = az; paz = ay; pbx = bx; pby = bz; pbz = by; pcx = cx; pcy = cz; pcz = cy;
      break;
    case 4: // kz = z, kx = x, ky = y
      pax = ax; pay = ay; paz = az; pbx = bx; pby = by; pbz = bz; pcx = cx; pcy = cy; pcz = cz;
      break;
    default: // 5: kz = z, kx = y, ky = x
      pax = ay; pay = ax; paz = az; pbx = by; pby = bx; pbz = bz; pcx = cy; pcy = cx; pcz = cz;
      break;
  }

  // Vertices relative to the start, in the permuted frame.
  const akz = paz - seg.skz;
  const bkz = pbz - seg.skz;
  const ckz = pcz - seg.skz;
  // Sheared 2D coordinates: the segment now runs along +z through the origin.
  const Ax = pax - seg.skx - Sx * akz;
  const Ay = pay - seg.sky - Sy * akz;
  const Bx = pbx - seg.skx - Sx * bkz;
  const By = pby - seg.sky - Sy * bkz;
  const Cx = pcx - seg.skx - Sx * ckz;
  const Cy = pcy - seg.sky - Sy * ckz;

  // Scaled barycentric coordinates (2D edge functions): U weights a, V weights b, W weights c.
  const U = Cx * By - Cy * Bx;
  const V = Ax * Cy - Ay * Cx;
  const W = Bx * Ay - By * Ax;

  if (cullBack) {
    // Front faces have det > 0, so every edge function must be >= 0 (zero = on an edge: inside).
    if (U < 0 || V < 0 || W < 0) return false;
  } else if ((U < 0 || V < 0 || W < 0) && (U > 0 || V > 0 || W > 0)) {
    return false;
  }
  const det = U + V + W;
  // Scaled hit distance; compared against det * [0, tMax] without dividing until the hit is certain.
  const T = U * (Sz * akz) + V * (Sz * bkz) + W * (Sz * ckz);
  if (det > 0) {
    if (!(T >= 0 && T <= tMax * det)) return false;
  } else if (det < 0 && !cullBack) {
    if (!(T <= 0 && T >= tMax * det)) return false;
  } else {
    // det == 0 (parallel or degenerate) or NaN from non-finite input.
    return false;
  }

  const rcp = 1 / det;
  const t = T * rcp;
  // Only an infinite triangle coordinate gets here with t = NaN (Infinity / Infinity).
  if (!(t >= 0)) return false;
  out.t = t;
  out.u = V * rcp;
  out.v = W * rcp;
  out.x = seg.sx + t * seg.dx;
  out.y = seg.sy + t * seg.dy;
  out.z = seg.sz + t * seg.dz;
  // Geometric normal (b - a) x (c - a), flipped toward the start for back faces.
  const e1x = bx - ax, e1y = by - ay, e1z = bz - az;
  const e2x = cx - ax, e2y = cy - ay, e2z = cz - az;
  let nx = e1y * e2z - e1z * e2y;
  let ny = e1z * e2x - e1x * e2z;
  let nz = e1x * e2y - e1y * e2x;
  const front = det > 0;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  // len > 0 here (det != 0 implies a non-degenerate projection); guard anyway against underflow.
  const s = len > 0 ? (front ? 1 / len : -1 / len) : 0;
  nx *= s; ny *= s; nz *= s;
  out.nx = nx; out.ny = ny; out.nz = nz;
  out.front = front;
  out.hit = true;
  return true;
}

/** Scratch for intersectWatertight: reused on every call, never escapes. */
const scratchSegment: PreparedSegment = createPreparedSegment();
/** Scratch: intersectWatertight's fifteen numbers, segment then triangle (stored, not boxed). */
const oneShot = new Float64Array(15);

/**
 * One-shot convenience: prepare + intersect, tMax = 1. For a segment tested against many triangles,
 * prepare it once and call intersectPreparedAt instead: that path never allocates, while this one is
 * allocation-free only where V8 inlines it into the caller (otherwise its fifteen doubles are boxed
 * as arguments; `npm run bench:kernels` shows which).
 */
export function intersectWatertight(
  out: SegmentHit,
  sx: number, sy: number, sz: number,
  ex: number, ey: number, ez: number,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
  cullBack = false,
): boolean {
  const q = oneShot;
  q[0] = sx; q[1] = sy; q[2] = sz;
  q[3] = ex; q[4] = ey; q[5] = ez;
  q[6] = ax; q[7] = ay; q[8] = az;
  q[9] = bx; q[10] = by; q[11] = bz;
  q[12] = cx; q[13] = cy; q[14] = cz;
  return intersectOneShot(out, cullBack);
}

function intersectOneShot(out: SegmentHit, cullBack: boolean): boolean {
  const q = oneShot;
  prepareSegment(scratchSegment, q[0], q[1], q[2], q[3], q[4], q[5]);
  return intersectPreparedAt(out, scratchSegment, q, 6, cullBack, 1);
}
