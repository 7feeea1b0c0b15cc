/**
 * Fog of war (shared/fog) against dense brute force on small levels: with one convex occluder (a
 * wall, a column, a wall to see over) or an L of two, whenever some reachable eye position sees some
 * point of the enemy's posed body within the horizons, the rule says visible (no pop-in); with one
 * opening (a doorway, a window), the same for lines of sight through an opening at least openingM
 * wide as seen (brute force with a clear tube), the thinner slivers missed counted; on a level of
 * many obstacles and openings, how many lines of sight it misses (openings that must line up);
 * the same with a third-person camera off the eye (cameraM) against cameras off the reachable eyes;
 * and the share of enemies behind a wall it withholds. Seeded (fast-check seeds, mulberry32).
 * test/fogUpdate.test.ts has the reach bounds, moving players and the bookkeeping.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildTestWorld } from './helpers/server';
import { boxes } from './helpers/projectileScenes';
import { bodySamples, bruteVisible, cameraSamples, DEFAULT_BRUTE, eyeSamples, type BruteOptions, type BrutePlayer } from './helpers/fogBrute';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { World } from '../shared/world/world';
import { defaultMoveConfig } from '../shared/movement/step';
import { mulberry32 } from '../shared/util/prng';
import { buildClimbMap, buildWalkGrid, FogOfWar, fogConfigOf, fogMotionOf, horizonSeconds, type ClimbMap, type FogConfig, type WalkGrid } from '../shared/fog/index';

const HZ = 64, TICK = 1 / HZ, PATCH_MS = 1000 / HZ;
const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const motion = fogMotionOf(move, TICK);
const EYE = MANNEQUIN_RIG.eyeHeight;
const FLOOR = [-30, -1, -30, 30, 0, 30];

/** A level: its solids (boxes on the floor) and where viewers and enemies are placed (x0 x1 z0 z1 each). */
interface Scene { name: string; world: World; solids: number[][]; climb: ClimbMap; viewers: number[]; enemies: number[] }
function scene(name: string, solids: number[][], viewers: number[], enemies: number[]): Scene {
  const m = boxes([FLOOR, ...solids]);
  const world = World.fromTriangles(m.positions, m.indices);
  return { name, world, solids, climb: buildClimbMap(world, move.stepHeight), viewers, enemies };
}
const wallWorld = buildTestWorld();
const WALL: Scene = {
  name: 'wall', world: wallWorld, solids: [[-3, 0, -4.15, 3, 3, -3.85]], climb: buildClimbMap(wallWorld, move.stepHeight),
  viewers: [-7, 7, -1, 7], enemies: [-7, 7, -11, -1],
};
const SINGLE: Scene[] = [
  WALL,
  // A column 3 x 1.5 m: an enemy close behind it is hidden from afar.
  scene('column', [[-1.5, 0, -4.75, 1.5, 3, -3.25]], [-3, 3, 2, 9], [-0.5, 0.5, -6.5, -5.2]),
  // A wall a jumping eye sees over (2.2 m): an enemy right behind it is hidden from a grounded eye.
  scene('wall to see over', [[-4, 0, -4.15, 4, 2.2, -3.85]], [-3, 3, -1, 7], [-3, 3, -6, -4.5]),
  scene('L corner', [[0, 0, -6, 0.3, 3, 0], [0, 0, -6, 5, 3, -5.7]], [-7, 7, -1, 7], [-2, 7, -11, -6.5]),
];
// One opening each, across the line between the players: a doorway (1.2 m gap, lintel at 2.2 m)
// and a window (1.0 x 0.8 m hole at 1.1 .. 1.9 m), in 0.3 m thick walls.
const DOORWAY = scene('doorway', [[-8, 0, 5.85, -0.6, 3, 6.15], [0.6, 0, 5.85, 8, 3, 6.15], [-0.6, 2.2, 5.85, 0.6, 3, 6.15]], [-8, 8, -4, 5], [-8, 8, 7, 13]);
const WINDOW = scene('window', [[-8.15, 0, -8, -7.85, 1.1, 8], [-8.15, 1.9, -8, -7.85, 3, 8], [-8.15, 1.1, -8, -7.85, 1.9, -0.5], [-8.15, 1.1, 0.5, -7.85, 1.9, 8]], [-6, 6, -6, 6], [-14, -9, -6, 6]);
// Two doorways one behind the other (2 m gaps, full height, 0.3 m walls 8 m apart, the second 2.5 m
// to the side): the players see each other only through both.
const TWO_DOORS = scene('a doorway seen through another', [
  [-12, 0, 3.85, -1, 3, 4.15], [1, 0, 3.85, 12, 3, 4.15],
  [-12, 0, -4.15, 1.5, 3, -3.85], [3.5, 0, -4.15, 12, 3, -3.85],
], [-4, 1, 6, 10], [1, 7, -10, -6]);
const OPENINGS = scene('many obstacles', [
  // a doorway: a wall along x at z = 6 with a 1.2 m gap and a lintel from 2.2 m
  [-8, 0, 5.85, -0.6, 3, 6.15], [0.6, 0, 5.85, 8, 3, 6.15], [-0.6, 2.2, 5.85, 0.6, 3, 6.15],
  // a window: a wall along z at x = -8 with a 1.0 x 0.8 m hole at 1.1 .. 1.9 m
  [-8.15, 0, -8, -7.85, 1.1, 2], [-8.15, 1.9, -8, -7.85, 3, 2], [-8.15, 1.1, -8, -7.85, 1.9, -0.5], [-8.15, 1.1, 0.5, -7.85, 1.9, 2],
  // pillars 4 m apart, a low wall, crates with a 0.8 m gap, an L corner
  [2, 0, -3, 2.4, 3, -2.6], [-2.4, 0, -3, -2, 3, -2.6],
  [-3, 0, -7, 3, 1, -6.7],
  [5, 0, -2, 6, 1, -1], [6.8, 0, -2, 7.8, 1.2, -1], [5, 0, -0.8, 6, 2, 0.2],
  [9, 0, -6, 9.3, 3, 0], [9, 0, -6, 14, 3, -5.7],
], [-12, 12, -12, 12], [-12, 12, -12, 12]);

/** Feet clear of every solid by the movement radius. */
function standable(s: Scene, x: number, z: number): boolean {
  const r = move.radius;
  return s.solids.every(([x0, , z0, x1, , z1]) => x < x0 - r || x > x1 + r || z < z0 - r || z > z1 + r);
}

/** Each level's walk grid (eye regions cut by the walls a body cannot cross), built once. */
const walks = new Map<World, WalkGrid | null>();
function walkOf(w: World): WalkGrid | undefined {
  if (!walks.has(w)) walks.set(w, buildWalkGrid(w, move.probeHeights[0]!, move.radius));
  return walks.get(w) ?? undefined;
}

function fogFor(s: Scene, capacity = 2, o: Partial<Omit<FogConfig, 'motion'>> = {}): FogOfWar {
  return new FogOfWar(s.world, fogConfigOf(motion, MANNEQUIN_RIG, { climb: s.climb, walk: walkOf(s.world), visibleHoldTicks: 0, ...o }), capacity);
}

const coord = (lo: number, hi: number) => fc.integer({ min: lo * 100, max: hi * 100 }).map((i) => i / 100);
const playerArb = (x0: number, x1: number, z0: number, z1: number) => fc.record({
  x: coord(x0, x1), z: coord(z0, z1),
  speed: fc.integer({ min: 0, max: 600 }).map((i) => i / 100),
  dir: fc.integer({ min: 0, max: 359 }),
  vy: fc.oneof(fc.constant(0), fc.integer({ min: -800, max: 650 }).map((i) => i / 100)),
});
type PlayerArb = { x: number; z: number; speed: number; dir: number; vy: number };
const toPlayer = (p: PlayerArb): BrutePlayer => ({
  x: p.x, y: 0, z: p.z, vx: p.speed * Math.cos((p.dir * Math.PI) / 180), vy: p.vy, vz: p.speed * Math.sin((p.dir * Math.PI) / 180), eye: EYE,
});
const timingArb = fc.record({ oneWay: fc.integer({ min: 0, max: 100 }), interp: fc.integer({ min: 50, max: 150 }), safety: fc.integer({ min: 0, max: 50 }) });
type Timing = { oneWay: number; interp: number; safety: number };

/** The fog's verdict for viewer (slot 0) and enemy (slot 1), both with the viewer's timing. */
function fogVerdict(fog: FogOfWar, v: BrutePlayer, e: BrutePlayer, t: Timing): boolean {
  fog.setPlayer(0, v.x, v.y, v.z, v.vx, v.vy, v.vz, v.eye, true, -1);
  fog.setPlayer(1, e.x, e.y, e.z, e.vx, e.vy, e.vz, e.eye, true, -1);
  fog.setTiming(0, t.oneWay, t.interp, PATCH_MS, t.safety);
  fog.setTiming(1, t.oneWay, t.interp, PATCH_MS, t.safety);
  fog.update();
  return fog.isVisible(0, 1);
}

/** Brute force for viewer v and enemy e over the horizons the fog states (each plus one tick). */
function brute(s: Scene, v: BrutePlayer, e: BrutePlayer, t: Timing, rnd: () => number, clearance = 0, o: BruteOptions = DEFAULT_BRUTE): boolean {
  const h = horizonSeconds(t.oneWay, t.interp, PATCH_MS, t.safety) + TICK, hb = horizonSeconds(0, 0, PATCH_MS, t.safety) + TICK;
  return bruteVisible(s.world, eyeSamples(s.world, motion, s.climb, v, h, o), bodySamples(s.world, motion, s.climb, MANNEQUIN_RIG, e, hb, o, rnd), clearance).visible;
}

describe('fog of war against brute force', () => {
  for (const s of SINGLE) {
    it(`${s.name}: whenever a reachable eye sees the enemy's body within the horizons, the enemy is visible`, () => {
      let cases = 0, bruteVis = 0, withheld = 0;
      const rnd = mulberry32(0xf06 + s.name.length);
      const fog = fogFor(s);
      fc.assert(
        fc.property(playerArb(...(s.viewers as [number, number, number, number])), playerArb(...(s.enemies as [number, number, number, number])), timingArb, fc.boolean(), (va, ea, t, swap) => {
          fc.pre(standable(s, va.x, va.z) && standable(s, ea.x, ea.z));
          const [v, e] = swap ? [toPlayer(ea), toPlayer(va)] : [toPlayer(va), toPlayer(ea)];
          fog.forget(0);
          const says = fogVerdict(fog, v, e, t);
          const b = brute(s, v, e, t, rnd);
          cases++;
          if (b) bruteVis++;
          if (!b && !says) withheld++;
          expect(says || !b, `pop-in: viewer ${JSON.stringify(v)} enemy ${JSON.stringify(e)} timing ${JSON.stringify(t)}`).toBe(true);
        }),
        { seed: 0x5eed + s.name.length, numRuns: 80 },
      );
      console.log(`[fog] ${s.name}: ${cases} cases, brute force visible ${bruteVis}, hidden ${cases - bruteVis} (fog withheld ${withheld})`);
      // Both answers occur, or the property says nothing.
      expect(bruteVis).toBeGreaterThan(cases / 10);
      expect(cases - bruteVis).toBeGreaterThan(cases / 20);
    });
  }

  // An over-the-shoulder camera up to CAMERA_M from the eye (a longer boom sees over these 3 m walls).
  const CAMERA_M = 1;
  const CAMERA_BRUTE: BruteOptions = { ...DEFAULT_BRUTE, eyeRings: 1, eyeAngles: 8, eyeHeights: 2, feet: 6, bodyPoints: 16 };
  it('with a third-person camera (cameraM): whenever a camera off a reachable eye sees the enemy, the enemy is visible; without cameraM it pops in', () => {
    let cases = 0, bruteVis = 0, withheld = 0, missedFirstPerson = 0;
    for (const s of SINGLE) {
      const rnd = mulberry32(0xca3 + s.name.length);
      const fog = fogFor(s, 2, { cameraM: CAMERA_M });
      const firstPerson = fogFor(s);
      fc.assert(
        fc.property(playerArb(...(s.viewers as [number, number, number, number])), playerArb(...(s.enemies as [number, number, number, number])), timingArb, fc.boolean(), (va, ea, t, swap) => {
          fc.pre(standable(s, va.x, va.z) && standable(s, ea.x, ea.z));
          const [v, e] = swap ? [toPlayer(ea), toPlayer(va)] : [toPlayer(va), toPlayer(ea)];
          fog.forget(0);
          firstPerson.forget(0);
          const says = fogVerdict(fog, v, e, t);
          const eyes = eyeSamples(s.world, motion, s.climb, v, horizonSeconds(t.oneWay, t.interp, PATCH_MS, t.safety) + TICK, CAMERA_BRUTE);
          const body = bodySamples(s.world, motion, s.climb, MANNEQUIN_RIG, e, horizonSeconds(0, 0, PATCH_MS, t.safety) + TICK, CAMERA_BRUTE, rnd);
          const b = bruteVisible(s.world, [...eyes, ...cameraSamples(s.world, eyes, CAMERA_M)], body).visible;
          cases++;
          if (b) bruteVis++;
          if (!b && !says) withheld++;
          if (b && !fogVerdict(firstPerson, v, e, t)) missedFirstPerson++;
          expect(says || !b, `pop-in from a camera (${s.name}): viewer ${JSON.stringify(v)} enemy ${JSON.stringify(e)} timing ${JSON.stringify(t)}`).toBe(true);
        }),
        { seed: 0xca3 + s.name.length, numRuns: 25 },
      );
    }
    console.log(`[fog] third-person camera ${CAMERA_M} m: ${cases} cases, brute force visible ${bruteVis}, fog withheld ${withheld}; the first-person rule misses ${missedFirstPerson}`);
    // Both answers occur (a camera a metre off the eye sees most of these small scenes), and the
    // camera's lines are ones the first-person eye region lacks.
    expect(withheld).toBeGreaterThan(0);
    expect(cases - bruteVis).toBeGreaterThan(cases / 20);
    expect(missedFirstPerson).toBeGreaterThan(0);
  });

  /** Cases in scene s: the fog against brute force, and against brute force that needs a clear square of half-size `clearance` m around the line. */
  function openingCases(s: Scene, seed: number, runs: number, clearance: number, o: Partial<Omit<FogConfig, 'motion'>> = {}): { cases: number; anyVis: number; robustVis: number; robustMissed: number; thin: number; withheld: number } {
    const r = { cases: 0, anyVis: 0, robustVis: 0, robustMissed: 0, thin: 0, withheld: 0 };
    const rnd = mulberry32(seed);
    const fog = fogFor(s, 2, o);
    fc.assert(
      fc.property(playerArb(...(s.viewers as [number, number, number, number])), playerArb(...(s.enemies as [number, number, number, number])), timingArb, fc.boolean(), (va, ea, t, swap) => {
        fc.pre(standable(s, va.x, va.z) && standable(s, ea.x, ea.z));
        const [v, e] = swap ? [toPlayer(ea), toPlayer(va)] : [toPlayer(va), toPlayer(ea)];
        fog.forget(0);
        const says = fogVerdict(fog, v, e, t);
        const eyes = eyeSamples(s.world, motion, s.climb, v, horizonSeconds(t.oneWay, t.interp, PATCH_MS, t.safety) + TICK, DEFAULT_BRUTE);
        const body = bodySamples(s.world, motion, s.climb, MANNEQUIN_RIG, e, horizonSeconds(0, 0, PATCH_MS, t.safety) + TICK, DEFAULT_BRUTE, rnd);
        const any = bruteVisible(s.world, eyes, body).visible;
        const robust = any && bruteVisible(s.world, eyes, body, clearance).visible;
        r.cases++;
        if (any) r.anyVis++;
        if (robust) r.robustVis++;
        if (robust && !says) r.robustMissed++;
        if (robust && !says) console.log(`[fog] ${s.name}: missed through the square: ${JSON.stringify({ v, e, t })}`);
        if (any && !says) r.thin++;
        if (!any && !says) r.withheld++;
      }),
      { seed, numRuns: runs },
    );
    console.log(`[fog] ${s.name}: ${r.cases} cases, brute force visible ${r.anyVis} (through a ${(2 * clearance).toFixed(2)} m square: ${r.robustVis}), hidden ${r.cases - r.anyVis} (fog withheld ${r.withheld}); missed: ${r.thin} (of them through the square: ${r.robustMissed})`);
    return r;
  }

  // The stated guarantee: an opening that holds an openingM square as seen along the line.
  const tube = fogConfigOf(motion, MANNEQUIN_RIG).openingM / 2;
  for (const s of [DOORWAY, WINDOW]) {
    it(`${s.name}: no pop-in through an opening at least openingM wide as seen; thinner slivers are counted`, () => {
      const r = openingCases(s, 0x0be2 + s.name.length, 120, tube);
      expect(r.robustMissed).toBe(0);
      expect(r.robustVis).toBeGreaterThan(r.cases / 10);
      expect(r.cases - r.anyVis).toBeGreaterThan(r.cases / 20);
    });
  }

  it('a doorway seen through another: no pop-in through both at least openingM wide as seen; without the crossing lines there are', () => {
    const r = openingCases(TWO_DOORS, 0x2d0, 120, tube);
    expect(r.robustMissed).toBe(0);
    expect(r.robustVis).toBeGreaterThan(r.cases / 10);
    expect(r.cases - r.anyVis).toBeGreaterThan(r.cases / 20);
    // Second method: the matched lines alone miss lines through both (what the crossing lines are for).
    const matched = openingCases(TWO_DOORS, 0x2d0, 120, tube, { crossLines: false });
    expect(matched.robustMissed).toBeGreaterThan(0);
  });

  it('a level of many obstacles and openings: lines of sight missed are few (openings that must line up, slivers)', () => {
    const r = openingCases(OPENINGS, 0x0be2, 250, tube);
    expect(r.robustVis).toBeGreaterThan(r.cases / 10);
    expect(r.cases - r.anyVis).toBeGreaterThan(r.cases / 20);
    // Not guaranteed here (./fog: several openings that must line up); measured, and bounded.
    expect(r.thin).toBeLessThanOrEqual(Math.ceil(0.05 * r.anyVis));
  });

  it('withholds most enemies well behind a wall (share measured against brute force)', () => {
    let cases = 0, bruteHidden = 0, fogHidden = 0, fogHiddenOfBrute = 0;
    const rnd = mulberry32(0xa11);
    const fog = fogFor(WALL);
    fc.assert(
      fc.property(playerArb(-2.5, 2.5, 1, 8), playerArb(-2, 2, -10, -5.5), timingArb, (va, ea, t) => {
        const v = toPlayer(va), e = toPlayer(ea);
        fog.forget(0);
        const says = fogVerdict(fog, v, e, t);
        const b = brute(WALL, v, e, t, rnd);
        cases++;
        if (!says) fogHidden++;
        if (!b) { bruteHidden++; if (!says) fogHiddenOfBrute++; }
        expect(says || !b).toBe(true);
      }),
      { seed: 0xa11, numRuns: 80 },
    );
    console.log(`[fog] behind the wall: ${cases} cases, brute force hidden ${bruteHidden}, fog withheld ${fogHidden} (${((100 * fogHiddenOfBrute) / bruteHidden).toFixed(0)}% of the brute-hidden)`);
    expect(bruteHidden).toBeGreaterThan(cases / 2);
    expect(fogHiddenOfBrute).toBeGreaterThanOrEqual(0.6 * bruteHidden);
  });
});
