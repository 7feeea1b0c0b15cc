// World bytes from a file or the network are untrusted: World.fromBuffer checks them in full and
// refuses them with a message that names what is wrong. Each kind of corruption below is made on
// purpose (the structural ones with the content hash recomputed, as a forger would, so the check
// that fires is the structural one), and a property test flips random bytes: the bytes are refused
// or they load a world whose answers equal the original's, never a silently wrong world.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { World, createWorldHit } from '../shared/world/world';
import { checkHeader, checkPreamble, sealWorldBytes, type WorldLayout } from '../shared/world/bytes';
import { NODE_BYTES } from '../shared/bvh/build';
import { loadLevelMesh } from '../server/level/gltf';
import { mulberry32 } from '../shared/util/prng';
import { icosphere } from './helpers/icosphere';
import { assetPath, type MeshArrays } from './helpers/glb';

/** A small level: an icosphere and a seeded soup around it (a few hundred nodes). */
function level(): MeshArrays {
  const ico = icosphere(2, 3);
  const rng = mulberry32(77);
  const n = 300;
  const pos = Array.from(ico.positions);
  const idx = Array.from(ico.indices);
  for (let t = 0; t < n; t++) {
    const base = pos.length / 3;
    const cx = rng() * 20 - 10, cy = rng() * 20 - 10, cz = rng() * 20 - 10;
    for (let k = 0; k < 3; k++) pos.push(Math.fround(cx + rng() - 0.5), Math.fround(cy + rng() - 0.5), Math.fround(cz + rng() - 0.5));
    idx.push(base, base + 1, base + 2);
  }
  return { positions: new Float64Array(pos.map((v) => Math.fround(v))), indices: new Uint32Array(idx) };
}

const MESH = level();
const RANGES = [
  { start: 0, count: 320, node: 'ball', material: 'stone' },
  { start: 320, count: 300, node: 'debris', material: 'metal' },
];
const WORLD = World.fromTriangles(MESH.positions, MESH.indices, RANGES);
const GOOD = WORLD.toBuffer();
checkPreamble(GOOD);
const LAYOUT: WorldLayout = checkHeader(GOOD);

/** Seeded segments through the level's bounds. */
function segments(count: number, seed: number): Float64Array {
  const rng = mulberry32(seed);
  const s = new Float64Array(count * 6);
  for (let i = 0; i < s.length; i++) s[i] = rng() * 30 - 15;
  return s;
}
const SEGS = segments(300, 5);

/** Every first-hit answer (hit, t bits, point, triangle, surface) and any-hit answer, as one string. */
function answers(w: World): string {
  const h = createWorldHit();
  const out: string[] = [];
  for (let i = 0; i < SEGS.length; i += 6) {
    const hit = w.firstHit(h, SEGS[i], SEGS[i + 1], SEGS[i + 2], SEGS[i + 3], SEGS[i + 4], SEGS[i + 5]);
    const any = w.anyHit(SEGS[i], SEGS[i + 1], SEGS[i + 2], SEGS[i + 3], SEGS[i + 4], SEGS[i + 5]);
    out.push(hit ? `${h.t} ${h.x} ${h.y} ${h.z} ${h.triangle} ${h.surface} ${any}` : `miss ${any}`);
  }
  return out.join('\n');
}
const GOOD_ANSWERS = answers(WORLD);

/** A copy of the good bytes changed by `mutate`, with the content hash recomputed (a forger's bytes). */
function forged(mutate: (dv: DataView, l: WorldLayout) => void): ArrayBuffer {
  const b = GOOD.slice(0);
  mutate(new DataView(b), LAYOUT);
  sealWorldBytes(b);
  return b;
}

const nodeOff = (i: number) => LAYOUT.nodesOff + i * NODE_BYTES;
/** First node that is a leaf (count word > 0) / inner node, searching from `from`. */
function findNode(dv: DataView, leaf: boolean, from = 0): number {
  for (let i = from; i < LAYOUT.nodeCount; i++) if ((dv.getInt32(nodeOff(i) + 28, true) > 0) === leaf) return i;
  throw new Error('no such node');
}
/** Original triangle index of leaf slot `t` (one byte in the top of each of its three words). */
function getOriginal(dv: DataView, t: number): number {
  let o = 0;
  for (let j = 0; j < 3; j++) o |= dv.getUint8(LAYOUT.trisOff + t * 12 + j * 4 + 3) << (8 * j);
  return o;
}
function setOriginal(dv: DataView, t: number, o: number): void {
  for (let j = 0; j < 3; j++) dv.setUint8(LAYOUT.trisOff + t * 12 + j * 4 + 3, (o >>> (8 * j)) & 0xff);
}
/** Parent of node `c`. */
function parentOf(dv: DataView, c: number): number {
  for (let i = 0; i < LAYOUT.nodeCount; i++) {
    const a = dv.getInt32(nodeOff(i) + 24, true);
    if (dv.getInt32(nodeOff(i) + 28, true) < 0 && (a === c || a + 1 === c)) return i;
  }
  throw new Error('root has no parent');
}

describe('World.fromBuffer refuses corrupt bytes, saying what is wrong', () => {
  it('the good bytes load, with the same hash and answers; the hash is the header\'s and covers the bytes', () => {
    const w = World.fromBuffer(GOOD);
    expect(w.hash).toBe(WORLD.hash);
    expect(answers(w)).toBe(GOOD_ANSWERS);
    expect(World.fromBuffer(GOOD, { expectedHash: WORLD.hash }).hash).toBe(WORLD.hash);
    expect(() => World.fromBuffer(GOOD, { expectedHash: 'XYZ' })).toThrow(/expectedHash must be 16 lowercase hex digits/);
  });

  it('wrong magic, older and newer versions', () => {
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(0, 0x12345678, true)))).toThrow(/bad magic 0x12345678: this is not a world buffer.*Rebuild the world/);
    for (const old of [1, 2]) {
      expect(() => World.fromBuffer(forged((dv) => dv.setUint32(4, old, true)))).toThrow(new RegExp(`version ${old} is an older layout; this build reads version 3 only\\. Rebuild the world from the level file`));
    }
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(4, 99, true)))).toThrow(/version 99 was written by a newer build/);
  });

  it('truncated or padded buffers', () => {
    expect(() => World.fromBuffer(GOOD.slice(0, 40))).toThrow(/40 bytes, a world has at least 96 \(truncated\?\)/);
    expect(() => World.fromBuffer(GOOD.slice(0, GOOD.byteLength - 4))).toThrow(new RegExp(`need ${GOOD.byteLength} bytes, the buffer has ${GOOD.byteLength - 4} \\(truncated or padded`));
    const padded = new Uint8Array(GOOD.byteLength + 4);
    padded.set(new Uint8Array(GOOD));
    expect(() => World.fromBuffer(padded)).toThrow(/truncated or padded/);
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(20, 0, true)))).toThrow(/triangleCount is 0|impossible|need/);
    // Huge counts are compared in doubles: no 32-bit wrap-around can make them fit the length.
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(32, 0xffffffff, true)))).toThrow(/4294967295 name bytes\) need \d+ bytes/);
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(28, 0x20000000, true)))).toThrow(/536870912 surfaces/);
  });

  it('a flipped byte anywhere after the hash is a content hash mismatch; another world is not the expected one', () => {
    for (const at of [16 + 27, LAYOUT.nodesOff + 3, LAYOUT.trisOff + 100, GOOD.byteLength - 1]) {
      const b = new Uint8Array(GOOD.slice(0));
      b[at] ^= 0x10;
      expect(() => World.fromBuffer(b)).toThrow(/content hash mismatch: the header says [0-9a-f]{16}, the bytes hash to [0-9a-f]{16} \(damaged or altered/);
    }
    const other = World.fromTriangles(MESH.positions.map((v, i) => (i === 0 ? v + 1 : v)), MESH.indices, RANGES);
    expect(() => World.fromBuffer(other.toBuffer(), { expectedHash: WORLD.hash })).toThrow(new RegExp(`world hash ${other.hash} is not the expected ${WORLD.hash}`));
  });

  it('a NaN or infinite node box', () => {
    expect(() => World.fromBuffer(forged((dv) => dv.setFloat32(nodeOff(5) + 16, NaN, true)))).toThrow(/node 5: box maxY = NaN is not finite/);
    expect(() => World.fromBuffer(forged((dv) => dv.setFloat32(nodeOff(0), -Infinity, true)))).toThrow(/node 0: box minX = -Infinity is not finite/);
    expect(() => World.fromBuffer(forged((dv) => dv.setFloat32(nodeOff(3) + 8, 1e30, true)))).toThrow(/node 3: box minZ = 1\.00\d*e\+30 > maxZ/);
  });

  it('a moved root box, and a child box outside its parent', () => {
    // Shift the root box 100 along x: its children now stick out of it.
    expect(() => World.fromBuffer(forged((dv) => {
      dv.setFloat32(nodeOff(0), dv.getFloat32(nodeOff(0), true) + 100, true);
      dv.setFloat32(nodeOff(0) + 12, dv.getFloat32(nodeOff(0) + 12, true) + 100, true);
    }))).toThrow(/node 1: box minX = .* is outside its parent node 0 \(minX = /);
    // Grow a leaf's box 1 past its parent's along y.
    expect(() => World.fromBuffer(forged((dv) => {
      const leaf = findNode(dv, true, 1);
      const p = parentOf(dv, leaf);
      dv.setFloat32(nodeOff(leaf) + 16, dv.getFloat32(nodeOff(p) + 16, true) + 1, true);
    }))).toThrow(/node \d+: box maxY = .* is outside its parent node \d+ \(maxY = /);
    // Shrink a leaf's box (still inside its parent) so its triangles stick out of it.
    expect(() => World.fromBuffer(forged((dv) => {
      const leaf = findNode(dv, true, 1);
      const mid = (dv.getFloat32(nodeOff(leaf), true) + dv.getFloat32(nodeOff(leaf) + 12, true)) / 2;
      dv.setFloat32(nodeOff(leaf), mid, true);
      dv.setFloat32(nodeOff(leaf) + 12, mid, true);
    }))).toThrow(/triangle slot \d+: corner [abc] \(.*\) is outside its leaf node \d+'s box/);
  });

  it('indices and counts out of range', () => {
    const leafOf = (dv: DataView) => findNode(dv, true, 1);
    expect(() => World.fromBuffer(forged((dv) => dv.setInt32(nodeOff(leafOf(dv)) + 24, 1e6, true)))).toThrow(/node \d+: leaf range \[1000000, \d+\) runs outside the 620 triangles/);
    expect(() => World.fromBuffer(forged((dv) => dv.setInt32(nodeOff(0) + 24, 0, true)))).toThrow(/node 0: children 0 and 1 are not after it/);
    expect(() => World.fromBuffer(forged((dv) => dv.setInt32(nodeOff(0) + 24, LAYOUT.nodeCount - 1, true)))).toThrow(/node 0: children \d+ and \d+ are not after it inside the \d+ nodes/);
    expect(() => World.fromBuffer(forged((dv) => dv.setInt32(nodeOff(0) + 28, -7, true)))).toThrow(/node 0: count\/axis word -7 is neither/);
    // Two inner nodes pointing at the same children.
    expect(() => World.fromBuffer(forged((dv) => {
      const a = findNode(dv, false, 1);
      const b = findNode(dv, false, a + 1);
      dv.setInt32(nodeOff(b) + 24, dv.getInt32(nodeOff(a) + 24, true), true);
    }))).toThrow(/node \d+ has two parents|not after it/);
    // A leaf that gives up its last triangle: that slot is in no leaf.
    expect(() => World.fromBuffer(forged((dv) => {
      let leaf = 1;
      while (dv.getInt32(nodeOff(leaf) + 28, true) < 2) leaf++;
      dv.setInt32(nodeOff(leaf) + 28, dv.getInt32(nodeOff(leaf) + 28, true) - 1, true);
    }))).toThrow(/triangle slot \d+ is in no leaf \(the leaves hold 619 of 620 triangles\): it could never be hit/);
    // A leaf that also claims its neighbour's first triangle.
    expect(() => World.fromBuffer(forged((dv) => {
      let leaf = 1;
      while (dv.getInt32(nodeOff(leaf) + 28, true) < 1 || dv.getInt32(nodeOff(leaf) + 24, true) + dv.getInt32(nodeOff(leaf) + 28, true) >= 620) leaf++;
      dv.setInt32(nodeOff(leaf) + 28, dv.getInt32(nodeOff(leaf) + 28, true) + 1, true);
    }))).toThrow(/overlaps another leaf at triangle slot \d+/);
    expect(() => World.fromBuffer(forged((dv) => setOriginal(dv, 2, 620)))).toThrow(/triangle slot 2: original index 620 is out of range \(620 triangles\)/);
    expect(() => World.fromBuffer(forged((dv) => setOriginal(dv, 2, getOriginal(dv, 0))))).toThrow(/triangle slot (0|2): original index \d+ appears twice/);
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(LAYOUT.trisOff + 4, (dv.getUint32(LAYOUT.trisOff + 4, true) & 0xff000000) | LAYOUT.vertexCount, true))))
      .toThrow(new RegExp(`triangle slot 0: corner b vertex index ${LAYOUT.vertexCount} is out of range \\(${LAYOUT.vertexCount} vertices\\)`));
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(36, LAYOUT.depth + 1, true)))).toThrow(/header: depth \d+ but the tree has \d+ levels/);
    expect(() => World.fromBuffer(forged((dv) => dv.setUint32(LAYOUT.surfOff + 12, 1000, true)))).toThrow(/surface 1: range \[320, 1320\) overlaps the previous one or runs past the 620 triangles/);
  });

  it('a vertex that is not finite, and header bounds that are not the vertices\'', () => {
    expect(() => World.fromBuffer(forged((dv) => dv.setFloat32(LAYOUT.vertsOff + 12 * 7 + 4, NaN, true)))).toThrow(/vertex 7: y = NaN is not finite/);
    expect(() => World.fromBuffer(forged((dv) => dv.setFloat64(40, -1000, true)))).toThrow(/header bounds minX = -1000, the vertices' is/);
    expect(() => World.fromBuffer(forged((dv) => dv.setFloat64(48, NaN, true)))).toThrow(/header bounds minY = NaN is not finite/);
  });

  it('valid bytes of both shipped levels load, with the same hash and answers', async () => {
    for (const file of ['collision-world.glb', 'bistro-collision.glb']) {
      const mesh = await loadLevelMesh(assetPath(file));
      const w = World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges);
      const loaded = World.fromBuffer(new Uint8Array(w.toBuffer()), { expectedHash: w.hash });
      expect([loaded.hash, loaded.triangleCount, loaded.nodeCount, loaded.depth]).toEqual([w.hash, w.triangleCount, w.nodeCount, w.depth]);
      const b = w.bounds(new Float64Array(6));
      const h1 = createWorldHit();
      const h2 = createWorldHit();
      const rng = mulberry32(3);
      for (let i = 0; i < 2000; i++) {
        const s: number[] = [];
        for (let k = 0; k < 6; k++) s.push(b[k % 3] + rng() * (b[(k % 3) + 3] - b[k % 3]));
        const x = w.firstHit(h1, s[0], s[1], s[2], s[3], s[4], s[5]);
        expect(loaded.firstHit(h2, s[0], s[1], s[2], s[3], s[4], s[5])).toBe(x);
        if (x) expect([h2.t, h2.x, h2.y, h2.z, h2.triangle, h2.surface]).toEqual([h1.t, h1.x, h1.y, h1.z, h1.triangle, h1.surface]);
      }
    }
  }, 60_000);
});

describe('random byte flips: refused, or the same answers (never a silently wrong world)', () => {
  const flips = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 });

  it('anywhere in the bytes, hash left as it was', () => {
    let refused = 0;
    fc.assert(
      fc.property(flips, (fl) => {
        const b = new Uint8Array(GOOD.slice(0));
        for (const [at, x] of fl) b[at % b.length] ^= x;
        let w: World;
        try {
          w = World.fromBuffer(b);
        } catch (e) {
          expect((e as Error).message).toMatch(/^World\.fromBuffer: .+\. Rebuild the world/);
          refused++;
          return;
        }
        expect(answers(w)).toBe(GOOD_ANSWERS);
      }),
      { seed: 0xf11b, numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(250);
  });

  it('in the nodes, hash recomputed (a forger): the structural checks alone refuse every wrong tree', () => {
    let refused = 0;
    let loaded = 0;
    fc.assert(
      fc.property(flips, (fl) => {
        const b = new Uint8Array(GOOD.slice(0));
        const span = LAYOUT.nodeCount * NODE_BYTES;
        for (const [at, x] of fl) b[LAYOUT.nodesOff + (at % span)] ^= x;
        sealWorldBytes(b.buffer);
        let w: World;
        try {
          w = World.fromBuffer(b);
        } catch (e) {
          expect((e as Error).message).toMatch(/^World\.fromBuffer: (node|triangle slot|header: depth|\d+ node).+\. Rebuild the world/);
          refused++;
          return;
        }
        loaded++;
        // Grown boxes (still inside their parents) and swapped split-axis hints are harmless.
        expect(answers(w)).toBe(GOOD_ANSWERS);
      }),
      { seed: 0xb0c5, numRuns: 400 },
    );
    expect(refused).toBeGreaterThan(100);
    expect(loaded).toBeGreaterThan(10);
  });
});
