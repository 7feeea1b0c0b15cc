/**
 * Aiming as a person does it (the human the audit's detection is calibrated on, synthPlayers.ts):
 * a new target is engaged after a reaction time; the view then follows what the player wants to
 * look at with a first-order lag (a time constant of 80-130 ms per player, so a flick slows onto
 * the target and a moving target is trailed) at no more than a brisk human turn rate, and the hand
 * wobbles (a smooth drift of 0.8-1.5 degrees per player); the first aim is off and settles while
 * tracking. The trigger waits until the view has been on the target's body for a confirmation
 * delay (60 ms + lognormal, median 130 ms). The noise is in the view itself; a shot goes where the
 * view points. Also
 * target picking in the rendered view: the nearest player rendered alive whose chest is (or, for
 * the cheats, is not) in line of sight, and aim points inside a hit zone's hitbox.
 *
 * Everything is scratch owned by the instance; nothing is allocated per call.
 */
import { createPlayerPose } from '../shared/lagcomp/pose';
import { BONE_STRIDE, HitZone, type Rig } from '../shared/rig/rig';
import { transformPoint } from '../shared/rig/posing';
import type { World } from '../shared/world/world';
import type { Rng } from './rng';
import { Snap, type MatchView } from './view';

/** Fastest view turn toward a target, radians per second (~570 degrees/s: a fast human flick). */
export const TURN_RATE = 10;
/** View turn while just walking around (looking where one goes), radians per second. */
export const WANDER_TURN_RATE = 1.5;
/** Time constant of the hand's drift, ms (an Ornstein-Uhlenbeck process per axis). */
const HAND_DRIFT_MS = 120;

export class Aim {
  /** The view direction sent with inputs (unit). */
  viewX = 0;
  viewY = 0;
  viewZ = 1;
  /** Where the player wants to look (unit). */
  wantX = 0;
  wantY = 0;
  wantZ = 1;
  /** Engaged target slot, -1 when none; when it was acquired and when the player may first fire at it. */
  target = -1;
  acquiredAt = 0;
  readyAt = 0;
  /** Initial aim error at acquisition, metres per axis (decays while tracking). */
  errX = 0;
  errY = 0;
  errZ = 0;
  /** Turn rate multiplier (1 human; the aim-lock cheat turns faster). */
  turnScale = 1;
  /** The hand's drift per axis, in units of its spread (stationary variance 1). */
  private driftX = 0;
  private driftY = 0;
  private driftZ = 0;
  /** This player's make-up: pursuit lag time constant (ms), hand wobble (radians). */
  readonly pursuitTauMs: number;
  readonly wobbleRad: number;
  /** Confirmation delay of the current engagement (ms) and since when the view is on the body (-1: not). */
  confirmMs = 130;
  onBodySince = -1;
  private readonly pose = createPlayerPose();
  private readonly bones: Float64Array;
  private readonly pt = new Float64Array(3);
  /** Bone-local centroid of each hitbox (an aim point inside it) and the first hitbox of each zone. */
  readonly centroids: Float64Array;
  private readonly zoneHitbox: Int32Array;

  constructor(private readonly rig: Rig, private readonly world: World, private readonly view: MatchView, private readonly rng: Rng) {
    this.pursuitTauMs = rng.uniform(80, 130);
    this.wobbleRad = rng.uniform(0.8, 1.5) * (Math.PI / 180);
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

  /** Sets the direction to turn the view toward (the view follows at the turn rate). */
  lookAt(dx: number, dy: number, dz: number): void {
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 1e-6)) return;
    this.wantX = dx / l; this.wantY = dy / l; this.wantZ = dz / l;
  }

  /** Angle between the view and the wanted direction, radians. */
  error(): number {
    const d = this.viewX * this.wantX + this.viewY * this.wantY + this.viewZ * this.wantZ;
    return Math.acos(Math.max(-1, Math.min(1, d)));
  }

  /**
   * Moves the view toward the wanted direction: with a target, a first-order lag (fraction
   * 1 - exp(-dt / tau) of the way), at most the turn rate times dt; without one, at the wandering
   * turn rate. Never a teleport: the body's yaw follows the view, and a snap between two ticks would
   * make the snapshots the others interpolate differ from the server's history more than any human
   * turn does.
   */
  turn(dtMs: number): void {
    const k = Math.min(1, dtMs / HAND_DRIFT_MS), g = Math.sqrt(2 * k);
    this.driftX += -k * this.driftX + g * this.rng.normal();
    this.driftY += -k * this.driftY + g * this.rng.normal();
    this.driftZ += -k * this.driftZ + g * this.rng.normal();
    const angle = this.error();
    const tracking = this.target >= 0;
    const rate = (tracking ? TURN_RATE : WANDER_TURN_RATE) * this.turnScale;
    let step = rate * (dtMs / 1000);
    if (tracking) step = Math.min(step, angle * (1 - Math.exp(-(dtMs * this.turnScale) / this.pursuitTauMs)));
    if (angle <= step || angle < 1e-6) {
      this.viewX = this.wantX; this.viewY = this.wantY; this.viewZ = this.wantZ;
      return;
    }
    // slerp by step / angle
    const f = step / angle;
    const sa = Math.sin(angle);
    const a = Math.sin((1 - f) * angle) / sa, b = Math.sin(f * angle) / sa;
    let x = a * this.viewX + b * this.wantX, y = a * this.viewY + b * this.wantY, z = a * this.viewZ + b * this.wantZ;
    const l = Math.sqrt(x * x + y * y + z * z) || 1;
    x /= l; y /= l; z /= l;
    this.viewX = x; this.viewY = y; this.viewZ = z;
  }

  /**
   * Whether the view is on the body at `p` (`dist` away; within 0.3 m of the line of sight) and has
   * been for this engagement's confirmation delay, at local time `now`.
   */
  confirmed(eye: Float64Array, p: Float64Array, dist: number, now: number): boolean {
    const dx = p[0]! - eye[0]!, dy = p[1]! - eye[1]!, dz = p[2]! - eye[2]!;
    const along = dx * this.viewX + dy * this.viewY + dz * this.viewZ;
    const ox = dx - along * this.viewX, oy = dy - along * this.viewY, oz = dz - along * this.viewZ;
    const on = along > 0 && ox * ox + oy * oy + oz * oz <= 0.09 && dist > 0;
    if (!on) {
      this.onBodySince = -1;
      return false;
    }
    if (this.onBodySince < 0) this.onBodySince = now;
    return now - this.onBodySince >= this.confirmMs;
  }

  /** Snaps the view onto the wanted direction (cheats only). */
  snap(): void {
    this.viewX = this.wantX; this.viewY = this.wantY; this.viewZ = this.wantZ;
  }

  /** Engages `target` at local time `now`: a human reaction time and an initial aim error. */
  engage(target: number, now: number, reactionScale = 1): void {
    this.target = target;
    this.acquiredAt = now;
    // Human reaction: 140 ms + lognormal (median about 240 ms, a long tail).
    this.readyAt = now + reactionScale * (140 + 100 * Math.exp(0.45 * this.rng.normal()));
    // Confirmation on the body before the trigger: 60 ms + lognormal (median 130 ms).
    this.confirmMs = 60 + 70 * Math.exp(0.4 * this.rng.normal());
    this.onBodySince = -1;
    // The first aim is off by up to about half a metre and converges while tracking.
    this.errX = 0.25 * this.rng.normal();
    this.errY = 0.25 * this.rng.normal();
    this.errZ = 0.25 * this.rng.normal();
  }

  /**
   * Wants to look at a human aim point at `p` (a point inside the target, `dist` from the eye): the
   * initial error decayed over the time tracked, plus the hand's wobble (this player's 0.8-1.5
   * degrees, as a distance across the line of sight).
   */
  aimAt(eye: Float64Array, p: Float64Array, dist: number, now: number): void {
    const decay = Math.exp(-(now - this.acquiredAt) / 300);
    const sigma = this.wobbleRad * dist;
    this.lookAt(
      p[0]! + decay * this.errX + sigma * this.driftX - eye[0]!,
      p[1]! + decay * this.errY + 0.7 * sigma * this.driftY - eye[1]!,
      p[2]! + decay * this.errZ + sigma * this.driftZ - eye[2]!,
    );
  }

  /**
   * A human aim point near `p` (a point inside the target) into out: the initial error decayed over
   * the time tracked, plus hand noise (0.1 m + 1 cm per metre of distance, about 0.6 degrees).
   */
  humanPoint(out: Float64Array, p: Float64Array, dist: number, now: number, noiseScale = 1): Float64Array {
    const decay = Math.exp(-(now - this.acquiredAt) / 300);
    const sigma = (0.1 + 0.01 * dist) * noiseScale;
    out[0] = p[0]! + decay * this.errX + sigma * this.rng.normal();
    out[1] = p[1]! + decay * this.errY + sigma * this.rng.normal();
    out[2] = p[2]! + decay * this.errZ + sigma * this.rng.normal();
    return out;
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
      if (s === self || !v.present(s) || !v.aliveLatest(s)) continue;
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
