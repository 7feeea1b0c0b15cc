// World queries beyond the first hit: swept sphere (vs brute force with the kernel over every
// triangle; seams and corners never let a sphere through), ground height (vs brute force), camera
// push-back (exact numbers on a wall, equal to the same method over brute-force hits on the real
// level), surfaces, and hostile input (never throws, never hits, changes nothing).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSegmentHit } from '../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment } from '../shared/kernels/watertight';
import { buildSweepFrames, createSweepHit, sweepSphereTriangle } from '../shared/kernels/sweptSphere';
import { World, createWorldHit } from '../shared/world/world';
import { DEFAULT_LEVEL_PATH, loadLevelMesh, loadWorld } from '../server/level/gltf';
import { icosphere } from './helpers/icosphere';
import { mulberry32, type Uniform } from '../shared/util/prng';
import { assetPath, meshBounds as bounds, toFloat32, type MeshArrays } from './helpers/glb';

type Mesh = MeshArrays;

function soup(m: Mesh): Float64Array {
  const n = m.indices.length / 3;
  const out = new Float64Array(n * 9);
  for (let t = 0; t < n; t++) {
    for (let j = 0; j < 3; j++) {
      const v = m.indices[3 * t + j] * 3;
      out[t * 9 + j * 3] = m.positions[v];
      out[t * 9 + j * 3 + 1] = m.positions[v + 1];
      out[t * 9 + j * 3 + 2] = m.positions[v + 2];
    }
  }
  return out;
}


const sweepTmp = createSweepHit();
/** Brute force sweep: earliest kernel contact over every triangle. */
function bruteSweep(frames: Float64Array, n: number, p: number[], r: number): number {
  let best = Infinity;
  for (let t = 0; t < n; t++) {
    if (sweepSphereTriangle(sweepTmp, frames, t, p[0], p[1], p[2], p[3], p[4], p[5], r) && sweepTmp.t < best) best = sweepTmp.t;
  }
  return best;
}

/** Axis-aligned box as 12 triangles, outward counter-clockwise. */
function pushBox(pos: number[], idx: number[], x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void {
  const b = pos.length / 3;
  for (const [x, y, z] of [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] as const) pos.push(x, y, z);
  const f = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5];
  for (const i of f) idx.push(b + i);
}

/**
 * A room seen from inside: floor y = 0, walls x = 0 and z = 0, each a quad split into two triangles
 * (diagonal seam), facing into the room (+x, +y, +z), plus a second row of wall quads so walls have
 * seams between quads too.
 */
function room(): Mesh {
  const pos: number[] = [];
  const idx: number[] = [];
  const quad = (a: number[], b: number[], c: number[], d: number[]) => {
    const o = pos.length / 3;
    pos.push(...a, ...b, ...c, ...d);
    idx.push(o, o + 1, o + 2, o, o + 2, o + 3);
  };
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 2; j++) {
      const u0 = i * 5, u1 = u0 + 5, v0 = j * 5, v1 = v0 + 5;
      quad([u0, 0, v0], [u0, 0, v1], [u1, 0, v1], [u1, 0, v0]); // floor, normal +y
      quad([0, u0, v0], [0, u1, v0], [0, u1, v1], [0, u0, v1]); // wall x = 0, normal +x
      quad([u0, v0, 0], [u1, v0, 0], [u1, v1, 0], [u0, v1, 0]); // wall z = 0, normal +z
    }
  }
  return { positions: new Float64Array(pos), indices: new Uint32Array(idx) };
}

describe('swept sphere through the BVH', () => {
  it('equals brute force (never later) on an icosphere, a room of split quads and collision-world', async () => {
    // Brute force over the world's vertices: float32 (World.fromTriangles rounds double input).
    const level = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const scenes: { name: string; mesh: Mesh; runs: number; per: number }[] = [
      { name: 'icosphere', mesh: toFloat32(icosphere(2)), runs: 10, per: 200 },
      { name: 'room', mesh: room(), runs: 10, per: 200 },
      { name: 'collision-world', mesh: level, runs: 2, per: 500 },
    ];
    for (const sc of scenes) {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (seed) => {
          const rng = mulberry32(seed);
          const m = sc.mesh;
          const world = World.fromTriangles(m.positions, m.indices);
          const frames = buildSweepFrames(soup(m), null);
          const n = m.indices.length / 3;
          const b = bounds(m);
          const ext = Math.max(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
          const out = createSweepHit();
          let hits = 0;
          for (let i = 0; i < sc.per; i++) {
            const p: number[] = [];
            for (let k = 0; k < 3; k++) p.push(b[k] - 0.3 * ext + rng() * 1.6 * (b[k + 3] - b[k] + 0.1));
            for (let k = 0; k < 3; k++) p.push(b[k] + rng() * (b[k + 3] - b[k]));
            if (i % 5 === 0) p[4] = p[1]; // level moves, as players do
            const r = rng() < 0.2 ? 0 : rng() * 0.08 * ext;
            const want = bruteSweep(frames, n, p, r);
            const got = world.sweepSphere(out, p[0], p[1], p[2], p[3], p[4], p[5], r);
            expect(got).toBe(want !== Infinity);
            if (got) {
              hits++;
              // Never later than brute force, and in fact the same earliest contact.
              expect(out.t).toBe(want);
            }
          }
          return hits > 0;
        }),
        { seed: 0x5e1f, numRuns: sc.runs },
      );
    }
  });

  it('a sphere aimed at a wall seam or into a corner never passes through (room of split quads)', () => {
    const m = room();
    const world = World.fromTriangles(m.positions, m.indices);
    const out = createSweepHit();
    const rng = mulberry32(4);
    const r = 0.5;
    // Targets: points on seams (diagonals and quad borders) and the corners where walls meet.
    const targets: number[][] = [
      [0, 0, 0], [0, 5, 0], [5, 0, 0], [0, 0, 5], [0, 5, 5], [5, 0, 5], [5, 5, 0], [0, 2.5, 2.5], [2.5, 0, 2.5], [2.5, 2.5, 0],
      [0, 7.5, 7.5], [7.5, 0, 7.5], [0, 5, 3], [3, 0, 5], [0, 0, 3], [3, 0, 0], [0, 3, 0],
    ];
    let checked = 0;
    for (const tgt of targets) {
      for (let i = 0; i < 200; i++) {
        // Start inside the room, at least r from every wall; move through the target and beyond.
        const s = [r + 0.01 + rng() * 8, r + 0.01 + rng() * 8, r + 0.01 + rng() * 8];
        const e = [2 * tgt[0] - s[0] - rng(), 2 * tgt[1] - s[1] - rng(), 2 * tgt[2] - s[2] - rng()];
        expect(world.sweepSphere(out, s[0], s[1], s[2], e[0], e[1], e[2], r)).toBe(true);
        expect(out.t).toBeLessThan(1);
        // The centre at contact is still r from every wall plane (up to rounding).
        expect(Math.min(out.cx, out.cy, out.cz)).toBeGreaterThanOrEqual(r - 1e-9);
        checked++;
      }
    }
    // Along a seam: gliding just above the floor (clearance 0.01) exactly over the quad border x = 5,
    // toward the wall z = 0: the floor seam must not snag it, the wall must stop it at z = r.
    expect(world.sweepSphere(out, 5, r + 0.01, 8, 5, r + 0.01, -3, r)).toBe(true);
    expect(out.cz).toBeCloseTo(r, 9);
    expect(out.nz).toBeCloseTo(1, 9);
    // Sliding in the floor/wall seam (touching neither: 0.01 clearance) into the far wall z = 0.
    expect(world.sweepSphere(out, r + 0.01, r + 0.01, 8, r + 0.01, r + 0.01, -3, r)).toBe(true);
    expect(out.cz).toBeCloseTo(r, 9);
    expect(checked).toBe(targets.length * 200);
  });

  it('hostile input misses without throwing', () => {
    const m = room();
    const world = World.fromTriangles(m.positions, m.indices);
    const out = createSweepHit();
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(world.sweepSphere(out, bad, 1, 1, 2, 2, 2, 0.5)).toBe(false);
      expect(world.sweepSphere(out, 1, 1, 1, 2, 2, bad, 0.5)).toBe(false);
      expect(world.sweepSphere(out, 1, 1, 1, 2, 2, 2, bad)).toBe(false);
    }
    expect(world.sweepSphere(out, 1, 1, 1, 2, 2, 2, -1)).toBe(false);
    expect(world.sweepSphere(out, 1, 1, 1, 1, 1, 1, 0.5)).toBe(false); // zero-length path
  });
});

describe('ground height', () => {
  it('equals the brute-force first surface below on collision-world; NaN when none within maxDrop', async () => {
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    const seg = createPreparedSegment();
    const h = createSegmentHit();
    const b = bounds(mesh);
    const rng = mulberry32(11);
    let found = 0;
    for (let i = 0; i < 2000; i++) {
      const x = b[0] + rng() * (b[3] - b[0]), y = b[1] + rng() * (b[4] - b[1] + 2), z = b[2] + rng() * (b[5] - b[2]);
      const drop = rng() * 10;
      prepareSegment(seg, x, y, z, x, y - drop, z);
      let best = Infinity, by = NaN;
      const p = mesh.positions;
      for (let t = 0; t < mesh.indices.length / 3; t++) {
        const a = mesh.indices[3 * t] * 3, bb = mesh.indices[3 * t + 1] * 3, c = mesh.indices[3 * t + 2] * 3;
        if (intersectPrepared(h, seg, p[a], p[a + 1], p[a + 2], p[bb], p[bb + 1], p[bb + 2], p[c], p[c + 1], p[c + 2], false, 1) && h.t < best) {
          best = h.t;
          by = h.y;
        }
      }
      const got = world.groundHeight(x, y, z, drop);
      if (Number.isNaN(by)) expect(got).toBeNaN();
      else {
        found++;
        expect(got).toBe(by);
      }
    }
    expect(found).toBeGreaterThan(500);
    expect(world.groundHeight(0, 10, 0, 5)).toBeNaN(); // floor is 11.745 below
    for (const bad of [NaN, Infinity, -1, 0]) expect(world.groundHeight(0, 10, 0, bad)).toBeNaN();
    expect(world.groundHeight(NaN, 10, 0, 20)).toBeNaN();
  });
});

describe('camera push-back (seed 003 line method)', () => {
  const LINES = new Float64Array([0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5, 0.4, 0, 0.4, -0.4, 0, 0.4]);

  it('keeps the line length of clearance from a wall, exactly', () => {
    // A wall x = 0 (two triangles, facing +x), 10 x 10.
    const world = World.fromTriangles(new Float64Array([0, -5, -5, 0, 5, -5, 0, 5, 5, 0, -5, 5]), new Uint32Array([0, 1, 2, 0, 2, 3]));
    const out = new Float64Array(3);
    expect(world.cameraPushBack(out, 0.2, 1, 1, LINES)).toBe(true);
    expect(Array.from(out)).toEqual([0.5, 1, 1]);
    // Far enough already: unchanged.
    expect(world.cameraPushBack(out, 0.7, 1, 1, LINES)).toBe(false);
    expect(Array.from(out)).toEqual([0.7, 1, 1]);
    // Behind the wall the same holds mirrored.
    expect(world.cameraPushBack(out, -0.1, 1, 1, LINES)).toBe(true);
    expect(out[0]).toBeCloseTo(-0.5, 12);
  });

  it('equals the same method over brute-force hits on collision-world', async () => {
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    const seg = createPreparedSegment();
    const h = createSegmentHit();
    const p = mesh.positions;
    const bruteFirst = (s: number[], e: number[]): number[] | null => {
      prepareSegment(seg, s[0], s[1], s[2], e[0], e[1], e[2]);
      let best = Infinity, pt: number[] | null = null;
      for (let t = 0; t < mesh.indices.length / 3; t++) {
        const a = mesh.indices[3 * t] * 3, b = mesh.indices[3 * t + 1] * 3, c = mesh.indices[3 * t + 2] * 3;
        if (intersectPrepared(h, seg, p[a], p[a + 1], p[a + 2], p[b], p[b + 1], p[b + 2], p[c], p[c + 1], p[c + 2], false, 1) && h.t < best) {
          best = h.t;
          pt = [h.x, h.y, h.z];
        }
      }
      return pt;
    };
    const b = bounds(mesh);
    const rng = mulberry32(21);
    const out = new Float64Array(3);
    let moved = 0;
    for (let i = 0; i < 300; i++) {
      let P = [b[0] + rng() * (b[3] - b[0]), b[1] + rng() * (b[4] - b[1]), b[2] + rng() * (b[5] - b[2])];
      const start = P.slice();
      let m = false;
      for (let l = 0; l < LINES.length; l += 3) {
        for (const side of [1, -1]) {
          const o = [LINES[l] * side, LINES[l + 1] * side, LINES[l + 2] * side];
          const H = bruteFirst(P, [P[0] + o[0], P[1] + o[1], P[2] + o[2]]);
          if (H) {
            const N = [H[0] - o[0], H[1] - o[1], H[2] - o[2]];
            if (N[0] !== P[0] || N[1] !== P[1] || N[2] !== P[2]) m = true;
            P = N;
          }
        }
      }
      expect(world.cameraPushBack(out, start[0], start[1], start[2], LINES)).toBe(m);
      expect(Array.from(out)).toEqual(P);
      if (m) moved++;
    }
    expect(moved).toBeGreaterThan(20);
  });

  it('hostile input leaves the position unchanged', () => {
    const world = World.fromTriangles(new Float64Array([0, -5, -5, 0, 5, -5, 0, 5, 5]), new Uint32Array([0, 1, 2]));
    const out = new Float64Array(3);
    expect(world.cameraPushBack(out, NaN, 0, 0, LINES)).toBe(false);
    expect(world.cameraPushBack(out, 0.1, 0, 0, new Float64Array([1, 2]))).toBe(false);
    expect(Array.from(out)).toEqual([0.1, 0, 0]);
    expect(world.cameraPushBack(out, 0.1, 0, 0, new Float64Array([NaN, 0, 0]))).toBe(false);
  });
});

describe('first hit: surfaces and hostile input', () => {
  it('names the node and material hit on bistro (26 surfaces covering every triangle)', async () => {
    const mesh = await loadLevelMesh(assetPath('bistro-collision.glb'));
    expect(mesh.surfaceRanges.length).toBe(26);
    expect(mesh.surfaceRanges.reduce((n, r) => n + r.count, 0)).toBe(259_324);
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    expect(world.surfaces.length).toBe(26);
    const h = createWorldHit();
    expect(world.firstHit(h, 0, 20, 0, 0, -20, 0)).toBe(true);
    const r = mesh.surfaceRanges[h.surface];
    expect(h.triangle).toBeGreaterThanOrEqual(r.start);
    expect(h.triangle).toBeLessThan(r.start + r.count);
    expect(world.surfaces[h.surface]).toEqual({ node: r.node, material: r.material });
    expect(world.surfaces[h.surface].node).toBe('Ground_ColOcc');
  });

  it('non-finite, huge and zero-length segments miss without throwing', async () => {
    const world = await loadWorld();
    expect(DEFAULT_LEVEL_PATH.endsWith('collision-world.glb')).toBe(true);
    const h = createWorldHit();
    const rng = mulberry32(3);
    const bads = [NaN, Infinity, -Infinity, 1e308, -1e308];
    for (let i = 0; i < 200; i++) {
      const s = [rng() * 10 - 5, rng() * 4, rng() * 10 - 5, rng() * 10 - 5, rng() * 4 - 3, rng() * 10 - 5];
      const k = i % 6;
      s[k] = bads[i % bads.length];
      const got = world.firstHit(h, s[0], s[1], s[2], s[3], s[4], s[5]);
      const any = world.anyHit(s[0], s[1], s[2], s[3], s[4], s[5]);
      if (Number.isFinite(s[k])) {
        // 1e308: finite but the direction overflows; either way no exception and hit/any agree.
        expect(any).toBe(got);
      } else {
        expect(got).toBe(false);
        expect(any).toBe(false);
        expect(h.triangle).toBe(-1);
      }
    }
    expect(world.firstHit(h, 0, 1, 0, 0, 1, 0)).toBe(false);
    expect(world.firstHit(h, 0, -1.7448010444641113, 0, 0, -1.7448010444641113, 0)).toBe(false); // zero length on the floor
    // Segment lying in the floor plane's height, moving along an axis (grazing): hit/any agree with brute force elsewhere; here just no throw.
    expect(() => world.firstHit(h, -5, -1.7448010444641113, 0, 5, -1.7448010444641113, 0)).not.toThrow();
  });
});
