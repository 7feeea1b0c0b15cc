/**
 * The body envelope fog of war reasons about: a vertical cylinder about a player's feet (the root's
 * vertical axis) that holds every hitbox triangle of the rig in the bind pose and in every clip at
 * every time, whatever the yaw. The root turns about +Y only (movement writes a yaw quaternion), so
 * a point's distance from that axis does not depend on the yaw: the radius is the largest such
 * distance over the rig's posed triangle corners, and bottom/top the lowest and highest corner.
 *
 * Clips are sampled at their stored frames and half-way between (the posing lerps translation and
 * nlerps rotation between frames, so a corner moves along a short arc between its frame positions);
 * `slackM` (default 2 cm) is added to the radius and to both heights for what lies between samples.
 * Built once per rig, outside any hot path (allocates its scratch).
 */
import { sampleClipBones, transformPoint } from '../rig/posing';
import { BONE_STRIDE, type Rig } from '../rig/rig';

/** A vertical cylinder about the feet, metres: horizontal radius, lowest and highest point above the feet. */
export interface BodyEnvelope {
  radius: number;
  bottom: number;
  top: number;
}

/** The body envelope of `rig` (see the module comment); slackM is added to each of the three. */
export function bodyEnvelopeOf(rig: Rig, slackM = 0.02): BodyEnvelope {
  const H = rig.hitboxCount;
  const bones = new Float64Array(H * BONE_STRIDE);
  const p = new Float64Array(3);
  const acc = { r2: 0, lo: Infinity, hi: -Infinity };
  const visit = (): void => {
    const T = rig.triangles;
    for (let h = 0; h < H; h++) {
      for (let t = rig.triStart[h] * 9, end = rig.triStart[h + 1] * 9; t < end; t += 3) {
        transformPoint(p, 0, bones, h * BONE_STRIDE, T[t], T[t + 1], T[t + 2]);
        const r2 = p[0] * p[0] + p[2] * p[2];
        if (r2 > acc.r2) acc.r2 = r2;
        if (p[1] < acc.lo) acc.lo = p[1];
        if (p[1] > acc.hi) acc.hi = p[1];
      }
    }
  };
  bones.set(rig.bindPose);
  visit();
  for (let c = 0; c < rig.clips.length; c++) {
    const clip = rig.clips[c];
    const steps = 2 * (clip.frameCount - 1);
    for (let s = 0; s <= steps; s++) {
      // Frame s / 2 (a half-frame on odd s); the clip's last time is taken just inside the loop.
      const time = s === steps ? clip.duration * (1 - 1e-9) : (s * 0.5) / clip.framesPerSecond;
      sampleClipBones(bones, rig, c, time);
      visit();
    }
  }
  const slack = slackM >= 0 && slackM < Infinity ? slackM : 0.02;
  return { radius: Math.sqrt(acc.r2) + slack, bottom: acc.lo - slack, top: acc.hi + slack };
}
