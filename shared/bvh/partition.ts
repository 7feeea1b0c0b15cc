/**
 * BVH build, step three: the in-place partition of a node's records (6 float32 box + id each) at the
 * chosen split, gathering both children's centroid bounds on the way, and the fallback halving for
 * nodes whose centroids all coincide.
 */

/**
 * Moves records [start, end) whose bin ((2 x centroid - c0) * kk, axis k) is below `split` to the
 * front, the rest to the back (boxes and ids together). Writes the children's doubled-centroid bounds
 * into cb: left min xyz, max xyz at 0..5, right at 6..11; `pc` holds the parent's. Returns the first
 * right record.
 */
export function partitionRecords(
  rb: Float32Array, ids: Uint32Array, start: number, end: number,
  k: number, c0In: number, kkIn: number, splitIn: number, pc: Float64Array, cb: Float64Array,
): number {
  // Loop invariants as plain numbers and index arithmetic as int32 (| 0): V8 then neither re-checks
  // the parameters nor tests the sums for overflow on every record.
  const c0 = c0In * 1, kk = kkIn * 1, split = splitIn | 0;
  let lx0 = Infinity, ly0 = Infinity, lz0 = Infinity, lx1 = -Infinity, ly1 = -Infinity, lz1 = -Infinity;
  let rx0 = Infinity, ry0 = Infinity, rz0 = Infinity, rx1 = -Infinity, ry1 = -Infinity, rz1 = -Infinity;
  // Along the split axis two of the bounds are known: the smallest centroid lands in bin 0 (left)
  // and the largest in the last bin (right), so those are the parent's; not comparing for them
  // saves two unpredictable branches per record.
  if (k === 0) { lx0 = pc[0]; rx1 = pc[3]; } else if (k === 1) { ly0 = pc[1]; ry1 = pc[4]; } else { lz0 = pc[2]; rz1 = pc[5]; }
  let i = start | 0;
  let j = (end - 1) | 0;
  while (i <= j) {
    const o = (i * 6) | 0;
    const x0 = rb[o], y0 = rb[(o + 1) | 0], z0 = rb[(o + 2) | 0], x1 = rb[(o + 3) | 0], y1 = rb[(o + 4) | 0], z1 = rb[(o + 5) | 0];
    const mx = x0 + x1, my = y0 + y1, mz = z0 + z1;
    const m = k === 0 ? mx : k === 1 ? my : mz;
    if ((((m - c0) * kk) | 0) < split) {
      if (k !== 0 && mx < lx0) lx0 = mx;
      if (k !== 1 && my < ly0) ly0 = my;
      if (k !== 2 && mz < lz0) lz0 = mz;
      if (mx > lx1) lx1 = mx;
      if (my > ly1) ly1 = my;
      if (mz > lz1) lz1 = mz;
      i = (i + 1) | 0;
    } else {
      if (mx < rx0) rx0 = mx;
      if (my < ry0) ry0 = my;
      if (mz < rz0) rz0 = mz;
      if (k !== 0 && mx > rx1) rx1 = mx;
      if (k !== 1 && my > ry1) ry1 = my;
      if (k !== 2 && mz > rz1) rz1 = mz;
      // Swap records i and j (box and id).
      const q = (j * 6) | 0;
      rb[o] = rb[q]; rb[(o + 1) | 0] = rb[(q + 1) | 0]; rb[(o + 2) | 0] = rb[(q + 2) | 0];
      rb[(o + 3) | 0] = rb[(q + 3) | 0]; rb[(o + 4) | 0] = rb[(q + 4) | 0]; rb[(o + 5) | 0] = rb[(q + 5) | 0];
      rb[q] = x0; rb[(q + 1) | 0] = y0; rb[(q + 2) | 0] = z0; rb[(q + 3) | 0] = x1; rb[(q + 4) | 0] = y1; rb[(q + 5) | 0] = z1;
      const t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
      j = (j - 1) | 0;
    }
  }
  cb[0] = lx0; cb[1] = ly0; cb[2] = lz0; cb[3] = lx1; cb[4] = ly1; cb[5] = lz1;
  cb[6] = rx0; cb[7] = ry0; cb[8] = rz0; cb[9] = rx1; cb[10] = ry1; cb[11] = rz1;
  return i;
}

/**
 * A node SAH cannot split (all centroids equal): halves its records by position. Records are
 * `stride` floats apart in `rb`, box min xyz first and max xyz at `hi`. Writes the halves' boxes into
 * boxes[0..12) (left, right) and both children's centroid bounds (the parent's, pc) into cb. Returns
 * the first right record. Rare, so plain passes.
 */
export function halveRecords(
  rb: Float32Array, stride: number, hi: number, start: number, end: number, pc: Float64Array, boxes: Float64Array, cb: Float64Array,
): number {
  const mid = (start + end) >> 1;
  unionRecordBoxes(boxes, 0, rb, stride, hi, start, mid);
  unionRecordBoxes(boxes, 6, rb, stride, hi, mid, end);
  for (let k = 0; k < 6; k++) {
    cb[k] = pc[k];
    cb[6 + k] = pc[k];
  }
  return mid;
}

/** Writes into out[o..o+6) the union of record boxes first..end-1 (laid out as in halveRecords). */
function unionRecordBoxes(
  out: Float64Array, o: number, boxes: Float32Array, stride: number, hi: number, first: number, end: number,
): void {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = first * stride, e = end * stride; i < e; i += stride) {
    const h = i + hi;
    if (boxes[i] < x0) x0 = boxes[i];
    if (boxes[i + 1] < y0) y0 = boxes[i + 1];
    if (boxes[i + 2] < z0) z0 = boxes[i + 2];
    if (boxes[h] > x1) x1 = boxes[h];
    if (boxes[h + 1] > y1) y1 = boxes[h + 1];
    if (boxes[h + 2] > z1) z1 = boxes[h + 2];
  }
  out[o] = x0; out[o + 1] = y0; out[o + 2] = z0; out[o + 3] = x1; out[o + 4] = y1; out[o + 5] = z1;
}
