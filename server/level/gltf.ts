/**
 * Level import: reads a glTF/GLB file (compressed and quantized ones included, see ./gltfIO) and
 * flattens every mesh node of its scenes into one triangle soup (world transforms baked, in doubles), keeping the node and material
 * name of each primitive as a triangle range so a hit can say what it struck. This is I/O, so it
 * lives in server/; the World it builds is pure shared/ code.
 */
import { Primitive, type Mesh, type Node as GltfNode, type Root, type mat4 } from '@gltf-transform/core';
import { fileURLToPath } from 'node:url';
import { World, type SurfaceRange } from '../../shared/world/world';
import { readGltf } from './gltfIO';

/** The three.js FPS level, the default level of the project. */
export const DEFAULT_LEVEL_PATH: string = fileURLToPath(
  new URL('../assets/collision-world.glb', import.meta.url),
);

export interface LevelMesh {
  /** xyz per vertex, world space (node transforms applied), metres. */
  positions: Float64Array;
  /** Three vertex indices per triangle; winding kept front-facing even under mirroring transforms. */
  indices: Uint32Array;
  /** Consecutive triangle ranges, one per mesh primitive instance, with the node and material names. */
  surfaceRanges: SurfaceRange[];
}

const MODE_NAMES: Record<number, string> = {
  0: 'POINTS',
  1: 'LINES',
  2: 'LINE_LOOP',
  3: 'LINE_STRIP',
  4: 'TRIANGLES',
  5: 'TRIANGLE_STRIP',
  6: 'TRIANGLE_FAN',
};

interface Piece {
  positions: Float64Array;
  indices: Uint32Array;
  node: string;
  material: string;
}

/**
 * Loads every TRIANGLES primitive of every mesh node reachable from the file's scenes. Other
 * primitive modes are rejected with an error naming the node, mesh and primitive, because silently
 * dropping part of a level would make shots pass through it.
 */
export async function loadLevelMesh(path: string): Promise<LevelMesh> {
  const doc = await readGltf(path, 'level');
  return mergePieces(path, collectPieces(path, doc.getRoot()));
}

/** One piece per TRIANGLES primitive of each mesh node reachable from the scenes (or, without scenes, from the root nodes). */
function collectPieces(path: string, root: Root): Piece[] {
  const pieces: Piece[] = [];
  const seen = new Set<GltfNode>();
  const visit = (node: GltfNode): void => {
    // A node can appear in several scenes; bake it once so triangles are not doubled.
    if (seen.has(node)) return;
    seen.add(node);
    const mesh = node.getMesh();
    if (mesh) {
      const m = node.getWorldMatrix();
      const nodeName = node.getName() || `node${root.listNodes().indexOf(node)}`;
      const prims = mesh.listPrimitives();
      for (let p = 0; p < prims.length; p++) pieces.push(readPiece(path, nodeName, mesh, p, prims[p], m));
    }
    for (const child of node.listChildren()) visit(child);
  };
  const scenes = root.listScenes();
  if (scenes.length > 0) {
    for (const scene of scenes) for (const node of scene.listChildren()) visit(node);
  } else {
    // No scene: take every root node, as viewers do.
    for (const node of root.listNodes()) if (!node.getParentNode()) visit(node);
  }
  return pieces;
}

/** Primitive `p` of a mesh node with world matrix `m`: its vertices in world space and its checked triangles. */
function readPiece(path: string, nodeName: string, mesh: Mesh, p: number, prim: Primitive, m: mat4): Piece {
  const mode = prim.getMode();
  if (mode !== Primitive.Mode.TRIANGLES) {
    throw new Error(
      `level "${path}": node "${nodeName}", mesh "${mesh.getName()}", primitive ${p} has mode ` +
        `${MODE_NAMES[mode] ?? mode}; only TRIANGLES is supported. Triangulate the level (e.g. ` +
        `gltf-transform unweld/triangulate in your exporter) and export again.`,
    );
  }
  const pos = prim.getAttribute('POSITION');
  if (!pos) {
    throw new Error(
      `level "${path}": node "${nodeName}", primitive ${p} has no POSITION attribute; re-export the mesh with positions.`,
    );
  }
  const vcount = pos.getCount();
  const out = new Float64Array(vcount * 3);
  const el: number[] = [0, 0, 0];
  for (let i = 0; i < vcount; i++) {
    pos.getElement(i, el); // dequantizes normalized integer storage; the node matrix holds the rest
    const x = el[0], y = el[1], z = el[2];
    out[i * 3] = m[0] * x + m[4] * y + m[8] * z + m[12];
    out[i * 3 + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    out[i * 3 + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
  }
  const idx = readIndices(path, nodeName, p, prim, vcount);
  // Mirroring transforms flip winding; swap two corners so "front" keeps meaning the outside.
  const det =
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5]);
  if (det < 0) {
    for (let i = 0; i < idx.length; i += 3) {
      const b = idx[i + 1];
      idx[i + 1] = idx[i + 2];
      idx[i + 2] = b;
    }
  }
  return { positions: out, indices: idx, node: nodeName, material: prim.getMaterial()?.getName() ?? '' };
}

/** A primitive's vertex indices (0..vcount-1 when it has none), checked: whole triangles, all in range. */
function readIndices(path: string, nodeName: string, p: number, prim: Primitive, vcount: number): Uint32Array {
  const idxAcc = prim.getIndices();
  let idx: Uint32Array;
  if (idxAcc) {
    const arr = idxAcc.getArray();
    if (!arr) throw new Error(`level "${path}": node "${nodeName}", primitive ${p} has an empty index accessor.`);
    idx = Uint32Array.from(arr as ArrayLike<number>);
  } else {
    idx = new Uint32Array(vcount);
    for (let i = 0; i < vcount; i++) idx[i] = i;
  }
  if (idx.length % 3 !== 0) {
    throw new Error(
      `level "${path}": node "${nodeName}", primitive ${p} has ${idx.length} indices, not a multiple of 3.`,
    );
  }
  for (let i = 0; i < idx.length; i++) {
    if (idx[i] >= vcount) {
      throw new Error(`level "${path}": node "${nodeName}", primitive ${p} index ${idx[i]} is out of range (${vcount} vertices).`);
    }
  }
  return idx;
}

/** The pieces as one triangle soup, with a surface range per piece that has triangles. */
function mergePieces(path: string, pieces: Piece[]): LevelMesh {
  let vTotal = 0;
  let iTotal = 0;
  for (const pc of pieces) {
    vTotal += pc.positions.length;
    iTotal += pc.indices.length;
  }
  const positions = new Float64Array(vTotal);
  const indices = new Uint32Array(iTotal);
  const surfaceRanges: SurfaceRange[] = [];
  let vOff = 0;
  let iOff = 0;
  for (const pc of pieces) {
    positions.set(pc.positions, vOff);
    const base = vOff / 3;
    for (let i = 0; i < pc.indices.length; i++) indices[iOff + i] = pc.indices[i] + base;
    if (pc.indices.length > 0) {
      surfaceRanges.push({ start: iOff / 3, count: pc.indices.length / 3, node: pc.node, material: pc.material });
    }
    vOff += pc.positions.length;
    iOff += pc.indices.length;
  }
  if (indices.length === 0) {
    throw new Error(`level "${path}" has no triangles; export the collision meshes into the file's scene.`);
  }
  return { positions, indices, surfaceRanges };
}

/** Loads a level file and builds its World (BVH included). Defaults to the FPS level. */
export async function loadWorld(path: string = DEFAULT_LEVEL_PATH): Promise<World> {
  const mesh = await loadLevelMesh(path);
  return World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
}
