// The segment-vs-triangle kernels on hand-made cases: the seeds' worked examples, three.js's Ray
// peer cases, and every degenerate case of the inclusive policy (see shared/kernels/hit.ts).
import { describe, expect, it } from 'vitest';
import { createSegmentHit } from '../shared/kernels/hit';
import {
  createPreparedSegment, intersectPrepared, intersectWatertight, prepareSegment,
} from '../shared/kernels/watertight';
import { intersectMollerTrumbore } from '../shared/kernels/mollerTrumbore';
import {
  buildCollisionMatrices, COLLISION_MATRIX_STRIDE, intersectCollisionMatrix,
} from '../shared/kernels/collisionMatrix';
import { intersectPlaneBarycentric } from '../shared/kernels/planeBarycentric';
import * as api from '../shared/kernels/index';
import { run, SEGMENT_KERNELS } from './helpers/segmentKernels';

type V3 = [number, number, number];
const out = createSegmentHit();
const scaled = (d: V3, k: number): V3 => [d[0] * k, d[1] * k, d[2] * k];
const O: V3 = [0, 0, 0];

describe('three.js Ray peer cases (segment from the origin to 10x the direction)', () => {
  const a: V3 = [1, 1, 0];
  const b: V3 = [0, 1, 1];
  const c: V3 = [1, 0, 1];
  const d: V3 = [1, 1, 1];

  for (const k of SEGMENT_KERNELS) {
    it(`${k.name}: hits the back face at (2/3, 2/3, 2/3) unless culling`, () => {
      const hit = run(k, out, O, scaled(d, 10), a, b, c);
      expect(hit).toBe(!k.cull);
      if (hit) {
        expect(out.x).toBeCloseTo(2 / 3, 12);
        expect(out.y).toBeCloseTo(2 / 3, 12);
        expect(out.z).toBeCloseTo(2 / 3, 12);
        expect(out.t).toBeCloseTo(1 / 15, 12);
        expect(out.front).toBe(false);
        if (k.full) {
          // Normal (b - a) x (c - a) = (1, 1, 1) points away from the start, so it is flipped.
          const s = -1 / Math.sqrt(3);
          expect(out.nx).toBeCloseTo(s, 12);
          expect(out.ny).toBeCloseTo(s, 12);
          expect(out.nz).toBeCloseTo(s, 12);
          expect(out.u).toBeCloseTo(1 / 3, 12);
          expect(out.v).toBeCloseTo(1 / 3, 12);
        }
      }
    });
    it(`${k.name}: the misses`, () => {
      expect(run(k, out, O, O, a, b, c)).toBe(false); // zero direction
      expect(run(k, out, O, scaled(d, 10), a, [0, -1, -1], c)).toBe(false);
      expect(run(k, out, O, scaled(d, 10), [-1, -1, 0], [0, -1, -1], c)).toBe(false);
      expect(run(k, out, O, scaled(d, 10), [-1, -1, 0], [0, 1, 1], c)).toBe(false);
      expect(run(k, out, O, scaled([-1, -1, -1], 10), [1, 1, 0], [0, -1, -1], [1, 0, 1])).toBe(false);
    });
  }
});

describe('worked examples of the seeds', () => {
  it('seed 000: the collision matrix maps a, b, c, a + n to the origin, x, y and z axes', () => {
    const a: V3 = [1, 2, 3], b: V3 = [4, 2, 5], c: V3 = [0, 6, 1];
    const m = buildCollisionMatrices([...a, ...b, ...c], [0, 1, 2]);
    expect(m.length).toBe(COLLISION_MATRIX_STRIDE);
    const e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    const e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const apply = (p: number[]) => [0, 1, 2].map((r) => m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3]);
    const expectVec = (got: number[], want: number[]) => got.forEach((g, i) => expect(g).toBeCloseTo(want[i], 12));
    expectVec(apply(a), [0, 0, 0]);
    expectVec(apply(b), [1, 0, 0]);
    expectVec(apply(c), [0, 1, 0]);
    expectVec(apply([a[0] + n[0], a[1] + n[1], a[2] + n[2]]), [0, 0, 1]);
    // The segment test: both ends' heights have opposite signs, the crossing is the seed's i.
    const s: V3 = [2, 3, 8], e: V3 = [1.5, 3.5, -4];
    expect(intersectCollisionMatrix(out, m, 0, ...s, ...e)).toBe(true);
    const p = [out.x, out.y, out.z];
    expectVec(apply(p), [out.u, out.v, 0]);
    // Same sign: no hit (the seed's "go home").
    expect(intersectCollisionMatrix(out, m, 0, ...s, 2, 3, 9)).toBe(false);
  });

  it('seed 001: Möller–Trumbore gives t, u, v with S + tD = (1 - u - v) a + u b + v c, culling back faces', () => {
    const a: V3 = [0, 0, 0], b: V3 = [2, 0, 0], c: V3 = [0, 2, 0];
    expect(intersectMollerTrumbore(out, 0.5, 0.25, 4, 0.5, 0.25, -4, ...a, ...b, ...c)).toBe(true);
    expect(out.t).toBe(0.5);
    expect(out.u).toBe(0.25);
    expect(out.v).toBe(0.125);
    expect(out.front).toBe(true);
    expect([out.nx, out.ny, out.nz]).toEqual([0, 0, 1]);
    // From below the normal points away: a back face, rejected only with culling.
    expect(intersectMollerTrumbore(out, 0.5, 0.25, -4, 0.5, 0.25, 4, ...a, ...b, ...c, false)).toBe(true);
    expect(out.front).toBe(false);
    expect(out.nz).toBe(-1);
    expect(intersectMollerTrumbore(out, 0.5, 0.25, -4, 0.5, 0.25, 4, ...a, ...b, ...c, true)).toBe(false);
  });

  it('seed 001 epsilon policy: tiny and huge triangles behave the same (relative determinant)', () => {
    // The seed's fixed |det| < 1e-5 would reject the 1 mm triangle; the relative test does not.
    for (const size of [1e-3, 1, 1e3]) {
      const hit = intersectMollerTrumbore(out, 0.25 * size, 0.25 * size, size, 0.25 * size, 0.25 * size, -size,
        0, 0, 0, size, 0, 0, 0, size, 0);
      expect(hit).toBe(true);
      expect(out.t).toBeCloseTo(0.5, 14);
    }
  });

  it('seed 002: a terrain height query from above the character down 1000 units', () => {
    // A sloped terrain triangle; the stop point is far below, like the tutorial's.
    const a: V3 = [0, 1, 0], b: V3 = [0, 3, 10], c: V3 = [10, 2, 0];
    for (const k of SEGMENT_KERNELS) {
      expect(run(k, out, [2, 11.8, 3], [2, -1000, 3], a, b, c), k.name).toBe(true);
      // The plane through a, b, c: y = 1 + 0.1 x + 0.2 z, so the height at (2, 3) is 1.8.
      expect(out.y, k.name).toBeCloseTo(1.8, 10);
    }
  });

  it('seed 003: the five camera lines against a wall push the camera back by the intersection offset', () => {
    // A wall x = 0.3 in front of the camera at the origin; lines run from C + A to C - A.
    const lines: V3[] = [[0.5, 0, 0], [0, 0.5, 0], [0, 0, 0.5], [0.4, 0, 0.4], [-0.4, 0, 0.4]];
    const wall: [V3, V3, V3] = [[0.3, -5, -5], [0.3, 5, -5], [0.3, 0, 5]];
    const hits = lines.map((l) => intersectPlaneBarycentric(out, l[0], l[1], l[2], -l[0], -l[1], -l[2], ...wall[0], ...wall[1], ...wall[2])
      ? out.t : -1);
    // Lines 0, 3 and 4 cross x = 0.3 at t = 0.2 / 1.0, 0.1 / 0.8 and 0.7 / 0.8 (line 4 runs from
    // x = -0.4 to 0.4); lines 1 and 2 are parallel to the wall.
    expect(hits[0]).toBeCloseTo(0.2, 14);
    expect(hits[1]).toBe(-1);
    expect(hits[2]).toBe(-1);
    expect(hits[3]).toBeCloseTo(0.125, 14);
    expect(hits[4]).toBeCloseTo(0.875, 14);
    // The seed's response: t < 0.5, so the camera moves by (intersection - line start).
    expect(intersectPlaneBarycentric(out, 0.5, 0, 0, -0.5, 0, 0, ...wall[0], ...wall[1], ...wall[2])).toBe(true);
    expect(out.x - 0.5).toBeCloseTo(-0.2, 14);
    expect(out.u + out.v).toBeLessThanOrEqual(1);
  });

  it('the public index re-exports every kernel', () => {
    for (const name of ['intersectWatertight', 'intersectPrepared', 'prepareSegment', 'createPreparedSegment',
      'intersectMollerTrumbore', 'buildCollisionMatrices', 'intersectCollisionMatrix', 'composeCollisionMatrices',
      'composeCollisionMatrix', 'intersectPlaneBarycentric', 'sweepSphereTriangle', 'buildSweepFrames', 'createSweepHit',
      'createSegmentHit', 'SweepFeature']) {
      expect(api, name).toHaveProperty(name);
    }
  });
});

describe('inclusive policy and degenerate cases, every kernel', () => {
  const a: V3 = [0, 0, 0], b: V3 = [4, 0, 0], c: V3 = [0, 4, 0];

  it('ends exactly on the plane: t = 0 and t = 1 hit (inclusive), just beyond misses', () => {
    // A tilted plane with exactly representable points on it: p = 0.25 b2 + 0.25 c2.
    const a2: V3 = [0, 0, 0], b2: V3 = [2, 0, 1], c2: V3 = [0, 2, 1];
    for (const k of SEGMENT_KERNELS) {
      for (const [tri, on] of [[[a, b, c], [1, 1, 0]], [[a2, b2, c2], [0.5, 0.5, 0.5]]] as [V3[], V3][]) {
        const n = [tri[1][1] * tri[2][2] - tri[1][2] * tri[2][1], tri[1][2] * tri[2][0] - tri[1][0] * tri[2][2],
          tri[1][0] * tri[2][1] - tri[1][1] * tri[2][0]];
        const above: V3 = [on[0] + n[0], on[1] + n[1], on[2] + n[2]];
        const below: V3 = [on[0] - n[0], on[1] - n[1], on[2] - n[2]];
        // Stop on the plane, coming from the front: t = 1 exactly.
        expect(run(k, out, above, on, tri[0], tri[1], tri[2]), `${k.name} t=1`).toBe(true);
        expect(out.t, `${k.name} t=1`).toBe(1);
        // Start on the plane: t = 0. For the one-sided kernels a start on the plane going backwards
        // enters through the front face: it hits; going forward it leaves through the front: misses.
        expect(run(k, out, on, below, tri[0], tri[1], tri[2]), `${k.name} t=0`).toBe(true);
        expect(out.t + 0, `${k.name} t=0`).toBe(0); // + 0 folds -0 into 0
        expect(run(k, out, on, above, tri[0], tri[1], tri[2]), `${k.name} t=0 leaving`).toBe(!k.cull);
        // Stopping just short of the plane misses.
        const short: V3 = [on[0] + n[0] * 1e-9, on[1] + n[1] * 1e-9, on[2] + n[2] * 1e-9];
        expect(run(k, out, above, short, tri[0], tri[1], tri[2]), `${k.name} short`).toBe(false);
      }
    }
  });

  it('points on an edge or a vertex count as inside, also 1e4 and 1e5 from the origin', () => {
    for (const k of SEGMENT_KERNELS) {
      // The angle-sum reference cannot promise this: on the hypotenuse |IB| |IC| rounds, acos(-1 + tiny)
      // is off by ~1e-8 (acos has an infinite slope at -1) and the sum misses its tolerance.
      if (k.name.startsWith('angle-sum')) continue;
      // Integer offsets keep every coordinate exactly representable, so "on the edge" is exact.
      for (const o of [0, 1e4, 1e5]) {
        const at = (v: V3): V3 => [v[0] + o, v[1] - o, v[2] + o];
        for (const p of [[2, 0], [0, 2], [2, 2], [0, 0], [4, 0], [0, 4]]) {
          expect(run(k, out, at([p[0], p[1], 3]), at([p[0], p[1], -3]), at(a), at(b), at(c)), `${k.name} at ${p} + ${o}`).toBe(true);
          expect(out.t, k.name).toBe(0.5);
        }
        expect(run(k, out, at([2.001, 2, 3]), at([2.001, 2, -3]), at(a), at(b), at(c)), `${k.name} + ${o}`).toBe(false);
      }
    }
  });

  it('zero-area triangles and zero-length segments miss', () => {
    for (const k of SEGMENT_KERNELS) {
      // Collinear, and all three vertices equal.
      expect(run(k, out, [1, 0, 1], [1, 0, -1], [0, 0, 0], [1, 0, 0], [2, 0, 0]), k.name).toBe(false);
      expect(run(k, out, [1, 1, 1], [1, 1, -1], [1, 1, 0], [1, 1, 0], [1, 1, 0]), k.name).toBe(false);
      // Zero-length segment on the triangle, and off it.
      expect(run(k, out, [1, 1, 0], [1, 1, 0], a, b, c), k.name).toBe(false);
      expect(run(k, out, [1, 1, 1], [1, 1, 1], a, b, c), k.name).toBe(false);
    }
  });

  it('needles: a hit through the middle of a thin sliver, misses just beside it', () => {
    for (const w of [1e-3, 1e-6, 1e-9, 1e-12]) {
      const na: V3 = [0, 0, 0], nb: V3 = [1, 0, 0], nc: V3 = [0.5, w, 0];
      for (const k of SEGMENT_KERNELS) {
        // Plane + barycentric solves the 2x2 normal equations, which square the sliver's condition
        // number (documented in its module); the angle sum degrades the same way. Both hold to 1e-6.
        if (w < 1e-6 && (k.name.startsWith('plane-barycentric') || k.name.startsWith('angle-sum'))) continue;
        expect(run(k, out, [0.5, w / 3, 1], [0.5, w / 3, -1], na, nb, nc), `${k.name} w=${w}`).toBe(true);
        expect(run(k, out, [0.5, 2 * w, 1], [0.5, 2 * w, -1], na, nb, nc), `${k.name} w=${w}`).toBe(false);
      }
    }
  });

  it('segments parallel to the plane, or lying in it, miss', () => {
    for (const k of SEGMENT_KERNELS) {
      expect(run(k, out, [-1, 1, 1], [5, 1, 1], a, b, c), k.name).toBe(false);
      expect(run(k, out, [-1, 1, 0], [5, 1, 0], a, b, c), k.name).toBe(false);
      expect(run(k, out, [1, 1, 0], [2, 1, 0], a, b, c), k.name).toBe(false);
    }
  });

  it('axis-parallel directions, both ways along each axis', () => {
    // A triangle that faces every axis obliquely, and segments through its centroid.
    const ta: V3 = [3, 0, 0], tb: V3 = [0, 3, 0], tc: V3 = [0, 0, 3];
    const g: V3 = [1, 1, 1];
    for (let axis = 0; axis < 3; axis++) {
      for (const sign of [1, -1]) {
        const s: V3 = [...g];
        const e: V3 = [...g];
        s[axis] -= 4 * sign;
        e[axis] += 4 * sign;
        const front = sign < 0; // the normal (1, 1, 1) faces the start when we move along -axis
        for (const k of SEGMENT_KERNELS) {
          const hit = run(k, out, s, e, ta, tb, tc);
          expect(hit, `${k.name} axis ${axis} sign ${sign}`).toBe(front || !k.cull);
          if (hit) {
            expect(out.t).toBeCloseTo(0.5, 14);
            expect(out.front).toBe(front);
            if (k.full) {
              expect(out.u).toBeCloseTo(1 / 3, 14);
              expect(out.v).toBeCloseTo(1 / 3, 14);
            }
          }
        }
      }
    }
  });

  it('hostile numbers: NaN and Infinity miss without throwing', () => {
    const bad = [NaN, Infinity, -Infinity];
    for (const k of SEGMENT_KERNELS) {
      for (const x of bad) {
        for (let slot = 0; slot < 15; slot++) {
          const args = [1, 1, 3, 1, 1, -3, 0, 0, 0, 4, 0, 0, 0, 4, 0];
          args[slot] = x;
          const hit = k.fn(out, ...(args as [number, number, number, number, number, number, number, number,
            number, number, number, number, number, number, number]));
          if (hit) {
            // Some infinities are legitimately harmless (e.g. a far stop): the result must be finite.
            expect(Number.isFinite(out.t) && Number.isFinite(out.x), `${k.name} slot ${slot} = ${x}`).toBe(true);
          }
        }
      }
    }
  });
});

describe('watertight specifics', () => {
  it('front = counter-clockwise seen from the start = det > 0, for every dominant axis and sign', () => {
    for (let axis = 0; axis < 3; axis++) {
      for (const sign of [1, -1]) {
        // Triangle in the plane perpendicular to `axis`, counter-clockwise seen from -sign * axis.
        const u = (axis + 1) % 3, w = (axis + 2) % 3;
        const p = (i: number, j: number): V3 => { const q: V3 = [0, 0, 0]; q[u] = i; q[w] = j; return q; };
        const [ta, tb, tc] = sign > 0 ? [p(0, 0), p(0, 1), p(1, 0)] : [p(0, 0), p(1, 0), p(0, 1)];
        const s: V3 = p(0.25, 0.25), e: V3 = p(0.25, 0.25);
        s[axis] = -sign;
        e[axis] = sign;
        expect(intersectWatertight(out, ...s, ...e, ...ta, ...tb, ...tc, true), `axis ${axis} sign ${sign}`).toBe(true);
        expect(out.front).toBe(true);
        expect(out.nx * (s[0] - out.x) + out.ny * (s[1] - out.y) + out.nz * (s[2] - out.z)).toBeGreaterThan(0);
        expect(intersectWatertight(out, ...e, ...s, ...ta, ...tb, ...tc, true)).toBe(false);
        expect(intersectWatertight(out, ...e, ...s, ...ta, ...tb, ...tc, false)).toBe(true);
        expect(out.front).toBe(false);
        expect(out.nx * (e[0] - out.x) + out.ny * (e[1] - out.y) + out.nz * (e[2] - out.z)).toBeGreaterThan(0);
      }
    }
  });

  it('tMax shortens a prepared segment, inclusively', () => {
    const seg = prepareSegment(createPreparedSegment(), 1, 1, 4, 1, 1, -4);
    expect(intersectPrepared(out, seg, 0, 0, 0, 4, 0, 0, 0, 4, 0, false, 0.5)).toBe(true);
    expect(out.t).toBe(0.5);
    expect(intersectPrepared(out, seg, 0, 0, 0, 4, 0, 0, 0, 4, 0, false, 0.4999)).toBe(false);
    expect(seg.ok).toBe(1);
    expect(prepareSegment(seg, 1, 1, 1, 1, 1, 1).ok).toBe(0);
    expect(prepareSegment(seg, 1, NaN, 1, 1, 1, 2).ok).toBe(0);
  });
});
