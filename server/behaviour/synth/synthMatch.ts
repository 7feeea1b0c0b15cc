/**
 * A seeded synthetic match for benchmarks, tamper tests and detection numbers: 16 (by default)
 * players walk the level with the real movement step, their snapshots go into real histories, and
 * their shots are judged by the real validateShot against the real world and rig, then recorded
 * through the real MatchLogRecorder: the same records a room writes, minus the sockets (so a long
 * match takes seconds). Honest players play like people (synthPlayers.ts: reaction, flick,
 * pursuit, hand noise, taps, bursts and sprays while walking); the rule-abiding inhuman profiles of
 * synthPlayers.ts change one part of that by a strength. Three rule-breaking caricatures remain
 * for the tamper and throughput tests: `aimbot` (instant head shots with a view snap), `wallhack`
 * (shoots at players behind walls) and `backtrack` (claims render times past the claim tolerance).
 *
 * This module steps the ticks: each player turns (synthHuman.ts, synthCaricature.ts), moves and is
 * recorded, then each pulls its trigger; the match's state and shot path are in synthState.ts.
 */
import { createMoveState, stepMovement } from '../../../shared/movement/step';
import { TICK_POSE_STRIDE, TickPose } from '../../match/recorder';
import { fightWish, sampleRoundTrip, type Player } from './synthPlayer';
import { SynthMatchState } from './synthState';
import { humanTrigger, perceiveAndTurn } from './synthHuman';
import { caricatureTrigger, caricatureTurn } from './synthCaricature';
import type { SynthMatchOptions, SynthMatchResult } from './synthOptions';

export { defaultRules } from './synthRules';
export { Behaviour, CheatKind, INHUMAN_PROFILES } from './synthPlayers';
export type { SynthMatchOptions, SynthMatchResult } from './synthOptions';

export async function synthesizeMatch(options: SynthMatchOptions): Promise<SynthMatchResult> {
  const s = new SynthMatchState(options);
  const spray = options.trigger === 'spray';
  for (let tick = 1; tick <= s.ticks; tick++) {
    const t = tick * s.dtMs;
    s.poses.fill(0);
    for (const pl of s.players) stepPlayer(s, pl, tick, t);
    s.rec.tick({ tick, timeMs: t, poses: s.poses });
    for (const pl of s.players) {
      if (!pl.alive) pl.target = -1;
      else if (!pl.legacy && !spray) humanTrigger(s, pl, t);
      else caricatureTrigger(s, pl, t, spray);
    }
    // Let the writer flush now and then, as it would between ticks of a live room.
    if (tick % 256 === 0) await new Promise((r) => setImmediate(r));
  }
  const stats = await s.rec.finish();
  return { path: options.path, shots: s.shots, ticks: s.ticks, hits: s.hits, stats, cheats: s.cheats };
}

/** `pl`'s part of tick `tick` (time `t`) before the tick is recorded: respawn, turn, move, record. */
function stepPlayer(s: SynthMatchState, pl: Player, tick: number, t: number): void {
  if (!pl.alive && pl.respawnAtMs > 0 && t >= pl.respawnAtMs) respawn(s, pl, t);
  if (t >= pl.nextWishMs) {
    pl.wishYaw = s.rng.next() * 2 * Math.PI;
    pl.nextWishMs = t + 500 + s.rng.next() * 1500;
  }
  if (pl.legacy) caricatureTurn(pl, s.dtMs);
  else if (pl.alive) perceiveAndTurn(s, pl, tick, t);
  else pl.engagement = null;
  // The room applies the view of the input that arrived before the tick: a human's heading is
  // recorded one tick behind the view its shots leave along (the caricatures' snap is recorded at once).
  const heading = pl.legacy ? pl.yaw : pl.sentYaw;
  const headingPitch = pl.legacy ? 0 : pl.sentPitch;
  const cp = Math.cos(headingPitch);
  pl.sentYaw = pl.yaw;
  pl.sentPitch = pl.pitch;
  if (pl.alive) {
    const wish = s.wish;
    fightWish(pl, t, wish);
    stepMovement(pl.move, { wishX: wish.wishX, wishZ: wish.wishZ, viewX: Math.sin(heading) * cp, viewY: Math.sin(headingPitch), viewZ: Math.cos(heading) * cp, jump: wish.jump }, s.world, s.movement, s.dtMs / 1000);
  }
  record(s, pl, tick, t);
  if (t >= pl.nextRttMs) sampleRoundTrip(pl, t);
}

/** `pl` comes back at its next spawn point with full health and magazines, in a new life (epoch). */
function respawn(s: SynthMatchState, pl: Player, t: number): void {
  pl.lives++;
  pl.respawnAtMs = 0;
  const sp = s.spawns[(pl.slot + pl.lives) % s.spawns.length]!;
  pl.move = createMoveState(sp.x, sp.y, sp.z, sp.dirX, sp.dirZ);
  pl.health = 100;
  pl.alive = true;
  pl.epoch++;
  pl.lifePending = true;
  const magazines = s.magazines;
  for (let w = 0; w < magazines.length; w++) { pl.shooter.ammo[w] = magazines[w]!; pl.shooter.reloadEndMs[w] = 0; }
  pl.shooter.alive = true;
  s.rec.event({ kind: 'respawn', slot: pl.slot, timeMs: t, x: sp.x, y: sp.y, z: sp.z });
}

/**
 * Records `pl`'s pose at tick `tick` (time `t`) in its history, the past positions the others
 * render, who is alive since when, and its row of the tick's poses (with the inputs that arrived).
 */
function record(s: SynthMatchState, pl: Player, tick: number, t: number): void {
  const m = pl.move, pose = s.pose;
  pose.x = m.x; pose.y = m.y; pose.z = m.z; pose.qx = m.qx; pose.qy = m.qy; pose.qz = m.qz; pose.qw = m.qw;
  pose.clip = m.clip; pose.time = m.animTime; pose.alive = pl.alive; pose.epoch = pl.epoch;
  // When the view this tick applies was aimed, on the client's clock (the one its shots are
  // stamped on): the previous tick, one way behind the server. The caricatures' snapped view
  // has no stamp.
  pose.stampMs = pl.legacy ? NaN : t - s.dtMs - pl.baseRttMs / 2 + pl.clockErrMs;
  s.scene.histories[pl.slot]!.record(tick, t, pose);
  if (pl.lifePending && pl.alive) { pl.lifeStartMs = t; pl.lifePending = false; }
  s.alive[pl.slot] = pl.alive;
  s.life[pl.slot] = pl.lifePending ? Infinity : pl.lifeStartMs;
  s.remember(pl, tick);
  const poses = s.poses, o = pl.slot * TICK_POSE_STRIDE;
  poses[o + TickPose.PRESENT] = 1;
  poses[o + TickPose.X] = pose.x; poses[o + TickPose.Y] = pose.y; poses[o + TickPose.Z] = pose.z;
  poses[o + TickPose.QX] = pose.qx; poses[o + TickPose.QY] = pose.qy; poses[o + TickPose.QZ] = pose.qz; poses[o + TickPose.QW] = pose.qw;
  poses[o + TickPose.CLIP] = pose.clip; poses[o + TickPose.TIME] = pose.time; poses[o + TickPose.ALIVE] = pose.alive ? 1 : 0; poses[o + TickPose.EPOCH] = pose.epoch;
  poses[o + TickPose.VIEW_X] = m.viewX; poses[o + TickPose.VIEW_Y] = m.viewY; poses[o + TickPose.VIEW_Z] = m.viewZ;
  poses[o + TickPose.INPUTS] = pl.inputs.take(t); poses[o + TickPose.STEPS] = 1;
  poses[o + TickPose.STAMP] = pose.stampMs;
  poses[o + TickPose.EYE] = NaN; // the rules' eye height
}
