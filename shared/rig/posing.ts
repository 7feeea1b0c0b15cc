/**
 * Posing a rig without trigonometry: bone transforms of a clip at any time come from the two
 * nearest resampled frames (lerp translation, nlerp rotation with sign fix), and world transforms
 * are those composed with the player's root transform. Bone transforms are BONE_STRIDE (7) numbers:
 * tx ty tz qx qy qz qw. Everything writes into caller-owned Float64Arrays and allocates nothing.
 * The …Of forms read the clip state and the root from an object (a player's pose), so a call V8 does
 * not inline boxes no double arguments; the plain forms take numbers.
 */
import { BONE_STRIDE, type Rig } from './rig';

/** The animation state sampleClipBonesOf reads (a PlayerPose has it). */
export interface ClipState {
  clip: number;
  time: number;
}

/** The root transform composeRootOf reads (a PlayerPose has it); the rotation must be unit. */
export interface RootTransform {
  x: number;
  y: number;
  z: number;
  qx: number;
  qy: number;
  qz: number;
  qw: number;
}

// Scratch of the plain forms.
const CLIP_STATE: ClipState = { clip: 0, time: 0.5 };
const ROOT: RootTransform = { x: 0.5, y: 0.5, z: 0.5, qx: 0.5, qy: 0.5, qz: 0.5, qw: 0.5 };

/**
 * Writes the model-space bone transforms of `clip` at `time` seconds (wrapped into the loop, so the
 * caller may pass an ever-growing animation time) into out (hitboxCount * 7). Returns false and
 * writes the bind pose when clip or time is not usable (unknown clip index, non-finite time).
 */
export function sampleClipBones(out: Float64Array, rig: Rig, clip: number, time: number): boolean {
  CLIP_STATE.clip = clip;
  CLIP_STATE.time = time;
  return sampleClipBonesOf(out, rig, CLIP_STATE);
}

/** sampleClipBones with the clip and time read from `state`. */
export function sampleClipBonesOf(out: Float64Array, rig: Rig, state: ClipState): boolean {
  const H = rig.hitboxCount;
  const clip = state.clip, time = state.time;
  if (!(clip >= 0 && clip < rig.clips.length && Math.floor(clip) === clip) || !Number.isFinite(time)) {
    out.set(rig.bindPose);
    return false;
  }
  const c = rig.clips[clip];
  const d = c.duration;
  let tt = time - Math.floor(time / d) * d;
  if (!(tt >= 0)) tt = 0; // a huge time can round to a negative remainder; any frame is then as good
  const f = tt * c.framesPerSecond;
  let i = Math.floor(f);
  let a = f - i;
  if (i >= c.frameCount - 1) {
    i = c.frameCount - 2;
    a = 1;
  }
  const fr = rig.frames;
  const stride = H * BONE_STRIDE;
  let p = c.offset + i * stride;
  let q = p + stride;
  const b = 1 - a;
  for (let o = 0; o < stride; o += BONE_STRIDE, p += BONE_STRIDE, q += BONE_STRIDE) {
    out[o] = fr[p] * b + fr[q] * a;
    out[o + 1] = fr[p + 1] * b + fr[q + 1] * a;
    out[o + 2] = fr[p + 2] * b + fr[q + 2] * a;
    nlerpInto(out, o + 3, fr[p + 3], fr[p + 4], fr[p + 5], fr[p + 6], fr[q + 3], fr[q + 4], fr[q + 5], fr[q + 6], a);
  }
  return true;
}

/**
 * Normalised linear interpolation of unit quaternions p -> q at fraction a, written at out[o..o+3].
 * Takes the short way round (q negated when p . q < 0). Exact at a = 0 and a = 1 up to the final
 * renormalisation of an already unit quaternion.
 */
export function nlerpInto(
  out: Float64Array | number[], o: number,
  px: number, py: number, pz: number, pw: number,
  qx: number, qy: number, qz: number, qw: number,
  a: number,
): void {
  if (px * qx + py * qy + pz * qz + pw * qw < 0) {
    qx = -qx; qy = -qy; qz = -qz; qw = -qw;
  }
  const b = 1 - a;
  const x = px * b + qx * a;
  const y = py * b + qy * a;
  const z = pz * b + qz * a;
  const w = pw * b + qw * a;
  const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x * inv;
  out[o + 1] = y * inv;
  out[o + 2] = z * inv;
  out[o + 3] = w * inv;
}

/**
 * World bone transforms = root * model-space bone transforms, for `count` bones. `out` may be
 * `bones` (each bone is read into locals before it is written). The root rotation must be unit.
 */
export function composeRoot(
  out: Float64Array, bones: Float64Array, count: number,
  x: number, y: number, z: number, qx: number, qy: number, qz: number, qw: number,
): Float64Array {
  const r = ROOT;
  r.x = x; r.y = y; r.z = z; r.qx = qx; r.qy = qy; r.qz = qz; r.qw = qw;
  return composeRootOf(out, bones, count, r);
}

/** composeRoot with the root transform read from `root`. */
export function composeRootOf(out: Float64Array, bones: Float64Array, count: number, root: RootTransform): Float64Array {
  const x = root.x, y = root.y, z = root.z, qx = root.qx, qy = root.qy, qz = root.qz, qw = root.qw;
  for (let o = 0; o < count * BONE_STRIDE; o += BONE_STRIDE) {
    const tx = bones[o], ty = bones[o + 1], tz = bones[o + 2];
    const bx = bones[o + 3], by = bones[o + 4], bz = bones[o + 5], bw = bones[o + 6];
    // Position: root translation + root rotation applied to the bone translation
    // (v' = v + 2w (u x v) + 2 u x (u x v), u = vector part of the root rotation).
    const cx = qy * tz - qz * ty, cy = qz * tx - qx * tz, cz = qx * ty - qy * tx;
    out[o] = x + tx + 2 * (qw * cx + qy * cz - qz * cy);
    out[o + 1] = y + ty + 2 * (qw * cy + qz * cx - qx * cz);
    out[o + 2] = z + tz + 2 * (qw * cz + qx * cy - qy * cx);
    // Rotation: Hamilton product root * bone.
    out[o + 3] = qw * bx + qx * bw + qy * bz - qz * by;
    out[o + 4] = qw * by - qx * bz + qy * bw + qz * bx;
    out[o + 5] = qw * bz + qx * by - qy * bx + qz * bw;
    out[o + 6] = qw * bw - qx * bx - qy * by - qz * bz;
  }
  return out;
}

/** Applies bone transform `o` of `bones` to a bone-local point, writing world x y z into out[oo..]. */
export function transformPoint(
  out: Float64Array | number[], oo: number, bones: Float64Array, o: number, px: number, py: number, pz: number,
): void {
  const qx = bones[o + 3], qy = bones[o + 4], qz = bones[o + 5], qw = bones[o + 6];
  const cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
  out[oo] = bones[o] + px + 2 * (qw * cx + qy * cz - qz * cy);
  out[oo + 1] = bones[o + 1] + py + 2 * (qw * cy + qz * cx - qx * cz);
  out[oo + 2] = bones[o + 2] + pz + 2 * (qw * cz + qx * cy - qy * cx);
}
