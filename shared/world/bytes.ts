/**
 * The world's bytes: layout constants, the header writer and the checks World.fromBuffer runs before
 * it trusts bytes that came from a file or the network. Every check names what is wrong (which node,
 * which field, which triangle) and what to do; a buffer that passes gives the same answers as the
 * world that wrote it, or it was written on purpose (same hash: the same bytes).
 *
 * Layout, version 3 (little-endian; offsets in bytes):
 *   0   uint32  magic 0x42575248 ("HRWB")
 *   4   uint32  version (3)
 *   8   uint32  content hash, high word   } FNV-1a 64 of bytes [16, end): everything below,
 *   12  uint32  content hash, low word    } so a changed byte anywhere after the hash is caught
 *   16  uint32  nodeCount
 *   20  uint32  triangleCount (at most 2^24)
 *   24  uint32  vertexCount (at most 2^24)
 *   28  uint32  surfaceCount
 *   32  uint32  byte length of the surface-name JSON
 *   36  uint32  tree depth (levels; sizes the traversal stack)
 *   40  float64 x6  bounds of all triangles: min xyz, max xyz (exact)
 *   88  8 bytes reserved, 0
 *   96  nodes: nodeCount x 32 bytes (layout in ../bvh/build)
 *   ..  vertices: vertexCount x 3 float32 (x y z, world space), numbered in the order the leaves
 *       first use them
 *   ..  triangles in leaf order: triangleCount x 3 uint32. Bits 0-23 of word j are corner j's vertex
 *       index; bits 24-31 of word j are byte j of the triangle's original index (the index in the
 *       soup the world was built from: surfaces, WorldHit.triangle)
 *   ..  surface ranges: surfaceCount x (uint32 start, uint32 count), in original triangle indices,
 *       sorted by start, not overlapping
 *   ..  surface names: UTF-8 JSON [[node, material], ...], zero-padded to a multiple of 4
 *
 * Version 1 (float64 corners, 99 bytes per triangle) and 2 (the same with the hash) are refused:
 * rebuild the world from its level file.
 */
import { NODE_BYTES, NODE_WORDS } from '../bvh/build';
import { TRI_VERTEX } from '../bvh/traverse';
import { fnv1a64Words, hex64 } from '../util/hash';

export const WORLD_MAGIC = 0x42575248;
export const WORLD_VERSION = 3;
/** Largest triangle and vertex count: indices are 24-bit. */
export const MAX_ITEMS = 1 << 24;
export const HEADER_BYTES = 96;
/** First byte the content hash covers. */
export const HASHED_FROM = 16;

/** Where each section starts, from the header's counts. */
export interface WorldLayout {
  nodeCount: number;
  triangleCount: number;
  vertexCount: number;
  surfaceCount: number;
  nameBytes: number;
  depth: number;
  nodesOff: number;
  vertsOff: number;
  trisOff: number;
  surfOff: number;
  namesOff: number;
  total: number;
}

export function worldLayout(
  nodeCount: number, triangleCount: number, vertexCount: number, surfaceCount: number, nameBytes: number, depth: number,
): WorldLayout {
  const nodesOff = HEADER_BYTES;
  const vertsOff = nodesOff + nodeCount * NODE_BYTES;
  const trisOff = vertsOff + vertexCount * 12;
  const surfOff = trisOff + triangleCount * 12;
  const namesOff = surfOff + surfaceCount * 8;
  // Padding by arithmetic, not bit operations: a hostile nameBytes near 2^32 must not wrap around.
  const total = namesOff + nameBytes + ((4 - (nameBytes % 4)) % 4);
  return { nodeCount, triangleCount, vertexCount, surfaceCount, nameBytes, depth, nodesOff, vertsOff, trisOff, surfOff, namesOff, total };
}

/** Writes magic, version and counts (the hash comes last: sealWorldBytes). */
export function writeHeader(buf: ArrayBuffer, l: WorldLayout): void {
  const dv = new DataView(buf);
  dv.setUint32(0, WORLD_MAGIC, true);
  dv.setUint32(4, WORLD_VERSION, true);
  dv.setUint32(16, l.nodeCount, true);
  dv.setUint32(20, l.triangleCount, true);
  dv.setUint32(24, l.vertexCount, true);
  dv.setUint32(28, l.surfaceCount, true);
  dv.setUint32(32, l.nameBytes, true);
  dv.setUint32(36, l.depth, true);
}

/** Computes the content hash of finished bytes, stores it in the header and returns it (16 hex digits). */
export function sealWorldBytes(buf: ArrayBuffer): string {
  const w = fnv1a64Words(new Uint8Array(buf), HASHED_FROM, buf.byteLength, new Uint32Array(2));
  const dv = new DataView(buf);
  dv.setUint32(8, w[0], true);
  dv.setUint32(12, w[1], true);
  return hex64(w[0], w[1]);
}

/** The content hash the header records (16 hex digits). */
export function storedHash(buf: ArrayBuffer): string {
  const dv = new DataView(buf);
  return hex64(dv.getUint32(8, true), dv.getUint32(12, true));
}

export const REBUILD = 'Rebuild the world from the level file (World.fromTriangles(...).toBuffer(), or loadWorld on the server) or fetch the bytes again.';
const AXIS_FIELD = ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'];
const CORNERS = ['a', 'b', 'c'];

function fail(what: string): never {
  throw new Error(`World.fromBuffer: ${what}. ${REBUILD}`);
}

/** Checks that untrusted bytes start as a world of this version does: length, magic, version. */
export function checkPreamble(buf: ArrayBuffer): void {
  if (buf.byteLength < HEADER_BYTES) {
    fail(`not a world buffer: ${buf.byteLength} bytes, a world has at least ${HEADER_BYTES} (truncated?)`);
  }
  const dv = new DataView(buf);
  const magic = dv.getUint32(0, true);
  if (magic !== WORLD_MAGIC) {
    fail(`bad magic 0x${magic.toString(16).padStart(8, '0')}: this is not a world buffer (expected 0x${WORLD_MAGIC.toString(16)}, "HRWB")`);
  }
  const version = dv.getUint32(4, true);
  if (version !== WORLD_VERSION) {
    const why = version < WORLD_VERSION
      ? `buffer version ${version} is an older layout; this build reads version ${WORLD_VERSION} only`
      : `buffer version ${version} was written by a newer build; this build reads version ${WORLD_VERSION}`;
    fail(why);
  }
}

/**
 * Reads and checks the header's counts against the byte length, and the reserved words (after
 * checkPreamble). Returns the layout.
 */
export function checkHeader(buf: ArrayBuffer): WorldLayout {
  const dv = new DataView(buf);
  const l = worldLayout(dv.getUint32(16, true), dv.getUint32(20, true), dv.getUint32(24, true), dv.getUint32(28, true), dv.getUint32(32, true), dv.getUint32(36, true));
  if (l.triangleCount < 1) fail('header: triangleCount is 0 (a world has at least one triangle)');
  if (l.triangleCount > MAX_ITEMS) fail(`header: triangleCount ${l.triangleCount} is over the ${MAX_ITEMS} a world holds`);
  if (l.vertexCount < 3 || l.vertexCount > MAX_ITEMS) fail(`header: vertexCount ${l.vertexCount} is not 3 to ${MAX_ITEMS}`);
  if (l.nodeCount < 1 || l.nodeCount > 2 * l.triangleCount - 1) {
    fail(`header: nodeCount ${l.nodeCount} is impossible for ${l.triangleCount} triangles (1 to ${2 * l.triangleCount - 1})`);
  }
  if (l.depth < 1 || l.depth > l.nodeCount) fail(`header: depth ${l.depth} is impossible for ${l.nodeCount} nodes`);
  if (l.total !== buf.byteLength) {
    fail(`header: the counts (${l.nodeCount} nodes, ${l.triangleCount} triangles, ${l.vertexCount} vertices, ${l.surfaceCount} surfaces, ${l.nameBytes} name bytes) ` +
      `need ${l.total} bytes, the buffer has ${buf.byteLength} (truncated or padded, or the counts are damaged)`);
  }
  if (dv.getUint32(88, true) !== 0 || dv.getUint32(92, true) !== 0) fail('header: reserved bytes are not zero');
  return l;
}

/** Checks the stored content hash (and the caller's expected hash, when given) against the bytes. */
export function checkHash(buf: ArrayBuffer, expectedHash: string | undefined): string {
  const stored = storedHash(buf);
  if (expectedHash !== undefined && expectedHash !== stored) {
    fail(`world hash ${stored} is not the expected ${expectedHash}: these bytes are another world (or another build of it) than the one asked for`);
  }
  const w = fnv1a64Words(new Uint8Array(buf), HASHED_FROM, buf.byteLength, new Uint32Array(2));
  const actual = hex64(w[0], w[1]);
  if (actual !== stored) fail(`content hash mismatch: the header says ${stored}, the bytes hash to ${actual} (damaged or altered after they were written)`);
  return stored;
}

/**
 * Checks everything a traversal relies on, in O(nodes + triangles):
 *  - header bounds finite and ordered;
 *  - every node box finite with min <= max;
 *  - links: an inner node's children come after it and inside the tree, its axis word is -1..-3;
 *    a leaf's range is non-empty and inside the triangles; every node but the root has exactly one
 *    parent (a tree: no cycles, nothing unreachable), and the recorded depth is the tree's;
 *  - each child box inside its parent box (so no ancestor can cull what a child holds);
 *  - the leaves together cover every triangle slot exactly once;
 *  - every vertex finite, the header bounds exactly the vertices';
 *  - every triangle's vertex indices in range and its corners inside its leaf's box;
 *  - the original triangle indices a permutation.
 */
export function checkTree(buf: ArrayBuffer, l: WorldLayout): void {
  const { nodeCount, triangleCount } = l;
  const bounds = new Float64Array(buf, 40, 6);
  for (let k = 0; k < 6; k++) {
    const v = bounds[k];
    if (v - v !== 0) fail(`header bounds ${AXIS_FIELD[k]} = ${v} is not finite`);
  }
  for (let k = 0; k < 3; k++) if (!(bounds[k] <= bounds[k + 3])) fail(`header bounds ${AXIS_FIELD[k]} > ${AXIS_FIELD[k + 3]}`);

  const F = new Float32Array(buf, l.nodesOff, nodeCount * NODE_WORDS);
  const U = new Int32Array(buf, l.nodesOff, nodeCount * NODE_WORDS);
  const hasParent = new Uint8Array(nodeCount);
  const covered = new Uint8Array(triangleCount);
  let leafTriangles = 0;
  let children = 0;
  for (let i = 0; i < nodeCount; i++) {
    const w = i * NODE_WORDS;
    // Fast tests first (a sum is NaN or infinite iff a term is); the per-field loops only name the culprit.
    const x0 = F[w], y0 = F[w + 1], z0 = F[w + 2], x1 = F[w + 3], y1 = F[w + 4], z1 = F[w + 5];
    const chk = x0 + y0 + z0 + x1 + y1 + z1;
    if (chk - chk !== 0 || !(x0 <= x1 && y0 <= y1 && z0 <= z1)) {
      for (let k = 0; k < 6; k++) {
        const v = F[w + k];
        if (v - v !== 0) fail(`node ${i}: box ${AXIS_FIELD[k]} = ${v} is not finite`);
      }
      for (let k = 0; k < 3; k++) {
        if (!(F[w + k] <= F[w + k + 3])) fail(`node ${i}: box ${AXIS_FIELD[k]} = ${F[w + k]} > ${AXIS_FIELD[k + 3]} = ${F[w + k + 3]}`);
      }
    }
    const a = U[w + 6];
    const c = U[w + 7];
    if (c > 0) {
      if (a < 0 || a + c > triangleCount) fail(`node ${i}: leaf range [${a}, ${a + c}) runs outside the ${triangleCount} triangles`);
      for (let t = a; t < a + c; t++) {
        if (covered[t] !== 0) fail(`node ${i}: leaf range [${a}, ${a + c}) overlaps another leaf at triangle slot ${t}`);
        covered[t] = 1;
      }
      leafTriangles += c;
      continue;
    }
    if (c < -3 || c === 0) fail(`node ${i}: count/axis word ${c} is neither a leaf count (>= 1) nor a split axis (-1, -2, -3)`);
    // Children always come after their parent, so the tree has no cycles and depth bounds the stack.
    if (!(a > i && a + 1 < nodeCount)) fail(`node ${i}: children ${a} and ${a + 1} are not after it inside the ${nodeCount} nodes`);
    for (let s = a; s <= a + 1; s++) {
      if (hasParent[s] !== 0) fail(`node ${s} has two parents (the second is node ${i})`);
      hasParent[s] = 1;
      const cw = s * NODE_WORDS;
      if (!(F[cw] >= x0 && F[cw + 1] >= y0 && F[cw + 2] >= z0 && F[cw + 3] <= x1 && F[cw + 4] <= y1 && F[cw + 5] <= z1)) {
        for (let k = 0; k < 6; k++) {
          const v = F[cw + k];
          if (v - v !== 0) fail(`node ${s}: box ${AXIS_FIELD[k]} = ${v} is not finite`);
        }
        for (let k = 0; k < 3; k++) {
          if (!(F[cw + k] >= F[w + k])) fail(`node ${s}: box ${AXIS_FIELD[k]} = ${F[cw + k]} is outside its parent node ${i} (${AXIS_FIELD[k]} = ${F[w + k]})`);
          if (!(F[cw + k + 3] <= F[w + k + 3])) fail(`node ${s}: box ${AXIS_FIELD[k + 3]} = ${F[cw + k + 3]} is outside its parent node ${i} (${AXIS_FIELD[k + 3]} = ${F[w + k + 3]})`);
        }
      }
    }
    children += 2;
  }
  if (children !== nodeCount - 1) fail(`${nodeCount - 1 - children} node(s) are not reachable from the root`);
  if (leafTriangles !== triangleCount) {
    let t = 0;
    while (covered[t] !== 0) t++;
    fail(`triangle slot ${t} is in no leaf (the leaves hold ${leafTriangles} of ${triangleCount} triangles): it could never be hit`);
  }
  const measured = treeDepth(U);
  if (measured !== l.depth) fail(`header: depth ${l.depth} but the tree has ${measured} levels`);

  // Vertices: finite; the header bounds are exactly theirs.
  const { vertexCount } = l;
  const V = new Float32Array(buf, l.vertsOff, vertexCount * 3);
  let bx0 = Infinity, by0 = Infinity, bz0 = Infinity, bx1 = -Infinity, by1 = -Infinity, bz1 = -Infinity;
  for (let v = 0; v < vertexCount * 3; v += 3) {
    const x = V[v], y = V[v + 1], z = V[v + 2];
    const chk = x + y + z;
    if (chk - chk !== 0) {
      for (let q = 0; q < 3; q++) if (V[v + q] - V[v + q] !== 0) fail(`vertex ${v / 3}: ${'xyz'[q]} = ${V[v + q]} is not finite`);
    }
    if (x < bx0) bx0 = x;
    if (y < by0) by0 = y;
    if (z < bz0) bz0 = z;
    if (x > bx1) bx1 = x;
    if (y > by1) by1 = y;
    if (z > bz1) bz1 = z;
  }
  const exact = [bx0, by0, bz0, bx1, by1, bz1];
  for (let k = 0; k < 6; k++) {
    if (bounds[k] !== exact[k]) fail(`header bounds ${AXIS_FIELD[k]} = ${bounds[k]}, the vertices' is ${exact[k]}`);
  }
  // Triangles: vertex indices in range, corners inside their leaf's box, original indices a
  // permutation.
  const T = new Uint32Array(buf, l.trisOff, triangleCount * 3);
  const seen = new Uint8Array(triangleCount);
  for (let i = 0; i < nodeCount; i++) {
    const w = i * NODE_WORDS;
    const c = U[w + 7];
    if (c <= 0) continue;
    const x0 = F[w], y0 = F[w + 1], z0 = F[w + 2], x1 = F[w + 3], y1 = F[w + 4], z1 = F[w + 5];
    for (let t = U[w + 6], e = t + c; t < e; t++) {
      const k = t * 3;
      for (let j = 0; j < 3; j++) {
        const vi = T[k + j] & TRI_VERTEX;
        if (vi >= vertexCount) fail(`triangle slot ${t}: corner ${CORNERS[j]} vertex index ${vi} is out of range (${vertexCount} vertices)`);
        const x = V[vi * 3], y = V[vi * 3 + 1], z = V[vi * 3 + 2];
        if (!(x >= x0 && x <= x1 && y >= y0 && y <= y1 && z >= z0 && z <= z1)) {
          fail(`triangle slot ${t}: corner ${CORNERS[j]} (vertex ${vi}: ${x}, ${y}, ${z}) is outside its leaf node ${i}'s box`);
        }
      }
      const o = (T[k] >>> 24) | ((T[k + 1] >>> 24) << 8) | ((T[k + 2] >>> 24) << 16);
      if (o >= triangleCount) fail(`triangle slot ${t}: original index ${o} is out of range (${triangleCount} triangles)`);
      if (seen[o] !== 0) fail(`triangle slot ${t}: original index ${o} appears twice`);
      seen[o] = 1;
    }
  }
}

/** Number of levels of the tree (root alone = 1). Children come after parents: one forward pass. */
function treeDepth(nodesI: Int32Array): number {
  const nodeCount = nodesI.length / NODE_WORDS;
  const level = new Uint32Array(nodeCount);
  level[0] = 1;
  let max = 1;
  for (let i = 0; i < nodeCount; i++) {
    const lv = level[i];
    if (lv > max) max = lv;
    if (nodesI[i * NODE_WORDS + 7] < 0) {
      const l = nodesI[i * NODE_WORDS + 6];
      level[l] = lv + 1;
      level[l + 1] = lv + 1;
    }
  }
  return max;
}
