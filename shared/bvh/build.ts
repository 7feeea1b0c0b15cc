/**
 * Binned-SAH bounding volume hierarchy builder over a triangle soup. The output is the compact node
 * array the traversal in ./traverse reads, plus the leaf order of the triangles (so their corners can
 * be copied into one flat array that a leaf walks linearly).
 *
 * Node layout, 32 bytes per node (little-endian, as every typed array on supported hosts):
 *   float32 minX, minY, minZ, maxX, maxY, maxZ   bounds, rounded outward from the double corners,
 *                                                so the box always contains its triangles;
 *   int32   a                                    leaf: first triangle (leaf order); inner: left child
 *                                                (the right child is a + 1: siblings are adjacent);
 *   int32   count                                leaf: number of triangles (>= 1); inner: -1 - axis,
 *                                                the split axis (0 x, 1 y, 2 z): the left child holds
 *                                                the smaller centroids along it, so a traversal
 *                                                visits the child on the segment's near side first.
 * Node 0 is the root. A soup of n triangles gives at most 2n - 1 nodes.
 *
 * The build, in three files as its three steps: per-triangle boxes (./bounds: float32, rounded
 * outward, so every union of them is already the node's final conservative box; centroids are box
 * centres, used doubled as min + max), then top-down with an explicit job stack (this file): up to 16
 * bins over the centroid bounds along the longest centroid axis with the SAH cost swept from both
 * ends (./sah, Wald 2007; below 4,096 records on integer keys of the float32 bits, which V8 runs
 * without mispredicted branches), and the in-place partition of the records that also gathers the
 * children's centroid bounds (./partition); the children's boxes come from the bins. Leaves stop at
 * maxLeaf triangles or when
 * no split is cheaper than the leaf (a leaf candidate whose summed triangle box areas already price
 * every split out is settled without binning); a node SAH cannot split (all centroids equal) is
 * halved by position so leaves stay small (its axis word is then only a visiting-order hint).
 * Deterministic: same input, same bytes. Where the host runs WebAssembly SIMD, the same steps run on
 * the kernels of ./wasm (same tree, byte for byte; ./wasm/kernel says why); this file is the plain
 * JavaScript path and the reference.
 */

import { f32Down, f32Up, triangleBoxes } from './bounds';
import { BINS, binnedSah, createSahScratch, KEY_BINNING_BELOW, splitBoxes } from './sah';
import { halveRecords, partitionRecords } from './partition';
import { kernelOrder, stageRecords } from './wasm/kernel';

export { f32Down, f32Up } from './bounds';

export const NODE_BYTES = 32;
/** Floats per node in a Float32Array view (and int32 words in an Int32Array view). */
export const NODE_WORDS = 8;
/** Leaves hold at most this many triangles. */
export const MAX_LEAF = 8;
/** Nodes this small become leaves without evaluating a split. */
const FORCE_LEAF = 2;
/** Bin counts for small nodes: their fixed cost (clearing and sweeping bins) would dominate. */
const SMALL1 = 16;
const SMALL2 = 64;
const BINS_SMALL1 = 6;
const BINS_SMALL2 = 10;

export interface BvhBuildOptions {
  /** Largest leaf (default MAX_LEAF). */
  maxLeaf?: number;
  /** SAH cost of visiting a node relative to one triangle test (default 2, tuned on the two levels). */
  traversalCost?: number;
  /**
   * Nodes under this many records are binned on integer keys (default KEY_BINNING_BELOW, see ./sah);
   * the tree is the same whatever it is (tests compare 0, all floats, with the default).
   */
  keyBinningBelow?: number;
  /**
   * Run the hot loops in the WebAssembly kernels (./wasm) when the host can (default true); false
   * runs everything in JavaScript. The tree is the same bytes either way.
   */
  wasm?: boolean;
}

export interface BvhBuildResult {
  /**
   * nodeCount * NODE_BYTES bytes in the layout above: a view of the start of the build's own node
   * buffer (sized for the 2n - 1 worst case), not a copy; World copies it into its bytes.
   */
  nodes: Uint8Array;
  nodeCount: number;
  /** Levels in the tree (root alone = 1), tracked during the build (sizes the traversal stack). */
  depth: number;
  /** order[i] = original index of the i-th triangle in leaf order. */
  order: Uint32Array;
  /** Bounds of all triangles (doubles, exact): min xyz, max xyz. */
  bounds: Float64Array;
}

/**
 * Builds the hierarchy. `positions` holds xyz per vertex, `indices` three per triangle (in range:
 * World.fromTriangles checks). Throws if a triangle has a coordinate that is not finite.
 */
export function buildBvh(
  positions: Float32Array | Float64Array,
  indices: Uint32Array,
  options: BvhBuildOptions = {},
): BvhBuildResult {
  const n = (indices.length / 3) | 0;
  if (n === 0) throw new Error('buildBvh: no triangles; pass at least one triangle (3 indices).');
  const maxLeaf = options.maxLeaf ?? MAX_LEAF;
  const costTraverse = options.traversalCost ?? 2;
  const keyBelow = options.keyBinningBelow ?? KEY_BINNING_BELOW;
  // With the kernels (float32 input, a host that runs them), the records are made in their memory and
  // every pass over them runs there.
  const kv = options.wasm !== false && positions instanceof Float32Array ? stageRecords(positions, indices) : null;
  const { boxes: rb, ids, bounds, centroidBounds } = kv ?? triangleBoxes(positions, indices);
  // The same records as int32 words (binning reads their bits, see ./sah).
  const ri = new Int32Array(rb.buffer, rb.byteOffset, rb.length);
  // The records as float32 for the passes that stay here: stride and offset of the box's max.
  const hi = kv !== null ? 4 : 3;
  const stride = 2 * hi;

  const maxNodes = 2 * n - 1;
  // Nodes are written in their final layout as they are created.
  const nodeBuf = new ArrayBuffer(maxNodes * NODE_BYTES);
  const nf = new Float32Array(nodeBuf);
  const ni = new Int32Array(nodeBuf);
  let nodeCount = 1;
  nf[0] = f32Down(bounds[0]); nf[1] = f32Down(bounds[1]); nf[2] = f32Down(bounds[2]);
  nf[3] = f32Up(bounds[3]); nf[4] = f32Up(bounds[4]); nf[5] = f32Up(bounds[5]);

  // Job stack: node, start, end, level, centroid bounds.
  let jobNode = new Int32Array(128);
  let jobLevel = new Int32Array(128);
  let jobStart = new Int32Array(128);
  let jobEnd = new Int32Array(128);
  let jobC = new Float64Array(128 * 6);
  jobNode[0] = 0; jobStart[0] = 0; jobEnd[0] = n; jobLevel[0] = 1;
  jobC.set(centroidBounds);
  let depth = 1;
  let sp = 1;

  const sah = createSahScratch();
  // The popped job's centroid bounds, the children's (left, right), and the children's boxes (with
  // the kernels, views of their outputs).
  const pc = new Float64Array(6);
  const cb = kv !== null ? kv.childCentroids : new Float64Array(12);
  const childB = kv !== null ? kv.childBoxes : new Float64Array(12);

  while (sp > 0) {
    sp--;
    const node = jobNode[sp];
    const start = jobStart[sp];
    const end = jobEnd[sp];
    const count = end - start;
    const level = jobLevel[sp];
    if (level > depth) depth = level;
    const c6 = sp * 6;
    const ccx0 = jobC[c6], ccy0 = jobC[c6 + 1], ccz0 = jobC[c6 + 2];
    const ccx1 = jobC[c6 + 3], ccy1 = jobC[c6 + 4], ccz1 = jobC[c6 + 5];
    const w = node * NODE_WORDS;

    if (count <= FORCE_LEAF) {
      ni[w + 6] = start;
      ni[w + 7] = count;
      continue;
    }
    const ex = nf[w + 3] - nf[w], ey = nf[w + 4] - nf[w + 1], ez = nf[w + 5] - nf[w + 2];
    const parentArea = ex * ey + ey * ez + ez * ex;
    if (count <= maxLeaf) {
      // A leaf candidate whose leaf is certain needs no bins. Every child box holds its triangles'
      // boxes, so any split costs at least costTraverse + (sum of the triangle box areas) / parent
      // area; when that already reaches count, the SAH test below would choose the leaf too. The
      // bound is shaved by 1e-9 of itself (rounding in either sum is ~1e-15 of it), so rounding never
      // decides otherwise, whatever traversalCost is (same tree, same bytes).
      // On bistro this settles 27,538 of 46,545 leaf evaluations of 3 to 8 triangles.
      let sum = 0;
      for (let o = (start * stride) | 0, e = (end * stride) | 0; o < e; o = (o + stride) | 0) {
        const h = (o + hi) | 0;
        const ax = rb[h] - rb[o], ay = rb[(h + 1) | 0] - rb[(o + 1) | 0], az = rb[(h + 2) | 0] - rb[(o + 2) | 0];
        sum += ax * ay + ay * az + az * ax;
      }
      if (costTraverse + (sum * (1 - 1e-9)) / parentArea >= count) {
        ni[w + 6] = start;
        ni[w + 7] = count;
        continue;
      }
    }
    const dx = ccx1 - ccx0, dy = ccy1 - ccy0, dz = ccz1 - ccz0;
    // Fewer bins for small nodes: their fixed cost (clearing and sweeping bins) would dominate.
    const nb = count < SMALL1 ? BINS_SMALL1 : count < SMALL2 ? BINS_SMALL2 : BINS;
    // Bin along the longest centroid axis only (Wald 2007): binning all three axes measured about
    // 30% slower to build for about 3% fewer node visits per query on bistro.
    const axis = dx >= dy && dx >= dz ? 0 : dy >= dz ? 1 : 2;
    const ext = axis === 0 ? dx : axis === 1 ? dy : dz;
    const c0 = axis === 0 ? ccx0 : axis === 1 ? ccy0 : ccz0;
    // Scale maps the centroid range onto [0, nb); slightly under nb so the max lands in the last bin.
    const kk = ext > 0 ? (nb * (1 - 1e-6)) / ext : 0;
    const split = !(ext > 0) ? 0
      : kv !== null ? kv.k.bin(start, end, axis, nb, c0, kk, count < keyBelow ? 1 : 0)
      : binnedSah(sah, rb, ri, start, end, axis, nb, c0, kk, keyBelow);

    // Leaf when allowed and no split beats testing every triangle here.
    const bestCost = (kv ?? sah).bestCost[0];
    const splitCost = split > 0 && parentArea > 0 ? costTraverse + bestCost / parentArea : Infinity;
    if (count <= maxLeaf && (split === 0 || splitCost >= count)) {
      ni[w + 6] = start;
      ni[w + 7] = count;
      continue;
    }

    pc[0] = ccx0; pc[1] = ccy0; pc[2] = ccz0; pc[3] = ccx1; pc[4] = ccy1; pc[5] = ccz1;
    let mid: number;
    if (split === 0) {
      mid = halveRecords(rb, stride, hi, start, end, pc, childB, cb);
    } else if (kv !== null) {
      mid = kv.k.part(start, end, split);
    } else {
      mid = partitionRecords(rb, ids, start, end, axis, c0, kk, split, pc, cb);
      splitBoxes(sah, nb, split, childB);
    }

    // Children: adjacent slots.
    const left = nodeCount;
    nodeCount += 2;
    ni[w + 6] = left;
    // The split axis, so a traversal can visit the child on the segment's near side first (only a
    // visiting-order hint for a halved node).
    ni[w + 7] = -1 - (split > 0 ? axis : 0);
    for (let side = 0; side < 2; side++) {
      const cw = (left + side) * NODE_WORDS;
      const o = side * 6;
      nf[cw] = childB[o]; nf[cw + 1] = childB[o + 1]; nf[cw + 2] = childB[o + 2];
      nf[cw + 3] = childB[o + 3]; nf[cw + 4] = childB[o + 4]; nf[cw + 5] = childB[o + 5];
    }
    if (sp + 2 > jobNode.length) {
      // Very unbalanced splits (long thin clusters) can go deep; grow the job stack.
      const cap = jobNode.length * 2;
      const gn = new Int32Array(cap); gn.set(jobNode); jobNode = gn;
      const gs = new Int32Array(cap); gs.set(jobStart); jobStart = gs;
      const ge = new Int32Array(cap); ge.set(jobEnd); jobEnd = ge;
      const gl = new Int32Array(cap); gl.set(jobLevel); jobLevel = gl;
      const gc = new Float64Array(cap * 6); gc.set(jobC); jobC = gc;
    }
    // Right below left on the stack, so the left subtree is built first.
    jobNode[sp] = left + 1; jobStart[sp] = mid; jobEnd[sp] = end; jobLevel[sp] = level + 1;
    jobNode[sp + 1] = left; jobStart[sp + 1] = start; jobEnd[sp + 1] = mid; jobLevel[sp + 1] = level + 1;
    const q = sp * 6;
    for (let k = 0; k < 6; k++) {
      jobC[q + k] = cb[6 + k];
      jobC[q + 6 + k] = cb[k];
    }
    sp += 2;
  }

  return {
    nodes: new Uint8Array(nodeBuf, 0, nodeCount * NODE_BYTES),
    nodeCount,
    depth,
    order: kv !== null ? kernelOrder(kv, n) : ids,
    bounds,
  };
}
