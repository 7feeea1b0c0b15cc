// Property tests (fast-check, fixed seeds): every segment kernel agrees with the construction of the
// case and with the others on random non-degenerate triangles and segments, kept away from the
// edges and from t = 0 / t = 1 by a margin, at coordinates around 0, 1e4 and 1e5.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSegmentHit } from '../shared/kernels/hit';
import { SEGMENT_KERNELS } from './helpers/segmentKernels';

/** Uniform doubles in [lo, hi] (fc.double favours extremes and tiny values, which is not the point here). */
const uniform = (lo: number, hi: number) =>
  fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((i) => lo + (hi - lo) * (i / 2 ** 30));
const coord = uniform(-10, 10);
const weight = uniform(-0.6, 1.2);
const tStar = uniform(-0.5, 1.5);

/** A triangle, a point of its plane given by barycentric weights, and a segment through it. */
const caseArb = fc.record({
  tri: fc.array(coord, { minLength: 9, maxLength: 9 }),
  w1: weight,
  w2: weight,
  t: tStar,
  dir: fc.array(coord, { minLength: 3, maxLength: 3 }),
});

const MARGIN = 0.02;
const out = createSegmentHit();

function check(offset: number, seed: number, numRuns: number): { hits: number; misses: number } {
  const counts = { hits: 0, misses: 0 };
  // Offsets on every axis, with mixed signs, so no coordinate stays near 0.
  const ox = offset, oy = -0.7 * offset, oz = 0.4 * offset;
  fc.assert(
    fc.property(caseArb, ({ tri, w1, w2, t, dir }) => {
      const [ax0, ay0, az0, bx0, by0, bz0, cx0, cy0, cz0] = tri;
      const e1x = bx0 - ax0, e1y = by0 - ay0, e1z = bz0 - az0;
      const e2x = cx0 - ax0, e2y = cy0 - ay0, e2z = cz0 - az0;
      const nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
      const nLen = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const l1 = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
      const l2 = Math.sqrt(e2x * e2x + e2y * e2y + e2z * e2z);
      const l3 = Math.sqrt((cx0 - bx0) ** 2 + (cy0 - by0) ** 2 + (cz0 - bz0) ** 2);
      const longest = Math.max(l1, l2, l3);
      // Non-degenerate: not tiny, and no angle below ~3 degrees.
      fc.pre(longest > 0.5 && nLen > 0.05 * longest * longest);
      const w0 = 1 - w1 - w2;
      fc.pre(Math.min(Math.abs(w0), Math.abs(w1), Math.abs(w2)) > MARGIN);
      fc.pre(Math.abs(t) > MARGIN && Math.abs(t - 1) > MARGIN);
      const [dx, dy, dz] = dir;
      const dLen = Math.sqrt(dx * dx + dy * dy + dz * dz);
      fc.pre(dLen > 0.5);
      const cosine = (dx * nx + dy * ny + dz * nz) / (dLen * nLen);
      fc.pre(Math.abs(cosine) > 0.2);

      const ax = ax0 + ox, ay = ay0 + oy, az = az0 + oz;
      const bx = bx0 + ox, by = by0 + oy, bz = bz0 + oz;
      const cx = cx0 + ox, cy = cy0 + oy, cz = cz0 + oz;
      const px = w0 * ax0 + w1 * bx0 + w2 * cx0, py = w0 * ay0 + w1 * by0 + w2 * cy0, pz = w0 * az0 + w1 * bz0 + w2 * cz0;
      const sx = px - t * dx + ox, sy = py - t * dy + oy, sz = pz - t * dz + oz;
      const ex = sx + dx, ey = sy + dy, ez = sz + dz;

      const inside = w0 > 0 && w1 > 0 && w2 > 0;
      const expectedHit = inside && t >= 0 && t <= 1;
      const front = cosine < 0;
      const tol = 1e-9 + 1e-13 * offset;
      for (const k of SEGMENT_KERNELS) {
        const hit = k.fn(out, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz);
        const want = expectedHit && (front || !k.cull);
        if (hit !== want) throw new Error(`${k.name}: hit ${hit}, expected ${want} (t* = ${t}, w = ${w0} ${w1} ${w2})`);
        if (!hit) continue;
        if (Math.abs(out.t - t) > tol) throw new Error(`${k.name}: t ${out.t}, expected ${t}`);
        if (out.front !== front) throw new Error(`${k.name}: front ${out.front}, expected ${front}`);
        const pointErr = Math.abs(out.x - (px + ox)) + Math.abs(out.y - (py + oy)) + Math.abs(out.z - (pz + oz));
        if (pointErr > 1e-7 + 1e-12 * offset) throw new Error(`${k.name}: point off by ${pointErr}`);
        if (!k.full) continue;
        if (Math.abs(out.u - w1) > 1e-7 || Math.abs(out.v - w2) > 1e-7) {
          throw new Error(`${k.name}: u v ${out.u} ${out.v}, expected ${w1} ${w2}`);
        }
        const nl = Math.sqrt(out.nx * out.nx + out.ny * out.ny + out.nz * out.nz);
        if (Math.abs(nl - 1) > 1e-12) throw new Error(`${k.name}: normal length ${nl}`);
        // Parallel to the true normal, and facing the start.
        const along = (out.nx * nx + out.ny * ny + out.nz * nz) / nLen;
        if (Math.abs(Math.abs(along) - 1) > 1e-9) throw new Error(`${k.name}: normal not parallel (${along})`);
        if (out.nx * dx + out.ny * dy + out.nz * dz >= 0) throw new Error(`${k.name}: normal does not face the start`);
      }
      if (expectedHit) counts.hits++;
      else counts.misses++;
    }),
    { seed, numRuns },
  );
  return counts;
}

describe('all kernels agree on random non-degenerate cases', () => {
  for (const [offset, seed] of [[0, 20261121], [1e4, 4242], [1e5, 777]] as const) {
    it(`coordinates around ${offset}`, () => {
      const { hits, misses } = check(offset, seed, 10000);
      // The generator must produce both outcomes in quantity, or the agreement proves little.
      expect(hits).toBeGreaterThan(500);
      expect(misses).toBeGreaterThan(500);
    });
  }
});
