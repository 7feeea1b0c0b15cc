/**
 * Test helper: reads the triangle soup of a GLB (every mesh primitive, node transforms applied) into
 * flat arrays the kernels take, so tests can run on the real assets in server/assets/.
 * Vertices are welded by exact position so shared edges use shared indices (needed by leak tests).
 */
import { NodeIO } from '@gltf-transform/core';

export interface MeshArrays {
  /** xyz per vertex, world space. */
  positions: Float64Array;
  /** Three vertex indices per triangle. */
  indices: Uint32Array;
}

/** Reads a GLB file and returns its triangles in world space, vertices welded by exact position. */
export async function readGlbTriangles(file: string): Promise<MeshArrays> {
  const doc = await new NodeIO().read(file);
  const pos: number[] = [];
  const idx: number[] = [];
  const weld = new Map<string, number>();
  const v = [0, 0, 0];
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const m = node.getWorldMatrix();
    for (const prim of mesh.listPrimitives()) {
      if (prim.getMode() !== 4) {
        throw new Error(`readGlbTriangles: primitive mode ${prim.getMode()} is not TRIANGLES (4); triangulate the asset first`);
      }
      const attr = prim.getAttribute('POSITION');
      if (!attr) continue;
      const local: number[] = [];
      for (let i = 0; i < attr.getCount(); i++) {
        attr.getElement(i, v);
        const x = m[0] * v[0] + m[4] * v[1] + m[8] * v[2] + m[12];
        const y = m[1] * v[0] + m[5] * v[1] + m[9] * v[2] + m[13];
        const z = m[2] * v[0] + m[6] * v[1] + m[10] * v[2] + m[14];
        const key = `${x},${y},${z}`;
        let id = weld.get(key);
        if (id === undefined) {
          id = pos.length / 3;
          weld.set(key, id);
          pos.push(x, y, z);
        }
        local.push(id);
      }
      const ind = prim.getIndices();
      const n = ind ? ind.getCount() : attr.getCount();
      for (let i = 0; i < n; i++) idx.push(local[ind ? ind.getScalar(i) : i]);
    }
  }
  return { positions: new Float64Array(pos), indices: new Uint32Array(idx) };
}

/** Path of an asset shipped in server/assets/. */
export function assetPath(name: string): string {
  return new URL(`../../server/assets/${name}`, import.meta.url).pathname;
}

/** Axis-aligned bounds of a mesh's vertices: [min x, min y, min z, max x, max y, max z]. */
export function meshBounds(m: MeshArrays): number[] {
  const b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  for (let i = 0; i < m.positions.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      b[k] = Math.min(b[k], m.positions[i + k]);
      b[k + 3] = Math.max(b[k + 3], m.positions[i + k]);
    }
  }
  return b;
}

/**
 * The mesh as a World stores it: positions rounded to the nearest float32 (World.fromTriangles does
 * this at build), so brute force over the result sees exactly the world's vertices.
 */
export function toFloat32<M extends MeshArrays>(m: M): M {
  return { ...m, positions: Float64Array.from(Float32Array.from(m.positions)) };
}
