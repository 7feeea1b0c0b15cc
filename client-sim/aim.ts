/**
 * A bot's view and trigger readiness, as the one human model (./human/) has a person aim: the
 * player's traits are drawn once (traits.ts); a new target is engaged after a reaction time and
 * the trigger waits until the view has been on the target's body for a confirmation delay; the
 * first aim overshoots by the model's flick overshoot (a share of the turn onto the target) and
 * settles while tracking; the view follows what the player wants to look at with a first-order
 * lag (the player's pursuit time constant) at no more than a brisk human turn rate, and the hand
 * wobbles (the model's Ornstein-Uhlenbeck wobble with the player's spread, 0.7 of it in height).
 * Without a target the view turns toward where the player walks, a little below the horizon. The
 * noise is in the view itself; a shot goes where the view points.
 *
 * Where the view may go differs from the synthetic players (server/behaviour/synth/synthPlayers.ts) in one
 * way: the view is a direction turned step by step (no minimum-jerk flick plan), since every input
 * carries it to the real room. Nothing is allocated per call.
 */
import type { Rng } from './rng';
import { drawConfirm, drawReaction, drawTraits, type HumanTraits } from './human/traits';
import { drawIdlePitch, drawOvershoot, IDLE_TURN_RATE, PITCH_WOBBLE, pursuitGain, wobbleKick, wobbleStep } from './human/hand';

/** Fastest view turn toward a target, radians per second (~570 degrees/s: a fast human flick). */
export const TURN_RATE = 10;
/** The first aim's error fades with this time constant while tracking, ms. */
const SETTLE_MS = 300;

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
  /** This engagement's flick overshoot, a share of the turn onto the target (the model's drawOvershoot). */
  overshoot = 0;
  /** Turn rate multiplier (1 human; the aim-lock cheat turns faster). */
  turnScale = 1;
  /** Confirmation delay of the current engagement (ms) and since when the view is on the body (-1: not). */
  confirmMs = 130;
  onBodySince = -1;
  /** This player's make-up, and where it looks in height without a target (radians). */
  readonly traits: HumanTraits;
  readonly idlePitch: number;
  /** The first aim's error, metres per axis (the overshoot, fixed at the first aim of an engagement). */
  private errX = 0;
  private errY = 0;
  private errZ = 0;
  private errSet = false;
  /** The hand's wobble per axis, in units of its spread (stationary variance 1). */
  private driftX = 0;
  private driftY = 0;
  private driftZ = 0;

  constructor(private readonly rng: Rng) {
    this.traits = drawTraits(rng);
    this.idlePitch = drawIdlePitch(rng);
  }

  /** Sets the direction to turn the view toward (the view follows at the turn rate). */
  lookAt(dx: number, dy: number, dz: number): void {
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 1e-6)) return;
    this.wantX = dx / l; this.wantY = dy / l; this.wantZ = dz / l;
  }

  /** Without a target: look along the horizontal direction (dx, dz) where the player walks, at its idle pitch, with the hand's wobble. */
  lookIdle(dx: number, dz: number): void {
    const yaw = Math.atan2(dx, dz) + this.traits.noiseRad * this.driftX;
    const pitch = this.idlePitch + PITCH_WOBBLE * this.traits.noiseRad * this.driftY;
    const c = Math.cos(pitch);
    this.lookAt(Math.sin(yaw) * c, Math.sin(pitch), Math.cos(yaw) * c);
  }

  /** The hand's wobble across the line of sight now, radians. */
  wobbleAcross(): number {
    return this.traits.noiseRad * this.driftX;
  }

  /** Angle between the view and the wanted direction, radians. */
  error(): number {
    const d = this.viewX * this.wantX + this.viewY * this.wantY + this.viewZ * this.wantZ;
    return Math.acos(Math.max(-1, Math.min(1, d)));
  }

  /**
   * Moves the view toward the wanted direction: with a target, a first-order lag (the model's
   * pursuit gain over dt), at most the turn rate times dt; without one, at the model's idle turn
   * rate. Never a teleport: the body's yaw follows the view, and a snap between two ticks would
   * make the snapshots the others interpolate differ from the server's history more than any human
   * turn does.
   */
  turn(dtMs: number): void {
    const kick = wobbleKick(1, dtMs);
    this.driftX = wobbleStep(this.driftX, kick, dtMs, this.rng);
    this.driftY = wobbleStep(this.driftY, kick, dtMs, this.rng);
    this.driftZ = wobbleStep(this.driftZ, kick, dtMs, this.rng);
    const angle = this.error();
    const tracking = this.target >= 0;
    const rate = (tracking ? TURN_RATE : IDLE_TURN_RATE) * this.turnScale;
    let step = rate * (dtMs / 1000);
    if (tracking) step = Math.min(step, angle * pursuitGain(dtMs * this.turnScale, this.traits.pursuitTauMs));
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

  /**
   * Engages `target` at local time `now`: the model's reaction time (scaled by `reactionScale`),
   * confirmation delay and flick overshoot, drawn in that order.
   */
  engage(target: number, now: number, reactionScale = 1): void {
    this.target = target;
    this.acquiredAt = now;
    this.readyAt = now + reactionScale * drawReaction(this.traits, this.rng);
    this.confirmMs = drawConfirm(this.rng);
    this.overshoot = drawOvershoot(this.rng);
    this.onBodySince = -1;
    this.errSet = false;
    this.errX = 0; this.errY = 0; this.errZ = 0;
  }

  /**
   * Wants to look at a human aim point at `p` (a point inside the target, `dist` from the eye): past
   * it by the overshoot of the turn from where the view pointed at the first aim, fading while
   * tracking, plus the hand's wobble (the player's spread as a distance across the line of sight).
   */
  aimAt(eye: Float64Array, p: Float64Array, dist: number, now: number): void {
    if (!this.errSet) {
      const o = this.overshoot;
      this.errX = o * (p[0]! - eye[0]! - this.viewX * dist);
      this.errY = o * (p[1]! - eye[1]! - this.viewY * dist);
      this.errZ = o * (p[2]! - eye[2]! - this.viewZ * dist);
      this.errSet = true;
    }
    const decay = Math.exp(-(now - this.acquiredAt) / SETTLE_MS);
    const sigma = this.traits.noiseRad * dist;
    this.lookAt(
      p[0]! + decay * this.errX + sigma * this.driftX - eye[0]!,
      p[1]! + decay * this.errY + PITCH_WOBBLE * sigma * this.driftY - eye[1]!,
      p[2]! + decay * this.errZ + sigma * this.driftZ - eye[2]!,
    );
  }

  /**
   * A human aim point near `p` (a point inside the target) into out (the aim-lock cheat's): the
   * first aim's error faded over the time tracked, plus hand noise (0.1 m + 1 cm per metre of
   * distance) scaled by `noiseScale`.
   */
  humanPoint(out: Float64Array, p: Float64Array, dist: number, now: number, noiseScale = 1): Float64Array {
    const decay = Math.exp(-(now - this.acquiredAt) / SETTLE_MS);
    const sigma = (0.1 + 0.01 * dist) * noiseScale;
    out[0] = p[0]! + decay * this.errX + sigma * this.rng.normal();
    out[1] = p[1]! + decay * this.errY + sigma * this.rng.normal();
    out[2] = p[2]! + decay * this.errZ + sigma * this.rng.normal();
    return out;
  }
}
