/**
 * Exact volume queries against one hitbox hull of a rig, in the hull's bone frame: the narrow phase
 * of the rewound volume queries (./rewindVolume). Every hitbox is a closed convex hull (triangles
 * with unit outward planes, rig.trianglePlanes); RigHulls adds, once per rig, the sweep frames of the
 * bone-local triangles, each hull's distinct vertices and its edges with their two faces.
 *
 * - pointDistance: signed distance of a point to the hull. Outside: the Euclidean distance to the
 *   nearest triangle (only triangles whose plane the point is in front of can hold the nearest
 *   point). Inside: max over the planes of n . p - d, i.e. minus the depth below the nearest face
 *   (for a convex hull the nearest boundary point from inside is the projection on the nearest plane).
 * - segmentDistance: the least signed distance of any point of a segment: the upper envelope of the
 *   planes' distances along the segment, max_i (a_i + b_i s), is minimised exactly by walking its
 *   lines (each step takes a line of larger slope); when that minimum is <= 0 the segment meets the
 *   hull and the value is minus the depth of its deepest point; otherwise the minimum is a lower
 *   bound and the triangles (point and edge kernels, ../kernels/closestPoint) give the distance.
 * - sweepSphere: first contact of a moving sphere: overlap at the start (pointDistance <= r) is a
 *   contact at t = 0; otherwise the swept-sphere kernel over the hull's triangles, after a clip of the
 *   path against the planes pushed out by r (a conservative bound of hull + sphere), on the
 *   triangles whose plane the centre is within 0 .. r in front of between the clip's entry and the
 *   best contact so far (the only ones that can report a contact then).
 * (The box against a hull, a separating-axis test, is ./hullBox, on the vertices and edges kept here.)
 *
 * Queries read their input from `q` and write their answer into `res` (layouts below), so calls pass
 * no doubles and return no doubles: nothing is boxed or allocated per query.
 */
import { closestPointTriangleAt, closestSegmentTriangleAt, createClosestPair } from '../kernels/closestPoint';
import { buildSweepFrames, SweepFeature, sweepSphereTriangleAt, type SweepHit } from '../kernels/sweptSphere';
import type { Rig } from '../rig/rig';

/** q layout: point / segment start / box centre, segment end, radius, limit, half extents, axes. */
export const Q_A = 0;
export const Q_B = 3;
export const Q_R = 6; // A, B, r contiguous: the swept-sphere kernel's path layout
/** Largest value (distance or t) a query may report; larger ones are misses. */
export const Q_LIMIT = 7;
export const Q_EXTENTS = 8;
/** Box axes: axis k (unit, bone frame) at Q_AXES + 3 k. */
export const Q_AXES = 11;

/** res layout: value (distance or t), hull point, normal, core point, triangle, feature, feature index, embedded, s. */
export const R_VALUE = 0;
export const R_HULL = 1;
export const R_NORMAL = 4;
export const R_CORE = 7;
export const R_TRIANGLE = 10;
export const R_FEATURE = 11;
export const R_FEATURE_INDEX = 12;
export const R_EMBEDDED = 13;
/** Fraction along the segment of the core point (segmentDistance; 0 for a point). */
export const R_S = 14;

/** Clip margin in t (as the segment clip of ./rewind). */
const CLIP_EPS = 1e-7;
/** Margin in metres of the sweep's per-triangle height band (far above the planes' rounding). */
const HEIGHT_EPS = 1e-7;
const PARALLEL_EPS = 1e-9;

export class RigHulls {
  readonly rig: Rig;
  /** Sweep frames (../kernels/sweepFrame) of the bone-local triangles, rig triangle order. */
  readonly frames: Float64Array;
  /** Distinct vertices of hull h: verts[3 * vertStart[h] ..] up to vertStart[h + 1]. */
  readonly vertStart: Uint32Array;
  readonly verts: Float64Array;
  /** Edges of hull h: edgeStart[h] .. edgeStart[h + 1] - 1; unit direction (3 each) and its two triangles (2 each). */
  readonly edgeStart: Uint32Array;
  readonly edgeDirs: Float64Array;
  readonly edgeFaces: Uint32Array;
  /** Per triangle: the least n . v over its hull's vertices (the greatest is the plane's d). */
  readonly planeMin: Float64Array;
  /** Query input (see Q_*). */
  readonly q = new Float64Array(20);
  /** Query answer (see R_*). */
  readonly res = new Float64Array(15);
  /** Scratch per plane of one hull: a_i (distance at the start) and b_i (its change along the segment). */
  private readonly pa: Float64Array;
  private readonly pb: Float64Array;
  /** The same for sweepSphere (height of the centre over each plane at t = 0, and its change to t = 1). */
  private readonly sa: Float64Array;
  private readonly sb: Float64Array;
  /** Scratch of ./hullBox: per plane of one hull, its normal . each box axis (3 per plane). */
  readonly boxDots: Float64Array;
  private readonly pair = createClosestPair();
  /** The kernel's record, its fractional fields doubles (NaN) from the start so they keep one representation. */
  private readonly sweep: SweepHit = {
    hit: false, t: NaN, feature: SweepFeature.FACE, featureIndex: 0, embedded: false,
    x: NaN, y: NaN, z: NaN, nx: NaN, ny: NaN, nz: NaN, cx: NaN, cy: NaN, cz: NaN,
  };

  constructor(rig: Rig) {
    this.rig = rig;
    const H = rig.hitboxCount, tris = rig.triangles, planes = rig.trianglePlanes;
    this.frames = buildSweepFrames(tris, null);
    const verts: number[] = [], dirs: number[] = [], faces: number[] = [];
    this.vertStart = new Uint32Array(H + 1);
    this.edgeStart = new Uint32Array(H + 1);
    this.planeMin = new Float64Array(rig.triangleCount);
    let most = 0;
    for (let h = 0; h < H; h++) {
      const i0 = rig.triStart[h], i1 = rig.triStart[h + 1];
      most = Math.max(most, i1 - i0);
      const index = new Map<string, number>();
      const base = verts.length / 3;
      const vid = (o: number): number => {
        const key = `${tris[o]},${tris[o + 1]},${tris[o + 2]}`;
        let v = index.get(key);
        if (v === undefined) {
          v = verts.length / 3 - base;
          index.set(key, v);
          verts.push(tris[o], tris[o + 1], tris[o + 2]);
        }
        return v;
      };
      const edges = new Map<number, number[]>();
      for (let i = i0; i < i1; i++) {
        const v = [vid(i * 9), vid(i * 9 + 3), vid(i * 9 + 6)];
        for (let k = 0; k < 3; k++) {
          const a = v[k], b = v[(k + 1) % 3];
          const key = a < b ? a * 65536 + b : b * 65536 + a;
          const list = edges.get(key) ?? [];
          list.push(i);
          edges.set(key, list);
        }
      }
      for (const [key, list] of edges) {
        if (list.length !== 2) throw new RangeError(`RigHulls: hitbox ${h} (${rig.hitboxName[h]}) is not a closed hull: an edge has ${list.length} triangles`);
        const a = base + Math.floor(key / 65536), b = base + (key % 65536);
        const dx = verts[3 * b] - verts[3 * a], dy = verts[3 * b + 1] - verts[3 * a + 1], dz = verts[3 * b + 2] - verts[3 * a + 2];
        const inv = 1 / Math.sqrt(dx * dx + dy * dy + dz * dz);
        dirs.push(dx * inv, dy * inv, dz * inv);
        faces.push(list[0], list[1]);
      }
      this.vertStart[h + 1] = verts.length / 3;
      this.edgeStart[h + 1] = dirs.length / 3;
      for (let i = i0; i < i1; i++) {
        let lo = Infinity;
        for (let v = base * 3; v < verts.length; v += 3) {
          lo = Math.min(lo, planes[i * 4] * verts[v] + planes[i * 4 + 1] * verts[v + 1] + planes[i * 4 + 2] * verts[v + 2]);
        }
        this.planeMin[i] = lo;
      }
    }
    this.verts = Float64Array.from(verts);
    this.edgeDirs = Float64Array.from(dirs);
    this.edgeFaces = Uint32Array.from(faces);
    this.pa = new Float64Array(most);
    this.pb = new Float64Array(most);
    this.sa = new Float64Array(most);
    this.sb = new Float64Array(most);
    this.boxDots = new Float64Array(most * 3);
  }

  /**
   * Signed distance of the point q[Q_A..] to hull h when it is at most q[Q_LIMIT]: writes res (value,
   * hull point, unit normal pointing from the hull toward the point (the outward face normal when
   * inside), the point as core, triangle, feature) and returns true; false when farther.
   */
  pointDistance(h: number): boolean {
    const planes = this.rig.trianglePlanes, q = this.q, pa = this.pa;
    const i0 = this.rig.triStart[h], i1 = this.rig.triStart[h + 1];
    const px = q[Q_A], py = q[Q_A + 1], pz = q[Q_A + 2], limit = q[Q_LIMIT];
    let m = -Infinity, arg = i0;
    for (let i = i0; i < i1; i++) {
      const d = planes[i * 4] * px + planes[i * 4 + 1] * py + planes[i * 4 + 2] * pz - planes[i * 4 + 3];
      pa[i - i0] = d;
      if (d > m) { m = d; arg = i; }
    }
    if (!(m <= limit)) return false;
    const res = this.res;
    res[R_CORE] = px; res[R_CORE + 1] = py; res[R_CORE + 2] = pz;
    res[R_S] = 0;
    if (m <= 0) {
      res[R_VALUE] = m;
      return this.inside(arg);
    }
    // Outside: the nearest triangle, starting with the plane the point is farthest in front of.
    const pair = this.pair, tris = this.rig.triangles;
    let best2 = Infinity, bt = -1;
    for (let k = -1; k < i1 - i0; k++) {
      const i = k < 0 ? arg : i0 + k;
      if (k >= 0 && (i === arg || !(pa[k] > 0) || pa[k] * pa[k] >= best2)) continue;
      closestPointTriangleAt(pair, tris, i * 9, q, Q_A);
      if (!(pair.d2 < best2)) continue;
      best2 = pair.d2;
      bt = i;
      this.takePair();
    }
    res[R_VALUE] = best2;
    return this.outside(bt);
  }

  /**
   * Signed distance of the segment q[Q_A..] -> q[Q_B..] to hull h (the least over its points) when at
   * most q[Q_LIMIT]: writes res as pointDistance (core: the segment's point that realises it) and
   * returns true. A zero-length segment is pointDistance of its start.
   */
  segmentDistance(h: number): boolean {
    const planes = this.rig.trianglePlanes, q = this.q, pa = this.pa, pb = this.pb;
    const i0 = this.rig.triStart[h], i1 = this.rig.triStart[h + 1], n = i1 - i0;
    const px = q[Q_A], py = q[Q_A + 1], pz = q[Q_A + 2], limit = q[Q_LIMIT];
    const dx = q[Q_B] - px, dy = q[Q_B + 1] - py, dz = q[Q_B + 2] - pz;
    if (!(dx * dx + dy * dy + dz * dz > 0)) return this.pointDistance(h);
    for (let i = i0; i < i1; i++) {
      const nx = planes[i * 4], ny = planes[i * 4 + 1], nz = planes[i * 4 + 2];
      pa[i - i0] = nx * px + ny * py + nz * pz - planes[i * 4 + 3];
      pb[i - i0] = nx * dx + ny * dy + nz * dz;
    }
    // Minimise max_k (pa[k] + pb[k] s) over [0, 1]: from s = 0 follow the top line to the right while
    // it descends, switching at each crossing to the line of largest slope that crosses first.
    let act = 0;
    for (let k = 1; k < n; k++) if (pa[k] > pa[act] || (pa[k] === pa[act] && pb[k] > pb[act])) act = k;
    let s = 0;
    while (pb[act] < 0) {
      let next = -1, ns = Infinity;
      for (let k = 0; k < n; k++) {
        if (!(pb[k] > pb[act])) continue;
        const sk = (pa[act] - pa[k]) / (pb[k] - pb[act]);
        if (sk < ns || (sk === ns && pb[k] > pb[next])) { ns = sk; next = k; }
      }
      if (next < 0 || ns >= 1) { s = 1; break; }
      if (ns > s) s = ns;
      act = next;
    }
    let g = -Infinity, arg = 0;
    for (let k = 0; k < n; k++) {
      const v = pa[k] + pb[k] * s;
      if (v > g) { g = v; arg = k; }
    }
    if (!(g <= limit)) return false;
    const res = this.res;
    if (g <= 0) {
      const cx = px + s * dx, cy = py + s * dy, cz = pz + s * dz;
      res[R_CORE] = cx; res[R_CORE + 1] = cy; res[R_CORE + 2] = cz;
      res[R_S] = s;
      res[R_VALUE] = g;
      return this.inside(i0 + arg);
    }
    // Outside: the nearest triangle; one the whole segment is behind, or farther by its plane alone, cannot be it.
    const pair = this.pair, tris = this.rig.triangles;
    let best2 = Infinity, bt = -1;
    for (let k = -1; k < n; k++) {
      const kk = k < 0 ? arg : k;
      if (k >= 0 && k === arg) continue;
      if (k >= 0) {
        const a = pa[kk], b = a + pb[kk];
        if (!(a > 0 || b > 0)) continue;
        const lo = a < b ? a : b;
        if (lo > 0 && lo * lo >= best2) continue;
      }
      closestSegmentTriangleAt(pair, tris, (i0 + kk) * 9, q, Q_A);
      if (!(pair.d2 < best2)) continue;
      best2 = pair.d2;
      bt = i0 + kk;
      this.takePair();
      res[R_CORE] = pair.px; res[R_CORE + 1] = pair.py; res[R_CORE + 2] = pair.pz;
      res[R_S] = pair.s;
    }
    res[R_VALUE] = best2;
    return this.outside(bt);
  }

  /**
   * First contact of the sphere of radius q[Q_R] moving q[Q_A..] -> q[Q_B..] with hull h at
   * t <= q[Q_LIMIT] (t < limit unless `inclusive`): writes res (value t, contact point, unit normal
   * from the contact toward the centre, centre at contact as core, triangle, feature, embedded) and
   * returns true. A sphere already overlapping the hull is a contact at t = 0, embedded.
   */
  sweepSphere(h: number, inclusive: boolean): boolean {
    const planes = this.rig.trianglePlanes, q = this.q, res = this.res;
    const i0 = this.rig.triStart[h], i1 = this.rig.triStart[h + 1];
    const ax = q[Q_A], ay = q[Q_A + 1], az = q[Q_A + 2], bx = q[Q_B], by = q[Q_B + 1], bz = q[Q_B + 2];
    const r = q[Q_R], limit = q[Q_LIMIT];
    if (!(inclusive ? limit >= 0 : limit > 0)) return false;
    const dx = bx - ax, dy = by - ay, dz = bz - az;
    const parallel = PARALLEL_EPS * Math.sqrt(dx * dx + dy * dy + dz * dz);
    // Clip against the planes pushed out by r (Cyrus-Beck); m: the start's largest plane distance.
    const sa = this.sa, sb = this.sb;
    let tIn = -Infinity, tOut = Infinity, m = -Infinity;
    for (let i = i0; i < i1; i++) {
      const nx = planes[i * 4], ny = planes[i * 4 + 1], nz = planes[i * 4 + 2];
      const d0 = nx * ax + ny * ay + nz * az - planes[i * 4 + 3];
      if (d0 > m) m = d0;
      const dist = d0 - r;
      const denom = nx * dx + ny * dy + nz * dz;
      sa[i - i0] = d0;
      sb[i - i0] = denom;
      if (denom < -parallel) {
        const te = -dist / denom;
        if (te > tIn) tIn = te;
      } else if (denom > parallel) {
        const tx = -dist / denom;
        if (tx < tOut) tOut = tx;
      }
    }
    if (m <= r) {
      // The start may overlap: exactly, by the signed distance of the centre.
      q[Q_LIMIT] = r;
      const overlap = this.pointDistance(h);
      q[Q_LIMIT] = limit;
      if (overlap) {
        res[R_VALUE] = 0;
        res[R_EMBEDDED] = 1;
        return true;
      }
    }
    if (tIn > tOut + CLIP_EPS || tIn > limit + CLIP_EPS || tOut < -CLIP_EPS) return false;
    // A triangle reports a contact only with the centre 0 .. r in front of its plane (one-sided, and
    // no farther from the plane than from the triangle), and no contact comes before the clip's
    // entry: the kernel runs only on triangles whose band [0, r] the centre is in at some t in
    // [entry, best] (with margins; the plane's height is linear in t). Ties keep the lower triangle.
    const hit = this.sweep, frames = this.frames;
    const lo = (tIn > 0 ? tIn : 0) - CLIP_EPS, top = r + HEIGHT_EPS;
    let best = limit, found = false;
    for (let i = i0; i < i1; i++) {
      const a = sa[i - i0], b = sb[i - i0];
      const h0 = a + b * lo, h1 = a + b * (best + CLIP_EPS);
      if ((h0 > h1 ? h0 : h1) < -HEIGHT_EPS || (h0 < h1 ? h0 : h1) > top) continue;
      if (!sweepSphereTriangleAt(hit, frames, i, q, Q_A)) continue; // q holds A, B, r in the kernel's order
      const t = hit.t;
      if (!(t < best || (t === best && inclusive && !found))) continue;
      found = true;
      best = t;
      res[R_VALUE] = t;
      res[R_HULL] = hit.x; res[R_HULL + 1] = hit.y; res[R_HULL + 2] = hit.z;
      res[R_NORMAL] = hit.nx; res[R_NORMAL + 1] = hit.ny; res[R_NORMAL + 2] = hit.nz;
      res[R_CORE] = hit.cx; res[R_CORE + 1] = hit.cy; res[R_CORE + 2] = hit.cz;
      res[R_TRIANGLE] = i;
      res[R_FEATURE] = hit.feature;
      res[R_FEATURE_INDEX] = hit.featureIndex;
      res[R_EMBEDDED] = hit.embedded ? 1 : 0;
    }
    return found;
  }

  /** res for the core point res[R_CORE..] inside the hull at plane distance res[R_VALUE] <= 0 of triangle `tri`: pushed out along its normal. */
  private inside(tri: number): boolean {
    const planes = this.rig.trianglePlanes, res = this.res;
    const g = res[R_VALUE], px = res[R_CORE], py = res[R_CORE + 1], pz = res[R_CORE + 2];
    const nx = planes[tri * 4], ny = planes[tri * 4 + 1], nz = planes[tri * 4 + 2];
    res[R_HULL] = px - g * nx; res[R_HULL + 1] = py - g * ny; res[R_HULL + 2] = pz - g * nz;
    res[R_NORMAL] = nx; res[R_NORMAL + 1] = ny; res[R_NORMAL + 2] = nz;
    res[R_TRIANGLE] = tri;
    res[R_FEATURE] = SweepFeature.FACE;
    res[R_FEATURE_INDEX] = 0;
    res[R_EMBEDDED] = 1;
    return true;
  }

  /** Copies the closest pair's triangle point and feature into res. */
  private takePair(): void {
    const pair = this.pair, res = this.res;
    res[R_HULL] = pair.qx; res[R_HULL + 1] = pair.qy; res[R_HULL + 2] = pair.qz;
    res[R_FEATURE] = pair.feature;
    res[R_FEATURE_INDEX] = pair.featureIndex;
  }

  /**
   * Finishes an outside answer: distance sqrt(res[R_VALUE]) (the least squared distance, of triangle
   * bt) if within q[Q_LIMIT], normal from the hull point to the core.
   */
  private outside(bt: number): boolean {
    const res = this.res, planes = this.rig.trianglePlanes;
    const d = Math.sqrt(res[R_VALUE]);
    if (!(bt >= 0) || !(d <= this.q[Q_LIMIT])) return false;
    let nx = res[R_CORE] - res[R_HULL], ny = res[R_CORE + 1] - res[R_HULL + 1], nz = res[R_CORE + 2] - res[R_HULL + 2];
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (len > 0) {
      nx /= len; ny /= len; nz /= len;
    } else {
      nx = planes[bt * 4]; ny = planes[bt * 4 + 1]; nz = planes[bt * 4 + 2];
    }
    res[R_VALUE] = d;
    res[R_NORMAL] = nx; res[R_NORMAL + 1] = ny; res[R_NORMAL + 2] = nz;
    res[R_TRIANGLE] = bt;
    res[R_EMBEDDED] = 0;
    return true;
  }
}
