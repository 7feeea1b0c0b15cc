/**
 * Convex pieces (shared/fog/pieces.ts) and the shortcut built on them (shared/fog/cast.ts), on the
 * default and rooms levels, by second methods: every triangle is in one piece; a polygon's triangles
 * are exactly coplanar and cover their convex hull (the hull's area, exact, equals the sum of theirs:
 * less would be a notch, more an overlap); a solid is closed and convex by ray parity (seeded points
 * inside by an odd count of crossings of its triangles; the midpoints of inside points inside too).
 * A seeded segment meets a piece by its planes (segmentMeetsPiece, what the shortcut tests) exactly
 * when it meets its triangles or lies inside its solid. For seeded families of segments between two
 * chords whose two outer lines meet one piece, every line between (scanned densely) meets it too, as
 * the separating-plane argument says (a line wholly inside a solid meets it).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../server/level/gltf';
import { roomsLevel } from '../server/level/rooms';
import { bvhHintHit } from '../shared/bvh/traverse';
import { edgeNeighbours } from '../shared/fog/lineMemory';
import { convexPieces, MAX_PIECE_TRIS, segmentMeetsPiece } from '../shared/fog/pieces';
import { mulberry32 } from '../shared/util/prng';
import type { World } from '../shared/world/world';

const MASK = 0xffffff;

/** Vertex i exactly, as integers: the float32 values times 2^149 (a second method: through the double, which holds a float32 exactly). */
function vert(w: World, i: number): bigint[] {
  const v = w.arrays().verts;
  return [0, 1, 2].map((k) => exact(v[3 * i + k]!));
}
function exact(x: number): bigint {
  let m = x, e = 0;
  while (m !== Math.floor(m)) { m *= 2; e++; }
  return BigInt(m) << BigInt(149 - e);
}
const sub = (a: bigint[], b: bigint[]): bigint[] => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const cross = (a: bigint[], b: bigint[]): bigint[] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
const dot = (a: bigint[], b: bigint[]): bigint => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;

/** The quad of triangles t and u (tris offsets) in boundary order, or null when they share no edge. */
function quad(w: World, t: number, u: number): bigint[][] | null {
  const tris = w.arrays().tris;
  const a = [0, 1, 2].map((k) => tris[t + k]! & MASK), b = [0, 1, 2].map((k) => tris[u + k]! & MASK);
  const shared = a.filter((x) => b.includes(x));
  if (shared.length !== 2) return null;
  const ta = a.find((x) => !shared.includes(x))!, ub = b.find((x) => !shared.includes(x))!;
  return [ta, shared[0]!, ub, shared[1]!].map((i) => vert(w, i));
}

/** Twice the area of the 2D convex hull of points (exact), and twice the triangles' summed areas, projected along the normal's largest axis. */
function areas(pts: bigint[][], tris: bigint[][][], n: bigint[]): { hull: bigint; sum: bigint } {
  const abs = (x: bigint): bigint => (x < 0n ? -x : x);
  const ax = abs(n[0]!) >= abs(n[1]!) && abs(n[0]!) >= abs(n[2]!) ? 0 : abs(n[1]!) >= abs(n[2]!) ? 1 : 2;
  const [i, j] = ax === 0 ? [1, 2] : ax === 1 ? [2, 0] : [0, 1];
  const p2 = pts.map((p) => [p[i]!, p[j]!] as [bigint, bigint]).sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
  const cr = (o: [bigint, bigint], a: [bigint, bigint], b: [bigint, bigint]): bigint => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: [bigint, bigint][]): [bigint, bigint][] => {
    const h: [bigint, bigint][] = [];
    for (const p of list) {
      while (h.length >= 2 && cr(h[h.length - 2]!, h[h.length - 1]!, p) <= 0n) h.pop();
      h.push(p);
    }
    return h;
  };
  const lower = half(p2), upper = half(p2.slice().reverse());
  const hull = [...lower.slice(0, -1), ...upper.slice(0, -1)];
  let area = 0n;
  for (let k = 0; k < hull.length; k++) area += hull[k]![0] * hull[(k + 1) % hull.length]![1] - hull[(k + 1) % hull.length]![0] * hull[k]![1];
  let sum = 0n;
  for (const t of tris) sum += abs(cr([t[0]![i]!, t[0]![j]!], [t[1]![i]!, t[1]![j]!], [t[2]![i]!, t[2]![j]!]));
  return { hull: abs(area), sum };
}

/** Whether point p is inside the closed surface of triangles `list` (tris offsets): an odd count of crossings by a ray cast far away in a seeded direction. */
function insideByParity(b: ReturnType<World['arrays']>, list: Int32Array, p: number[], rnd: () => number): boolean {
  const seg = new Float64Array(7), one = new Int32Array(1);
  const d = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
  seg.set([p[0]!, p[1]!, p[2]!, p[0]! + 1000 * d[0]!, p[1]! + 1000 * d[1]!, p[2]! + 1000 * d[2]!]);
  let count = 0;
  for (const t of list) {
    one[0] = t;
    if (bvhHintHit(b, seg, one, 1) >= 0) count++;
  }
  return count % 2 === 1;
}

function checkPieces(w: World): { triangles: number; pieces: number; polygons: number; solids: number; largest: number } {
  const b = w.arrays();
  const tris = b.tris;
  const pieces = convexPieces(b.verts, tris, edgeNeighbours(tris));
  const count = pieces.start.length - 1;
  const seen = new Uint8Array(tris.length / 3);
  let solids = 0, largest = 0;
  const rnd = mulberry32(0x50119);
  for (let k = 0; k < count; k++) {
    const list = pieces.tris.subarray(pieces.start[k]!, pieces.start[k + 1]!);
    largest = Math.max(largest, list.length);
    expect(list.length).toBeLessThanOrEqual(MAX_PIECE_TRIS);
    for (const t of list) {
      expect(pieces.of[t / 3]).toBe(k);
      seen[t / 3]++;
    }
    const corners = [...list].map((t) => [0, 1, 2].map((j) => vert(w, tris[t + j]! & MASK)));
    const pts = corners.flat();
    // Closed: every edge on exactly two of the piece's triangles.
    const edges = new Map<string, number>();
    for (const t of list) for (let j = 0; j < 3; j++) {
      const a = tris[t + j]! & MASK, c = tris[t + ((j + 1) % 3)]! & MASK;
      const key = a < c ? `${a},${c}` : `${c},${a}`;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
    const closed = [...edges.values()].every((x) => x === 2);
    const n = cross(sub(pts[1]!, pts[0]!), sub(pts[2]!, pts[0]!));
    const flat = pts.every((p) => dot(n, sub(p, pts[0]!)) === 0n);
    // The solids come first (pieces.solids of them), then the polygons.
    expect(flat, `piece ${k} is ${k < pieces.solids ? 'a solid' : 'a polygon'}`).toBe(k >= pieces.solids);
    if (flat) {
      const { hull, sum } = areas(pts, corners, n);
      expect(sum, `piece ${k}: triangles cover their hull`).toBe(hull);
      continue;
    }
    expect(closed, `piece ${k} is not flat, so a solid: closed`).toBe(true);
    solids++;
    // Convex by ray parity: seeded points in its box, inside ones' midpoints inside too.
    const lo = [0, 1, 2].map((a) => Math.min(...[...list].flatMap((t) => [0, 1, 2].map((j) => b.verts[3 * (tris[t + j]! & MASK) + a]!))));
    const hi = [0, 1, 2].map((a) => Math.max(...[...list].flatMap((t) => [0, 1, 2].map((j) => b.verts[3 * (tris[t + j]! & MASK) + a]!))));
    const inside: number[][] = [];
    for (let s = 0; s < 60; s++) {
      const p = [0, 1, 2].map((a) => lo[a]! + (hi[a]! - lo[a]!) * (0.02 + 0.96 * rnd()));
      if (insideByParity(b, list, p, rnd)) inside.push(p);
    }
    expect(inside.length, `piece ${k}: seeded points inside`).toBeGreaterThan(0);
    for (let s = 0; s + 1 < inside.length; s++) {
      const m = [0, 1, 2].map((a) => (inside[s]![a]! + inside[s + 1]![a]!) / 2);
      expect(insideByParity(b, list, m, rnd), `piece ${k}: a midpoint of inside points`).toBe(true);
    }
  }
  // Every triangle in one piece: listed once, or an inner face named by a solid it lies in.
  for (let t = 0; t < tris.length; t += 3) {
    if (seen[t / 3] === 1) continue;
    expect(seen[t / 3], `triangle ${t} listed twice`).toBe(0);
    const k = pieces.of[t / 3]!;
    const list = new Set([...pieces.tris.subarray(pieces.start[k]!, pieces.start[k + 1]!)].flatMap((u) => [0, 1, 2].map((j) => tris[u + j]! & MASK)));
    for (let j = 0; j < 3; j++) expect(list.has(tris[t + j]! & MASK), `inner face ${t} on solid ${k}'s vertices`).toBe(true);
  }
  return { triangles: tris.length / 3, pieces: count, polygons: count - solids, solids, largest };
}

/** Whether segment seg meets piece `list` (a solid also when it lies wholly inside). */
function meets(b: ReturnType<World['arrays']>, list: Int32Array, seg: Float64Array, rnd: () => number): boolean {
  if (bvhHintHit(b, seg, list, list.length) >= 0) return true;
  return !isFlat(b, list) && insideByParity(b, list, [seg[0]!, seg[1]!, seg[2]!], rnd) && insideByParity(b, list, [seg[3]!, seg[4]!, seg[5]!], rnd);
}

function isFlat(b: ReturnType<World['arrays']>, list: Int32Array): boolean {
  const v = (t: number, j: number): number[] => [0, 1, 2].map((a) => b.verts[3 * (b.tris[t + j]! & MASK) + a]!);
  const [p, q, r] = [v(list[0]!, 0), v(list[0]!, 1), v(list[0]!, 2)];
  const u = [q[0]! - p[0]!, q[1]! - p[1]!, q[2]! - p[2]!], w = [r[0]! - p[0]!, r[1]! - p[1]!, r[2]! - p[2]!];
  const n = [u[1]! * w[2]! - u[2]! * w[1]!, u[2]! * w[0]! - u[0]! * w[2]!, u[0]! * w[1]! - u[1]! * w[0]!];
  return [...list].every((t) => [0, 1, 2].every((j) => { const x = v(t, j); return Math.abs(n[0]! * (x[0]! - p[0]!) + n[1]! * (x[1]! - p[1]!) + n[2]! * (x[2]! - p[2]!)) < 1e-6; }));
}

describe('fog of war: convex pieces', () => {
  it('groups the default and rooms levels into convex polygons and closed convex solids', async () => {
    const def = checkPieces(await loadWorld(DEFAULT_LEVEL_PATH));
    const rooms = checkPieces(roomsLevel());
    console.log(`[fog] pieces: default ${JSON.stringify(def)}, rooms ${JSON.stringify(rooms)}`);
    // Fewer pieces than triangles: walls split into strips join (default), boxes and abutting boxes are solids (rooms).
    expect(def.pieces).toBeLessThan(def.triangles / 2);
    expect(rooms.solids).toBeGreaterThan(30);
    expect(rooms.largest).toBeGreaterThan(12);
  });

  it('takes abutting boxes as one solid when their union is convex, and an L of boxes as none', () => {
    // Boxes on shared vertices (the level's packing welds equal positions), outward faces as server/level/rooms.ts.
    const build = (boxes: number[][]): { verts: Float32Array; tris: Int32Array } => {
      const pos: number[] = [], idx: number[] = [], at = new Map<string, number>();
      const v = (x: number, y: number, z: number): number => {
        const k = `${x},${y},${z}`;
        if (!at.has(k)) { at.set(k, pos.length / 3); pos.push(x, y, z); }
        return at.get(k)!;
      };
      for (const [x0, y0, z0, x1, y1, z1] of boxes) {
        const c = [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]].map(([x, y, z]) => v(x!, y!, z!));
        for (const i of [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5]) idx.push(c[i]!);
      }
      return { verts: new Float32Array(pos), tris: Int32Array.from(idx, (i) => i) };
    };
    const solidsOf = (m: { verts: Float32Array; tris: Int32Array }): number[] => {
      const p = convexPieces(m.verts, m.tris, edgeNeighbours(m.tris), 12, 64);
      const sizes: number[] = [];
      for (let k = 0; k + 1 < p.start.length; k++) {
        const n = p.start[k + 1]! - p.start[k]!;
        // Flat pieces of these boxes hold at most the two triangles of one face.
        if (n > 2) sizes.push(n);
      }
      return sizes;
    };
    const tris3 = (m: { verts: Float32Array; tris: Int32Array }): { verts: Float32Array; tris: Int32Array } => ({ verts: m.verts, tris: Int32Array.from(m.tris) });
    // A box alone; two abutting end to end (a wall with no doorway); an L of three (not convex, though closed and under the cap); two apart.
    expect(solidsOf(tris3(build([[0, 0, 0, 1, 2, 3]])))).toEqual([12]);
    expect(solidsOf(tris3(build([[0, 0, 0, 1, 2, 3], [0, 0, 3, 1, 2, 5]])))).toEqual([20]);
    expect(solidsOf(tris3(build([[0, 0, 0, 1, 2, 3], [0, 0, 3, 1, 2, 5], [1, 0, 3, 4, 2, 5]])))).toEqual([]);
    expect(solidsOf(tris3(build([[0, 0, 0, 1, 2, 3], [0, 0, 4, 1, 2, 5]])))).toEqual([12, 12]);
    // Wound inward, a box is the same solid: its planes face out all the same.
    const box = build([[0, 0, 0, 1, 2, 3]]);
    for (let t = 0; t < box.tris.length; t += 3) [box.tris[t + 1], box.tris[t + 2]] = [box.tris[t + 2]!, box.tris[t + 1]!];
    const p = convexPieces(box.verts, box.tris, edgeNeighbours(box.tris));
    expect(p.start.length - 1).toBe(1);
    expect(p.solids).toBe(1);
    const seg = new Float64Array(7);
    const through = (s: number[], e: number[]): boolean => { seg.set([...s, ...e]); return segmentMeetsPiece(p, 0, seg); };
    expect(through([-1, 1, 1.5], [2, 1, 1.5])).toBe(true);
    expect(through([-1, 2.01, 1.5], [2, 2.01, 1.5])).toBe(false);
    expect(through([0.5, 1, 1], [0.5, 1, 2])).toBe(true);
    expect(through([0.5, 1, -1], [0.5, 1, -0.01])).toBe(false);
  });

  it('a segment meets a piece by its planes exactly when it meets its triangles (or lies inside a solid)', async () => {
    for (const w of [roomsLevel(), await loadWorld(DEFAULT_LEVEL_PATH)]) {
      const b = w.arrays();
      const pieces = convexPieces(b.verts, b.tris, edgeNeighbours(b.tris));
      const rnd = mulberry32(0x91ece7);
      const seg = new Float64Array(7);
      let meetsCount = 0, checked = 0;
      for (let k = 0; k + 1 < pieces.start.length; k++) {
        const list = pieces.tris.subarray(pieces.start[k]!, pieces.start[k + 1]!);
        const coords = [...list].flatMap((t) => [0, 1, 2].map((j) => 3 * (b.tris[t + j]! & MASK)));
        const lo = [0, 1, 2].map((a) => Math.min(...coords.map((c) => b.verts[c + a]!)) - 1);
        const hi = [0, 1, 2].map((a) => Math.max(...coords.map((c) => b.verts[c + a]!)) + 1);
        for (let s = 0; s < 40; s++) {
          for (let a = 0; a < 6; a++) seg[a] = lo[a % 3]! + (hi[a % 3]! - lo[a % 3]!) * rnd();
          const byPlanes = segmentMeetsPiece(pieces, k, seg);
          expect(byPlanes, `piece ${k} (${list.length} triangles), segment ${[...seg.subarray(0, 6)].map((x) => x.toFixed(3))}`).toBe(meets(b, list, seg, rnd));
          if (byPlanes) meetsCount++;
          checked++;
        }
      }
      console.log(`[fog] pieces by planes: ${checked} segments, ${meetsCount} meeting their piece, all as the triangles say`);
      expect(meetsCount).toBeGreaterThan(checked / 20);
    }
  });

  for (const level of ['rooms', 'default'] as const) {
    it(`a family of segments between two chords whose outer lines meet one piece meets it everywhere (${level})`, async () => {
      const w = level === 'rooms' ? roomsLevel() : await loadWorld(DEFAULT_LEVEL_PATH);
      const b = w.arrays();
      const pieces = convexPieces(b.verts, b.tris, edgeNeighbours(b.tris));
      const rnd = mulberry32(level === 'rooms' ? 0x91ece5 : 0x91ece6);
      const seg = new Float64Array(7);
      const line = (a0: number[], a1: number[], b0: number[], b1: number[], s: number, t: number): void => {
        for (let k = 0; k < 3; k++) {
          seg[k] = a0[k]! + s * (a1[k]! - a0[k]!);
          seg[3 + k] = b0[k]! + t * (b1[k]! - b0[k]!);
        }
      };
      const span = level === 'rooms' ? 25 : 20;
      let families = 0, onPiece = 0, lines = 0, solidFamilies = 0;
      for (let f = 0; f < 1500; f++) {
        // Two chords across a random direction, up to 30 m apart, the same direction across (as ./rays builds them).
        const ax = -span + 2 * span * rnd(), az = -span + 2 * span * rnd(), ang = 2 * Math.PI * rnd(), d = 2 + 28 * rnd();
        const fx = Math.cos(ang), fz = Math.sin(ang), ux = -fz, uz = fx, ha = 0.2 + 2 * rnd(), hb = 0.2 + 2 * rnd();
        const ya = 0.5 + 2 * rnd(), yb = 0.2 + 2 * rnd(), bx = ax + d * fx, bz = az + d * fz;
        const a0 = [ax - ha * ux, ya, az - ha * uz], a1 = [ax + ha * ux, ya, az + ha * uz];
        const b0 = [bx - hb * ux, yb, bz - hb * uz], b1 = [bx + hb * ux, yb, bz + hb * uz];
        families++;
        line(a0, a1, b0, b1, 0, 0);
        if (!w.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!)) continue;
        // Each piece on the first outer line: the other outer line on it too?
        for (let k = 0; k + 1 < pieces.start.length; k++) {
          const list = pieces.tris.subarray(pieces.start[k]!, pieces.start[k + 1]!);
          line(a0, a1, b0, b1, 0, 0);
          if (bvhHintHit(b, seg, list, list.length) < 0) continue;
          line(a0, a1, b0, b1, 1, 1);
          if (bvhHintHit(b, seg, list, list.length) < 0) continue;
          onPiece++;
          if (!isFlat(b, list)) solidFamilies++;
          for (let i = 0; i <= 12; i++) {
            for (let j = 0; j <= 12; j++) {
              line(a0, a1, b0, b1, i / 12, j / 12);
              lines++;
              expect(meets(b, list, seg, rnd), `family ${f}, piece ${k}, line ${i},${j}`).toBe(true);
            }
          }
        }
      }
      console.log(`[fog] pieces (${level}): ${families} families, ${onPiece} with both outer lines on one piece (${solidFamilies} on a solid), ${lines} lines between checked`);
      expect(onPiece).toBeGreaterThan(50);
      if (level === 'rooms') expect(solidFamilies).toBeGreaterThan(20);
    });
  }
});
