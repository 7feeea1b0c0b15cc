// The closed-mesh leak test. From a point inside a closed mesh, segments are aimed exactly at every
// vertex and at points on every edge, and extended well outside. A segment from inside to outside
// must cross the surface, so a kernel that reports no hit on any triangle has let it leak through a
// crack between triangles. The watertight kernel must leak 0 times at offsets 0, 1e4 and 1e5;
// Möller–Trumbore's, the collision matrix's and plane + barycentric's counts are printed only.
//
// "local misses" counts segments for which none of the triangles around the aimed-at vertex or edge
// reports a hit. On the convex icosphere a segment from inside crosses the surface exactly once, at
// the target, so every local miss is a leak (and the whole-mesh scan is skipped: it would cost a
// billion tests). On the bunny the segment may cross the surface elsewhere, or only touch it at a
// silhouette vertex, so leaks are counted over the whole mesh. "of which on open fans" counts the
// local misses where every triangle around the target faces the same way along the segment: there
// the triangles, projected along the segment, cover a neighbourhood of the target (their projected
// angles add up to a whole turn), so a watertight kernel cannot miss them all; the local misses
// elsewhere are grazes of a silhouette seen from the inside point.
import { describe, expect, it } from 'vitest';
import { createSegmentHit } from '../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment } from '../shared/kernels/watertight';
import { intersectMollerTrumbore } from '../shared/kernels/mollerTrumbore';
import { buildCollisionMatrices, intersectCollisionMatrix } from '../shared/kernels/collisionMatrix';
import { intersectPlaneBarycentric } from '../shared/kernels/planeBarycentric';
import { assetPath, readGlbTriangles, type MeshArrays } from './helpers/glb';
import { icosphere } from './helpers/icosphere';

const OFFSETS = [0, 1e4, 1e5];
const KERNELS = ['watertight', 'moller-trumbore', 'collision-matrix', 'plane-barycentric'] as const;
type KernelName = (typeof KERNELS)[number];

const hit = createSegmentHit();
const seg = createPreparedSegment();

/** Tests triangle `t` of the mesh with kernel `k`; `matrices` are the mesh's collision matrices. */
function testTriangle(k: KernelName, mesh: MeshArrays, matrices: Float64Array, t: number,
  s: Float64Array, e: Float64Array): boolean {
  const p = mesh.positions;
  const ia = mesh.indices[3 * t] * 3, ib = mesh.indices[3 * t + 1] * 3, ic = mesh.indices[3 * t + 2] * 3;
  switch (k) {
    case 'watertight':
      return intersectPrepared(hit, seg, p[ia], p[ia + 1], p[ia + 2], p[ib], p[ib + 1], p[ib + 2],
        p[ic], p[ic + 1], p[ic + 2], false, 1);
    case 'moller-trumbore':
      return intersectMollerTrumbore(hit, s[0], s[1], s[2], e[0], e[1], e[2], p[ia], p[ia + 1], p[ia + 2],
        p[ib], p[ib + 1], p[ib + 2], p[ic], p[ic + 1], p[ic + 2]);
    case 'collision-matrix':
      return intersectCollisionMatrix(hit, matrices, t, s[0], s[1], s[2], e[0], e[1], e[2]);
    case 'plane-barycentric':
      return intersectPlaneBarycentric(hit, s[0], s[1], s[2], e[0], e[1], e[2], p[ia], p[ia + 1], p[ia + 2],
        p[ib], p[ib + 1], p[ib + 2], p[ic], p[ic + 1], p[ic + 2]);
  }
}

function translate(mesh: MeshArrays, ox: number, oy: number, oz: number): MeshArrays {
  const positions = new Float64Array(mesh.positions.length);
  for (let i = 0; i < positions.length; i += 3) {
    positions[i] = mesh.positions[i] + ox;
    positions[i + 1] = mesh.positions[i + 1] + oy;
    positions[i + 2] = mesh.positions[i + 2] + oz;
  }
  return { positions, indices: mesh.indices };
}

/** Checks the mesh is closed, 2-manifold, consistently and outward oriented; returns edge -> triangles. */
function topology(mesh: MeshArrays) {
  const { positions: p, indices } = mesh;
  const vertexCount = p.length / 3;
  const directed = new Map<number, number>();
  for (let t = 0; t < indices.length / 3; t++) {
    for (let k = 0; k < 3; k++) {
      const a = indices[3 * t + k], b = indices[3 * t + (k + 1) % 3];
      const key = a * vertexCount + b;
      expect(directed.has(key), 'each directed edge once (2-manifold, consistent winding)').toBe(false);
      directed.set(key, t);
    }
  }
  const edges: [number, number, number, number][] = []; // a, b, triangle on a->b, triangle on b->a
  for (const [key, t] of directed) {
    const a = Math.floor(key / vertexCount), b = key % vertexCount;
    if (a > b) continue;
    const twin = directed.get(b * vertexCount + a);
    expect(twin, 'every edge has a twin (closed)').toBeDefined();
    edges.push([a, b, t, twin!]);
  }
  const fan: number[][] = Array.from({ length: vertexCount }, () => []);
  let volume = 0;
  for (let t = 0; t < indices.length / 3; t++) {
    const ia = indices[3 * t] * 3, ib = indices[3 * t + 1] * 3, ic = indices[3 * t + 2] * 3;
    for (let k = 0; k < 3; k++) fan[indices[3 * t + k]].push(t);
    volume += p[ia] * (p[ib + 1] * p[ic + 2] - p[ib + 2] * p[ic + 1]) -
      p[ia + 1] * (p[ib] * p[ic + 2] - p[ib + 2] * p[ic]) + p[ia + 2] * (p[ib] * p[ic + 1] - p[ib + 1] * p[ic]);
  }
  expect(volume, 'counter-clockwise seen from outside: positive signed volume').toBeGreaterThan(0);
  return { edges, fan };
}

interface Counts { local: number; consistent: number; leaks: number }

function runLeakTest(name: string, base: MeshArrays, inside: [number, number, number], convex: boolean) {
  const { edges, fan } = topology(base);
  const vertexCount = base.positions.length / 3;
  const table: Record<string, Record<KernelName, string>> = {};
  const results: Record<number, Record<KernelName, Counts>> = {};
  let bboxDiag = 0;
  {
    const p = base.positions;
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.length; i++) {
      lo[i % 3] = Math.min(lo[i % 3], p[i]);
      hi[i % 3] = Math.max(hi[i % 3], p[i]);
    }
    bboxDiag = Math.sqrt((hi[0] - lo[0]) ** 2 + (hi[1] - lo[1]) ** 2 + (hi[2] - lo[2]) ** 2);
  }
  for (const offset of OFFSETS) {
    const ox = offset, oy = -0.7 * offset, oz = 0.4 * offset;
    const mesh = translate(base, ox, oy, oz);
    const matrices = buildCollisionMatrices(mesh.positions, mesh.indices);
    const triangleCount = mesh.indices.length / 3;
    const s = new Float64Array([inside[0] + ox, inside[1] + oy, inside[2] + oz]);
    const e = new Float64Array(3);
    const counts = Object.fromEntries(KERNELS.map((k) => [k, { local: 0, consistent: 0, leaks: 0 }])) as Record<KernelName, Counts>;
    let segments = 0;

    const aimAt = (tx: number, ty: number, tz: number, incident: ArrayLike<number>) => {
      // Extend the segment from the inside point through the target to twice the mesh's size away:
      // the stop is certainly outside.
      const dx = tx - s[0], dy = ty - s[1], dz = tz - s[2];
      const k = (2 * bboxDiag) / Math.sqrt(dx * dx + dy * dy + dz * dz);
      e[0] = s[0] + dx * k;
      e[1] = s[1] + dy * k;
      e[2] = s[2] + dz * k;
      prepareSegment(seg, s[0], s[1], s[2], e[0], e[1], e[2]);
      segments++;
      // Do all incident triangles face the same way along the segment?
      let facing = 0;
      let consistent = true;
      for (let i = 0; i < incident.length; i++) {
        const tt = incident[i];
        const ia = mesh.indices[3 * tt] * 3, ib = mesh.indices[3 * tt + 1] * 3, ic = mesh.indices[3 * tt + 2] * 3;
        const q = mesh.positions;
        const e1x = q[ib] - q[ia], e1y = q[ib + 1] - q[ia + 1], e1z = q[ib + 2] - q[ia + 2];
        const e2x = q[ic] - q[ia], e2y = q[ic + 1] - q[ia + 1], e2z = q[ic + 2] - q[ia + 2];
        const d = (e1y * e2z - e1z * e2y) * dx + (e1z * e2x - e1x * e2z) * dy + (e1x * e2y - e1y * e2x) * dz;
        const sign = d > 0 ? 1 : d < 0 ? -1 : 0;
        if (sign === 0 || (facing !== 0 && sign !== facing)) consistent = false;
        facing = sign;
      }
      for (const kernel of KERNELS) {
        let found = false;
        for (let i = 0; i < incident.length && !found; i++) found = testTriangle(kernel, mesh, matrices, incident[i], s, e);
        if (found) continue;
        counts[kernel].local++;
        if (consistent) counts[kernel].consistent++;
        if (convex) {
          counts[kernel].leaks++;
          continue;
        }
        for (let t = 0; t < triangleCount && !found; t++) found = testTriangle(kernel, mesh, matrices, t, s, e);
        if (!found) counts[kernel].leaks++;
      }
    };

    const p = mesh.positions;
    for (let v = 0; v < vertexCount; v++) aimAt(p[3 * v], p[3 * v + 1], p[3 * v + 2], fan[v]);
    const pair = [0, 0];
    for (const [a, b, t1, t2] of edges) {
      pair[0] = t1;
      pair[1] = t2;
      for (const lambda of [0.5, 1 / 3]) {
        aimAt(p[3 * a] + lambda * (p[3 * b] - p[3 * a]), p[3 * a + 1] + lambda * (p[3 * b + 1] - p[3 * a + 1]),
          p[3 * a + 2] + lambda * (p[3 * b + 2] - p[3 * a + 2]), pair);
      }
    }
    results[offset] = counts;
    table[`${name} offset ${offset} (${segments} segments)`] = Object.fromEntries(
      KERNELS.map((k) => [k, `${counts[k].leaks} leaks, ${counts[k].local} local misses (${counts[k].consistent} on open fans)`]),
    ) as Record<KernelName, string>;
  }
  console.log(`closed-mesh leak test, ${name}: ${base.indices.length / 3} triangles`);
  console.table(table);
  return results;
}

/** Counts watertight hits along a segment: odd means the start is inside a closed mesh. */
function crossings(mesh: MeshArrays, s: number[], e: number[]): number {
  prepareSegment(seg, s[0], s[1], s[2], e[0], e[1], e[2]);
  let n = 0;
  const p = mesh.positions;
  for (let t = 0; t < mesh.indices.length / 3; t++) {
    const ia = mesh.indices[3 * t] * 3, ib = mesh.indices[3 * t + 1] * 3, ic = mesh.indices[3 * t + 2] * 3;
    if (intersectPrepared(hit, seg, p[ia], p[ia + 1], p[ia + 2], p[ib], p[ib + 1], p[ib + 2], p[ic], p[ic + 1], p[ic + 2], false, 1)) n++;
  }
  return n;
}

describe('closed-mesh leak test', () => {
  it('icosphere (5 subdivisions): watertight never leaks, not even locally', () => {
    const sphere = icosphere(5);
    expect(sphere.indices.length / 3).toBe(20480);
    const results = runLeakTest('icosphere', sphere, [0.013, -0.021, 0.008], true);
    for (const offset of OFFSETS) {
      expect(results[offset].watertight, `offset ${offset}`).toEqual({ local: 0, consistent: 0, leaks: 0 });
    }
  });

  it('Stanford bunny: watertight never leaks, and misses locally only at silhouettes', async () => {
    const bunny = await readGlbTriangles(assetPath('stanford-bunny.glb'));
    // A point inside the body: every segment from it to far outside crosses the surface an odd
    // number of times.
    const inside: [number, number, number] = [-0.5, 3.5, 0.2];
    for (const dir of [[1, 0.1, 0.2], [-0.3, 1, 0.1], [0.2, -0.4, 1], [-1, -1, -1]]) {
      expect(crossings(bunny, inside, inside.map((x, i) => x + 40 * dir[i])) % 2, `parity along ${dir}`).toBe(1);
    }
    const results = runLeakTest('bunny', bunny, inside, false);
    for (const offset of OFFSETS) {
      expect(results[offset].watertight.leaks, `offset ${offset}`).toBe(0);
      expect(results[offset].watertight.consistent, `offset ${offset}: misses where the surface is not folded`).toBe(0);
    }
  });
});
