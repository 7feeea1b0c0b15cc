/**
 * Eye regions cut by walls (shared/fog/walk.ts, shared/fog/rays.ts tightenSupports): against the
 * movement itself, every position a body reaches over a horizon (stepMovement with seeded inputs,
 * jumps included, from spots near walls, doorways and crates, and on a ramp, a platform and steps) lies inside the flood's
 * region; the region does stop at a wall the body cannot cross and passes a doorway and a crate a
 * jump clears; tightened supports equal the polygon's own extents found a second way (every pair of
 * sides' crossing that keeps to all of them); and an enemy just behind a thin wall is withheld from
 * a viewer beside it, which the uncut region sent; FogFilter builds the grid only for a movement
 * that states its wall probe.
 */
import { describe, expect, it } from 'vitest';
import { roomsLevel } from '../server/level/rooms';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { buildClimbMap, buildWalkGrid, climbCell, floorUnder, FogOfWar, jumpRise, fogConfigOf, fogMotionOf, reachFromSpeed, verticalInto, V_DROP, V_H, V_REACH, V_RISE, V_SLOPE, V_STEP, V_VY, V_WALK, VERTICAL_STRIDE, type ClimbMap, type WalkGrid } from '../shared/fog/index';
import { DIR_X, DIR_Z, P_S, PRISM_STRIDE, tightenSupports } from '../shared/fog/rays';
import { floodSupports, W_CX, W_CZ, W_FEET_HI, W_FEET_LO, W_REACH, W_X, W_Z, WALK_QUERY, walkFlood, walkSupports } from '../shared/fog/walk';
import { createMoveState, defaultMoveConfig, stepMovement } from '../shared/movement/step';
import { mulberry32 } from '../shared/util/prng';
import { World } from '../shared/world/world';
import { boxes } from './helpers/projectileScenes';
import { walkGridOf } from '../server/match/index';
import { FogRegions, GROWN, PLAIN, WIDE } from '../shared/fog/regions';
import { rampLevel } from './helpers/rampLevel';

const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const TICK = 1 / 64;
const motion = fogMotionOf(move, TICK);
const rooms = roomsLevel();
const grid = buildWalkGrid(rooms, move.probeHeights[0]!, move.radius)!;
const roomsClimb = buildClimbMap(rooms, move.stepHeight);

/**
 * The flood's supports for a body at (x, y, z) moving at speed `speed` over h seconds, its feet's
 * rise and drop from the slope and steps the climb map has there, as the fog's regions take them
 * (null: no cut, the disc stands).
 */
function supports(g: WalkGrid, x: number, y: number, z: number, speed: number, vy: number, h: number, climb: ClimbMap = roomsClimb): { s: Float64Array | null; reach: number } {
  const reach = reachFromSpeed(motion, speed, h + TICK);
  const cell = climbCell(climb, x, z, reach);
  const v = new Float64Array(VERTICAL_STRIDE);
  v[V_H] = h + TICK; v[V_VY] = vy; v[V_REACH] = reach;
  v[V_SLOPE] = cell >= 0 ? climb.slope[cell]! : climb.maxSlope; v[V_STEP] = (cell >= 0 ? climb.step[cell] === 1 : climb.anyStep) ? 1 : 0;
  verticalInto(motion, v);
  const floor = floorUnder(climb, cell, x, y, z, reach, v[V_WALK]!, v[V_WALK]! + jumpRise(motion, vy, h + TICK));
  const q = new Float64Array(WALK_QUERY), s = new Float64Array(8);
  q[W_X] = x; q[W_Z] = z; q[W_CX] = x; q[W_CZ] = z; q[W_REACH] = reach;
  q[W_FEET_LO] = Math.max(y - v[V_DROP]!, floor); q[W_FEET_HI] = y + v[V_RISE]!;
  return { s: walkSupports(g, q, s, 0) ? s : null, reach };
}

/** The rooms level's solids in x-z (x0, z0, x1, z1): interior walls with their doorways, crates, the outer wall (server/level/rooms.ts). */
const SOLIDS: number[][] = (() => {
  const out: number[][] = [[-25, -25, 25, -24], [-25, 24, 25, 25], [-25, -25, -24, 25], [24, -25, 25, 25]];
  const spans = [[-24, -8], [-8, 8], [8, 24]];
  for (const l of [-8, 8]) {
    for (const [a, b] of spans) {
      const mid = (a! + b!) / 2;
      out.push([l - 0.15, a!, l + 0.15, mid - 1], [l - 0.15, mid + 1, l + 0.15, b!], [a!, l - 0.15, mid - 1, l + 0.15], [mid + 1, l - 0.15, b!, l + 0.15]);
    }
  }
  for (const [x0, x1] of spans) for (const [z0, z1] of spans) {
    const cx = (x0! + x1!) / 2, cz = (z0! + z1!) / 2;
    out.push([cx + 2.5, cz - 3.5, cx + 3.5, cz - 2.5], [cx - 4, cz + 2, cx - 3, cz + 3]);
  }
  return out;
})();

/** Where a body can stand: clear of every solid by the movement's radius. */
function standable(x: number, z: number): boolean {
  return SOLIDS.every(([x0, z0, x1, z1]) => Math.hypot(Math.max(x0! - x, 0, x - x1!), Math.max(z0! - z, 0, z - z1!)) > move.radius + 0.01);
}

/**
 * Runs the movement from near (x, z) for h seconds under seeded inputs (a new wish every few ticks,
 * jumps) after a run-up of a few ticks that gives it a speed; calls back each position relative to
 * where the run-up ended, which it returns with the speed then.
 */
function walk(world: World, x: number, z: number, h: number, rnd: () => number, visit: (px: number, py: number, pz: number) => void): { x: number; y: number; z: number; speed: number; vy: number } {
  const s = createMoveState(x, 0, z);
  // Settle on the ground and get a start speed: a few ticks of a random wish first.
  const input = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };
  const a0 = rnd() * 2 * Math.PI;
  input.wishX = Math.cos(a0); input.wishZ = Math.sin(a0);
  const warm = Math.floor(rnd() * 20);
  for (let i = 0; i < warm; i++) stepMovement(s, input, world, move, TICK);
  const start = { speed: Math.hypot(s.vx, s.vz), vy: s.vy, y: s.y, x: s.x, z: s.z };
  const ticks = Math.floor(h / TICK);
  for (let i = 0; i < ticks; i++) {
    if (i % 4 === 0) {
      const a = rnd() * 2 * Math.PI, m = rnd() < 0.2 ? 0 : 1;
      input.wishX = Math.cos(a) * m; input.wishZ = Math.sin(a) * m;
      input.jump = rnd() < 0.3;
    }
    stepMovement(s, input, world, move, TICK);
    visit(s.x - start.x, s.y, s.z - start.z);
  }
  return start;
}

describe('eye regions cut by walls', () => {
  it('hold every position the movement reaches over the horizon, from spots beside walls, doorways and crates', () => {
    const rnd = mulberry32(0x5a1c);
    // Beside the interior walls (x or z = +-8, 0.15 m thick), at doorways (their middles at 0, +-16), by crates.
    const spots: [number, number][] = [];
    for (let i = 0; i < 60; i++) {
      const along = -23 + 46 * rnd(), off = (rnd() < 0.5 ? -1 : 1) * (0.55 + 1.5 * rnd()), line = rnd() < 0.5 ? -8 : 8;
      spots.push(rnd() < 0.5 ? [line + off, along] : [along, line + off]);
    }
    for (const d of [-16, 0, 16]) for (const line of [-8, 8]) spots.push([line + 0.6, d + 1.2], [d - 0.4, line - 0.7]);
    spots.push([19.5, -19], [12.5, 2.5]);
    const standing = spots.filter(([x, z]) => standable(x, z));
    expect(standing.length).toBeGreaterThan(50);
    let runs = 0, cut = 0, positions = 0;
    for (const [x, z] of standing) {
      for (let k = 0; k < 24; k++) {
        const h = 0.15 + 0.85 * rnd();
        const seen: number[] = [];
        const st = walk(rooms, x, z, h, rnd, (px, py, pz) => seen.push(px, py, pz));
        const { s, reach } = supports(grid, st.x, st.y, st.z, st.speed, st.vy, h);
        runs++;
        if (s !== null) cut++;
        for (let i = 0; i < seen.length; i += 3) {
          positions++;
          const px = seen[i]!, pz = seen[i + 2]!;
          if (s === null) { expect(Math.hypot(px, pz)).toBeLessThanOrEqual(reach + 1e-9); continue; }
          for (let d = 0; d < 8; d++) {
            const along = px * DIR_X[d]! + pz * DIR_Z[d]!;
            expect(along, `from (${x}, ${z}) over ${h} s: side ${d}`).toBeLessThanOrEqual(s[d]! + 1e-9);
          }
        }
      }
    }
    console.log(`[fog walk] ${runs} walks from ${standing.length} spots, ${cut} cut by a wall, ${positions} positions, all inside`);
    expect(cut).toBeGreaterThan(runs / 3);
  });

  it('hold every position the movement reaches from a ramp, a 2 m platform with ledges and a flight of steps', () => {
    const g = buildWalkGrid(rampLevel, move.probeHeights[0]!, move.radius)!;
    const climb = buildClimbMap(rampLevel, move.stepHeight);
    const rnd = mulberry32(0x7a3e);
    // Beside the ramp and the platform's sides, on the ramp, on the platform by its ledges, by and on the steps.
    const spots: [number, number][] = [[1.5, 0], [4, 2.5], [4, -2.5], [3.5, 0], [5, 1], [7.5, 0], [8.6, 1.6], [9.5, 0], [-3.5, 2.5], [-4, 4], [-5.5, 4], [-7, 5.5], [-6, 2.6]];
    let runs = 0, cut = 0;
    for (const [x, z] of spots) {
      for (let k = 0; k < 40; k++) {
        const h = 0.15 + 0.85 * rnd();
        const seen: number[] = [];
        const st = walk(rampLevel, x, z, h, rnd, (px, py, pz) => seen.push(px, py, pz));
        const { s, reach } = supports(g, st.x, st.y, st.z, st.speed, st.vy, h, climb);
        runs++;
        if (s !== null) cut++;
        for (let i = 0; i < seen.length; i += 3) {
          const px = seen[i]!, pz = seen[i + 2]!;
          if (s === null) { expect(Math.hypot(px, pz)).toBeLessThanOrEqual(reach + 1e-9); continue; }
          for (let d = 0; d < 8; d++) expect(px * DIR_X[d]! + pz * DIR_Z[d]!, `from (${x}, ${z}) over ${h} s: side ${d}`).toBeLessThanOrEqual(s[d]! + 1e-9);
        }
      }
    }
    console.log(`[fog walk] ramp level: ${runs} walks from ${spots.length} spots, ${cut} cut`);
    expect(cut).toBeGreaterThan(0);
  });

  it('stops at a wall the body cannot cross; passes a doorway and a crate a jump clears', () => {
    // 0.6 m west of the wall at x = -8 (its face at -8.15), far from the doorway: nothing past the face.
    const wall = supports(grid, -8.75, 0, -3, 6, 0, 0.3).s!;
    expect(wall).not.toBeNull();
    expect(-8.75 + wall[0]!).toBeLessThanOrEqual(-8.15 + 1e-9);
    expect(-8.75 - wall[4]!).toBeLessThan(-10);
    // Beside the doorway (z in [-1, 1] at x = -8): the body gets through it.
    const door = supports(grid, -8.75, 0, 0.3, 6, 0, 0.3).s!;
    expect(-8.75 + door[0]!).toBeGreaterThan(-7.5);
    // A 1 m crate on open ground: a jump clears it, so the flood passes over it and nothing is cut.
    const m = boxes([[-10, -1, -10, 10, 0, 10], [-0.5, 0, -3, 0.5, 1, 3]]);
    const crateWorld = World.fromTriangles(m.positions, m.indices);
    const crateGrid = buildWalkGrid(crateWorld, move.probeHeights[0]!, move.radius)!;
    expect(supports(crateGrid, -1.2, 0, 0, 6, 0, 0.3, buildClimbMap(crateWorld, move.stepHeight)).s).toBeNull();
  });

  it('one flood serves every disc inside its own: the supports are never tighter than that disc\'s own flood, and equal for the same disc', () => {
    const rnd = mulberry32(29);
    const big = new Float64Array(WALK_QUERY), small = new Float64Array(WALK_QUERY), own = new Float64Array(8), shared = new Float64Array(8);
    let compared = 0, tighterOwn = 0;
    for (let i = 0; i < 3000; i++) {
      const x = -23 + 46 * rnd(), z = -23 + 46 * rnd();
      if (!standable(x, z)) continue;
      // The widest disc: moved along a direction by up to its extra reach; the smaller one nested inside.
      const r = 0.3 + 3 * rnd(), extra = 2 * rnd(), a = 2 * Math.PI * rnd(), f = rnd();
      big[W_X] = x; big[W_Z] = z; big[W_CX] = x + extra * Math.cos(a); big[W_CZ] = z + extra * Math.sin(a); big[W_REACH] = r + extra;
      big[W_FEET_LO] = 0; big[W_FEET_HI] = rnd() < 0.8 ? 0 : 1.5;
      small.set(big);
      small[W_CX] = x + f * extra * Math.cos(a); small[W_CZ] = z + f * extra * Math.sin(a); small[W_REACH] = r + f * extra;
      const count = walkFlood(grid, big);
      const cut = walkSupports(grid, small, own, 0);
      // No edge blocked within the widest disc: none within the smaller one either.
      if (count === 0) { expect(cut).toBe(false); continue; }
      floodSupports(grid, count, small, shared, 0);
      if (!cut) continue;
      compared++;
      for (let k = 0; k < 8; k++) {
        expect(shared[k]!).toBeGreaterThanOrEqual(own[k]! - 1e-12);
        if (shared[k]! > own[k]! + 1e-12) tighterOwn++;
      }
    }
    console.log(`[fog] shared flood: ${compared} nested discs compared, ${tighterOwn} supports looser than the disc's own flood`);
    // The same disc: the same cells, the same supports.
    const same = new Float64Array(8), direct = new Float64Array(8);
    big[W_X] = -8.75; big[W_Z] = -3; big[W_CX] = -8.75; big[W_CZ] = -3; big[W_REACH] = 2; big[W_FEET_LO] = 0; big[W_FEET_HI] = 0;
    expect(walkSupports(grid, big, direct, 0)).toBe(true);
    floodSupports(grid, walkFlood(grid, big), big, same, 0);
    expect([...same]).toEqual([...direct]);
    expect(compared).toBeGreaterThan(300);
    // A path leaving the smaller disc and coming back is rare: the shared answer is nearly always the same.
    expect(tighterOwn).toBeLessThan(compared);
  });

  it('FogFilter\'s grid comes from a movement that states its wall probe; a movement without one gets none', () => {
    const g = walkGridOf(rooms, move)!;
    expect(g.probeHeight).toBe(Math.min(...move.probeHeights));
    expect(g.radius).toBe(move.radius);
    expect(Array.from(g.spans)).toEqual(Array.from(grid.spans));
    const { radius: _r, probeHeights: _p, ...noProbe } = move;
    expect(walkGridOf(rooms, noProbe)).toBeUndefined();
    // A probe too thin for the cells (the clear span it leaves under half a cell's diagonal): no grid.
    expect(walkGridOf(rooms, { ...move, radius: 0.1 })).toBeUndefined();
  });

  it('tightened supports are the polygon\'s own extents (a second way: the crossings of every pair of sides that keep to all)', () => {
    const rnd = mulberry32(77);
    const r = new Float64Array(PRISM_STRIDE);
    for (let t = 0; t < 2000; t++) {
      r[0] = 10 * rnd() - 5; r[1] = 10 * rnd() - 5;
      for (let k = 0; k < 8; k++) r[P_S + k] = 0.2 + 4 * rnd();
      const before = Array.from(r.subarray(P_S, P_S + 8));
      tightenSupports(r, 0);
      // Brute force: all pairwise crossings of side lines, kept when inside every half-plane.
      const pts: [number, number][] = [];
      for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) {
        const det = DIR_X[i]! * DIR_Z[j]! - DIR_Z[i]! * DIR_X[j]!;
        if (Math.abs(det) < 1e-9) continue;
        const x = (before[i]! * DIR_Z[j]! - before[j]! * DIR_Z[i]!) / det, z = (DIR_X[i]! * before[j]! - DIR_X[j]! * before[i]!) / det;
        if (before.every((s, k) => x * DIR_X[k]! + z * DIR_Z[k]! <= s + 1e-9)) pts.push([x, z]);
      }
      for (let k = 0; k < 8; k++) {
        const h = Math.max(...pts.map(([x, z]) => x * DIR_X[k]! + z * DIR_Z[k]!));
        expect(r[P_S + k]).toBeCloseTo(h, 9);
        expect(r[P_S + k]).toBeLessThanOrEqual(before[k]! + 1e-12);
      }
    }
  });

  it('withholds an enemy just behind a thin wall from a viewer beside it, which the uncut region sent', () => {
    const eye = MANNEQUIN_RIG.eyeHeight;
    const verdict = (cut: boolean): boolean => {
      const cfg = fogConfigOf(motion, MANNEQUIN_RIG, { climb: buildClimbMap(rooms, move.stepHeight), walk: cut ? grid : undefined, visibleHoldTicks: 0 });
      const fog = new FogOfWar(rooms, cfg, 2);
      // Viewer 0.7 m west of the wall at x = -8, enemy 1.5 m east of it, 4 m from the doorway's edge.
      fog.setPlayer(0, -8.85, 0, -5, 0, 0, 3, eye, true, -1);
      fog.setPlayer(1, -6.4, 0, -6, 0, 0, 0, eye, true, -1);
      for (const s of [0, 1]) fog.setTiming(s, 100, 121, 1000 / 64, 50);
      fog.update();
      fog.update();
      return fog.isVisible(0, 1);
    };
    expect(rooms.anyHit(-8.85, eye, -5, -6.4, 1, -6)).toBe(true);
    expect(verdict(false)).toBe(true);
    expect(verdict(true)).toBe(false);
  });
  it('an eye region taken from the update\'s memo (FogRegions.eyeOf, what seesPoint tests) is the one built afresh, bit for bit, in any order of viewers and tiers, and follows the next update', () => {
    const cfg = fogConfigOf(motion, MANNEQUIN_RIG, { climb: roomsClimb, walk: grid });
    const fog = new FogOfWar(rooms, cfg, 6), eye = MANNEQUIN_RIG.eyeHeight, rnd = mulberry32(0xe7e);
    const regions = new FogRegions(cfg, fog);
    const memo = new Float64Array(PRISM_STRIDE), fresh = new Float64Array(PRISM_STRIDE);
    let compared = 0;
    for (let stamp = 0; stamp < 4; stamp++) {
      for (let s = 0; s < 6; s++) {
        fog.setPlayer(s, -12 + 24 * rnd(), 0, -12 + 24 * rnd(), 6 * rnd() - 3, 0, 6 * rnd() - 3, eye, true, -1);
        fog.setTiming(s, 20 + 80 * rnd(), 100, 1000 / 64, 25);
        fog.stall[s] = rnd() < 0.3 ? 0.3 * rnd() : 0;
      }
      regions.prepare(stamp);
      for (let k = 0; k < 40; k++) {
        const v = Math.floor(rnd() * 6), tier = [PLAIN, GROWN, WIDE][Math.floor(rnd() * 3)]!;
        regions.eyeOf(memo, 0, v, tier);
        // Another viewer's flood in between, as a point tested for many viewers makes.
        regions.eyeRegion(fresh, 0, (v + 1) % 6, tier);
        regions.eyeRegion(fresh, 0, v, tier);
        for (let i = 0; i < PRISM_STRIDE; i++) expect(Object.is(memo[i], fresh[i]), `stamp ${stamp} viewer ${v} tier ${tier} number ${i}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBe(160);
  });
});
