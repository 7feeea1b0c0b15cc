/**
 * Per-triangle precomputation over a whole mesh: runs a kernel's writer (collision matrix, sweep
 * frame, ...) for every triangle into one flat Float64Array with a fixed stride. Build-time code,
 * shared by every kernel that stores something per triangle; queries never call it.
 */

/** Writes the record of triangle (a, b, c) at out[offset .. offset + stride). */
export type TriangleRecordWriter = (
  out: Float64Array, offset: number,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
) => unknown;

/** Triangles in a mesh: three indices each, or nine position numbers each for a soup (indices null). */
export function meshTriangleCount(positions: ArrayLike<number>, indices: ArrayLike<number> | null): number {
  return indices ? Math.floor(indices.length / 3) : Math.floor(positions.length / 9);
}

/**
 * Fills `out` (length >= stride * triangle count) with `write`'s record of every triangle and
 * returns it. `what` names the caller in the error when `out` is too short.
 */
export function fillPerTriangle(
  out: Float64Array,
  stride: number,
  positions: ArrayLike<number>,
  indices: ArrayLike<number> | null,
  write: TriangleRecordWriter,
  what: string,
): Float64Array {
  const triangles = meshTriangleCount(positions, indices);
  if (out.length < triangles * stride) {
    throw new RangeError(
      `${what}: out holds ${out.length} numbers but ${triangles} triangles need ${triangles * stride}; ` +
      `allocate new Float64Array(triangleCount * ${stride})`,
    );
  }
  for (let t = 0; t < triangles; t++) {
    const ia = indices ? indices[3 * t] * 3 : 9 * t;
    const ib = indices ? indices[3 * t + 1] * 3 : 9 * t + 3;
    const ic = indices ? indices[3 * t + 2] * 3 : 9 * t + 6;
    write(
      out, t * stride,
      positions[ia], positions[ia + 1], positions[ia + 2],
      positions[ib], positions[ib + 1], positions[ib + 2],
      positions[ic], positions[ic + 1], positions[ic + 2],
    );
  }
  return out;
}
