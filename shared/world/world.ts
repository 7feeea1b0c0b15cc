/**
 * The static world a shot is validated against: a level's triangles in a BVH, packed into one
 * versioned ArrayBuffer so the server and every client load the same bytes and name them by the same
 * content hash. Queries (first hit, any hit, ground height, swept sphere, camera push-back) allocate
 * nothing and write into a caller-owned record passed first.
 *
 * Buffer layout, version 1 (little-endian; offsets in bytes):
 *   0   uint32  magic 0x42575248 ("HRWB")
 *   4   uint32  version (1)
 *   8   uint32  nodeCount
 *   12  uint32  triangleCount
 *   16  uint32  surfaceCount
 *   20  uint32  byte length of the surface-name JSON
 *   24  uint32  tree depth (levels; sizes the traversal stack)
 *   28  uint32  reserved, 0
 *   32  float64 x6  bounds of all triangles: min xyz, max xyz (exact, doubles)
 *   80  16 bytes reserved, 0
 *   96  nodes: nodeCount x 32 bytes (layout in ../bvh/build)
 *   ..  triangles in leaf order: triangleCount x 9 float64 (ax ay az bx by bz cx cy cz, world space)
 *   ..  original index of each leaf-order triangle: triangleCount x uint32
 *   ..  surface ranges: surfaceCount x (uint32 start, uint32 count), in original triangle indices,
 *       sorted by start, not overlapping
 *   ..  surface names: UTF-8 JSON [[node, material], ...], zero-padded to a multiple of 4
 *
 * Precision: doubles in world coordinates (not relative to an origin): a level 1e5 units away keeps
 * about 1e-11 of absolute resolution, and the triangle test sees exactly the level's numbers.
 */
import { createSegmentHit, type SegmentHit } from '../kernels/hit';
import { buildBvh, NODE_BYTES } from '../bvh/build';
import { bvhAnyHit, bvhFirstHit, type BvhArrays } from '../bvh/traverse';
import { bvhSweepSphere } from '../bvh/sweep';
import { buildSweepFrames, type SweepHit } from '../kernels/sweptSphere';
import { fnv1a64 } from '../util/hash';

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

/** A first hit against the world: the kernel's record plus what was hit. */
export interface WorldHit extends SegmentHit {
  /** Triangle index in the soup the world was built from (indices / 3); -1 on a miss. */
  triangle: number;
  /** Index into world.surfaces; -1 on a miss or when no surface range covers the triangle. */
  surface: number;
}

export function createWorldHit(): WorldHit {
  const h = createSegmentHit() as WorldHit;
  h.triangle = -1;
  h.surface = -1;
  return h;
}

export const WORLD_MAGIC = 0x42575248;
export const WORLD_VERSION = 1;
const HEADER_BYTES = 96;

export class World {
  /** The world's bytes (never handed out; toBuffer copies). */
  private readonly buf: ArrayBuffer;
  private readonly bvh: BvhArrays;
  /** Leaf order -> original triangle index. */
  private readonly order: Uint32Array;
  private readonly surfStart: Uint32Array;
  private readonly surfCount: Uint32Array;
  private readonly boundsD: Float64Array;
  private hashCache: string | undefined;
  /** Scratch: the segment of the current query, sx sy sz ex ey ez (see ../bvh/traverse for why). */
  private readonly q = new Float64Array(7);
  /** Sweep frames per leaf-order triangle (20 doubles each), built on the first sweepSphere call. */
  private frames: Float64Array | undefined;
  readonly surfaces: readonly Surface[];
  readonly triangleCount: number;
  readonly nodeCount: number;
  /** Levels in the tree (root alone = 1). */
  readonly depth: number;

  /**
   * `trusted` is true only for bytes World.fromTriangles has just written: the per-node, per-triangle
   * checks below are then skipped (they cost about as much as a tenth of the build).
   */
  private constructor(buf: ArrayBuffer, trusted: boolean) {
    // Validates everything a traversal relies on, so hostile bytes give an error, never a hang or a
    // wrong answer.
    if (!(buf instanceof ArrayBuffer) || buf.byteLength < HEADER_BYTES) {
      throw new Error('World.fromBuffer: not a world buffer (too short); pass the bytes World.toBuffer() produced.');
    }
    const dv = new DataView(buf);
    if (dv.getUint32(0, true) !== WORLD_MAGIC) {
      throw new Error('World.fromBuffer: bad magic; this is not a world buffer (expected "HRWB"). Rebuild it with World.fromTriangles().toBuffer().');
    }
    if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
      throw new Error('World: big-endian hosts are not supported (the buffer is little-endian typed arrays).');
    }
    const version = dv.getUint32(4, true);
    if (version !== WORLD_VERSION) {
      throw new Error(`World.fromBuffer: buffer version ${version}, this build reads version ${WORLD_VERSION}; rebuild the world from the level file.`);
    }
    const nodeCount = dv.getUint32(8, true);
    const triCount = dv.getUint32(12, true);
    const surfCount = dv.getUint32(16, true);
    const nameBytes = dv.getUint32(20, true);
    const depth = dv.getUint32(24, true);
    const nodesOff = HEADER_BYTES;
    const trisOff = nodesOff + nodeCount * NODE_BYTES;
    const orderOff = trisOff + triCount * 72;
    const surfOff = orderOff + triCount * 4;
    const namesOff = surfOff + surfCount * 8;
    const total = namesOff + ((nameBytes + 3) & ~3);
    if (triCount < 1 || nodeCount < 1 || nodeCount > 2 * triCount - 1 || total !== buf.byteLength || depth < 1 || depth > nodeCount) {
      throw new Error('World.fromBuffer: header sizes do not match the buffer; the bytes are truncated or corrupt. Rebuild the world.');
    }
    const nodesF = new Float32Array(buf, nodesOff, nodeCount * 8);
    const nodesI = new Int32Array(buf, nodesOff, nodeCount * 8);
    const order = new Uint32Array(buf, orderOff, triCount);
    const tris = new Float64Array(buf, trisOff, triCount * 9);
    if (!trusted) {
      for (let i = 0; i < nodeCount; i++) {
        const a = nodesI[i * 8 + 6];
        const c = nodesI[i * 8 + 7];
        // Children always come after their parent, so the tree has no cycles and depth bounds the stack.
        const ok = c < 0 ? c >= -3 && a > i && a + 1 < nodeCount : c > 0 && a >= 0 && a + c <= triCount;
        if (!ok) throw new Error(`World.fromBuffer: node ${i} points outside the tree; the bytes are corrupt. Rebuild the world.`);
      }
      // Every node but the root must be the child of exactly one inner node (a tree, not a DAG), so the
      // depth below bounds the traversal stack.
      const seen = new Uint8Array(nodeCount);
      let children = 0;
      for (let i = 0; i < nodeCount; i++) {
        if (nodesI[i * 8 + 7] > 0) continue;
        const a = nodesI[i * 8 + 6];
        if (seen[a] || seen[a + 1]) throw new Error(`World.fromBuffer: node ${a} has two parents; the bytes are corrupt. Rebuild the world.`);
        seen[a] = 1;
        seen[a + 1] = 1;
        children += 2;
      }
      if (children !== nodeCount - 1) throw new Error('World.fromBuffer: unreachable nodes; the bytes are corrupt. Rebuild the world.');
      const measured = treeDepth(nodesI);
      if (measured !== depth) throw new Error('World.fromBuffer: recorded tree depth is wrong; the bytes are corrupt. Rebuild the world.');
      for (let i = 0; i < triCount; i++) {
        if (order[i] >= triCount) throw new Error('World.fromBuffer: triangle order out of range; the bytes are corrupt.');
      }
      // Non-finite corners would give NaN distances that compare false everywhere: reject them.
      for (let i = 0; i < tris.length; i++) {
        const v = tris[i];
        if (v - v !== 0) throw new Error(`World.fromBuffer: triangle coordinate ${i} is not finite; the bytes are corrupt.`);
      }
    }
    const surf = new Uint32Array(buf, surfOff, surfCount * 2);
    const surfStart = new Uint32Array(surfCount);
    const surfCountArr = new Uint32Array(surfCount);
    let prevEnd = 0;
    for (let i = 0; i < surfCount; i++) {
      const s = surf[2 * i];
      const c = surf[2 * i + 1];
      if (s < prevEnd || s + c > triCount) throw new Error('World.fromBuffer: surface ranges overlap or run past the triangles; the bytes are corrupt.');
      surfStart[i] = s;
      surfCountArr[i] = c;
      prevEnd = s + c;
    }
    let names: unknown;
    try {
      names = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, namesOff, nameBytes)));
    } catch {
      throw new Error('World.fromBuffer: surface names are not valid JSON; the bytes are corrupt.');
    }
    if (!Array.isArray(names) || names.length !== surfCount) {
      throw new Error('World.fromBuffer: surface name table does not match the surface count; the bytes are corrupt.');
    }
    const surfaces: Surface[] = [];
    for (const e of names) {
      if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'string') {
        throw new Error('World.fromBuffer: a surface name entry is not [node, material]; the bytes are corrupt.');
      }
      surfaces.push(Object.freeze({ node: e[0], material: e[1] }));
    }
    this.buf = buf;
    this.nodeCount = nodeCount;
    this.triangleCount = triCount;
    this.depth = depth;
    this.order = order;
    this.surfStart = surfStart;
    this.surfCount = surfCountArr;
    this.surfaces = Object.freeze(surfaces);
    this.boundsD = new Float64Array(buf, 32, 6);
    this.bvh = {
      nodesF,
      nodesI,
      tris,
      stackNode: new Int32Array(depth + 1),
      stackT: new Float64Array(depth + 1),
    };
  }

  /**
   * Builds a world from a triangle soup: xyz per vertex, three vertex indices per triangle, and
   * optionally named triangle ranges (sorted, not overlapping). Throws with a clear message on
   * non-finite coordinates or out-of-range indices.
   */
  static fromTriangles(
    positions: Float32Array | Float64Array,
    indices: Uint32Array,
    surfaceRanges?: SurfaceRange[],
  ): World {
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

    const built = buildBvh(positions, indices);
    const nodeCount = built.nodeCount;
    const nameJson = new TextEncoder().encode(JSON.stringify(ranges.map((r) => [String(r.node), String(r.material)])));
    const trisOff = HEADER_BYTES + nodeCount * NODE_BYTES;
    const orderOff = trisOff + triCount * 72;
    const surfOff = orderOff + triCount * 4;
    const namesOff = surfOff + ranges.length * 8;
    const total = namesOff + ((nameJson.length + 3) & ~3);
    const buf = new ArrayBuffer(total);
    const dv = new DataView(buf);
    const depth = built.depth;
    dv.setUint32(0, WORLD_MAGIC, true);
    dv.setUint32(4, WORLD_VERSION, true);
    dv.setUint32(8, nodeCount, true);
    dv.setUint32(12, triCount, true);
    dv.setUint32(16, ranges.length, true);
    dv.setUint32(20, nameJson.length, true);
    dv.setUint32(24, depth, true);
    new Float64Array(buf, 32, 6).set(built.bounds);
    new Uint8Array(buf, HEADER_BYTES, nodeCount * NODE_BYTES).set(built.nodes);
    const tris = new Float64Array(buf, trisOff, triCount * 9);
    const order = built.order;
    for (let i = 0; i < triCount; i++) {
      const t = order[i];
      const a = indices[3 * t] * 3, b = indices[3 * t + 1] * 3, c = indices[3 * t + 2] * 3;
      const k = i * 9;
      tris[k] = positions[a]; tris[k + 1] = positions[a + 1]; tris[k + 2] = positions[a + 2];
      tris[k + 3] = positions[b]; tris[k + 4] = positions[b + 1]; tris[k + 5] = positions[b + 2];
      tris[k + 6] = positions[c]; tris[k + 7] = positions[c + 1]; tris[k + 8] = positions[c + 2];
    }
    new Uint32Array(buf, orderOff, triCount).set(order);
    const surf = new Uint32Array(buf, surfOff, ranges.length * 2);
    for (let i = 0; i < ranges.length; i++) {
      surf[2 * i] = ranges[i].start;
      surf[2 * i + 1] = ranges[i].count;
    }
    new Uint8Array(buf, namesOff, nameJson.length).set(nameJson);
    return new World(buf, true);
  }

  /**
   * Loads a world from bytes made by toBuffer (validated: magic, version, sizes, tree links, finite
   * corners). Takes an ArrayBuffer or any view of one (a Node Buffer read from disk, a Uint8Array).
   */
  static fromBuffer(buf: ArrayBuffer | ArrayBufferView): World {
    // Copy so later writes by the caller cannot change a world in use (and so views get their own,
    // aligned buffer).
    if (ArrayBuffer.isView(buf)) {
      return new World(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength).slice().buffer, false);
    }
    if (!(buf instanceof ArrayBuffer)) {
      throw new Error('World.fromBuffer: pass an ArrayBuffer or a view of one (the bytes World.toBuffer() produced).');
    }
    return new World(buf.slice(0), false);
  }

  /** A copy of the world's bytes. */
  toBuffer(): ArrayBuffer {
    return this.buf.slice(0);
  }

  /** Content hash of the bytes: FNV-1a 64, 16 hex digits. Computed once, on first use. */
  get hash(): string {
    if (this.hashCache === undefined) this.hashCache = fnv1a64(new Uint8Array(this.buf));
    return this.hashCache;
  }

  /** Size of the world's bytes. */
  get byteLength(): number {
    return this.buf.byteLength;
  }

  /** Writes min xyz, max xyz of all triangles into `out` and returns it. */
  bounds(out: Float64Array): Float64Array {
    const b = this.boundsD;
    out[0] = b[0]; out[1] = b[1]; out[2] = b[2]; out[3] = b[3]; out[4] = b[4]; out[5] = b[5];
    return out;
  }

  /** Surface index of an original triangle (binary search over the ranges), -1 when uncovered. */
  surfaceOf(triangle: number): number {
    const starts = this.surfStart;
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= triangle) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0 || triangle >= starts[found] + this.surfCount[found]) return -1;
    return found;
  }

  /**
   * Closest hit of the segment S -> E, either face. Fills `out` (t, point, normal toward the start,
   * barycentrics, front flag, triangle, surface) and returns out.hit. Non-finite input is a miss.
   */
  firstHit(out: WorldHit, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean {
    const q = this.q;
    q[0] = sx; q[1] = sy; q[2] = sz; q[3] = ex; q[4] = ey; q[5] = ez;
    const leaf = bvhFirstHit(out, this.bvh, q);
    if (leaf < 0) {
      out.hit = false;
      out.triangle = -1;
      out.surface = -1;
      return false;
    }
    const tri = this.order[leaf];
    out.triangle = tri;
    out.surface = this.surfaceOf(tri);
    return true;
  }

  /** True when the segment S -> E meets any triangle (line of sight blocked). */
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean {
    const q = this.q;
    q[0] = sx; q[1] = sy; q[2] = sz; q[3] = ex; q[4] = ey; q[5] = ez;
    return bvhAnyHit(this.bvh, q);
  }

  /**
   * Height (y) of the first surface straight below (x, y, z), looking down at most maxDrop; NaN when
   * there is none within maxDrop or the input is not finite / maxDrop is not positive.
   */
  groundHeight(x: number, y: number, z: number, maxDrop: number): number {
    if (!(maxDrop > 0) || maxDrop === Infinity) return NaN;
    const h = scratchWorldHit;
    if (!this.firstHit(h, x, y, z, x, y - maxDrop, z)) return NaN;
    return h.y;
  }

  /**
   * Swept sphere: the earliest contact of a sphere of `radius` moving from S to E with the world
   * (faces, edges and vertices; one-sided per triangle: a sphere behind a face passes it, as in the
   * kernel, ../kernels/sweptSphere). Fills `out` (t = fraction of the path, contact point, normal
   * toward the centre, centre at contact, embedded when already overlapping) and returns out.hit.
   * The first call builds the sweep frames (20 doubles per triangle); later calls allocate nothing.
   */
  sweepSphere(out: SweepHit, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, radius: number): boolean {
    const frames = this.frames ?? this.buildFrames();
    const q = this.q;
    q[0] = sx; q[1] = sy; q[2] = sz; q[3] = ex; q[4] = ey; q[5] = ez; q[6] = radius;
    return bvhSweepSphere(out, this.bvh, frames, q) >= 0;
  }

  private buildFrames(): Float64Array {
    this.frames = buildSweepFrames(this.bvh.tris, null);
    return this.frames;
  }

  /**
   * Camera (or player) push-back, the line method of seed 003: `lines` holds offsets (3 numbers each)
   * of half-lines through the position P. For each line and each side s = +1, -1 in turn, the segment
   * P -> P + s o is cast; when it meets the world at H, P moves to H - s o, so the line's end rests on
   * the surface and P keeps |o| of clearance along that line. One pass over the lines, in order.
   * Writes the corrected position into out[0..2] and returns true when it moved. Non-finite input or a
   * `lines` length that is not a multiple of 3 leaves the position unchanged (false).
   */
  cameraPushBack(out: Float64Array, x: number, y: number, z: number, lines: Float64Array): boolean {
    out[0] = x; out[1] = y; out[2] = z;
    const check = x + y + z;
    if (check - check !== 0 || !(lines instanceof Float64Array) || lines.length % 3 !== 0) return false;
    const h = scratchWorldHit;
    let px = x, py = y, pz = z;
    let moved = false;
    for (let i = 0; i < lines.length; i += 3) {
      const ox = lines[i], oy = lines[i + 1], oz = lines[i + 2];
      const c = ox + oy + oz;
      if (c - c !== 0) continue;
      for (let side = 1; side >= -1; side -= 2) {
        const ex = px + side * ox, ey = py + side * oy, ez = pz + side * oz;
        if (this.firstHit(h, px, py, pz, ex, ey, ez)) {
          const nx = h.x - side * ox, ny = h.y - side * oy, nz = h.z - side * oz;
          if (nx !== px || ny !== py || nz !== pz) moved = true;
          px = nx; py = ny; pz = nz;
        }
      }
    }
    out[0] = px; out[1] = py; out[2] = pz;
    return moved;
  }

  /** Internal: the traversal arrays, for the other world queries in this folder. */
  arrays(): BvhArrays {
    return this.bvh;
  }

  /** Internal: original triangle index of a leaf-order triangle. */
  originalTriangle(leaf: number): number {
    return this.order[leaf];
  }
}

// Scratch for groundHeight (never escapes).
const scratchWorldHit: WorldHit = createWorldHit();

/** Number of levels of the tree (root alone = 1). One forward pass; allocates a level per node. */
function treeDepth(nodesI: Int32Array): number {
  const nodeCount = nodesI.length / 8;
  // Children come after parents, so one forward pass computes every node's level.
  const level = new Uint32Array(nodeCount);
  level[0] = 1;
  let max = 1;
  for (let i = 0; i < nodeCount; i++) {
    const lv = level[i];
    if (lv > max) max = lv;
    if (nodesI[i * 8 + 7] < 0) {
      const l = nodesI[i * 8 + 6];
      level[l] = lv + 1;
      level[l + 1] = lv + 1;
    }
  }
  return max;
}
