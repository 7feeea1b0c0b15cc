// The collision matrix on moved objects: composing the stored matrices with the object's inverse
// world transform, and mapping the segment into object space instead, give the same t as the
// watertight kernel on the transformed triangle, for rigid and general affine transforms.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mat4, quat } from 'gl-matrix';
import { createSegmentHit } from '../shared/kernels/hit';
import { intersectWatertight } from '../shared/kernels/watertight';
import {
  buildCollisionMatrices, buildCollisionMatricesInto, COLLISION_MATRIX_STRIDE, composeCollisionMatrices,
  intersectCollisionMatrix,
} from '../shared/kernels/collisionMatrix';

const uniform = (lo: number, hi: number) =>
  fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((i) => lo + (hi - lo) * (i / 2 ** 30));

function transform(m: ArrayLike<number>, x: number, y: number, z: number): [number, number, number] {
  return [
    m[0] * x + m[4] * y + m[8] * z + m[12],
    m[1] * x + m[5] * y + m[9] * z + m[13],
    m[2] * x + m[6] * y + m[10] * z + m[14],
  ];
}

const worldArb = fc.record({
  q: fc.array(uniform(-1, 1), { minLength: 4, maxLength: 4 }),
  p: fc.array(uniform(-50, 50), { minLength: 3, maxLength: 3 }),
  // Non-uniform scale and shear for the general affine case.
  scale: fc.array(uniform(0.3, 3), { minLength: 3, maxLength: 3 }),
  shear: fc.array(uniform(-0.5, 0.5), { minLength: 3, maxLength: 3 }),
  rigid: fc.boolean(),
  w: fc.array(uniform(-0.3, 1.3), { minLength: 2, maxLength: 2 }),
  t: uniform(-0.3, 1.3),
  dir: fc.array(uniform(-5, 5), { minLength: 3, maxLength: 3 }),
});

describe('collision matrices on a moved object', () => {
  it('composed matrices, object-space segments and watertight on world triangles agree', () => {
    const positions = new Float64Array([0, 0, 0, 2, 0.3, -0.2, 0.4, 1.8, 0.5, -1, -1, 1]);
    const indices = new Uint32Array([0, 1, 2, 0, 3, 1]);
    const stored = buildCollisionMatrices(positions, indices);
    const frozen = Float64Array.from(stored);
    const composed = new Float64Array(stored.length);
    const oA = createSegmentHit(), oB = createSegmentHit(), oC = createSegmentHit();
    // Float64Array matrices: gl-matrix's mat4.create() is a Float32Array, whose inverse is only good to
    // ~1e-7, which would show up as a disagreement here.
    const world = new Float64Array(16), inv = new Float64Array(16), shear = new Float64Array(16);
    let compared = 0;
    fc.assert(fc.property(worldArb, ({ q, p, scale, shear: sh, rigid, w, t, dir }) => {
      const ql = Math.hypot(q[0], q[1], q[2], q[3]);
      fc.pre(ql > 0.1);
      const rot = quat.fromValues(q[0] / ql, q[1] / ql, q[2] / ql, q[3] / ql);
      mat4.fromRotationTranslationScale(world, rot, p as [number, number, number],
        rigid ? [1, 1, 1] : scale as [number, number, number]);
      if (!rigid) {
        mat4.identity(shear);
        shear[4] = sh[0]; shear[8] = sh[1]; shear[9] = sh[2];
        mat4.multiply(world, world, shear);
      }
      expect(mat4.invert(inv, world)).not.toBeNull();
      composeCollisionMatrices(composed, stored, inv);
      for (let tri = 0; tri < 2; tri++) {
        const ia = indices[3 * tri] * 3, ib = indices[3 * tri + 1] * 3, ic = indices[3 * tri + 2] * 3;
        const A = transform(world, positions[ia], positions[ia + 1], positions[ia + 2]);
        const B = transform(world, positions[ib], positions[ib + 1], positions[ib + 2]);
        const C = transform(world, positions[ic], positions[ic + 1], positions[ic + 2]);
        const w0 = 1 - w[0] - w[1];
        // Keep away from edges, t = 0 and t = 1, where the methods may legitimately round apart.
        if (Math.min(Math.abs(w0), Math.abs(w[0]), Math.abs(w[1]), Math.abs(t), Math.abs(t - 1)) < 1e-3) continue;
        const P = [0, 1, 2].map((k) => w0 * A[k] + w[0] * B[k] + w[1] * C[k]);
        const S = [0, 1, 2].map((k) => P[k] - t * dir[k]);
        const E = [0, 1, 2].map((k) => S[k] + dir[k]);
        const hitC = intersectWatertight(oC, S[0], S[1], S[2], E[0], E[1], E[2], ...A, ...B, ...C);
        const hitA = intersectCollisionMatrix(oA, composed, tri, S[0], S[1], S[2], E[0], E[1], E[2]);
        const So = transform(inv, S[0], S[1], S[2]);
        const Eo = transform(inv, E[0], E[1], E[2]);
        const hitB = intersectCollisionMatrix(oB, stored, tri, ...So, ...Eo);
        // Nearly parallel segments are where the three may round apart; skip them.
        const n = [oC.nx, oC.ny, oC.nz];
        if (hitC) {
          const dl = Math.hypot(dir[0], dir[1], dir[2]);
          if (Math.abs(n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]) < 1e-3 * dl) continue;
        }
        expect(hitA).toBe(hitC);
        expect(hitB).toBe(hitC);
        if (!hitC) continue;
        compared++;
        expect(oA.t).toBeCloseTo(oC.t, 9);
        expect(oB.t).toBeCloseTo(oC.t, 9);
        expect(oA.u).toBeCloseTo(oC.u, 9);
        expect(oA.v).toBeCloseTo(oC.v, 9);
        expect(oA.front).toBe(oC.front);
        // The composed z row is the inverse-transpose normal: the world normal, even when sheared.
        expect(oA.nx).toBeCloseTo(oC.nx, 9);
        expect(oA.ny).toBeCloseTo(oC.ny, 9);
        expect(oA.nz).toBeCloseTo(oC.nz, 9);
        expect(oA.x).toBeCloseTo(oC.x, 8);
      }
    }), { seed: 9001, numRuns: 1500 });
    expect(compared).toBeGreaterThan(200);
    // The stored matrices were reused unchanged.
    expect(stored).toEqual(frozen);
  });

  it('composition can run in place, and identity leaves the matrices as they were', () => {
    const positions = [1, 2, 3, 4, 2, 5, 0, 6, 1];
    const m = buildCollisionMatrices(positions, null);
    const copy = Float64Array.from(m);
    composeCollisionMatrices(m, m, mat4.identity(new Float64Array(16)));
    expect(Array.from(m)).toEqual(Array.from(copy));
    const move = mat4.fromTranslation(new Float64Array(16), [10, -3, 2]);
    const into = composeCollisionMatrices(new Float64Array(COLLISION_MATRIX_STRIDE), copy, move);
    composeCollisionMatrices(m, m, move);
    expect(Array.from(m)).toEqual(Array.from(into));
  });

  it('degenerate triangles are stored as zeros and never hit; a short output array is refused', () => {
    const m = buildCollisionMatrices([0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 1, 2]);
    expect(Array.from(m)).toEqual(new Array(COLLISION_MATRIX_STRIDE).fill(0));
    expect(intersectCollisionMatrix(createSegmentHit(), m, 0, 1, 1, 2, 1, 1, -2)).toBe(false);
    expect(() => buildCollisionMatricesInto(new Float64Array(5), [0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 2]))
      .toThrow(/allocate new Float64Array/);
  });
});
