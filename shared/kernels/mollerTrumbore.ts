/**
 * Möller–Trumbore segment-vs-triangle test (Möller and Trumbore, "Fast, Minimum Storage
 * Ray/Triangle Intersection", JGT 1997), as a finite segment: D = E - S and t in [0, 1].
 * Kept for comparison and speed measurements; verdicts use the watertight kernel, because this one
 * can let a segment aimed exactly at a shared edge slip between the two triangles (the closed-mesh
 * leak test counts how often).
 *
 * Epsilon policy: the classic code rejects |det| < 1e-5, an absolute threshold in the units of
 * |D| * |AB| * |AC|. That rejects every triangle smaller than a few millimetres and accepts nearly
 * parallel segments on large ones, so its meaning changes with the scale of the level. Here the test
 * is relative: det = D . (AC x AB) is compared with |D| |AB| |AC|, i.e. the sine-cosine product of the
 * angles involved, which is scale-free. The threshold MT_RELATIVE_EPSILON (2^-40, about 1e-12) only
 * rejects segments within about 1e-12 radians of the plane or slivers of that thinness, where the
 * division by det would give meaningless t, u, v anyway. Squares are compared to avoid a sqrt.
 *
 * Conventions (see ./hit): inclusive t and edges; front face = counter-clockwise from the start,
 * which here is det > 0, so `cullBack` keeps det > 0 only.
 */
import type { SegmentHit } from './hit';

/** Relative determinant threshold (see the module comment). */
export const MT_RELATIVE_EPSILON = 1 / 1099511627776; // 2^-40
const EPS2 = MT_RELATIVE_EPSILON * MT_RELATIVE_EPSILON;

/**
 * Scratch: the public function is a small wrapper that V8 inlines into its caller, storing the
 * number arguments here; the core (too large to inline) then takes no doubles, because every double
 * passed to a call that is not inlined is boxed on the heap.
 */
const ARGS = new Float64Array(15);

/**
 * Möller–Trumbore test of the segment S -> E against triangle a, b, c. Writes `out` and returns
 * out.hit. With `cullBack` only front faces can hit.
 */
export function intersectMollerTrumbore(
  out: SegmentHit,
  sx: number, sy: number, sz: number,
  ex: number, ey: number, ez: number,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
  cullBack = false,
): boolean {
  const q = ARGS;
  q[0] = sx; q[1] = sy; q[2] = sz;
  q[3] = ex; q[4] = ey; q[5] = ez;
  q[6] = ax; q[7] = ay; q[8] = az;
  q[9] = bx; q[10] = by; q[11] = bz;
  q[12] = cx; q[13] = cy; q[14] = cz;
  return intersectMollerTrumboreCore(out, cullBack);
}

function intersectMollerTrumboreCore(out: SegmentHit, cullBack: boolean): boolean {
  const sx = ARGS[0], sy = ARGS[1], sz = ARGS[2];
  const ex = ARGS[3], ey = ARGS[4], ez = ARGS[5];
  const ax = ARGS[6], ay = ARGS[7], az = ARGS[8];
  const bx = ARGS[9], by = ARGS[10], bz = ARGS[11];
  const cx = ARGS[12], cy = ARGS[13], cz = ARGS[14];
  out.hit = false;
  const dx = ex - sx, dy = ey - sy, dz = ez - sz;
  const e1x = bx - ax, e1y = by - ay, e1z = bz - az;
  const e2x = cx - ax, e2y = cy - ay, e2z = cz - az;
  // p = D x e2; det = e1 . p = -D . (e1 x e2): positive when the normal faces the start.
  const px = dy * e2z - dz * e2y;
  const py = dz * e2x - dx * e2z;
  const pz = dx * e2y - dy * e2x;
  const det = e1x * px + e1y * py + e1z * pz;
  const scale2 = (dx * dx + dy * dy + dz * dz) * (e1x * e1x + e1y * e1y + e1z * e1z) *
    (e2x * e2x + e2y * e2y + e2z * e2z);
  // Written so NaN (non-finite input) fails the test and misses.
  if (!(det * det > EPS2 * scale2)) return false;
  if (cullBack && det < 0) return false;
  const tvx = sx - ax, tvy = sy - ay, tvz = sz - az;
  const qx = tvy * e1z - tvz * e1y;
  const qy = tvz * e1x - tvx * e1z;
  const qz = tvx * e1y - tvy * e1x;
  let u = tvx * px + tvy * py + tvz * pz;
  let v = dx * qx + dy * qy + dz * qz;
  let t = e2x * qx + e2y * qy + e2z * qz;
  if (det > 0) {
    // Scaled comparisons: no division until the hit is certain.
    if (!(u >= 0 && v >= 0 && u + v <= det && t >= 0 && t <= det)) return false;
  } else {
    if (!(u <= 0 && v <= 0 && u + v >= det && t <= 0 && t >= det)) return false;
  }
  const rcp = 1 / det;
  u *= rcp;
  v *= rcp;
  t *= rcp;
  out.t = t;
  out.u = u;
  out.v = v;
  out.x = sx + t * dx;
  out.y = sy + t * dy;
  out.z = sz + t * dz;
  const nx = e1y * e2z - e1z * e2y;
  const ny = e1z * e2x - e1x * e2z;
  const nz = e1x * e2y - e1y * e2x;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const front = det > 0;
  const s = len > 0 ? (front ? 1 / len : -1 / len) : 0;
  out.nx = nx * s;
  out.ny = ny * s;
  out.nz = nz * s;
  out.front = front;
  out.hit = true;
  return true;
}
