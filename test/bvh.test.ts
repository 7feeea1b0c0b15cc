// The BVH against brute force. Every segment's first hit through the World (BVH, inlined mirror of
// the watertight kernel) must equal brute force over all triangles with the kernel itself
// (intersectPrepared): same hit/miss, the same t bit for bit, the same triangle when t is unique
// (on an exact tie at a shared edge any of the tied triangles is right), and the same full record
// bit for bit. anyHit must agree with hit/miss.
//
// The world stores float32 vertices (double input is rounded once at build), so brute force runs
// over the same rounded vertices (toFloat32).
//
// Scenes: randomly transformed procedural meshes (icosphere, random soup, height-field terrain;
// offsets up to 1e5 from the origin), collision-world.glb, and bistro-collision.glb. Segments:
// incoherent, starting or ending on or inside geometry, running along axes through vertex
// coordinates (so they graze box faces, which are made of those coordinates), and lying in box-face
// planes.
//
// Bistro (259,324 triangles): full brute force for 10,000 segments would be 2.6e9 triangle tests,
// too slow for the suite. So the 10,000 bistro segments are checked against an exact second method:
// brute force over chunks of 32 consecutive triangles (file order, no tree, no SAH) whose
// double-precision boxes are tested conservatively first. That method is itself checked against
// full brute force on 200 segments here.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSegmentHit, type SegmentHit } from '../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment } from '../shared/kernels/watertight';
import { World, createWorldHit, type WorldHit } from '../shared/world/world';
import { bvhAnyHit, bvhAnyHitCached } from '../shared/bvh/traverse';
import { loadLevelMesh } from '../server/level/gltf';
import { fnv1a64 } from '../shared/util/hash';
import { icosphere } from './helpers/icosphere';
import { mulberry32, type Uniform } from '../shared/util/prng';
import { assetPath, meshBounds as bounds, toFloat32, type MeshArrays } from './helpers/glb';
import { chunkCandidates, randomSoup, segments, terrain, transform } from './helpers/meshScenes';

type Mesh = MeshArrays;

interface Brute {
  hit: boolean;
  t: number;
  tri: number;
  /** How many triangles reach exactly t. */
  ties: number;
}

const bSeg = createPreparedSegment();
const bHit = createSegmentHit();

/** Kernel test of original triangle `t` (prepared segment bSeg). */
function kernelTri(out: SegmentHit, m: Mesh, t: number): boolean {
  const p = m.positions;
  const a = m.indices[3 * t] * 3, b = m.indices[3 * t + 1] * 3, c = m.indices[3 * t + 2] * 3;
  return intersectPrepared(out, bSeg, p[a], p[a + 1], p[a + 2], p[b], p[b + 1], p[b + 2], p[c], p[c + 1], p[c + 2], false, 1);
}

/** Brute force over the triangles in `list` (or all): smallest t, first triangle on a tie, tie count. */
function brute(m: Mesh, s: ArrayLike<number>, list?: Int32Array, listLen?: number): Brute {
  prepareSegment(bSeg, s[0], s[1], s[2], s[3], s[4], s[5]);
  let best = Infinity, tri = -1, ties = 0;
  const n = list ? listLen! : m.indices.length / 3;
  for (let j = 0; j < n; j++) {
    const t = list ? list[j] : j;
    if (kernelTri(bHit, m, t)) {
      if (bHit.t < best) { best = bHit.t; tri = t; ties = 1; }
      else if (bHit.t === best) { ties++; if (t < tri) tri = t; }
    }
  }
  return { hit: tri >= 0, t: best, tri, ties };
}

const wHit = createWorldHit();
const kHit = createSegmentHit();

/** Compares the world's answer for segment s with brute force; returns a description of the first mismatch or ''. */
function compare(world: World, m: Mesh, s: ArrayLike<number>, b: Brute): string {
  const got = world.firstHit(wHit, s[0], s[1], s[2], s[3], s[4], s[5]);
  const any = world.anyHit(s[0], s[1], s[2], s[3], s[4], s[5]);
  if (got !== b.hit) return `hit ${got} vs brute ${b.hit} for [${Array.from(s)}]`;
  if (any !== b.hit) return `anyHit ${any} vs brute ${b.hit} for [${Array.from(s)}]`;
  if (!got) return '';
  if (!Object.is(wHit.t, b.t)) return `t ${wHit.t} vs brute ${b.t} for [${Array.from(s)}]`;
  if (b.ties === 1 && wHit.triangle !== b.tri) return `triangle ${wHit.triangle} vs brute ${b.tri} (unique t)`;
  // The world's triangle must be one brute force also hits at exactly t, with the kernel's record.
  prepareSegment(bSeg, s[0], s[1], s[2], s[3], s[4], s[5]);
  if (!kernelTri(kHit, m, wHit.triangle) || !Object.is(kHit.t, wHit.t)) return `triangle ${wHit.triangle} is not hit at t`;
  for (const f of ['x', 'y', 'z', 'u', 'v', 'nx', 'ny', 'nz', 'front'] as const) {
    if (!Object.is(kHit[f], wHit[f])) return `record field ${f}: ${wHit[f]} vs kernel ${kHit[f]}`;
  }
  return '';
}


const PROCEDURAL: { name: string; make: (rng: Uniform) => Mesh }[] = [
  { name: 'icosphere', make: () => icosphere(2) },
  { name: 'random soup', make: (rng) => randomSoup(rng, 400) },
  { name: 'terrain', make: (rng) => terrain(rng, 16) },
];

describe('BVH first hit equals brute force', () => {
  for (const scene of PROCEDURAL) {
    it(`${scene.name}, randomly transformed (offsets to 1e5), 12,000 seeded segments`, () => {
      let checked = 0;
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.constantFrom(0, 1e3, 1e5), (seed, offset) => {
          const rng = mulberry32(seed);
          const m = toFloat32(transform(scene.make(rng), rng, offset));
          const world = World.fromTriangles(m.positions, m.indices);
          for (const s of segments(m, rng, 600)) {
            const msg = compare(world, m, s, brute(m, s));
            checked++;
            if (msg) throw new Error(`${scene.name} seed ${seed} offset ${offset}: ${msg}`);
          }
        }),
        { seed: 0x3b1d, numRuns: 20 },
      );
      expect(checked).toBe(12_000);
    });
  }

  it('segments along axes whose other components move by a denormal amount (inverse overflows) still equal brute force', () => {
    const rng = mulberry32(12);
    for (const make of [(r: Uniform) => terrain(r, 12), (r: Uniform) => randomSoup(r, 300)]) {
      const m = toFloat32(make(rng));
      const world = World.fromTriangles(m.positions, m.indices);
      let hits = 0;
      for (const s of segments(m, rng, 4000)) {
        // Segments of kinds 5 and 6 run along an axis; nudge their still coordinates by 1e-310 or 5e-324.
        for (let k = 0; k < 3; k++) if (s[3 + k] === s[k]) s[3 + k] += (rng() < 0.5 ? -1 : 1) * (rng() < 0.5 ? 1e-310 : 5e-324);
        const b = brute(m, s);
        if (b.hit) hits++;
        expect(compare(world, m, s, b)).toBe('');
      }
      expect(hits).toBeGreaterThan(500);
    }
  });

  it('float32 input (as the benchmark feeds) gives the same answers as its double copy', () => {
    const rng = mulberry32(7);
    const m = transform(randomSoup(rng, 300), rng, 50);
    const p32 = Float32Array.from(m.positions);
    const m64 = { positions: Float64Array.from(p32), indices: m.indices };
    const world = World.fromTriangles(p32, m.indices);
    for (const s of segments(m64, rng, 500)) expect(compare(world, m64, s, brute(m64, s))).toBe('');
  });

  it('collision-world.glb: 10,000 seeded segments vs full brute force; the floor at x = z = 0 is y = -1.745', async () => {
    // Its baked transforms give some positions that are not float32: brute force sees the world's.
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    expect(world.triangleCount).toBe(1754);
    const rng = mulberry32(0xc0111);
    let hits = 0;
    for (const s of segments(mesh, rng, 10_000)) {
      const b = brute(mesh, s);
      if (b.hit) hits++;
      const msg = compare(world, mesh, s, b);
      if (msg) throw new Error(msg);
    }
    expect(hits).toBeGreaterThan(3000);
    // The known fact: a downward segment at x = z = 0 meets the floor at y = -1.745.
    expect(world.firstHit(wHit, 0, 10, 0, 0, -10, 0)).toBe(true);
    expect(wHit.y.toFixed(3)).toBe('-1.745');
    expect(world.groundHeight(0, 10, 0, 20).toFixed(3)).toBe('-1.745');
    expect(wHit.ny).toBeGreaterThan(0.99);
  });

  it('collision-world.glb: any hit with an occluder cache (bvhAnyHitCached) says what brute force says, and names a triangle it meets', async () => {
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    const b = world.arrays();
    const rng = mulberry32(0x0cc1);
    // Newest first, as fog of war keeps it; the last two slots hold junk offsets (none, past the end, not a multiple of 3).
    const cache = new Int32Array([-1, -1, -1, b.tris.length + 3]);
    const q = new Float64Array(7);
    let fromCache = 0, fromTree = 0, clear = 0;
    for (const s0 of segments(mesh, rng, 2000)) {
      // A bundle of nearby segments, as one pair's lines are: they tend to meet the same triangle.
      for (let j = 0; j < 5; j++) {
        for (let i = 0; i < 6; i++) q[i] = s0[i]! + (j === 0 ? 0 : (rng() - 0.5) * 0.2);
        const before = Array.from(cache.subarray(0, 2));
        const k = bvhAnyHitCached(b, q, cache, 4);
        const want = brute(mesh, q);
        expect(k >= 0, `segment [${Array.from(q.subarray(0, 6))}]`).toBe(want.hit);
        expect(k >= 0).toBe(bvhAnyHit(b, q));
        if (k < 0) { clear++; continue; }
        // The named triangle is one brute force meets (the kernel on its original corners).
        prepareSegment(bSeg, q[0], q[1], q[2], q[3], q[4], q[5]);
        expect(k % 3).toBe(0);
        expect(kernelTri(kHit, mesh, world.originalTriangle(k / 3))).toBe(true);
        if (before.includes(k)) fromCache++; else fromTree++;
        if (cache[0] !== k) { cache[1] = cache[0]!; cache[0] = k; }
        cache[2] = 1 + 3 * Math.floor(rng() * 500);
      }
    }
    expect(fromCache).toBeGreaterThan(1000);
    expect(fromTree).toBeGreaterThan(1000);
    expect(clear).toBeGreaterThan(1000);
  });

  it('bistro-collision.glb: 10,000 seeded segments vs exact chunked brute force (itself checked on 200 vs full brute force)', async () => {
    const mesh = await loadLevelMesh(assetPath('bistro-collision.glb'));
    // Every bistro position is a float32 already: the world's vertices are the file's, unrounded.
    expect(toFloat32(mesh).positions).toEqual(mesh.positions);
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    expect(world.triangleCount).toBe(259_324);
    const chunked = makeChunked(mesh, 32);
    const rng = mulberry32(0xb157);
    const segs = segments(mesh, rng, 10_000);
    // The second method must equal full brute force (t bit for bit, tie-broken triangle).
    for (let i = 0; i < 200; i++) {
      const s = segs[i * 50];
      const full = brute(mesh, s);
      const fast = chunked(s);
      expect([fast.hit, fast.t, fast.tri, fast.ties]).toEqual([full.hit, full.t, full.tri, full.ties]);
    }
    let hits = 0;
    for (const s of segs) {
      const b = chunked(s);
      if (b.hit) hits++;
      const msg = compare(world, mesh, s, b);
      if (msg) throw new Error(msg);
    }
    expect(hits).toBeGreaterThan(3000);
  }, 120_000);
});

/**
 * The exact second method for big levels: triangles in file order, in chunks of `size`, each with a
 * double-precision box; a segment is tested against a chunk's box grown by a generous margin
 * (comparisons only, NaN-safe), then brute force runs over the triangles of every chunk it touches.
 * Conservative box + the same kernel = the same answer as full brute force.
 */
function makeChunked(m: Mesh, size: number): (s: ArrayLike<number>) => Brute {
  const c = chunkCandidates(m, size);
  return (s) => brute(m, s, c.list, c.fill(s));
}

describe('closed meshes through the BVH: 0 leaks', () => {
  // From a point inside a closed mesh, segments aimed exactly at every vertex and at a point on every
  // edge, extended well outside: each crosses the surface, so each must hit (firstHit and anyHit),
  // at offsets 0, 1e4 and 1e5 from the origin. Same setup as the kernels' leak test, through the tree.
  function leakCount(m: Mesh, inside: [number, number, number], offset: number, rng: Uniform): number {
    const q = new Float64Array(m.positions.length);
    for (let i = 0; i < q.length; i++) q[i] = m.positions[i] + offset;
    const world = World.fromTriangles(q, m.indices);
    const b = bounds({ positions: q, indices: m.indices });
    const size = Math.max(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
    const sx = inside[0] + offset, sy = inside[1] + offset, sz = inside[2] + offset;
    let leaks = 0;
    const targets: number[] = [];
    for (let v = 0; v < q.length; v += 3) targets.push(q[v], q[v + 1], q[v + 2]);
    for (let t = 0; t < m.indices.length / 3; t++) {
      const a = m.indices[3 * t] * 3, c = m.indices[3 * t + 1] * 3;
      const f = rng();
      targets.push(q[a] + f * (q[c] - q[a]), q[a + 1] + f * (q[c + 1] - q[a + 1]), q[a + 2] + f * (q[c + 2] - q[a + 2]));
    }
    for (let i = 0; i < targets.length; i += 3) {
      const dx = targets[i] - sx, dy = targets[i + 1] - sy, dz = targets[i + 2] - sz;
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      const k = (2 * size) / l;
      const ex = sx + dx * k, ey = sy + dy * k, ez = sz + dz * k;
      if (!world.firstHit(wHit, sx, sy, sz, ex, ey, ez) || !world.anyHit(sx, sy, sz, ex, ey, ez)) leaks++;
    }
    return leaks;
  }

  it('icosphere (5,120 triangles) and the Stanford bunny (3,674), offsets 0, 1e4, 1e5', async () => {
    const bunny = await loadLevelMesh(assetPath('stanford-bunny.glb'));
    const rng = mulberry32(99);
    for (const offset of [0, 1e4, 1e5]) {
      expect(leakCount(icosphere(4), [0.01, -0.02, 0.03], offset, rng)).toBe(0);
      // The same inside point the kernels' leak test checks by parity.
      expect(leakCount(bunny, [-0.5, 3.5, 0.2], offset, rng)).toBe(0);
    }
  });
});

describe('world buffer', () => {
  it('round-trips through toBuffer/fromBuffer with the same hash and answers; building is deterministic', () => {
    const rng = mulberry32(5);
    const m = transform(randomSoup(rng, 200), rng, 10);
    const ranges = [
      { start: 0, count: 120, node: 'crate', material: 'wood' },
      { start: 120, count: 80, node: 'pipe', material: 'métal' },
    ];
    const a = World.fromTriangles(m.positions, m.indices, ranges);
    const b = World.fromTriangles(m.positions, m.indices, ranges);
    expect(a.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(b.hash).toBe(a.hash);
    const c = World.fromBuffer(a.toBuffer());
    // A view at an odd offset (as a file read into a bigger Node Buffer would be) loads the same world.
    const bytes = new Uint8Array(a.toBuffer());
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    expect(World.fromBuffer(padded.subarray(3)).hash).toBe(a.hash);
    expect(() => World.fromBuffer('nope' as unknown as ArrayBuffer)).toThrow(/ArrayBuffer/);
    expect(c.hash).toBe(a.hash);
    expect(c.surfaces).toEqual(a.surfaces);
    // The hash names the bytes after the header's hash field (magic and version are checked exactly).
    expect(fnv1a64(new Uint8Array(c.toBuffer()).subarray(16))).toBe(a.hash);
    const h1 = createWorldHit();
    const h2 = createWorldHit();
    for (const s of segments(m, rng, 300)) {
      const x = a.firstHit(h1, s[0], s[1], s[2], s[3], s[4], s[5]);
      const y = c.firstHit(h2, s[0], s[1], s[2], s[3], s[4], s[5]);
      expect(y).toBe(x);
      if (x) {
        expect([h2.t, h2.triangle, h2.surface]).toEqual([h1.t, h1.triangle, h1.surface]);
        expect(a.surfaces[h1.surface]).toEqual(h1.triangle < 120 ? { node: 'crate', material: 'wood' } : { node: 'pipe', material: 'métal' });
      }
    }
    // Another level, another name.
    const m2 = { positions: m.positions.map((v, i) => (i === 0 ? v + 1e-3 : v)), indices: m.indices };
    expect(World.fromTriangles(m2.positions, m2.indices, ranges).hash).not.toBe(a.hash);
  });

  it('compact bytes: float32 vertices welded by value, double input rounded once, at most 40 bytes per triangle on bistro', async () => {
    const rng = mulberry32(11);
    const m = transform(terrain(rng, 20), rng, 300);
    // Double input that is not float32-exact is the world of its float32 rounding: same bytes.
    const a = World.fromTriangles(m.positions, m.indices);
    const b = World.fromTriangles(Float32Array.from(m.positions), m.indices);
    expect(a.hash).toBe(b.hash);
    expect(new Uint8Array(a.toBuffer())).toEqual(new Uint8Array(b.toBuffer()));
    // The same triangles without shared vertices (each corner its own vertex) weld back to the
    // indexed mesh's vertices: same bytes, same hash.
    const n = m.indices.length / 3;
    const flat = new Float64Array(n * 9);
    for (let t = 0; t < n; t++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) flat[t * 9 + j * 3 + k] = m.positions[m.indices[3 * t + j] * 3 + k];
    const seq = new Uint32Array(n * 3).map((_, i) => i);
    const c = World.fromTriangles(flat, seq);
    expect(c.vertexCount).toBe(21 * 21);
    expect(c.hash).toBe(a.hash);
    const bistro = await loadLevelMesh(assetPath('bistro-collision.glb'));
    const w = World.fromTriangles(bistro.positions, bistro.indices, bistro.surfaceRanges);
    expect(w.byteLength / w.triangleCount).toBeLessThanOrEqual(40);
  }, 60_000);

  it('FNV-1a 64 matches the published test vectors', () => {
    const enc = new TextEncoder();
    expect(fnv1a64(enc.encode(''))).toBe('cbf29ce484222325');
    expect(fnv1a64(enc.encode('a'))).toBe('af63dc4c8601ec8c');
    expect(fnv1a64(enc.encode('foobar'))).toBe('85944171f73967e8');
  });

  // Corrupt bytes: test/worldValidation.test.ts.
  it('refuses a triangle soup with non-finite corners, indices out of range or no triangles', () => {
    expect(() => World.fromTriangles(new Float64Array([0, 0, 0, 1, 0, 0, NaN, 1, 0]), new Uint32Array([0, 1, 2]))).toThrow(/not finite/);
    expect(() => World.fromTriangles(new Float64Array(9), new Uint32Array([0, 1, 5]))).toThrow(/out of range/);
    expect(() => World.fromTriangles(new Float64Array(9), new Uint32Array([]))).toThrow(/non-empty/);
  });
});
