/**
 * The crossing lines of shared/fog/rays.ts against brute force on the walled rooms level
 * (server/level/rooms.ts: doorways that line up, up to four in a row along its diagonals): for eye
 * and body regions as wide as a fast viewer's, every line from a point of the eye region's front
 * chord (./rays: across the line between the centres, CHORD_DEPTH of its half-depth toward the body region) at the eye to
 * one of the body region's front chord at its middle is scanned densely; when the clear ones hold a
 * crossOpeningM x crossOpeningM square of (eye offset, body offset) pairs, the rule's lines must find one. The
 * regions of pop-ins measured on that level with crossing lines between the diameters, as coarse as
 * the matched grid, must be found too.
 * Each front chord has its own count of points, spaced no coarser than crossOpeningM: a wide eye
 * region facing a body's does not put as many on the body's.
 * And a hidden verdict from crossing lines coarser than that (regions wider than their cap: a speed
 * measured from a burst of inputs) is not kept for the narrower regions of the next update, nor
 * taken for the plain regions of this one when their own lines show the enemy (a pop-in measured).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { roomsLevel } from '../server/level/rooms';
import { bodyEnvelopeOf, buildClimbMap, buildWalkGrid, FogOfWar, fogConfigOf, fogMotionOf } from '../shared/fog/index';
import { mulberry32 } from '../shared/util/prng';
import { CROSS_ROWS, FIXED_RAYS, G_CHORDS, G_CROSS_FINE, G_CROSS_LAT, G_CROSS_LAT_B, G_LAT, G_VERT, GRID_STRIDE, familyEnds, initGrid, P_AX, P_AZ, P_CX, P_CZ, P_EYE, P_MID, P_R, PRISM_STRIDE, rayCount, rayEnds, setOctagon, sizeGrid } from '../shared/fog/rays';
import { defaultMoveConfig } from '../shared/movement/step';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';

const world = roomsLevel();
const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const cfg = fogConfigOf(fogMotionOf(move, 1 / 64), MANNEQUIN_RIG);
const J = PRISM_STRIDE;
/** Brute force step across each region, metres. */
const STEP = 0.125;

/** Regions as the fog builds them (heights of a standing eye and body), centres and radii given. */
function regions(ax: number, az: number, ra: number, bx: number, bz: number, rb: number): Float64Array {
  const r = new Float64Array(2 * J);
  r[P_CX] = ax; r[P_CZ] = az; r[P_R] = ra; r[3] = 0.4; r[4] = 3; r[P_EYE] = 1.68; r[P_MID] = 1.68;
  r[J + P_CX] = bx; r[J + P_CZ] = bz; r[J + P_R] = rb; r[J + 3] = -0.6; r[J + 4] = 2.8; r[J + P_EYE] = 1.72; r[J + P_MID] = 0.85;
  return uncut(r);
}

/** Regions not cut by walls: aimed from their centres, each the octagon about its disc. */
function uncut(r: Float64Array): Float64Array {
  for (const o of [0, J]) {
    r[o + P_AX] = r[o + P_CX]!; r[o + P_AZ] = r[o + P_CZ]!;
    setOctagon(r, o);
  }
  return r;
}

/** Two regions written with the seven numbers each of centre, radius, heights and aim heights. */
function fromSeven(seven: readonly number[]): Float64Array {
  const r = new Float64Array(2 * J);
  for (let k = 0; k < 7; k++) { r[k] = seven[k]!; r[J + k] = seven[7 + k]!; }
  return uncut(r);
}

function ruleSees(r: Float64Array): boolean {
  const g = new Float64Array(GRID_STRIDE), seg = new Float64Array(6);
  initGrid(g, cfg.openingM, cfg.crossOpeningM, cfg.maxGridSide);
  sizeGrid(g, r, cfg.maxGridSide, cfg.fans, cfg.crossLines);
  for (let i = 0; i < rayCount(g); i++) {
    rayEnds(seg, i, r, g);
    if (!world.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!)) return true;
  }
  return false;
}

/** Dense scan of (eye offset, body offset) along the front chords at the eye and body middle: any clear line, and a clear crossOpeningM square of them. */
function brute(r: Float64Array): { any: boolean; square: boolean } {
  const g = new Float64Array(GRID_STRIDE);
  initGrid(g, cfg.openingM, cfg.crossOpeningM, cfg.maxGridSide);
  sizeGrid(g, r, cfg.maxGridSide, false, false);
  // Each region's front chord as the grid has it: from its -u end to its +u end.
  const A = G_CHORDS + 4, B = G_CHORDS + 12;
  const la = Math.hypot(g[A + 2]! - g[A]!, g[A + 3]! - g[A + 1]!), lb = Math.hypot(g[B + 2]! - g[B]!, g[B + 3]! - g[B + 1]!);
  const na = Math.floor(la / STEP) + 1, nb = Math.floor(lb / STEP) + 1;
  const at = (o: number, l: number, i: number): [number, number] => {
    const f = l > 0 ? Math.min(1, (i * STEP) / l) : 0;
    return [g[o]! + f * (g[o + 2]! - g[o]!), g[o + 1]! + f * (g[o + 3]! - g[o + 1]!)];
  };
  const clear = new Uint8Array(na * nb);
  let any = false;
  for (let i = 0; i < na; i++) {
    const [ax, az] = at(A, la, i);
    for (let j = 0; j < nb; j++) {
      const [bx, bz] = at(B, lb, j);
      const c = !world.anyHit(ax, r[P_EYE]!, az, bx, r[J + P_MID]!, bz);
      clear[i * nb + j] = c ? 1 : 0;
      if (c) any = true;
    }
  }
  // A square of side crossOpeningM (plus a step: the samples bound it) whose samples are all clear.
  const k = Math.ceil(cfg.crossOpeningM / STEP) + 1;
  let square = false;
  for (let i = 0; i + k <= na && !square; i++) {
    for (let j = 0; j + k <= nb && !square; j++) {
      let all = true;
      for (let a = 0; a < k && all; a++) for (let b = 0; b < k && all; b++) all = clear[(i + a) * nb + j + b] === 1;
      square = all;
    }
  }
  return { any, square };
}

describe('fog crossing lines on the rooms level', () => {
  it('find a line through doorways that line up whenever the clear lines hold a crossOpeningM square, for regions up to 10 m wide', () => {
    let cases = 0, anyVis = 0, squares = 0, missed = 0, thin = 0;
    // Corner room to the opposite corner room and to the middle: the doorways line up along the diagonals.
    const coord = (lo: number, hi: number) => fc.integer({ min: lo * 100, max: hi * 100 }).map((i) => i / 100);
    fc.assert(
      fc.property(coord(-23, -9), coord(-23, -9), coord(1.5, 5.2), fc.boolean(), coord(-7, 23), coord(-7, 23), coord(1.2, 5.2), fc.boolean(), (ax, az, ra, far, bx, bz, rb, swap) => {
        const [x, z] = far ? [bx, bz] : [bx / 2, bz / 2];
        const r = swap ? regions(x, z, rb, ax, az, ra) : regions(ax, az, ra, x, z, rb);
        const b = brute(r);
        const says = ruleSees(r);
        cases++;
        if (b.any) anyVis++;
        if (b.square) squares++;
        if (b.any && !says) thin++;
        if (b.square && !says) missed++;
        expect(!b.square || says, `missed through a crossOpeningM square: ${JSON.stringify([...r])}`).toBe(true);
      }),
      { seed: 0xd00e, numRuns: 200 },
    );
    console.log(`[fog] rooms: ${cases} region pairs, brute force clear ${anyVis} (through a crossOpeningM square ${squares}); rule missed ${thin} (of them through the square ${missed})`);
    expect(squares).toBeGreaterThan(cases / 20);
  });

  it('each front chord gets its own count, spaced no coarser than crossOpeningM', () => {
    const g = new Float64Array(GRID_STRIDE);
    initGrid(g, cfg.openingM, cfg.crossOpeningM, cfg.maxGridSide);
    for (const [ra, rb] of [[3, 0.6], [0.6, 3], [1, 1], [0.5, 5.2]] as const) {
      const r = regions(0, 0, ra, 12, 3, rb);
      sizeGrid(g, r, cfg.maxGridSide, false, true);
      const A = G_CHORDS + 4, B = G_CHORDS + 12;
      const la = Math.hypot(g[A + 2]! - g[A]!, g[A + 3]! - g[A + 1]!), lb = Math.hypot(g[B + 2]! - g[B]!, g[B + 3]! - g[B + 1]!);
      const na = g[G_CROSS_LAT]!, nb = g[G_CROSS_LAT_B]!;
      expect(g[G_CROSS_FINE]).toBe(1);
      expect(la / (na - 1)).toBeLessThanOrEqual(cfg.crossOpeningM);
      expect(lb / (nb - 1)).toBeLessThanOrEqual(cfg.crossOpeningM);
      // No more points than the spacing needs: one fewer on either chord would be coarser.
      expect(la / (na - 2)).toBeGreaterThan(cfg.crossOpeningM);
      expect(lb / (nb - 2)).toBeGreaterThan(cfg.crossOpeningM);
      expect(rayCount(g)).toBe(FIXED_RAYS + g[G_LAT]! * g[G_VERT]! + CROSS_ROWS * na * nb);
      // The last crossing line joins both chords' +u ends.
      const seg = new Float64Array(6);
      rayEnds(seg, rayCount(g) - 1, r, g);
      expect(Math.hypot(seg[0]! - g[A + 2]!, seg[2]! - g[A + 3]!)).toBeLessThan(1e-9);
      expect(Math.hypot(seg[3]! - g[B + 2]!, seg[5]! - g[B + 3]!)).toBeLessThan(1e-9);
    }
  });

  it('familyEnds gives every grid and crossing line the same ends as rayEnds, bit for bit, from its place in its family', () => {
    const g = new Float64Array(GRID_STRIDE);
    initGrid(g, cfg.openingM, cfg.crossOpeningM, cfg.maxGridSide);
    const want = new Float64Array(6), got = new Float64Array(6);
    let lines = 0;
    for (const [ra, rb, x] of [[3, 0.6, 12], [0.6, 3, 7], [1, 1, 20], [0.5, 5.2, 9], [9, 1, 15]] as const) {
      const r = regions(0, 0, ra, x, 3, rb);
      sizeGrid(g, r, cfg.maxGridSide, false, true);
      const lat = g[G_LAT]!, vert = g[G_VERT]!, n = g[G_CROSS_LAT]!, nb = g[G_CROSS_LAT_B]!;
      const families: [number, number, number, number][] = [[FIXED_RAYS, lat, lat, vert]];
      for (let row = 0; row < CROSS_ROWS; row++) families.push([FIXED_RAYS + lat * vert + row * n * nb, n, n, nb]);
      for (const [base, stride, na, nbs] of families) {
        for (let b = 0; b < nbs; b++) for (let a = 0; a < na; a++) {
          const i = base + a + stride * b;
          rayEnds(want, i, r, g);
          familyEnds(got, i, a, b, r, g);
          for (let k = 0; k < 6; k++) expect(Object.is(got[k], want[k]), `line ${i} (${a}, ${b}) end ${k}`).toBe(true);
          lines++;
        }
      }
      expect(families.at(-1)![0] + n * nb).toBe(rayCount(g));
    }
    expect(lines).toBeGreaterThan(500);
  });

  it('pop-ins measured on the rooms level: a clear line between points of the two regions, so the rule sees', () => {
    // Per pop-in (npm run sim -- --level rooms --spawns spread, seeds 1 and 7): the grown regions the
    // pair was judged hidden on (eye region, body region: PRISM_STRIDE numbers each), the eye on the
    // screen and a body point it saw. Doorways lined up (up to four along a diagonal), regions wider
    // than the matched grid keeps to openingM, lines that leave a region only from its near part.
    const CASES: [number[], number[], number[]][] = [
    [[10.415, -4.091, 17.65, 0.365, 2.983, 1.678, 1.678, -13.167, 21.861, 3.567, -0.569, 2.762, 1.72, 0.851], [10.524, 1.678, -2.95], [-13.851, 1.559, 21.994]],
    [[23.224, 2.052, 11.499, 0.258, 2.984, 1.678, 1.678, 5.884, -18.199, 2.283, -0.617, 2.82, 1.72, 0.851], [23.564, 1.678, 0.15], [5.537, 1.54, -18.07]],
    [[23.589, 1.4, 4.412, 0.417, 2.982, 1.678, 1.678, 4.355, -18.47, 3.239, -0.577, 2.773, 1.72, 0.851], [23.631, 1.678, 1.037], [5.037, 0.043, -18.769]],
    [[3.183, 22.525, 4.412, 0.467, 2.979, 1.678, 1.678, 23.65, -2.585, 1.413, -0.524, 2.696, 1.72, 0.851], [3.172, 1.678, 22.607], [23.756, 0.884, -2.352]],
    [[-23.65, 17.453, 2.091, 1.21, 3.669, 2.372, 2.372, 2.315, -10.224, 2.032, -0.465, 2.58, 1.72, 0.851], [-23.65, 2.666, 16.822], [2.449, 1.496, -10.306]],
    [[6.479, 14.469, 2.236, 0.539, 3.077, 1.774, 1.774, -24.996, 17.798, 6.235, -2.516, 3.35, 2.332, 1.463], [6.296, 2.554, 14.049], [-23.882, 1.768, 18.709]],
    [[-24.759, 17.866, 16.062, 0.029, 2.984, 1.678, 1.678, -15.608, 18.468, 1.918, 0.229, 3.433, 2.467, 1.598], [-22.866, 1.678, 17.45], [-16.107, 2.111, 18.727]],
    [[-23.695, -16.422, 4.6, 0.391, 2.983, 1.678, 1.678, 15.679, 22.692, 1.491, -0.584, 2.782, 1.72, 0.851], [-23.638, 1.678, -16.398], [15.39, 0.915, 22.7]],
    [[15.679, 22.692, 1.721, 0.391, 2.983, 1.678, 1.678, -23.695, -16.422, 3.239, -0.575, 2.77, 1.72, 0.851], [15.679, 1.678, 22.692], [-23.698, 0.464, -15.96]],
    [[-14.15, 24.365, 13.858, 0.231, 2.984, 1.678, 1.678, -15.645, -8.298, 2.27, 0.01, 2.808, 1.72, 0.851], [-14.364, 1.678, 22.757], [-15.771, 1.252, -8.374]],
    [[10.428, -7.697, 29.641, -1.844, 2.984, 1.678, 1.678, 11.69, -9.341, 2.217, -0.722, 2.917, 1.72, 0.851], [9.208, 1.678, -10.256], [11.581, 1.469, -9.666]],
    [[-10.179, -15.136, 8.724, -3.088, 2.984, 1.678, 1.678, 15.405, 7.936, 1.672, -0.674, 2.877, 1.72, 0.851], [-10.037, 1.678, -17.911], [15.454, 1.647, 7.934]],
    [[2.781, -23.442, 1.692, 0.516, 2.974, 1.678, 1.678, -22.856, -3.036, 2.002, -0.501, 2.654, 1.72, 0.851], [1.714, 1.678, -23.333], [-22.562, 1.498, -3.118]],
    [[13.354, -6.977, 1.716, 0.516, 2.974, 1.678, 1.678, 8.88, 8.5, 1.83, -0.491, 2.636, 1.72, 0.851], [12.665, 1.678, -6.039], [9.148, 0.131, 7.843]],
    [[13.119, -6.642, 2.177, 0.516, 2.974, 1.678, 1.678, 9.756, 8.5, 2.79, -0.495, 2.643, 1.72, 0.851], [12.64, 1.678, -6.006], [9.266, 0.201, 7.789]],
    [[-23.445, 19.566, 4.504, 0.231, 2.984, 1.678, 1.678, -6.192, -3.403, 2.189, -0.585, 2.783, 1.72, 0.851], [-23.378, 1.678, 17.989], [-6.147, 1.007, -2.945]],
    [[-23.52, -18.641, 4.787, 0.203, 2.984, 1.678, 1.678, 9.49, 16.484, 3.035, -0.633, 2.838, 1.72, 0.851], [-23.65, 1.678, -16.648], [9.037, 1.264, 16.708]],
    [[-21.464, -12.148, 3.248, 0.203, 2.984, 1.678, 1.678, 8.595, -21.969, 3.033, -1.152, 3.098, 1.72, 0.851], [-20.891, 1.678, -11.827], [7.842, 0.346, -21.68]],
    [[4.934, -10.371, 2.519, 0.203, 2.984, 1.678, 1.678, -24.202, -23.583, 9.06, -0.644, 2.849, 1.72, 0.851], [4.818, 1.678, -10.047], [-22.297, 1.498, -23.15]],
    [[-9.229, -15.329, 4.746, 0.231, 2.984, 1.678, 1.678, 8.503, -23.102, 2.159, -0.614, 2.818, 1.72, 0.851], [-9.693, 1.678, -14.55], [7.754, 0.342, -22.863]],
    [[20.479, -3.04, 3.628, 0.146, 2.984, 1.678, 1.678, -1.854, -23.757, 2.378, -0.58, 2.777, 1.72, 0.851], [21.129, 1.678, -4.183], [-1.766, 1.469, -23.484]],
    ];
    for (const [reg, eye, pt] of CASES) {
      const r = fromSeven(reg);
      const inside = (p: number[], o: number) => Math.hypot(p[0]! - r[o + P_CX]!, p[2]! - r[o + P_CZ]!) <= r[o + P_R]! && p[1]! >= r[o + 3]! && p[1]! <= r[o + 4]!;
      expect(inside(eye, 0) && inside(pt, J)).toBe(true);
      expect(world.anyHit(eye[0]!, eye[1]!, eye[2]!, pt[0]!, pt[1]!, pt[2]!)).toBe(false);
      expect(ruleSees(r), JSON.stringify(reg)).toBe(true);
    }
  });

  it('a hidden verdict from grown regions tested coarser than openingM does not stand when the plain regions show a clear line', () => {
    // A pop-in measured on the rooms level (npm run sim -- --bots 32 --seconds 60 --level rooms
    // --spawns spread, seed 108): the viewer's server position had just stepped 8 inputs in one
    // tick, the enemy's about 3, so their velocities read 48 and 20 m/s; the regions grown from those
    // (19 m across) were tested on lines coarser than openingM and showed no clear line, while the
    // eye on the screen (inside the plain eye region) saw the enemy's body through four doorways on
    // the diagonal, as do the plain regions' first lines (from the eye to the body).
    const fog = new FogOfWar(world, fogConfigOf(fogMotionOf(move, 1 / 64), MANNEQUIN_RIG, { climb: buildClimbMap(world, move.stepHeight) }), 2);
    const eyeH = 1.6776;
    fog.setPlayer(0, 23.590654635625885, 0, -14.819689477148945, 10.670925199985504, 0, 46.795265436172485, eyeH, true, -1);
    fog.setPlayer(1, -10.052761720517736, 0, 18.06855146362629, -19.295832028842142, 0, 5.187891825004044, eyeH, true, -1);
    fog.catchUp[0] = 0.03261968941538362;
    fog.catchUp[1] = 0.11113509812467964;
    fog.setTiming(0, 148, 121, 1000 / 64, 50);
    fog.setTiming(1, 264, 121, 1000 / 64, 50);
    // The eye on the screen and the enemy's body points at its render time (6 ms after the update).
    const eye = [23.581373979105898, 1.6776, -14.66608142849598];
    const body = [[-10.092, 1.526, 17.788], [-10.061, 1.275, 17.915], [-10.056, 0.923, 18.083], [-10.268, 0.982, 18.3], [-10.096, 1.151, 17.558], [-10.231, 0.342, 18.118], [-9.873, 0.038, 18.444]];
    for (const b of body) expect(world.anyHit(eye[0]!, eye[1]!, eye[2]!, b[0]!, b[1]!, b[2]!)).toBe(false);
    // Judged hidden at the update before (a new FogOfWar's pairs start so): the wide regions first.
    fog.update();
    expect(fog.isVisible(0, 1)).toBe(true);
  });

  it('a hidden verdict from crossing lines coarser than openingM is re-tested at the next update; a finer one is kept', () => {
    const fog = new FogOfWar(world, fogConfigOf(fogMotionOf(move, 1 / 64), MANNEQUIN_RIG, { climb: buildClimbMap(world, move.stepHeight) }), 2);
    const eye = MANNEQUIN_RIG.eyeHeight;
    // Viewer 0 in the south-west room, 1 in the north-east one at speed `speed` along x, then standing.
    const update = (speed: number): void => {
      fog.setPlayer(0, -20, 0, -20, 0, 0, 0, eye, true, -1);
      fog.setPlayer(1, 20, 0, 20, speed, 0, 0, eye, true, -1);
      for (const s of [0, 1]) fog.setTiming(s, 50, 100, 1000 / 64, 50);
      fog.update();
    };
    for (const [speed, retested] of [[30, 1], [3, 0]] as const) {
      fog.forget(1);
      update(speed);
      expect(fog.isVisible(0, 1) || fog.isVisible(1, 0)).toBe(false);
      update(0);
      // At 30 m/s the eye region of 1 is over 11.25 m wide: that pair (1 viewing 0) is re-tested.
      expect(fog.pairsTested, `after ${speed} m/s`).toBe(retested);
    }
  });

  it('an enemy seen through a doorway past its jamb, over a crate that hides its middle: the crossing lines to its head find it', () => {
    // A pop-in measured on the rooms level (npm run sim -- --bots 32 --seconds 60 --rtt 100 --level
    // rooms --spawns spread, seed 516): a still viewer in the east room by its north wall, an enemy
    // 24 m away in the middle room, seen through the doorway between them past its south jamb, just
    // beyond the crate near it. Most of both regions lie behind the wall, so the lines through the
    // doorway are few, and the crate blocks those to the body's middle: crossing lines to the middle
    // alone missed it. Brute force: the viewer's eye to points of the enemy's body envelope.
    const cfgWalk = fogConfigOf(fogMotionOf(move, 1 / 64), MANNEQUIN_RIG, {
      climb: buildClimbMap(world, move.stepHeight), walk: buildWalkGrid(world, Math.min(...move.probeHeights), move.radius) ?? undefined,
    });
    const env = bodyEnvelopeOf(MANNEQUIN_RIG), eyeH = MANNEQUIN_RIG.eyeHeight;
    const fog = new FogOfWar(world, cfgWalk, 2);
    const rnd = mulberry32(3);
    let seen = 0, missed = 0;
    for (let it = 0; it < 12000; it++) {
      const ex = 21.75 + (rnd() - 0.5) * 2, ez = 7.44 + (rnd() - 0.5) * 2;
      const bx = 1.45 + (rnd() - 0.5) * 4, bz = -5.15 + (rnd() - 0.5) * 4;
      let sees = false;
      for (let h = 0; h <= 6 && !sees; h++) {
        for (let a = 0; a < 16 && !sees; a++) {
          const y = env.bottom + ((env.top - env.bottom) * h) / 6, px = bx + 0.5 * env.radius * Math.cos((a * Math.PI) / 8), pz = bz + 0.5 * env.radius * Math.sin((a * Math.PI) / 8);
          sees = !world.anyHit(ex, eyeH, ez, px, y, pz);
        }
      }
      if (!sees) continue;
      seen++;
      const speed = rnd() * 6, dir = rnd() * 2 * Math.PI, own = rnd() < 0.5 ? 0 : rnd() * 6, ownDir = rnd() * 2 * Math.PI, oneWay = 20 + rnd() * 100;
      fog.forget(0);
      fog.forget(1);
      fog.setPlayer(0, ex, 0, ez, own * Math.cos(ownDir), 0, own * Math.sin(ownDir), eyeH, true, -1);
      fog.setPlayer(1, bx, 0, bz, speed * Math.cos(dir), 0, speed * Math.sin(dir), eyeH, true, -1);
      for (const s of [0, 1]) fog.setTiming(s, oneWay, 115, 1000 / 64, 50);
      fog.speedFloor[0] = rnd() < 0.3 ? move.maxSpeed : 0;
      fog.stall[0] = rnd() < 0.3 ? rnd() * 0.3 : 0;
      fog.update();
      if (!fog.isVisible(0, 1)) missed++;
    }
    console.log(`[fog] doorway past a jamb, over a crate: ${seen} states the eye sees the body in, missed ${missed}`);
    expect(seen).toBeGreaterThan(2000);
    expect(missed).toBe(0);
  });
});
