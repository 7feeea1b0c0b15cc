/**
 * The crossing lines of shared/fog/rays.ts against brute force on the walled rooms level
 * (server/level/rooms.ts: doorways that line up, up to four in a row along its diagonals): for eye
 * and body regions as wide as a fast viewer's, every line from a lateral point of the eye region at
 * the eye to one of the body region at its middle is scanned densely; when the clear ones hold an
 * openingM x openingM square of (eye offset, body offset) pairs, the rule's lines must find one.
 * And a hidden verdict from crossing lines coarser than that (regions wider than their cap: a speed
 * measured from a burst of inputs) is not kept for the narrower regions of the next update.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { roomsLevel } from '../server/level/rooms';
import { buildClimbMap, FogOfWar, fogConfigOf, fogMotionOf } from '../shared/fog/index';
import { G_SPACING, G_UX, G_UZ, GRID_STRIDE, P_CX, P_CZ, P_EYE, P_MID, P_R, PRISM_STRIDE, rayCount, rayEnds, sizeGrid } from '../shared/fog/rays';
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
  return r;
}

function ruleSees(r: Float64Array): boolean {
  const g = new Float64Array(GRID_STRIDE), seg = new Float64Array(6);
  g[G_SPACING] = cfg.openingM;
  sizeGrid(g, r, cfg.maxGridSide, cfg.fans, cfg.crossLines);
  for (let i = 0; i < rayCount(g); i++) {
    rayEnds(seg, i, r, g);
    if (!world.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!)) return true;
  }
  return false;
}

/** Dense scan of (eye offset, body offset) at the eye and body middle: any clear line, and a clear openingM square of them. */
function brute(r: Float64Array): { any: boolean; square: boolean } {
  const g = new Float64Array(GRID_STRIDE);
  g[G_SPACING] = cfg.openingM;
  sizeGrid(g, r, cfg.maxGridSide, false, false);
  const ux = g[G_UX]!, uz = g[G_UZ]!;
  const na = Math.floor((2 * r[P_R]!) / STEP) + 1, nb = Math.floor((2 * r[J + P_R]!) / STEP) + 1;
  const clear = new Uint8Array(na * nb);
  let any = false;
  for (let i = 0; i < na; i++) {
    const oa = -r[P_R]! + i * STEP;
    for (let j = 0; j < nb; j++) {
      const ob = -r[J + P_R]! + j * STEP;
      const c = !world.anyHit(r[P_CX]! + ux * oa, r[P_EYE]!, r[P_CZ]! + uz * oa, r[J + P_CX]! + ux * ob, r[J + P_MID]!, r[J + P_CZ]! + uz * ob);
      clear[i * nb + j] = c ? 1 : 0;
      if (c) any = true;
    }
  }
  // A square of side openingM (plus a step: the samples bound it) whose samples are all clear.
  const k = Math.ceil(cfg.openingM / STEP) + 1;
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
  it('find a line through doorways that line up whenever the clear lines hold an openingM square, for regions up to 10 m wide', () => {
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
        expect(!b.square || says, `missed through an openingM square: ${JSON.stringify([...r])}`).toBe(true);
      }),
      { seed: 0xd00e, numRuns: 200 },
    );
    console.log(`[fog] rooms: ${cases} region pairs, brute force clear ${anyVis} (through an openingM square ${squares}); rule missed ${thin} (of them through the square ${missed})`);
    expect(squares).toBeGreaterThan(cases / 20);
  });

  it('the four doorways of a diagonal, seen from a fast viewer in the corner room', () => {
    // Regions the fog built for a viewer measured at 12 m/s in the south-west room and an enemy standing in the north-east one.
    const r = regions(-23.69, -16.42, 4.6, 15.68, 22.69, 1.49);
    expect(brute(r).any).toBe(true);
    expect(ruleSees(r)).toBe(true);
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
});
