/**
 * An oriented box against one hitbox hull of a rig (./hulls), in the hull's bone frame: the
 * separating-axis test. Candidate axes: the hull's face planes (the hull spans planeMin .. d along
 * each), the box's three axes, and the cross product of a hull edge with a box axis only where that
 * pair makes a face of the Minkowski difference, i.e. the edge's two faces lie on both sides of the
 * plane normal to the box axis (their normals' dots with the axis differ in sign): the other edge
 * pairs cannot separate two convex polytopes. An edge along the axis gives no axis (the face planes
 * cover it). No axis separates: overlap, touching included. A vertex of the hull inside the box
 * answers first (an overlap without the axes).
 *
 * Reads the box from hulls.q (Q_A centre, Q_EXTENTS half extents, Q_AXES axes); nothing boxed or
 * allocated per call. Deterministic: + - * /, Math.abs, comparisons.
 */
import { Q_A, Q_AXES, Q_EXTENTS, type RigHulls } from './hulls';

/** A separating-axis candidate: L (3), the box centre's projection, the box's radius along L. */
const AXIS = new Float64Array(5);

/**
 * Whether the box (centre q[Q_A..], half extents q[Q_EXTENTS..] >= 0, orthonormal axes at
 * q[Q_AXES..], bone frame) overlaps hull h, touching included. Writes nothing into hulls.res.
 */
export function boxOverlapsHull(hulls: RigHulls, h: number): boolean {
  const rig = hulls.rig, planes = rig.trianglePlanes, q = hulls.q, dots = hulls.boxDots, planeMin = hulls.planeMin;
  const i0 = rig.triStart[h], i1 = rig.triStart[h + 1];
  const cx = q[Q_A], cy = q[Q_A + 1], cz = q[Q_A + 2];
  const e0 = q[Q_EXTENTS], e1 = q[Q_EXTENTS + 1], e2 = q[Q_EXTENTS + 2];
  const ux = q[Q_AXES], uy = q[Q_AXES + 1], uz = q[Q_AXES + 2];
  const vx = q[Q_AXES + 3], vy = q[Q_AXES + 4], vz = q[Q_AXES + 5];
  const wx = q[Q_AXES + 6], wy = q[Q_AXES + 7], wz = q[Q_AXES + 8];
  // 0. Quick accept: a vertex of the hull inside the box.
  const verts = hulls.verts;
  for (let v = hulls.vertStart[h] * 3, v1 = hulls.vertStart[h + 1] * 3; v < v1; v += 3) {
    const px = verts[v] - cx, py = verts[v + 1] - cy, pz = verts[v + 2] - cz;
    if (Math.abs(px * ux + py * uy + pz * uz) <= e0 && Math.abs(px * vx + py * vy + pz * vz) <= e1 && Math.abs(px * wx + py * wy + pz * wz) <= e2) return true;
  }
  // 1. The hull's face planes (the hull spans planeMin .. d along each).
  for (let i = i0; i < i1; i++) {
    const nx = planes[i * 4], ny = planes[i * 4 + 1], nz = planes[i * 4 + 2];
    const du = nx * ux + ny * uy + nz * uz, dv = nx * vx + ny * vy + nz * vz, dw = nx * wx + ny * wy + nz * wz;
    const o = (i - i0) * 3;
    dots[o] = du; dots[o + 1] = dv; dots[o + 2] = dw;
    const rad = e0 * Math.abs(du) + e1 * Math.abs(dv) + e2 * Math.abs(dw);
    const c = nx * cx + ny * cy + nz * cz;
    if (c - rad > planes[i * 4 + 3] || c + rad < planeMin[i]) return false;
  }
  // 2. The box's axes, then 3. hull edge x box axis where the pair makes a Minkowski face.
  for (let k = 0; k < 3; k++) {
    const ax = k === 0 ? ux : k === 1 ? vx : wx, ay = k === 0 ? uy : k === 1 ? vy : wy, az = k === 0 ? uz : k === 1 ? vz : wz;
    const ek = k === 0 ? e0 : k === 1 ? e1 : e2;
    const axis = AXIS;
    axis[0] = ax; axis[1] = ay; axis[2] = az; axis[3] = ax * cx + ay * cy + az * cz; axis[4] = ek;
    if (separated(hulls, h)) return false;
  }
  const dirs = hulls.edgeDirs, faces = hulls.edgeFaces;
  for (let j = hulls.edgeStart[h], j1 = hulls.edgeStart[h + 1]; j < j1; j++) {
    const fa = (faces[2 * j] - i0) * 3, fb = (faces[2 * j + 1] - i0) * 3;
    const ex = dirs[3 * j], ey = dirs[3 * j + 1], ez = dirs[3 * j + 2];
    for (let k = 0; k < 3; k++) {
      if (dots[fa + k] * dots[fb + k] > 0) continue; // both faces on one side: no Minkowski face
      const ax = k === 0 ? ux : k === 1 ? vx : wx, ay = k === 0 ? uy : k === 1 ? vy : wy, az = k === 0 ? uz : k === 1 ? vz : wz;
      const lx = ey * az - ez * ay, ly = ez * ax - ex * az, lz = ex * ay - ey * ax;
      if (!(lx * lx + ly * ly + lz * lz > 1e-20)) continue; // edge along the axis: the face planes cover it
      const rad = e0 * Math.abs(lx * ux + ly * uy + lz * uz) + e1 * Math.abs(lx * vx + ly * vy + lz * vz) + e2 * Math.abs(lx * wx + ly * wy + lz * wz);
      const axis = AXIS;
      axis[0] = lx; axis[1] = ly; axis[2] = lz; axis[3] = lx * cx + ly * cy + lz * cz; axis[4] = rad;
      if (separated(hulls, h)) return false;
    }
  }
  return true;
}

/** Whether hull h's vertices projected on L and the interval [c - rad, c + rad] are disjoint (L, c, rad from AXIS). */
function separated(hulls: RigHulls, h: number): boolean {
  const verts = hulls.verts, axis = AXIS;
  const lx = axis[0], ly = axis[1], lz = axis[2], c = axis[3], rad = axis[4];
  let lo = Infinity, hi = -Infinity;
  for (let v = hulls.vertStart[h] * 3, v1 = hulls.vertStart[h + 1] * 3; v < v1; v += 3) {
    const d = lx * verts[v] + ly * verts[v + 1] + lz * verts[v + 2];
    if (d < lo) lo = d;
    if (d > hi) hi = d;
  }
  return c - rad > hi || c + rad < lo;
}
