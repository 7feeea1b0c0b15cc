/**
 * Evaluates a skinned character read by ./character exactly as the glTF specification describes:
 * node hierarchy, animation samplers (STEP and LINEAR; slerp for rotations), joint matrices
 * G_j * IBM_j and linear-blend skinning. This is the reference the rig build starts from and the
 * rig-quality measurement compares against; it runs on the server/tooling side only (it may use any
 * Math function), never in shared/.
 *
 * Matrices are column-major Float64Array(16) like glTF; quaternions are [x, y, z, w].
 */
import type { AnimationClipData, SkinnedCharacter } from './character';
import { mat4FromTRS, mat4InvertAffine, mat4Multiply } from './mat4';

function slerp(out: number[], a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, u: number): void {
  let bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  let c = ax * bx + ay * by + az * bz + aw * bw;
  if (c < 0) { c = -c; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let s0 = 1 - u, s1 = u;
  if (c < 0.9999995) {
    const om = Math.acos(c), so = Math.sin(om);
    s0 = Math.sin((1 - u) * om) / so;
    s1 = Math.sin(u * om) / so;
  }
  out[0] = s0 * ax + s1 * bx; out[1] = s0 * ay + s1 * by; out[2] = s0 * az + s1 * bz; out[3] = s0 * aw + s1 * bw;
  const n = Math.hypot(out[0], out[1], out[2], out[3]);
  out[0] /= n; out[1] /= n; out[2] /= n; out[3] /= n;
}

/**
 * Local TRS of every node at clip time `time` (clamped to [0, duration]) per the glTF sampler rules;
 * nodes a clip does not animate keep their rest TRS. Writes 10 numbers per node into out.
 */
export function sampleLocalTRS(out: Float64Array, ch: SkinnedCharacter, clip: AnimationClipData, time: number): Float64Array {
  out.set(ch.nodeRest);
  const tmp = [0, 0, 0, 0];
  for (const c of clip.channels) {
    const inp = c.input;
    const width = c.path === 'rotation' ? 4 : 3;
    const dst = c.node * 10 + (c.path === 'translation' ? 0 : c.path === 'rotation' ? 3 : 7);
    let i = 0;
    if (time <= inp[0] || inp.length === 1) {
      for (let k = 0; k < width; k++) out[dst + k] = c.output[k];
      continue;
    }
    if (time >= inp[inp.length - 1]) {
      const o = (inp.length - 1) * width;
      for (let k = 0; k < width; k++) out[dst + k] = c.output[o + k];
      continue;
    }
    while (i + 1 < inp.length && inp[i + 1] <= time) i++;
    const u = (time - inp[i]) / (inp[i + 1] - inp[i]);
    if (c.interpolation === 'STEP') {
      for (let k = 0; k < width; k++) out[dst + k] = c.output[i * width + k];
    } else if (width === 4) {
      slerp(tmp, c.output, i * 4, c.output, (i + 1) * 4, u);
      for (let k = 0; k < 4; k++) out[dst + k] = tmp[k];
    } else {
      for (let k = 0; k < 3; k++) out[dst + k] = c.output[i * 3 + k] * (1 - u) + c.output[(i + 1) * 3 + k] * u;
    }
  }
  return out;
}

/** Model-space (scene-space) matrices of every node from local TRS: 16 per node. */
export function globalMatrices(out: Float64Array, ch: SkinnedCharacter, localTRS: Float64Array): Float64Array {
  const n = ch.nodeNames.length;
  const done = new Uint8Array(n);
  const m = new Float64Array(16);
  const visit = (i: number): void => {
    if (done[i]) return;
    const p = ch.nodeParent[i];
    // Parent first: visiting it reuses `m`, so the local matrix is built only afterwards.
    if (p >= 0) visit(p);
    mat4FromTRS(m, localTRS, localTRS, localTRS, i * 10);
    if (p >= 0) mat4Multiply(m, out.subarray(p * 16, p * 16 + 16), m);
    out.set(m, i * 16);
    done[i] = 1;
  };
  for (let i = 0; i < n; i++) visit(i);
  return out;
}

/** Joint matrices for skinning: G_j * IBM_j, 16 per joint. */
export function jointMatrices(out: Float64Array, ch: SkinnedCharacter, globals: Float64Array): Float64Array {
  const m = new Float64Array(16);
  for (let j = 0; j < ch.jointNames.length; j++) {
    mat4Multiply(m, globals, ch.inverseBind, j * 16, j * 16);
    out.set(m, j * 16);
  }
  return out;
}

/** Bind-pose globals: G_j = inverse(IBM_j), so skinning reproduces the stored positions. */
export function bindGlobals(ch: SkinnedCharacter): Float64Array {
  const out = new Float64Array(ch.jointNames.length * 16);
  const m = new Float64Array(16);
  for (let j = 0; j < ch.jointNames.length; j++) {
    mat4InvertAffine(m, ch.inverseBind, j * 16);
    out.set(m, j * 16);
  }
  return out;
}

/** Linear-blend skinning: skinned positions (3 per vertex) from joint matrices. */
export function skinPositions(out: Float64Array, ch: SkinnedCharacter, jm: Float64Array): Float64Array {
  const nv = ch.positions.length / 3;
  for (let v = 0; v < nv; v++) {
    const px = ch.positions[v * 3], py = ch.positions[v * 3 + 1], pz = ch.positions[v * 3 + 2];
    let x = 0, y = 0, z = 0, wsum = 0;
    for (let k = 0; k < 4; k++) {
      const w = ch.weights[v * 4 + k];
      if (w === 0) continue;
      const o = ch.joints[v * 4 + k] * 16;
      x += w * (jm[o] * px + jm[o + 4] * py + jm[o + 8] * pz + jm[o + 12]);
      y += w * (jm[o + 1] * px + jm[o + 5] * py + jm[o + 9] * pz + jm[o + 13]);
      z += w * (jm[o + 2] * px + jm[o + 6] * py + jm[o + 10] * pz + jm[o + 14]);
      wsum += w;
    }
    // Weights should sum to 1; normalise anyway so a sloppy export does not shrink the mesh.
    out[v * 3] = x / wsum; out[v * 3 + 1] = y / wsum; out[v * 3 + 2] = z / wsum;
  }
  return out;
}

/** The joint weighing most on each triangle (weights summed over its three vertices). */
export function dominantJointPerTriangle(ch: SkinnedCharacter): Int32Array {
  const nt = ch.indices.length / 3;
  const out = new Int32Array(nt);
  const acc = new Float64Array(ch.jointNames.length);
  for (let t = 0; t < nt; t++) {
    acc.fill(0);
    for (let c = 0; c < 3; c++) {
      const v = ch.indices[t * 3 + c];
      for (let k = 0; k < 4; k++) acc[ch.joints[v * 4 + k]] += ch.weights[v * 4 + k];
    }
    let best = 0;
    for (let j = 1; j < acc.length; j++) if (acc[j] > acc[best]) best = j;
    out[t] = best;
  }
  return out;
}
