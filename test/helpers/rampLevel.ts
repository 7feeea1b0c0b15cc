/**
 * A small level with the climbing the fog's reach bounds must cover: a floor, a ramp (slope 0.5) up
 * to a 2 m platform whose far sides are ledges, a flight of 5 steps (0.2 m up, 0.3 m deep) to a 1 m
 * landing. Used by the reach bounds' tests (test/fogUpdate.test.ts) and the walk grid's
 * (test/fogWalk.test.ts).
 */
import { World } from '../../shared/world/world';
import { boxes } from './projectileScenes';

/** Triangles of convex solids given by their corners' faces, each wound to face out of its solid. */
function solids(list: number[][][][]): { positions: Float32Array; indices: Uint32Array } {
  const pos: number[] = [];
  for (const faces of list) {
    const all = faces.flat();
    const c = [0, 1, 2].map((k) => all.reduce((s, p) => s + p[k], 0) / all.length);
    for (const f of faces) {
      for (let i = 1; i + 1 < f.length; i++) {
        const [a, b, d] = [f[0], f[i], f[i + 1]];
        const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], v = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
        const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        const out = n[0] * (a[0] - c[0]) + n[1] * (a[1] - c[1]) + n[2] * (a[2] - c[2]) > 0;
        pos.push(...a, ...(out ? b : d), ...(out ? d : b));
      }
    }
  }
  return { positions: Float32Array.from(pos), indices: Uint32Array.from({ length: pos.length / 3 }, (_, i) => i) };
}

/** A floor with a ramp (slope 0.5) up to a 2 m platform (a ledge on its far sides) and a flight of 5 steps (0.2 up, 0.3 deep) to a landing. */
export const rampLevel = (() => {
  const box = boxes([[-30, -1, -30, 30, 0, 30], [6, 0, -2, 9, 2, 2], ...[0, 1, 2, 3, 4].map((i) => [-3 - 0.3 * (i + 1), 0, 3, -3, 0.2 * (i + 1), 5]), [-8, 0, 3, -4.5, 1, 5]]);
  const ramp = solids([[
    [[2, 0, -2], [2, 0, 2], [6, 2, 2], [6, 2, -2]],
    [[2, 0, -2], [6, 0, -2], [6, 2, -2]], [[2, 0, 2], [6, 0, 2], [6, 2, 2]],
    [[6, 0, -2], [6, 0, 2], [6, 2, 2], [6, 2, -2]], [[2, 0, -2], [6, 0, -2], [6, 0, 2], [2, 0, 2]],
  ]]);
  const positions = new Float32Array(box.positions.length + ramp.positions.length);
  positions.set(box.positions);
  positions.set(ramp.positions, box.positions.length);
  const indices = Uint32Array.from({ length: positions.length / 3 }, (_, i) => i);
  return World.fromTriangles(positions, indices);
})();

