/**
 * The room's server-side data into the synced state (server/state/schema.ts). At a tick the pose is
 * the one just recorded into the history, rounded as the wire carries it, so a client's patches
 * rebuild the history bit for bit; between ticks only the status changes.
 */
import type { PlayerPose } from '../../shared/lagcomp/pose';
import type { PlayerState } from '../state/schema';
import type { Slot } from './slot';
import { TICK_POSE_STRIDE, TickPose } from './recorder';

const f32 = Math.fround;

/**
 * The slot's pose as the wire carries it (schema.ts): position float64, rotation and clip time
 * float32. This is what the history records, so a client's patches rebuild it bit for bit.
 */
export function wirePose(out: PlayerPose, slot: Slot): PlayerPose {
  const m = slot.move;
  out.x = m.x; out.y = m.y; out.z = m.z;
  out.qx = f32(m.qx); out.qy = f32(m.qy); out.qz = f32(m.qz); out.qw = f32(m.qw);
  out.clip = m.clip; out.time = f32(m.animTime); out.alive = slot.alive; out.epoch = slot.epoch;
  return out;
}

/**
 * One slot's row of a tick record (recorder.ts TickPose layout): the pose, the view the step
 * applied and when it was aimed, and the slot's input arrivals since the previous tick (counted by Slot.takeInput, reset here).
 */
export function writeTickPose(poses: Float64Array, slotIndex: number, pose: PlayerPose, slot: Slot): void {
  const o = slotIndex * TICK_POSE_STRIDE;
  const m = slot.move;
  poses[o + TickPose.VIEW_X] = m.viewX; poses[o + TickPose.VIEW_Y] = m.viewY; poses[o + TickPose.VIEW_Z] = m.viewZ;
  poses[o + TickPose.INPUTS] = slot.inputsSinceTick;
  // How far the seq moved; before a first seq to count from, the inputs themselves.
  poses[o + TickPose.STEPS] = slot.alive ? slot.inputs.lastSteps : 0;
  poses[o + TickPose.VIEW_TIME] = slot.inputs.viewTimeMs;
  slot.inputsSinceTick = 0;
  poses[o + TickPose.PRESENT] = 1;
  poses[o + TickPose.X] = pose.x; poses[o + TickPose.Y] = pose.y; poses[o + TickPose.Z] = pose.z;
  poses[o + TickPose.QX] = pose.qx; poses[o + TickPose.QY] = pose.qy; poses[o + TickPose.QZ] = pose.qz; poses[o + TickPose.QW] = pose.qw;
  poses[o + TickPose.CLIP] = pose.clip; poses[o + TickPose.TIME] = pose.time;
  poses[o + TickPose.ALIVE] = pose.alive ? 1 : 0; poses[o + TickPose.EPOCH] = pose.epoch;
}

/** Pose and status: at a tick (`pose`, the pose just recorded) and at a spawn (pose null: the move state). */
export function syncPlayerState(ps: PlayerState, slot: Slot, pose: PlayerPose | null): void {
  const m = slot.move;
  ps.x = m.x; ps.y = m.y; ps.z = m.z;
  if (pose !== null) {
    ps.qx = pose.qx; ps.qy = pose.qy; ps.qz = pose.qz; ps.qw = pose.qw;
    ps.animTime = pose.time;
  } else {
    ps.qx = m.qx; ps.qy = m.qy; ps.qz = m.qz; ps.qw = m.qw;
    ps.animTime = m.animTime;
  }
  ps.viewX = m.viewX; ps.viewY = m.viewY; ps.viewZ = m.viewZ;
  ps.clip = m.clip;
  ps.inputSeq = slot.appliedInputSeq < 0 ? 0 : slot.appliedInputSeq >>> 0;
  syncStatusState(ps, slot);
}

/**
 * Status only, between ticks (a hit, a kill, a weapon action). The pose stays the one of the last
 * tick: an input may already have turned the move state, and a synced pose must always equal the
 * history's pose at the synced tick time, or clients would predict against a pose the server
 * never recorded.
 */
export function syncStatusState(ps: PlayerState, slot: Slot): void {
  ps.health = slot.health;
  ps.alive = slot.alive;
  ps.kills = slot.kills;
  ps.deaths = slot.deaths;
  ps.epoch = slot.epoch & 0xffff;
  ps.rttMs = slot.rtt.rttMs;
  const sh = slot.shooter;
  const w = sh.equipped;
  ps.weapon = w;
  ps.ammo = Math.max(0, Math.min(0xffff, sh.ammo[w] ?? 0));
  ps.reloadEndMs = sh.reloadEndMs[w] ?? 0;
  ps.drawEndMs = sh.drawEndMs;
}
