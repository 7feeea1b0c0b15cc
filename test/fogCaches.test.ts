/**
 * Fog of war's speed-ups (shared/fog) against the plain rule, over seeded players running about the
 * default level (jumps, walls, ramps): the wide regions a hidden pair is re-tested on first
 * (hiddenWiden) never hide a pair the uncached rule shows; the tight tier (hiddenTight) hides nearly what the
 * plain rule hides at fewer rays; the occluder cache and the line memory
 * (shared/fog/lineMemory: the triangle that blocked each line of a hidden pair last time) change no
 * verdict and no ray count, only which triangles are tried before the tree; and the line memory's
 * bookkeeping (records taken, given back, taken from their owner when none is free) and the
 * triangles across each edge it tries next (against brute force over the level's triangles).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../server/level/gltf';
import { autoSpawnPoints } from '../server/level/spawnPoints';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { createMoveState, defaultMoveConfig, stepMovement, type MoveInputLike } from '../shared/movement/step';
import { mulberry32 } from '../shared/util/prng';
import { buildClimbMap, FOG_NO_CACHES, FogOfWar, fogConfigOf, fogMotionOf, horizonSeconds, type FogConfig } from '../shared/fog/index';
import { bodySamples, bruteVisible, eyeSamples, type BrutePlayer, type BruteOptions } from './helpers/fogBrute';
import { edgeNeighbours, LineMemory } from '../shared/fog/lineMemory';
import type { World } from '../shared/world/world';

const HZ = 64, N = 12, TICKS = 4 * HZ, PATCH_MS = 1000 / HZ, SAFETY_MS = 25;
const oneWayMs = (i: number): number => 20 + 5 * i;
const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const EYE = MANNEQUIN_RIG.eyeHeight;

/** Per tick, per player: x y z vx vy vz of N seeded players wandering the level after 3 s spreading out. */
function wander(world: World, seed: number): Float64Array {
  const spawns = autoSpawnPoints(world, N, DEFAULT_LEVEL_PATH);
  const rnd = mulberry32(seed);
  const ps = Array.from({ length: N }, (_, i) => ({ s: createMoveState(spawns[i % spawns.length].x, spawns[i % spawns.length].y, spawns[i % spawns.length].z), wx: 0, wz: 0, until: 0 }));
  const input: MoveInputLike = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };
  const out = new Float64Array(TICKS * N * 6), spread = 3 * HZ;
  for (let t = 0; t < spread + TICKS; t++) {
    ps.forEach((p, i) => {
      if (t >= p.until) {
        const a = 2 * Math.PI * rnd(), still = rnd() < 0.15;
        p.wx = still ? 0 : Math.cos(a); p.wz = still ? 0 : Math.sin(a);
        p.until = t + Math.floor((0.3 + 1.7 * rnd()) * HZ);
      }
      input.wishX = p.wx; input.wishZ = p.wz; input.viewX = p.wx || 1; input.viewZ = p.wz; input.jump = rnd() < 0.01;
      stepMovement(p.s, input, world, move, 1 / HZ);
      if (t >= spread) out.set([p.s.x, p.s.y, p.s.z, p.s.vx, p.s.vy, p.s.vz], ((t - spread) * N + i) * 6);
    });
  }
  return out;
}

function fogOf(world: World, cfg: FogConfig): FogOfWar {
  const fog = new FogOfWar(world, cfg, N);
  for (let i = 0; i < N; i++) fog.setTiming(i, oneWayMs(i), 100, PATCH_MS, SAFETY_MS);
  return fog;
}

function player(m: Float64Array, t: number, i: number): BrutePlayer {
  const o = (t * N + i) * 6;
  return { x: m[o], y: m[o + 1], z: m[o + 2], vx: m[o + 3], vy: m[o + 4], vz: m[o + 5], eye: EYE };
}

function load(fog: FogOfWar, m: Float64Array, t: number): void {
  for (let i = 0; i < N; i++) {
    const o = (t * N + i) * 6;
    fog.setPlayer(i, m[o], m[o + 1], m[o + 2], m[o + 3], m[o + 4], m[o + 5], EYE, true, -1);
  }
}

describe('fog of war: the caches against the plain rule', async () => {
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const climb = buildClimbMap(world, move.stepHeight);
  const base = fogConfigOf(fogMotionOf(move, 1 / HZ), MANNEQUIN_RIG, { climb });
  const plain: FogConfig = { ...base, ...FOG_NO_CACHES };

  it('re-testing hidden pairs on wide regions first: every pair it hides that the narrow cache shows is hidden to brute force; it withholds as much', () => {
    // Feet are kept at or above where they are (the level's floors are not one plane; the fog's own floor bound does the rest).
    const motion = base.motion, o = (floorY: number): BruteOptions => ({ eyeRings: 2, eyeAngles: 8, eyeHeights: 3, feet: 6, bodyPoints: 16, floorY });
    const rnd = mulberry32(0xb7f);
    const hb = horizonSeconds(0, 0, PATCH_MS, SAFETY_MS) + 1 / HZ;
    const seen = { plainHidden: 0, narrowHidden: 0, wideHidden: 0, narrowHiddenPlainShows: 0, wideHiddenPlainShows: 0, bruteChecked: 0, narrowRays: 0, wideRays: 0 };
    for (const seed of [0x51de, 0x77a1]) {
      const m = wander(world, seed);
      const ref = fogOf(world, plain), narrow = fogOf(world, { ...base, hiddenWiden: 1 }), wide = fogOf(world, base);
      for (let t = 0; t < TICKS; t++) {
        for (const f of [ref, narrow, wide]) { load(f, m, t); f.update(); }
        seen.narrowRays += narrow.rays; seen.wideRays += wide.rays;
        for (let p = 0; p < N * N; p++) {
          if (wide.visible[p] === 0) seen.wideHidden++;
          if (narrow.visible[p] === 0) seen.narrowHiddenPlainShows += ref.visible[p];
          if (wide.visible[p] === 0 && ref.visible[p] === 1) seen.wideHiddenPlainShows++;
          if (wide.visible[p] === 0 && narrow.visible[p] === 1) {
            // A verdict the wide regions add. (Regions holding the plain ones sample other lines than the
            // plain rule does, the narrow cache's too, so neither is the reference: brute force is.)
            seen.bruteChecked++;
            const v = Math.floor(p / N), e = p % N, h = horizonSeconds(oneWayMs(v), 100, PATCH_MS, SAFETY_MS) + 1 / HZ;
            const pv = player(m, t, v), pe = player(m, t, e);
            const b = bruteVisible(world, eyeSamples(world, motion, climb, pv, h, o(pv.y)), bodySamples(world, motion, climb, MANNEQUIN_RIG, pe, hb, o(pe.y), rnd));
            expect(b.visible, `tick ${t}: ${e} hidden from ${v} on the wide regions, visible to brute force`).toBe(false);
          }
          seen.plainHidden += 1 - ref.visible[p];
          seen.narrowHidden += 1 - narrow.visible[p];
        }
      }
    }
    console.log(`[fog] wide regions: ${JSON.stringify(seen)}`);
    // Hidden pair-updates: the plain rule's are the most; the wide regions withhold no less than the narrow cache alone.
    expect(seen.wideHidden).toBeGreaterThanOrEqual(seen.narrowHidden);
    expect(seen.wideRays).toBeLessThan(seen.narrowRays);
    expect(seen.bruteChecked).toBeGreaterThan(20);
  });

  it('the tight tier (hiddenTight below 1): it hides more than the grown regions, nearly what the plain rule hides, at fewer rays than the plain rule', () => {
    // Without the visible hold, so each update's verdicts compare with the plain rule's. (Whether what
    // it hides stays out of sight of the players' real eyes: test/fogPaths.test.ts.)
    const tiers = [1, 0.25, 0] as const;
    const hidden = tiers.map(() => 0), rays = tiers.map(() => 0);
    let plainHidden = 0, plainRays = 0;
    for (const seed of [0x51de, 0x77a1]) {
      const m = wander(world, seed);
      const ref = fogOf(world, plain), fogs = tiers.map((k) => fogOf(world, { ...base, visibleHoldTicks: 0, hiddenTight: k }));
      for (let t = 0; t < TICKS; t++) {
        load(ref, m, t); ref.update(); plainRays += ref.rays;
        fogs.forEach((f, i) => { load(f, m, t); f.update(); rays[i] += f.rays; });
        for (let p = 0; p < N * N; p++) {
          plainHidden += 1 - ref.visible[p];
          fogs.forEach((f, i) => { hidden[i] += 1 - f.visible[p]; });
        }
      }
    }
    console.log(`[fog] tight tier: the plain rule hides ${plainHidden} pair-updates at ${plainRays} rays; hiddenTight ${tiers.join(' / ')}: ${hidden.join(' / ')} at ${rays.join(' / ')} rays`);
    expect(hidden[1]).toBeGreaterThan(hidden[0]!);
    expect(hidden[2]).toBeGreaterThan(hidden[1]!);
    // Regions holding the plain ones sample other lines than the plain rule: nearly what it hides.
    expect(hidden[2]).toBeGreaterThanOrEqual(0.95 * plainHidden);
    expect(hidden[2]).toBeLessThanOrEqual(1.01 * plainHidden);
    expect(rays[0]).toBeLessThan(rays[1]!);
    expect(rays[1]).toBeLessThan(rays[2]!);
    expect(rays[2]).toBeLessThan(plainRays);
  });

  it('the occluder cache, the line memory and the convex-piece and chain shortcuts change no verdict', () => {
    // The same level without its BVH arrays: every ray walks World.anyHit, nothing is remembered and
    // no line is skipped (the shortcut casts fewer over the run, though in its own order).
    const bare = { anyHit: (sx: number, sy: number, sz: number, ex: number, ey: number, ez: number) => world.anyHit(sx, sy, sz, ex, ey, ez) };
    const m = wander(world, 0x0cc1);
    const a = fogOf(world, base), b = fogOf(bare as unknown as World, base);
    let rays = 0, bareRays = 0;
    for (let t = 0; t < TICKS; t++) {
      load(a, m, t); load(b, m, t);
      a.update(); b.update();
      expect(Array.from(a.visible), `tick ${t}`).toEqual(Array.from(b.visible));
      rays += a.rays;
      bareRays += b.rays;
      if (t === TICKS >> 1) { a.forget(3); b.forget(3); }
    }
    console.log(`[fog] rays with the shortcut ${rays}, every line cast ${bareRays}`);
    expect(rays).toBeGreaterThan(1000);
    expect(rays).toBeLessThan(bareRays);
  });
});

describe('fog of war: the line memory', () => {
  it('gives a pair its record back until it is released or taken by the clock when none is free', () => {
    const mem = new LineMemory(10, 2, 3);
    const a = mem.acquire(4);
    mem.tri[a + 1] = 42;
    expect(mem.acquire(4)).toBe(a);
    expect(mem.tri[a + 1]).toBe(42);
    const b = mem.acquire(7);
    expect(b).not.toBe(a);
    // None free: the clock takes one, cleared for its new owner; the old owner starts again.
    const c = mem.acquire(9);
    expect([a, b]).toContain(c);
    expect(Array.from(mem.tri.subarray(c, c + 3))).toEqual([-1, -1, -1]);
    const lost = c === a ? 4 : 7, kept = c === a ? 7 : 4;
    expect(mem.acquire(kept)).toBe(c === a ? b : a);
    mem.tri[c] = 5;
    expect(mem.acquire(lost)).not.toBe(-1);
    // Released records are reused before the clock takes one.
    mem.release(9); mem.release(kept); mem.release(lost); mem.release(lost);
    const d = mem.acquire(1), e = mem.acquire(2);
    expect(d).not.toBe(e);
    expect(Array.from(mem.tri.subarray(d, d + 3))).toEqual([-1, -1, -1]);
  });
});

describe('fog of war: the triangles across each edge', () => {
  it('on the default level, every edge two triangles share links them both ways, as brute force over all pairs finds', async () => {
    const world = await loadWorld(DEFAULT_LEVEL_PATH);
    const tris = world.arrays().tris, nb = edgeNeighbours(tris), M = 0xffffff;
    const edge = (t: number, k: number): string => {
      const a = tris[t + k] & M, b = tris[t + ((k + 1) % 3)] & M;
      return a < b ? `${a},${b}` : `${b},${a}`;
    };
    const owners = new Map<string, number[]>();
    for (let t = 0; t < tris.length; t += 3) for (let k = 0; k < 3; k++) owners.set(edge(t, k), [...(owners.get(edge(t, k)) ?? []), t]);
    let linked = 0;
    for (let t = 0; t < tris.length; t += 3) {
      for (let k = 0; k < 3; k++) {
        const o = owners.get(edge(t, k))!.filter((u) => u !== t);
        if (o.length === 1) {
          expect(nb[t + k], `triangle ${t / 3} edge ${k}`).toBe(o[0]);
          linked++;
        } else if (o.length === 0) {
          expect(nb[t + k]).toBe(-1);
        } else {
          // More than two on one edge: whatever is linked is one of them.
          if (nb[t + k] !== -1) expect(o).toContain(nb[t + k]);
        }
      }
    }
    expect(linked).toBeGreaterThan(tris.length / 2);
  });
});
