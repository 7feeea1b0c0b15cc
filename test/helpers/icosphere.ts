/**
 * Test helper: a closed, 2-manifold, outward-facing (counter-clockwise seen from outside) icosphere
 * with shared vertices, built by splitting every triangle into four and pushing the new vertices
 * onto the sphere. subdivisions = 5 gives 10,242 vertices and 20,480 triangles.
 */
import type { MeshArrays } from './glb';

export function icosphere(subdivisions: number, radius = 1): MeshArrays {
  const g = (1 + Math.sqrt(5)) / 2;
  const pos: number[] = [
    -1, g, 0, 1, g, 0, -1, -g, 0, 1, -g, 0,
    0, -1, g, 0, 1, g, 0, -1, -g, 0, 1, -g,
    g, 0, -1, g, 0, 1, -g, 0, -1, -g, 0, 1,
  ];
  let tris: number[] = [
    0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11,
    1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
    3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9,
    4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
  ];
  for (let s = 0; s < subdivisions; s++) {
    const mid = new Map<number, number>();
    const midpoint = (a: number, b: number): number => {
      const key = a < b ? a * 1e7 + b : b * 1e7 + a;
      let m = mid.get(key);
      if (m === undefined) {
        m = pos.length / 3;
        pos.push((pos[3 * a] + pos[3 * b]) / 2, (pos[3 * a + 1] + pos[3 * b + 1]) / 2, (pos[3 * a + 2] + pos[3 * b + 2]) / 2);
        mid.set(key, m);
      }
      return m;
    };
    const next: number[] = [];
    for (let t = 0; t < tris.length; t += 3) {
      const a = tris[t], b = tris[t + 1], c = tris[t + 2];
      const ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.push(a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca);
    }
    tris = next;
  }
  for (let i = 0; i < pos.length; i += 3) {
    const l = Math.sqrt(pos[i] * pos[i] + pos[i + 1] * pos[i + 1] + pos[i + 2] * pos[i + 2]);
    pos[i] *= radius / l;
    pos[i + 1] *= radius / l;
    pos[i + 2] *= radius / l;
  }
  return { positions: new Float64Array(pos), indices: new Uint32Array(tris) };
}
