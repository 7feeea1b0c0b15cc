/**
 * The determinism golden batch: a seeded mix of world queries (build, bytes round trip, first hit,
 * any hit, ground height, swept sphere), rewinds over the mannequin rig and validateShot calls
 * (bullets, pellets, penetration and knife swings),
 * every answer folded into one FNV-1a 64 hash. It takes the shared API as an argument, so the same
 * code runs against the sources in Node and against the built browser entry (dist/lib/index.js)
 * in Chromium and SpiderMonkey (gjs); test/determinism.test.ts compares each with GOLDEN_HASH.
 *
 * Only + - * / and Math.sqrt here too: the batch itself must be engine-independent.
 */
import type * as Api from '../../shared/index';

/** The committed hash of the batch. A change means verdict math changed: every engine must agree on the new value. */
export const GOLDEN_HASH = '1dec8d8a1583f76c';

export interface GoldenResult {
  hash: string;
  /** Numbers folded into the hash. */
  numbers: number;
  worldHash: string;
  rigHash: string;
  worldHits: number;
  rewindHits: number;
  verdictHits: number;
  verdictReasons: number;
  /** Pellets judged, players hit by them, and walls passed (penetration). */
  pellets: number;
  pelletHits: number;
  wallsPassed: number;
  /** Knife swings judged and those that hit (a sphere swept along the swing). */
  swings: number;
  swingHits: number;
  /** The reasons of the swings' verdicts, by name. */
  swingReasons: string;
}

export function goldenBatch(api: typeof Api, rigBytes: Uint8Array): GoldenResult {
  const rng = api.mulberry32(0x5eed);
  const u = (lo: number, hi: number): number => lo + (hi - lo) * rng();
  const out: number[] = [];

  // World: a floor, four walls of boxes and 600 loose triangles in a 40 m square.
  const pos: number[] = [];
  const idx: number[] = [];
  const tri = (ax: number, ay: number, az: number, bx: number, by: number, bz: number, cx: number, cy: number, cz: number): void => {
    const b = pos.length / 3;
    pos.push(ax, ay, az, bx, by, bz, cx, cy, cz);
    idx.push(b, b + 1, b + 2);
  };
  for (let i = -10; i < 10; i++) {
    for (let j = -10; j < 10; j++) {
      const x = i * 2, z = j * 2;
      tri(x, 0, z, x, 0, z + 2, x + 2, 0, z);
      tri(x + 2, 0, z, x, 0, z + 2, x + 2, 0, z + 2);
    }
  }
  for (let k = 0; k < 40; k++) {
    const x = u(-18, 18), z = u(-18, 18), w = u(0.3, 2), h = u(0.5, 3), d = u(0.3, 2);
    const c = [[x, 0, z], [x + w, 0, z], [x + w, 0, z + d], [x, 0, z + d], [x, h, z], [x + w, h, z], [x + w, h, z + d], [x, h, z + d]];
    const f = [[0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7], [4, 5, 6], [4, 6, 7]];
    for (const [a, b, e] of f) tri(c[a]![0]!, c[a]![1]!, c[a]![2]!, c[b]![0]!, c[b]![1]!, c[b]![2]!, c[e]![0]!, c[e]![1]!, c[e]![2]!);
  }
  for (let k = 0; k < 600; k++) {
    const x = u(-20, 20), y = u(0, 6), z = u(-20, 20);
    tri(x, y, z, x + u(-1, 1), y + u(-1, 1), z + u(-1, 1), x + u(-1, 1), y + u(-1, 1), z + u(-1, 1));
  }
  const built = api.World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
  const world = api.World.fromBuffer(built.toBuffer());
  if (world.hash !== built.hash) throw new Error('goldenBatch: the world bytes did not round-trip');
  const wh = api.createWorldHit();
  const sweep = api.createSweepHit();
  let worldHits = 0;
  for (let q = 0; q < 3000; q++) {
    const sx = u(-20, 20), sy = u(0.1, 5), sz = u(-20, 20);
    const ex = u(-20, 20), ey = u(-1, 6), ez = u(-20, 20);
    if (world.firstHit(wh, sx, sy, sz, ex, ey, ez)) {
      worldHits++;
      out.push(wh.t, wh.x, wh.y, wh.z, wh.nx, wh.ny, wh.nz, wh.u, wh.v, wh.triangle, wh.surface, wh.front ? 1 : 0);
    } else out.push(-1);
    out.push(world.anyHit(sx, sy, sz, ex, ey, ez) ? 1 : 0);
    const g = world.groundHeight(sx, sy, sz, 10);
    out.push(g === g ? g : -12345);
    if (q % 4 === 0) {
      if (world.sweepSphere(sweep, sx, sy, sz, ex, ey, ez, 0.3)) out.push(sweep.t, sweep.x, sweep.y, sweep.z, sweep.nx, sweep.ny, sweep.nz);
      else out.push(-2);
    }
  }

  // Rewinds: four players walking on seeded paths for 96 ticks at 64 Hz.
  const rig = api.rigFromBuffer(rigBytes);
  const policy = api.createRewindPolicy(250, api.OutOfWindow.CLAMP);
  const dt = 1000 / 64;
  const players = 4;
  const histories: Api.PlayerHistory[] = [];
  const pose = api.createPlayerPose();
  const start: number[] = [];
  for (let p = 0; p < players; p++) {
    histories.push(new api.PlayerHistory(128));
    start.push(u(-6, 6), u(-6, 6), u(-1, 1), u(-1, 1));
  }
  for (let k = 0; k < 96; k++) {
    for (let p = 0; p < players; p++) {
      const t = k * dt;
      let qy = start[p * 4 + 2]! + k * 0.01, qw = start[p * 4 + 3]!;
      const l = Math.sqrt(qy * qy + qw * qw) || 1;
      qy /= l; qw /= l;
      pose.x = start[p * 4]! + (k * 3) / 64; pose.y = 0; pose.z = start[p * 4 + 1]! - (k * 2) / 64;
      pose.qx = 0; pose.qy = Math.fround(qy); pose.qz = 0; pose.qw = Math.fround(qw);
      pose.clip = (p + (k >> 5)) % rig.clips.length; pose.time = Math.fround(t / 1000);
      pose.alive = true; pose.epoch = 1;
      histories[p]!.record(k, t, pose);
    }
  }
  const rewinder = new api.Rewinder(rig, { policy });
  const hh = api.createHitboxHit();
  const newest = 95 * dt;
  let rewindHits = 0;
  for (let q = 0; q < 2000; q++) {
    const time = newest - u(0, 260);
    const target = q % players;
    histories[target]!.sampleAt(pose, time, policy);
    const sx = pose.x + u(-8, 8), sy = u(0.2, 2.5), sz = pose.z + u(-8, 8);
    const ex = pose.x + u(-0.4, 0.4), ey = u(0.1, 1.9), ez = pose.z + u(-0.4, 0.4);
    const k = 12 / (Math.sqrt((ex - sx) * (ex - sx) + (ey - sy) * (ey - sy) + (ez - sz) * (ez - sz)) || 1);
    if (rewinder.firstHit(hh, histories, time, sx, sy, sz, sx + (ex - sx) * k, sy + (ey - sy) * k, sz + (ez - sz) * k, -1)) {
      rewindHits++;
      out.push(hh.player, hh.zone, hh.t, hh.x, hh.y, hh.z);
    } else out.push(-3);
  }

  // validateShot: slot 0 shoots at the others, honest and not, from a seeded eye.
  const zm: number[] = [];
  for (let z = 0; z < api.HIT_ZONE_COUNT; z++) zm.push((api.DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const config = api.defaultValidationConfig(api.WEAPONS, zm, rig.eyeHeight, players);
  const scene: Api.ShotScene = { world, rewinder, histories, eyePolicy: policy };
  const targets: Api.ShotTargets = { alive: [true, true, true, true], lifeStartMs: [0, 0, 0, 0] };
  const verdict = api.createVerdict();
  const bytes = new Uint8Array(api.SHOT_BYTES);
  const shot = api.createShotMessage();
  let verdictHits = 0;
  const reasons = new Set<number>();
  let shooter = api.createShooterState(0, api.WEAPONS.map((w) => w.magazine), config.loadout);
  for (let q = 0; q < 1500; q++) {
    if (q % 3 === 0) shooter = api.createShooterState(0, api.WEAPONS.map((w) => w.magazine), config.loadout);
    const receive = newest + u(-20, 20);
    const rtt = u(10, 200);
    const interp = 100;
    const timing: Api.ShotTiming = { receiveTimeMs: receive, rttMs: rtt, interpDelayMs: interp, newestTickMs: newest };
    const action = receive - rtt / 2 + u(-30, 30);
    const render = action - interp + u(-80, 80);
    histories[0]!.sampleAt(pose, newest, policy);
    const sx = pose.x + u(-0.8, 0.8), sy = pose.y + rig.eyeHeight + u(-0.3, 0.3), sz = pose.z + u(-0.8, 0.8);
    const target = 1 + (q % 3);
    histories[target]!.sampleAt(pose, render, policy);
    const ax = pose.x + u(-0.5, 0.5), ay = u(0.2, 1.8), az = pose.z + u(-0.5, 0.5);
    const len = Math.sqrt((ax - sx) * (ax - sx) + (ay - sy) * (ay - sy) + (az - sz) * (az - sz)) || 1;
    const reach = u(5, 60) / len;
    shot.action = api.ShotAction.FIRE;
    shot.seq = q + 1;
    shot.weapon = api.WeaponId.RIFLE;
    shot.claimedTarget = q % 7 === 0 ? -1 : target;
    shot.timeMs = action;
    shot.renderTimeMs = render;
    shot.sx = sx; shot.sy = sy; shot.sz = sz;
    shot.ex = sx + (ax - sx) * reach; shot.ey = sy + (ay - sy) * reach; shot.ez = sz + (az - sz) * reach;
    api.encodeShot(bytes, shot);
    api.validateShot(verdict, scene, config, bytes, shooter, timing, targets);
    api.copyShooterState(shooter, verdict.after);
    if (verdict.kind === api.VerdictKind.HIT) verdictHits++;
    reasons.add(verdict.reason);
    out.push(verdict.kind, verdict.reason, verdict.target, verdict.zone, verdict.t, verdict.damage, verdict.rewindTimeMs, verdict.timeSource,
      verdict.x, verdict.y, verdict.z, verdict.originOffsetM);
  }

  // Pellets and penetration: shotgun pulls with their predicted patterns, sniper shots through the
  // boxes, and every hit along segments (world and players).
  const frame = new Uint8Array(api.SHOT_MAX_BYTES);
  // Every box is a wall of resistance 0.5: the sniper's 0.6 passes the thinner ones.
  const pellConfig = { ...config, spreadSeed: 0x9e3779b9, defaultResistance: 0.5 };
  let pellets = 0, pelletHits = 0, wallsPassed = 0;
  const allW = api.createWorldHits(32);
  const allP = api.createHitboxHits(players);
  for (let q = 0; q < 600; q++) {
    shooter = api.createShooterState(0, api.WEAPONS.map((w) => w.magazine), config.loadout);
    const weapon = q % 2 === 0 ? api.WeaponId.SHOTGUN : api.WeaponId.SNIPER;
    shooter.equipped = weapon;
    shooter.pulls = q;
    const timing: Api.ShotTiming = { receiveTimeMs: newest, rttMs: 40, interpDelayMs: 100, newestTickMs: newest };
    histories[0]!.sampleAt(pose, newest, policy);
    const sx = pose.x, sy = pose.y + rig.eyeHeight, sz = pose.z;
    histories[1 + (q % 3)]!.sampleAt(pose, newest - 120, policy);
    const ax = pose.x + u(-0.3, 0.3), ay = u(0.5, 1.7), az = pose.z + u(-0.3, 0.3);
    const len = Math.sqrt((ax - sx) * (ax - sx) + (ay - sy) * (ay - sy) + (az - sz) * (az - sz)) || 1;
    const reach = u(10, 35) / len;
    shot.action = api.ShotAction.FIRE;
    shot.seq = q + 1;
    shot.weapon = weapon;
    shot.claimedTarget = -1;
    shot.timeMs = newest - 20;
    shot.renderTimeMs = newest - 120;
    shot.sx = sx; shot.sy = sy; shot.sz = sz;
    shot.ex = sx + (ax - sx) * reach; shot.ey = sy + (ay - sy) * reach; shot.ez = sz + (az - sz) * reach;
    shot.pelletCount = 0;
    const spec = api.WEAPONS[weapon]!;
    if (api.hasPattern(spec)) shot.pelletCount = api.predictPellets(shot.pellets, pellConfig.spreadSeed, shooter, spec, shot.timeMs, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez);
    api.encodeShot(frame, shot);
    api.validateShot(verdict, scene, pellConfig, frame.subarray(0, api.shotBytes(shot.pelletCount)), shooter, timing, targets);
    out.push(verdict.kind, verdict.reason, verdict.damage, verdict.pellets.count, verdict.hits.count, verdict.impacts.count);
    pellets += verdict.pellets.count;
    pelletHits += verdict.hits.count;
    for (let k = 0; k < verdict.pellets.count; k++) wallsPassed += verdict.pellets.walls[k]!;
    for (let k = 0; k < verdict.pellets.count; k++) out.push(verdict.pellets.reason[k]!, verdict.pellets.ex[k]!, verdict.pellets.ey[k]!, verdict.pellets.ez[k]!, verdict.pellets.stopT[k]!, verdict.pellets.walls[k]!);
    for (let i = 0; i < verdict.hits.count; i++) out.push(verdict.hits.target[i]!, verdict.hits.zone[i]!, verdict.hits.t[i]!, verdict.hits.damage[i]!, verdict.hits.walls[i]!);
    for (let i = 0; i < verdict.impacts.count; i++) out.push(verdict.impacts.t[i]!, verdict.impacts.x[i]!, verdict.impacts.exit[i]!);
    const nw = world.allHits(allW, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez);
    out.push(nw, allW.total);
    for (let i = 0; i < nw; i++) out.push(allW.t[i]!, allW.triangle[i]!, allW.front[i]!);
    const np = rewinder.allHits(allP, histories, newest - 120, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez, 0, 1);
    out.push(np);
    for (let i = 0; i < np; i++) out.push(allP.player[i]!, allP.t[i]!, allP.hitbox[i]!);
  }

  // Melee: knife swings from a shooter who follows one of the others at 0.6..1.8 m (one scene per
  // target, with its own follower in slot 0 and no VolumeRewinder of its own): a sphere swept along
  // each swing, the thin segment to the contact against the boxes.
  let swings = 0, swingHits = 0;
  const swingReasons = new Set<number>();
  const knife = api.WEAPONS[api.WeaponId.KNIFE]!;
  const meleeScenes: Api.ShotScene[] = [];
  for (let t = 1; t < players; t++) {
    const follower = new api.PlayerHistory(128);
    const dist = u(0.6, 1.8);
    const ox = dist * (t === 1 ? 1 : t === 2 ? -0.6 : 0.2), oz = dist * (t === 1 ? 0 : t === 2 ? 0.8 : -0.98);
    for (let k = 0; k < 96; k++) {
      histories[t]!.sampleAt(pose, k * dt, policy);
      pose.x += ox; pose.z += oz;
      follower.record(k, k * dt, pose);
    }
    meleeScenes.push({ world, rewinder, histories: [follower, histories[1]!, histories[2]!, histories[3]!], eyePolicy: policy });
  }
  for (let q = 0; q < 400; q++) {
    shooter = api.createShooterState(0, api.WEAPONS.map((w) => w.magazine), config.loadout);
    shooter.equipped = api.WeaponId.KNIFE;
    const timing: Api.ShotTiming = { receiveTimeMs: newest, rttMs: 40, interpDelayMs: 100, newestTickMs: newest };
    const target = 1 + (q % 3);
    const melee = meleeScenes[target - 1]!;
    melee.histories[0]!.sampleAt(pose, newest, policy);
    const sx = pose.x, sy = pose.y + rig.eyeHeight, sz = pose.z;
    // Aims at a point around the target, or anywhere near the shooter; swings of every length up to the range.
    histories[target]!.sampleAt(pose, newest - 120, policy);
    const near = q % 4 !== 0;
    const ax = near ? pose.x + u(-0.6, 0.6) : sx + u(-3, 3), ay = u(0.1, 2), az = near ? pose.z + u(-0.6, 0.6) : sz + u(-3, 3);
    const len = Math.sqrt((ax - sx) * (ax - sx) + (ay - sy) * (ay - sy) + (az - sz) * (az - sz)) || 1;
    const reach = (knife.rangeM * u(0.3, 1.05)) / len;
    shot.action = api.ShotAction.FIRE;
    shot.seq = q + 1;
    shot.weapon = api.WeaponId.KNIFE;
    shot.claimedTarget = -1;
    shot.timeMs = newest - 20;
    shot.renderTimeMs = newest - 120;
    shot.sx = sx; shot.sy = sy; shot.sz = sz;
    shot.ex = sx + (ax - sx) * reach; shot.ey = sy + (ay - sy) * reach; shot.ez = sz + (az - sz) * reach;
    shot.pelletCount = 0;
    api.encodeShot(bytes, shot);
    api.validateShot(verdict, melee, config, bytes, shooter, timing, targets);
    swings++;
    if (verdict.kind === api.VerdictKind.HIT) swingHits++;
    swingReasons.add(verdict.reason);
    out.push(verdict.kind, verdict.reason, verdict.target, verdict.zone, verdict.hitbox, verdict.t, verdict.x, verdict.y, verdict.z, verdict.damage,
      verdict.worldHit ? 1 : 0, verdict.worldT, verdict.after.nextFireMs, verdict.after.ammo[api.WeaponId.KNIFE]!);
  }

  const f = new Float64Array(out);
  return {
    hash: api.fnv1a64(new Uint8Array(f.buffer)),
    numbers: f.length,
    worldHash: world.hash,
    rigHash: rig.hash,
    worldHits,
    rewindHits,
    verdictHits,
    verdictReasons: reasons.size,
    pellets,
    pelletHits,
    wallsPassed,
    swings,
    swingHits,
    swingReasons: [...swingReasons].sort((a, b) => a - b).map((r) => api.reasonName(r)).join(' '),
  };
}
