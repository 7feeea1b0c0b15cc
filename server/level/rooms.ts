/**
 * A walled level for measuring fog of war: a 48 x 48 m floor in a 4 m outer wall, split by 3.5 m
 * walls into nine 16 x 16 m rooms, each wall between two rooms with a 2 m doorway in its middle, and
 * two 1 m crates per room for low cover. Players in different rooms are out of each other's sight
 * except through doorways, as on the corridor-and-room maps fog of war is made for; the default
 * level (server/assets/collision-world.glb) is open ground whose cover a jump sees over. Built from
 * boxes, deterministic, about 700 triangles (`npm run sim -- --level rooms`).
 */
import { World } from '../../shared/world/world';

/** Half the floor's side, metres. */
const HALF = 24;
/** The interior walls' lines (x and z), their thickness and height; the doorways' width; the outer wall's height. */
const LINES = [-8, 8];
const WALL_T = 0.3;
const WALL_H = 3.5;
const DOOR_W = 2;
const OUTER_H = 4;

/** Twelve triangles of an axis-aligned box (x0 < x1, y0 < y1, z0 < z1), outward faces. */
function pushBox(pos: number[], idx: number[], x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void {
  const b = pos.length / 3;
  for (const [x, y, z] of [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] as const) pos.push(x, y, z);
  for (const i of [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5]) idx.push(b + i);
}

/** The room bounds along one axis: [-HALF, -8], [-8, 8], [8, HALF]. */
function spans(): [number, number][] {
  const cuts = [-HALF, ...LINES, HALF];
  return cuts.slice(1).map((c, i) => [cuts[i]!, c]);
}

export function roomsLevel(): World {
  const pos: number[] = [];
  const idx: number[] = [];
  const t = WALL_T / 2;
  pushBox(pos, idx, -HALF, -1, -HALF, HALF, 0, HALF);
  const floorTris = idx.length / 3;
  // The outer wall.
  pushBox(pos, idx, -HALF - 0.5, 0, -HALF - 0.5, HALF + 0.5, OUTER_H, -HALF);
  pushBox(pos, idx, -HALF - 0.5, 0, HALF, HALF + 0.5, OUTER_H, HALF + 0.5);
  pushBox(pos, idx, -HALF - 0.5, 0, -HALF, -HALF, OUTER_H, HALF);
  pushBox(pos, idx, HALF, 0, -HALF, HALF + 0.5, OUTER_H, HALF);
  // Interior walls: along z at x = line and along x at z = line, one segment per room side, a doorway in each.
  for (const line of LINES) {
    for (const [a, b] of spans()) {
      const mid = (a + b) / 2, d = DOOR_W / 2;
      pushBox(pos, idx, line - t, 0, a, line + t, WALL_H, mid - d);
      pushBox(pos, idx, line - t, 0, mid + d, line + t, WALL_H, b);
      pushBox(pos, idx, a, 0, line - t, mid - d, WALL_H, line + t);
      pushBox(pos, idx, mid + d, 0, line - t, b, WALL_H, line + t);
    }
  }
  const wallTris = idx.length / 3 - floorTris;
  // Two crates per room, off its centre.
  for (const [x0, x1] of spans()) {
    for (const [z0, z1] of spans()) {
      const cx = (x0 + x1) / 2, cz = (z0 + z1) / 2;
      pushBox(pos, idx, cx + 2.5, 0, cz - 3.5, cx + 3.5, 1, cz - 2.5);
      pushBox(pos, idx, cx - 4, 0, cz + 2, cx - 3, 1, cz + 3);
    }
  }
  return World.fromTriangles(new Float64Array(pos), new Uint32Array(idx), [
    { start: 0, count: floorTris, node: 'floor', material: 'concrete' },
    { start: floorTris, count: wallTris, node: 'walls', material: 'brick' },
    { start: floorTris + wallTris, count: idx.length / 3 - floorTris - wallTris, node: 'crates', material: 'wood' },
  ]);
}
