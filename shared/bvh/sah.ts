/**
 * BVH build, step two: binned SAH for one node (Wald, "On fast construction of SAH-based bounding
 * volume hierarchies", 2007). The node's records are binned by centroid along one axis; a sweep from
 * each end gives every candidate split's child boxes, counts and surface areas; the cheapest split
 * wins. The children's boxes are unions of bins, so they are float32 and outward already.
 */

/** Most bins per split (large nodes). */
export const BINS = 16;
/**
 * Nodes with fewer records are binned and swept on integer keys (binRecordsKeys, sweepKeys), larger
 * ones by comparing floats (binRecords). A float comparison is a branch in V8's code; in a large node
 * the bins settle early and the branches are predicted, in a smaller one a record often moves its
 * bin's bounds and the mispredictions cost more than the keys' extra arithmetic (measured on bistro
 * and the 480k scene: thresholds from 256 to 16,384 do about equally well). Both give the same bins,
 * up to which of -0 and +0 a bound keeps when both occur (keys: always -0 for a min, +0 for a max).
 */
export const KEY_BINNING_BELOW = 4096;

/** Scratch for one node's binning, reused for every node of a build. */
export interface SahScratch {
  /** Per bin: box (min xyz, max xyz). */
  binB: Float64Array;
  /** Per bin: record count. */
  binN: Int32Array;
  /** Right sweep: union of bins s..nb-1 (the right child's box when the split is s), its count and area. */
  rightB: Float64Array;
  rightCount: Int32Array;
  rightArea: Float64Array;
  /** Left sweep: union of bins 0..s (the left child's box when the split is s + 1). */
  leftB: Float64Array;
  /** Out: the best split's cost (area-weighted counts, not yet divided by the parent's area). */
  bestCost: Float64Array;
  /** Out: whether the node was binned on keys (binB then not filled; see splitBoxes). */
  keyed: boolean;
}

export function createSahScratch(): SahScratch {
  return {
    binB: new Float64Array(BINS * 6),
    binN: new Int32Array(BINS),
    rightB: new Float64Array(BINS * 6),
    rightCount: new Int32Array(BINS),
    rightArea: new Float64Array(BINS),
    leftB: new Float64Array(BINS * 6),
    bestCost: new Float64Array(1),
    keyed: false,
  };
}

/**
 * Bins records [start, end) of `rb` (6 float32 each; `ri` is the same memory as int32) into nb bins
 * along axis k, bin = (2 x centroid - c0) * kk truncated, then sweeps the SAH. Returns the best split
 * s (the left child takes bins 0..s-1), 1 <= s < nb, with its cost in sc.bestCost[0]; or 0 when
 * every split leaves a side empty.
 */
export function binnedSah(
  sc: SahScratch, rb: Float32Array, ri: Int32Array, start: number, end: number, k: number, nb: number, c0: number, kk: number,
  keyBelow: number,
): number {
  const binB = sc.binB;
  const binN = sc.binN;
  for (let i = 0; i < nb; i++) binN[i] = 0;
  if (end - start < keyBelow) {
    sc.keyed = true;
    binRecordsKeys(rb, ri, start, end, binN, k, c0, kk, nb);
    return sweepKeys(sc, binN, nb);
  }
  sc.keyed = false;
  for (let i = 0; i < nb; i++) {
    const o = i * 6;
    binB[o] = Infinity; binB[o + 1] = Infinity; binB[o + 2] = Infinity;
    binB[o + 3] = -Infinity; binB[o + 4] = -Infinity; binB[o + 5] = -Infinity;
  }
  binRecords(rb, start, end, binB, binN, k, c0, kk);
  const rightB = sc.rightB, rightCount = sc.rightCount, rightArea = sc.rightArea, leftB = sc.leftB;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  let cnt = 0;
  for (let s = nb - 1; s > 0; s--) {
    const o = s * 6;
    cnt += binN[s];
    if (binB[o] < x0) x0 = binB[o];
    if (binB[o + 1] < y0) y0 = binB[o + 1];
    if (binB[o + 2] < z0) z0 = binB[o + 2];
    if (binB[o + 3] > x1) x1 = binB[o + 3];
    if (binB[o + 4] > y1) y1 = binB[o + 4];
    if (binB[o + 5] > z1) z1 = binB[o + 5];
    rightCount[s] = cnt;
    rightB[o] = x0; rightB[o + 1] = y0; rightB[o + 2] = z0; rightB[o + 3] = x1; rightB[o + 4] = y1; rightB[o + 5] = z1;
    const ax = x1 - x0, ay = y1 - y0, az = z1 - z0;
    rightArea[s] = cnt > 0 ? ax * ay + ay * az + az * ax : 0;
  }
  x0 = Infinity; y0 = Infinity; z0 = Infinity; x1 = -Infinity; y1 = -Infinity; z1 = -Infinity;
  cnt = 0;
  let bestCost = Infinity;
  let bestSplit = 0;
  for (let s = 0; s < nb - 1; s++) {
    const o = s * 6;
    cnt += binN[s];
    if (binB[o] < x0) x0 = binB[o];
    if (binB[o + 1] < y0) y0 = binB[o + 1];
    if (binB[o + 2] < z0) z0 = binB[o + 2];
    if (binB[o + 3] > x1) x1 = binB[o + 3];
    if (binB[o + 4] > y1) y1 = binB[o + 4];
    if (binB[o + 5] > z1) z1 = binB[o + 5];
    leftB[o] = x0; leftB[o + 1] = y0; leftB[o + 2] = z0; leftB[o + 3] = x1; leftB[o + 4] = y1; leftB[o + 5] = z1;
    const rc = rightCount[s + 1];
    if (cnt === 0 || rc === 0) continue;
    const ax = x1 - x0, ay = y1 - y0, az = z1 - z0;
    const cost = (ax * ay + ay * az + az * ax) * cnt + rightArea[s + 1] * rc;
    if (cost < bestCost) {
      bestCost = cost;
      bestSplit = s + 1;
    }
  }
  sc.bestCost[0] = bestCost;
  return bestSplit;
}

/**
 * Writes the boxes of the children of split s (after binnedSah over nb bins) into out[0..6) (left)
 * and out[6..12) (right).
 */
export function splitBoxes(sc: SahScratch, nb: number, s: number, out: Float64Array): void {
  // The left one is the left sweep's union at the split: the same bins in the same order.
  const p = (s - 1) * 6;
  const leftB = sc.leftB;
  out[0] = leftB[p]; out[1] = leftB[p + 1]; out[2] = leftB[p + 2];
  out[3] = leftB[p + 3]; out[4] = leftB[p + 4]; out[5] = leftB[p + 5];
  // The right one is the right sweep's union at the split, unless a coordinate is zero: that sweep
  // ran in the other order, and which of -0 and +0 a union keeps depends on the order.
  const r = s * 6;
  const rightB = sc.rightB;
  const bx0 = rightB[r], by0 = rightB[r + 1], bz0 = rightB[r + 2], bx1 = rightB[r + 3], by1 = rightB[r + 4], bz1 = rightB[r + 5];
  // (Unions on keys do not depend on the order: -0 is always below +0.)
  if (!sc.keyed && (bx0 === 0 || by0 === 0 || bz0 === 0 || bx1 === 0 || by1 === 0 || bz1 === 0)) {
    const binB = sc.binB;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let i = s * 6, e = nb * 6; i < e; i += 6) {
      if (binB[i] < x0) x0 = binB[i];
      if (binB[i + 1] < y0) y0 = binB[i + 1];
      if (binB[i + 2] < z0) z0 = binB[i + 2];
      if (binB[i + 3] > x1) x1 = binB[i + 3];
      if (binB[i + 4] > y1) y1 = binB[i + 4];
      if (binB[i + 5] > z1) z1 = binB[i + 5];
    }
    out[6] = x0; out[7] = y0; out[8] = z0; out[9] = x1; out[10] = y1; out[11] = z1;
  } else {
    out[6] = bx0; out[7] = by0; out[8] = bz0; out[9] = bx1; out[10] = by1; out[11] = bz1;
  }
}

/** Bins records [start, end) of rb along axis k: bin (2 x centroid - c0) * kk (box + count). */
function binRecords(
  rb: Float32Array, start: number, end: number, binB: Float64Array, binN: Int32Array, k: number, c0In: number, kkIn: number,
): void {
  // Loop invariants as plain doubles and index arithmetic as int32 (| 0): V8 then neither re-checks
  // the parameters nor tests the sums for overflow on every record.
  const c0 = c0In * 1, kk = kkIn * 1;
  const ka = k | 0, kb = (k + 3) | 0;
  for (let o6 = (start * 6) | 0, e = (end * 6) | 0; o6 < e; o6 = (o6 + 6) | 0) {
    const x0 = rb[o6], y0 = rb[(o6 + 1) | 0], z0 = rb[(o6 + 2) | 0];
    const x1 = rb[(o6 + 3) | 0], y1 = rb[(o6 + 4) | 0], z1 = rb[(o6 + 5) | 0];
    const b = ((rb[(o6 + ka) | 0] + rb[(o6 + kb) | 0] - c0) * kk) | 0;
    const o = (b * 6) | 0;
    binN[b] = (binN[b] + 1) | 0;
    if (x0 < binB[o]) binB[o] = x0;
    if (y0 < binB[(o + 1) | 0]) binB[(o + 1) | 0] = y0;
    if (z0 < binB[(o + 2) | 0]) binB[(o + 2) | 0] = z0;
    if (x1 > binB[(o + 3) | 0]) binB[(o + 3) | 0] = x1;
    if (y1 > binB[(o + 4) | 0]) binB[(o + 4) | 0] = y1;
    if (z1 > binB[(o + 5) | 0]) binB[(o + 5) | 0] = z1;
  }
}

// Scratch of binRecordsKeys and sweepKeys: the bins' bounds as keys, and a union turned back into
// float32 values through a bit view.
const keyBins = new Int32Array(BINS * 6);
const uF = new Float32Array(6);
const uI = new Int32Array(uF.buffer);

/**
 * binRecords without float comparisons, into keyBins. A float32's bits as an int32, with the 31 low
 * bits flipped when negative (b ^ ((b >> 31) & 0x7fffffff)), order as the floats do (-0 just below
 * +0; boxes hold no NaN), so the bins' bounds are kept as such keys and updated by integer min and
 * max written with masks: c ^ ((c ^ v) & -(v < c)) is min(c, v), and V8 turns the comparison into a
 * flag, not a branch. An empty bin keeps the extreme keys, which no union picks.
 */
function binRecordsKeys(
  rb: Float32Array, ri: Int32Array, start: number, end: number, binN: Int32Array,
  k: number, c0In: number, kkIn: number, nb: number,
): void {
  const kb = keyBins;
  for (let i = 0; i < nb; i++) {
    const o = i * 6;
    kb[o] = 0x7fffffff; kb[o + 1] = 0x7fffffff; kb[o + 2] = 0x7fffffff;
    kb[o + 3] = -0x80000000; kb[o + 4] = -0x80000000; kb[o + 5] = -0x80000000;
  }
  const c0 = c0In * 1, kk = kkIn * 1;
  const ka = k | 0, kb3 = (k + 3) | 0;
  for (let o6 = (start * 6) | 0, e = (end * 6) | 0; o6 < e; o6 = (o6 + 6) | 0) {
    const b = ((rb[(o6 + ka) | 0] + rb[(o6 + kb3) | 0] - c0) * kk) | 0;
    const o = (b * 6) | 0;
    binN[b] = (binN[b] + 1) | 0;
    let v = ri[o6]; v ^= (v >> 31) & 0x7fffffff; let c = kb[o]; kb[o] = c ^ ((c ^ v) & -(v < c));
    v = ri[(o6 + 1) | 0]; v ^= (v >> 31) & 0x7fffffff; c = kb[(o + 1) | 0]; kb[(o + 1) | 0] = c ^ ((c ^ v) & -(v < c));
    v = ri[(o6 + 2) | 0]; v ^= (v >> 31) & 0x7fffffff; c = kb[(o + 2) | 0]; kb[(o + 2) | 0] = c ^ ((c ^ v) & -(v < c));
    v = ri[(o6 + 3) | 0]; v ^= (v >> 31) & 0x7fffffff; c = kb[(o + 3) | 0]; kb[(o + 3) | 0] = c ^ ((c ^ v) & -(v > c));
    v = ri[(o6 + 4) | 0]; v ^= (v >> 31) & 0x7fffffff; c = kb[(o + 4) | 0]; kb[(o + 4) | 0] = c ^ ((c ^ v) & -(v > c));
    v = ri[(o6 + 5) | 0]; v ^= (v >> 31) & 0x7fffffff; c = kb[(o + 5) | 0]; kb[(o + 5) | 0] = c ^ ((c ^ v) & -(v > c));
  }
}

/**
 * binnedSah's sweep over the key bins binRecordsKeys left in keyBins: the unions are taken on keys
 * (no branches) and turned back into the same float32 values (the map is its own inverse) for the
 * areas, so every cost is the float sweep's. A union of no bins turns into NaNs, never read: its
 * area is taken as 0 and no split leaves a side empty.
 */
function sweepKeys(sc: SahScratch, binN: Int32Array, nb: number): number {
  const kb = keyBins;
  const rightB = sc.rightB, rightCount = sc.rightCount, rightArea = sc.rightArea, leftB = sc.leftB;
  let x0 = 0x7fffffff, y0 = 0x7fffffff, z0 = 0x7fffffff, x1 = -0x80000000, y1 = -0x80000000, z1 = -0x80000000;
  let cnt = 0;
  for (let s = nb - 1; s > 0; s--) {
    const o = s * 6;
    cnt += binN[s];
    let v = kb[o]; x0 ^= (x0 ^ v) & -(v < x0);
    v = kb[o + 1]; y0 ^= (y0 ^ v) & -(v < y0);
    v = kb[o + 2]; z0 ^= (z0 ^ v) & -(v < z0);
    v = kb[o + 3]; x1 ^= (x1 ^ v) & -(v > x1);
    v = kb[o + 4]; y1 ^= (y1 ^ v) & -(v > y1);
    v = kb[o + 5]; z1 ^= (z1 ^ v) & -(v > z1);
    rightCount[s] = cnt;
    uI[0] = x0 ^ ((x0 >> 31) & 0x7fffffff); uI[1] = y0 ^ ((y0 >> 31) & 0x7fffffff); uI[2] = z0 ^ ((z0 >> 31) & 0x7fffffff);
    uI[3] = x1 ^ ((x1 >> 31) & 0x7fffffff); uI[4] = y1 ^ ((y1 >> 31) & 0x7fffffff); uI[5] = z1 ^ ((z1 >> 31) & 0x7fffffff);
    const fx0 = uF[0], fy0 = uF[1], fz0 = uF[2], fx1 = uF[3], fy1 = uF[4], fz1 = uF[5];
    rightB[o] = fx0; rightB[o + 1] = fy0; rightB[o + 2] = fz0; rightB[o + 3] = fx1; rightB[o + 4] = fy1; rightB[o + 5] = fz1;
    const ax = fx1 - fx0, ay = fy1 - fy0, az = fz1 - fz0;
    rightArea[s] = cnt > 0 ? ax * ay + ay * az + az * ax : 0;
  }
  x0 = 0x7fffffff; y0 = 0x7fffffff; z0 = 0x7fffffff; x1 = -0x80000000; y1 = -0x80000000; z1 = -0x80000000;
  cnt = 0;
  let bestCost = Infinity;
  let bestSplit = 0;
  for (let s = 0; s < nb - 1; s++) {
    const o = s * 6;
    cnt += binN[s];
    let v = kb[o]; x0 ^= (x0 ^ v) & -(v < x0);
    v = kb[o + 1]; y0 ^= (y0 ^ v) & -(v < y0);
    v = kb[o + 2]; z0 ^= (z0 ^ v) & -(v < z0);
    v = kb[o + 3]; x1 ^= (x1 ^ v) & -(v > x1);
    v = kb[o + 4]; y1 ^= (y1 ^ v) & -(v > y1);
    v = kb[o + 5]; z1 ^= (z1 ^ v) & -(v > z1);
    uI[0] = x0 ^ ((x0 >> 31) & 0x7fffffff); uI[1] = y0 ^ ((y0 >> 31) & 0x7fffffff); uI[2] = z0 ^ ((z0 >> 31) & 0x7fffffff);
    uI[3] = x1 ^ ((x1 >> 31) & 0x7fffffff); uI[4] = y1 ^ ((y1 >> 31) & 0x7fffffff); uI[5] = z1 ^ ((z1 >> 31) & 0x7fffffff);
    const fx0 = uF[0], fy0 = uF[1], fz0 = uF[2], fx1 = uF[3], fy1 = uF[4], fz1 = uF[5];
    leftB[o] = fx0; leftB[o + 1] = fy0; leftB[o + 2] = fz0; leftB[o + 3] = fx1; leftB[o + 4] = fy1; leftB[o + 5] = fz1;
    const rc = rightCount[s + 1];
    if (cnt === 0 || rc === 0) continue;
    const ax = fx1 - fx0, ay = fy1 - fy0, az = fz1 - fz0;
    const cost = (ax * ay + ay * az + az * ax) * cnt + rightArea[s + 1] * rc;
    if (cost < bestCost) {
      bestCost = cost;
      bestSplit = s + 1;
    }
  }
  sc.bestCost[0] = bestCost;
  return bestSplit;
}
