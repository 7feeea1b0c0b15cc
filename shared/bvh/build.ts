/**
 * Binned-SAH bounding volume hierarchy builder over a triangle soup. The output is the compact node
 * array the traversal in ./traverse reads, plus the leaf order of the triangles (so their corners can
 * be copied into one flat array that a leaf walks linearly).
 *
 * Node layout, 32 bytes per node (little-endian, as every typed array on supported hosts):
 *   float32 minX, minY, minZ, maxX, maxY, maxZ   bounds, rounded outward from the double corners,
 *                                                so the box always contains its triangles;
 *   uint32  a                                    leaf: first triangle (leaf order); inner: left child
 *                                                (the right child is a + 1: siblings are adjacent);
 *   uint32  count                                leaf: number of triangles (>= 1); inner: 0.
 * Node 0 is the root. A soup of n triangles gives at most 2n - 1 nodes.
 *
 * The build: per-triangle boxes and centroids (box centres), then top-down with an explicit job stack:
 * 16 bins per axis over the centroid bounds, all three axes binned in one pass, SAH cost swept from
 * both ends, in-place partition of the triangle id array. Leaves stop at MAX_LEAF triangles or when no
 * split is cheaper than the leaf; a node that SAH cannot split (all centroids equal) is halved by
 * position so leaves stay small. Deterministic: same input, same bytes.
 */

export const NODE_BYTES = 32;
/** Floats per node in a Float32Array view (and uint32 words in a Uint32Array view). */
export const NODE_WORDS = 8;
/** Leaves hold at most this many triangles. */
export const MAX_LEAF = 8;
const BINS = 16;
/** SAH cost of visiting a node relative to one triangle test. */
let COST_TRAVERSE = Number(globalThis.process?.env?.H2_CT ?? 1);
const COST_TRIANGLE = 1;
let MAXL = Number(globalThis.process?.env?.H2_ML ?? 8);

export interface BvhBuildResult {
  /** nodeCount * NODE_BYTES bytes in the layout above. */
  nodes: ArrayBuffer;
  nodeCount: number;
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
 * Builds the hierarchy. `positions` holds xyz per vertex, `indices` three per triangle; both are
 * validated by the caller (World.fromTriangles). Coordinates must be finite.
 */
export function buildBvh(positions: Float32Array | Float64Array, indices: Uint32Array): BvhBuildResult {
  const n = (indices.length / 3) | 0;
  if (n === 0) throw new Error('buildBvh: no triangles; pass at least one triangle (3 indices).');

  // Per-triangle boxes (doubles) and centroids (box centres).
  const tb = new Float64Array(n * 6);
  const cen = new Float64Array(n * 3);
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
    const o = i * 6;
    tb[o] = x0; tb[o + 1] = y0; tb[o + 2] = z0; tb[o + 3] = x1; tb[o + 4] = y1; tb[o + 5] = z1;
    const mx = (x0 + x1) * 0.5, my = (y0 + y1) * 0.5, mz = (z0 + z1) * 0.5;
    cen[i * 3] = mx; cen[i * 3 + 1] = my; cen[i * 3 + 2] = mz;
    if (x0 < rminx) rminx = x0;
    if (y0 < rminy) rminy = y0;
    if (z0 < rminz) rminz = z0;
    if (x1 > rmaxx) rmaxx = x1;
    if (y1 > rmaxy) rmaxy = y1;
    if (z1 > rmaxz) rmaxz = z1;
    if (mx < cminx) cminx = mx;
    if (my < cminy) cminy = my;
    if (mz < cminz) cminz = mz;
    if (mx > cmaxx) cmaxx = mx;
    if (my > cmaxy) cmaxy = my;
    if (mz > cmaxz) cmaxz = mz;
  }

  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  const maxNodes = 2 * n - 1;
  const nb = new Float64Array(maxNodes * 6); // double node bounds, rounded to float32 at the end
  const na = new Uint32Array(maxNodes);
  const nc = new Uint32Array(maxNodes);
  let nodeCount = 1;

  // Job stack: node, start, end, centroid bounds.
  let jobNode = new Int32Array(128);
  let jobStart = new Int32Array(128);
  let jobEnd = new Int32Array(128);
  let jobC = new Float64Array(128 * 6);
  let sp = 0;
  nb[0] = rminx; nb[1] = rminy; nb[2] = rminz; nb[3] = rmaxx; nb[4] = rmaxy; nb[5] = rmaxz;
  jobNode[0] = 0; jobStart[0] = 0; jobEnd[0] = n;
  jobC[0] = cminx; jobC[1] = cminy; jobC[2] = cminz; jobC[3] = cmaxx; jobC[4] = cmaxy; jobC[5] = cmaxz;
  sp = 1;

  // Bin scratch: per axis, per bin, box (6) and count.
  const binB = new Float64Array(3 * BINS * 6);
  const binN = new Int32Array(3 * BINS);
  const rightArea = new Float64Array(BINS);
  const rightCount = new Int32Array(BINS);

  while (sp > 0) {
    sp--;
    const node = jobNode[sp];
    const start = jobStart[sp];
    const end = jobEnd[sp];
    const count = end - start;
    const c6 = sp * 6;
    const ccx0 = jobC[c6], ccy0 = jobC[c6 + 1], ccz0 = jobC[c6 + 2];
    const ccx1 = jobC[c6 + 3], ccy1 = jobC[c6 + 4], ccz1 = jobC[c6 + 5];
    const nb6 = node * 6;
    const ex = nb[nb6 + 3] - nb[nb6], ey = nb[nb6 + 4] - nb[nb6 + 1], ez = nb[nb6 + 5] - nb[nb6 + 2];
    const parentArea = ex * ey + ey * ez + ez * ex;

    if (count <= 2) {
      na[node] = start;
      nc[node] = count;
      continue;
    }

    // Bin along all three axes at once.
    binN.fill(0);
    for (let i = 0; i < 3 * BINS; i++) {
      const o = i * 6;
      binB[o] = Infinity; binB[o + 1] = Infinity; binB[o + 2] = Infinity;
      binB[o + 3] = -Infinity; binB[o + 4] = -Infinity; binB[o + 5] = -Infinity;
    }
    const dx = ccx1 - ccx0, dy = ccy1 - ccy0, dz = ccz1 - ccz0;
    // Scale maps the centroid range onto [0, BINS); slightly under BINS so the max lands in the last bin.
    const kx = dx > 0 ? (BINS * (1 - 1e-9)) / dx : 0;
    const ky = dy > 0 ? (BINS * (1 - 1e-9)) / dy : 0;
    const kz = dz > 0 ? (BINS * (1 - 1e-9)) / dz : 0;
    for (let i = start; i < end; i++) {
      const t = ids[i];
      const t6 = t * 6;
      const x0 = tb[t6], y0 = tb[t6 + 1], z0 = tb[t6 + 2], x1 = tb[t6 + 3], y1 = tb[t6 + 4], z1 = tb[t6 + 5];
      let b = ((cen[t * 3] - ccx0) * kx) | 0;
      let o = b * 6;
      binN[b]++;
      if (x0 < binB[o]) binB[o] = x0;
      if (y0 < binB[o + 1]) binB[o + 1] = y0;
      if (z0 < binB[o + 2]) binB[o + 2] = z0;
      if (x1 > binB[o + 3]) binB[o + 3] = x1;
      if (y1 > binB[o + 4]) binB[o + 4] = y1;
      if (z1 > binB[o + 5]) binB[o + 5] = z1;
      b = BINS + (((cen[t * 3 + 1] - ccy0) * ky) | 0);
      o = b * 6;
      binN[b]++;
      if (x0 < binB[o]) binB[o] = x0;
      if (y0 < binB[o + 1]) binB[o + 1] = y0;
      if (z0 < binB[o + 2]) binB[o + 2] = z0;
      if (x1 > binB[o + 3]) binB[o + 3] = x1;
      if (y1 > binB[o + 4]) binB[o + 4] = y1;
      if (z1 > binB[o + 5]) binB[o + 5] = z1;
      b = 2 * BINS + (((cen[t * 3 + 2] - ccz0) * kz) | 0);
      o = b * 6;
      binN[b]++;
      if (x0 < binB[o]) binB[o] = x0;
      if (y0 < binB[o + 1]) binB[o + 1] = y0;
      if (z0 < binB[o + 2]) binB[o + 2] = z0;
      if (x1 > binB[o + 3]) binB[o + 3] = x1;
      if (y1 > binB[o + 4]) binB[o + 4] = y1;
      if (z1 > binB[o + 5]) binB[o + 5] = z1;
    }

    // SAH sweep: cost of splitting after bin s on axis k.
    let bestCost = Infinity;
    let bestAxis = -1;
    let bestSplit = 0;
    for (let k = 0; k < 3; k++) {
      const ext = k === 0 ? dx : k === 1 ? dy : dz;
      if (!(ext > 0)) continue;
      const base = k * BINS;
      let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
      let cnt = 0;
      for (let s = BINS - 1; s > 0; s--) {
        const o = (base + s) * 6;
        cnt += binN[base + s];
        if (binB[o] < x0) x0 = binB[o];
        if (binB[o + 1] < y0) y0 = binB[o + 1];
        if (binB[o + 2] < z0) z0 = binB[o + 2];
        if (binB[o + 3] > x1) x1 = binB[o + 3];
        if (binB[o + 4] > y1) y1 = binB[o + 4];
        if (binB[o + 5] > z1) z1 = binB[o + 5];
        rightCount[s] = cnt;
        const ax = x1 - x0, ay = y1 - y0, az = z1 - z0;
        rightArea[s] = cnt > 0 ? ax * ay + ay * az + az * ax : 0;
      }
      x0 = Infinity; y0 = Infinity; z0 = Infinity; x1 = -Infinity; y1 = -Infinity; z1 = -Infinity;
      cnt = 0;
      for (let s = 0; s < BINS - 1; s++) {
        const o = (base + s) * 6;
        cnt += binN[base + s];
        if (binB[o] < x0) x0 = binB[o];
        if (binB[o + 1] < y0) y0 = binB[o + 1];
        if (binB[o + 2] < z0) z0 = binB[o + 2];
        if (binB[o + 3] > x1) x1 = binB[o + 3];
        if (binB[o + 4] > y1) y1 = binB[o + 4];
        if (binB[o + 5] > z1) z1 = binB[o + 5];
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
    const leafCost = COST_TRIANGLE * count;
    const splitCost = parentArea > 0 ? COST_TRAVERSE + (COST_TRIANGLE * bestCost) / parentArea : Infinity;
    if (count <= MAXL && (bestAxis < 0 || splitCost >= leafCost)) {
      na[node] = start;
      nc[node] = count;
      continue;
    }

    let mid: number;
    if (bestAxis >= 0) {
      const k = bestAxis;
      const c0 = k === 0 ? ccx0 : k === 1 ? ccy0 : ccz0;
      const kk = k === 0 ? kx : k === 1 ? ky : kz;
      let i = start;
      let j = end - 1;
      while (i <= j) {
        if ((((cen[ids[i] * 3 + k] - c0) * kk) | 0) < bestSplit) i++;
        else {
          const tmp = ids[i];
          ids[i] = ids[j];
          ids[j] = tmp;
          j--;
        }
      }
      mid = i;
    } else {
      // All centroids coincide: SAH cannot separate them; halve by position.
      mid = (start + end) >> 1;
    }
    if (mid === start || mid === end) mid = (start + end) >> 1;

    // Children: adjacent slots; compute their boxes and centroid bounds in one pass each.
    const left = nodeCount;
    nodeCount += 2;
    na[node] = left;
    nc[node] = 0;
    if (sp + 2 > jobNode.length) {
      // Very unbalanced splits (long thin clusters) can go deep; grow the job stack.
      const cap = jobNode.length * 2;
      const gn = new Int32Array(cap); gn.set(jobNode); jobNode = gn;
      const gs = new Int32Array(cap); gs.set(jobStart); jobStart = gs;
      const ge = new Int32Array(cap); ge.set(jobEnd); jobEnd = ge;
      const gc = new Float64Array(cap * 6); gc.set(jobC); jobC = gc;
    }
    for (let side = 0; side < 2; side++) {
      const child = left + side;
      const s0 = side === 0 ? start : mid;
      const s1 = side === 0 ? mid : end;
      let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
      let qx0 = Infinity, qy0 = Infinity, qz0 = Infinity, qx1 = -Infinity, qy1 = -Infinity, qz1 = -Infinity;
      for (let i = s0; i < s1; i++) {
        const t = ids[i];
        const t6 = t * 6;
        if (tb[t6] < x0) x0 = tb[t6];
        if (tb[t6 + 1] < y0) y0 = tb[t6 + 1];
        if (tb[t6 + 2] < z0) z0 = tb[t6 + 2];
        if (tb[t6 + 3] > x1) x1 = tb[t6 + 3];
        if (tb[t6 + 4] > y1) y1 = tb[t6 + 4];
        if (tb[t6 + 5] > z1) z1 = tb[t6 + 5];
        const mx = cen[t * 3], my = cen[t * 3 + 1], mz = cen[t * 3 + 2];
        if (mx < qx0) qx0 = mx;
        if (my < qy0) qy0 = my;
        if (mz < qz0) qz0 = mz;
        if (mx > qx1) qx1 = mx;
        if (my > qy1) qy1 = my;
        if (mz > qz1) qz1 = mz;
      }
      const o = child * 6;
      nb[o] = x0; nb[o + 1] = y0; nb[o + 2] = z0; nb[o + 3] = x1; nb[o + 4] = y1; nb[o + 5] = z1;
      // Push right first so the left subtree is built first (deterministic order, no effect on bytes).
      const slot = sp + (1 - side);
      jobNode[slot] = child;
      jobStart[slot] = s0;
      jobEnd[slot] = s1;
      const q = slot * 6;
      jobC[q] = qx0; jobC[q + 1] = qy0; jobC[q + 2] = qz0; jobC[q + 3] = qx1; jobC[q + 4] = qy1; jobC[q + 5] = qz1;
    }
    sp += 2;
  }

  const nodes = new ArrayBuffer(nodeCount * NODE_BYTES);
  const f = new Float32Array(nodes);
  const u = new Uint32Array(nodes);
  for (let i = 0; i < nodeCount; i++) {
    const o = i * 6;
    const w = i * NODE_WORDS;
    f[w] = f32Down(nb[o]);
    f[w + 1] = f32Down(nb[o + 1]);
    f[w + 2] = f32Down(nb[o + 2]);
    f[w + 3] = f32Up(nb[o + 3]);
    f[w + 4] = f32Up(nb[o + 4]);
    f[w + 5] = f32Up(nb[o + 5]);
    u[w + 6] = na[i];
    u[w + 7] = nc[i];
  }
  return { nodes, nodeCount, order: ids, bounds: new Float64Array([rminx, rminy, rminz, rmaxx, rmaxy, rmaxz]) };
}
