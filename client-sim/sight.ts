/**
 * What a bot sees in its rendered view: the nearest player rendered alive whose chest is (or, for
 * the cheats, is not) in line of sight, and points inside a player's hitboxes (a hit zone's, or a
 * given hitbox's) at a render time, posed by the rig as the server poses it.
 *
 * Everything is scratch owned by the instance; nothing is allocated per call.
 */
import { createPlayerPose } from '../shared/lagcomp/pose';
import { BONE_STRIDE, HitZone, type Rig } from '../shared/rig/rig';
import { transformPoint } from '../shared/rig/posing';
import type { World } from '../shared/world/world';
import { Snap, type MatchView } from './view';

export class Sight {
  private readonly pose = createPlayerPose();
  private readonly bones: Float64Array;
  private readonly pt = new Float64Array(3);
  /** Bone-local centroid of each hitbox (an aim point inside it) and the first hitbox of each zone. */
  private readonly centroids: Float64Array;
  private readonly zoneHitbox: Int32Array;

  constructor(rig: Rig, private readonly world: World, private readonly view: MatchView) {
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    this.centroids = new Float64Array(rig.hitboxCount * 3);
    this.zoneHitbox = new Int32Array(32).fill(-1);
    for (let h = 0; h < rig.hitboxCount; h++) {
      let x = 0, y = 0, z = 0, n = 0;
      for (let t = rig.triStart[h]!; t < rig.triStart[h + 1]!; t++) {
        for (let k = 0; k < 3; k++) {
          x += rig.triangles[t * 9 + k * 3]!; y += rig.triangles[t * 9 + k * 3 + 1]!; z += rig.triangles[t * 9 + k * 3 + 2]!;
          n++;
        }
      }
      this.centroids[h * 3] = x / n; this.centroids[h * 3 + 1] = y / n; this.centroids[h * 3 + 2] = z / n;
      const zone = rig.hitboxZone[h]!;
      if (this.zoneHitbox[zone] === -1) this.zoneHitbox[zone] = h;
    }
  }

  /** World point inside `slot`'s hitbox of `zone` at render time `t`; false when not renderable or dead there. */
  zonePoint(out: Float64Array, slot: number, t: number, zone: number): boolean {
    if (!this.view.renderPose(this.pose, slot, t) || !this.pose.alive) return false;
    const h = Math.max(0, this.zoneHitbox[zone] ?? 0);
    this.view.rewinder.poseBones(this.bones, this.pose);
    transformPoint(out, 0, this.bones, h * BONE_STRIDE, this.centroids[h * 3]!, this.centroids[h * 3 + 1]!, this.centroids[h * 3 + 2]!);
    return true;
  }

  /** A point inside hitbox `h` of `slot` at render time `t`, offset in bone space by (ox, oy, oz). */
  hitboxPoint(out: Float64Array, slot: number, t: number, h: number, ox = 0, oy = 0, oz = 0): boolean {
    if (!this.view.renderPose(this.pose, slot, t) || !this.pose.alive) return false;
    this.view.rewinder.poseBones(this.bones, this.pose);
    transformPoint(out, 0, this.bones, h * BONE_STRIDE, this.centroids[h * 3]! + ox, this.centroids[h * 3 + 1]! + oy, this.centroids[h * 3 + 2]! + oz);
    return true;
  }

  /**
   * Nearest other player (not `self`) rendered alive at time t whose chest is (visible = true) or is
   * not (visible = false) in line of sight from `eye`, within maxDist. `doomed` (health minus
   * damage on its way, by slot) skips players already as good as dead; `accept` (when given) must
   * say yes to a slot too; -1 when none.
   */
  findTarget(self: number, eye: Float64Array, t: number, visible: boolean, maxDist: number, doomed: Float64Array | null, accept?: (slot: number) => boolean): number {
    let best = -1;
    let bestD = maxDist * maxDist;
    const p = this.pt;
    const v = this.view;
    for (let s = 0; s < v.maxPlayers; s++) {
      if (s === self || !v.holdsAt(s, t) || !v.aliveLatest(s)) continue;
      if (doomed !== null && v.latestValue(s, Snap.HEALTH) - doomed[s]! <= 0) continue;
      if (!this.zonePoint(p, s, t, HitZone.UPPER_TORSO)) continue;
      const dx = p[0]! - eye[0]!, dy = p[1]! - eye[1]!, dz = p[2]! - eye[2]!;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 >= bestD || (accept !== undefined && !accept(s))) continue;
      const blocked = this.world.anyHit(eye[0]!, eye[1]!, eye[2]!, p[0]!, p[1]!, p[2]!);
      if (blocked === visible) continue;
      best = s;
      bestD = d2;
    }
    return best;
  }
}
