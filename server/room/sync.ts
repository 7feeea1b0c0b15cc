/**
 * The room's server-side data into the synced state (server/state/schema.ts). At a tick the pose is
 * the one just recorded into the history, rounded as the wire carries it, so a client's patches
 * rebuild the history bit for bit; between ticks only the status changes.
 */
import type { PlayerPose } from '../../shared/lagcomp/pose';
import type { PlayerState } from '../state/schema';
import type { Slot } from './slot';

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
  ps.inputSeq = slot.lastInputSeq < 0 ? 0 : slot.lastInputSeq >>> 0;
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
