/**
 * A family of crossing lines blocked whole by a chain of the level's triangles (./cast uses it
 * where no one convex piece blocks the family). The crossing lines of a family run from a part A'
 * of one chord to a part B' of a parallel chord (./rays), so they all lie in the plane of the two
 * chords, inside the quadrilateral Q with sides A', B' and the family's two outer lines L (from A's
 * low end to B's low end) and R (the high ends). The plane cuts each triangle it crosses in a
 * segment; triangles joined across the edges the plane cuts give a polyline. A polyline inside Q
 * from a point of L to a point of R cuts Q in two, with A' on one side and B' on the other, so every
 * segment from A' to B' (every line of the family) crosses it, that is meets a triangle: the family
 * is blocked, whatever the shape of the wall (a curved wall, a corner, a thick wall's either face).
 *
 * The walk starts on a triangle L meets, goes from triangle to triangle across the cut edges
 * (the level's edge neighbours) toward R, and answers true only when the polyline reached past R's
 * line without leaving Q. It answers false (the caller splits the family as before) when the chain
 * leaves Q, reaches an edge with no neighbour, takes more than MAX_STEPS triangles, or a vertex lies
 * within PLANE_EPS of the plane (the cut passes through a vertex, where the next triangle is not
 * one edge away). Plain arithmetic (+ - * /, Math.sqrt); nothing allocated per walk.
 */
import { TRI_VERTEX } from '../bvh/traverse';

/** Most triangles one walk crosses. */
export const MAX_STEPS = 64;
/** Metres: a vertex this close to the plane ends the walk (false). */
export const PLANE_EPS = 1e-7;

export class ChainWalk {
  /** Steps (triangles crossed) over all walks since the caller last set it to 0. */
  steps = 0;
  /** The plane's frame: origin, across (u), from A toward B in the plane (w), normal (n). */
  private ox = 0; private oy = 0; private oz = 0;
  private ux = 0; private uy = 0; private uz = 0;
  private wx = 0; private wy = 0; private wz = 0;
  private nx = 0; private ny = 0; private nz = 0;
  /** Q's corners in the plane (p along u, q along w), in order A0, A1, B1, B0, and its orientation (1 or -1). */
  private readonly qp = new Float64Array(4);
  private readonly qq = new Float64Array(4);
  private orient = 1;
  /** The current triangle's vertices in the frame: f (off the plane), p, q. */
  private readonly vf = new Float64Array(3);
  private readonly vp = new Float64Array(3);
  private readonly vq = new Float64Array(3);
  /** The last cut point (p, q). */
  private xp = 0;
  private xq = 0;

  constructor(private readonly verts: Float32Array | Float64Array, private readonly tris: Int32Array | Uint32Array, private readonly neighbours: Int32Array) {}

  /**
   * Whether every segment from a point of [a0, a1] to a point of [b0, b1] meets the level, shown by
   * a chain of triangles from triangle t (a tris offset, one L = (a0, b0) meets) to R = (a1, b1).
   * l holds L's ends (a0 then b0, six numbers), r R's (a1 then b1); [a0, a1] and [b0, b1] parallel.
   * True is a proof; false says nothing.
   */
  blocksFamily(l: Float64Array, r: Float64Array, t: number): boolean {
    if (!this.frame(l, r)) return false;
    const T = this.tris, nb = this.neighbours;
    if (!(t >= 0 && t % 3 === 0 && t + 2 < T.length)) return false;
    if (!this.load(t)) return false;
    let jOut = this.start();
    if (jOut < 0) return false;
    let tri = t;
    for (let step = 0; step < MAX_STEPS; step++) {
      this.steps++;
      // (xp, xq), on edge jOut of tri: past R's line and inside the strip between A and B ends the walk.
      const inA = this.side(0, this.xp, this.xq) > 0, inB = this.side(2, this.xp, this.xq) > 0;
      if (!inA || !inB) return false;
      if (this.side(1, this.xp, this.xq) <= 0) return true;
      if (this.side(3, this.xp, this.xq) <= 0) return false;
      // Across the cut edge into the next triangle, entering by the same two vertices.
      const next = nb[tri + jOut]!;
      if (next < 0) return false;
      const a = T[tri + jOut]! & TRI_VERTEX, b = T[tri + (jOut === 2 ? 0 : jOut + 1)]! & TRI_VERTEX;
      let jIn = -1;
      for (let j = 0; j < 3; j++) {
        const c = T[next + j]! & TRI_VERTEX, d = T[next + (j === 2 ? 0 : j + 1)]! & TRI_VERTEX;
        if ((c === a && d === b) || (c === b && d === a)) { jIn = j; break; }
      }
      if (jIn < 0 || !this.load(next)) return false;
      // The plane leaves by the one other edge it cuts.
      const j1 = jIn === 2 ? 0 : jIn + 1, j2 = j1 === 2 ? 0 : j1 + 1;
      jOut = this.cuts(j1) ? j1 : this.cuts(j2) ? j2 : -1;
      if (jOut < 0) return false;
      this.cutPoint(jOut);
      tri = next;
    }
    return false;
  }

  /**
   * The walk's start on the loaded triangle: its cut (by its two cut edges, one on each side of L's
   * line) must cross L between the A and B lines. Leaves (xp, xq) at the end inside L and returns
   * that end's edge, or -1.
   */
  private start(): number {
    // The plane cuts none or two of the edges (no vertex lies on it).
    const ja = this.cuts(0) ? 0 : 1, jb = this.cuts(2) ? 2 : 1;
    if (ja === jb || !this.cuts(ja) || !this.cuts(jb)) return -1;
    this.cutPoint(ja);
    const pa = this.xp, qa = this.xq, sa = this.side(3, pa, qa);
    this.cutPoint(jb);
    const pb = this.xp, qb = this.xq, sb = this.side(3, pb, qb);
    if (sa <= 0 && sb > 0) return this.crossesLInside(pa, qa, sa, pb, qb, sb) ? jb : -1;
    if (sb <= 0 && sa > 0 && this.crossesLInside(pb, qb, sb, pa, qa, sa)) {
      this.xp = pa; this.xq = qa;
      return ja;
    }
    return -1;
  }

  /** The plane's frame and Q's corners from L's and R's ends; false when degenerate. */
  private frame(l: Float64Array, r: Float64Array): boolean {
    const ox = l[0]!, oy = l[1]!, oz = l[2]!;
    // Across: along both chords (a0 -> a1 and b0 -> b1, the same direction).
    let ux = r[0]! - ox + r[3]! - l[3]!, uy = r[1]! - oy + r[4]! - l[4]!, uz = r[2]! - oz + r[5]! - l[5]!;
    const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
    if (!(ul > 1e-9)) return false;
    ux /= ul; uy /= ul; uz /= ul;
    let wx = l[3]! - ox, wy = l[4]! - oy, wz = l[5]! - oz;
    const du = wx * ux + wy * uy + wz * uz;
    wx -= du * ux; wy -= du * uy; wz -= du * uz;
    const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (!(wl > 1e-9)) return false;
    wx /= wl; wy /= wl; wz /= wl;
    this.ox = ox; this.oy = oy; this.oz = oz;
    this.ux = ux; this.uy = uy; this.uz = uz;
    this.wx = wx; this.wy = wy; this.wz = wz;
    this.nx = uy * wz - uz * wy; this.ny = uz * wx - ux * wz; this.nz = ux * wy - uy * wx;
    const qp = this.qp, qq = this.qq;
    this.toFrame(l[0]!, l[1]!, l[2]!); qp[0] = this.xp; qq[0] = this.xq;
    this.toFrame(r[0]!, r[1]!, r[2]!); qp[1] = this.xp; qq[1] = this.xq;
    this.toFrame(r[3]!, r[4]!, r[5]!); qp[2] = this.xp; qq[2] = this.xq;
    this.toFrame(l[3]!, l[4]!, l[5]!); qp[3] = this.xp; qq[3] = this.xq;
    let area = 0;
    for (let i = 0; i < 4; i++) {
      const k = i === 3 ? 0 : i + 1;
      area += qp[i]! * qq[k]! - qp[k]! * qq[i]!;
    }
    if (!(Math.abs(area) > 1e-12)) return false;
    this.orient = area > 0 ? 1 : -1;
    return true;
  }

  /** (xp, xq) = point (x, y, z) in the plane's frame. */
  private toFrame(x: number, y: number, z: number): void {
    const dx = x - this.ox, dy = y - this.oy, dz = z - this.oz;
    this.xp = dx * this.ux + dy * this.uy + dz * this.uz;
    this.xq = dx * this.wx + dy * this.wy + dz * this.wz;
  }

  /** Triangle t's vertices in the frame; false when one lies within PLANE_EPS of the plane. */
  private load(t: number): boolean {
    const V = this.verts, T = this.tris;
    for (let j = 0; j < 3; j++) {
      const v = (T[t + j]! & TRI_VERTEX) * 3;
      const dx = V[v]! - this.ox, dy = V[v + 1]! - this.oy, dz = V[v + 2]! - this.oz;
      const f = dx * this.nx + dy * this.ny + dz * this.nz;
      if (!(f > PLANE_EPS || f < -PLANE_EPS)) return false;
      this.vf[j] = f;
      this.vp[j] = dx * this.ux + dy * this.uy + dz * this.uz;
      this.vq[j] = dx * this.wx + dy * this.wy + dz * this.wz;
    }
    return true;
  }

  /** Whether the plane cuts edge j (from vertex j to j + 1) of the loaded triangle. */
  private cuts(j: number): boolean {
    const k = j === 2 ? 0 : j + 1;
    return (this.vf[j]! > 0) !== (this.vf[k]! > 0);
  }

  /** (xp, xq) = where the plane cuts edge j of the loaded triangle. */
  private cutPoint(j: number): void {
    const k = j === 2 ? 0 : j + 1;
    const fa = this.vf[j]!, fb = this.vf[k]!, s = fa / (fa - fb);
    this.xp = this.vp[j]! + s * (this.vp[k]! - this.vp[j]!);
    this.xq = this.vq[j]! + s * (this.vq[k]! - this.vq[j]!);
  }

  /** Side of (p, q) against Q's side i (0: A, 1: R, 2: B, 3: L): positive inside. */
  private side(i: number, p: number, q: number): number {
    const k = i === 3 ? 0 : i + 1, qp = this.qp, qq = this.qq;
    return this.orient * ((qp[k]! - qp[i]!) * (q - qq[i]!) - (qq[k]! - qq[i]!) * (p - qp[i]!));
  }

  /** Whether the segment from (p0, q0) (side of L s0 <= 0) to (p1, q1) (s1 > 0) crosses L's line strictly between the A and B lines. */
  private crossesLInside(p0: number, q0: number, s0: number, p1: number, q1: number, s1: number): boolean {
    const k = s0 / (s0 - s1), hp = p0 + k * (p1 - p0), hq = q0 + k * (q1 - q0);
    return this.side(0, hp, hq) > 0 && this.side(2, hp, hq) > 0;
  }
}
