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
 * The build: per-triangle boxes (float32, rounded outward, so every union of them is already the
 * node's final conservative box; centroids are box centres, used doubled as min + max), then
 * top-down with an explicit job stack: up to 16 bins over the centroid bounds along the longest
 * centroid axis (as in Wald, "On fast construction of SAH-based bounding volume hierarchies", 2007),
 * SAH cost swept from both ends, in-place partition of the records that also gathers the children's
 * centroid bounds; the children's boxes come from the bins. Leaves stop at maxLeaf triangles or when
 * no split is cheaper than the leaf (a leaf candidate whose summed triangle box areas already price
 * every split out is settled without binning); a node SAH cannot split (all centroids equal) is
 * halved by position so leaves stay small (its axis word is then only a visiting-order hint).
 * Deterministic: same input, same bytes.
 */

export const NODE_BYTES = 32;
/** Floats per node in a Float32Array view (and int32 words in an Int32Array view). */
export const NODE_WORDS = 8;
/** Leaves hold at most this many triangles. */
export const MAX_LEAF = 8;
const BINS = 16;
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

// Float32 outward rounding through a shared bit view. Scratch, build-time only.
const f32Scratch = new Float32Array(1);
const i32Scratch = new Int32Array(f32Scratch.buffer);

/** Largest float32 <= v. */
export function f32Down(v: number): number {
  const f = Math.fround(v);
  if (f <= v) return f;
  // f > v: step one float32 toward -Infinity.
  f32Scratch[0] = f;
  if (f === 0) return -1.401298464324817e-45;
  i32Scratch[0] += f > 0 ? -1 : 1;
  return f32Scratch[0];
}

/** Smallest float32 >= v. */
export function f32Up(v: number): number {
  const f = Math.fround(v);
  if (f >= v) return f;
  f32Scratch[0] = f;
  if (f === 0) return 1.401298464324817e-45;
  i32Scratch[0] += f > 0 ? 1 : -1;
  return f32Scratch[0];
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

  // Per-triangle boxes (float32, outward) in working order: the partition moves these records
  // themselves (with their ids), so every pass over a node reads memory sequentially. Centroids are
  // not stored: "2 x centroid" = min + max is computed where needed, and centroid bounds are kept
  // doubled the same way.
  const rb = new Float32Array(n * 6);
  const ids = new Uint32Array(n);
  let rminx = Infinity, rminy = Infinity, rminz = Infinity;
  let rmaxx = -Infinity, rmaxy = -Infinity, rmaxz = -Infinity;
  let cminx = Infinity, cminy = Infinity, cminz = Infinity;
  let cmaxx = -Infinity, cmaxy = -Infinity, cmaxz = -Infinity;
  for (let i = 0; i < n; i++) {
    const a = indices[3 * i] * 3, b = indices[3 * i + 1] * 3, c = indices[3 * i + 2] * 3;
    const ax = positions[a], ay = positions[a + 1], az = positions[a + 2];
    const bx = positions[b], by = positions[b + 1], bz = positions[b + 2];
    const cx = positions[c], cy = positions[c + 1], cz = positions[c + 2];
    const x0 = Math.min(ax, bx, cx), y0 = Math.min(ay, by, cy), z0 = Math.min(az, bz, cz);
    const x1 = Math.max(ax, bx, cx), y1 = Math.max(ay, by, cy), z1 = Math.max(az, bz, cz);
    // Any NaN or infinite corner makes this sum NaN or infinite (min and max spread NaN).
    const chk = x0 + y0 + z0 + x1 + y1 + z1;
    if (chk - chk !== 0) {
      throw new Error(`buildBvh: triangle ${i} has a coordinate that is not finite; fix the level mesh.`);
    }
    if (x0 < rminx) rminx = x0;
    if (y0 < rminy) rminy = y0;
    if (z0 < rminz) rminz = z0;
    if (x1 > rmaxx) rmaxx = x1;
    if (y1 > rmaxy) rmaxy = y1;
    if (z1 > rmaxz) rmaxz = z1;
    const o = i * 6;
    const fx0 = f32Down(x0), fy0 = f32Down(y0), fz0 = f32Down(z0);
    const fx1 = f32Up(x1), fy1 = f32Up(y1), fz1 = f32Up(z1);
    rb[o] = fx0; rb[o + 1] = fy0; rb[o + 2] = fz0; rb[o + 3] = fx1; rb[o + 4] = fy1; rb[o + 5] = fz1;
    ids[i] = i;
    const mx = fx0 + fx1, my = fy0 + fy1, mz = fz0 + fz1;
    if (mx < cminx) cminx = mx;
    if (my < cminy) cminy = my;
    if (mz < cminz) cminz = mz;
    if (mx > cmaxx) cmaxx = mx;
    if (my > cmaxy) cmaxy = my;
    if (mz > cmaxz) cmaxz = mz;
  }

  const maxNodes = 2 * n - 1;
  // Nodes are written in their final layout as they are created.
  const nodeBuf = new ArrayBuffer(maxNodes * NODE_BYTES);
  const nf = new Float32Array(nodeBuf);
  const ni = new Int32Array(nodeBuf);
  let nodeCount = 1;
  nf[0] = f32Down(rminx); nf[1] = f32Down(rminy); nf[2] = f32Down(rminz);
  nf[3] = f32Up(rmaxx); nf[4] = f32Up(rmaxy); nf[5] = f32Up(rmaxz);

  // Job stack: node, start, end, level, centroid bounds.
  let jobNode = new Int32Array(128);
  let jobLevel = new Int32Array(128);
  let jobStart = new Int32Array(128);
  let jobEnd = new Int32Array(128);
  let jobC = new Float64Array(128 * 6);
  jobNode[0] = 0; jobStart[0] = 0; jobEnd[0] = n; jobLevel[0] = 1;
  let depth = 1;
  jobC[0] = cminx; jobC[1] = cminy; jobC[2] = cminz; jobC[3] = cmaxx; jobC[4] = cmaxy; jobC[5] = cmaxz;
  let sp = 1;

  // Bin scratch: per axis, per bin, box (6) and count.
  const binB = new Float64Array(3 * BINS * 6);
  const binN = new Int32Array(3 * BINS);
  const rightArea = new Float64Array(BINS);
  const rightCount = new Int32Array(BINS);
  const childB = new Float64Array(12);
  // Left sweep: union of bins 0..s (the left child's box when the split is s + 1).
  const leftB = new Float64Array(BINS * 6);
  // Right sweep: union of bins s..nb-1 (the right child's box when the split is s).
  const rightB = new Float64Array(BINS * 6);

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
      for (let o = start * 6, e = end * 6; o < e; o += 6) {
        const ax = rb[o + 3] - rb[o], ay = rb[o + 4] - rb[o + 1], az = rb[o + 5] - rb[o + 2];
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
    // Scale maps the centroid range onto [0, nb); slightly under nb so the max lands in the last bin.
    const kx = dx > 0 ? (nb * (1 - 1e-6)) / dx : 0;
    const ky = dy > 0 ? (nb * (1 - 1e-6)) / dy : 0;
    const kz = dz > 0 ? (nb * (1 - 1e-6)) / dz : 0;
    for (let i = axis * nb; i < (axis + 1) * nb; i++) {
      binN[i] = 0;
      const o = i * 6;
      binB[o] = Infinity; binB[o + 1] = Infinity; binB[o + 2] = Infinity;
      binB[o + 3] = -Infinity; binB[o + 4] = -Infinity; binB[o + 5] = -Infinity;
    }
    binOneAxis(rb, start, end, binB, binN, axis, axis * nb, axis === 0 ? ccx0 : axis === 1 ? ccy0 : ccz0, axis === 0 ? kx : axis === 1 ? ky : kz);

    // SAH sweep: cost of splitting after bin s on axis k.
    let bestCost = Infinity;
    let bestAxis = -1;
    let bestSplit = 0;
    for (let k = axis; k <= axis; k++) {
      const ext = k === 0 ? dx : k === 1 ? dy : dz;
      if (!(ext > 0)) continue;
      const base = k * nb;
      let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
      let cnt = 0;
      for (let s = nb - 1; s > 0; s--) {
        const o = (base + s) * 6;
        cnt += binN[base + s];
        if (binB[o] < x0) x0 = binB[o];
        if (binB[o + 1] < y0) y0 = binB[o + 1];
        if (binB[o + 2] < z0) z0 = binB[o + 2];
        if (binB[o + 3] > x1) x1 = binB[o + 3];
        if (binB[o + 4] > y1) y1 = binB[o + 4];
        if (binB[o + 5] > z1) z1 = binB[o + 5];
        rightCount[s] = cnt;
        const p = s * 6;
        rightB[p] = x0; rightB[p + 1] = y0; rightB[p + 2] = z0; rightB[p + 3] = x1; rightB[p + 4] = y1; rightB[p + 5] = z1;
        const ax = x1 - x0, ay = y1 - y0, az = z1 - z0;
        rightArea[s] = cnt > 0 ? ax * ay + ay * az + az * ax : 0;
      }
      x0 = Infinity; y0 = Infinity; z0 = Infinity; x1 = -Infinity; y1 = -Infinity; z1 = -Infinity;
      cnt = 0;
      for (let s = 0; s < nb - 1; s++) {
        const o = (base + s) * 6;
        cnt += binN[base + s];
        if (binB[o] < x0) x0 = binB[o];
        if (binB[o + 1] < y0) y0 = binB[o + 1];
        if (binB[o + 2] < z0) z0 = binB[o + 2];
        if (binB[o + 3] > x1) x1 = binB[o + 3];
        if (binB[o + 4] > y1) y1 = binB[o + 4];
        if (binB[o + 5] > z1) z1 = binB[o + 5];
        const p = s * 6;
        leftB[p] = x0; leftB[p + 1] = y0; leftB[p + 2] = z0; leftB[p + 3] = x1; leftB[p + 4] = y1; leftB[p + 5] = z1;
        const rc = rightCount[s + 1];
        if (cnt === 0 || rc === 0) continue;
        const ax = x1 - x0, ay = y1 - y0, az = z1 - z0;
        const cost = (ax * ay + ay * az + az * ax) * cnt + rightArea[s + 1] * rc;
        if (cost < bestCost) {
          bestCost = cost;
          bestAxis = k;
          bestSplit = s + 1;
        }
      }
    }

    // Leaf when allowed and no split beats testing every triangle here.
    const splitCost = parentArea > 0 ? costTraverse + bestCost / parentArea : Infinity;
    if (count <= maxLeaf && (bestAxis < 0 || splitCost >= count)) {
      ni[w + 6] = start;
      ni[w + 7] = count;
      continue;
    }

    // Partition; gather the children's centroid bounds on the way.
    let lx0 = Infinity, ly0 = Infinity, lz0 = Infinity, lx1 = -Infinity, ly1 = -Infinity, lz1 = -Infinity;
    let rx0 = Infinity, ry0 = Infinity, rz0 = Infinity, rx1 = -Infinity, ry1 = -Infinity, rz1 = -Infinity;
    let mid: number;
    if (bestAxis >= 0) {
      const k = bestAxis;
      const c0 = k === 0 ? ccx0 : k === 1 ? ccy0 : ccz0;
      const kk = k === 0 ? kx : k === 1 ? ky : kz;
      // Along the split axis two of the bounds are known: the smallest centroid lands in bin 0 (left)
      // and the largest in the last bin (right), so those are the parent's; not comparing for them
      // saves two unpredictable branches per record.
      if (k === 0) { lx0 = ccx0; rx1 = ccx1; } else if (k === 1) { ly0 = ccy0; ry1 = ccy1; } else { lz0 = ccz0; rz1 = ccz1; }
      let i = start;
      let j = end - 1;
      while (i <= j) {
        const o = i * 6;
        const x0 = rb[o], y0 = rb[o + 1], z0 = rb[o + 2], x1 = rb[o + 3], y1 = rb[o + 4], z1 = rb[o + 5];
        const mx = x0 + x1, my = y0 + y1, mz = z0 + z1;
        const m = k === 0 ? mx : k === 1 ? my : mz;
        if ((((m - c0) * kk) | 0) < bestSplit) {
          if (k !== 0 && mx < lx0) lx0 = mx;
          if (k !== 1 && my < ly0) ly0 = my;
          if (k !== 2 && mz < lz0) lz0 = mz;
          if (mx > lx1) lx1 = mx;
          if (my > ly1) ly1 = my;
          if (mz > lz1) lz1 = mz;
          i++;
        } else {
          if (mx < rx0) rx0 = mx;
          if (my < ry0) ry0 = my;
          if (mz < rz0) rz0 = mz;
          if (k !== 0 && mx > rx1) rx1 = mx;
          if (k !== 1 && my > ry1) ry1 = my;
          if (k !== 2 && mz > rz1) rz1 = mz;
          // Swap records i and j (box and id).
          const q = j * 6;
          rb[o] = rb[q]; rb[o + 1] = rb[q + 1]; rb[o + 2] = rb[q + 2]; rb[o + 3] = rb[q + 3]; rb[o + 4] = rb[q + 4]; rb[o + 5] = rb[q + 5];
          rb[q] = x0; rb[q + 1] = y0; rb[q + 2] = z0; rb[q + 3] = x1; rb[q + 4] = y1; rb[q + 5] = z1;
          const t = ids[i];
          ids[i] = ids[j];
          ids[j] = t;
          j--;
        }
      }
      mid = i;
      // Children's boxes: unions of their bins (already float32 and outward).
      const base = k * nb;
      // (The left one is the left sweep's union at the split: the same bins in the same order.)
      const p = (bestSplit - 1) * 6;
      childB[0] = leftB[p]; childB[1] = leftB[p + 1]; childB[2] = leftB[p + 2];
      childB[3] = leftB[p + 3]; childB[4] = leftB[p + 4]; childB[5] = leftB[p + 5];
      // The right one is the right sweep's union at the split, unless a coordinate is zero: that
      // sweep ran in the other order, and which of -0 and +0 a union keeps depends on the order.
      const r = bestSplit * 6;
      const bx0 = rightB[r], by0 = rightB[r + 1], bz0 = rightB[r + 2], bx1 = rightB[r + 3], by1 = rightB[r + 4], bz1 = rightB[r + 5];
      if (bx0 === 0 || by0 === 0 || bz0 === 0 || bx1 === 0 || by1 === 0 || bz1 === 0) {
        unionBoxes(childB, 6, binB, base + bestSplit, base + nb);
      } else {
        childB[6] = bx0; childB[7] = by0; childB[8] = bz0; childB[9] = bx1; childB[10] = by1; childB[11] = bz1;
      }
    } else {
      // All centroids coincide: SAH cannot separate them; halve by position (rare, so a plain pass).
      mid = (start + end) >> 1;
      unionRecordBoxes(childB, 0, rb, start, mid);
      unionRecordBoxes(childB, 6, rb, mid, end);
      lx0 = rx0 = ccx0; ly0 = ry0 = ccy0; lz0 = rz0 = ccz0;
      lx1 = rx1 = ccx1; ly1 = ry1 = ccy1; lz1 = rz1 = ccz1;
    }

    // Children: adjacent slots.
    const left = nodeCount;
    nodeCount += 2;
    ni[w + 6] = left;
    // The split axis, so a traversal can visit the child on the segment's near side first.
    ni[w + 7] = -1 - (bestAxis >= 0 ? bestAxis : 0);
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
    let q = sp * 6;
    jobC[q] = rx0; jobC[q + 1] = ry0; jobC[q + 2] = rz0; jobC[q + 3] = rx1; jobC[q + 4] = ry1; jobC[q + 5] = rz1;
    jobNode[sp + 1] = left; jobStart[sp + 1] = start; jobEnd[sp + 1] = mid; jobLevel[sp + 1] = level + 1;
    q = (sp + 1) * 6;
    jobC[q] = lx0; jobC[q + 1] = ly0; jobC[q + 2] = lz0; jobC[q + 3] = lx1; jobC[q + 4] = ly1; jobC[q + 5] = lz1;
    sp += 2;
  }

  return {
    nodes: new Uint8Array(nodeBuf, 0, nodeCount * NODE_BYTES),
    nodeCount,
    depth,
    order: ids,
    bounds: new Float64Array([rminx, rminy, rminz, rmaxx, rmaxy, rmaxz]),
  };
}

/** Bins records [start, end) of rb along axis k (2 x centroid - c0) * kk into bins base.. (box + count). */
/** Writes into out[o..o+6) the union of the boxes first..end-1 of `boxes` (6 numbers each: min xyz, max xyz). */
function unionBoxes(out: Float64Array, o: number, boxes: Float64Array, first: number, end: number): void {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = first * 6, e = end * 6; i < e; i += 6) {
    if (boxes[i] < x0) x0 = boxes[i];
    if (boxes[i + 1] < y0) y0 = boxes[i + 1];
    if (boxes[i + 2] < z0) z0 = boxes[i + 2];
    if (boxes[i + 3] > x1) x1 = boxes[i + 3];
    if (boxes[i + 4] > y1) y1 = boxes[i + 4];
    if (boxes[i + 5] > z1) z1 = boxes[i + 5];
  }
  out[o] = x0; out[o + 1] = y0; out[o + 2] = z0; out[o + 3] = x1; out[o + 4] = y1; out[o + 5] = z1;
}

/**
 * unionBoxes over record boxes (float32). A separate function so that each one sees a single array
 * type: a call site shared by both types measured 4% of the build.
 */
function unionRecordBoxes(out: Float64Array, o: number, boxes: Float32Array, first: number, end: number): void {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = first * 6, e = end * 6; i < e; i += 6) {
    if (boxes[i] < x0) x0 = boxes[i];
    if (boxes[i + 1] < y0) y0 = boxes[i + 1];
    if (boxes[i + 2] < z0) z0 = boxes[i + 2];
    if (boxes[i + 3] > x1) x1 = boxes[i + 3];
    if (boxes[i + 4] > y1) y1 = boxes[i + 4];
    if (boxes[i + 5] > z1) z1 = boxes[i + 5];
  }
  out[o] = x0; out[o + 1] = y0; out[o + 2] = z0; out[o + 3] = x1; out[o + 4] = y1; out[o + 5] = z1;
}

function binOneAxis(
  rb: Float32Array, start: number, end: number, binB: Float64Array, binN: Int32Array,
  k: number, base: number, c0: number, kk: number,
): void {
  for (let i = start; i < end; i++) {
    const o6 = i * 6;
    const x0 = rb[o6], y0 = rb[o6 + 1], z0 = rb[o6 + 2], x1 = rb[o6 + 3], y1 = rb[o6 + 4], z1 = rb[o6 + 5];
    const m = k === 0 ? x0 + x1 : k === 1 ? y0 + y1 : z0 + z1;
    const b = base + (((m - c0) * kk) | 0);
    const o = b * 6;
    binN[b]++;
    if (x0 < binB[o]) binB[o] = x0;
    if (y0 < binB[o + 1]) binB[o + 1] = y0;
    if (z0 < binB[o + 2]) binB[o + 2] = z0;
    if (x1 > binB[o + 3]) binB[o + 3] = x1;
    if (y1 > binB[o + 4]) binB[o + 4] = y1;
    if (z1 > binB[o + 5]) binB[o + 5] = z1;
  }
}
