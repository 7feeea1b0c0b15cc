/**
 * Convex pieces of a level, for fog of war's shortcut (./fog): each triangle, and with it the triangle
 * across one of its edges when the two are exactly coplanar and form a convex quad. A piece is a
 * convex set, so when the extreme lines of a family of segments (./rays: the matched corners of two
 * regions, a grid's corners, the crossing lines' outer pair) all meet one piece, the
 * separating-plane argument says every line of the family meets it: the rest need not be cast.
 * Coplanarity and convexity are decided exactly, in integers (BigInt) on the float32 vertices (a
 * folded pair is not convex: a line could pass through the fold). Built once with the level.
 */

/**
 * For each triangle (tris offset t, vertex index in the low 24 bits), at out[t / 3] the tris offset of
 * its convex partner (-1: none), from the edge neighbours of ./lineMemory edgeNeighbours.
 */
export function convexPartners(verts: Float32Array, tris: Int32Array, neighbours: Int32Array): Int32Array {
  const MASK = 0xffffff;
  const out = new Int32Array(Math.floor(tris.length / 3)).fill(-1);
  for (let t = 0; t + 2 < tris.length; t += 3) {
    for (let j = 0; j < 3 && out[t / 3] === -1; j++) {
      const u = neighbours[t + j]!;
      if (u < 0) continue;
      // The shared edge p-q, T's third vertex a, the partner's third vertex d.
      const p = tris[t + j]! & MASK, q = tris[t + (j === 2 ? 0 : j + 1)]! & MASK, a = tris[t + (j === 0 ? 2 : j - 1)]! & MASK;
      let d = -1;
      for (let k = 0; k < 3; k++) {
        const w = tris[u + k]! & MASK;
        if (w !== p && w !== q) d = w;
      }
      if (d < 0 || d === a) continue;
      if (convexQuad(verts, p, q, a, d)) out[t / 3] = u;
    }
  }
  return out;
}

/** Triangles (p, q, a) and (q, p, d) sharing edge p-q: coplanar, a and d on opposite sides of p-q, and p-q not beside a-d (exact: integers). */
function convexQuad(v: Float32Array, p: number, q: number, a: number, d: number): boolean {
  const P = exactVertex(v, p), Q = exactVertex(v, q), A = exactVertex(v, a), D = exactVertex(v, d);
  if (P === null || Q === null || A === null || D === null) return false;
  const e = sub(Q, P), av = sub(A, P), dv = sub(D, P);
  const n = cross(e, av);
  if (dot(n, dv) !== 0n || dot(n, n) === 0n) return false;
  // a and d on opposite sides of the line p-q.
  if (!(dot(cross(e, dv), n) < 0n)) return false;
  // p and q on opposite sides of (or on) the line a-d: the quad's other diagonal crosses p-q.
  const f = sub(dv, av);
  const sp = dot(cross(f, sub([0n, 0n, 0n], av)), n), sq = dot(cross(f, sub(e, av)), n);
  return (sp <= 0n && sq >= 0n) || (sp >= 0n && sq <= 0n);
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
