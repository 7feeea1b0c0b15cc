// Explosions (shared/projectile/explosion.ts): victims and distances against brute force (the signed
// distance to every posed hull), the falloff against hand computation, no damage through a wall,
// damage through an opening and over a low wall (by a hitbox centre), the line-of-sight rule
// against brute-force segment tests over every triangle, and no allocation per blast.
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { PlayerHistory } from '../shared/lagcomp/history';
import { createPlayerPose, type PlayerPose } from '../shared/lagcomp/pose';
import { createVolumeOverlaps, VolumeRewinder } from '../shared/lagcomp/rewindVolume';
import { createSplashHits, explode, LOS_SKIN_M, splashDamage, SplashVia } from '../shared/projectile/index';
import { BONE_STRIDE } from '../shared/rig/rig';
import { mulberry32 } from '../shared/util/prng';
import { WEAPONS, WeaponId, type SplashSpec } from '../shared/weapons';
import type { World } from '../shared/world/world';
import { bruteBlocked, worldOf } from './helpers/projectileScenes';
import { H, insideHitbox, makeHistories, nearBody, posePlayers, queryTime, rewinder, rig, rotate, sd } from './helpers/volumeBrute';

const vol = new VolumeRewinder(rewinder);
const ROCKET_SPLASH = WEAPONS[WeaponId.ROCKET]!.projectile!.splash!;

/** One player standing at (x, 0, z) facing +z, recorded over 600 ms. */
function standing(x: number, z = 0): PlayerHistory {
  const h = new PlayerHistory(PlayerHistory.capacityFor(64, 1000));
  const pose = createPlayerPose();
  for (let tick = 0; tick < 40; tick++) {
    const t = (tick * 1000) / 64;
    pose.x = x; pose.y = 0; pose.z = z;
    pose.qx = 0; pose.qy = 0; pose.qz = 0; pose.qw = 1;
    pose.clip = 0; pose.time = t / 1000; pose.alive = true;
    h.record(tick, t, pose);
  }
  return h;
}

/** World-space centres of a player's hitbox bounding spheres at timeMs, written here from the bones. */
function hitboxCentres(h: PlayerHistory, timeMs: number): number[][] {
  const pose: PlayerPose = createPlayerPose();
  h.sampleAt(pose, timeMs, rewinder.policy);
  const bones = rewinder.poseBones(new Float64Array(H * BONE_STRIDE), pose);
  const out: number[][] = [];
  for (let i = 0; i < H; i++) {
    const o = i * BONE_STRIDE;
    const l = [rig.hitboxSpheres[i * 4], rig.hitboxSpheres[i * 4 + 1], rig.hitboxSpheres[i * 4 + 2]];
    const r = rotate([bones[o + 3], bones[o + 4], bones[o + 5], bones[o + 6]], l);
    out.push([bones[o] + r[0], bones[o + 1] + r[1], bones[o + 2] + r[2]]);
  }
  return out;
}

/** Brute line of sight as the module defines it: C -> P pulled back LOS_SKIN_M from P. */
function seesBrute(world: World, C: number[], P: number[]): boolean {
  const d = Math.hypot(P[0] - C[0], P[1] - C[1], P[2] - C[2]);
  if (!(d > LOS_SKIN_M)) return true;
  const k = (d - LOS_SKIN_M) / d;
  return !bruteBlocked(world, C, [C[0] + k * (P[0] - C[0]), C[1] + k * (P[1] - C[1]), C[2] + k * (P[2] - C[2])]);
}

describe('explode without a level', () => {
  it('victims, nearest distances and damage equal brute force (400 seeded blasts among 12 players)', () => {
    const rnd = mulberry32(0xe101);
    const histories = makeHistories(rnd, 12, 6);
    const out = createSplashHits(16);
    let victims = 0, inside = 0;
    for (let k = 0; k < 400; k++) {
      const time = queryTime(rnd), exclude = Math.floor(rnd() * 13) - 1;
      const posed = posePlayers(histories, time, exclude);
      const C = k % 5 === 0 ? insideHitbox(rnd, posed) : nearBody(rnd, posed, 2.5);
      const splash: SplashSpec = { radius: 0.3 + rnd() * 3, damageMax: 100, damageMin: rnd() * 30 };
      const n = explode(out, null, vol, histories, time, C[0], C[1], C[2], splash, exclude);
      const ref: { p: number; d: number }[] = [];
      for (const P of posed) {
        let best = Infinity;
        for (let h = 0; h < H; h++) best = Math.min(best, sd(P, h, C));
        if (best <= splash.radius) ref.push({ p: P.p, d: Math.max(0, best) });
      }
      expect(n, `blast ${k}`).toBe(ref.length);
      expect(out.blocked).toBe(0);
      for (let i = 0; i < n; i++) {
        const r = ref.find((x) => x.p === out.player[i])!;
        expect(r, `blast ${k}`).toBeDefined();
        expect(out.player[i]).not.toBe(exclude);
        expect(Math.abs(out.distance[i] - r.d), `blast ${k}`).toBeLessThan(1e-9);
        expect(out.via[i]).toBe(SplashVia.NEAREST);
        // Falloff by hand, exactly, from the reported distance.
        expect(out.damage[i]).toBe(splash.damageMax + ((splash.damageMin - splash.damageMax) * out.distance[i]) / splash.radius);
        if (out.distance[i] === 0) inside++;
        victims++;
      }
    }
    expect(victims).toBeGreaterThan(300);
    expect(inside).toBeGreaterThan(10);
  });

  it('falloff: damageMax at 0, damageMin at the radius, linear between; hand-computed for a standing player', () => {
    expect(splashDamage(ROCKET_SPLASH, 0)).toBe(100);
    expect(splashDamage(ROCKET_SPLASH, 4)).toBe(10);
    expect(splashDamage(ROCKET_SPLASH, 1)).toBe(100 - 90 / 4);
    expect(splashDamage(ROCKET_SPLASH, 9)).toBe(10);
    expect(splashDamage(ROCKET_SPLASH, -1)).toBe(100);
    const histories = [standing(2)];
    const out = createSplashHits(4);
    // 2 m from the player's root along -x at chest height: the nearest point is on the chest or an arm.
    expect(explode(out, null, vol, histories, 300, 0, 1.3, 0, ROCKET_SPLASH, -1)).toBe(1);
    const posed = posePlayers(histories, 300, -1)[0]!;
    let d = Infinity;
    for (let h = 0; h < H; h++) d = Math.min(d, sd(posed, h, [0, 1.3, 0]));
    expect(Math.abs(out.distance[0] - d)).toBeLessThan(1e-9);
    expect(Math.abs(out.damage[0] - (100 - (90 * d) / 4))).toBeLessThan(1e-7);
    expect(Math.hypot(out.x[0], out.y[0] - 1.3, out.z[0])).toBeCloseTo(out.distance[0], 9);
    // Out of reach: nothing.
    expect(explode(out, null, vol, histories, 300, -3, 1.3, 0, ROCKET_SPLASH, -1)).toBe(0);
    expect(explode(out, null, vol, histories, 300, Number.NaN, 1.3, 0, ROCKET_SPLASH, -1)).toBe(0);
  });
});

describe('explode behind walls', () => {
  const time = 300;

  it('a player fully behind a wall within the radius takes nothing', () => {
    const world = worldOf([[0.5, -1, -3, 0.9, 4, 3]]);
    const out = createSplashHits(4);
    expect(explode(out, world, vol, [standing(2)], time, -1, 1, 0, ROCKET_SPLASH, -1)).toBe(0);
    expect(out.blocked).toBe(1);
    // Without the wall the same blast reaches it.
    expect(explode(out, null, vol, [standing(2)], time, -1, 1, 0, ROCKET_SPLASH, -1)).toBe(1);
    // Brute force: no hitbox centre and no posed triangle corner is seen from the centre.
    for (const c of hitboxCentres(standing(2), time)) expect(seesBrute(world, [-1, 1, 0], c)).toBe(false);
  });

  it('through a window the nearest point sees the centre; over a low wall a hitbox centre does', () => {
    // A wall with a 0.8 m x 0.6 m window at chest height.
    const window = worldOf([[0.5, -1, -3, 0.9, 1.0, 3], [0.5, 1.6, -3, 0.9, 4, 3], [0.5, 1.0, -3, 0.9, 1.6, -0.4], [0.5, 1.0, 0.4, 0.9, 1.6, 3]]);
    const out = createSplashHits(4);
    const C = [-0.5, 1.3, 0];
    expect(explode(out, window, vol, [standing(2)], time, C[0], C[1], C[2], ROCKET_SPLASH, -1)).toBe(1);
    expect(out.via[0]).toBe(SplashVia.NEAREST);
    expect(seesBrute(window, C, [out.x[0], out.y[0], out.z[0]])).toBe(true);
    expect(out.damage[0]).toBe(splashDamage(ROCKET_SPLASH, out.distance[0]));
    // A low wall: the nearest point (low on the body) is hidden, the head's centre is not.
    const low = worldOf([[0.3, -1, -3, 0.5, 1.0, 3]]);
    const L = [-0.3, 0.7, 0], h = standing(1.0);
    expect(explode(out, low, vol, [h], time, L[0], L[1], L[2], ROCKET_SPLASH, -1)).toBe(1);
    expect(out.via[0]).toBe(SplashVia.HITBOX_CENTRE);
    const ov = createVolumeOverlaps(4);
    vol.overlapSphere(ov, [h], time, L[0], L[1], L[2], ROCKET_SPLASH.radius, -1);
    expect(seesBrute(low, L, [ov.x[0], ov.y[0], ov.z[0]])).toBe(false);
    const centres = hitboxCentres(h, time);
    const seen = centres[out.hitbox[0]]!;
    expect([out.x[0], out.y[0], out.z[0]]).toEqual(seen);
    expect(seesBrute(low, L, seen)).toBe(true);
    const d = Math.hypot(seen[0] - L[0], seen[1] - L[1], seen[2] - L[2]);
    expect(out.distance[0]).toBeCloseTo(d, 12);
    expect(out.damage[0]).toBe(splashDamage(ROCKET_SPLASH, out.distance[0]));
    expect(out.zone[0]).toBe(rig.hitboxZone[out.hitbox[0]]);
    // Every nearer centre within the radius is hidden.
    for (const c of centres) {
      const dc = Math.hypot(c[0] - L[0], c[1] - L[1], c[2] - L[2]);
      if (dc < d) expect(seesBrute(low, L, c)).toBe(false);
    }
  });

  it('the line-of-sight rule holds against brute-force segments over every triangle (300 blasts among pillars)', () => {
    const rnd = mulberry32(0xe102);
    const histories = makeHistories(rnd, 10, 8);
    const solids: number[][] = [];
    for (let i = 0; i < 30; i++) {
      const x = (rnd() - 0.5) * 10, z = (rnd() - 0.5) * 10;
      solids.push([x, -0.5 + rnd(), z, x + 0.1 + rnd() * 1.5, 0.3 + rnd() * 2.5, z + 0.1 + rnd() * 1.5]);
    }
    const world = worldOf(solids);
    const out = createSplashHits(16), ov = createVolumeOverlaps(16);
    let nearestSeen = 0, centreSeen = 0, blocked = 0;
    for (let k = 0; k < 300; k++) {
      const time = queryTime(rnd);
      const posed = posePlayers(histories, time, -1);
      const C = nearBody(rnd, posed, 3);
      const n = explode(out, world, vol, histories, time, C[0], C[1], C[2], ROCKET_SPLASH, -1);
      const m = vol.overlapSphere(ov, histories, time, C[0], C[1], C[2], ROCKET_SPLASH.radius, -1);
      expect(n + out.blocked).toBe(m);
      for (let j = 0; j < m; j++) {
        const p = ov.player[j];
        const i = Array.from(out.player.subarray(0, n)).indexOf(p);
        const nearestVisible = seesBrute(world, C, [ov.x[j], ov.y[j], ov.z[j]]);
        if (nearestVisible) {
          expect(i, `blast ${k} player ${p}`).toBeGreaterThanOrEqual(0);
          expect(out.via[i]).toBe(SplashVia.NEAREST);
          expect(out.distance[i]).toBe(Math.max(0, ov.distance[j]));
          nearestSeen++;
          continue;
        }
        // Hidden nearest point: the nearest seen hitbox centre within the radius, or nothing.
        const centres = hitboxCentres(histories[p]!, time).map((c, h) => ({ h, c, d: Math.hypot(c[0] - C[0], c[1] - C[1], c[2] - C[2]) }))
          .filter((x) => x.d <= ROCKET_SPLASH.radius).sort((a, b) => a.d - b.d || a.h - b.h);
        const first = centres.find((x) => seesBrute(world, C, x.c));
        if (!first) {
          expect(i, `blast ${k} player ${p}`).toBe(-1);
          blocked++;
          continue;
        }
        expect(i, `blast ${k} player ${p}`).toBeGreaterThanOrEqual(0);
        expect(out.via[i]).toBe(SplashVia.HITBOX_CENTRE);
        expect(out.hitbox[i]).toBe(first.h);
        expect(Math.abs(out.distance[i] - first.d)).toBeLessThan(1e-12);
        expect(out.damage[i]).toBe(splashDamage(ROCKET_SPLASH, out.distance[i]));
        centreSeen++;
      }
    }
    expect(nearestSeen).toBeGreaterThan(200);
    expect(centreSeen).toBeGreaterThan(5);
    expect(blocked).toBeGreaterThan(5);
  });

  it('a blast allocates nothing (heap growth over 2,000 blasts after warm-up)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rnd = mulberry32(0xe103);
    const histories = makeHistories(rnd, 12, 6);
    const world = worldOf([[-1, -0.5, -1, 1, 1.2, 1], [2, -0.5, -3, 2.3, 3, 3]]);
    const N = 2000;
    const Q: unknown[][] = [];
    for (let i = 0; i < N; i++) {
      const time = queryTime(rnd);
      const c = nearBody(rnd, posePlayers(histories, time, -1), 2);
      // Generic elements hold each double as a heap number, so passing them boxes nothing.
      const args: unknown[] = [null];
      args[0] = time;
      args.push(c[0], c[1], c[2]);
      Q.push(args);
    }
    const out = createSplashHits(16);
    let sink = 0;
    const run = (): void => {
      for (let i = 0; i < N; i++) {
        const a = Q[i] as number[];
        sink += explode(out, world, vol, histories, a[0], a[1], a[2], a[3], ROCKET_SPLASH, -1) + out.blocked;
      }
    };
    for (let r = 0; r < 5; r++) run();
    let least = Infinity;
    for (let r = 0; r < 40 && !(least < 8); r++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      run();
      least = Math.min(least, (process.memoryUsage().heapUsed - before) / N);
    }
    expect(sink).toBeGreaterThan(N);
    expect(least).toBeLessThan(8);
  });
});
