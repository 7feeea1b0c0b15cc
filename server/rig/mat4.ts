/**
 * Small double-precision 4x4 matrix helpers for the rig tooling (column-major Float64Array(16), as
 * glTF stores matrices; quaternions [x, y, z, w]): compose from TRS, multiply, invert an affine
 * matrix, and take the rigid part of one. Used by ./character (reading bind poses) and ./skinning
 * (evaluating clips); server/tooling side only, never in shared/.
 */
export function mat4FromTRS(out: Float64Array, t: ArrayLike<number>, q: ArrayLike<number>, s: ArrayLike<number>, o = 0): Float64Array {
  const x = q[o + 3], y = q[o + 4], z = q[o + 5], w = q[o + 6];
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  const sx = s[o + 7], sy = s[o + 8], sz = s[o + 9];
  out[0] = (1 - (yy + zz)) * sx; out[1] = (xy + wz) * sx; out[2] = (xz - wy) * sx; out[3] = 0;
  out[4] = (xy - wz) * sy; out[5] = (1 - (xx + zz)) * sy; out[6] = (yz + wx) * sy; out[7] = 0;
  out[8] = (xz + wy) * sz; out[9] = (yz - wx) * sz; out[10] = (1 - (xx + yy)) * sz; out[11] = 0;
  out[12] = t[o]; out[13] = t[o + 1]; out[14] = t[o + 2]; out[15] = 1;
  return out;
}

export function mat4Multiply(out: Float64Array, a: ArrayLike<number>, b: ArrayLike<number>, ao = 0, bo = 0): Float64Array {
  const r = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    for (let rr = 0; rr < 4; rr++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[ao + k * 4 + rr] * b[bo + c * 4 + k];
      r[c * 4 + rr] = s;
    }
  }
  out.set(r);
  return out;
}

/** Inverse of a general affine 4x4 (column-major). */
export function mat4InvertAffine(out: Float64Array, m: ArrayLike<number>, o = 0): Float64Array {
  const a00 = m[o], a01 = m[o + 1], a02 = m[o + 2];
  const a10 = m[o + 4], a11 = m[o + 5], a12 = m[o + 6];
  const a20 = m[o + 8], a21 = m[o + 9], a22 = m[o + 10];
  const tx = m[o + 12], ty = m[o + 13], tz = m[o + 14];
  const b01 = a22 * a11 - a12 * a21;
  const b11 = -a22 * a10 + a12 * a20;
  const b21 = a21 * a10 - a11 * a20;
  const det = a00 * b01 + a01 * b11 + a02 * b21;
  const id = 1 / det;
  const r = new Float64Array(16);
  r[0] = b01 * id; r[1] = (-a22 * a01 + a02 * a21) * id; r[2] = (a12 * a01 - a02 * a11) * id;
  r[4] = b11 * id; r[5] = (a22 * a00 - a02 * a20) * id; r[6] = (-a12 * a00 + a02 * a10) * id;
  r[8] = b21 * id; r[9] = (-a21 * a00 + a01 * a20) * id; r[10] = (a11 * a00 - a01 * a10) * id;
  r[12] = -(r[0] * tx + r[4] * ty + r[8] * tz);
  r[13] = -(r[1] * tx + r[5] * ty + r[9] * tz);
  r[14] = -(r[2] * tx + r[6] * ty + r[10] * tz);
  r[15] = 1;
  out.set(r);
  return out;
}

/**
 * The rigid part of an affine matrix as [tx ty tz qx qy qz qw]: translation as is, rotation from the
 * Gram-Schmidt orthonormalised columns (animated bone scales here stay within a few percent).
 */
export function rigidFromMat4(out: Float64Array, m: ArrayLike<number>, oo = 0): Float64Array {
  let xx = m[0], xy = m[1], xz = m[2];
  let l = Math.sqrt(xx * xx + xy * xy + xz * xz);
  xx /= l; xy /= l; xz /= l;
  let yx = m[4], yy = m[5], yz = m[6];
  let d = xx * yx + xy * yy + xz * yz;
  yx -= d * xx; yy -= d * xy; yz -= d * xz;
  l = Math.sqrt(yx * yx + yy * yy + yz * yz);
  yx /= l; yy /= l; yz /= l;
  const zx = xy * yz - xz * yy, zy = xz * yx - xx * yz, zz = xx * yy - xy * yx;
  // Rotation matrix R with columns X Y Z -> quaternion (Shepperd's method).
  const tr = xx + yy + zz;
  let qx: number, qy: number, qz: number, qw: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    qw = 0.25 * s; qx = (yz - zy) / s; qy = (zx - xz) / s; qz = (xy - yx) / s;
  } else if (xx > yy && xx > zz) {
    const s = Math.sqrt(1 + xx - yy - zz) * 2;
    qw = (yz - zy) / s; qx = 0.25 * s; qy = (yx + xy) / s; qz = (zx + xz) / s;
  } else if (yy > zz) {
    const s = Math.sqrt(1 + yy - xx - zz) * 2;
    qw = (zx - xz) / s; qx = (yx + xy) / s; qy = 0.25 * s; qz = (zy + yz) / s;
  } else {
    const s = Math.sqrt(1 + zz - xx - yy) * 2;
    qw = (xy - yx) / s; qx = (zx + xz) / s; qy = (zy + yz) / s; qz = 0.25 * s;
  }
  if (qw < 0) { qx = -qx; qy = -qy; qz = -qz; qw = -qw; }
  const n = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
  out[oo] = m[12]; out[oo + 1] = m[13]; out[oo + 2] = m[14];
  out[oo + 3] = qx / n; out[oo + 4] = qy / n; out[oo + 5] = qz / n; out[oo + 6] = qw / n;
  return out;
}
