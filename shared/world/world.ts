/**
 * The static world a shot is validated against: a level's triangles in a BVH, packed into one
 * versioned ArrayBuffer so the server and every client load the same bytes and name them by the same
 * content hash. Queries (first hit, every hit, any hit, ground height, swept sphere, camera push-back) allocate
 * nothing and write into a caller-owned record passed first.
 *
 * The bytes (layout, version and the checks run on untrusted bytes) are described in ./bytes; ./pack
 * writes them from a triangle soup and reads the surface table back.
 *
 * Precision: vertices are float32 in world coordinates, as glTF stores them; positions given as
 * doubles are rounded to the nearest float32 once, at build (Math.fround), and the content hash covers
 * the rounded vertices. Every computation on them is in doubles, so a query's answer depends only on
 * those float32 values. Far from the origin float32 is coarse: a vertex moves by at most half a
 * float32 step, 0.5 mm at 1e4 and 4 mm at 1e5, so keep levels within about 1e4 of the origin.
 */
import { createSegmentHit, type SegmentHit } from '../kernels/hit';
import { bvhAnyHit, bvhFirstHit, TRI_VERTEX, type BvhArrays } from '../bvh/traverse';
import { bvhAllHits } from '../bvh/allHits';
import { bvhSweepSphere } from '../bvh/sweep';
import { buildSweepFrames, type SweepHit } from '../kernels/sweptSphere';
import { checkHash, checkHeader, checkPreamble, checkTree, sealWorldBytes } from './bytes';
import type { WorldHits } from './hits';
import { packWorldBytes, readSurfaces, type Surface, type SurfaceRange } from './pack';

export { WORLD_MAGIC, WORLD_VERSION } from './bytes';
export { createWorldHits, hitEntersSolid, type TriangleHits, type WorldHits } from './hits';
export type { Surface, SurfaceRange } from './pack';

/** Options of World.fromBuffer. */
export interface WorldLoadOptions {
  /**
   * The world hash the caller expects (16 hex digits, e.g. the one the server announced): bytes of
   * any other world are refused, even if they are a valid world.
   */
  expectedHash?: string;
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

export class World {
  /** The world's bytes (never handed out; toBuffer copies). */
  private readonly buf: ArrayBuffer;
  private readonly bvh: BvhArrays;
  private readonly surfStart: Uint32Array;
  private readonly surfCount: Uint32Array;
  private readonly boundsD: Float64Array;
  /**
   * Content hash: the header's, checked against the bytes when they were untrusted; for a world just
   * built, computed and written into the header on first use (hash or toBuffer).
   */
  private hashCache: string | undefined;
  /** Scratch: the segment of the current query, sx sy sz ex ey ez (see ../bvh/traverse for why). */
  private readonly q = new Float64Array(7);
  /** Sweep frames per leaf-order triangle (20 doubles each), built on the first sweepSphere call. */
  private frames: Float64Array | undefined;
  readonly surfaces: readonly Surface[];
  readonly triangleCount: number;
  readonly nodeCount: number;
  /** Vertices stored (those the triangles use, float32 xyz each). */
  readonly vertexCount: number;
  /** Levels in the tree (root alone = 1). */
  readonly depth: number;

  /**
   * `trusted` is true only for bytes World.fromTriangles has just written: the hash and the
   * per-node, per-triangle checks are then skipped.
   */
  private constructor(buf: ArrayBuffer, trusted: boolean, expectedHash?: string) {
    if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
      throw new Error('World: big-endian hosts are not supported (the buffer is little-endian typed arrays).');
    }
    // Untrusted bytes are checked in full (./bytes) so hostile or damaged bytes give an error that
    // says what is wrong, never a hang or a silently wrong answer.
    checkPreamble(buf);
    const l = checkHeader(buf);
    this.hashCache = trusted ? undefined : checkHash(buf, expectedHash);
    if (!trusted) checkTree(buf, l);
    const { nodeCount, depth } = l;
    const triCount = l.triangleCount;
    const nodesF = new Float32Array(buf, l.nodesOff, nodeCount * 8);
    const nodesI = new Int32Array(buf, l.nodesOff, nodeCount * 8);
    const verts = new Float32Array(buf, l.vertsOff, l.vertexCount * 3);
    const tris = new Int32Array(buf, l.trisOff, triCount * 3);
    const surf = readSurfaces(buf, l);
    this.buf = buf;
    this.nodeCount = nodeCount;
    this.triangleCount = triCount;
    this.depth = depth;
    this.vertexCount = l.vertexCount;
    this.surfStart = surf.start;
    this.surfCount = surf.count;
    this.surfaces = surf.surfaces;
    this.boundsD = new Float64Array(buf, 40, 6);
    this.bvh = {
      nodesF,
      nodesI,
      verts,
      tris,
      stackNode: new Int32Array(depth + 1),
      stackT: new Float64Array(depth + 1),
    };
  }

  /**
   * Builds a world from a triangle soup: xyz per vertex, three vertex indices per triangle, and
   * optionally named triangle ranges (sorted, not overlapping). Float64 positions are rounded to
   * float32 (see Precision above). Throws with a clear message on non-finite coordinates (including
   * doubles beyond float32's range), out-of-range indices, or more than 2^24 triangles or vertices.
   */
  static fromTriangles(
    positions: Float32Array | Float64Array,
    indices: Uint32Array,
    surfaceRanges?: SurfaceRange[],
  ): World {
    return new World(packWorldBytes(positions, indices, surfaceRanges), true);
  }

  /**
   * Loads a world from bytes made by toBuffer, which may come from a file or the network: they are
   * checked in full first (magic, version, sizes, content hash, and every node, link, box and
   * triangle: see ./bytes) and refused with an Error that says what is wrong. Pass the hash you
   * expect (e.g. the one the server announced) to refuse any other world. Takes an ArrayBuffer or any
   * view of one (a Node Buffer read from disk, a Uint8Array).
   */
  static fromBuffer(buf: ArrayBuffer | ArrayBufferView, options: WorldLoadOptions = {}): World {
    const expected = options.expectedHash;
    if (expected !== undefined && (typeof expected !== 'string' || !/^[0-9a-f]{16}$/.test(expected))) {
      throw new Error('World.fromBuffer: expectedHash must be 16 lowercase hex digits (World.hash of the world you expect).');
    }
    // Copy so later writes by the caller cannot change a world in use (and so views get their own,
    // aligned buffer).
    if (ArrayBuffer.isView(buf)) {
      return new World(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength).slice().buffer, false, expected);
    }
    if (!(buf instanceof ArrayBuffer)) {
      throw new Error('World.fromBuffer: pass an ArrayBuffer or a view of one (the bytes World.toBuffer() produced).');
    }
    return new World(buf.slice(0), false, expected);
  }

  /** A copy of the world's bytes (with the content hash in the header). */
  toBuffer(): ArrayBuffer {
    if (this.hashCache === undefined) this.hashCache = sealWorldBytes(this.buf);
    return this.buf.slice(0);
  }

  /** Content hash of the bytes: FNV-1a 64 of everything after the header's hash field, 16 hex digits. */
  get hash(): string {
    if (this.hashCache === undefined) this.hashCache = sealWorldBytes(this.buf);
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
    const tri = this.originalTriangle(leaf);
    out.triangle = tri;
    out.surface = this.surfaceOf(tri);
    return true;
  }

  /**
   * Every triangle the segment S -> E meets, either face, 0 <= t <= 1 (for shots that pass through):
   * fills `out` (see WorldHits: sorted by t, then triangle; the nearest out.capacity kept, out.total
   * counts all) and returns out.count. Each entry's t, point, normal and front bit are the kernel's
   * for that triangle, so entry 0 is firstHit's t. Entering or leaving solid: hitEntersSolid (the
   * front bit, for closed outward-wound meshes). Non-finite or zero-length input: 0 hits.
   */
  allHits(out: WorldHits, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): number {
    const q = this.q;
    q[0] = sx; q[1] = sy; q[2] = sz; q[3] = ex; q[4] = ey; q[5] = ez;
    const n = bvhAllHits(out, this.bvh, q);
    const tri = out.triangle, surf = out.surface;
    for (let i = 0; i < n; i++) surf[i] = this.surfaceOf(tri[i]);
    return n;
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
    this.frames = buildSweepFrames(this.triangleCorners(), null);
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

  /** Internal: original triangle index of a leaf-order triangle (bytes 0, 1, 2 in the top of its words). */
  originalTriangle(leaf: number): number {
    const T = this.bvh.tris;
    const k = leaf * 3;
    return (T[k] >>> 24) | ((T[k + 1] >>> 24) << 8) | ((T[k + 2] >>> 24) << 16);
  }

  /**
   * The corners of every triangle in leaf order, 9 doubles each (ax ay az bx by bz cx cy cz), in a new
   * array: for drawing the level (the audit's map) and for the sweep frames.
   */
  triangleCorners(): Float64Array {
    const { verts: V, tris: T } = this.bvh;
    const out = new Float64Array(this.triangleCount * 9);
    for (let i = 0, n = this.triangleCount * 3; i < n; i++) {
      const v = (T[i] & TRI_VERTEX) * 3;
      out[3 * i] = V[v];
      out[3 * i + 1] = V[v + 1];
      out[3 * i + 2] = V[v + 2];
    }
    return out;
  }
}

// Scratch for groundHeight (never escapes).
const scratchWorldHit: WorldHit = createWorldHit();
