// Multi-hit segment queries (shots that pass through walls and players) against brute force.
//
// World.allHits: every triangle the segment meets must equal brute force over every triangle with
// the watertight kernel (intersectPrepared, both faces, tMax = 1): the same set of triangles, the
// same t, point, normal and front bits, in the same order (t, then triangle index); entry 0 is
// firstHit's answer. On the shipped levels (collision-world in full, bistro through an exact chunk
// filter) and on randomly transformed procedural meshes (test/helpers/meshScenes, as test/bvh.test.ts).
// A full record keeps the nearest hits and counts the rest; a closed box is entered through a front
// face and left through a back face, its thickness apart.
//
// Rewinder.allHits: one entry per player hit, which must equal Rewinder.firstHit over a histories
// array holding that player alone (same hitbox, same t bits, same record), sorted by t; entry 0 is
// firstHit's answer over all players.
import { describe, expect, it } from 'vitest';
import { createSegmentHit, type SegmentHit } from '../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment } from '../shared/kernels/watertight';
import { World, createWorldHit, createWorldHits, hitEntersSolid, type WorldHits } from '../shared/world/world';
import { createRewindPolicy, OutOfWindow, PlayerHistory } from '../shared/lagcomp/history';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createHitboxHit, createHitboxHits, Rewinder, type HitboxHits } from '../shared/lagcomp/rewind';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { loadLevelMesh } from '../server/level/gltf';
import { icosphere } from './helpers/icosphere';
import { mulberry32, type Uniform } from '../shared/util/prng';
import { assetPath, toFloat32, type MeshArrays } from './helpers/glb';
import { chunkCandidates, randomSoup, segments, terrain, transform } from './helpers/meshScenes';

type Mesh = MeshArrays;

interface BruteHit {
  t: number;
  tri: number;
  x: number; y: number; z: number;
  nx: number; ny: number; nz: number;
  front: number;
}

const bSeg = createPreparedSegment();
const bHit = createSegmentHit();

/** Kernel test of original triangle `t` against the prepared bSeg. */
function kernelTri(out: SegmentHit, m: Mesh, t: number): boolean {
  const p = m.positions;
  const a = m.indices[3 * t] * 3, b = m.indices[3 * t + 1] * 3, c = m.indices[3 * t + 2] * 3;
  return intersectPrepared(out, bSeg, p[a], p[a + 1], p[a + 2], p[b], p[b + 1], p[b + 2], p[c], p[c + 1], p[c + 2], false, 1);
}

/** Every kernel hit over the triangles in `list` (or all), sorted by t then triangle. */
function bruteAll(m: Mesh, s: ArrayLike<number>, list?: Int32Array, listLen?: number): BruteHit[] {
  prepareSegment(bSeg, s[0], s[1], s[2], s[3], s[4], s[5]);
  const out: BruteHit[] = [];
  const n = list ? listLen! : m.indices.length / 3;
  for (let j = 0; j < n; j++) {
    const t = list ? list[j] : j;
    if (!kernelTri(bHit, m, t)) continue;
    out.push({ t: bHit.t, tri: t, x: bHit.x, y: bHit.y, z: bHit.z, nx: bHit.nx, ny: bHit.ny, nz: bHit.nz, front: bHit.front ? 1 : 0 });
  }
  return out.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.tri - b.tri));
}

const wHit = createWorldHit();
const FIELDS = ['t', 'x', 'y', 'z', 'nx', 'ny', 'nz', 'front'] as const;

/** allHits and firstHit of segment s against the expected hits; the first mismatch or ''. */
function compareAll(world: World, out: WorldHits, s: ArrayLike<number>, want: BruteHit[]): string {
  const n = world.allHits(out, s[0], s[1], s[2], s[3], s[4], s[5]);
  const at = `for [${Array.from(s)}]`;
  if (out.total !== want.length) return `total ${out.total} vs brute ${want.length} ${at}`;
  if (n !== out.count || n !== Math.min(want.length, out.capacity)) return `count ${n} (${out.count}) vs ${Math.min(want.length, out.capacity)} ${at}`;
  for (let i = 0; i < n; i++) {
    const w = want[i];
    if (out.triangle[i] !== w.tri) return `entry ${i}: triangle ${out.triangle[i]} vs brute ${w.tri} ${at}`;
    for (const f of FIELDS) if (!Object.is(out[f][i], w[f])) return `entry ${i} field ${f}: ${out[f][i]} vs kernel ${w[f]} ${at}`;
    if (out.surface[i] !== world.surfaceOf(w.tri)) return `entry ${i}: surface ${out.surface[i]} vs ${world.surfaceOf(w.tri)}`;
  }
  const first = world.firstHit(wHit, s[0], s[1], s[2], s[3], s[4], s[5]);
  if (first !== want.length > 0) return `firstHit ${first} vs allHits ${want.length} hits ${at}`;
  if (first) {
    if (!Object.is(wHit.t, want[0].t)) return `firstHit t ${wHit.t} vs brute ${want[0].t} ${at}`;
    if (n > 0 && !Object.is(wHit.t, out.t[0])) return `firstHit t ${wHit.t} vs entry 0 ${out.t[0]} ${at}`;
    // On an exact tie firstHit may keep another of the tied triangles (traversal order).
    const tied = want.filter((w) => w.t === wHit.t);
    const mine = tied.find((w) => w.tri === wHit.triangle);
    if (!mine) return `firstHit triangle ${wHit.triangle} is not among the entries at t ${wHit.t} ${at}`;
    if (tied.length === 1 && n > 0 && out.triangle[0] !== wHit.triangle) return `firstHit triangle ${wHit.triangle} vs entry 0 ${out.triangle[0]}`;
    for (const f of FIELDS) if (!Object.is(f === 'front' ? (wHit.front ? 1 : 0) : wHit[f], mine[f])) return `firstHit field ${f} differs from its entry ${at}`;
  }
  return '';
}

/** Axis-aligned box as 12 triangles, outward counter-clockwise (as test/world.test.ts). */
function pushBox(pos: number[], idx: number[], x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void {
  const b = pos.length / 3;
  for (const [x, y, z] of [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] as const) pos.push(x, y, z);
  const f = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5];
  for (const i of f) idx.push(b + i);
}

const PROCEDURAL: { name: string; make: (rng: Uniform) => Mesh }[] = [
  { name: 'icosphere', make: () => icosphere(2) },
  { name: 'random soup', make: (rng) => randomSoup(rng, 400) },
  { name: 'terrain', make: (rng) => terrain(rng, 16) },
];

describe('World.allHits equals brute force over every triangle', () => {
  for (const scene of PROCEDURAL) {
    it(`${scene.name}, randomly transformed (offsets to 1e5), 6,000 seeded segments`, () => {
      const out = createWorldHits(256);
      let multi = 0;
      for (let run = 0; run < 10; run++) {
        const rng = mulberry32(0x5e9 + run);
        const offset = [0, 1e3, 1e5][run % 3];
        const m = toFloat32(transform(scene.make(rng), rng, offset));
        const world = World.fromTriangles(m.positions, m.indices);
        for (const s of segments(m, rng, 600)) {
          const want = bruteAll(m, s);
          if (want.length > 1) multi++;
          const msg = compareAll(world, out, s, want);
          if (msg) throw new Error(`${scene.name} run ${run}: ${msg}`);
        }
      }
      expect(multi).toBeGreaterThan(500);
    });
  }

  it('collision-world.glb: 10,000 seeded segments vs full brute force', async () => {
    const mesh = toFloat32(await loadLevelMesh(assetPath('collision-world.glb')));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    const out = createWorldHits(512);
    const rng = mulberry32(0xa11c);
    let hits = 0, multi = 0, most = 0;
    for (const s of segments(mesh, rng, 10_000)) {
      const want = bruteAll(mesh, s);
      if (want.length > 0) hits++;
      if (want.length > 1) multi++;
      most = Math.max(most, want.length);
      const msg = compareAll(world, out, s, want);
      if (msg) throw new Error(msg);
    }
    expect(hits).toBeGreaterThan(3000);
    expect(multi).toBeGreaterThan(1500);
    expect(most).toBeGreaterThan(8);
  });

  it('bistro-collision.glb: 3,000 seeded segments vs brute force over an exact chunk filter (itself checked on 50 vs every triangle)', async () => {
    const mesh = await loadLevelMesh(assetPath('bistro-collision.glb'));
    const world = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
    const chunks = chunkCandidates(mesh, 32);
    const out = createWorldHits(1024);
    const rng = mulberry32(0xb1a1);
    const segs = segments(mesh, rng, 3000);
    for (let i = 0; i < 50; i++) {
      const s = segs[i * 60];
      expect(bruteAll(mesh, s, chunks.list, chunks.fill(s))).toEqual(bruteAll(mesh, s));
    }
    let multi = 0, surfaces = 0;
    for (const s of segs) {
      const want = bruteAll(mesh, s, chunks.list, chunks.fill(s));
      if (want.length > 1) multi++;
      const msg = compareAll(world, out, s, want);
      if (msg) throw new Error(msg);
      for (let i = 0; i < out.count; i++) if (out.surface[i] >= 0) surfaces++;
    }
    expect(multi).toBeGreaterThan(1000);
    expect(surfaces).toBeGreaterThan(1000);
  }, 120_000);

  it('a full record keeps the nearest hits in order and counts them all', () => {
    const rng = mulberry32(77);
    const m = toFloat32(randomSoup(rng, 600));
    const world = World.fromTriangles(m.positions, m.indices);
    const big = createWorldHits(4096);
    let overflowed = 0;
    for (const cap of [0, 1, 2, 3, 5]) {
      const small = createWorldHits(cap);
      for (const s of segments(m, rng, 400)) {
        const want = bruteAll(m, s);
        expect(compareAll(world, small, s, want)).toBe('');
        expect(compareAll(world, big, s, want)).toBe('');
        if (want.length > cap) overflowed++;
        for (let i = 0; i < small.count; i++) expect([small.t[i], small.triangle[i]]).toEqual([big.t[i], big.triangle[i]]);
      }
    }
    expect(overflowed).toBeGreaterThan(500);
    expect(() => createWorldHits(-1)).toThrow(RangeError);
    expect(() => createWorldHits(1.5)).toThrow(RangeError);
  });

  it('non-finite and zero-length segments give 0 hits', () => {
    const m = toFloat32(icosphere(2));
    const world = World.fromTriangles(m.positions, m.indices);
    const out = createWorldHits();
    expect(world.allHits(out, -3, 0.1, 0.2, 3, 0.1, 0.2)).toBe(2);
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (let k = 0; k < 6; k++) {
        const s = [-3, 0.1, 0.2, 3, 0.1, 0.2];
        s[k] = bad;
        expect(world.allHits(out, s[0], s[1], s[2], s[3], s[4], s[5])).toBe(0);
        expect([out.count, out.total]).toEqual([0, 0]);
      }
    }
    expect(world.allHits(out, 0, 0, 0, 0, 0, 0)).toBe(0);
    expect(world.allHits(out, 1, 0, 0, 1, 0, 0)).toBe(0);
    expect([out.count, out.total]).toEqual([0, 0]);
  });

  it('a segment through a closed box enters through a front face and leaves through a back face, the thickness apart', () => {
    const pos: number[] = [];
    const idx: number[] = [];
    pushBox(pos, idx, 0, 0, 0, 0.25, 2, 2); // a wall 0.25 thick along x
    pushBox(pos, idx, 1, 0, 0, 1.5, 2, 2); // a second wall 0.5 thick
    const world = World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
    const out = createWorldHits();
    // Along x, off the faces' diagonals: t exact in binary.
    expect(world.allHits(out, -1, 0.5, 1.25, 3, 0.5, 1.25)).toBe(4);
    expect(Array.from(out.t.subarray(0, 4))).toEqual([0.25, 0.3125, 0.5, 0.625]);
    expect(Array.from(out.front.subarray(0, 4))).toEqual([1, 0, 1, 0]);
    expect([0, 1, 2, 3].map((i) => hitEntersSolid(out, i))).toEqual([true, false, true, false]);
    // Normals toward the start: -x on both faces (the front's outward normal, the back's flipped).
    expect(Array.from(out.nx.subarray(0, 4))).toEqual([-1, -1, -1, -1]);
    const len = 4;
    expect((out.t[1] - out.t[0]) * len).toBe(0.25);
    expect((out.t[3] - out.t[2]) * len).toBe(0.5);
    // Slanted: the chord through each wall is its thickness over |dx| / length.
    const rng = mulberry32(3);
    for (let i = 0; i < 200; i++) {
      const s = [-1 - rng(), 0.2 + 1.6 * rng(), 0.2 + 1.6 * rng()];
      const e = [3 + rng(), 0.2 + 1.6 * rng(), 0.2 + 1.6 * rng()];
      const d = [e[0] - s[0], e[1] - s[1], e[2] - s[2]];
      const L = Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      const n = world.allHits(out, s[0], s[1], s[2], e[0], e[1], e[2]);
      // A point on a face diagonal meets both of its triangles at the same t: keep one per t.
      const ts: number[] = [], fronts: number[] = [];
      for (let k = 0; k < n; k++) if (k === 0 || out.t[k] !== out.t[k - 1]) { ts.push(out.t[k]); fronts.push(out.front[k]); }
      expect(fronts).toEqual([1, 0, 1, 0]);
      expect((ts[1] - ts[0]) * L).toBeCloseTo((0.25 * L) / d[0], 12);
      expect((ts[3] - ts[2]) * L).toBeCloseTo((0.5 * L) / d[0], 12);
    }
  });
});

// --- Rewinder ---

const rig = MANNEQUIN_RIG;
const rewinder = new Rewinder(rig);
const HZ = 64, DT = 1000 / HZ;

/** Histories of n players in a square of `size` metres, 40 ticks; random full rotations for odd slots. */
function makeHistories(rnd: Uniform, n: number, size: number): (PlayerHistory | undefined)[] {
  const histories: (PlayerHistory | undefined)[] = [];
  const pose = createPlayerPose();
  for (let p = 0; p < n; p++) {
    const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 1000));
    histories.push(h);
    const x = (rnd() - 0.5) * size, z = (rnd() - 0.5) * size, vx = (rnd() - 0.5) * 6, vz = (rnd() - 0.5) * 6;
    const q = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() + 0.1];
    const ql = Math.hypot(...q);
    const yaw = rnd() * 6, clip = Math.floor(rnd() * 4);
    for (let tick = 0; tick < 40; tick++) {
      const s = tick / HZ;
      pose.x = x + vx * s; pose.y = 0; pose.z = z + vz * s;
      if (p % 2 === 1) {
        pose.qx = q[0] / ql; pose.qy = q[1] / ql; pose.qz = q[2] / ql; pose.qw = q[3] / ql;
      } else {
        const half = (yaw + s) / 2;
        pose.qx = 0; pose.qy = Math.sin(half); pose.qz = 0; pose.qw = Math.cos(half);
      }
      pose.clip = clip; pose.time = s; pose.alive = p % 7 !== 3;
      h.record(tick, tick * DT, pose);
    }
  }
  return histories;
}

const one = createHitboxHit();

/** allHits against firstHit per player and over all; the first mismatch or ''. */
function compareRewind(rw: Rewinder, out: HitboxHits, histories: (PlayerHistory | undefined)[], timeMs: number, s: number[], exclude: number, tMax: number): string {
  const n = rw.allHits(out, histories, timeMs, s[0], s[1], s[2], s[3], s[4], s[5], exclude, tMax);
  const want: { p: number; t: number; hitbox: number; zone: number; bone: number; status: number; rec: number[] }[] = [];
  const solo: (PlayerHistory | undefined)[] = [];
  for (let p = 0; p < histories.length; p++) {
    solo.length = 0;
    solo[p] = histories[p];
    if (!rw.firstHit(one, solo, timeMs, s[0], s[1], s[2], s[3], s[4], s[5], exclude, tMax)) continue;
    if (one.player !== p) return `solo firstHit gave player ${one.player} for ${p}`;
    want.push({ p, t: one.t, hitbox: one.hitbox, zone: one.zone, bone: one.bone, status: one.status, rec: [one.x, one.y, one.z, one.nx, one.ny, one.nz, one.front ? 1 : 0] });
  }
  // Sorted by t, equal t by slot from the highest.
  want.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : b.p - a.p));
  if (out.total !== want.length || n !== Math.min(want.length, out.capacity) || out.count !== n) return `count ${n} / total ${out.total} vs ${want.length}`;
  for (let i = 0; i < n; i++) {
    const w = want[i];
    const got = { p: out.player[i], t: out.t[i], hitbox: out.hitbox[i], zone: out.zone[i], bone: out.bone[i], status: out.status[i], rec: [out.x[i], out.y[i], out.z[i], out.nx[i], out.ny[i], out.nz[i], out.front[i]] };
    if (!Object.is(got.t, w.t)) return `entry ${i}: t ${got.t} vs solo firstHit ${w.t}`;
    if (JSON.stringify(got) !== JSON.stringify(w)) return `entry ${i}: ${JSON.stringify(got)} vs solo firstHit ${JSON.stringify(w)}`;
  }
  const first = rw.firstHit(one, histories, timeMs, s[0], s[1], s[2], s[3], s[4], s[5], exclude, tMax);
  if (first !== want.length > 0) return `firstHit ${first} vs ${want.length} players`;
  if (first && n > 0 && (one.player !== out.player[0] || one.hitbox !== out.hitbox[0] || !Object.is(one.t, out.t[0]))) {
    return `firstHit player ${one.player} hitbox ${one.hitbox} t ${one.t} vs entry 0 player ${out.player[0]} hitbox ${out.hitbox[0]} t ${out.t[0]}`;
  }
  return '';
}

describe('Rewinder.allHits equals firstHit player by player', () => {
  it('random poses of 12 players (dead, empty and excluded slots), 1,500 segments, tMax from 0.3 to 1', () => {
    const rnd = mulberry32(0x4e11);
    const histories = makeHistories(rnd, 12, 4);
    histories[5] = undefined;
    const out = createHitboxHits(16);
    const sampled = createPlayerPose();
    const policy = createRewindPolicy();
    let multi = 0, hits = 0;
    for (let q = 0; q < 1500; q++) {
      const timeMs = 39 * DT - rnd() * 240;
      // Through a point near a random player's body, from 8 to 12 m away, running as far past it.
      const target = histories[Math.floor(rnd() * 12)] ?? histories[0]!;
      target.sampleAt(sampled, timeMs, policy);
      const T = [sampled.x + (rnd() - 0.5) * 0.8, 0.1 + rnd() * 1.7, sampled.z + (rnd() - 0.5) * 0.8];
      const a = rnd() * 2 * Math.PI, d = 8 + 4 * rnd();
      const s = [T[0] + Math.cos(a) * d, T[1] + (rnd() - 0.5) * 4, T[2] + Math.sin(a) * d];
      const seg = [...s, 2 * T[0] - s[0], 2 * T[1] - s[1], 2 * T[2] - s[2]];
      const tMax = q % 3 === 0 ? 0.3 + 0.7 * rnd() : 1;
      const msg = compareRewind(rewinder, out, histories, timeMs, seg, q % 13, tMax);
      if (msg) throw new Error(`segment ${q}: ${msg}`);
      if (out.count > 0) hits++;
      if (out.count > 1) multi++;
    }
    expect(hits).toBeGreaterThan(350); // 488 with this seed
    expect(multi).toBeGreaterThan(50); // 71
  });

  it('a row of players on the line of fire: every one, nearest first; a small record keeps the nearest', () => {
    const pose = createPlayerPose();
    const histories: PlayerHistory[] = [];
    // Slots in an order that is not the order along the line.
    const zs = [6, 2, 10, 4, 8, 0];
    for (const z of zs) {
      const h = new PlayerHistory(8);
      pose.z = z;
      h.record(0, 0, pose);
      histories.push(h);
    }
    const out = createHitboxHits(64);
    const shot = [0, 1.4, -5, 0, 1.4, 15]; // through the chests along z
    expect(rewinder.allHits(out, histories, 0, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(6);
    expect(Array.from(out.player.subarray(0, 6))).toEqual([5, 1, 3, 0, 4, 2]);
    expect(rewinder.lastCandidates).toBe(6);
    expect(compareRewind(rewinder, out, histories, 0, shot, -1, 1)).toBe('');
    const small = createHitboxHits(2);
    expect(rewinder.allHits(small, histories, 0, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(2);
    expect([small.count, small.total]).toEqual([2, 6]);
    expect(Array.from(small.player)).toEqual([5, 1]);
    expect(Array.from(small.t)).toEqual(Array.from(out.t.subarray(0, 2)));
    expect(compareRewind(rewinder, small, histories, 0, shot, -1, 1)).toBe('');
    // tMax stops the row; the shooter's slot is skipped.
    expect(rewinder.allHits(out, histories, 0, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], 3, 0.5)).toBe(2);
    expect(Array.from(out.player.subarray(0, 2))).toEqual([5, 1]);
    expect(compareRewind(rewinder, out, histories, 0, shot, 3, 0.5)).toBe('');
    // Two players in exactly the same pose tie: the highest slot first, as firstHit keeps it.
    const twins = [histories[1], histories[1]];
    expect(rewinder.allHits(out, twins, 0, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(2);
    expect(out.t[0]).toBe(out.t[1]);
    expect(rewinder.firstHit(one, twins, 0, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(true);
    expect([out.player[0], out.player[1]]).toEqual([one.player, 1 - one.player]);
    expect(compareRewind(rewinder, out, twins, 0, shot, -1, 1)).toBe('');
    expect(() => createHitboxHits(-2)).toThrow(RangeError);
  });

  it('policy, dead players and hostile input: as firstHit, and 0 hits for non-finite input', () => {
    const rnd = mulberry32(9);
    const histories = makeHistories(rnd, 6, 3);
    const strict = new Rewinder(rig, { policy: createRewindPolicy(100, OutOfWindow.REJECT) });
    const out = createHitboxHits();
    for (let q = 0; q < 200; q++) {
      const timeMs = 39 * DT - rnd() * 300; // partly outside the strict window
      const s = [(rnd() - 0.5) * 12, 0.2 + rnd() * 1.6, (rnd() - 0.5) * 12];
      const seg = [...s, -s[0], 1.8 - s[1], -s[2]];
      expect(compareRewind(strict, out, histories, timeMs, seg, -1, 1)).toBe('');
    }
    const shot = [0, 1.4, -5, 0, 1.4, 15];
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (let k = 0; k < 6; k++) {
        const s = shot.slice();
        s[k] = bad;
        expect(rewinder.allHits(out, histories, 20, s[0], s[1], s[2], s[3], s[4], s[5], -1)).toBe(0);
        expect([out.count, out.total]).toEqual([0, 0]);
      }
      expect(rewinder.allHits(out, histories, bad, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(0);
      expect(rewinder.allHits(out, histories, 20, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1, bad === Infinity ? NaN : bad)).toBe(0);
    }
    expect(rewinder.allHits(out, histories, 20, 1, 1, 1, 1, 1, 1, -1)).toBe(0);
  });
});
