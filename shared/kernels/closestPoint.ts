/**
 * Closest points between a point or a segment and a triangle: the distance kernels of volume
 * queries (a sphere is a point grown by its radius, a capsule a segment grown by its radius).
 *
 * closestPointTriangle is the region walk of Ericson, Real-Time Collision Detection 5.1.5 (vertex,
 * edge or face region from six dot products, no normalisation). closestSegmentTriangle is exact:
 * zero when the segment crosses the triangle, otherwise the least of the two end points against the
 * triangle and the segment against each edge (Ericson 5.1.9), because the closest pair of a
 * segment and a triangle that do not meet has an end of the segment or a point of an edge in it.
 *
 * The offset forms (…At) read the triangle from a flat array (9 numbers from offset o) and the
 * query from another (point: 3 numbers, segment: 6 numbers from offset qo), so a call boxes no
 * doubles whether or not V8 inlines it; the plain forms take numbers. Results go into a
 * caller-owned ClosestPair (nothing is returned: a double returned by a call V8 does not inline is
 * boxed). Only + - * / and comparisons: bit-identical in every engine.
 */
import { SweepFeature } from './sweptSphere';

/** The record the closest-point kernels write into. The caller owns it and reuses it. */
export interface ClosestPair {
  /** Squared distance between the two closest points. */
  d2: number;
  /** Closest point of the query (the point itself, or the point of the segment). */
  px: number;
  py: number;
  pz: number;
  /** Fraction along the segment of (px, py, pz), 0..1; 0 for a point query. */
  s: number;
  /** Closest point of the triangle. */
  qx: number;
  qy: number;
  qz: number;
  /** Where on the triangle (qx, qy, qz) lies: FACE, EDGE i (vertex i to i + 1) or VERTEX i, as SweepHit. */
  feature: SweepFeature;
  featureIndex: number;
}

/** A fresh record; its fractional fields start as (NaN) doubles so they keep one representation. */
export function createClosestPair(): ClosestPair {
  const nan = Number.NaN;
  return { d2: nan, px: nan, py: nan, pz: nan, s: nan, qx: nan, qy: nan, qz: nan, feature: SweepFeature.FACE, featureIndex: 0 };
}

// Query scratch of the plain forms, and the segment and edge scratch of the segment kernel
// (typed and module-level: a double kept in a module `let` would be boxed on every store).
const QUERY = new Float64Array(6);
const TRI = new Float64Array(9);
/** closestSegmentSegment's input (P0, D1, Q0, D2) and result (s, t, squared distance). */
const SEG = new Float64Array(12);
const SS = new Float64Array(3);

/**
 * Closest point of triangle tris[o .. o + 8] (a, b, c) to the point pts[qo .. qo + 2]. Writes out
 * (d2, s = 0, the point as px py pz, the triangle's point and feature). A degenerate triangle is
 * handled as its edges.
 */
export function closestPointTriangleAt(out: ClosestPair, tris: ArrayLike<number>, o: number, pts: ArrayLike<number>, qo: number): void {
  const px = pts[qo], py = pts[qo + 1], pz = pts[qo + 2];
  out.px = px; out.py = py; out.pz = pz; out.s = 0;
  const ax = tris[o], ay = tris[o + 1], az = tris[o + 2];
  const abx = tris[o + 3] - ax, aby = tris[o + 4] - ay, abz = tris[o + 5] - az;
  const acx = tris[o + 6] - ax, acy = tris[o + 7] - ay, acz = tris[o + 8] - az;
  const apx = px - ax, apy = py - ay, apz = pz - az;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  // Region by region: the weights of b (v) and c (w) of the closest point a + v ab + w ac.
  let v = 0, w = 0, feature: SweepFeature = SweepFeature.FACE, index = 0;
  const bpx = apx - abx, bpy = apy - aby, bpz = apz - abz;
  const d3 = abx * bpx + aby * bpy + abz * bpz;
  const d4 = acx * bpx + acy * bpy + acz * bpz;
  const cpx = apx - acx, cpy = apy - acy, cpz = apz - acz;
  const d5 = abx * cpx + aby * cpy + abz * cpz;
  const d6 = acx * cpx + acy * cpy + acz * cpz;
  const vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  const e43 = d4 - d3, e56 = d5 - d6;
  if (d1 <= 0 && d2 <= 0) {
    feature = SweepFeature.VERTEX;
  } else if (d3 >= 0 && d4 <= d3) {
    v = 1; feature = SweepFeature.VERTEX; index = 1;
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
    v = d1 / (d1 - d3); feature = SweepFeature.EDGE;
  } else if (d6 >= 0 && d5 <= d6) {
    w = 1; feature = SweepFeature.VERTEX; index = 2;
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
    w = d2 / (d2 - d6); feature = SweepFeature.EDGE; index = 2;
  } else if (va <= 0 && e43 >= 0 && e56 >= 0 && e43 + e56 > 0) {
    w = e43 / (e43 + e56); v = 1 - w; feature = SweepFeature.EDGE; index = 1;
  } else if (va + vb + vc > 0) {
    const inv = 1 / (va + vb + vc);
    v = vb * inv; w = vc * inv;
  } else {
    nearestEdge(out, tris, o);
    return;
  }
  const qx = index === 1 && feature !== SweepFeature.FACE ? ax + abx + w * (acx - abx) : ax + abx * v + acx * w;
  const qy = index === 1 && feature !== SweepFeature.FACE ? ay + aby + w * (acy - aby) : ay + aby * v + acy * w;
  const qz = index === 1 && feature !== SweepFeature.FACE ? az + abz + w * (acz - abz) : az + abz * v + acz * w;
  out.qx = qx; out.qy = qy; out.qz = qz;
  out.feature = feature;
  out.featureIndex = index;
  const dx = px - qx, dy = py - qy, dz = pz - qz;
  out.d2 = dx * dx + dy * dy + dz * dz;
}

/** Degenerate triangle (zero area): out's point against the nearest of the three edges. */
function nearestEdge(out: ClosestPair, tris: ArrayLike<number>, o: number): void {
  const px = out.px, py = out.py, pz = out.pz;
  out.d2 = Infinity;
  for (let i = 0; i < 3; i++) {
    const j = i === 2 ? 0 : i + 1;
    const Px = tris[o + 3 * i], Py = tris[o + 3 * i + 1], Pz = tris[o + 3 * i + 2];
    const ex = tris[o + 3 * j] - Px, ey = tris[o + 3 * j + 1] - Py, ez = tris[o + 3 * j + 2] - Pz;
    const ee = ex * ex + ey * ey + ez * ez;
    let s = ee > 0 ? ((px - Px) * ex + (py - Py) * ey + (pz - Pz) * ez) / ee : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    const qx = Px + s * ex, qy = Py + s * ey, qz = Pz + s * ez;
    const dd = (px - qx) * (px - qx) + (py - qy) * (py - qy) + (pz - qz) * (pz - qz);
    if (!(dd < out.d2)) continue;
    out.d2 = dd;
    out.qx = qx; out.qy = qy; out.qz = qz;
    out.feature = s === 0 || s === 1 ? SweepFeature.VERTEX : SweepFeature.EDGE;
    out.featureIndex = s === 1 ? j : i;
  }
}

/** closestPointTriangleAt with the point and the triangle as numbers. */
export function closestPointTriangle(
  out: ClosestPair, px: number, py: number, pz: number,
  ax: number, ay: number, az: number, bx: number, by: number, bz: number, cx: number, cy: number, cz: number,
): void {
  QUERY[0] = px; QUERY[1] = py; QUERY[2] = pz;
  TRI[0] = ax; TRI[1] = ay; TRI[2] = az; TRI[3] = bx; TRI[4] = by; TRI[5] = bz; TRI[6] = cx; TRI[7] = cy; TRI[8] = cz;
  closestPointTriangleAt(out, TRI, 0, QUERY, 0);
}

/**
 * Closest points of the segments P0 + s D1 and Q0 + t D2, s, t in [0, 1] (Ericson 5.1.9, exact zero
 * tests only), read from SEG (P0, D1, Q0, D2): writes s, t and the squared distance into SS.
 */
function closestSegmentSegment(): void {
  const d1x = SEG[3], d1y = SEG[4], d1z = SEG[5], d2x = SEG[9], d2y = SEG[10], d2z = SEG[11];
  const rx = SEG[0] - SEG[6], ry = SEG[1] - SEG[7], rz = SEG[2] - SEG[8];
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  let s = 0, t = 0;
  if (!(a > 0)) {
    t = e > 0 ? clamp01(f / e) : 0;
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (!(e > 0)) {
      s = clamp01(-c / a);
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = a * e - b * b;
      s = denom > 0 ? clamp01((b * f - c * e) / denom) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
      }
    }
  }
  const dx = rx + s * d1x - t * d2x, dy = ry + s * d1y - t * d2y, dz = rz + s * d1z - t * d2z;
  SS[0] = s; SS[1] = t; SS[2] = dx * dx + dy * dy + dz * dz;
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/**
 * Closest points of the segment seg[qo .. qo + 5] (P0 then P1) and triangle tris[o .. o + 8].
 * Writes out (d2; s: the fraction along the segment of its closest point px py pz; the triangle's
 * point and feature); d2 = 0 when the segment crosses the triangle (feature FACE, the crossing point
 * in both). A zero-length segment is the point query.
 */
export function closestSegmentTriangleAt(out: ClosestPair, tris: ArrayLike<number>, o: number, seg: ArrayLike<number>, qo: number): void {
  const p0x = seg[qo], p0y = seg[qo + 1], p0z = seg[qo + 2];
  const dx = seg[qo + 3] - p0x, dy = seg[qo + 4] - p0y, dz = seg[qo + 5] - p0z;
  if (!(dx * dx + dy * dy + dz * dz > 0)) {
    closestPointTriangleAt(out, tris, o, seg, qo);
    return;
  }
  const ax = tris[o], ay = tris[o + 1], az = tris[o + 2];
  const e1x = tris[o + 3] - ax, e1y = tris[o + 4] - ay, e1z = tris[o + 5] - az;
  const e2x = tris[o + 6] - ax, e2y = tris[o + 7] - ay, e2z = tris[o + 8] - az;
  // Crossing: the segment meets the triangle's plane inside the triangle.
  const nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
  const da = nx * (p0x - ax) + ny * (p0y - ay) + nz * (p0z - az);
  const dn = nx * dx + ny * dy + nz * dz;
  const db = da + dn;
  if (dn !== 0 && (da <= 0 ? db >= 0 : db <= 0)) {
    const s = -da / dn;
    const xx = p0x + s * dx - ax, xy = p0y + s * dy - ay, xz = p0z + s * dz - az;
    // Barycentric weights times |n|^2: of c, (e1 x X) . n; of b, (X x e2) . n.
    const w1 = nx * (e1y * xz - e1z * xy) + ny * (e1z * xx - e1x * xz) + nz * (e1x * xy - e1y * xx);
    const w2 = nx * (xy * e2z - xz * e2y) + ny * (xz * e2x - xx * e2z) + nz * (xx * e2y - xy * e2x);
    if (w1 >= 0 && w2 >= 0 && w1 + w2 <= nx * nx + ny * ny + nz * nz) {
      out.px = out.qx = ax + xx; out.py = out.qy = ay + xy; out.pz = out.qz = az + xz;
      out.s = s < 0 ? 0 : s > 1 ? 1 : s;
      out.d2 = 0;
      out.feature = SweepFeature.FACE;
      out.featureIndex = 0;
      return;
    }
  }
  // Otherwise an end of the segment, or the segment against an edge.
  closestPointTriangleAt(out, tris, o, seg, qo + 3);
  let best = out.d2;
  let bs = 1, bqx = out.qx, bqy = out.qy, bqz = out.qz;
  let bf: SweepFeature = out.feature, bi = out.featureIndex;
  closestPointTriangleAt(out, tris, o, seg, qo);
  if (out.d2 <= best) {
    best = out.d2; bs = 0; bqx = out.qx; bqy = out.qy; bqz = out.qz; bf = out.feature; bi = out.featureIndex;
  }
  SEG[0] = p0x; SEG[1] = p0y; SEG[2] = p0z; SEG[3] = dx; SEG[4] = dy; SEG[5] = dz;
  for (let i = 0; i < 3; i++) {
    const j = i === 2 ? 0 : i + 1;
    const vx = tris[o + 3 * i], vy = tris[o + 3 * i + 1], vz = tris[o + 3 * i + 2];
    const ex = tris[o + 3 * j] - vx, ey = tris[o + 3 * j + 1] - vy, ez = tris[o + 3 * j + 2] - vz;
    SEG[6] = vx; SEG[7] = vy; SEG[8] = vz; SEG[9] = ex; SEG[10] = ey; SEG[11] = ez;
    closestSegmentSegment();
    if (!(SS[2] < best)) continue;
    best = SS[2];
    bs = SS[0];
    const t = SS[1];
    bqx = vx + t * ex; bqy = vy + t * ey; bqz = vz + t * ez;
    bf = t === 0 || t === 1 ? SweepFeature.VERTEX : SweepFeature.EDGE;
    bi = t === 1 ? j : i;
  }
  out.s = bs;
  out.px = p0x + bs * dx; out.py = p0y + bs * dy; out.pz = p0z + bs * dz;
  out.qx = bqx; out.qy = bqy; out.qz = bqz;
  out.feature = bf;
  out.featureIndex = bi;
  out.d2 = best;
}

/** closestSegmentTriangleAt with the segment and the triangle as numbers. */
export function closestSegmentTriangle(
  out: ClosestPair, p0x: number, p0y: number, p0z: number, p1x: number, p1y: number, p1z: number,
  ax: number, ay: number, az: number, bx: number, by: number, bz: number, cx: number, cy: number, cz: number,
): void {
  QUERY[0] = p0x; QUERY[1] = p0y; QUERY[2] = p0z; QUERY[3] = p1x; QUERY[4] = p1y; QUERY[5] = p1z;
  TRI[0] = ax; TRI[1] = ay; TRI[2] = az; TRI[3] = bx; TRI[4] = by; TRI[5] = bz; TRI[6] = cx; TRI[7] = cy; TRI[8] = cz;
  closestSegmentTriangleAt(out, TRI, 0, QUERY, 0);
}
