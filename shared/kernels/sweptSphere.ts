/**
 * Swept sphere against a triangle: how far can a sphere of radius r travel along the segment
 * P0 -> P1 before it touches the triangle? Used for thick projectiles and movement checks.
 *
 * Face part (the CS121 "face collision notes" method): each triangle is precomputed in a standard
 * orientation: a at the origin, c on the +x axis, b in the x/+z half-plane, so the front face looks
 * up (+y). In that frame the sphere touches the front face when its centre's height is r: solve for
 * the fraction along the path, project the centre onto the plane and test it against the triangle.
 *
 * Completion for edges and vertices: the face test alone lets a sphere slip past an edge or corner
 * (its centre passes beside the triangle but closer than r to an edge). So each edge is also tested
 * as a capsule (distance from the moving centre to the edge's line = r: a quadratic, with the
 * contact accepted when it projects inside the edge) and each vertex as a sphere (|centre - v| = r).
 * The earliest contact wins; ties prefer FACE, then EDGE, then VERTEX, then the lower index.
 * Quadratic roots use the form t = c / (-b' + sqrt(b'^2 - a c)), which does not cancel for an
 * approaching sphere and stays finite when the motion is nearly parallel to an edge (a -> 0); the
 * discriminant comes from a cross product (Lagrange's identity) so a path passing 1e-9 beside an
 * edge is not rounded into a graze.
 *
 * Policies (each has a test):
 * - One-sided. A contact counts only when the sphere's centre is in the closed front half-space
 *   (height >= 0) at the moment of contact. A sphere coming from behind ignores the face (as the
 *   seed says) and, for consistency, also the edges and vertices: otherwise passing through the
 *   back of the face would be free but passing near its edge would not. In a closed mesh the
 *   neighbouring front faces block instead. A degenerate triangle (zero area) has no front, no face
 *   test, and its edges and vertices block from every side.
 * - Already overlapping at the start (distance from the centre to the triangle <= r, centre not
 *   behind the plane; overlap from behind is ignored like any contact from behind): reported as a
 *   hit at t = 0 with `embedded = true` when the path moves the centre toward the closest point (so
 *   the caller can stop or push out along the normal), and as no hit when it moves away or
 *   sideways: the distance to a convex set along a line is convex, so a sphere moving away can
 *   never touch this triangle later. A centre exactly on the triangle uses the
 *   face normal to decide (moving toward the back = deeper); on a degenerate triangle it is free.
 * - A zero-length path never hits (nothing moves deeper). A negative or non-finite radius, or
 *   non-finite ends, miss. r = 0 behaves as a one-sided segment test.
 *
 * Frame layout: see ./sweepFrame (SWEEP_FRAME_STRIDE doubles per triangle).
 * Only + - * / and Math.sqrt: bit-identical in every engine.
 */
import { SWEEP_FRAME_STRIDE } from './sweepFrame';

export { SWEEP_FRAME_STRIDE, SLIVER_SINE, writeSweepFrame, buildSweepFramesInto, buildSweepFrames } from './sweepFrame';

/** Which part of the triangle the sphere touched. */
export const SweepFeature = {
  FACE: 0,
  EDGE: 1,
  VERTEX: 2,
} as const;
export type SweepFeature = (typeof SweepFeature)[keyof typeof SweepFeature];

/** The record a sweep writes into. The caller owns it and reuses it. */
export interface SweepHit {
  /** Whether the last sweep touched the triangle. Every other field is meaningful only when true. */
  hit: boolean;
  /** Fraction of the path P0 -> P1 travelled before the contact, 0..1 inclusive. */
  t: number;
  /** FACE, EDGE or VERTEX. */
  feature: SweepFeature;
  /** Edge i runs from vertex i to vertex (i + 1) % 3 with vertices a = 0, b = 1, c = 2; FACE uses 0. */
  featureIndex: number;
  /** True when the sphere already overlapped the triangle at the start (then t = 0). */
  embedded: boolean;
  /** The contact point on the triangle. */
  x: number;
  y: number;
  z: number;
  /** Unit contact normal, from the contact point toward the sphere's centre (the push-out direction). */
  nx: number;
  ny: number;
  nz: number;
  /** The sphere's centre at contact, P0 + t (P1 - P0). */
  cx: number;
  cy: number;
  cz: number;
}

export function createSweepHit(): SweepHit {
  return {
    hit: false, t: 0, feature: SweepFeature.FACE, featureIndex: 0, embedded: false,
    x: 0, y: 0, z: 0, nx: 0, ny: 0, nz: 0, cx: 0, cy: 0, cz: 0,
  };
}

/** Inclusive point-in-triangle test in the standard orientation's x/z plane. */
function insideStandard(x: number, z: number, x1: number, z1: number, x2: number): boolean {
  return z >= 0 && x * z1 - x1 * z >= 0 && (x2 - x) * z1 + (x1 - x2) * z >= 0;
}

// Scratch, module level and typed so a sweep allocates nothing (a double stored in a module-level
// `let` is boxed on every store). Sweeps never nest, so one set suffices.
// PATH: the wrappers' arguments p0 xyz, p1 xyz, radius. BEST: the contact being reported, in the
// triangle's frame: 0 t, 1..3 contact point, 4..6 normal.
const PATH = new Float64Array(7);
const BEST = new Float64Array(7);
let bestFeature: SweepFeature = SweepFeature.FACE;
let bestIndex = 0;
/** The triangle's vertices in its frame, vertex i component k at 3 i + k (vertex 0 is the origin). */
const VERT = new Float64Array(9);
// The core calls no helper with doubles (V8 boxes the arguments and the result of a call it does
// not inline, and after a deoptimisation it may stop inlining them): entry times and the
// point-in-triangle test are written out where they are used.

/** Writes BEST (with bestFeature, bestIndex) into `out` in world space, the path from PATH. */
function finish(out: SweepHit, frames: Float64Array, o: number, embedded: boolean): boolean {
  const Xx = frames[o], Xy = frames[o + 1], Xz = frames[o + 2];
  const Yx = frames[o + 3], Yy = frames[o + 4], Yz = frames[o + 5];
  const Zx = frames[o + 6], Zy = frames[o + 7], Zz = frames[o + 8];
  const t = BEST[0];
  const qx = BEST[1], qy = BEST[2], qz = BEST[3];
  const nx = BEST[4], ny = BEST[5], nz = BEST[6];
  out.hit = true;
  out.t = t;
  out.feature = bestFeature;
  out.featureIndex = bestIndex;
  out.embedded = embedded;
  out.x = frames[o + 9] + Xx * qx + Yx * qy + Zx * qz;
  out.y = frames[o + 10] + Xy * qx + Yy * qy + Zy * qz;
  out.z = frames[o + 11] + Xz * qx + Yz * qy + Zz * qz;
  out.nx = Xx * nx + Yx * ny + Zx * nz;
  out.ny = Xy * nx + Yy * ny + Zy * nz;
  out.nz = Xz * nx + Yz * ny + Zz * nz;
  out.cx = PATH[0] + t * (PATH[3] - PATH[0]);
  out.cy = PATH[1] + t * (PATH[4] - PATH[1]);
  out.cz = PATH[2] + t * (PATH[5] - PATH[2]);
  return true;
}

/**
 * Sweeps a sphere of `radius` from P0 to P1 against triangle `tri` of a sweep-frame array (see
 * buildSweepFrames). Writes `out` and returns out.hit. Face, edges and vertices; see the module
 * comment for the one-sided and overlap policies. A small wrapper (V8 inlines it, so the seven
 * doubles are stored, not boxed as arguments) over sweepSphereTriangleCore.
 */
export function sweepSphereTriangle(
  out: SweepHit,
  frames: Float64Array,
  tri: number,
  p0x: number, p0y: number, p0z: number,
  p1x: number, p1y: number, p1z: number,
  radius: number,
): boolean {
  const q = PATH;
  q[0] = p0x; q[1] = p0y; q[2] = p0z;
  q[3] = p1x; q[4] = p1y; q[5] = p1z;
  q[6] = radius;
  return sweepSphereTriangleCore(out, frames, tri);
}

/**
 * sweepSphereTriangle with the path read from path[po .. po + 6] (P0, P1, radius), so the call boxes
 * no doubles whether or not V8 inlines it.
 */
export function sweepSphereTriangleAt(out: SweepHit, frames: Float64Array, tri: number, path: ArrayLike<number>, po: number): boolean {
  for (let k = 0; k < 7; k++) PATH[k] = path[po + k];
  return sweepSphereTriangleCore(out, frames, tri);
}

function sweepSphereTriangleCore(out: SweepHit, frames: Float64Array, tri: number): boolean {
  const p0x = PATH[0], p0y = PATH[1], p0z = PATH[2];
  const p1x = PATH[3], p1y = PATH[4], p1z = PATH[5];
  const radius = PATH[6];
  out.hit = false;
  const check = p0x + p0y + p0z + p1x + p1y + p1z + radius;
  if (!(radius >= 0) || !(check - check === 0)) return false;
  const o = tri * SWEEP_FRAME_STRIDE;
  const Xx = frames[o], Xy = frames[o + 1], Xz = frames[o + 2];
  const Yx = frames[o + 3], Yy = frames[o + 4], Yz = frames[o + 5];
  const Zx = frames[o + 6], Zy = frames[o + 7], Zz = frames[o + 8];
  const faceOk = frames[o + 18] === 1;
  // Path in the triangle's frame.
  const wx = p0x - frames[o + 9], wy = p0y - frames[o + 10], wz = p0z - frames[o + 11];
  const dwx = p1x - p0x, dwy = p1y - p0y, dwz = p1z - p0z;
  const x0 = Xx * wx + Xy * wy + Xz * wz;
  const y0 = Yx * wx + Yy * wy + Yz * wz;
  const z0 = Zx * wx + Zy * wy + Zz * wz;
  const dx = Xx * dwx + Xy * dwy + Xz * dwz;
  const dy = Yx * dwx + Yy * dwy + Yz * dwz;
  const dz = Zx * dwx + Zy * dwy + Zz * dwz;
  const r2 = radius * radius;
  const dd = dx * dx + dy * dy + dz * dz;
  if (!(dd > 0)) return false;
  const x1 = frames[o + 12], z1 = frames[o + 14], x2 = frames[o + 15];
  for (let k = 3; k < 9; k++) VERT[k] = frames[o + 9 + k];

  // Cheap rejections (most triangles of a scene): the path's box against the triangle's box grown
  // by r, and for a triangle with a front, a path that stays above height r or entirely behind.
  const y1 = y0 + dy;
  if (faceOk && ((y0 > radius && y1 > radius) || (y0 < 0 && y1 < 0))) return false;
  {
    const vy1 = frames[o + 13], vz1 = z1, vx2 = x2, vy2 = frames[o + 16], vz2 = frames[o + 17];
    const x1p = x0 + dx, z1p = z0 + dz;
    if ((x0 < x1p ? x0 : x1p) > (x1 > vx2 ? (x1 > 0 ? x1 : 0) : (vx2 > 0 ? vx2 : 0)) + radius) return false;
    if ((x0 > x1p ? x0 : x1p) < (x1 < vx2 ? (x1 < 0 ? x1 : 0) : (vx2 < 0 ? vx2 : 0)) - radius) return false;
    if ((y0 < y1 ? y0 : y1) > (vy1 > vy2 ? (vy1 > 0 ? vy1 : 0) : (vy2 > 0 ? vy2 : 0)) + radius) return false;
    if ((y0 > y1 ? y0 : y1) < (vy1 < vy2 ? (vy1 < 0 ? vy1 : 0) : (vy2 < 0 ? vy2 : 0)) - radius) return false;
    if ((z0 < z1p ? z0 : z1p) > (vz1 > vz2 ? (vz1 > 0 ? vz1 : 0) : (vz2 > 0 ? vz2 : 0)) + radius) return false;
    if ((z0 > z1p ? z0 : z1p) < (vz1 < vz2 ? (vz1 < 0 ? vz1 : 0) : (vz2 < 0 ? vz2 : 0)) - radius) return false;
  }

  // 1. Overlapping at the start? Closest point of the triangle to the centre.
  let qx = 0, qy = 0, qz = 0;
  let best2 = Infinity;
  bestFeature = SweepFeature.FACE;
  bestIndex = 0;
  if (faceOk && z0 >= 0 && x0 * z1 - x1 * z0 >= 0 && (x2 - x0) * z1 + (x1 - x2) * z0 >= 0) { // inside, as insideStandard
    qx = x0; qz = z0;
    best2 = y0 * y0;
  } else {
    for (let i = 0; i < 3; i++) {
      const j = i === 2 ? 0 : i + 1;
      const Px = VERT[3 * i], Py = VERT[3 * i + 1], Pz = VERT[3 * i + 2];
      const ex = VERT[3 * j] - Px;
      const ey = VERT[3 * j + 1] - Py;
      const ez = VERT[3 * j + 2] - Pz;
      const ee = ex * ex + ey * ey + ez * ez;
      let s = ee > 0 ? ((x0 - Px) * ex + (y0 - Py) * ey + (z0 - Pz) * ez) / ee : 0;
      s = s < 0 ? 0 : s > 1 ? 1 : s;
      const cx = Px + s * ex, cy = Py + s * ey, cz = Pz + s * ez;
      const d2 = (x0 - cx) * (x0 - cx) + (y0 - cy) * (y0 - cy) + (z0 - cz) * (z0 - cz);
      if (d2 < best2) {
        best2 = d2;
        qx = cx; qy = cy; qz = cz;
        if (s === 0) { bestFeature = SweepFeature.VERTEX; bestIndex = i; }
        else if (s === 1) { bestFeature = SweepFeature.VERTEX; bestIndex = j; }
        else { bestFeature = SweepFeature.EDGE; bestIndex = i; }
      }
    }
  }
  // Overlap with the centre behind the plane is a contact from behind: ignored, but later entries
  // into other features from the front half-space still count (checked below).
  if (best2 <= r2 && !(faceOk && y0 < 0)) {
    let ux = x0 - qx, uy = y0 - qy, uz = z0 - qz;
    const len2 = ux * ux + uy * uy + uz * uz;
    if (len2 > 0) {
      if (!(dx * ux + dy * uy + dz * uz < 0)) return false;
      const inv = 1 / Math.sqrt(len2);
      ux *= inv; uy *= inv; uz *= inv;
    } else {
      // Centre exactly on the triangle: deeper means toward the back of the face.
      if (!faceOk || !(dy < 0)) return false;
      ux = 0; uy = 1; uz = 0;
    }
    BEST[0] = 0;
    BEST[1] = qx; BEST[2] = qy; BEST[3] = qz;
    BEST[4] = ux; BEST[5] = uy; BEST[6] = uz;
    return finish(out, frames, o, true);
  }

  // 2. Face: the centre reaches height r above the front face inside the triangle.
  // The best contact so far, in locals (unboxed), copied to BEST once at the end.
  let bestT = Infinity;
  let bqx = 0, bqy = 0, bqz = 0, bnx = 0, bny = 0, bnz = 0;
  if (faceOk && y0 >= radius && dy < 0) {
    const beta = (radius - y0) / dy;
    if (beta <= 1) {
      const hx = x0 + beta * dx, hz = z0 + beta * dz;
      if (hz >= 0 && hx * z1 - x1 * hz >= 0 && (x2 - hx) * z1 + (x1 - x2) * hz >= 0) { // insideStandard
        bestT = beta;
        bestFeature = SweepFeature.FACE;
        bestIndex = 0;
        bqx = hx; bqy = 0; bqz = hz;
        bnx = 0; bny = 1; bnz = 0;
      }
    }
  }

  // 3. Edges as capsules: |perpendicular offset from the edge line| = r, contact inside the edge.
  for (let i = 0; i < 3; i++) {
    const j = i === 2 ? 0 : i + 1;
    const Px = VERT[3 * i], Py = VERT[3 * i + 1], Pz = VERT[3 * i + 2];
    const ex = VERT[3 * j] - Px;
    const ey = VERT[3 * j + 1] - Py;
    const ez = VERT[3 * j + 2] - Pz;
    const ee = ex * ex + ey * ey + ez * ez;
    if (!(ee > 0)) continue;
    // Perpendicular parts of the start offset and of the motion, formed as vectors: the scalar
    // form |e|^2 |m|^2 - (e.m)^2 cancels catastrophically when the centre passes close to the line.
    const inv = 1 / ee;
    const km = ((x0 - Px) * ex + (y0 - Py) * ey + (z0 - Pz) * ez) * inv;
    const kd = (dx * ex + dy * ey + dz * ez) * inv;
    const mpx = x0 - Px - km * ex, mpy = y0 - Py - km * ey, mpz = z0 - Pz - km * ez;
    const dpx = dx - kd * ex, dpy = dy - kd * ey, dpz = dz - kd * ez;
    const aa = dpx * dpx + dpy * dpy + dpz * dpz;
    const cpx = mpy * dpz - mpz * dpy, cpy = mpz * dpx - mpx * dpz, cpz = mpx * dpy - mpy * dpx;
    // Entry time: the first t in [0, 1] at which a mover that starts outside (c > 0) and approaches
    // (hb < 0) meets a t^2 + 2 hb t + c = 0, else -1, as t = c / (-hb + sqrt(disc)). disc = hb^2 - a c
    // is formed from a cross product (Lagrange's identity, r^2 |d|^2 - |m x d|^2), which keeps its
    // precision when the path passes close to the feature; hb^2 - a c would cancel to zero there and
    // report a contact that is not there.
    const hb = dpx * mpx + dpy * mpy + dpz * mpz, c = mpx * mpx + mpy * mpy + mpz * mpz - r2;
    const disc = r2 * aa - (cpx * cpx + cpy * cpy + cpz * cpz);
    const tq = c > 0 && hb < 0 && disc >= 0 && aa >= 0 ? c / (-hb + Math.sqrt(disc)) : -1;
    const t = tq <= 1 ? tq : -1;
    if (!(t >= 0 && t < bestT)) continue;
    const s = km + t * kd;
    if (!(s >= 0 && s <= 1)) continue;
    const hy = y0 + t * dy;
    if (faceOk && !(hy >= 0)) continue;
    const qxe = Px + s * ex, qye = Py + s * ey, qze = Pz + s * ez;
    let nx = x0 + t * dx - qxe, ny = hy - qye, nz = z0 + t * dz - qze;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 0)) continue; // r = 0 grazing exactly through the edge: the face/vertex tests decide
    nx /= nl; ny /= nl; nz /= nl;
    bestT = t;
    bestFeature = SweepFeature.EDGE;
    bestIndex = i;
    bqx = qxe; bqy = qye; bqz = qze;
    bnx = nx; bny = ny; bnz = nz;
  }

  // 4. Vertices as spheres: |centre - v| = r.
  for (let i = 0; i < 3; i++) {
    const Vx = VERT[3 * i], Vy = VERT[3 * i + 1], Vz = VERT[3 * i + 2];
    const mx = x0 - Vx, my = y0 - Vy, mz = z0 - Vz;
    const cpx = my * dz - mz * dy, cpy = mz * dx - mx * dz, cpz = mx * dy - my * dx;
    const hb = dx * mx + dy * my + dz * mz, c = mx * mx + my * my + mz * mz - r2;
    const disc = r2 * dd - (cpx * cpx + cpy * cpy + cpz * cpz);
    const tq = c > 0 && hb < 0 && disc >= 0 && dd >= 0 ? c / (-hb + Math.sqrt(disc)) : -1; // entry time, as for edges
    const t = tq <= 1 ? tq : -1;
    if (!(t >= 0 && t < bestT)) continue;
    const hy = y0 + t * dy;
    if (faceOk && !(hy >= 0)) continue;
    let nx = mx + t * dx, ny = hy - Vy, nz = mz + t * dz;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 0)) continue;
    nx /= nl; ny /= nl; nz /= nl;
    bestT = t;
    bestFeature = SweepFeature.VERTEX;
    bestIndex = i;
    bqx = Vx; bqy = Vy; bqz = Vz;
    bnx = nx; bny = ny; bnz = nz;
  }

  if (!(bestT <= 1)) return false;
  BEST[0] = bestT;
  BEST[1] = bqx; BEST[2] = bqy; BEST[3] = bqz;
  BEST[4] = bnx; BEST[5] = bny; BEST[6] = bnz;
  return finish(out, frames, o, false);
}

/**
 * The seed's face-only test, kept to show (in tests and benchmarks) what the edge and vertex
 * completion adds: a hit only when the sphere touches the front face's interior from a start at
 * height >= r. No overlap handling, no edges, no vertices.
 */
export function sweepSphereFace(
  out: SweepHit,
  frames: Float64Array,
  tri: number,
  p0x: number, p0y: number, p0z: number,
  p1x: number, p1y: number, p1z: number,
  radius: number,
): boolean {
  const q = PATH;
  q[0] = p0x; q[1] = p0y; q[2] = p0z;
  q[3] = p1x; q[4] = p1y; q[5] = p1z;
  q[6] = radius;
  return sweepSphereFaceCore(out, frames, tri);
}

function sweepSphereFaceCore(out: SweepHit, frames: Float64Array, tri: number): boolean {
  const p0x = PATH[0], p0y = PATH[1], p0z = PATH[2];
  const p1x = PATH[3], p1y = PATH[4], p1z = PATH[5];
  const radius = PATH[6];
  out.hit = false;
  const o = tri * SWEEP_FRAME_STRIDE;
  if (frames[o + 18] !== 1 || !(radius >= 0)) return false;
  const Yx = frames[o + 3], Yy = frames[o + 4], Yz = frames[o + 5];
  const wx = p0x - frames[o + 9], wy = p0y - frames[o + 10], wz = p0z - frames[o + 11];
  const dwx = p1x - p0x, dwy = p1y - p0y, dwz = p1z - p0z;
  const y0 = Yx * wx + Yy * wy + Yz * wz;
  const dy = Yx * dwx + Yy * dwy + Yz * dwz;
  if (!(y0 >= radius && dy < 0)) return false;
  const beta = (radius - y0) / dy;
  if (!(beta <= 1)) return false;
  const Xx = frames[o], Xy = frames[o + 1], Xz = frames[o + 2];
  const Zx = frames[o + 6], Zy = frames[o + 7], Zz = frames[o + 8];
  const hx = Xx * wx + Xy * wy + Xz * wz + beta * (Xx * dwx + Xy * dwy + Xz * dwz);
  const hz = Zx * wx + Zy * wy + Zz * wz + beta * (Zx * dwx + Zy * dwy + Zz * dwz);
  if (!insideStandard(hx, hz, frames[o + 12], frames[o + 14], frames[o + 15])) return false;
  bestFeature = SweepFeature.FACE;
  bestIndex = 0;
  BEST[0] = beta;
  BEST[1] = hx; BEST[2] = 0; BEST[3] = hz;
  BEST[4] = 0; BEST[5] = 1; BEST[6] = 0;
  return finish(out, frames, o, false);
}
