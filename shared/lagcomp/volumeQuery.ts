/**
 * The state of one rewound volume query (./rewindVolume): the volume in world space (w), the bounds
 * the broadphase tests it against (firstHit's three per player, then each hitbox's sphere), and the
 * candidate player's posed bones with the changes of frame between world and bone space. The
 * numbers computed here move through typed arrays, never as call arguments or results, so nothing
 * is boxed per query.
 *
 * Broadphase, per player, as Rewinder.firstHit (./rewind) in the same order: the history's swept
 * bound grown by the rig's reach, the rewound root in a rotation-free sphere, the rig's bound sphere
 * carried by the root; each grown by the volume (see reaches). Only then are the bones posed, by the
 * Rewinder's own poseBones.
 */
import { BONE_STRIDE, type Rig } from '../rig/rig';
import { type PlayerHistory, rewindStatusUsable } from './history';
import { createPlayerPose } from './pose';
import type { Rewinder } from './rewind';

/** Volume kinds. */
export const SWEEP = 0, SPHERE = 1, CAPSULE = 2, BOX = 3;
/**
 * w layout: A (or the centre), B, radius, box half extents, box axes (x, y, z, 3 each), |B - A|^2,
 * the sweep's t limit, then the sphere a bound test reads (centre, radius).
 */
export const W_A = 0, W_B = 3, W_R = 6, W_E = 7, W_AXES = 10, W_DD = 19, W_LIM = 20, W_C = 21, W_CR = 24;

// Module scratch (no query re-enters another).
const scratchPose = createPlayerPose();
const scratchRoot = new Float64Array(4);

export class VolumeQuery {
  /** The volume in world space (W_* layout). */
  readonly w = new Float64Array(26);
  /** World bone transforms of the admitted player. */
  readonly bones: Float64Array;
  /** toWorld's answer. */
  readonly tmp = new Float64Array(3);
  /** SWEEP, SPHERE, CAPSULE or BOX. */
  kind = SWEEP;
  /** Players admitted (posed) since the caller last zeroed it. */
  candidates = 0;
  private readonly rewinder: Rewinder;
  private readonly rig: Rig;
  /** Where toLocal writes (the hulls' query) and what toWorld reads (the hulls' answer). */
  private readonly q: Float64Array;
  private readonly res: Float64Array;
  /** Radius of the rotation-free coarse sphere around the root: bound radius + |bound centre| (as Rewinder). */
  private readonly coarseRadius: number;

  constructor(rewinder: Rewinder, q: Float64Array, res: Float64Array) {
    this.rewinder = rewinder;
    const rig = (this.rig = rewinder.rig);
    this.q = q;
    this.res = res;
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    const c2 = rig.boundCenterX * rig.boundCenterX + rig.boundCenterY * rig.boundCenterY + rig.boundCenterZ * rig.boundCenterZ;
    this.coarseRadius = (rig.boundRadius + Math.sqrt(c2)) * (1 + 1e-9);
  }

  /**
   * The three broadphase bounds of firstHit for history h at timeMs, grown by the volume in w; when
   * all pass, poses the player's bones into bones and returns the sample's status, else -1.
   */
  admit(h: PlayerHistory, timeMs: number): number {
    const w = this.w, rig = this.rig, policy = this.rewinder.policy;
    if (!(h.sweepR >= 0)) return -1; // empty
    w[W_C] = h.sweepX; w[W_C + 1] = h.sweepY; w[W_C + 2] = h.sweepZ; w[W_CR] = h.sweepR + this.coarseRadius;
    if (!this.reaches()) return -1;
    const rs = h.sampleRootAt(scratchRoot, timeMs, policy);
    if (!rewindStatusUsable(rs) || scratchRoot[3] !== 1) return -1;
    w[W_C] = scratchRoot[0]; w[W_C + 1] = scratchRoot[1]; w[W_C + 2] = scratchRoot[2]; w[W_CR] = this.coarseRadius;
    if (!this.reaches()) return -1;
    const pose = scratchPose;
    const status = h.sampleAt(pose, timeMs, policy);
    if (!rewindStatusUsable(status) || !pose.alive) return -1;
    const qx = pose.qx, qy = pose.qy, qz = pose.qz, qw = pose.qw;
    const bx = rig.boundCenterX, by = rig.boundCenterY, bz = rig.boundCenterZ;
    const cx0 = qy * bz - qz * by, cy0 = qz * bx - qx * bz, cz0 = qx * by - qy * bx;
    w[W_C] = pose.x + bx + 2 * (qw * cx0 + qy * cz0 - qz * cy0);
    w[W_C + 1] = pose.y + by + 2 * (qw * cy0 + qz * cx0 - qx * cz0);
    w[W_C + 2] = pose.z + bz + 2 * (qw * cz0 + qx * cy0 - qy * cx0);
    w[W_CR] = rig.boundRadius;
    if (!this.reaches()) return -1;
    this.candidates++;
    this.rewinder.poseBones(this.bones, pose);
    return status;
  }

  /**
   * Whether the volume in w reaches the sphere (w[W_C..], w[W_CR]): for the sweep, the path enters
   * it grown by the radius before w[W_LIM]; for spheres and capsules, the core is within its radius
   * plus the volume's; for the box, the box comes within its radius.
   */
  reaches(): boolean {
    const w = this.w;
    const cx = w[W_C], cy = w[W_C + 1], cz = w[W_C + 2], R = w[W_CR];
    const ax = w[W_A], ay = w[W_A + 1], az = w[W_A + 2];
    const kind = this.kind;
    if (kind === SWEEP) {
      // As segmentEntersSphere (./rewind), inline: the start inside, or the entry at t <= limit.
      const mx = ax - cx, my = ay - cy, mz = az - cz, rr = R + w[W_R];
      const c = mx * mx + my * my + mz * mz - rr * rr;
      if (c <= 0) return true;
      const dd = w[W_DD];
      const b = mx * (w[W_B] - ax) + my * (w[W_B + 1] - ay) + mz * (w[W_B + 2] - az);
      if (b >= 0) return false;
      const disc = b * b - dd * c;
      return disc >= 0 && -b - Math.sqrt(disc) <= w[W_LIM] * dd;
    }
    let d2 = 0;
    if (kind === BOX) {
      const px = cx - ax, py = cy - ay, pz = cz - az;
      for (let k = 0; k < 3; k++) {
        const d = Math.abs(px * w[W_AXES + 3 * k] + py * w[W_AXES + 3 * k + 1] + pz * w[W_AXES + 3 * k + 2]) - w[W_E + k];
        if (d > 0) d2 += d * d;
      }
      return d2 <= R * R;
    }
    let px = cx - ax, py = cy - ay, pz = cz - az;
    if (kind === CAPSULE) {
      const dx = w[W_B] - ax, dy = w[W_B + 1] - ay, dz = w[W_B + 2] - az;
      let s = (px * dx + py * dy + pz * dz) / w[W_DD];
      s = s < 0 ? 0 : s > 1 ? 1 : s;
      px -= s * dx; py -= s * dy; pz -= s * dz;
    }
    d2 = px * px + py * py + pz * pz;
    const rr = R + w[W_R];
    return d2 <= rr * rr;
  }

  /** Hitbox h's bone-local bounding sphere carried to world space into w[W_C..], w[W_CR] (padded for rounding). */
  hitboxSphere(h: number): void {
    const b = this.bones, o = h * BONE_STRIDE, s = this.rig.hitboxSpheres, s4 = h * 4, w = this.w;
    const qx = b[o + 3], qy = b[o + 4], qz = b[o + 5], qw = b[o + 6];
    const lx = s[s4], ly = s[s4 + 1], lz = s[s4 + 2];
    const ux = qy * lz - qz * ly, uy = qz * lx - qx * lz, uz = qx * ly - qy * lx;
    w[W_C] = b[o] + lx + 2 * (qw * ux + qy * uz - qz * uy);
    w[W_C + 1] = b[o + 1] + ly + 2 * (qw * uy + qz * ux - qx * uz);
    w[W_C + 2] = b[o + 2] + lz + 2 * (qw * uz + qx * uy - qy * ux);
    w[W_CR] = s[s4 + 3] * (1 + 1e-9) + 1e-9;
  }

  /** w[src..] (a point, or a direction when !point) into hitbox h's bone frame at q[dst..]: R^T (v - T). */
  toLocal(h: number, src: number, dst: number, point: boolean): void {
    const b = this.bones, o = h * BONE_STRIDE, w = this.w, q = this.q;
    const qx = -b[o + 3], qy = -b[o + 4], qz = -b[o + 5], qw = b[o + 6];
    let px = w[src], py = w[src + 1], pz = w[src + 2];
    if (point) {
      px -= b[o]; py -= b[o + 1]; pz -= b[o + 2];
    }
    const cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
    q[dst] = px + 2 * (qw * cx + qy * cz - qz * cy);
    q[dst + 1] = py + 2 * (qw * cy + qz * cx - qx * cz);
    q[dst + 2] = pz + 2 * (qw * cz + qx * cy - qy * cx);
  }

  /** res[src..] (bone frame of hitbox h; a point, or a direction when !point) to world space in tmp. */
  toWorld(h: number, src: number, point: boolean): void {
    const b = this.bones, o = h * BONE_STRIDE, r = this.res, out = this.tmp;
    const qx = b[o + 3], qy = b[o + 4], qz = b[o + 5], qw = b[o + 6];
    const px = r[src], py = r[src + 1], pz = r[src + 2];
    const cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
    out[0] = px + 2 * (qw * cx + qy * cz - qz * cy) + (point ? b[o] : 0);
    out[1] = py + 2 * (qw * cy + qz * cx - qx * cz) + (point ? b[o + 1] : 0);
    out[2] = pz + 2 * (qw * cz + qx * cy - qy * cx) + (point ? b[o + 2] : 0);
  }
}
