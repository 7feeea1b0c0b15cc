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
 */
import { createPlayerPose } from '../../../shared/lagcomp/pose';
import { MANNEQUIN_RIG } from '../../rig/mannequin';
import { BONE_STRIDE, HitZone } from '../../../shared/rig/rig';
import { rewindStatusUsable } from '../../../shared/lagcomp/history';
import { WeaponId } from '../../../shared/weapons';
import { validateShot, type ValidationConfig } from '../../../shared/validate/shot';
import { copyShooterState, createShooterState, createVerdict, VerdictKind } from '../../../shared/validate/verdict';
import { createMoveState, stepMovement } from '../../../shared/movement/step';
import { encodeShot, createShotMessage, SHOT_BYTES } from '../../../shared/protocol/shot';
import { createWorldHit } from '../../../shared/world/world';
import { createMatchScene } from '../../../shared/validate/scene';
import { TICK_POSE_STRIDE, TickPose } from '../../match/recorder';
import { findSpawnPoints } from '../../level/spawnPoints';
import { MatchLogRecorder } from '../../matchlog/recorder';
import { Rng } from '../../../client-sim/rng';
import { viewOnBody } from '../motion';
import { DEFAULT_MEASURE_WINDOWS } from '../shotMeasures';
import { FOV_HALF, LOSE_AFTER_MS, NOTICE_RANGE_M, drawHeadAim } from '../../../client-sim/human/traits';
import { Behaviour, CheatKind, Phase, cadence, engageTarget, lerp, stepView, wrap } from './synthPlayers';
import { defaultRules, hitboxCentre } from './synthRules';
import { createPlayer, fightWish, sampleRoundTrip, type Player } from './synthPlayer';
import { HEADER_LAYOUT_VERSION } from '../../../shared/matchlog/records';
import type { SynthMatchOptions, SynthMatchResult } from './synthOptions';

export { defaultRules } from './synthRules';
export { Behaviour, CheatKind, INHUMAN_PROFILES } from './synthPlayers';
export type { SynthMatchOptions, SynthMatchResult } from './synthOptions';
const LEGACY: ReadonlySet<string> = new Set([CheatKind.AIMBOT, CheatKind.WALLHACK, CheatKind.BACKTRACK]);

/** Ticks of past positions kept per player for what others render (up to 500 ms at 64 Hz). */
const PAST = 40;
/** Height of the chest above a player's root, m: where the synthetic players look (and check line of sight to). */
const CHEST_M = 1.3;

export async function synthesizeMatch(options: SynthMatchOptions): Promise<SynthMatchResult> {
  const seed = options.seed ?? 1;
  const rng = new Rng(seed);
  const n = options.players ?? 16;
  const tickRate = options.tickRate ?? 64;
  const dtMs = 1000 / tickRate;
  const ticks = Math.round((options.durationS ?? 60) * tickRate);
  const world = options.world;
  const rig = MANNEQUIN_RIG;
  const defaults = defaultRules(n, tickRate);
  const header = defaults.header;
  const validation: ValidationConfig = { ...defaults.validation, ...options.rules };
  const movement = header.movement;
  const scene = createMatchScene(world, rig, header.scene);
  const eye = validation.eyeHeightM;
  const windowMs = validation.rewindWindowMs;
  const spawns = findSpawnPoints(world, n);
  const rec = new MatchLogRecorder({ path: options.path, flushIntervalMs: 50 });
  rec.header({
    formatVersion: HEADER_LAYOUT_VERSION, roomId: 'synthetic', startedAtIso: new Date(0).toISOString(), tickRate, maxPlayers: n,
    levelPath: options.levelPath, worldHash: world.hash, rigHash: rig.hash, validation, scene: header.scene, movement: header.movement,
  });
  const cheats: Record<number, CheatKind> = {};
  const players: Player[] = [];
  const magazines = validation.weapons.map((w) => w.magazine);
  for (let i = 0; i < n; i++) {
    const cheat = options.cheats?.[i] ?? CheatKind.HONEST;
    cheats[i] = cheat;
    players.push(createPlayer(i, cheat, LEGACY.has(cheat), spawns[i % spawns.length]!, options.strengths?.[i] ?? options.strength ?? 1, seed, rng, windowMs, magazines));
    rec.event({ kind: 'join', slot: i, timeMs: 0 });
  }
  const poses = new Float64Array(n * TICK_POSE_STRIDE);
  // Nobody leaves a synthetic match, and nobody is on a team.
  const noneLeft: number[] = new Array<number>(n).fill(Number.NaN);
  const noTeams: number[] = new Array<number>(n).fill(-1);
  const wish = { wishX: 0, wishZ: 0, jump: false };
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
  // Past positions (x, y, z, alive, epoch) per tick and player: what the others render.
  const past = new Float64Array(PAST * n * 5);
  let shots = 0;
  let hits = 0;
  const visible = (ax: number, ay: number, az: number, bx: number, by: number, bz: number) => !world.anyHit(ax, ay, az, bx, by, bz);

  /** Judges the shot in `bytes` like the room does, applies it, records it. */
  const fire = (pl: Player, receive: number, t: number) => {
    copyShooterState(before, pl.shooter);
    const timing = { receiveTimeMs: receive, rttMs: pl.rttMs, interpDelayMs: pl.interpMs, newestTickMs: t };
    const targets = { alive: alive.slice(), lifeStartMs: life.slice(), leftMs: noneLeft, team: noTeams };
    validateShot(verdict, scene, validation, bytes, before, timing, targets);
    copyShooterState(pl.shooter, verdict.after);
    let healthAfter = -1;
    let killed = false;
    if (verdict.kind === VerdictKind.HIT) {
      hits++;
      const victim = players[verdict.target]!;
      // As in the room: a player killed while the shot was in flight takes no more damage.
      if (victim.alive) {
        if (!options.immortal) victim.health -= verdict.damage;
        healthAfter = victim.health;
      }
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

  /** Encodes a shot from the eye along (dx, dy, dz) (unit), `reach` long, claiming `claimed` and `target`. */
  const encode = (pl: Player, ex: number, ey: number, ez: number, dx: number, dy: number, dz: number, reach: number, claimed: number, target: number) => {
    shot.weapon = WeaponId.RIFLE; shot.claimedTarget = target; shot.seq = ++pl.seq; shot.renderTimeMs = claimed;
    shot.sx = ex; shot.sy = ey; shot.sz = ez; shot.ex = ex + dx * reach; shot.ey = ey + dy * reach; shot.ez = ez + dz * reach;
    encodeShot(bytes, shot);
  };

  /** The weapon can fire at action time `at` (fire interval with a client's margin, magazine, reload). */
  const ready = (pl: Player, at: number, margin: number) => {
    if (at < pl.shooter.nextFireMs + margin) return false;
    const reloadEnd = pl.shooter.reloadEndMs[WeaponId.RIFLE] ?? 0;
    return !((pl.shooter.ammo[WeaponId.RIFLE] ?? 0) <= 0 && (reloadEnd === 0 || at < reloadEnd + 20));
  };

  /** Where `o` is drawn for `pl` at tick `tick`: its position `lagTicks` ticks ago (NaN x when unknown or dead). */
  const rendered = (out: Float64Array, o: number, tick: number, lagTicks: number): boolean => {
    const j = Math.max(1, tick - lagTicks);
    if (tick - j >= PAST) return false;
    const b = ((j % PAST) * n + o) * 5;
    if (past[b + 3] !== 1 || past[b + 4] !== players[o]!.epoch) return false;
    out[0] = past[b]!; out[1] = past[b + 1]!; out[2] = past[b + 2]!;
    return true;
  };
  const seen = new Float64Array(3);
  const worldHit = createWorldHit();

  /**
   * A human (or inhuman profile) player's tick before moving: notices targets, keeps or drops its
   * engagement, and turns its view.
   */
  const perceiveAndTurn = (pl: Player, tick: number, t: number) => {
    const m = pl.move;
    const ex = m.x, ey = m.y + eye, ez = m.z;
    const lag = Math.round((pl.baseRttMs / 2 + pl.interpMs) / dtMs);
    let best = -1, bestD = Infinity, hidden = -1, hiddenD = Infinity;
    const e = pl.engagement;
    let engagedSeen = false;
    for (const o of players) {
      if (o === pl || !rendered(seen, o.slot, tick, lag)) continue;
      const dx = seen[0]! - ex, dz = seen[2]! - ez;
      const d = Math.sqrt(dx * dx + dz * dz);
      if (d > NOTICE_RANGE_M || d < 1e-6) continue;
      const inFov = Math.abs(wrap(Math.atan2(dx, dz) - pl.yaw)) <= FOV_HALF;
      const wantHidden = pl.behaviour === Behaviour.PREFIRE && d < hiddenD;
      if (!inFov && !wantHidden) continue;
      const los = visible(ex, ey, ez, seen[0]!, seen[1]! + 1.3, seen[2]!);
      if (los && inFov) {
        if (e !== null && e.target === o.slot) engagedSeen = true;
        if (d < bestD) { best = o.slot; bestD = d; }
      } else if (!los && wantHidden) { hidden = o.slot; hiddenD = d; }
    }
    if (e !== null) {
      if (engagedSeen) e.seenMs = t;
      else if (t - e.seenMs > LOSE_AFTER_MS || !players[e.target]!.alive) pl.engagement = null;
    }
    if (pl.engagement === null && best >= 0) pl.engagement = engageTarget(pl, best, t, pl.prand);
    const g = pl.engagement;
    let targetYaw = NaN, targetPitch = NaN;
    if (g !== null && rendered(seen, g.target, tick, lag)) {
      const dx = seen[0]! - ex, dz = seen[2]! - ez;
      targetYaw = Math.atan2(dx, dz);
      targetPitch = Math.atan2(seen[1]! + CHEST_M - ey, Math.sqrt(dx * dx + dz * dz));
    }
    let idle = pl.wishYaw, idlePitch = pl.idlePitch;
    if (hidden >= 0 && rendered(seen, hidden, tick, lag)) {
      // Wallhack knowledge: the view leans toward the hidden player's chest by the strength.
      const dx = seen[0]! - ex, dz = seen[2]! - ez;
      idle = pl.wishYaw + wrap(Math.atan2(dx, dz) - pl.wishYaw) * pl.strength;
      idlePitch = lerp(pl.idlePitch, Math.atan2(seen[1]! + CHEST_M - ey, Math.sqrt(dx * dx + dz * dz)), pl.strength);
    }
    stepView(pl, t, dtMs, targetYaw, targetPitch, idle, idlePitch, pl.prand);
  };

  /** A human (or inhuman profile) player's trigger after the tick is recorded. */
  const trigger = (pl: Player, t: number) => {
    const g = pl.engagement;
    if (g === null || g.phase === Phase.REACT) return;
    const s = pl.behaviour === Behaviour.HONEST ? 0 : pl.strength;
    const m = pl.move;
    const ex = m.x, ey = m.y + eye, ez = m.z;
    const receive = t + rng.next() * dtMs;
    // The client stamps its action on its estimate of the server clock, one way before the arrival
    // (fake lag claims the inflated one way its held-back pongs made the server measure), and
    // claims the render time its interpolation delay behind (a backtracker up to 50 ms more).
    const at = receive - (pl.behaviour === Behaviour.FAKE_LAG ? pl.rttMs : pl.baseRttMs) / 2 + pl.clockErrMs;
    const claimed = at - pl.interpMs + (rng.next() - 0.5) * 10 - (pl.behaviour === Behaviour.EDGE_BACKTRACK ? 50 * s : 0);
    if (!rewindStatusUsable(scene.histories[g.target]!.sampleAt(sampled, claimed, scene.eyePolicy)) || !sampled.alive) return;
    const head = drawHeadAim(pl.traits, pl.prand);
    hitboxCentre(aimPoint, scene.rewinder, sampled, head ? headBox : torsoBox, bones);
    const ax = aimPoint[0]! - ex, ay = aimPoint[1]! - ey, az = aimPoint[2]! - ez;
    const hd = Math.sqrt(ax * ax + az * az);
    const dist = Math.sqrt(ax * ax + ay * ay + az * az);
    if (!(hd > 0.3)) return;
    const exactYaw = Math.atan2(ax, az);
    const exactPitch = Math.atan2(ay, hd);
    // The shot goes where the crosshair is; silent aim pulls it toward the aim point.
    const pull = pl.behaviour === Behaviour.SILENT_AIM ? s : 0;
    const shotYaw = pl.yaw + wrap(exactYaw - pl.yaw) * pull;
    const pitch = pl.pitch + (exactPitch - pl.pitch) * pull;
    const width = Math.atan2(0.3, hd), height = Math.atan2(0.45, hd);
    // A first pull waits for the crosshair on the body (the silhouette the audit reads, viewOnBody);
    // later pulls keep firing while it stays near the aim point.
    const on = g.shots === 0
      ? viewOnBody(ex, ey, ez, Math.sin(shotYaw), Math.tan(pitch), Math.cos(shotYaw), sampled.x, sampled.y, sampled.z, eye, DEFAULT_MEASURE_WINDOWS.bodyHalfWidthM, false)
      : Math.abs(wrap(exactYaw - shotYaw)) <= 1.5 * width && Math.abs(exactPitch - pitch) <= 1.5 * height;
    if (!on) { g.onSinceMs = NaN; return; }
    if (g.onSinceMs !== g.onSinceMs) g.onSinceMs = t;
    if (g.shots === 0 && t - g.onSinceMs < g.confirmMs) return;
    if (t < g.nextTriggerMs || !ready(pl, at, 5 + rng.next() * 20)) return;
    const cp = Math.cos(pitch);
    const dx = Math.sin(shotYaw) * cp, dy = Math.sin(pitch), dz = Math.cos(shotYaw) * cp;
    if (!visible(ex, ey, ez, ex + dx * Math.min(dist, 2), ey + dy * Math.min(dist, 2), ez + dz * Math.min(dist, 2))) return;
    // The segment stops where the bullet meets the world, as a client's does.
    let reach = Math.min(rifle.rangeM * 0.99, dist + 20);
    if (world.firstHit(worldHit, ex, ey, ez, ex + dx * reach, ey + dy * reach, ez + dz * reach)) reach *= worldHit.t;
    shot.timeMs = at;
    encode(pl, ex, ey, ez, dx, dy, dz, reach, claimed, g.target);
    fire(pl, receive, t);
    g.shots++;
    g.nextTriggerMs = t + cadence(hd, rifle.fireIntervalMs, pl.prand, g);
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
        pl.wishYaw = rng.next() * 2 * Math.PI;
        pl.nextWishMs = t + 500 + rng.next() * 1500;
      }
      if (pl.legacy) {
        // The caricatures face where they walk.
        const d = wrap(pl.wishYaw - pl.yaw);
        const maxTurn = 1.5 * Math.PI * (dtMs / 1000);
        pl.yaw += Math.max(-maxTurn, Math.min(maxTurn, d));
      } else if (pl.alive) {
        perceiveAndTurn(pl, tick, t);
      } else {
        pl.engagement = null;
      }
      // The room applies the view of the input that arrived before the tick: a human's heading is
      // recorded one tick behind the view its shots leave along (the caricatures' snap is recorded at once).
      const heading = pl.legacy ? pl.yaw : pl.sentYaw;
      const headingPitch = pl.legacy ? 0 : pl.sentPitch;
      const cp = Math.cos(headingPitch);
      pl.sentYaw = pl.yaw;
      pl.sentPitch = pl.pitch;
      if (pl.alive) {
        fightWish(pl, t, wish);
        stepMovement(pl.move, { wishX: wish.wishX, wishZ: wish.wishZ, viewX: Math.sin(heading) * cp, viewY: Math.sin(headingPitch), viewZ: Math.cos(heading) * cp, jump: wish.jump }, world, movement, dtMs / 1000);
      }
      const m = pl.move;
      pose.x = m.x; pose.y = m.y; pose.z = m.z; pose.qx = m.qx; pose.qy = m.qy; pose.qz = m.qz; pose.qw = m.qw;
      pose.clip = m.clip; pose.time = m.animTime; pose.alive = pl.alive; pose.epoch = pl.epoch;
      // When the view this tick applies was aimed, on the client's clock (the one its shots are
      // stamped on): the previous tick, one way behind the server. The caricatures' snapped view
      // has no stamp.
      pose.stampMs = pl.legacy ? NaN : t - dtMs - pl.baseRttMs / 2 + pl.clockErrMs;
      scene.histories[pl.slot]!.record(tick, t, pose);
      if (pl.lifePending && pl.alive) { pl.lifeStartMs = t; pl.lifePending = false; }
      alive[pl.slot] = pl.alive;
      life[pl.slot] = pl.lifePending ? Infinity : pl.lifeStartMs;
      const pb = ((tick % PAST) * n + pl.slot) * 5;
      past[pb] = pose.x; past[pb + 1] = pose.y; past[pb + 2] = pose.z; past[pb + 3] = pl.alive ? 1 : 0; past[pb + 4] = pl.epoch;
      const o = pl.slot * TICK_POSE_STRIDE;
      poses[o + TickPose.PRESENT] = 1;
      poses[o + TickPose.X] = pose.x; poses[o + TickPose.Y] = pose.y; poses[o + TickPose.Z] = pose.z;
      poses[o + TickPose.QX] = pose.qx; poses[o + TickPose.QY] = pose.qy; poses[o + TickPose.QZ] = pose.qz; poses[o + TickPose.QW] = pose.qw;
      poses[o + TickPose.CLIP] = pose.clip; poses[o + TickPose.TIME] = pose.time; poses[o + TickPose.ALIVE] = pose.alive ? 1 : 0; poses[o + TickPose.EPOCH] = pose.epoch;
      poses[o + TickPose.VIEW_X] = m.viewX; poses[o + TickPose.VIEW_Y] = m.viewY; poses[o + TickPose.VIEW_Z] = m.viewZ;
      const inputs = pl.inputs.take(t);
      poses[o + TickPose.INPUTS] = inputs; poses[o + TickPose.STEPS] = 1;
      poses[o + TickPose.STAMP] = pose.stampMs;
      if (t >= pl.nextRttMs) sampleRoundTrip(pl, t);
      poses[o + TickPose.EYE] = NaN; // the rules' eye height
    }
    rec.tick({ tick, timeMs: t, poses });

    for (const pl of players) {
      if (!pl.alive) { pl.target = -1; continue; }
      if (!pl.legacy && options.trigger !== 'spray') { trigger(pl, t); continue; }
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
      const receive = t + rng.next() * dtMs;
      // The client stamps its action time on its server clock: one way before the arrival.
      const at = receive - pl.rttMs / 2;
      shot.timeMs = at;
      if (at < pl.shooter.nextFireMs + 5 + rng.next() * 60) continue;
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
      if ((pl.cheat === CheatKind.WALLHACK || pl.cheat === CheatKind.BACKTRACK) && waited < 150) continue;
      // Where the shooter's client drew the target: the history at its render time.
      const honestRender = at - pl.interpMs + (rng.next() - 0.5) * 10;
      const claimed = pl.cheat === CheatKind.BACKTRACK ? at - validation.rewindWindowMs - 60 : honestRender;
      const aimAt = pl.cheat === CheatKind.BACKTRACK ? at - validation.rewindWindowMs : honestRender;
      scene.histories[best]!.sampleAt(sampled, aimAt, scene.eyePolicy);
      // Aim at a hitbox's centre as the rig poses it (head for aimbots, mostly torso otherwise).
      const headAim = pl.cheat === CheatKind.AIMBOT || (!pl.legacy && rng.next() < 0.1);
      hitboxCentre(aimPoint, scene.rewinder, sampled, headAim ? headBox : torsoBox, bones);
      const noise = pl.cheat === CheatKind.AIMBOT ? 0 : 1;
      const tx = aimPoint[0]! + noise * (rng.next() - 0.5) * 0.25;
      const ty = aimPoint[1]! + noise * (rng.next() - 0.5) * 0.3;
      const tz = aimPoint[2]! + noise * (rng.next() - 0.5) * 0.25;
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
