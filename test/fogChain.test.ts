/**
 * The chain walk (shared/fog/chain.ts) that blocks a family of crossing lines whole, by second
 * methods: on a curved thick wall (an arc of a ring, no convex piece holding both outer lines) it
 * proves a family blocked, and brute force (every line of a dense scan against every triangle)
 * agrees; between two walls with a gap it proves nothing, and a line through the gap is clear; on
 * the default and rooms levels, for seeded families between two parallel chords, every family it
 * proves blocked has every line of a dense scan and of seeded draws blocked (World.anyHit).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../server/level/gltf';
import { roomsLevel } from '../server/level/rooms';
import { bvhAnyHitCached } from '../shared/bvh/traverse';
import { createSegmentHit } from '../shared/kernels/hit';
import { intersectMollerTrumbore } from '../shared/kernels/mollerTrumbore';
import { ChainWalk } from '../shared/fog/chain';
import { edgeNeighbours } from '../shared/fog/lineMemory';
import { convexPieces, segmentMeetsPiece } from '../shared/fog/pieces';
import { mulberry32 } from '../shared/util/prng';

interface Mesh { verts: Float32Array; tris: Int32Array }

/** A closed mesh from quads (four vertex positions each, outward order), vertices welded by position. */
function meshOf(quads: number[][][]): Mesh {
  const pos: number[] = [], idx: number[] = [], at = new Map<string, number>();
  const v = (p: number[]): number => {
    const k = p.map((x) => Math.fround(x)).join(',');
    if (!at.has(k)) { at.set(k, pos.length / 3); pos.push(...p); }
    return at.get(k)!;
  };
  for (const q of quads) {
    const [a, b, c, d] = q.map(v);
    idx.push(a!, b!, c!, a!, c!, d!);
  }
  return { verts: new Float32Array(pos), tris: Int32Array.from(idx) };
}

/** A wall along an arc of the ring between radii r0 and r1 about the origin, from angle a0 to a1 (radians) in n steps, from y 0 to h: closed. */
function arcWall(r0: number, r1: number, a0: number, a1: number, n: number, h: number): number[][][] {
  const q: number[][][] = [];
  const at = (r: number, a: number, y: number): number[] => [r * Math.cos(a), y, r * Math.sin(a)];
  for (let i = 0; i < n; i++) {
    const s = a0 + ((a1 - a0) * i) / n, e = a0 + ((a1 - a0) * (i + 1)) / n;
    q.push([at(r1, s, 0), at(r1, e, 0), at(r1, e, h), at(r1, s, h)]);
    q.push([at(r0, e, 0), at(r0, s, 0), at(r0, s, h), at(r0, e, h)]);
    q.push([at(r0, s, h), at(r1, s, h), at(r1, e, h), at(r0, e, h)]);
    q.push([at(r0, e, 0), at(r1, e, 0), at(r1, s, 0), at(r0, s, 0)]);
  }
  q.push([at(r0, a0, 0), at(r1, a0, 0), at(r1, a0, h), at(r0, a0, h)]);
  q.push([at(r1, a1, 0), at(r0, a1, 0), at(r0, a1, h), at(r1, a1, h)]);
  return q;
}

/** A box's six faces. */
function box(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): number[][][] {
  const c = (i: number): number[] => [i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0];
  return [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]].map((f) => f.map(c));
}

/** The upright prism over the convex polygon pts ([x, z] anticlockwise seen from above), from y 0 to h. */
function prism(pts: number[][], h: number): number[][][] {
  const q: number[][][] = [];
  const n = pts.length, at = (i: number, y: number): number[] => [pts[i % n]![0]!, y, pts[i % n]![1]!];
  for (let i = 0; i < n; i++) q.push([at(i, 0), at(i, h), at(i + 1, h), at(i + 1, 0)]);
  q.push(pts.map((_, i) => at(n - 1 - i, h)));
  q.push(pts.map((_, i) => at(i, 0)));
  return q.map((f) => (f.length === 4 ? f : [f[0]!, f[1]!, f[2]!, f[3]!]));
}

/** Whether segment seg meets any triangle of m, each by the Möller–Trumbore kernel (both faces): the brute force. */
function meetsAny(m: Mesh, seg: Float64Array): boolean {
  const V = m.verts, T = m.tris;
  for (let t = 0; t < T.length; t += 3) {
    const a = 3 * T[t]!, b = 3 * T[t + 1]!, c = 3 * T[t + 2]!;
    if (intersectMollerTrumbore(hit, seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!, V[a]!, V[a + 1]!, V[a + 2]!, V[b]!, V[b + 1]!, V[b + 2]!, V[c]!, V[c + 1]!, V[c + 2]!)) return true;
  }
  return false;
}
const hit = createSegmentHit();

/** The first triangle (tris offset) segment seg meets, by brute force, or -1. */
function firstMet(m: Mesh, seg: Float64Array): number {
  for (let t = 0; t < m.tris.length; t += 3) {
    const one: Mesh = { verts: m.verts, tris: m.tris.subarray(t, t + 3) };
    if (meetsAny(one, seg)) return t;
  }
  return -1;
}

/** The outer lines' ends (a0 b0, a1 b1) and line (s, t) of the family between chords [a0, a1] and [b0, b1]. */
class Family {
  readonly l = new Float64Array(7);
  readonly r = new Float64Array(7);
  readonly seg = new Float64Array(7);
  constructor(readonly a0: number[], readonly a1: number[], readonly b0: number[], readonly b1: number[]) {
    this.line(0, 0); this.l.set(this.seg);
    this.line(1, 1); this.r.set(this.seg);
  }
  line(s: number, t: number): Float64Array {
    for (let k = 0; k < 3; k++) {
      this.seg[k] = this.a0[k]! + s * (this.a1[k]! - this.a0[k]!);
      this.seg[3 + k] = this.b0[k]! + t * (this.b1[k]! - this.b0[k]!);
    }
    return this.seg;
  }
}

describe('fog of war: a family of crossing lines blocked by a chain of triangles', () => {
  it('proves a family behind a curved thick wall blocked where no convex piece holds both outer lines; brute force agrees', () => {
    const m = meshOf(arcWall(5, 5.4, -0.6, 0.6, 24, 3));
    const nb = edgeNeighbours(m.tris);
    expect(Array.from(nb).every((x) => x >= 0), 'the wall is closed').toBe(true);
    // From near the centre (eye height) to beyond the wall (a body's middle), chords across x.
    const f = new Family([0, 1.6, -1], [0, 1.6, 1], [8, 1, -1.5], [8, 1, 1.5]);
    const t = firstMet(m, f.l);
    expect(t).toBeGreaterThanOrEqual(0);
    const walk = new ChainWalk(m.verts, m.tris, nb);
    expect(walk.blocksFamily(f.l, f.r, t)).toBe(true);
    expect(walk.steps).toBeGreaterThan(3);
    for (let i = 0; i <= 16; i++) for (let j = 0; j <= 16; j++) expect(meetsAny(m, f.line(i / 16, j / 16)), `line ${i},${j}`).toBe(true);
    // No convex piece (a polygon of a few coplanar triangles, a closed convex solid) meets both outer lines.
    const pieces = convexPieces(m.verts, m.tris, nb);
    let both = 0;
    for (let k = 0; k + 1 < pieces.start.length; k++) if (segmentMeetsPiece(pieces, k, f.l) && segmentMeetsPiece(pieces, k, f.r)) both++;
    expect(both).toBe(0);
    // The other way round (from R to L) it is the same proof.
    const u = firstMet(m, f.r);
    expect(walk.blocksFamily(f.r, f.l, u)).toBe(true);
  });

  it('proves nothing across a gap between two walls, through which a line is clear', () => {
    const m = meshOf([...box(4, 0, -3, 4.4, 3, -0.2), ...box(4, 0, 0.2, 4.4, 3, 3)]);
    const nb = edgeNeighbours(m.tris);
    const f = new Family([0, 1.6, -1], [0, 1.6, 1], [8, 1, -1.5], [8, 1, 1.5]);
    expect(meetsAny(m, f.l)).toBe(true);
    expect(meetsAny(m, f.r)).toBe(true);
    expect(meetsAny(m, f.line(0.5, 0.5))).toBe(false);
    const walk = new ChainWalk(m.verts, m.tris, nb);
    expect(walk.blocksFamily(f.l, f.r, firstMet(m, f.l))).toBe(false);
    expect(walk.blocksFamily(f.r, f.l, firstMet(m, f.r))).toBe(false);
    // A wall that covers the family from its middle line to R but not L: from a triangle the middle line meets, nothing is proved.
    const half = meshOf(arcWall(5, 5.4, -0.02, 0.6, 12, 3));
    const mid = firstMet(half, f.line(0.5, 0.5));
    expect(mid).toBeGreaterThanOrEqual(0);
    expect(meetsAny(half, f.l)).toBe(false);
    expect(new ChainWalk(half.verts, half.tris, edgeNeighbours(half.tris)).blocksFamily(f.l, f.r, mid)).toBe(false);
    // A slanted wall that crosses L's line behind the eye, then chord A, then R: it leaves the lines
    // from A's low part clear, and a chain from where it crosses L's line outside the family proves nothing.
    const slant = meshOf(prism([[-1.5, -3.1], [-1.3, -3.1], [1.7, 2.9], [1.5, 2.9]], 3));
    const slantWalk = new ChainWalk(slant.verts, slant.tris, edgeNeighbours(slant.tris));
    expect(meetsAny(slant, f.line(0.1, 0.5))).toBe(false);
    for (let t = 0; t < slant.tris.length; t += 3) expect(slantWalk.blocksFamily(f.l, f.r, t), `triangle ${t}`).toBe(false);
    // A wall cut by the plane through a vertex (a corner on the chords' plane) is not walked across.
    const flat = new Family([0, 3, -1], [0, 3, 1], [8, 3, -1.5], [8, 3, 1.5]);
    expect(walk.blocksFamily(flat.l, flat.r, 0)).toBe(false);
  });

  for (const level of ['default', 'rooms'] as const) {
    it(`on the ${level} level, every line of a family a chain proves blocked is blocked`, async () => {
      const w = level === 'rooms' ? roomsLevel() : await loadWorld(DEFAULT_LEVEL_PATH);
      const b = w.arrays();
      const walk = new ChainWalk(b.verts, b.tris, edgeNeighbours(b.tris));
      const rnd = mulberry32(level === 'rooms' ? 0xc4a1 : 0xc4a2);
      const none = new Int32Array(0);
      const span = level === 'rooms' ? 25 : 20;
      let families = 0, proved = 0, lines = 0;
      for (let n = 0; n < 3000; n++) {
        // Two chords across a random direction, 2 to 30 m apart, the same direction across (as ./rays builds them).
        const ax = -span + 2 * span * rnd(), az = -span + 2 * span * rnd(), ang = 2 * Math.PI * rnd(), d = 2 + 28 * rnd();
        const fx = Math.cos(ang), fz = Math.sin(ang), ux = -fz, uz = fx, ha = 0.1 + 2 * rnd(), hb = 0.1 + 2 * rnd();
        const ya = 0.5 + 2.5 * rnd(), yb = 0.2 + 2.5 * rnd(), bx = ax + d * fx, bz = az + d * fz;
        const f = new Family([ax - ha * ux, ya, az - ha * uz], [ax + ha * ux, ya, az + ha * uz], [bx - hb * ux, yb, bz - hb * uz], [bx + hb * ux, yb, bz + hb * uz]);
        const t = bvhAnyHitCached(b, f.l, none, 0);
        if (t < 0 || !w.anyHit(f.r[0]!, f.r[1]!, f.r[2]!, f.r[3]!, f.r[4]!, f.r[5]!)) continue;
        families++;
        if (!walk.blocksFamily(f.l, f.r, t)) continue;
        proved++;
        for (let k = 0; k < 12 * 12 + 40; k++) {
          const s = k < 144 ? (k % 12) / 11 : rnd(), u = k < 144 ? Math.floor(k / 12) / 11 : rnd();
          const seg = f.line(s, u);
          lines++;
          expect(w.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!), `family ${n}, line (${s}, ${u})`).toBe(true);
        }
      }
      console.log(`[fog] chains (${level}): ${families} families with both outer lines blocked, ${proved} proved blocked whole, ${lines} lines checked`);
      expect(proved).toBeGreaterThan(level === 'default' ? 200 : 20);
    });
  }
});
