/**
 * Convex pieces of a level, for fog of war's shortcut (./fog): convex sets whose surface is some of
 * the level's triangles.
 * - Solids: a connected part of the level (triangles joined across shared edges, inner faces left out:
 *   two triangles on the same three vertices, where abutting boxes touch) that is closed (every edge
 *   on two of its triangles) and convex (all its vertices on one side of each of its triangles'
 *   planes): a crate, a pillar, a wall built of boxes. A segment meets the solid when it meets one of
 *   those triangles, or when it lies wholly inside, as no line from an eye does (a player's radius
 *   keeps its eye out of walls); a line that meets an inner face (or any triangle on the solid's
 *   vertices) is inside it there.
 * - Polygons: the other triangles grouped into exactly coplanar convex polygons, each the union of
 *   triangles joined across shared edges (a wall split into strips is one piece per convex stretch;
 *   a wall with a doorway, the stretches beside and above it).
 * Up to MAX_POLYGON_TRIS triangles a polygon and MAX_PIECE_TRIS a solid. When the extreme lines of
 * a family of segments (./rays: the matched corners of two regions, a grid's corners, the crossing
 * lines' outer pair) all meet one piece,
 * the separating-plane argument says every line of the family meets it: each one from outside it
 * crosses its triangles (the BVH's test is watertight: the triangles share their edges'
 * vertices), so the rest need not be cast. A line is tested against a piece by its planes
 * (segmentMeetsPiece: a solid's faces; a polygon's own plane and one through each side), which
 * says what its triangles say (test/fogPieces.test.ts). Coplanarity, closure and convexity are decided exactly,
 * in integers (BigInt) on the float32 vertices (a folded pair is not convex: a line could pass through
 * the fold). Built once with the level.
 */

/** Most triangles in one piece (a solid; two abutting boxes less their inner faces are 20), and in one polygon. */
export const MAX_PIECE_TRIS = 24;
export const MAX_POLYGON_TRIS = 12;

export interface ConvexPieces {
  /** Per triangle (at tris offset / 3): its piece. */
  of: Int32Array;
  /**
   * Piece k as the half-spaces n . x <= d holding it (nx, ny, nz, d per plane) at planes[4 planeStart[k]
   * .. 4 planeStart[k + 1]): a solid's face planes; a polygon's plane both ways and one plane through
   * each side, along the normal (segmentMeetsPiece).
   */
  planes: Float64Array;
  planeStart: Int32Array;
  /** Piece k's surface triangles (tris offsets) are tris[start[k] .. start[k + 1]) (a solid's inner faces are in `of` only). */
  start: Int32Array;
  tris: Int32Array;
  /** Pieces 0 .. solids - 1 are the solids (each a whole connected part of the level, inner faces left out), the rest polygons. */
  solids: number;
}

const MASK = 0xffffff;

/**
 * The level's convex pieces: its solids first, then polygons grown greedily from each triangle not yet
 * in a piece, in tris order, across the edge neighbours of ./lineMemory edgeNeighbours (a neighbour
 * joins when it is exactly coplanar, lies across a side of the polygon so far, and the polygon stays
 * convex, three vertices in a line allowed). Every triangle is in exactly one piece.
 */
export function convexPieces(verts: Float32Array, tris: Int32Array, neighbours: Int32Array, maxTris = MAX_POLYGON_TRIS, maxSolidTris = MAX_PIECE_TRIS): ConvexPieces {
  const nt = Math.floor(tris.length / 3);
  const of = new Int32Array(nt).fill(-1);
  const start: number[] = [0], list: number[] = [];
  const exact = new Map<number, bigint[] | null>();
  const vert = (i: number): bigint[] | null => {
    let e = exact.get(i);
    if (e === undefined) exact.set(i, (e = exactVertex(verts, i)));
    return e;
  };
  const planes = new Planes(), planeStart: number[] = [0];
  for (const { outer, inner } of connectedParts(tris, maxSolidTris)) {
    if (!convexSolid(outer, tris, vert)) continue;
    for (const t of outer) list.push(t);
    for (const t of [...outer, ...inner]) of[t / 3] = start.length - 1;
    start.push(list.length);
    solidPlanes(verts, tris, outer, planes);
    planeStart.push(planes.count);
  }
  const solids = start.length - 1;
  for (let t0 = 0; t0 + 2 < tris.length; t0 += 3) {
    if (of[t0 / 3] !== -1) continue;
    const piece = start.length - 1;
    of[t0 / 3] = piece;
    list.push(t0);
    // The polygon so far as a loop of vertex indices, turning the way its first triangle does about n.
    const loop = [tris[t0]! & MASK, tris[t0 + 1]! & MASK, tris[t0 + 2]! & MASK];
    const P = loop.map(vert);
    const n = P.every((p) => p !== null) ? cross(sub(P[1]!, P[0]!), sub(P[2]!, P[0]!)) : null;
    const queue = [t0];
    for (let qi = 0; qi < queue.length && n !== null && dot(n, n) !== 0n; qi++) {
      const t = queue[qi]!;
      for (let j = 0; j < 3 && queue.length < maxTris; j++) {
        const u = neighbours[t + j]!;
        if (u < 0 || of[u / 3] !== -1) continue;
        if (join(loop, vert, n, tris, u)) {
          of[u / 3] = piece;
          list.push(u);
          queue.push(u);
        }
      }
    }
    start.push(list.length);
    polygonPlanes(verts, n !== null && dot(n, n) !== 0n ? loop : null, planes);
    planeStart.push(planes.count);
  }
  return { of, start: Int32Array.from(start), tris: Int32Array.from(list), planes: planes.done(), planeStart: Int32Array.from(planeStart), solids };
}

/**
 * Whether the segment seg[0..2] -> seg[3..5] meets piece k (its closed convex set, from its planes:
 * the part of the segment inside every half-space is not empty). Arithmetic only; allocates nothing.
 */
export function segmentMeetsPiece(pieces: ConvexPieces, k: number, seg: Float64Array): boolean {
  const P = pieces.planes;
  const sx = seg[0]!, sy = seg[1]!, sz = seg[2]!, dx = seg[3]! - sx, dy = seg[4]! - sy, dz = seg[5]! - sz;
  let t0 = 0, t1 = 1;
  for (let i = 4 * pieces.planeStart[k]!, end = 4 * pieces.planeStart[k + 1]!; i < end; i += 4) {
    const nx = P[i]!, ny = P[i + 1]!, nz = P[i + 2]!;
    const room = P[i + 3]! - (nx * sx + ny * sy + nz * sz), along = nx * dx + ny * dy + nz * dz;
    if (along > 0) {
      const t = room / along;
      if (t < t1) t1 = t;
    } else if (along < 0) {
      const t = room / along;
      if (t > t0) t0 = t;
    } else if (room < 0) return false;
    if (t0 > t1) return false;
  }
  return true;
}

/** A growing list of planes (nx, ny, nz, d), kept as doubles from the start. */
class Planes {
  private a = new Float64Array(4 * 1024);
  private n = 0;
  get count(): number { return this.n / 4; }
  push(nx: number, ny: number, nz: number, d: number): void {
    if (this.n + 4 > this.a.length) {
      const b = new Float64Array(2 * this.a.length);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = nx; this.a[this.n++] = ny; this.a[this.n++] = nz; this.a[this.n++] = d;
  }
  /** The planes in an array of their own size. */
  done(): Float64Array { return this.a.slice(0, this.n); }
}

/** Vertex i of verts as doubles. */
function at(verts: Float32Array, i: number): number[] {
  return [verts[3 * i]!, verts[3 * i + 1]!, verts[3 * i + 2]!];
}

/** A solid's face planes, outward (its other vertices on the inner side), one per distinct face, appended to out. */
function solidPlanes(verts: Float32Array, tris: Int32Array, outer: number[], out: Planes): void {
  const vs = [...new Set(outer.flatMap((t) => [0, 1, 2].map((j) => tris[t + j]! & MASK)))].map((i) => at(verts, i));
  const own: number[] = [];
  for (const t of outer) {
    const a = at(verts, tris[t]! & MASK), b = at(verts, tris[t + 1]! & MASK), c = at(verts, tris[t + 2]! & MASK);
    let n = crossF(subF(b, a), subF(c, a)), d = dotF(n, a);
    // Outward: the vertex farthest from the plane lies on its inner side.
    let far = 0;
    for (const v of vs) if (Math.abs(dotF(n, v) - d) > Math.abs(far)) far = dotF(n, v) - d;
    if (far > 0) { n = [-n[0]!, -n[1]!, -n[2]!]; d = -d; }
    const len = Math.sqrt(dotF(n, n));
    let seen = false;
    for (let i = 0; i < own.length && !seen; i += 4) {
      const l = Math.sqrt(own[i]! * own[i]! + own[i + 1]! * own[i + 1]! + own[i + 2]! * own[i + 2]!);
      seen = Math.abs(own[i]! / l - n[0]! / len) + Math.abs(own[i + 1]! / l - n[1]! / len) + Math.abs(own[i + 2]! / l - n[2]! / len) < 1e-12 && Math.abs(own[i + 3]! / l - d / len) < 1e-9;
    }
    if (!seen) own.push(n[0]!, n[1]!, n[2]!, d);
  }
  for (let i = 0; i < own.length; i += 4) out.push(own[i]!, own[i + 1]!, own[i + 2]!, own[i + 3]!);
}

/**
 * A polygon's planes appended to out: its own plane both ways (the crossing point lies on it) and,
 * for each side p -> q of the loop (turning positively about its normal n), the plane through the
 * side along n, outward. A degenerate polygon (null) gets a plane nothing meets.
 */
function polygonPlanes(verts: Float32Array, loop: number[] | null, out: Planes): void {
  if (loop === null) {
    out.push(0, 0, 0, -1);
    return;
  }
  // The normal from the whole loop (Newell): its first three vertices may lie in a line.
  const m = loop.length;
  let nx = 0, ny = 0, nz = 0;
  for (let i = 0; i < m; i++) {
    const a = 3 * loop[i]!, b = 3 * loop[i + 1 === m ? 0 : i + 1]!;
    nx += (verts[a + 1]! - verts[b + 1]!) * (verts[a + 2]! + verts[b + 2]!);
    ny += (verts[a + 2]! - verts[b + 2]!) * (verts[a]! + verts[b]!);
    nz += (verts[a]! - verts[b]!) * (verts[a + 1]! + verts[b + 1]!);
  }
  const o = 3 * loop[0]!, d = nx * verts[o]! + ny * verts[o + 1]! + nz * verts[o + 2]!;
  out.push(nx, ny, nz, d);
  out.push(-nx, -ny, -nz, -d);
  for (let i = 0; i < m; i++) {
    const a = 3 * loop[i]!, b = 3 * loop[i + 1 === m ? 0 : i + 1]!;
    const ex = verts[b]! - verts[a]!, ey = verts[b + 1]! - verts[a + 1]!, ez = verts[b + 2]! - verts[a + 2]!;
    // The side's direction across the normal, outward.
    const sx = ey * nz - ez * ny, sy = ez * nx - ex * nz, sz = ex * ny - ey * nx;
    if (sx === 0 && sy === 0 && sz === 0) continue;
    out.push(sx, sy, sz, sx * verts[a]! + sy * verts[a + 1]! + sz * verts[a + 2]!);
  }
}

const subF = (a: number[], b: number[]): number[] => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const crossF = (a: number[], b: number[]): number[] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
const dotF = (a: number[], b: number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;

/**
 * Adds triangle u to the convex polygon `loop` (normal n) when it is coplanar, shares one of the
 * polygon's sides (consecutive p, q), its third vertex d lies strictly beyond that side, and the
 * turns at p, d and q keep the polygon convex; d goes into the loop between p and q.
 */
function join(loop: number[], vert: (i: number) => bigint[] | null, n: bigint[], tris: Int32Array, u: number): boolean {
  const w = [tris[u]! & MASK, tris[u + 1]! & MASK, tris[u + 2]! & MASK];
  const m = loop.length;
  for (let i = 0; i < m; i++) {
    const p = loop[i]!, q = loop[(i + 1) % m]!;
    if (!w.includes(p) || !w.includes(q)) continue;
    const d = w.find((x) => x !== p && x !== q);
    if (d === undefined || loop.includes(d)) return false;
    const D = vert(d), Pp = vert(p), Q = vert(q), before = vert(loop[(i + m - 1) % m]!), after = vert(loop[(i + 2) % m]!);
    if (D === null || Pp === null || Q === null || before === null || after === null) return false;
    if (dot(n, sub(D, Pp)) !== 0n) return false;
    // d beyond side p-q (the polygon turns positively about n), and no reflex turn at p, d or q.
    if (!(turn(n, Pp, Q, D) < 0n)) return false;
    if (turn(n, before, Pp, D) < 0n || turn(n, Pp, D, Q) < 0n || turn(n, D, Q, after) < 0n) return false;
    loop.splice(i + 1, 0, d);
    return true;
  }
  return false;
}

/**
 * The level's triangles (tris offsets) grouped by shared edges, leaving out inner faces (two
 * triangles on the same three vertices: where two boxes abut, each one's face against the other's),
 * so that abutting boxes make one part: the parts of at most maxTris triangles (the solids' candidates),
 * each with the inner faces whose vertices are all its own. Flat arrays and numeric keys: a large
 * level's hundreds of thousands of triangles take a fraction of a second.
 */
function connectedParts(tris: Int32Array, maxTris: number): { outer: number[]; inner: number[] }[] {
  const nt = Math.floor(tris.length / 3);
  const v = (t: number, k: number): number => tris[3 * t + k]! & MASK;
  // Inner faces: sorted by their sorted vertices, equal neighbours are the same face twice.
  const lo = new Int32Array(nt), mid = new Int32Array(nt), hi = new Int32Array(nt);
  for (let t = 0; t < nt; t++) {
    const a = v(t, 0), b = v(t, 1), c = v(t, 2);
    lo[t] = Math.min(a, b, c); hi[t] = Math.max(a, b, c); mid[t] = a + b + c - lo[t]! - hi[t]!;
  }
  const order = Uint32Array.from({ length: nt }, (_, t) => t).sort((x, y) => lo[x]! - lo[y]! || mid[x]! - mid[y]! || hi[x]! - hi[y]!);
  const inner = new Uint8Array(nt);
  for (let i = 1; i < nt; i++) {
    const x = order[i - 1]!, y = order[i]!;
    if (lo[x] === lo[y] && mid[x] === mid[y] && hi[x] === hi[y]) inner[x] = inner[y] = 1;
  }
  // Union-find over the other triangles across their edges.
  const root = Int32Array.from({ length: nt }, (_, t) => t);
  const find = (t: number): number => {
    while (root[t] !== t) { root[t] = root[root[t]!]!; t = root[t]!; }
    return t;
  };
  const firstOnEdge = new Map<number, number>();
  for (let t = 0; t < nt; t++) {
    if (inner[t] === 1) continue;
    for (let k = 0; k < 3; k++) {
      const a = v(t, k), b = v(t, k === 2 ? 0 : k + 1), e = a < b ? a * 16777216 + b : b * 16777216 + a;
      const u = firstOnEdge.get(e);
      if (u === undefined) firstOnEdge.set(e, t);
      else root[find(t)] = find(u);
    }
  }
  const size = new Int32Array(nt);
  for (let t = 0; t < nt; t++) if (inner[t] === 0) size[find(t)]++;
  const parts: { outer: number[]; inner: number[] }[] = [], partOf = new Int32Array(nt).fill(-1), partOfVertex = new Map<number, number>();
  for (let t = 0; t < nt; t++) {
    if (inner[t] === 1) continue;
    const r = find(t);
    if (size[r]! > maxTris) continue;
    if (partOf[r] === -1) { partOf[r] = parts.length; parts.push({ outer: [], inner: [] }); }
    parts[partOf[r]!]!.outer.push(3 * t);
    for (let k = 0; k < 3; k++) partOfVertex.set(v(t, k), partOf[r]!);
  }
  for (let t = 0; t < nt; t++) {
    if (inner[t] === 0) continue;
    const p = partOfVertex.get(v(t, 0));
    if (p !== undefined && partOfVertex.get(v(t, 1)) === p && partOfVertex.get(v(t, 2)) === p) parts[p]!.inner.push(3 * t);
  }
  return parts;
}

/** Whether the triangles of `part` close a convex solid: every edge on exactly two, every vertex on one side of (or on) each triangle's plane, none degenerate. */
function convexSolid(part: number[], tris: Int32Array, vert: (i: number) => bigint[] | null): boolean {
  const edges = new Map<number, number>(), vs = new Set<number>();
  for (const t of part) {
    for (let k = 0; k < 3; k++) {
      const a = tris[t + k]! & MASK, b = tris[t + (k === 2 ? 0 : k + 1)]! & MASK;
      vs.add(a);
      const key = a < b ? a * 16777216 + b : b * 16777216 + a;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  }
  for (const c of edges.values()) if (c !== 2) return false;
  const points: bigint[][] = [];
  for (const i of vs) {
    const p = vert(i);
    if (p === null) return false;
    points.push(p);
  }
  for (const t of part) {
    const A = vert(tris[t]! & MASK)!, B = vert(tris[t + 1]! & MASK)!, C = vert(tris[t + 2]! & MASK)!;
    const n = cross(sub(B, A), sub(C, A));
    if (dot(n, n) === 0n) return false;
    let above = false, below = false;
    for (const p of points) {
      const d = dot(n, sub(p, A));
      if (d > 0n) above = true;
      else if (d < 0n) below = true;
    }
    if (above && below) return false;
  }
  return true;
}

/** The turn a -> b -> c about n: positive to the left (counter-clockwise seen from n's side), 0 in a line. */
function turn(n: bigint[], a: bigint[], b: bigint[], c: bigint[]): bigint {
  return dot(n, cross(sub(b, a), sub(c, b)));
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Vertex i's coordinates times 2^149 as integers (every float32 is an integer multiple of 2^-149); null when not finite. */
function exactVertex(v: Float32Array, i: number): bigint[] | null {
  const out: bigint[] = [];
  for (let k = 0; k < 3; k++) {
    F32[0] = v[3 * i + k]!;
    const bits = U32[0]!, e = (bits >>> 23) & 255, f = bits & 0x7fffff;
    if (e === 255) return null;
    const m = e === 0 ? BigInt(f) : BigInt(f | 0x800000) << BigInt(e - 1);
    out.push(bits >>> 31 === 1 ? -m : m);
  }
  return out;
}

const sub = (a: bigint[], b: bigint[]): bigint[] => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const cross = (a: bigint[], b: bigint[]): bigint[] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
const dot = (a: bigint[], b: bigint[]): bigint => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
