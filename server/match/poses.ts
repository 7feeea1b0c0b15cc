/**
 * The pose adapter: how a match reads each player's pose from the game's own state once per tick,
 * whatever the game's schema calls its fields. The game writes what it has into `out`; what it
 * leaves alone keeps its default. Shots are judged against the root, the orientation, the
 * animation and the eye height; the view and input fields feed only the audit's behaviour measures.
 *
 * Give each value exactly as the game's clients receive it (Math.fround a float32 field): a client
 * that records what it received then rewinds exactly what the server rewinds.
 */
import { setYawFromDirection, type PlayerPose } from '../../shared/lagcomp/pose';
import { TICK_POSE_STRIDE, TickPose } from './recorder';

/** One player's pose as the adapter writes it. */
export interface PoseInput {
  /** Root (the feet), world space, metres. Required. */
  x: number;
  y: number;
  z: number;
  /**
   * Body orientation as a unit quaternion. Leave qw NaN to have the yaw taken from the view
   * direction's horizontal part (no trigonometry needed of the caller).
   */
  qx: number;
  qy: number;
  qz: number;
  qw: number;
  /** Aim direction (need not be unit), or NaN when the game does not say (behaviour measures only). */
  viewX: number;
  viewY: number;
  viewZ: number;
  /** Eye above the root, metres (crouching lowers it); NaN: the rig's eye height. */
  eyeHeight: number;
  /** Animation clip index of the rig and its time in seconds; default clip 0 at 0 s (a fixed pose). */
  clip: number;
  time: number;
  /**
   * The stamp (the client's estimate of the server clock, ms) of the newest input this pose has
   * stepped, NaN when the game does not stamp its inputs: a shot claimed at time t is judged from
   * the eye this player had after its inputs stamped up to t, never from where it went after; the
   * audit also reads it as when the view was aimed.
   */
  inputStampMs: number;
  /** Behaviour only, NaN when unknown: input messages since the last tick and movement steps this tick. */
  inputs: number;
  steps: number;
}

/** The game's pose reader: fill `out` for player `id` (called once per tick for each player present). */
export type PoseAdapter<Id> = (id: Id, out: PoseInput) => void;

export function createPoseInput(): PoseInput {
  const p = {} as PoseInput;
  resetPoseInput(p);
  return p;
}

/** Defaults before the adapter runs: nothing known but the fixed pose. */
export function resetPoseInput(p: PoseInput): void {
  p.x = Number.NaN; p.y = Number.NaN; p.z = Number.NaN;
  p.qx = 0; p.qy = 0; p.qz = 0; p.qw = Number.NaN;
  p.viewX = Number.NaN; p.viewY = Number.NaN; p.viewZ = Number.NaN;
  p.eyeHeight = Number.NaN;
  p.clip = 0; p.time = 0;
  p.inputs = Number.NaN; p.steps = Number.NaN; p.inputStampMs = Number.NaN;
}

/**
 * The adapter's output as a history pose (alive and epoch are the match's): the orientation from
 * the quaternion, or from the view's yaw when qw was left NaN, or upright facing +Z.
 */
export function poseFromInput(out: PlayerPose, p: PoseInput, alive: boolean, epoch: number): PlayerPose {
  out.x = p.x; out.y = p.y; out.z = p.z;
  if (p.qw === p.qw) {
    out.qx = p.qx; out.qy = p.qy; out.qz = p.qz; out.qw = p.qw;
  } else if (!setYawFromDirection(out, p.viewX, p.viewZ)) {
    out.qx = 0; out.qy = 0; out.qz = 0; out.qw = 1;
  }
  out.clip = p.clip;
  out.time = p.time;
  out.alive = alive;
  out.epoch = epoch;
  out.eyeHeight = p.eyeHeight;
  out.stampMs = p.inputStampMs;
  return out;
}

/** One present slot's row of a tick record (recorder.ts TickPose): the pose as recorded, then what the adapter said for the audit. */
export function writeTickRow(rows: Float64Array, slot: number, pose: PlayerPose, input: PoseInput): void {
  const o = slot * TICK_POSE_STRIDE;
  rows[o + TickPose.PRESENT] = 1;
  rows[o + TickPose.X] = pose.x; rows[o + TickPose.Y] = pose.y; rows[o + TickPose.Z] = pose.z;
  rows[o + TickPose.QX] = pose.qx; rows[o + TickPose.QY] = pose.qy; rows[o + TickPose.QZ] = pose.qz; rows[o + TickPose.QW] = pose.qw;
  rows[o + TickPose.CLIP] = pose.clip; rows[o + TickPose.TIME] = pose.time;
  rows[o + TickPose.ALIVE] = pose.alive ? 1 : 0; rows[o + TickPose.EPOCH] = pose.epoch;
  rows[o + TickPose.VIEW_X] = input.viewX; rows[o + TickPose.VIEW_Y] = input.viewY; rows[o + TickPose.VIEW_Z] = input.viewZ;
  rows[o + TickPose.INPUTS] = input.inputs; rows[o + TickPose.STEPS] = input.steps; rows[o + TickPose.STAMP] = input.inputStampMs;
  rows[o + TickPose.EYE] = pose.eyeHeight;
}
