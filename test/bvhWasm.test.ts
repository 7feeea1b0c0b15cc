// The BVH build's WebAssembly kernels (shared/bvh/wasm) against its plain JavaScript path: the same
// node bytes, leaf order and depth on both shipped levels and on property-based random soups built
// to hit the cases where float arithmetic could tell them apart: -0 and +0 mixed on a box face (the
// bins' zero test and the first-met order), all centroids equal (halving), denormal and huge
// coordinates, and nodes on both sides of the key-binning threshold (double input is built in
// JavaScript). Also: the committed module bytes are a fresh compile of the .wat, small enough for a
// browser's main thread to compile synchronously, and corners that are not finite are refused only
// where a triangle uses them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildBvh, type BvhBuildOptions, type BvhBuildResult } from '../shared/bvh/build';
import { buildKernel } from '../shared/bvh/wasm/kernel';
import { BUILD_KERNEL_HEX } from '../shared/bvh/wasm/buildKernel';
// @ts-expect-error: a plain .mjs build script without declarations
import { compileKernel, kernelSource, TS_PATH } from '../server/build/wasm.mjs';
import { loadLevelMesh } from '../server/level/gltf';
import { mulberry32, type Uniform } from '../shared/util/prng';
import { assetPath } from './helpers/glb';

/** Both paths' trees for one input; fails on the first difference. */
function expectSameTree(positions: Float32Array | Float64Array, indices: Uint32Array, options: BvhBuildOptions = {}, what = ''): void {
  const js = buildBvh(positions, indices, { ...options, wasm: false });
  const wasm = buildBvh(positions, indices, options);
  expectSame(js, wasm, what);
}

function expectSame(js: BvhBuildResult, wasm: BvhBuildResult, what: string): void {
  expect(wasm.nodeCount, what).toBe(js.nodeCount);
  expect(wasm.depth, what).toBe(js.depth);
  let firstByte = -1;
  for (let i = 0; i < js.nodes.length && firstByte < 0; i++) if (js.nodes[i] !== wasm.nodes[i]) firstByte = i;
  expect(firstByte, `${what}: first differing node byte`).toBe(-1);
  let firstOrder = -1;
  for (let i = 0; i < js.order.length && firstOrder < 0; i++) if (js.order[i] !== wasm.order[i]) firstOrder = i;
  expect(firstOrder, `${what}: first differing leaf-order entry`).toBe(-1);
  expect(Array.from(wasm.bounds), what).toEqual(Array.from(js.bounds));
}

type Kind = 'special' | 'zeroFace' | 'zeroCorner' | 'equal' | 'sameCentroid' | 'clustered' | 'tiny' | 'huge';

/** A float32 coordinate from a mix of special values and ordinary ones. */
function special(r: Uniform): number {
  const u = r();
  if (u < 0.12) return 0;
  if (u < 0.24) return -0;
  if (u < 0.3) return (r() < 0.5 ? -1 : 1) * 1e-42;
  if (u < 0.36) return (r() < 0.5 ? -1 : 1) * 3e38;
  if (u < 0.5) return Math.round((r() - 0.5) * 8);
  return Math.fround((r() - 0.5) * 200);
}

/** A triangle soup of one kind (one triangle per three vertices). */
function soup(kind: Kind, tris: number, seed: number): { positions: Float32Array; indices: Uint32Array } {
  const r = mulberry32(seed);
  const p = new Float32Array(tris * 9);
  const zero = (): number => (r() < 0.5 ? 0 : -0);
  for (let t = 0; t < tris; t++) {
    const cx = (r() - 0.5) * 1000, cy = (r() - 0.5) * 1000, cz = (r() - 0.5) * 1000;
    for (let v = 0; v < 3; v++) {
      const o = t * 9 + v * 3;
      switch (kind) {
        case 'special':
          p[o] = special(r); p[o + 1] = special(r); p[o + 2] = special(r);
          break;
        case 'zeroFace':
          // Triangles on the plane y = 0 (either zero) and on x = 0 next to it, so large nodes have
          // zero bounds met in both signs.
          if (t % 3 === 0) { p[o] = zero(); p[o + 1] = (r() - 0.5) * 50; p[o + 2] = (r() - 0.5) * 50; }
          else { p[o] = (r() - 0.5) * 50; p[o + 1] = zero(); p[o + 2] = (r() - 0.5) * 50; }
          break;
        case 'zeroCorner':
          // Coordinates >= 0, a third of them zeros of either sign: every bound at the low corner
          // (the whole soup's included) is a zero met in both signs.
          p[o] = r() < 0.3 ? zero() : r() * 50; p[o + 1] = r() < 0.3 ? zero() : r() * 50; p[o + 2] = r() < 0.3 ? zero() : r() * 50;
          break;
        case 'equal':
          p[o] = v === 0 ? 1 : -0; p[o + 1] = v === 1 ? 2 : 0; p[o + 2] = v === 2 ? -3 : 0;
          break;
        case 'sameCentroid': {
          // Boxes of every size around one centre: centroids all equal, boxes not.
          const s = r() * 10;
          p[o] = v === 0 ? s : -s; p[o + 1] = v === 1 ? s : -s; p[o + 2] = v === 2 ? -s : s;
          break;
        }
        case 'clustered':
          p[o] = cx + (r() - 0.5) * 3; p[o + 1] = cy + (r() - 0.5) * 3; p[o + 2] = cz + (r() - 0.5) * 3;
          break;
        case 'tiny':
          p[o] = (r() - 0.5) * 1e-40; p[o + 1] = (r() - 0.5) * 1e-40; p[o + 2] = r() < 0.3 ? zero() : (r() - 0.5) * 1e-43;
          break;
        case 'huge':
          p[o] = (r() - 0.5) * 6e38; p[o + 1] = (r() - 0.5) * 6e38; p[o + 2] = r() < 0.3 ? zero() : cz * 1e35;
          break;
      }
    }
  }
  const indices = new Uint32Array(tris * 3);
  for (let i = 0; i < indices.length; i++) indices[i] = i;
  return { positions: p, indices };
}

describe('BVH build on the WebAssembly kernels', () => {
  it('runs on this host (Node has WebAssembly SIMD)', () => {
    expect(buildKernel()).not.toBeNull();
  });

  it('the committed module is a fresh compile of buildKernel.wat, under 4 KB', async () => {
    const bytes: Uint8Array = await compileKernel();
    expect(readFileSync(TS_PATH, 'utf8')).toBe(kernelSource(bytes));
    expect(BUILD_KERNEL_HEX.length / 2).toBe(bytes.length);
    expect(bytes.length).toBeLessThanOrEqual(4096);
  });

  it('builds the same tree as the JavaScript path on both shipped levels', async () => {
    for (const name of ['collision-world.glb', 'bistro-collision.glb']) {
      const mesh = await loadLevelMesh(assetPath(name));
      const p32 = Float32Array.from(mesh.positions);
      expectSameTree(p32, mesh.indices, {}, name);
    }
  });

  it('builds the same tree on random soups (zeros of both signs, equal centroids, denormal and huge coordinates)', () => {
    const kinds: Kind[] = ['special', 'zeroFace', 'zeroCorner', 'equal', 'sameCentroid', 'clustered', 'tiny', 'huge'];
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 80, max: 9_000 })),
        fc.integer({ min: 0, max: 0x7fffffff }),
        fc.constantFrom(undefined, 0, 64, 1 << 30),
        fc.constantFrom(undefined, 1, 4, 16),
        (kind, tris, seed, keyBinningBelow, maxLeaf) => {
          const { positions, indices } = soup(kind, tris, seed);
          expectSameTree(positions, indices, { keyBinningBelow, maxLeaf }, `${kind}, ${tris} triangles, seed ${seed}`);
        },
      ),
      { numRuns: 150, seed: 0x5eed },
    );
  });

  it('refuses a corner that is not finite where a triangle uses it, and only there', () => {
    // Vertex 3 is used by no triangle; the kernel reads the x after each corner (lane 3), so vertex
    // 2's load sees it and the JavaScript check decides.
    const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, NaN, Infinity, 0, 5, 5, 5]);
    const indices = new Uint32Array([0, 1, 2, 2, 1, 4]);
    expectSameTree(positions, indices);
    positions[13] = -Infinity;
    expect(() => buildBvh(positions, indices)).toThrow(/triangle 1 has a coordinate that is not finite/);
  });

  it('builds the same tree where large nodes have a zero bound met in both signs', () => {
    // Above the key-binning threshold (4,096 records), so the first-met rule and the kernel's
    // re-binning in record order decide the zero's sign.
    for (const kind of ['zeroFace', 'zeroCorner'] as const) {
      for (const seed of [1, 2, 3]) {
        const { positions, indices } = soup(kind, 12_000, seed);
        expectSameTree(positions, indices, {}, `${kind} seed ${seed}`);
        expectSameTree(positions, indices, { keyBinningBelow: 0 }, `${kind} seed ${seed}, all unkeyed`);
      }
    }
  });
});
