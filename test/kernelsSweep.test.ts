// The swept sphere: the seed's worked face case, edges and corners that the face test alone lets a
// sphere slip past, the one-sided and overlap policies, and a property test against brute force
// (sample the path, bisect the first moment the distance to the triangle reaches r).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildSweepFrames, createSweepHit, SWEEP_FRAME_STRIDE, SweepFeature, sweepSphereFace, sweepSphereTriangle,
  writeSweepFrame,
} from '../shared/kernels/sweptSphere';

type V3 = [number, number, number];
const out = createSweepHit();
const faceOut = createSweepHit();
const frame = new Float64Array(SWEEP_FRAME_STRIDE);

function sweep(tri: [V3, V3, V3], p0: V3, p1: V3, r: number): boolean {
  writeSweepFrame(frame, 0, ...tri[0], ...tri[1], ...tri[2]);
  return sweepSphereTriangle(out, frame, 0, ...p0, ...p1, r);
}
function sweepFace(tri: [V3, V3, V3], p0: V3, p1: V3, r: number): boolean {
  writeSweepFrame(frame, 0, ...tri[0], ...tri[1], ...tri[2]);
  return sweepSphereFace(faceOut, frame, 0, ...p0, ...p1, r);
}

// The seed's standard orientation: v0 at the origin, v1 in the x/+z half-plane, v2 on +x; front is +y.
const STD: [V3, V3, V3] = [[0, 0, 0], [1, 0, 2], [3, 0, 0]];

describe('swept sphere: worked cases', () => {
  it('stores the standard orientation of a triangle already in it', () => {
    expect(writeSweepFrame(frame, 0, ...STD[0], ...STD[1], ...STD[2])).toBe(true);
    expect(Array.from(frame.subarray(0, 9))).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect([frame[12], frame[13], frame[14], frame[15], frame[16], frame[17], frame[18]]).toEqual([1, 0, 2, 3, 0, 0, 1]);
    const frames = buildSweepFrames([...STD[0], ...STD[1], ...STD[2]], [0, 1, 2]);
    expect(Array.from(frames)).toEqual(Array.from(frame));
  });

  it('seed 004: beta = (r - y0) / (y1 - y0) when the projected centre is inside the triangle', () => {
    expect(sweep(STD, [1, 5, 0.5], [1, -5, 0.5], 1)).toBe(true);
    expect(out.t).toBe(0.4);
    expect(out.feature).toBe(SweepFeature.FACE);
    expect(out.embedded).toBe(false);
    expect([out.x, out.y, out.z]).toEqual([1, 0, 0.5]);
    expect([out.nx, out.ny, out.nz]).toEqual([0, 1, 0]);
    expect([out.cx, out.cy, out.cz]).toEqual([1, 1, 0.5]);
    expect(sweepFace(STD, [1, 5, 0.5], [1, -5, 0.5], 1)).toBe(true);
    expect(faceOut.t).toBe(0.4);
  });

  it('seed 004: no face collision when moving parallel, when beta is beyond the path, or from behind', () => {
    expect(sweep(STD, [1, 5, 0.5], [2, 5, 0.5], 1)).toBe(false); // y0 = y1
    expect(sweep(STD, [1, 5, 0.5], [1, 3, 0.5], 1)).toBe(false); // stops at height 3 > r
    expect(sweep(STD, [1, -5, 0.5], [1, 5, 0.5], 1)).toBe(false); // from behind: back face ignored
    expect(sweepFace(STD, [1, 0.5, 0.5], [1, -5, 0.5], 1)).toBe(false); // seed: y0 < r, no face hit
  });

  it('a sphere passing beside an edge: face-only slips through, the edge capsule stops it', () => {
    // Centre at z = -0.5 beside edge c -> a (the x axis), moving down: distance sqrt(y^2 + 0.25) = 1.
    expect(sweepFace(STD, [1.5, 5, -0.5], [1.5, -5, -0.5], 1)).toBe(false);
    expect(sweep(STD, [1.5, 5, -0.5], [1.5, -5, -0.5], 1)).toBe(true);
    expect(out.feature).toBe(SweepFeature.EDGE);
    expect(out.featureIndex).toBe(2); // edge 2 runs from c to a
    expect(out.t).toBeCloseTo((5 - Math.sqrt(0.75)) / 10, 14);
    expect(out.x).toBeCloseTo(1.5, 14);
    expect(out.y).toBeCloseTo(0, 14);
    expect(out.z).toBeCloseTo(0, 14);
    expect(out.nx).toBeCloseTo(0, 14);
    expect(out.ny).toBeCloseTo(Math.sqrt(0.75), 14);
    expect(out.nz).toBeCloseTo(-0.5, 14);
  });

  it('a sphere passing beside a corner: only the vertex sphere stops it', () => {
    // Beyond vertex a, outside both edges' spans: |centre - a| = 1 at y = sqrt(0.28).
    expect(sweepFace(STD, [-0.6, 5, -0.6], [-0.6, -5, -0.6], 1)).toBe(false);
    expect(sweep(STD, [-0.6, 5, -0.6], [-0.6, -5, -0.6], 1)).toBe(true);
    expect(out.feature).toBe(SweepFeature.VERTEX);
    expect(out.featureIndex).toBe(0);
    expect(out.t).toBeCloseTo((5 - Math.sqrt(0.28)) / 10, 14);
    expect([out.x, out.y, out.z]).toEqual([0, 0, 0]);
    expect(out.nx).toBeCloseTo(-0.6, 14);
    expect(out.nz).toBeCloseTo(-0.6, 14);
  });

  it('a sphere sliding in the plane of the triangle hits its edge side-on (front half-space is closed)', () => {
    expect(sweep(STD, [1.5, 0, -5], [1.5, 0, 5], 0.5)).toBe(true);
    expect(out.feature).toBe(SweepFeature.EDGE);
    expect(out.featureIndex).toBe(2);
    expect(out.t).toBeCloseTo(0.45, 14);
  });

  it('one-sided: coming from behind, neither the face nor an edge blocks', () => {
    expect(sweep(STD, [1.5, -5, 0.7], [1.5, 5, 0.7], 0.5)).toBe(false);
    // Beside the edge from behind: the first touch has the centre below the plane.
    expect(sweep(STD, [1.5, -5, -0.3], [1.5, 5, -0.3], 0.5)).toBe(false);
    // But a path that starts behind, crosses the plane beside the triangle and then touches the edge
    // from the front half-space is stopped.
    expect(sweep(STD, [1.5, -0.2, -3], [1.5, 0.3, 0], 0.5)).toBe(true);
    expect(out.feature).toBe(SweepFeature.EDGE);
    expect(out.cy).toBeGreaterThan(0);
  });

  it('degenerate triangles have no front: their edges and vertices block from every side', () => {
    const needle: [V3, V3, V3] = [[0, 0, 0], [2, 0, 0], [1, 0, 0]];
    expect(writeSweepFrame(frame, 0, ...needle[0], ...needle[1], ...needle[2])).toBe(false);
    for (const from of [5, -5]) {
      expect(sweep(needle, [0.5, from, 0], [0.5, -from, 0], 0.25)).toBe(true);
      expect(out.feature).toBe(SweepFeature.EDGE);
      expect(out.t).toBeCloseTo((5 - 0.25) / 10, 14);
    }
    const point: [V3, V3, V3] = [[1, 1, 1], [1, 1, 1], [1, 1, 1]];
    expect(sweep(point, [1, 1, -4], [1, 1, 6], 0.5)).toBe(true);
    expect(out.feature).toBe(SweepFeature.VERTEX);
    expect(out.t).toBeCloseTo(0.45, 14);
  });

  it('overlapping at the start: t = 0 when moving deeper, free when moving away or sideways', () => {
    // Centre 0.5 above the face, radius 1.
    expect(sweep(STD, [1, 0.5, 0.5], [1, -1, 0.5], 1)).toBe(true);
    expect(out.t).toBe(0);
    expect(out.embedded).toBe(true);
    expect(out.feature).toBe(SweepFeature.FACE);
    expect([out.nx, out.ny, out.nz]).toEqual([0, 1, 0]);
    expect(sweep(STD, [1, 0.5, 0.5], [1, 2, 0.5], 1)).toBe(false);
    expect(sweep(STD, [1, 0.5, 0.5], [1.2, 0.5, 0.6], 1)).toBe(false);
    // Overlapping an edge from outside the triangle, moving toward it.
    expect(sweep(STD, [1.5, 0.2, -0.5], [1.5, 0.2, 0.5], 1)).toBe(true);
    expect(out.embedded).toBe(true);
    expect(out.feature).toBe(SweepFeature.EDGE);
    // Centre exactly on the face: deeper means toward the back.
    expect(sweep(STD, [1, 0, 0.5], [1, -1, 0.5], 1)).toBe(true);
    expect(sweep(STD, [1, 0, 0.5], [1, 1, 0.5], 1)).toBe(false);
    // Overlapping from behind is ignored like any contact from behind.
    expect(sweep(STD, [1, -0.5, 0.5], [1, 0.2, 0.5], 1)).toBe(false);
  });

  it('zero-length paths, negative or non-finite radii and non-finite ends miss', () => {
    expect(sweep(STD, [1, 0.5, 0.5], [1, 0.5, 0.5], 1)).toBe(false);
    expect(sweep(STD, [1, 5, 0.5], [1, -5, 0.5], -1)).toBe(false);
    expect(sweep(STD, [1, 5, 0.5], [1, -5, 0.5], NaN)).toBe(false);
    expect(sweep(STD, [1, 5, 0.5], [1, -5, 0.5], Infinity)).toBe(false);
    expect(sweep(STD, [1, NaN, 0.5], [1, -5, 0.5], 1)).toBe(false);
    expect(sweep(STD, [1, 5, 0.5], [1, -Infinity, 0.5], 1)).toBe(false);
  });
});

// ---- Brute force: an independent closest-point formulation (Ericson, Real-Time Collision
// Detection 5.1.5, Voronoi regions) and sampling plus bisection along the path.

function closestOnTriangle(p: V3, a: V3, b: V3, c: V3): V3 {
  const sub = (u: V3, v: V3): V3 => [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
  const dot = (u: V3, v: V3) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const along = (o: V3, d: V3, s: number): V3 => [o[0] + s * d[0], o[1] + s * d[1], o[2] + s * d[2]];
  const ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  const d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const bp = sub(p, b);
  const d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return along(a, ab, d1 / (d1 - d3));
  const cp = sub(p, c);
  const d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return along(a, ac, d2 / (d2 - d6));
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return along(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const denom = 1 / (va + vb + vc);
  return along(along(a, ab, vb * denom), ac, vc * denom);
}

function distance(p: V3, q: V3): number {
  return Math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2);
}

const uniform = (lo: number, hi: number) =>
  fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((i) => lo + (hi - lo) * (i / 2 ** 30));
const v3 = (lo: number, hi: number) => fc.tuple(uniform(lo, hi), uniform(lo, hi), uniform(lo, hi));

describe('swept sphere vs brute force (fast-check, seeded)', () => {
  it('first contact time, feature, contact point and normal match sampling + bisection', () => {
    const SAMPLES = 2000;
    const tally = { hits: 0, misses: 0, face: 0, edge: 0, vertex: 0, faceOnlyMissed: 0 };
    fc.assert(fc.property(v3(-3, 3), v3(-3, 3), v3(-3, 3), v3(-6, 6), v3(-6, 6), uniform(0.05, 1.5),
      (a, b, c, p0, p1, r) => {
        const tri: [V3, V3, V3] = [a, b, c];
        const e1: V3 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        const e2: V3 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        const n: V3 = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        const nl = Math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2);
        fc.pre(nl > 0.2);
        const height = (p: V3) => ((p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] + (p[2] - a[2]) * n[2]) / nl;
        fc.pre(height(p0) > 0 && distance(p0, closestOnTriangle(p0, a, b, c)) > r);
        const D: V3 = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
        const L = Math.sqrt(D[0] ** 2 + D[1] ** 2 + D[2] ** 2);
        const at = (t: number): V3 => [p0[0] + t * D[0], p0[1] + t * D[1], p0[2] + t * D[2]];
        const gap = (t: number) => { const p = at(t); return distance(p, closestOnTriangle(p, a, b, c)) - r; };
        const g: number[] = [gap(0)];
        let first = -1;
        for (let i = 1; i <= SAMPLES; i++) {
          g.push(gap(i / SAMPLES));
          if (g[i] <= 0) { first = i; break; }
        }
        // A dip below r between two samples shows as a sampled local minimum closer than the path
        // moves in one step: too close to call, skip the case.
        for (let j = 1; j < g.length - 1; j++) {
          fc.pre(!(g[j] < L / SAMPLES && g[j] <= g[j - 1] && g[j] <= g[j + 1]));
        }
        const hit = sweepSphereTriangle(out, frameOf(tri), 0, ...p0, ...p1, r);
        if (first < 0) {
          expect(hit).toBe(false);
          tally.misses++;
          return;
        }
        let lo = (first - 1) / SAMPLES, hi = first / SAMPLES;
        for (let k = 0; k < 60; k++) {
          const mid = (lo + hi) / 2;
          if (gap(mid) <= 0) hi = mid;
          else lo = mid;
        }
        const tStar = hi;
        const centre = at(tStar);
        // Contacts count only with the centre in the front half-space; too close to call: skip.
        fc.pre(Math.abs(height(centre)) > 1e-6);
        const expectHit = height(centre) >= 0;
        expect(hit).toBe(expectHit);
        if (!hit) {
          tally.misses++;
          return;
        }
        tally.hits++;
        expect(out.embedded).toBe(false);
        expect(out.t).toBeCloseTo(tStar, 7);
        const q = closestOnTriangle(centre, a, b, c);
        expect(out.x).toBeCloseTo(q[0], 5);
        expect(out.y).toBeCloseTo(q[1], 5);
        expect(out.z).toBeCloseTo(q[2], 5);
        expect(out.nx).toBeCloseTo((centre[0] - q[0]) / r, 4);
        expect(out.ny).toBeCloseTo((centre[1] - q[1]) / r, 4);
        expect(out.nz).toBeCloseTo((centre[2] - q[2]) / r, 4);
        // The feature: which of a, b, c the contact point is (close to) made of.
        const onVertex = [a, b, c].findIndex((v) => distance(v, q) < 1e-7);
        if (onVertex >= 0) {
          expect(out.feature).toBe(SweepFeature.VERTEX);
          expect(out.featureIndex).toBe(onVertex);
          tally.vertex++;
        } else if (out.feature === SweepFeature.EDGE) {
          const i = out.featureIndex, j = (i + 1) % 3;
          const P = tri[i], Q = tri[j];
          const cross = [
            (q[1] - P[1]) * (Q[2] - P[2]) - (q[2] - P[2]) * (Q[1] - P[1]),
            (q[2] - P[2]) * (Q[0] - P[0]) - (q[0] - P[0]) * (Q[2] - P[2]),
            (q[0] - P[0]) * (Q[1] - P[1]) - (q[1] - P[1]) * (Q[0] - P[0]),
          ];
          expect(Math.hypot(cross[0], cross[1], cross[2]) / distance(P, Q)).toBeLessThan(1e-6);
          tally.edge++;
        } else {
          expect(out.feature).toBe(SweepFeature.FACE);
          // Face contacts touch along the normal.
          expect(Math.abs(height(centre) - r)).toBeLessThan(1e-6);
          tally.face++;
        }
        const faceHit = sweepSphereFace(faceOut, frameOf(tri), 0, ...p0, ...p1, r);
        if (faceHit) expect(faceOut.t).toBeGreaterThanOrEqual(out.t - 1e-12);
        else tally.faceOnlyMissed++;
      }), { seed: 1234567, numRuns: 1500 });
    console.log('swept sphere vs brute force:', tally);
    expect(tally.hits).toBeGreaterThan(100);
    expect(tally.misses).toBeGreaterThan(100);
    expect(tally.face).toBeGreaterThan(20);
    expect(tally.edge).toBeGreaterThan(20);
    expect(tally.vertex).toBeGreaterThan(5);
    // Hits that the seed's face-only test would have let slip through.
    expect(tally.faceOnlyMissed).toBeGreaterThan(20);
  });
});

describe('swept sphere vs brute force on degenerate (collinear) triangles', () => {
  it('blocks from every side, at the first moment the centre is r from one of the edges', () => {
    const closestOnSegment = (p: V3, P: V3, Q: V3): V3 => {
      const e = [Q[0] - P[0], Q[1] - P[1], Q[2] - P[2]];
      const ee = e[0] ** 2 + e[1] ** 2 + e[2] ** 2;
      let s = ee > 0 ? ((p[0] - P[0]) * e[0] + (p[1] - P[1]) * e[1] + (p[2] - P[2]) * e[2]) / ee : 0;
      s = Math.min(1, Math.max(0, s));
      return [P[0] + s * e[0], P[1] + s * e[1], P[2] + s * e[2]];
    };
    let hits = 0;
    fc.assert(fc.property(v3(-3, 3), v3(-3, 3), uniform(-0.5, 1.5), v3(-6, 6), v3(-6, 6), uniform(0.05, 1.5),
      (a, b, lambda, p0, p1, r) => {
        const c: V3 = [a[0] + lambda * (b[0] - a[0]), a[1] + lambda * (b[1] - a[1]), a[2] + lambda * (b[2] - a[2])];
        const tri: [V3, V3, V3] = [a, b, c];
        const gapAt = (t: number) => {
          const p: V3 = [p0[0] + t * (p1[0] - p0[0]), p0[1] + t * (p1[1] - p0[1]), p0[2] + t * (p1[2] - p0[2])];
          return Math.min(...[0, 1, 2].map((i) => distance(p, closestOnSegment(p, tri[i], tri[(i + 1) % 3])))) - r;
        };
        fc.pre(gapAt(0) > 0);
        const hit = sweepSphereTriangle(out, frameOf(tri), 0, ...p0, ...p1, r);
        // The distance to a segment along a line is convex, so ternary search finds the closest
        // approach; then bisect the first crossing before it.
        let lo = 0, hi = 1;
        for (let k = 0; k < 100; k++) {
          const m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
          if (gapAt(m1) <= gapAt(m2)) hi = m2;
          else lo = m1;
        }
        const tMin = (lo + hi) / 2;
        fc.pre(Math.abs(gapAt(tMin)) > 1e-6);
        expect(hit).toBe(gapAt(tMin) < 0);
        if (!hit) return;
        hits++;
        lo = 0;
        hi = tMin;
        for (let k = 0; k < 60; k++) {
          const mid = (lo + hi) / 2;
          if (gapAt(mid) <= 0) hi = mid;
          else lo = mid;
        }
        expect(out.t).toBeCloseTo(hi, 7);
        expect(out.feature === SweepFeature.EDGE || out.feature === SweepFeature.VERTEX).toBe(true);
      }), { seed: 31337, numRuns: 1500 });
    expect(hits).toBeGreaterThan(60);
  });
});

const scratchFrame = new Float64Array(SWEEP_FRAME_STRIDE);
function frameOf(tri: [V3, V3, V3]): Float64Array {
  writeSweepFrame(scratchFrame, 0, ...tri[0], ...tri[1], ...tri[2]);
  return scratchFrame;
}
