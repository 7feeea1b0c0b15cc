/**
 * Convex pieces (shared/fog/pieces.ts) and the shortcut built on them (shared/fog/cast.ts): on the
 * default and rooms levels every partner makes an exactly coplanar convex quad with its triangle (a
 * second method: the quad's four corners in order turn the same way), and for seeded families of
 * segments between two chords whose two outer lines meet one piece, every line between (scanned
 * densely) meets it too, as the separating-plane argument says.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../server/level/gltf';
import { roomsLevel } from '../server/level/rooms';
import { bvhHintHit } from '../shared/bvh/traverse';
import { edgeNeighbours } from '../shared/fog/lineMemory';
import { convexPartners } from '../shared/fog/pieces';
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

function checkPartners(w: World): { triangles: number; partnered: number } {
  const { verts, tris } = w.arrays();
  const partners = convexPartners(verts, tris, edgeNeighbours(tris));
  let partnered = 0;
  for (let t = 0; t < tris.length; t += 3) {
    const u = partners[t / 3]!;
    if (u < 0) continue;
    partnered++;
    const q = quad(w, t, u);
    expect(q).not.toBeNull();
    const n = cross(sub(q![1]!, q![0]!), sub(q![3]!, q![0]!));
    // Coplanar: every corner in the plane of the first three.
    for (const c of q!) expect(dot(n, sub(c, q![0]!)) === 0n).toBe(true);
    // Convex: the turn at each corner has the same sign (or none: three in a line).
    const turns = [0, 1, 2, 3].map((i) => dot(n, cross(sub(q![(i + 1) % 4]!, q![i]!), sub(q![(i + 2) % 4]!, q![(i + 1) % 4]!))));
    expect(turns.every((s) => s >= 0n) || turns.every((s) => s <= 0n), `quad ${t} ${u}: turns ${turns}`).toBe(true);
  }
  return { triangles: tris.length / 3, partnered };
}

describe('fog of war: convex pieces', () => {
  it('pairs triangles into exactly coplanar convex quads on the default and rooms levels', async () => {
    const def = checkPartners(await loadWorld(DEFAULT_LEVEL_PATH));
    const rooms = checkPartners(roomsLevel());
    console.log(`[fog] pieces: default ${JSON.stringify(def)}, rooms ${JSON.stringify(rooms)}`);
    expect(def.partnered).toBeGreaterThan(def.triangles / 4);
    expect(rooms.partnered).toBeGreaterThan(rooms.triangles / 2);
  });

  it('a family of segments between two chords whose outer lines meet one piece meets it everywhere', () => {
    const w = roomsLevel();
    const b = w.arrays();
    const partners = convexPartners(b.verts, b.tris, edgeNeighbours(b.tris));
    const rnd = mulberry32(0x91ece5);
    const piece = new Int32Array(2), seg = new Float64Array(7);
    const line = (a0: number[], a1: number[], b0: number[], b1: number[], s: number, t: number): void => {
      for (let k = 0; k < 3; k++) {
        seg[k] = a0[k]! + s * (a1[k]! - a0[k]!);
        seg[3 + k] = b0[k]! + t * (b1[k]! - b0[k]!);
      }
    };
    let families = 0, onPiece = 0, lines = 0;
    for (let f = 0; f < 1500; f++) {
      // Two chords across a random direction, up to 30 m apart, the same direction across (as ./rays builds them).
      const ax = -25 + 50 * rnd(), az = -25 + 50 * rnd(), ang = 2 * Math.PI * rnd(), d = 2 + 28 * rnd();
      const fx = Math.cos(ang), fz = Math.sin(ang), ux = -fz, uz = fx, ha = 0.2 + 2 * rnd(), hb = 0.2 + 2 * rnd();
      const ya = 0.5 + 2 * rnd(), yb = 0.2 + 2 * rnd(), bx = ax + d * fx, bz = az + d * fz;
      const a0 = [ax - ha * ux, ya, az - ha * uz], a1 = [ax + ha * ux, ya, az + ha * uz];
      const b0 = [bx - hb * ux, yb, bz - hb * uz], b1 = [bx + hb * ux, yb, bz + hb * uz];
      families++;
      line(a0, a1, b0, b1, 0, 0);
      if (!w.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!)) continue;
      // Each triangle on the first outer line, as a piece with its partner: the other outer line on it too?
      for (let t = 0; t < b.tris.length; t += 3) {
        piece[0] = t; piece[1] = partners[t / 3]!;
        line(a0, a1, b0, b1, 0, 0);
        if (bvhHintHit(b, seg, piece, 2) < 0) continue;
        line(a0, a1, b0, b1, 1, 1);
        if (bvhHintHit(b, seg, piece, 2) < 0) continue;
        onPiece++;
        for (let i = 0; i <= 12; i++) {
          for (let j = 0; j <= 12; j++) {
            line(a0, a1, b0, b1, i / 12, j / 12);
            lines++;
            expect(bvhHintHit(b, seg, piece, 2), `family ${f}, piece ${t}/${piece[1]}, line ${i},${j}`).toBeGreaterThanOrEqual(0);
          }
        }
      }
    }
    console.log(`[fog] pieces: ${families} families, ${onPiece} with both outer lines on one piece, ${lines} lines between checked`);
    expect(onPiece).toBeGreaterThan(50);
  });
});
