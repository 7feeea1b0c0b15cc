/**
 * Points of a player's rewound body for replay observers: the centroid of a zone's first hitbox
 * (the aim point a client takes inside it) at a time, posed from the replay's histories by the
 * scene's rewinder, as the verdict poses the targets it tests.
 */
import { createPlayerPose } from '../lagcomp/pose';
import { rewindStatusUsable } from '../lagcomp/history';
import { transformPoint } from '../rig/posing';
import { BONE_STRIDE, type Rig } from '../rig/rig';
import type { ShotScene } from '../validate/rules';

/** Bone-local centroid of each hitbox's triangle corners (3 per hitbox). */
export function hitboxCentroids(rig: Rig): Float64Array {
  const out = new Float64Array(rig.hitboxCount * 3);
  for (let h = 0; h < rig.hitboxCount; h++) {
    let x = 0, y = 0, z = 0, n = 0;
    for (let t = rig.triStart[h]!; t < rig.triStart[h + 1]!; t++) {
      for (let k = 0; k < 3; k++) {
        x += rig.triangles[t * 9 + k * 3]!; y += rig.triangles[t * 9 + k * 3 + 1]!; z += rig.triangles[t * 9 + k * 3 + 2]!;
        n++;
      }
    }
    if (n > 0) { out[h * 3] = x / n; out[h * 3 + 1] = y / n; out[h * 3 + 2] = z / n; }
  }
  return out;
}

export class BodyPoints {
  private readonly centroids: Float64Array;
  private readonly zoneHitbox = new Int32Array(32).fill(-1);
  private readonly bones: Float64Array;
  private readonly pose = createPlayerPose();

  constructor(private readonly scene: ShotScene) {
    const rig = scene.rewinder.rig;
    this.centroids = hitboxCentroids(rig);
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    for (let h = 0; h < rig.hitboxCount; h++) {
      const zone = rig.hitboxZone[h]!;
      if (zone >= 0 && zone < 32 && this.zoneHitbox[zone] === -1) this.zoneHitbox[zone] = h;
    }
  }

  /** The world point of `slot`'s `zone` at `timeMs` (its history under the rewind policy) into out; false when none. */
  at(out: Float64Array, slot: number, timeMs: number, zone: number): boolean {
    const h = zone >= 0 && zone < 32 ? this.zoneHitbox[zone]! : -1;
    const history = this.scene.histories[slot];
    if (h < 0 || history === undefined || !(timeMs === timeMs)) return false;
    if (!rewindStatusUsable(history.sampleAt(this.pose, timeMs, this.scene.rewinder.policy)) || !this.pose.alive) return false;
    this.scene.rewinder.poseBones(this.bones, this.pose);
    transformPoint(out, 0, this.bones, h * BONE_STRIDE, this.centroids[h * 3]!, this.centroids[h * 3 + 1]!, this.centroids[h * 3 + 2]!);
    return true;
  }
}
