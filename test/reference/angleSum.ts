/**
 * Reference only, never for verdicts: plane plus angle sum (the DirectX "ray passes through a
 * triangle" tutorial). After finding where the segment crosses the plane it sums the angles the three
 * vertices subtend at that point; inside, they add up to 2 pi.
 *
 * Why it is unfit for verdicts, and therefore lives under test/ and not shared/:
 * - it calls Math.acos, whose last bits are not specified by ECMAScript and do differ between
 *   JavaScript engines, so a client and the server could disagree on the same shot;
 * - near an edge the sum approaches 2 pi from both sides (outside points just off an edge sum to
 *   2 pi minus something tiny), so the tolerance decides edge hits, and the derivative of acos is
 *   infinite at +-1, so rounding there is amplified;
 * - a crossing point on a vertex gives a zero-length vector and NaN, handled here as a hit.
 * It is used in the property tests as one more independent opinion away from edges.
 */
import type { SegmentHit } from '../../shared/kernels/hit';

/** Tolerance on |angle sum - 2 pi|. */
export const ANGLE_SUM_TOLERANCE = 1e-9;

function angle(ux: number, uy: number, uz: number, vx: number, vy: number, vz: number): number {
  const lu = Math.sqrt(ux * ux + uy * uy + uz * uz);
  const lv = Math.sqrt(vx * vx + vy * vy + vz * vz);
  const c = (ux * vx + uy * vy + uz * vz) / (lu * lv);
  return Math.acos(Math.max(-1, Math.min(1, c)));
}

/** Plane + angle-sum test of the segment S -> E against a, b, c; writes t, point and hit only. */
export function intersectAngleSum(
  out: SegmentHit,
  sx: number, sy: number, sz: number,
  ex: number, ey: number, ez: number,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
): boolean {
  out.hit = false;
  const q1x = bx - ax, q1y = by - ay, q1z = bz - az;
  const q2x = cx - ax, q2y = cy - ay, q2z = cz - az;
  const nx = q1y * q2z - q1z * q2y;
  const ny = q1z * q2x - q1x * q2z;
  const nz = q1x * q2y - q1y * q2x;
  const s1 = nx * (sx - ax) + ny * (sy - ay) + nz * (sz - az);
  const s2 = nx * (ex - ax) + ny * (ey - ay) + nz * (ez - az);
  if (!(((s1 >= 0 && s2 <= 0) || (s1 <= 0 && s2 >= 0)) && s1 !== s2)) return false;
  const t = s1 / (s1 - s2);
  const px = sx + t * (ex - sx), py = sy + t * (ey - sy), pz = sz + t * (ez - sz);
  if (!Number.isFinite(px + py + pz)) return false;
  const iax = ax - px, iay = ay - py, iaz = az - pz;
  const ibx = bx - px, iby = by - py, ibz = bz - pz;
  const icx = cx - px, icy = cy - py, icz = cz - pz;
  const sum = angle(iax, iay, iaz, ibx, iby, ibz) + angle(ibx, iby, ibz, icx, icy, icz) +
    angle(icx, icy, icz, iax, iay, iaz);
  const onVertex = Number.isNaN(sum);
  if (!onVertex && !(Math.abs(sum - 2 * Math.PI) <= ANGLE_SUM_TOLERANCE)) return false;
  out.t = t;
  out.x = px;
  out.y = py;
  out.z = pz;
  out.front = s1 > s2;
  out.hit = true;
  return true;
}
