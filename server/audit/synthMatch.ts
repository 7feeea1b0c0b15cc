/**
 * A seeded synthetic match for benchmarks and tamper tests: 16 (by default) players walk the level
 * with the real movement step, their snapshots go into real histories, and their shots are judged
 * by the real validateShot against the real world and rig, then recorded through the real
 * MatchLogRecorder: the same records a room writes, minus the sockets (so a long match takes
 * seconds). Some players cheat, each in one way: `aimbot` (instant head shots with a view snap),
 * `wallhack` (shoots at players behind walls) and `backtrack` (claims render times at the edge of
 * the rewind window). Honest players turn toward a visible target at a human rate and fire after a
 * human reaction time.
 */
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { MANNEQUIN_RIG, Clip } from '../../shared/rig/mannequin';
import { BONE_STRIDE, DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, HitZone } from '../../shared/rig/rig';
import type { Rewinder } from '../../shared/lagcomp/rewind';
import type { PlayerPose } from '../../shared/lagcomp/pose';
import { WEAPONS, WeaponId } from '../../shared/weapons';
import { defaultValidationConfig, rewindReachMs, validateShot, type ValidationConfig } from '../../shared/validate/shot';
import { copyShooterState, createShooterState, createVerdict, VerdictKind, type ShooterState } from '../../shared/validate/verdict';
import { createMoveState, defaultMoveConfig, stepMovement, type MoveState } from '../../shared/movement/step';
import { encodeShot, createShotMessage, SHOT_BYTES } from '../../shared/protocol/shot';
import type { World } from '../../shared/world/world';
import { createMatchScene, historyCapacity } from '../room/scene';
import { TICK_POSE_STRIDE, TickPose, type MatchHeader } from '../room/recorder';
import { findSpawnPoints } from '../index';
import { MatchLogRecorder } from './matchLogRecorder';
import type { MatchLogStats } from './matchLogWriter';
import { mulberry32 } from '../../shared/util/prng';

export const CheatKind = { HONEST: 'honest', AIMBOT: 'aimbot', WALLHACK: 'wallhack', BACKTRACK: 'backtrack' } as const;
export type CheatKind = (typeof CheatKind)[keyof typeof CheatKind];

export interface SynthMatchOptions {
  world: World;
  levelPath: string;
  /** Output file. */
  path: string;
  seed?: number;
  players?: number;
  tickRate?: number;
  durationS?: number;
  /** Behaviour by slot; slots not listed are honest. */
  cheats?: Partial<Record<number, CheatKind>>;
  /** Disable deaths (very long bench matches keep everyone in play). */
  immortal?: boolean;
  /**
   * 'aimed' (default): players fire only at a target they see (wallhacks: one they do not).
   * 'spray': everyone fires whenever the weapon allows, along their facing when no target: a
   * dense firefight for throughput benchmarks.
   */
  trigger?: 'aimed' | 'spray';
}

export interface SynthMatchResult {
  path: string;
  shots: number;
  ticks: number;
  hits: number;
  stats: MatchLogStats;
  cheats: Record<number, CheatKind>;
}


interface Player {
  slot: number;
  cheat: CheatKind;
  move: MoveState;
  yaw: number;
  wishYaw: number;
  nextWishMs: number;
  rttMs: number;
  interpMs: number;
  shooter: ShooterState;
  health: number;
  alive: boolean;
  epoch: number;
  lifeStartMs: number;
  lifePending: boolean;
  respawnAtMs: number;
  lives: number;
  seq: number;
  /** Target being tracked and since when it has been visible, ms. */
  target: number;
  visibleSinceMs: number;
  reactionMs: number;
}

/** The same rules a default createGameServer builds (see server/index.ts). */
export function defaultRules(maxPlayers: number, tickRate: number): { validation: ValidationConfig; header: Pick<MatchHeader, 'scene' | 'movement'> } {
  const zoneMultipliers: number[] = [];
  for (let z = 0; z < HIT_ZONE_COUNT; z++) zoneMultipliers.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const validation = defaultValidationConfig(WEAPONS, zoneMultipliers, MANNEQUIN_RIG.eyeHeight, maxPlayers);
  return {
    validation,
    header: {
      scene: { maxPlayers, capacityTicks: historyCapacity(tickRate, rewindReachMs(validation)), windowMs: rewindReachMs(validation) },
      movement: defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, MANNEQUIN_RIG.clips.map((c) => c.duration)),
    },
  };
}

/** World-space centre of hitbox `h`'s bounding sphere with the player posed at `pose`. */
function hitboxCentre(out: Float64Array, rewinder: Rewinder, pose: PlayerPose, h: number, bones: Float64Array): Float64Array {
  rewinder.poseBones(bones, pose);
  const rig = rewinder.rig;
  const o = h * BONE_STRIDE;
  const tx = bones[o]!, ty = bones[o + 1]!, tz = bones[o + 2]!, qx = bones[o + 3]!, qy = bones[o + 4]!, qz = bones[o + 5]!, qw = bones[o + 6]!;
  const vx = rig.hitboxSpheres[h * 4]!, vy = rig.hitboxSpheres[h * 4 + 1]!, vz = rig.hitboxSpheres[h * 4 + 2]!;
  // v' = v + 2 w (q x v) + 2 q x (q x v)
  const cx = qy * vz - qz * vy, cy = qz * vx - qx * vz, cz = qx * vy - qy * vx;
  out[0] = tx + vx + 2 * (qw * cx + qy * cz - qz * cy);
  out[1] = ty + vy + 2 * (qw * cy + qz * cx - qx * cz);
  out[2] = tz + vz + 2 * (qw * cz + qx * cy - qy * cx);
  return out;
}

export async function synthesizeMatch(options: SynthMatchOptions): Promise<SynthMatchResult> {
  const rand = mulberry32(options.seed ?? 1);
  const n = options.players ?? 16;
  const tickRate = options.tickRate ?? 64;
  const dtMs = 1000 / tickRate;
  const ticks = Math.round((options.durationS ?? 60) * tickRate);
  const world = options.world;
  const rig = MANNEQUIN_RIG;
  const { validation, header } = defaultRules(n, tickRate);
  const scene = createMatchScene(world, rig, header.scene);
  const eye = validation.eyeHeightM;
  const spawns = findSpawnPoints(world, n);
  const rec = new MatchLogRecorder({ path: options.path, flushIntervalMs: 50 });
  rec.header({
    formatVersion: 2, roomId: 'synthetic', startedAtIso: new Date(0).toISOString(), tickRate, maxPlayers: n,
    levelPath: options.levelPath, worldHash: world.hash, rigHash: rig.hash, validation, scene: header.scene, movement: header.movement,
  });
  const cheats: Record<number, CheatKind> = {};
  const players: Player[] = [];
  const magazines = validation.weapons.map((w) => w.magazine);
  for (let i = 0; i < n; i++) {
    const cheat = options.cheats?.[i] ?? CheatKind.HONEST;
    cheats[i] = cheat;
    const p = spawns[i % spawns.length]!;
    players.push({
      slot: i, cheat, move: createMoveState(p.x, p.y, p.z, p.dirX, p.dirZ), yaw: Math.atan2(p.dirX, p.dirZ), wishYaw: rand() * 2 * Math.PI,
      nextWishMs: 0, rttMs: 30 + Math.floor(rand() * 90), interpMs: 100, shooter: createShooterState(i, magazines), health: 100,
      alive: true, epoch: 1, lifeStartMs: 0, lifePending: true, respawnAtMs: 0, lives: 0, seq: 0, target: -1, visibleSinceMs: 0,
      reactionMs: 200 + rand() * 150,
    });
    rec.event({ kind: 'join', slot: i, timeMs: 0 });
  }
  const poses = new Float64Array(n * TICK_POSE_STRIDE);
  const pose = createPlayerPose();
  const sampled = createPlayerPose();
  const verdict = createVerdict();
  const before = createShooterState(-1, []);
  const shot = createShotMessage();
  const bytes = new Uint8Array(SHOT_BYTES);
  const alive: boolean[] = new Array(n).fill(true);
  const life: number[] = new Array(n).fill(Infinity);
  const rifle = validation.weapons[WeaponId.RIFLE]!;
  const bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
  const aimPoint = new Float64Array(3);
  const headBox = rig.hitboxZone.indexOf(HitZone.HEAD);
  const torsoBox = rig.hitboxZone.indexOf(HitZone.UPPER_TORSO);
  let shots = 0;
  let hits = 0;
  const visible = (ax: number, ay: number, az: number, bx: number, by: number, bz: number) => !world.anyHit(ax, ay, az, bx, by, bz);

  /** Judges the shot in `bytes` like the room does, applies it, records it. */
  const fire = (pl: Player, receive: number, t: number) => {
      copyShooterState(before, pl.shooter);
      const timing = { receiveTimeMs: receive, rttMs: pl.rttMs, interpDelayMs: pl.interpMs, newestTickMs: t };
      const targets = { alive: alive.slice(), lifeStartMs: life.slice() };
      validateShot(verdict, scene, validation, bytes, before, timing, targets);
      copyShooterState(pl.shooter, verdict.after);
      let healthAfter = -1;
      let killed = false;
      if (verdict.kind === VerdictKind.HIT) {
        hits++;
        const victim = players[verdict.target]!;
        if (!options.immortal) victim.health -= verdict.damage;
        healthAfter = victim.health;
        if (victim.health <= 0 && victim.alive) {
          killed = true;
          victim.alive = false;
          victim.shooter.alive = false;
          victim.respawnAtMs = t + 2000;
          alive[victim.slot] = false;
          rec.event({ kind: 'death', slot: victim.slot, timeMs: receive, other: pl.slot });
        }
      }
      rec.shot({ bytes: bytes.slice(), nonBytesType: null, shooterBefore: before, timing, targets, verdict, targetHealthAfter: healthAfter, killed });
      shots++;
  };

  for (let tick = 1; tick <= ticks; tick++) {
    const t = tick * dtMs;
    poses.fill(0);
    for (const pl of players) {
      if (!pl.alive && pl.respawnAtMs > 0 && t >= pl.respawnAtMs) {
        pl.lives++;
        pl.respawnAtMs = 0;
        const sp = spawns[(pl.slot + pl.lives) % spawns.length]!;
        pl.move = createMoveState(sp.x, sp.y, sp.z, sp.dirX, sp.dirZ);
        pl.health = 100;
        pl.alive = true;
        pl.epoch++;
        pl.lifePending = true;
        for (let w = 0; w < magazines.length; w++) { pl.shooter.ammo[w] = magazines[w]!; pl.shooter.reloadEndMs[w] = 0; }
        pl.shooter.alive = true;
        rec.event({ kind: 'respawn', slot: pl.slot, timeMs: t, x: sp.x, y: sp.y, z: sp.z });
      }
      if (t >= pl.nextWishMs) {
        pl.wishYaw = rand() * 2 * Math.PI;
        pl.nextWishMs = t + 500 + rand() * 1500;
      }
      // Honest players turn toward their target at up to 360 deg/s; cheaters face where they walk.
      let wantYaw = pl.wishYaw;
      if (pl.cheat === CheatKind.HONEST && pl.target >= 0) {
        const tg = players[pl.target]!.move;
        wantYaw = Math.atan2(tg.x - pl.move.x, tg.z - pl.move.z);
      } else if (pl.cheat === CheatKind.HONEST) {
        wantYaw = pl.yaw;
      }
      let d = wantYaw - pl.yaw;
      d = Math.atan2(Math.sin(d), Math.cos(d));
      const maxTurn = (pl.cheat === CheatKind.HONEST ? 2 * Math.PI : 1.5 * Math.PI) * (dtMs / 1000);
      pl.yaw += Math.max(-maxTurn, Math.min(maxTurn, d));
      if (pl.alive) {
        stepMovement(pl.move, { wishX: Math.sin(pl.wishYaw) * 0.6, wishZ: Math.cos(pl.wishYaw) * 0.6, viewX: Math.sin(pl.yaw), viewY: 0, viewZ: Math.cos(pl.yaw), jump: false }, world, header.movement, dtMs / 1000);
      }
      const m = pl.move;
      pose.x = m.x; pose.y = m.y; pose.z = m.z; pose.qx = m.qx; pose.qy = m.qy; pose.qz = m.qz; pose.qw = m.qw;
      pose.clip = m.clip; pose.time = m.animTime; pose.alive = pl.alive; pose.epoch = pl.epoch;
      scene.histories[pl.slot]!.record(tick, t, pose);
      if (pl.lifePending && pl.alive) { pl.lifeStartMs = t; pl.lifePending = false; }
      alive[pl.slot] = pl.alive;
      life[pl.slot] = pl.lifePending ? Infinity : pl.lifeStartMs;
      const o = pl.slot * TICK_POSE_STRIDE;
      poses[o + TickPose.PRESENT] = 1;
      poses[o + TickPose.X] = pose.x; poses[o + TickPose.Y] = pose.y; poses[o + TickPose.Z] = pose.z;
      poses[o + TickPose.QX] = pose.qx; poses[o + TickPose.QY] = pose.qy; poses[o + TickPose.QZ] = pose.qz; poses[o + TickPose.QW] = pose.qw;
      poses[o + TickPose.CLIP] = pose.clip; poses[o + TickPose.TIME] = pose.time; poses[o + TickPose.ALIVE] = pose.alive ? 1 : 0; poses[o + TickPose.EPOCH] = pose.epoch;
    }
    rec.tick({ tick, timeMs: t, poses });

    for (const pl of players) {
      if (!pl.alive) { pl.target = -1; continue; }
      const m = pl.move;
      const ex = m.x, ey = m.y + eye, ez = m.z;
      // Pick / keep a target: the nearest living player (in sight, unless a wallhack).
      let best = -1, bestD = Infinity;
      for (const o of players) {
        if (o === pl || !o.alive) continue;
        const dx = o.move.x - m.x, dz = o.move.z - m.z;
        const d2 = dx * dx + dz * dz;
        if (d2 >= bestD || d2 > 60 * 60) continue;
        const seen = visible(ex, ey, ez, o.move.x, o.move.y + 1.3, o.move.z);
        // A wallhack hunts the players it should not see; everyone else only what they see.
        if (pl.cheat === CheatKind.WALLHACK ? seen : !seen) continue;
        best = o.slot; bestD = d2;
      }
      if (best !== pl.target) { pl.target = best; pl.visibleSinceMs = t; }
      const spray = options.trigger === 'spray';
      if (best < 0 && !spray) continue;
      const receive = t + rand() * dtMs;
      // The client stamps its action time on its server clock: one way before the arrival.
      const at = receive - pl.rttMs / 2;
      shot.timeMs = at;
      if (at < pl.shooter.nextFireMs + 5 + rand() * 60) continue;
      // Wait for the reload like a client does (its ammo counter mirrors the server's).
      const reloadEnd = pl.shooter.reloadEndMs[WeaponId.RIFLE] ?? 0;
      if ((pl.shooter.ammo[WeaponId.RIFLE] ?? 0) <= 0 && (reloadEnd === 0 || at < reloadEnd + 20)) continue;
      if (best < 0) {
        // Spray: nothing in sight, fire along the facing.
        const fx = Math.sin(pl.yaw), fz = Math.cos(pl.yaw);
        shot.weapon = WeaponId.RIFLE; shot.claimedTarget = -1; shot.seq = ++pl.seq;
        shot.renderTimeMs = at - pl.interpMs;
        shot.sx = ex; shot.sy = ey; shot.sz = ez; shot.ex = ex + fx * 80; shot.ey = ey; shot.ez = ez + fz * 80;
        encodeShot(bytes, shot);
        fire(pl, receive, t);
        continue;
      }
      const waited = t - pl.visibleSinceMs;
      if (pl.cheat === CheatKind.HONEST && !spray) {
        const tg = players[best]!.move;
        const want = Math.atan2(tg.x - m.x, tg.z - m.z);
        const off = Math.abs(Math.atan2(Math.sin(want - pl.yaw), Math.cos(want - pl.yaw)));
        if (waited < pl.reactionMs || off > 0.1) continue;
      } else if (pl.cheat === CheatKind.WALLHACK || pl.cheat === CheatKind.BACKTRACK) {
        if (waited < 150) continue;
      }
      // Where the shooter's client drew the target: the history at its render time.
      const honestRender = at - pl.interpMs + (rand() - 0.5) * 10;
      const claimed = pl.cheat === CheatKind.BACKTRACK ? at - validation.rewindWindowMs - 60 : honestRender;
      const aimAt = pl.cheat === CheatKind.BACKTRACK ? at - validation.rewindWindowMs : honestRender;
      scene.histories[best]!.sampleAt(sampled, aimAt, scene.eyePolicy);
      // Aim at a hitbox's centre as the rig poses it (head for aimbots, mostly torso otherwise).
      const headAim = pl.cheat === CheatKind.AIMBOT || (pl.cheat === CheatKind.HONEST && rand() < 0.1);
      hitboxCentre(aimPoint, scene.rewinder, sampled, headAim ? headBox : torsoBox, bones);
      const noise = pl.cheat === CheatKind.AIMBOT ? 0 : 1;
      const tx = aimPoint[0]! + noise * (rand() - 0.5) * 0.25;
      const ty = aimPoint[1]! + noise * (rand() - 0.5) * 0.3;
      const tz = aimPoint[2]! + noise * (rand() - 0.5) * 0.25;
      // Only a wallhack fires at what it cannot see along the aim line.
      if (pl.cheat !== CheatKind.WALLHACK && !visible(ex, ey, ez, tx, ty, tz)) continue;
      let dx = tx - ex, dy = ty - ey, dz = tz - ez;
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz) || 1;
      dx /= len; dy /= len; dz /= len;
      const reach = Math.min(rifle.rangeM * 0.99, len + 20);
      shot.weapon = WeaponId.RIFLE;
      shot.claimedTarget = best;
      shot.seq = ++pl.seq;
      shot.renderTimeMs = claimed;
      shot.sx = ex; shot.sy = ey; shot.sz = ez;
      shot.ex = ex + dx * reach; shot.ey = ey + dy * reach; shot.ez = ez + dz * reach;
      encodeShot(bytes, shot);
      if (pl.cheat === CheatKind.AIMBOT) pl.yaw = Math.atan2(dx, dz); // the snap: the view jumps onto the target
      fire(pl, receive, t);
    }
    // Let the writer flush now and then, as it would between ticks of a live room.
    if (tick % 256 === 0) await new Promise((r) => setImmediate(r));
  }
  const stats = await rec.finish();
  return { path: options.path, shots, ticks, hits, stats, cheats };
}
