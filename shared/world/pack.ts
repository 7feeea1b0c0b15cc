/**
 * Packing a triangle soup into a world's bytes (World.fromTriangles) and reading the surface table
 * back out of them (the World constructor): the input checks, the BVH build, the vertex weld in leaf
 * order and the writes of every section laid out in ./bytes.
 */
import { buildBvh, NODE_BYTES } from '../bvh/build';
import { HEADER_BYTES, MAX_ITEMS, REBUILD, worldLayout, writeHeader, type WorldLayout } from './bytes';

export interface Surface {
  node: string;
  material: string;
}

export interface SurfaceRange {
  /** First triangle (index into the soup's triangles, i.e. indices / 3). */
  start: number;
  count: number;
  node: string;
  material: string;
}

/**
 * The bytes of a world built from a triangle soup (see World.fromTriangles), header written but the
 * content hash not yet (sealWorldBytes does that on first use). Throws on bad input.
 */
export function packWorldBytes(
  positions: Float32Array | Float64Array,
  indices: Uint32Array,
  surfaceRanges?: SurfaceRange[],
): ArrayBuffer {
  if (!(positions instanceof Float32Array || positions instanceof Float64Array) || positions.length % 3 !== 0) {
    throw new Error('World.fromTriangles: positions must be a Float32Array/Float64Array of xyz triples.');
  }
  if (!(indices instanceof Uint32Array) || indices.length % 3 !== 0 || indices.length === 0) {
    throw new Error('World.fromTriangles: indices must be a non-empty Uint32Array with three indices per triangle.');
  }
  const vcount = positions.length / 3;
  // Non-finite coordinates of the triangles' corners are rejected by buildBvh as it reads them
  // (vertices no triangle uses do not matter).
  for (let i = 0; i < indices.length; i++) {
    if (indices[i] >= vcount) throw new Error(`World.fromTriangles: index ${i} = ${indices[i]} is out of range (${vcount} vertices).`);
  }
  const triCount = indices.length / 3;
  const ranges: SurfaceRange[] = surfaceRanges ?? [{ start: 0, count: triCount, node: '', material: '' }];
  let prevEnd = 0;
  for (const r of ranges) {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.count) || r.start < prevEnd || r.count < 0 || r.start + r.count > triCount) {
      throw new Error('World.fromTriangles: surface ranges must be integer, sorted by start, not overlapping and inside the triangle count.');
    }
    prevEnd = r.start + r.count;
  }

  if (triCount > MAX_ITEMS) {
    throw new Error(`World.fromTriangles: ${triCount} triangles; a world holds at most ${MAX_ITEMS}. Split the level into several worlds.`);
  }
  // Vertices are stored as float32: round double input once (exact for float32-exact input).
  const p32 = positions instanceof Float32Array ? positions : Float32Array.from(positions);
  const built = buildBvh(p32, indices);
  const nodeCount = built.nodeCount;
  const order = built.order;
  // Number the used vertices in the order the leaves first use them (a leaf's corners end up close
  // together in memory), welding vertices with the same float32 bits (the same numbers, so the
  // same answers), and write each triangle's three words: vertex index | byte of its original
  // index << 24.
  const { tris, verts: welded, vertexCount } = weldInLeafOrder(p32, indices, order);
  const nameJson = new TextEncoder().encode(JSON.stringify(ranges.map((r) => [String(r.node), String(r.material)])));
  const l = worldLayout(nodeCount, triCount, vertexCount, ranges.length, nameJson.length, built.depth);
  const { surfOff, namesOff } = l;
  const buf = new ArrayBuffer(l.total);
  writeHeader(buf, l);
  new Float64Array(buf, 40, 6).set(built.bounds);
  new Uint8Array(buf, HEADER_BYTES, nodeCount * NODE_BYTES).set(built.nodes);
  new Float32Array(buf, l.vertsOff, vertexCount * 3).set(welded.subarray(0, vertexCount * 3));
  new Uint32Array(buf, l.trisOff, triCount * 3).set(tris);
  const surf = new Uint32Array(buf, surfOff, ranges.length * 2);
  for (let i = 0; i < ranges.length; i++) {
    surf[2 * i] = ranges[i].start;
    surf[2 * i + 1] = ranges[i].count;
  }
  new Uint8Array(buf, namesOff, nameJson.length).set(nameJson);
  return buf;
}

/**
 * The surface table of a world's bytes, checked (ranges sorted, inside the triangles; names a JSON
 * list of [node, material] strings): each surface's first triangle and count, and its frozen names.
 */
export function readSurfaces(buf: ArrayBuffer, l: WorldLayout): { start: Uint32Array; count: Uint32Array; surfaces: readonly Surface[] } {
  const { surfaceCount: surfCount, triangleCount: triCount, nameBytes, surfOff, namesOff } = l;
  const surf = new Uint32Array(buf, surfOff, surfCount * 2);
  const surfStart = new Uint32Array(surfCount);
  const surfCountArr = new Uint32Array(surfCount);
  let prevEnd = 0;
  for (let i = 0; i < surfCount; i++) {
    const s = surf[2 * i];
    const c = surf[2 * i + 1];
    if (s < prevEnd || s + c > triCount) {
      throw new Error(`World.fromBuffer: surface ${i}: range [${s}, ${s + c}) overlaps the previous one or runs past the ${triCount} triangles. ${REBUILD}`);
    }
    surfStart[i] = s;
    surfCountArr[i] = c;
    prevEnd = s + c;
  }
  let names: unknown;
  try {
    names = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, namesOff, nameBytes)));
  } catch {
    throw new Error(`World.fromBuffer: surface names are not valid UTF-8 JSON. ${REBUILD}`);
  }
  if (!Array.isArray(names) || names.length !== surfCount) {
    throw new Error(`World.fromBuffer: the surface name table does not have ${surfCount} entries. ${REBUILD}`);
  }
  const surfaces: Surface[] = [];
  for (const e of names) {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'string') {
      throw new Error(`World.fromBuffer: a surface name entry is not [node, material] strings. ${REBUILD}`);
    }
    surfaces.push(Object.freeze({ node: e[0], material: e[1] }));
  }
  return { start: surfStart, count: surfCountArr, surfaces: Object.freeze(surfaces) };
}

/**
 * The triangles' words and the welded vertex array: vertices numbered in the order the leaf-order
 * triangles first use them, one per distinct float32 bit pattern (xyz). An open-addressing table
 * over the bits; -0 and +0 stay distinct, so every corner keeps its exact value.
 */
function weldInLeafOrder(p32: Float32Array, indices: Uint32Array, order: Uint32Array): { tris: Uint32Array; verts: Float32Array; vertexCount: number } {
  const triCount = order.length;
  const vcount = p32.length / 3;
  const bits = new Uint32Array(p32.buffer, p32.byteOffset, p32.length);
  const remap = new Int32Array(vcount).fill(-1);
  let size = 16;
  while (size < 2 * Math.min(vcount, 3 * triCount)) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size).fill(-1);
  const verts = new Float32Array(Math.min(vcount, 3 * triCount) * 3);
  const vbits = new Uint32Array(verts.buffer);
  const tris = new Uint32Array(triCount * 3);
  let vertexCount = 0;
  for (let i = 0; i < triCount; i++) {
    const t = order[i];
    for (let j = 0; j < 3; j++) {
      const v = indices[3 * t + j];
      let r = remap[v];
      if (r < 0) {
        const x = bits[3 * v], y = bits[3 * v + 1], z = bits[3 * v + 2];
        let h = (Math.imul(x, 0x9e3779b1) ^ Math.imul(y, 0x85ebca77) ^ Math.imul(z, 0xc2b2ae3d)) >>> 0;
        h = (h ^ (h >>> 15)) & mask;
        for (;;) {
          const e = table[h];
          if (e < 0) {
            r = vertexCount++;
            table[h] = r;
            vbits[3 * r] = x; vbits[3 * r + 1] = y; vbits[3 * r + 2] = z;
            break;
          }
          if (vbits[3 * e] === x && vbits[3 * e + 1] === y && vbits[3 * e + 2] === z) {
            r = e;
            break;
          }
          h = (h + 1) & mask;
        }
        remap[v] = r;
      }
      tris[3 * i + j] = (r | (((t >>> (8 * j)) & 0xff) << 24)) >>> 0;
    }
  }
  return { tris, verts, vertexCount };
}
