// A BVH's leaf ancestors (shared/bvh/ancestors) and the any-hit query started at a subtree
// (shared/bvh/traverse bvhAnyHit's root, bvhAnyHitCached's subtree): each triangle's ancestor is
// the node the given number of levels above its leaf and holds it; a query from a subtree meets
// exactly what brute force over that subtree's triangles meets; a cached query that tries a subtree
// first still says what brute force over the whole level says.
import { describe, expect, it } from 'vitest';
import { createSegmentHit } from '../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment } from '../shared/kernels/watertight';
import { World } from '../shared/world/world';
import { bvhAnyHit, bvhAnyHitCached, type BvhArrays } from '../shared/bvh/traverse';
import { leafAncestors } from '../shared/bvh/ancestors';
import { loadLevelMesh } from '../server/level/gltf';
import { mulberry32 } from '../shared/util/prng';
import { assetPath, toFloat32, type MeshArrays } from './helpers/glb';
import { segments } from './helpers/meshScenes';

const seg = createPreparedSegment();
const hit = createSegmentHit();

/** Parent and depth of every node reached from the root, and each triangle's leaf, by walking the tree. */
function walk(b: BvhArrays): { parent: Map<number, number>; depth: Map<number, number>; leafOf: Int32Array } {
  const U = b.nodesI;
  const parent = new Map([[0, -1]]), depth = new Map([[0, 0]]);
  const leafOf = new Int32Array(b.tris.length / 3).fill(-1);
  const stack = [0];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const cnt = U[n * 8 + 7]!, first = U[n * 8 + 6]!;
    if (cnt > 0) for (let t = first; t < first + cnt; t++) leafOf[t] = n;
    else for (const c of [first, first + 1]) { parent.set(c, n); depth.set(c, depth.get(n)! + 1); stack.push(c); }
  }
  return { parent, depth, leafOf };
}

/** The triangles (leaf order) under node n. */
function under(b: BvhArrays, n: number): number[] {
  const U = b.nodesI, out: number[] = [];
  const stack = [n];
  while (stack.length > 0) {
    const m = stack.pop()!;
    const cnt = U[m * 8 + 7]!, first = U[m * 8 + 6]!;
    if (cnt > 0) for (let t = first; t < first + cnt; t++) out.push(t);
    else stack.push(first, first + 1);
  }
  return out;
}

/** Brute force with the kernel over the original triangles behind the leaf-order triangles `list`. */
function bruteOver(mesh: MeshArrays, world: World, q: Float64Array, list: readonly number[]): boolean {
  prepareSegment(seg, q[0]!, q[1]!, q[2]!, q[3]!, q[4]!, q[5]!);
  const p = mesh.positions;
  for (const t of list) {
    const o = world.originalTriangle(t);
    const a = mesh.indices[3 * o]! * 3, bb = mesh.indices[3 * o + 1]! * 3, c = mesh.indices[3 * o + 2]! * 3;
    if (intersectPrepared(hit, seg, p[a]!, p[a + 1]!, p[a + 2]!, p[bb]!, p[bb + 1]!, p[bb + 2]!, p[c]!, p[c + 1]!, p[c + 2]!, false, 1)) return true;
  }
  return false;
}

describe('BVH leaf ancestors and subtree queries', () => {
  it('collision-world.glb: each triangle\'s ancestor is up levels above its leaf (the root where fewer) and holds it', async () => {
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const b = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges).arrays();
    const { parent, depth, leafOf } = walk(b);
    for (const up of [0, 1, 3, 50]) {
      const anc = leafAncestors(b, up);
      expect(anc.length).toBe(b.tris.length / 3);
      for (let t = 0; t < anc.length; t++) {
        let a = leafOf[t]!;
        for (let k = 0; k < up && parent.get(a)! >= 0; k++) a = parent.get(a)!;
        expect(anc[t]).toBe(a);
        expect(depth.get(leafOf[t]!)! - depth.get(a)!).toBe(Math.min(up, depth.get(leafOf[t]!)!));
      }
      if (up === 3) for (let t = 0; t < anc.length; t += 97) expect(under(b, anc[t]!)).toContain(t);
    }
  });

  it('collision-world.glb: a query from a subtree meets what brute force over its triangles meets; the cached query with a subtree says what brute force over all says', async () => {
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    const b = world.arrays();
    const anc = leafAncestors(b, 3);
    const all = Array.from({ length: b.tris.length / 3 }, (_, t) => t);
    const rng = mulberry32(0x5b7e);
    const q = new Float64Array(7);
    const cache = new Int32Array([-1]);
    let last = -1, inSubtree = 0, fromTree = 0, clear = 0;
    for (const s0 of segments(mesh, rng, 400)) for (let j = 0; j < 5; j++) {
      // A bundle of nearby segments, as one pair's lines are: the subtree of the triangle the
      // previous one met often holds the next one's, else that of a random triangle is tried.
      for (let i = 0; i < 6; i++) q[i] = s0[i]! + (j === 0 ? 0 : (rng() - 0.5) * 0.2);
      if (j === 0) last = -1;
      const near = last >= 0 ? last : Math.floor(rng() * anc.length);
      const root = anc[near]!;
      const inRoot = bvhAnyHit(b, q, root);
      expect(inRoot).toBe(bruteOver(mesh, world, q, under(b, root)));
      const k = bvhAnyHitCached(b, q, cache, 0, root);
      const want = bruteOver(mesh, world, q, all);
      expect(k >= 0, `segment [${Array.from(q.subarray(0, 6))}]`).toBe(want);
      expect(k >= 0).toBe(bvhAnyHit(b, q));
      if (k < 0) { clear++; last = -1; continue; }
      expect(k % 3).toBe(0);
      expect(bruteOver(mesh, world, q, [k / 3])).toBe(true);
      if (inRoot) inSubtree++; else fromTree++;
      last = k / 3;
    }
    expect(inSubtree).toBeGreaterThan(100);
    expect(fromTree).toBeGreaterThan(100);
    expect(clear).toBeGreaterThan(100);
  });
});
