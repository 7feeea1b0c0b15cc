/**
 * Fog of war's precise viewers (FogSlots.precise, shared/fog/fog) and the budget that hands them out
 * (shared/fog/precision FogPrecision), over seeded players running about the default level: a precise
 * viewer's row is what a fog with every viewer precise decides and the others' rows what the cached
 * fog decides, pair for pair; a precise viewer withholds more than the cached rule, nearly what the
 * plain rule does, at fewer rays, and brute force finds a line to about as few of the pairs it adds
 * as of those the plain rule adds (the rule's sampled openings, which the cached fog's grown regions
 * cover with their margin). The
 * budget grants one viewer at a time under it (four far under it), takes the newest back over it,
 * hands precision round the viewers when only some fit, skips absent slots, ignores times that are
 * not finite (nor reports them as the update's time) and is timed one update in eight.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../server/level/gltf';
import { autoSpawnPoints } from '../server/level/spawnPoints';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { defaultMoveConfig } from '../shared/movement/step';
import { loadWalkTick, walkPlayers, WALK_HZ, WALK_STRIDE } from './helpers/walkers';
import { mulberry32 } from '../shared/util/prng';
import { buildClimbMap, FOG_NO_CACHES, FogOfWar, FogPrecision, FogSlots, fogConfigOf, fogMotionOf, horizonSeconds, type FogConfig } from '../shared/fog/index';
import { bodySamples, bruteVisible, eyeSamples, type BruteOptions } from './helpers/fogBrute';
import type { World } from '../shared/world/world';

const HZ = WALK_HZ, N = 10, TICKS = 2 * HZ, PATCH_MS = 1000 / HZ, SAFETY_MS = 25;
const oneWayMs = (i: number): number => 20 + 5 * i;
const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const EYE = MANNEQUIN_RIG.eyeHeight;

function fogOf(world: World, cfg: FogConfig, precise: (v: number) => boolean): FogOfWar {
  const fog = new FogOfWar(world, cfg, N);
  for (let i = 0; i < N; i++) {
    fog.setTiming(i, oneWayMs(i), 100, PATCH_MS, SAFETY_MS);
    fog.precise[i] = precise(i) ? 1 : 0;
  }
  return fog;
}

describe('fog of war: precise viewers', async () => {
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const climb = buildClimbMap(world, move.stepHeight);
  const base = fogConfigOf(fogMotionOf(move, 1 / HZ), MANNEQUIN_RIG, { climb });

  it('a precise row is the all-precise fog\'s, a cached row the cached fog\'s; precise withholds more, nearly the plain rule, with its limits', () => {
    const rnd = mulberry32(0x9e1);
    const o = (floorY: number): BruteOptions => ({ eyeRings: 2, eyeAngles: 8, eyeHeights: 3, feet: 6, bodyPoints: 16, floorY });
    const hb = horizonSeconds(0, 0, PATCH_MS, SAFETY_MS) + 1 / HZ;
    const seen = { cachedHidden: 0, preciseHidden: 0, plainHidden: 0, cachedRays: 0, preciseRays: 0, plainRays: 0, bruteChecked: 0, preciseMissed: 0, plainMissed: 0 };
    for (const seed of [0x51de, 0x77a1]) {
      const m = walkPlayers(world, autoSpawnPoints(world, N, DEFAULT_LEVEL_PATH), N, TICKS, seed).state;
      const cached = fogOf(world, base, () => false), precise = fogOf(world, base, () => true);
      const mixed = fogOf(world, base, (v) => v % 2 === 0), plain = fogOf(world, { ...base, ...FOG_NO_CACHES }, () => false);
      for (let t = 0; t < TICKS; t++) {
        for (const f of [cached, precise, mixed, plain]) { loadWalkTick(f, m, N, t, EYE); f.update(); }
        seen.cachedRays += cached.rays; seen.preciseRays += precise.rays; seen.plainRays += plain.rays;
        for (let p = 0; p < N * N; p++) {
          const v = Math.floor(p / N), e = p % N;
          expect(mixed.visible[p], `tick ${t}: pair ${v} -> ${e} in the mixed fog`).toBe(v % 2 === 0 ? precise.visible[p] : cached.visible[p]);
          seen.cachedHidden += 1 - cached.visible[p]!;
          seen.preciseHidden += 1 - precise.visible[p]!;
          seen.plainHidden += 1 - plain.visible[p]!;
          if ((precise.visible[p] === 0 || plain.visible[p] === 0) && cached.visible[p] === 1) {
            seen.bruteChecked++;
            const h = horizonSeconds(oneWayMs(v), 100, PATCH_MS, SAFETY_MS) + 1 / HZ;
            const at = (i: number) => { const q = (t * N + i) * WALK_STRIDE; return { x: m[q]!, y: m[q + 1]!, z: m[q + 2]!, vx: m[q + 3]!, vy: m[q + 4]!, vz: m[q + 5]!, eye: EYE }; };
            const pv = at(v), pe = at(e);
            const b = bruteVisible(world, eyeSamples(world, base.motion, climb, pv, h, o(pv.y)), bodySamples(world, base.motion, climb, MANNEQUIN_RIG, pe, hb, o(pe.y), rnd));
            if (b.visible && precise.visible[p] === 0) seen.preciseMissed++;
            if (b.visible && plain.visible[p] === 0) seen.plainMissed++;
          }
        }
      }
    }
    console.log(`[fog] precise viewers: ${JSON.stringify(seen)}`);
    expect(seen.preciseHidden).toBeGreaterThan(seen.cachedHidden);
    expect(seen.preciseHidden).toBeGreaterThanOrEqual(0.9 * seen.plainHidden);
    expect(seen.preciseRays).toBeGreaterThan(seen.cachedRays);
    expect(seen.preciseRays).toBeLessThan(seen.plainRays);
    // Without the grown regions' margin, a precise verdict has the plain rule's limits (openings are
    // sampled: ./fog): brute force over the reachable eyes finds a sliver in about as many of what it
    // hides, and in few of them.
    expect(seen.bruteChecked).toBeGreaterThan(500);
    expect(seen.preciseMissed).toBeLessThanOrEqual(1.25 * seen.plainMissed + 2);
    expect(seen.plainMissed).toBeLessThan(0.02 * seen.plainHidden);
  });
});

describe('fog of war: the precision budget', () => {
  const slots = (present: number[]): FogSlots => {
    const s = new FogSlots(6);
    for (const i of present) s.present[i] = 1;
    return s;
  };
  const flags = (s: FogSlots): number[] => Array.from(s.precise);
  /** Runs `k` updates of `ms` each. */
  const run = (p: FogPrecision, s: FogSlots, ms: number, k: number): void => {
    for (let i = 0; i < k; i++) {
      p.ms[0] = 0;
      p.ms[1] = ms;
      p.adjust(s);
    }
  };

  it('grants one present viewer at a time under the budget, round the slots, and four at once far under it', () => {
    const s = slots([0, 2, 3, 5]), p = new FogPrecision(6, 1);
    run(p, s, 0.6, 1);
    expect(flags(s)).toEqual([1, 0, 0, 0, 0, 0]);
    // Two timed updates for the smoothed time to show the change, then the next.
    run(p, s, 0.6, 2);
    expect(p.preciseCount).toBe(1);
    run(p, s, 0.6, 1);
    expect(flags(s)).toEqual([1, 0, 1, 0, 0, 0]);
    run(p, s, 0.6, 40);
    expect(flags(s)).toEqual([1, 0, 1, 1, 0, 1]);
    const many = slots([0, 1, 2, 3, 4, 5]), q = new FogPrecision(6, 1);
    run(q, many, 0.2, 1);
    expect(q.preciseCount).toBe(4);
  });

  it('takes back the newest over the budget, holds between 85% and 100%, and hands precision round when only some fit', () => {
    const s = slots([0, 1, 2, 3]), p = new FogPrecision(6, 1);
    run(p, s, 0.6, 7);
    expect(flags(s)).toEqual([1, 1, 1, 0, 0, 0]);
    p.ms[2] = 3;
    run(p, s, 3, 3);
    expect(flags(s)).toEqual([1, 1, 0, 0, 0, 0]);
    // Smoothed into the band: no grant, no revoke, until a hand-over is due (8 timed updates).
    p.ms[2] = 0.9;
    run(p, s, 0.9, 8);
    expect(flags(s)).toEqual([1, 1, 0, 0, 0, 0]);
    run(p, s, 0.9, 2);
    // The longest precise (slot 0) handed over to the next without it after the last grant (slot 3).
    expect(flags(s)).toEqual([0, 1, 0, 1, 0, 0]);
  });

  it('times one update in eight', () => {
    const p = new FogPrecision(6, 1);
    const timed = Array.from({ length: 24 }, () => p.timing());
    expect(timed.map((t, i) => (t ? i : -1)).filter((i) => i >= 0)).toEqual([7, 15, 23]);
  });

  it('drops viewers that left, ignores times that are not finite, and with no budget makes none precise', () => {
    const s = slots([0, 1]), p = new FogPrecision(6, 1);
    run(p, s, 0.1, 6);
    expect(flags(s)).toEqual([1, 1, 0, 0, 0, 0]);
    s.present[1] = 0;
    for (const bad of [Number.NaN, Infinity, -1]) run(p, s, bad, 1);
    expect(flags(s)).toEqual([1, 0, 0, 0, 0, 0]);
    expect(p.smoothedMs).toBeCloseTo(0.1, 9);
    // The update's own time for the server's stats: a valid one until the next timing(), a bad one left out.
    expect(p.lastTimedMs).toBeCloseTo(0.1, 9);
    p.timing();
    expect(p.lastTimedMs).toBeNaN();
    run(p, s, Number.NaN, 1);
    expect(p.lastTimedMs).toBeNaN();
    run(p, s, 0.3, 1);
    expect(p.lastTimedMs).toBeCloseTo(0.3, 9);
    const none = new FogPrecision(6, 0), t = slots([0, 1]);
    run(none, t, 0.01, 10);
    expect(flags(t)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(none.preciseCount).toBe(0);
  });
});
