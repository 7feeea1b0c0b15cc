/**
 * How the ground near a player lets its feet move up and down, for fog of war's vertical reach
 * (./reach) and the floor under its regions (./fog): a coarse grid over the level (cellM metres
 * square in x and z) holding, per cell, over the cells within ceil(reachM / cellM) of it (so a
 * query covers a disc of radius up to that many cells' width around any point of the cell):
 * - slope: the steepest walkable face (up- or down-facing, slope = horizontal over vertical part of
 *   the normal at most maxWalkSlope, default 2.2: the movement's lowest wall probe, a sphere of
 *   0.35 m at 0.8 m, first touches a slope near 2.05, so anything flatter can be walked up);
 * - step: whether a steep face no taller than stepHeight + 1 mm is there (a riser, a curb, the side
 *   of a low box: step.ts snaps up and down them). A flight of steps climbs one step at once and
 *   then one riser per tread: a step also counts as a slope of stepHeight / minTreadM (treads of at
 *   least minTreadM, default 25 cm; steeper stairs need a smaller minTreadM);
 * - ground: the lowest walkable face there that faces up by its winding (its lowest corner): a
 *   level's faces must be wound outward, as rendering needs (a floor wound downward would be missed);
 * - drops: the steep faces taller than a step (bottom and top y), and the open edges of walkable
 *   faces (an edge no other triangle shares: the rim of a floor with no thickness; bottom -Infinity).
 *   Edges are matched by their corners' exact coordinates, so a T-junction (a vertex in the middle
 *   of another triangle's edge) also reads as an open rim: more drops, never fewer.
 * A player whose feet are at fy can get below the ground only by stepping off a drop: a drop face
 * that reaches down below fy and whose top the feet can reach (walking, or jumping over it). Where
 * there is none, its feet stay at or above min(ground, fy) over the horizon (ramps and steps down
 * end on walkable faces, which `ground` includes); floorUnder answers that, or -Infinity.
 * A face goes into every cell its x-z bounding box overlaps. Outside the grid, or for a reach larger
 * than reachM, queries answer with level-wide values. Built once per level (allocates); queries read
 * typed arrays. Arithmetic only.
 */
import type { World } from '../world/world';

/** Numbers per drop face: bottom y, top y, x-z bounding box (x0, z0, x1, z1). */
export const DROP = 6;

export interface ClimbMap {
  cellM: number;
  /** Largest reach a query covers (the neighbourhood's radius in whole cells). */
  reachM: number;
  minX: number;
  minZ: number;
  nx: number;
  nz: number;
  /** Per cell (x + z * nx), over it and its neighbours: steepest walkable slope, step (1), lowest walkable y. */
  slope: Float64Array;
  step: Uint8Array;
  ground: Float64Array;
  /** Drop faces around cell c: entries dropStart[c] .. dropStart[c + 1] of `drops`, DROP numbers each (bottom y, top y, x-z box x0 z0 x1 z1). */
  dropStart: Uint32Array;
  drops: Float64Array;
  /** The level-wide maxima. */
  maxSlope: number;
  anyStep: boolean;
}

/** The climb grid of a world (see the module comment). */
export function buildClimbMap(world: World, stepHeight: number, cellM = 1, reachM = 3, maxWalkSlope = 2.2, minTreadM = 0.25): ClimbMap {
  const b = world.bounds(new Float64Array(6));
  const stairSlope = stepHeight / (minTreadM > 0 ? minTreadM : 0.25);
  const cell = cellM > 0 && cellM < Infinity ? cellM : 2;
  const ring = Math.max(1, Math.ceil((reachM > 0 && reachM < 1e3 ? reachM : 3) / cell));
  const nx = Math.max(1, Math.floor((b[3] - b[0]) / cell) + 1);
  const nz = Math.max(1, Math.floor((b[5] - b[2]) / cell) + 1);
  const cells = nx * nz;
  const own = new Float64Array(cells), ownStep = new Uint8Array(cells), ownGround = new Float64Array(cells).fill(Infinity);
  const ownDrops: number[][] = Array.from({ length: cells }, () => []);
  const c = world.triangleCorners();
  let maxSlope = 0, anyStep = false;
  const each = (x0: number, x1: number, z0: number, z1: number, f: (k: number) => void): void => {
    const cx0 = Math.max(0, Math.floor((x0 - b[0]) / cell)), cx1 = Math.min(nx - 1, Math.floor((x1 - b[0]) / cell));
    const cz0 = Math.max(0, Math.floor((z0 - b[2]) / cell)), cz1 = Math.min(nz - 1, Math.floor((z1 - b[2]) / cell));
    for (let z = cz0; z <= cz1; z++) for (let x = cx0; x <= cx1; x++) f(x + z * nx);
  };
  // Edges of all faces, keyed by their corners' coordinates: a walkable face's edge used once is an open rim.
  const edges = new Map<string, number>();
  const walkable: number[] = [];
  for (let i = 0; i < c.length; i += 9) {
    const ux = c[i + 3] - c[i], uy = c[i + 4] - c[i + 1], uz = c[i + 5] - c[i + 2];
    const vx = c[i + 6] - c[i], vy = c[i + 7] - c[i + 1], vz = c[i + 8] - c[i + 2];
    const qx = uy * vz - uz * vy, qy = uz * vx - ux * vz, qz = ux * vy - uy * vx;
    const side = Math.sqrt(qx * qx + qz * qz), ay = Math.abs(qy);
    for (let e = 0; e < 3; e++) {
      const p = i + 3 * e, q = i + 3 * ((e + 1) % 3);
      const a = `${c[p]},${c[p + 1]},${c[p + 2]}`, bb = `${c[q]},${c[q + 1]},${c[q + 2]}`;
      const key = a < bb ? `${a}|${bb}` : `${bb}|${a}`;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
    const y0 = Math.min(c[i + 1], c[i + 4], c[i + 7]), y1 = Math.max(c[i + 1], c[i + 4], c[i + 7]);
    const x0 = Math.min(c[i], c[i + 3], c[i + 6]), x1 = Math.max(c[i], c[i + 3], c[i + 6]);
    const z0 = Math.min(c[i + 2], c[i + 5], c[i + 8]), z1 = Math.max(c[i + 2], c[i + 5], c[i + 8]);
    if (ay > 0 && side <= maxWalkSlope * ay) {
      const slope = side / ay;
      if (slope > maxSlope) maxSlope = slope;
      const up = qy > 0;
      each(x0, x1, z0, z1, (k) => {
        if (slope > own[k]) own[k] = slope;
        if (up && y0 < ownGround[k]) ownGround[k] = y0;
      });
      walkable.push(i);
    } else if (y1 - y0 <= stepHeight + 0.001) {
      anyStep = true;
      if (stairSlope > maxSlope) maxSlope = stairSlope;
      each(x0, x1, z0, z1, (k) => {
        ownStep[k] = 1;
        if (stairSlope > own[k]) own[k] = stairSlope;
      });
    } else {
      each(x0, x1, z0, z1, (k) => { ownDrops[k].push(y0, y1, x0, z0, x1, z1); });
    }
  }
  for (const i of walkable) {
    for (let e = 0; e < 3; e++) {
      const p = i + 3 * e, q = i + 3 * ((e + 1) % 3);
      const a = `${c[p]},${c[p + 1]},${c[p + 2]}`, bb = `${c[q]},${c[q + 1]},${c[q + 2]}`;
      if (edges.get(a < bb ? `${a}|${bb}` : `${bb}|${a}`) !== 1) continue;
      const top = Math.max(c[p + 1], c[q + 1]);
      const ex0 = Math.min(c[p], c[q]), ex1 = Math.max(c[p], c[q]), ez0 = Math.min(c[p + 2], c[q + 2]), ez1 = Math.max(c[p + 2], c[q + 2]);
      each(ex0, ex1, ez0, ez1, (k) => { ownDrops[k].push(-Infinity, top, ex0, ez0, ex1, ez1); });
    }
  }
  const slope = new Float64Array(cells), step = new Uint8Array(cells), ground = new Float64Array(cells);
  const dropStart = new Uint32Array(cells + 1);
  const drops: number[] = [];
  for (let z = 0; z < nz; z++) {
    for (let x = 0; x < nx; x++) {
      const k0 = x + z * nx;
      let s = 0, st = 0, g = Infinity;
      dropStart[k0] = drops.length / DROP;
      for (let dz = -ring; dz <= ring; dz++) {
        for (let dx = -ring; dx <= ring; dx++) {
          const xx = x + dx, zz = z + dz;
          if (xx < 0 || zz < 0 || xx >= nx || zz >= nz) continue;
          const k = xx + zz * nx;
          if (own[k] > s) s = own[k];
          if (ownGround[k] < g) g = ownGround[k];
          st |= ownStep[k];
          for (const v of ownDrops[k]) drops.push(v);
        }
      }
      slope[k0] = s; step[k0] = st; ground[k0] = g;
    }
  }
  dropStart[cells] = drops.length / DROP;
  return { cellM: cell, reachM: ring * cell, minX: b[0], minZ: b[2], nx, nz, slope, step, ground, dropStart, drops: Float64Array.from(drops), maxSlope, anyStep };
}

/** Cell index of (x, z) for a reach of `reach` metres, or -1 when the level-wide values apply. */
export function climbCell(map: ClimbMap, x: number, z: number, reach: number): number {
  if (!(reach <= map.reachM)) return -1;
  const cx = Math.floor((x - map.minX) / map.cellM), cz = Math.floor((z - map.minZ) / map.cellM);
  if (!(cx >= 0 && cx < map.nx && cz >= 0 && cz < map.nz)) return -1;
  return cx + cz * map.nx;
}

/**
 * The lowest height the feet of a player at (x, fy, z) in cell `cell` can reach within `reach`
 * metres without falling: min(ground, fy), or -Infinity when a drop is within reach or the cell is
 * -1. A drop is within reach when its x-z box comes within `reach` of (x, z), it reaches below
 * fy - 5 cm and its top lies where the feet can get to: between fy - down - 5 cm and fy + up + 5 cm
 * (down, up: how far walking, and jumping for up, can move the feet over the horizon). A wall through
 * the floor whose top is out of reach is no drop.
 */
export function floorUnder(map: ClimbMap, cell: number, x: number, fy: number, z: number, reach: number, down: number, up: number): number {
  if (cell < 0) return -Infinity;
  const below = fy - 0.05, lo = fy - down - 0.05, hi = fy + up + 0.05;
  const d = map.drops;
  for (let i = map.dropStart[cell] * DROP, end = map.dropStart[cell + 1] * DROP; i < end; i += DROP) {
    if (!(d[i] < below && d[i + 1] >= lo && d[i + 1] <= hi)) continue;
    const dx = x < d[i + 2] ? d[i + 2] - x : x > d[i + 4] ? x - d[i + 4] : 0;
    const dz = z < d[i + 3] ? d[i + 3] - z : z > d[i + 5] ? z - d[i + 5] : 0;
    if (dx * dx + dz * dz <= reach * reach) return -Infinity;
  }
  const g = map.ground[cell];
  return g < fy ? g : fy;
}
