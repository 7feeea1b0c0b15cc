// The BVH build's own arithmetic against plain float arithmetic. The build takes the triangle boxes
// and the bins' bounds on integer keys of the float32 bits (shared/bvh/bounds and ./sah): here the
// boxes must equal Math.min / Math.max of the corners bit for bit (-0 and +0 included), a corner that
// is not finite must be refused with its triangle, every node's box must be exactly the union of its
// triangles' boxes (the bins are exact unions, so a node box is tight, not merely containing), and
// binning on keys must give the same tree as binning on float comparisons (keyBinningBelow: 0).
// Soups mix negative, zero (both signs), denormal and large coordinates, and sizes from a few
// triangles to 20,000 so nodes of every size (and both binning paths) are built.
import { describe, expect, it } from 'vitest';
import { buildBvh, NODE_WORDS } from '../shared/bvh/build';
import { triangleBoxes } from '../shared/bvh/bounds';
import { mulberry32, type Uniform } from '../shared/util/prng';

/** A float32 coordinate: mostly ordinary, sometimes a special value the key order must handle. */
function coord(r: Uniform): number {
  const u = r();
  if (u < 0.05) return 0;
  if (u < 0.1) return -0;
  if (u < 0.13) return (r() < 0.5 ? -1 : 1) * 1e-42; // denormal
  if (u < 0.16) return (r() < 0.5 ? -1 : 1) * 3e38;
  return Math.fround((r() - 0.5) * 200);
}

function soup(r: Uniform, tris: number, clustered: boolean): { positions: Float32Array; indices: Uint32Array } {
  const positions = new Float32Array(tris * 9);
  for (let t = 0; t < tris; t++) {
    // Clustered soups: small triangles around random centres, so nodes split many levels deep.
    const cx = clustered ? (r() - 0.5) * 1000 : 0, cy = clustered ? (r() - 0.5) * 1000 : 0, cz = clustered ? (r() - 0.5) * 1000 : 0;
    for (let v = 0; v < 3; v++) {
      const o = t * 9 + v * 3;
      if (clustered) {
        positions[o] = cx + (r() - 0.5) * 3; positions[o + 1] = cy + (r() - 0.5) * 3; positions[o + 2] = cz + (r() - 0.5) * 3;
      } else {
        positions[o] = coord(r); positions[o + 1] = coord(r); positions[o + 2] = coord(r);
      }
    }
  }
  const indices = new Uint32Array(tris * 3);
  for (let i = 0; i < indices.length; i++) indices[i] = i;
  return { positions, indices };
}

describe('BVH build arithmetic', () => {
  it('triangle boxes equal Math.min / Math.max of the corners, bit for bit', () => {
    const r = mulberry32(0xb0c5);
    const { positions, indices } = soup(r, 20_000, false);
    const { boxes } = triangleBoxes(positions, indices);
    let mismatches = 0;
    for (let t = 0; t < 20_000; t++) {
      for (let k = 0; k < 3; k++) {
        const a = positions[t * 9 + k], b = positions[t * 9 + 3 + k], c = positions[t * 9 + 6 + k];
        if (!Object.is(boxes[t * 6 + k], Math.min(a, b, c))) mismatches++;
        if (!Object.is(boxes[t * 6 + 3 + k], Math.max(a, b, c))) mismatches++;
      }
    }
    expect(mismatches).toBe(0);
  });

  it('refuses a corner that is not finite, naming its triangle, in any of the nine slots', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (let slot = 0; slot < 9; slot++) {
        const positions = new Float32Array(27).fill(1);
        positions[9 + slot] = bad;
        const indices = new Uint32Array([0, 1, 2, 3, 4, 5, 6, 7, 8]);
        expect(() => buildBvh(positions, indices)).toThrow(/triangle 1 has a coordinate that is not finite/);
      }
    }
  });

  it('binning on keys builds the same tree as binning on float comparisons', () => {
    const r = mulberry32(0x7e3);
    for (const [tris, clustered] of [[40, false], [3_000, false], [20_000, true]] as const) {
      const { positions, indices } = soup(r, tris, clustered);
      const keys = buildBvh(positions, indices);
      const floats = buildBvh(positions, indices, { keyBinningBelow: 0 });
      expect(keys.nodeCount).toBe(floats.nodeCount);
      expect(Array.from(keys.order)).toEqual(Array.from(floats.order));
      // Node words: ints as bits, boxes as numbers (a -0 and a +0 bound may differ in sign: the float
      // path keeps whichever of equal values it met first, the keys always the -0 for a minimum).
      const ki = new Int32Array(keys.nodes.buffer, keys.nodes.byteOffset, keys.nodeCount * NODE_WORDS);
      const fi = new Int32Array(floats.nodes.buffer, floats.nodes.byteOffset, floats.nodeCount * NODE_WORDS);
      const kf = new Float32Array(ki.buffer, ki.byteOffset, ki.length);
      const ff = new Float32Array(fi.buffer, fi.byteOffset, fi.length);
      let differ = 0;
      for (let i = 0; i < ki.length; i++) {
        if (i % NODE_WORDS < 6 ? kf[i] !== ff[i] : ki[i] !== fi[i]) differ++;
      }
      expect(differ, `${tris} triangles`).toBe(0);
    }
  });

  it('every node box is exactly the union of its triangles\' boxes', () => {
    const r = mulberry32(0x5a4);
    for (const [tris, clustered] of [[5, false], [40, false], [700, false], [20_000, false], [20_000, true]] as const) {
      const { positions, indices } = soup(r, tris, clustered);
      const { boxes } = triangleBoxes(positions, indices);
      const built = buildBvh(positions, indices);
      const nf = new Float32Array(built.nodes.buffer, built.nodes.byteOffset, built.nodeCount * NODE_WORDS);
      const ni = new Int32Array(built.nodes.buffer, built.nodes.byteOffset, built.nodeCount * NODE_WORDS);
      // Subtree unions, children before parents (children always have larger indices).
      const u = new Float64Array(built.nodeCount * 6);
      let wrong = 0;
      for (let node = built.nodeCount - 1; node >= 0; node--) {
        const w = node * NODE_WORDS;
        const o = node * 6;
        u.fill(Infinity, o, o + 3);
        u.fill(-Infinity, o + 3, o + 6);
        if (ni[w + 7] > 0) {
          for (let i = ni[w + 6]; i < ni[w + 6] + ni[w + 7]; i++) {
            const b = built.order[i] * 6;
            for (let k = 0; k < 3; k++) {
              u[o + k] = Math.min(u[o + k], boxes[b + k]);
              u[o + 3 + k] = Math.max(u[o + 3 + k], boxes[b + 3 + k]);
            }
          }
        } else {
          for (const c of [ni[w + 6], ni[w + 6] + 1]) {
            for (let k = 0; k < 3; k++) {
              u[o + k] = Math.min(u[o + k], u[c * 6 + k]);
              u[o + 3 + k] = Math.max(u[o + 3 + k], u[c * 6 + 3 + k]);
            }
          }
        }
        // The root's box is the exact double bounds rounded outward, equal for float32 input.
        for (let k = 0; k < 6; k++) if (nf[w + k] !== u[o + k]) wrong++;
      }
      expect(wrong, `${tris} triangles${clustered ? ', clustered' : ''}`).toBe(0);
    }
  });
});
