/**
 * BVH build, step one: one box per triangle, float32 and rounded outward (so every union of them is
 * already a conservative node box), plus the exact double bounds of all triangles and the bounds of
 * the (doubled) centroids the root's first split bins over. Also the float32 outward-rounding helpers.
 */

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

/** The build's working records and the bounds it starts from. */
export interface TriangleBoxes {
  /**
   * Per-triangle boxes in working order, 6 float32 each (min xyz, max xyz): the partition moves these
   * records themselves (with their ids), so every pass over a node reads memory in order. Centroids
   * are not stored: "2 x centroid" = min + max is computed where needed.
   */
  boxes: Float32Array;
  /** Original triangle index of each record (starts as 0..n-1). */
  ids: Uint32Array;
  /** Exact bounds of all corners (doubles): min xyz, max xyz. */
  bounds: Float64Array;
  /** Bounds of the doubled centroids (min + max of each box): min xyz, max xyz. */
  centroidBounds: Float64Array;
}

/**
 * Computes every triangle's box. `positions` holds xyz per vertex, `indices` three per triangle (in
 * range). Throws if a triangle has a coordinate that is not finite.
 */
export function triangleBoxes(positions: Float32Array | Float64Array, indices: Uint32Array): TriangleBoxes {
  return positions instanceof Float32Array ? boxesOf32(positions, indices) : boxesOf64(positions, indices);
}

/**
 * Float32 input: the corners are float32 already, so their min and max need no outward rounding.
 * They are taken on the corners' bits as integer keys (the bits with the 31 low ones flipped when
 * negative order as the floats do, -0 just below +0, as Math.min and Math.max order them), with
 * integer min and max written with masks, so picking the smallest of three corners costs no
 * mispredicted branch (V8 compiles a float comparison to a branch). A corner that is not finite has
 * all exponent bits set; adding one to the exponent field then carries into the sign bit.
 * A separate copy of the loop per array type keeps each one monomorphic.
 */
function boxesOf32(positions: Float32Array, indices: Uint32Array): TriangleBoxes {
  const n = (indices.length / 3) | 0;
  const rb = new Float32Array(n * 6);
  const ri = new Int32Array(rb.buffer);
  const pb = new Int32Array(positions.buffer, positions.byteOffset, positions.length);
  const ids = new Uint32Array(n);
  let rminx = Infinity, rminy = Infinity, rminz = Infinity;
  let rmaxx = -Infinity, rmaxy = -Infinity, rmaxz = -Infinity;
  let cminx = Infinity, cminy = Infinity, cminz = Infinity;
  let cmaxx = -Infinity, cmaxy = -Infinity, cmaxz = -Infinity;
  // Index arithmetic as int32 (| 0; indices are in range and World caps vertices at 2^24, far below
  // 2^31 / 3): V8 then does not test the products and sums for overflow.
  for (let i = 0; i < n; i++) {
    const t = (3 * i) | 0;
    const a = (indices[t] * 3) | 0, b = (indices[(t + 1) | 0] * 3) | 0, c = (indices[(t + 2) | 0] * 3) | 0;
    const o = (i * 6) | 0;
    let bad = 0;
    for (let k = 0; k < 3; k++) {
      const ba = pb[(a + k) | 0], bb = pb[(b + k) | 0], bc = pb[(c + k) | 0];
      bad |= ((ba & 0x7f800000) + 0x800000) | ((bb & 0x7f800000) + 0x800000) | ((bc & 0x7f800000) + 0x800000);
      const ka = ba ^ ((ba >> 31) & 0x7fffffff), kb = bb ^ ((bb >> 31) & 0x7fffffff), kc = bc ^ ((bc >> 31) & 0x7fffffff);
      let lo = ka ^ ((ka ^ kb) & -(kb < ka));
      lo ^= (lo ^ kc) & -(kc < lo);
      let hi = ka ^ ((ka ^ kb) & -(kb > ka));
      hi ^= (hi ^ kc) & -(kc > hi);
      ri[(o + k) | 0] = lo ^ ((lo >> 31) & 0x7fffffff);
      ri[(o + 3 + k) | 0] = hi ^ ((hi >> 31) & 0x7fffffff);
    }
    if (bad < 0) throw new Error(`buildBvh: triangle ${i} has a coordinate that is not finite; fix the level mesh.`);
    const x0 = rb[o], y0 = rb[(o + 1) | 0], z0 = rb[(o + 2) | 0], x1 = rb[(o + 3) | 0], y1 = rb[(o + 4) | 0], z1 = rb[(o + 5) | 0];
    if (x0 < rminx) rminx = x0;
    if (y0 < rminy) rminy = y0;
    if (z0 < rminz) rminz = z0;
    if (x1 > rmaxx) rmaxx = x1;
    if (y1 > rmaxy) rmaxy = y1;
    if (z1 > rmaxz) rmaxz = z1;
    ids[i] = i;
    const mx = x0 + x1, my = y0 + y1, mz = z0 + z1;
    if (mx < cminx) cminx = mx;
    if (my < cminy) cminy = my;
    if (mz < cminz) cminz = mz;
    if (mx > cmaxx) cmaxx = mx;
    if (my > cmaxy) cmaxy = my;
    if (mz > cmaxz) cmaxz = mz;
  }
  return {
    boxes: rb,
    ids,
    bounds: new Float64Array([rminx, rminy, rminz, rmaxx, rmaxy, rmaxz]),
    centroidBounds: new Float64Array([cminx, cminy, cminz, cmaxx, cmaxy, cmaxz]),
  };
}

/** Double input: each box is rounded outward to float32. */
function boxesOf64(positions: Float64Array, indices: Uint32Array): TriangleBoxes {
  const n = (indices.length / 3) | 0;
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
    const chk = x0 + y0 + z0 + x1 + y1 + z1;
    if (chk - chk !== 0) throw new Error(`buildBvh: triangle ${i} has a coordinate that is not finite; fix the level mesh.`);
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
  return {
    boxes: rb,
    ids,
    bounds: new Float64Array([rminx, rminy, rminz, rmaxx, rmaxy, rmaxz]),
    centroidBounds: new Float64Array([cminx, cminy, cminz, cmaxx, cmaxy, cmaxz]),
  };
}
