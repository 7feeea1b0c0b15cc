/**
 * The example's level, built in code: a 60 m floor and a crate wall across the middle lane. Team A
 * spawns at z = 0, team B at z = 12; the wall stands at x in [4, 8] between them, leaving the
 * lane at x = 0 open.
 */
import { World } from 'hitreg';

function box(pos: number[], idx: number[], x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void {
  const b = pos.length / 3;
  for (const [x, y, z] of [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] as const) pos.push(x, y, z);
  for (const i of [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5]) idx.push(b + i);
}

export function buildLevel(): World {
  const pos: number[] = [];
  const idx: number[] = [];
  box(pos, idx, -30, -1, -30, 30, 0, 30);
  const floor = idx.length / 3;
  box(pos, idx, 4, 0, 5.8, 8, 2.5, 6.2);
  return World.fromTriangles(new Float64Array(pos), new Uint32Array(idx), [
    { start: 0, count: floor, node: 'floor', material: 'concrete' },
    { start: floor, count: idx.length / 3 - floor, node: 'crates', material: 'wood' },
  ]);
}

/** Where each team spawns: team A looks toward +z, team B toward -z. */
export const SPAWNS = [
  [{ x: -2, z: 0 }, { x: 2, z: 0 }, { x: 6, z: 0 }],
  [{ x: 0, z: 12 }, { x: -4, z: 12 }, { x: 6, z: 12 }],
] as const;
