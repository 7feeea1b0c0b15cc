/**
 * Plane plus barycentric weights (the "line through the camera" collision tutorial, after Lengyel,
 * Mathematics for 3D Game Programming, 5.2.1): find on which side of the triangle's plane each end
 * of the segment lies, take the crossing point, then solve the 2x2 normal equations
 *   [AB.AB AB.AC; AB.AC AC.AC] (w1, w2) = (AP.AB, AP.AC)
 * for the weights of b and c; the point is inside when w0 = 1 - w1 - w2, w1 and w2 are all >= 0.
 * Exact in real arithmetic, but the crossing point is rounded before the weights are computed, so
 * it is not watertight, and the normal equations square the triangle's condition number, so on
 * slivers thinner than about 1e-8 of their length it misses hits (the needle test shows it). Kept
 * for comparison; verdicts use the watertight kernel.
 *
 * Conventions (see ./hit): inclusive t and edges (an end exactly on the plane counts); a segment
 * lying in the plane or a degenerate triangle misses; front face = counter-clockwise from the
 * start = the start on the positive side of n = AB x AC.
 */
import type { SegmentHit } from './hit';

/**
 * Scratch: the public function is a small wrapper that V8 inlines into its caller, storing the
 * number arguments here; the core (too large to inline) then takes no doubles, because every double
 * passed to a call that is not inlined is boxed on the heap.
 */
const ARGS = new Float64Array(15);

/** Plane + barycentric test of the segment S -> E against a, b, c. Writes `out`, returns out.hit. */
export function intersectPlaneBarycentric(
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
  return intersectPlaneBarycentricCore(out, cullBack);
}

function intersectPlaneBarycentricCore(out: SegmentHit, cullBack: boolean): boolean {
  const sx = ARGS[0], sy = ARGS[1], sz = ARGS[2];
  const ex = ARGS[3], ey = ARGS[4], ez = ARGS[5];
  const ax = ARGS[6], ay = ARGS[7], az = ARGS[8];
  const bx = ARGS[9], by = ARGS[10], bz = ARGS[11];
  const cx = ARGS[12], cy = ARGS[13], cz = ARGS[14];
  out.hit = false;
  const q1x = bx - ax, q1y = by - ay, q1z = bz - az;
  const q2x = cx - ax, q2y = cy - ay, q2z = cz - az;
  const nx = q1y * q2z - q1z * q2y;
  const ny = q1z * q2x - q1x * q2z;
  const nz = q1x * q2y - q1y * q2x;
  // Signed heights of both ends over the plane, in units of |n| (no normalisation needed for signs).
  const s1 = nx * (sx - ax) + ny * (sy - ay) + nz * (sz - az);
  const s2 = nx * (ex - ax) + ny * (ey - ay) + nz * (ez - az);
  if (cullBack) {
    if (!(s1 >= 0 && s2 <= 0 && s1 > s2)) return false;
  } else if (!(((s1 >= 0 && s2 <= 0) || (s1 <= 0 && s2 >= 0)) && s1 !== s2)) {
    return false;
  }
  const t = s1 / (s1 - s2);
  const dx = ex - sx, dy = ey - sy, dz = ez - sz;
  const px = sx + t * dx, py = sy + t * dy, pz = sz + t * dz;
  const rx = px - ax, ry = py - ay, rz = pz - az;
  const d11 = q1x * q1x + q1y * q1y + q1z * q1z;
  const d12 = q1x * q2x + q1y * q2y + q1z * q2z;
  const d22 = q2x * q2x + q2y * q2y + q2z * q2z;
  const denom = d11 * d22 - d12 * d12;
  if (!(denom > 0)) return false;
  const b1 = rx * q1x + ry * q1y + rz * q1z;
  const b2 = rx * q2x + ry * q2y + rz * q2z;
  const inv = 1 / denom;
  const w1 = (d22 * b1 - d12 * b2) * inv;
  const w2 = (d11 * b2 - d12 * b1) * inv;
  if (!(w1 >= 0 && w2 >= 0 && w1 + w2 <= 1)) return false;
  out.t = t;
  out.u = w1;
  out.v = w2;
  out.x = px;
  out.y = py;
  out.z = pz;
  const front = s1 > s2;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const s = front ? 1 / len : -1 / len;
  out.nx = nx * s;
  out.ny = ny * s;
  out.nz = nz * s;
  out.front = front;
  out.hit = true;
  return true;
}
