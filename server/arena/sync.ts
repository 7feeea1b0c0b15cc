/**
 * The arena's data into its synced state (schema.ts). At a tick the pose is the one the match just
 * recorded into its history, rounded as the wire carries it (float32 rotation and animation time),
 * so a client's patches rebuild the history bit for bit; between ticks only the status changes.
 */
import type { HitregPlayer, PoseInput } from '../match/index';
import type { PlayerState, RosterEntry } from './schema';
import type { ArenaPlayer } from './player';

const f32 = Math.fround;

/**
 * The pose adapter's answer for an arena player (the match records it): position float64, rotation
 * and clip time float32 as the schema carries them, and what the audit's behaviour measures read:
 * the view the movement step applied, the inputs taken since the previous tick (reset here), the
 * movement steps this tick took, and the stamp of the newest input stepped.
 */
export function writePose(out: PoseInput, p: ArenaPlayer, alive: boolean): void {
  const m = p.move;
  out.x = m.x; out.y = m.y; out.z = m.z;
  out.qx = f32(m.qx); out.qy = f32(m.qy); out.qz = f32(m.qz); out.qw = f32(m.qw);
  out.clip = m.clip; out.time = f32(m.animTime);
  out.viewX = m.viewX; out.viewY = m.viewY; out.viewZ = m.viewZ;
  out.inputs = p.inputsSinceTick;
  p.inputsSinceTick = 0;
  out.steps = alive ? p.inputs.lastSteps : 0;
  out.inputStampMs = p.inputs.stampMs;
}

/** Pose and status into the synced state, at a tick and at a spawn (the pose as writePose rounds it). */
export function syncPlayerState(ps: PlayerState, p: ArenaPlayer, h: HitregPlayer<string>): void {
  const m = p.move;
  ps.x = m.x; ps.y = m.y; ps.z = m.z;
  ps.qx = f32(m.qx); ps.qy = f32(m.qy); ps.qz = f32(m.qz); ps.qw = f32(m.qw);
  ps.animTime = f32(m.animTime);
  ps.viewX = m.viewX; ps.viewY = m.viewY; ps.viewZ = m.viewZ;
  ps.clip = m.clip;
  ps.inputSeq = p.appliedInputSeq < 0 ? 0 : p.appliedInputSeq >>> 0;
  syncStatusState(ps, h);
}

/**
 * Status only, between ticks (a hit, a kill, a weapon action). The pose stays the one of the last
 * tick: an input may already have turned the move state, and a synced pose must always equal the
 * history's pose at the synced tick time, or clients would predict against a pose the server
 * never recorded.
 */
export function syncStatusState(ps: PlayerState, h: HitregPlayer<string>): void {
  ps.health = h.health;
  ps.alive = h.alive;
  ps.kills = h.kills;
  ps.deaths = h.deaths;
  ps.epoch = h.epoch & 0xffff;
  ps.rttMs = h.rttMs;
  const w = h.weapons;
  const e = w.equipped;
  ps.weapon = e;
  ps.ammo = Math.max(0, Math.min(0xffff, w.ammo[e] ?? 0));
  ps.reloadEndMs = w.reloadEndMs[e] ?? 0;
  ps.drawEndMs = w.drawEndMs;
}

/** The scoreboard fields of a player into its roster entry (fog of war on). */
export function syncRoster(r: RosterEntry, h: HitregPlayer<string>): void {
  r.kills = h.kills;
  r.deaths = h.deaths;
  r.connected = h.connected;
  r.rttMs = h.rttMs;
}
