// Projectile flight (shared/projectile/flight.ts, catchUp.ts): impacts against a brute-force flight
// (exact parabola in 0.25 ms chords, the swept-sphere kernel over every triangle, no BVH); step
// splitting bounded by the chord tolerance; bounces keep the tangential velocity and scale the
// normal one; a fused grenade rolls and explodes where expected; a rocket hits a player a thin ray
// misses; shooter grace; catch-up against rewound players equals stepping with players posed by
// hand; a seeded batch hashed twice; no allocation per step.
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { PlayerHistory } from '../shared/lagcomp/history';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createHitboxHit } from '../shared/lagcomp/rewind';
import { VolumeRewinder } from '../shared/lagcomp/rewindVolume';
import {
  catchUpProjectile, catchUpStartMs, CHORD_TOLERANCE_M, createFlightEvent, createProjectileState, FlightEventKind, FlightMode,
  launchProjectile, MAX_CATCH_UP_MS, maxSubStepMs, SKIN_M, stepProjectile, type ProjectileState,
} from '../shared/projectile/index';
import { fnv1a64 } from '../shared/util/hash';
import { mulberry32 } from '../shared/util/prng';
import { WEAPONS, WeaponId, weaponTableProblem, type ProjectileSpec } from '../shared/weapons';
import { World } from '../shared/world/world';
import { bruteImpact, dot, worldOf } from './helpers/projectileScenes';
import { makeHistories, NEWEST, randomDir, rewinder } from './helpers/volumeBrute';

const vol = new VolumeRewinder(rewinder);
const ROCKET = WEAPONS[WeaponId.ROCKET]!.projectile!;
const GRENADE = WEAPONS[WeaponId.GRENADE]!.projectile!;
const IMPACT_GRENADE: ProjectileSpec = { ...GRENADE, fuseMs: 0, bounce: 0 };
const none: (PlayerHistory | undefined)[] = [];

/** A closed 40 m room (floor top at y = 0) with seeded pillars and slabs. */
function room(seed: number): { world: World; solids: number[][] } {
  const rnd = mulberry32(seed);
  const solids = [[-20, -1, -20, 20, 0, 20], [-21, 0, -20, -20, 8, 20], [20, 0, -20, 21, 8, 20], [-20, 0, -21, 20, 8, -20], [-20, 0, 20, 20, 8, 21], [-20, 8, -20, 20, 9, 20]];
  for (let i = 0; i < 24; i++) {
    const x = (rnd() - 0.5) * 36, z = (rnd() - 0.5) * 36, w = 0.3 + rnd() * 3, d = 0.3 + rnd() * 3, y0 = rnd() < 0.5 ? 0 : rnd() * 4;
    solids.push([x, y0, z, x + w, y0 + 0.2 + rnd() * 3, z + d]);
  }
  return { world: worldOf(solids), solids };
}

function freePoint(rnd: () => number, solids: number[][], r: number): number[] {
  for (;;) {
    const p = [(rnd() - 0.5) * 36, 0.5 + rnd() * 6, (rnd() - 0.5) * 36];
    if (solids.every((b) => p[0] < b[0] - r || p[0] > b[3] + r || p[1] < b[1] - r || p[1] > b[4] + r || p[2] < b[2] - r || p[2] > b[5] + r)) return p;
  }
}

/** Steps until the flight ends (or maxMs): the event and the state. */
function fly(s: ProjectileState, spec: ProjectileSpec, dtMs: number, world: World | null, histories = none, timeMs = NEWEST, maxMs = 10_000) {
  const ev = createFlightEvent();
  for (let t = 0; t < maxMs && s.alive; t += dtMs) {
    if (stepProjectile(ev, s, spec, dtMs, world, histories.length ? vol : null, histories, timeMs) !== FlightEventKind.NONE) break;
  }
  return ev;
}

describe('projectile specs', () => {
  it('the table with ROCKET and GRENADE is valid, and a bad projectile field is named', () => {
    expect(weaponTableProblem(WEAPONS)).toBeNull();
    expect(ROCKET).toMatchObject({ speed: 20, radius: 0.3, gravity: 0, fuseMs: 0, splash: { radius: 4, damageMax: 100, damageMin: 10 } });
    expect(GRENADE).toMatchObject({ gravity: 9.81, radius: 0.08, fuseMs: 2500, bounce: 0.45 });
    const bad = (p: object) => weaponTableProblem(WEAPONS.map((w) => (w.id === WeaponId.ROCKET ? { ...w, projectile: { ...ROCKET, ...p } } : w)));
    expect(bad({ speed: 0 })).toMatch(/speed/);
    expect(bad({ bounce: 1.5 })).toMatch(/bounce/);
    expect(bad({ gravity: -1 })).toMatch(/gravity/);
    expect(bad({ splash: { radius: 0, damageMax: 1, damageMin: 0 } })).toMatch(/splash radius/);
    expect(bad({ splash: { radius: 2, damageMax: Number.NaN, damageMin: 0 } })).toMatch(/damageMax/);
  });
});

describe('flight against the level', () => {
  it('impacts equal a brute-force flight within the chord bound (600 seeded rockets and impact grenades, 16 ms steps)', () => {
    const { world, solids } = room(0x9a01);
    const rnd = mulberry32(0x9a02);
    let compared = 0, grazing = 0;
    for (let k = 0; k < 600; k++) {
      const spec = k % 2 === 0 ? ROCKET : IMPACT_GRENADE;
      const p0 = freePoint(rnd, solids, spec.radius + 0.01), d = randomDir(rnd);
      const s = createProjectileState();
      expect(launchProjectile(s, spec, -1, p0[0], p0[1], p0[2], d[0], d[1], d[2])).toBe(true);
      const v0 = [s.vx, s.vy, s.vz];
      const ev = fly(s, spec, 16, world);
      const ref = bruteImpact(world, p0, v0, spec.gravity, spec.radius, spec.lifetimeMs);
      expect(ref, `flight ${k}`).not.toBeNull();
      expect(ev.kind, `flight ${k}`).toBe(FlightEventKind.LEVEL);
      const speed = Math.hypot(...ref!.v), sin = Math.abs(dot(ref!.v, ref!.n)) / speed;
      const dist = Math.hypot(ev.x - ref!.c[0], ev.y - ref!.c[1], ev.z - ref!.c[2]);
      if (spec.gravity === 0) {
        expect(dist, `flight ${k}`).toBeLessThan(1e-7);
        expect(Math.abs(ev.ageMs - ref!.ageMs)).toBeLessThan(1e-6);
      } else if (sin > 0.1) {
        // The chord is within the tolerance of the parabola: along a path meeting the surface at
        // sine `sin`, the contact moves by at most tolerance / sin (brute force: 1e-7 m off).
        const bound = CHORD_TOLERANCE_M / sin + 1e-6;
        expect(dist, `flight ${k}`).toBeLessThan(bound);
        expect(Math.abs(ev.ageMs - ref!.ageMs)).toBeLessThan((bound / speed) * 1000 + 1e-6);
      } else grazing++;
      compared++;
    }
    expect(compared).toBe(600);
    expect(grazing).toBeLessThan(60);
  });

  it('a flight stepped 1 x 50 ms or 5 x 10 ms differs by rounding in the open and by the chord bound at an impact', () => {
    const { world, solids } = room(0x9a03);
    const rnd = mulberry32(0x9a04);
    expect(maxSubStepMs(9.81)).toBeGreaterThan(50); // one chord per 50 ms step
    for (let k = 0; k < 300; k++) {
      const p0 = freePoint(rnd, solids, 0.1), d = randomDir(rnd);
      const a = createProjectileState(), b = createProjectileState();
      launchProjectile(a, IMPACT_GRENADE, -1, p0[0], p0[1], p0[2], d[0], d[1], d[2]);
      launchProjectile(b, IMPACT_GRENADE, -1, p0[0], p0[1], p0[2], d[0], d[1], d[2]);
      // Open air: same state after every 50 ms.
      const ea = createFlightEvent(), eb = createFlightEvent();
      for (let step = 0; step < 4; step++) {
        stepProjectile(ea, a, IMPACT_GRENADE, 50, null, null, none, 0);
        for (let i = 0; i < 5; i++) stepProjectile(eb, b, IMPACT_GRENADE, 10, null, null, none, 0);
        expect(Math.abs(a.x - b.x) + Math.abs(a.y - b.y) + Math.abs(a.z - b.z)).toBeLessThan(1e-9);
        expect(Math.abs(a.vy - b.vy)).toBeLessThan(1e-9);
        expect(Math.abs(a.ageMs - b.ageMs)).toBeLessThan(1e-9);
      }
      // Against the level: each contact is within tolerance / sin of the true one, so within twice that of each other.
      launchProjectile(a, IMPACT_GRENADE, -1, p0[0], p0[1], p0[2], d[0], d[1], d[2]);
      launchProjectile(b, IMPACT_GRENADE, -1, p0[0], p0[1], p0[2], d[0], d[1], d[2]);
      const fa = fly(a, IMPACT_GRENADE, 50, world), fb = fly(b, IMPACT_GRENADE, 10, world);
      expect(fa.kind).toBe(FlightEventKind.LEVEL);
      expect(fb.kind).toBe(FlightEventKind.LEVEL);
      const vy = d[1] * IMPACT_GRENADE.speed - (IMPACT_GRENADE.gravity * fb.ageMs) / 1000;
      const v = [d[0] * IMPACT_GRENADE.speed, vy, d[2] * IMPACT_GRENADE.speed];
      const sin = Math.abs(dot(v, [fb.nx, fb.ny, fb.nz])) / Math.hypot(...v);
      if (sin > 0.1) expect(Math.hypot(fa.x - fb.x, fa.y - fb.y, fa.z - fb.z), `flight ${k}`).toBeLessThan((2 * CHORD_TOLERANCE_M) / sin + 1e-6);
    }
  });

  it('a bounce keeps the tangential velocity and scales the normal one by the restitution (flat and tilted floors)', () => {
    const spec: ProjectileSpec = { ...GRENADE, gravity: 0, fuseMs: 5000, lifetimeMs: 6000 };
    const n = [0.3, 1, 0.2].map((v) => v / Math.hypot(0.3, 1, 0.2));
    // A big plane through the origin with normal n (two triangles wound toward n).
    const u = [1, -n[0] / n[1], 0].map((v, _, a) => v / Math.hypot(...a));
    const w = [u[1] * n[2] - u[2] * n[1], u[2] * n[0] - u[0] * n[2], u[0] * n[1] - u[1] * n[0]];
    const P = (a: number, b: number) => [a * 50 * u[0] + b * 50 * w[0], a * 50 * u[1] + b * 50 * w[1], a * 50 * u[2] + b * 50 * w[2]];
    const tilted = World.fromTriangles(Float32Array.from([...P(-1, -1), ...P(-1, 1), ...P(1, 1), ...P(1, -1)]), Uint32Array.from([0, 1, 2, 0, 2, 3]));
    const flat = worldOf([[-50, -1, -50, 50, 0, 50]]);
    const cases: [World, number[]][] = [[flat, [0, 1, 0]], [tilted, [Math.fround(n[0]), Math.fround(n[1]), Math.fround(n[2])]]];
    const rnd = mulberry32(0x9a05);
    for (const [world, normal] of cases) {
      for (let k = 0; k < 50; k++) {
        const d = [rnd() - 0.5, -0.2 - rnd(), rnd() - 0.5];
        const s = createProjectileState();
        launchProjectile(s, spec, -1, 0, 3, 0, d[0], d[1], d[2]);
        const v0 = [s.vx, s.vy, s.vz];
        const ev = createFlightEvent();
        while (s.bounces === 0) stepProjectile(ev, s, spec, 16, world, null, none, 0);
        expect(ev.bounces).toBe(1);
        const vn = dot(v0, normal), after = [s.vx, s.vy, s.vz];
        const an = dot(after, normal);
        const nn = Math.hypot(...normal);
        expect(Math.abs(an / nn + (spec.bounce * vn) / nn), `case ${k}`).toBeLessThan(1e-4); // the plane's float32 normal vs its triangles'
        const tangent = (v: number[], m: number) => v.map((x, i) => x - (m / (nn * nn)) * normal[i]);
        const t0 = tangent(v0, vn), t1 = tangent(after, an);
        expect(Math.hypot(t0[0] - t1[0], t0[1] - t1[1], t0[2] - t1[2]), `case ${k}`).toBeLessThan(1e-4);
        // The centre rests SKIN_M beyond contact: at distance r + skin from the plane (time to it is within the step).
        expect(s.mode).toBe(FlightMode.FLYING);
      }
    }
    // Flat floor exactly: the normal is (0, 1, 0), so the tangential components are the same bits.
    const s = createProjectileState(), ev = createFlightEvent();
    launchProjectile(s, spec, -1, 0, 3, 0, 0.6, -1, 0.3);
    const vx = s.vx, vz = s.vz, vy = s.vy;
    while (s.bounces === 0) stepProjectile(ev, s, spec, 16, flat, null, none, 0);
    expect([s.vx, s.vz]).toEqual([vx, vz]);
    expect(s.vy).toBeCloseTo(-spec.bounce * vy, 12);
  });

  it('a fused grenade bounces, rolls on the floor keeping its horizontal speed and explodes at the fuse where expected', () => {
    const floor = worldOf([[-100, -1, -100, 100, 0, 100]]);
    for (const [dx, dy, dz] of [[1, 0.2, 0], [0.6, -0.1, -0.8], [-0.5, 0, 0.5]]) {
      const s = createProjectileState();
      launchProjectile(s, GRENADE, 0, 0, 1, 0, dx, dy, dz);
      const vx = s.vx, vz = s.vz;
      const ev = fly(s, GRENADE, 16, floor);
      expect(ev.kind).toBe(FlightEventKind.FUSE);
      expect(ev.ageMs).toBe(GRENADE.fuseMs);
      expect(s.mode).toBe(FlightMode.ROLLING);
      expect(s.bounces).toBeGreaterThanOrEqual(2);
      expect(ev.y).toBeGreaterThanOrEqual(GRENADE.radius);
      expect(ev.y).toBeLessThan(GRENADE.radius + 2 * SKIN_M);
      expect(Math.abs(ev.x - (vx * GRENADE.fuseMs) / 1000)).toBeLessThan(1e-9);
      expect(Math.abs(ev.z - (vz * GRENADE.fuseMs) / 1000)).toBeLessThan(1e-9);
    }
    // Rolling off a ledge: it falls and lands on the floor below.
    const ledge = worldOf([[-100, -3, -100, 100, -2, 100], [-5, -2, -5, 2, 0, 5]]);
    const s = createProjectileState();
    launchProjectile(s, GRENADE, 0, 0, 0.5, 0, 1, 0, 0.000001);
    s.vx = 2; s.vy = 0; s.vz = 0;
    const ev = fly(s, GRENADE, 16, ledge);
    expect(ev.kind).toBe(FlightEventKind.FUSE);
    expect(ev.y).toBeLessThan(-1);
    expect(ev.y).toBeGreaterThanOrEqual(-2 + GRENADE.radius);
    expect(ev.x).toBeCloseTo(5, 6);
  });

  it('lifetime ends a flight without explosion; a sticky projectile stays where it touched', () => {
    const s = createProjectileState();
    launchProjectile(s, ROCKET, 0, 0, 100, 0, 0, 1, 0);
    const ev = fly(s, ROCKET, 33, null);
    expect(ev.kind).toBe(FlightEventKind.EXPIRED);
    expect(ev.ageMs).toBe(ROCKET.lifetimeMs);
    expect(ev.y).toBeCloseTo(100 + (ROCKET.speed * ROCKET.lifetimeMs) / 1000, 9);
    const sticky: ProjectileSpec = { ...GRENADE, bounce: 0 };
    const floor = worldOf([[-100, -1, -100, 100, 0, 100]]);
    launchProjectile(s, sticky, 0, 0, 2, 0, 1, -1, 0);
    const e2 = fly(s, sticky, 16, floor);
    expect(e2.kind).toBe(FlightEventKind.FUSE);
    expect(s.mode).toBe(FlightMode.STUCK);
    expect(e2.y).toBeCloseTo(sticky.radius, 9);
  });

  it('hostile input: a zero or non-finite direction does not launch; a dead state or a bad dt does nothing', () => {
    const s = createProjectileState(), ev = createFlightEvent();
    expect(launchProjectile(s, ROCKET, 0, 0, 0, 0, 0, 0, 0)).toBe(false);
    expect(launchProjectile(s, ROCKET, 0, Number.NaN, 0, 0, 1, 0, 0)).toBe(false);
    expect(launchProjectile(s, ROCKET, 0, 0, 0, 0, Infinity, 0, 0)).toBe(false);
    expect(s.alive).toBe(false);
    expect(stepProjectile(ev, s, ROCKET, 16, null, null, none, 0)).toBe(FlightEventKind.NONE);
    launchProjectile(s, ROCKET, 0, 0, 0, 0, 1, 0, 0);
    for (const dt of [0, -5, Number.NaN]) {
      expect(stepProjectile(ev, s, ROCKET, dt, null, null, none, 0)).toBe(FlightEventKind.NONE);
      expect([s.x, s.ageMs]).toEqual([0, 0]);
    }
  });
});

/** One player standing at the origin facing +z, clip 0, recorded every 1000/64 ms over 600 ms (moving along x at vx m/s). */
function standing(vx = 0, at = 0): PlayerHistory {
  const h = new PlayerHistory(PlayerHistory.capacityFor(64, 1000));
  const pose = createPlayerPose();
  for (let tick = 0; tick < 40; tick++) {
    const t = (tick * 1000) / 64;
    pose.x = at + (vx * t) / 1000; pose.y = 0; pose.z = 0;
    pose.qx = 0; pose.qy = 0; pose.qz = 0; pose.qw = 1;
    pose.clip = 0; pose.time = t / 1000; pose.alive = true;
    h.record(tick, t, pose);
  }
  return h;
}

describe('flight against players', () => {
  it('a rocket hits a player that a thin ray along its path misses by less than its radius', () => {
    const histories = [undefined, standing()];
    const time = 300, hit = createHitboxHit();
    // The ray along -x at chest height, moved in z until it just misses the body.
    let z = 0;
    while (rewinder.firstHit(hit, histories, time, 10, 1.3, z, -10, 1.3, z, -1)) z += 0.01;
    z += 0.15; // misses by at least 0.15 m, less than the rocket's 0.3 m... unless the body is far
    expect(rewinder.firstHit(hit, histories, time, 10, 1.3, z, -10, 1.3, z, -1)).toBe(false);
    const s = createProjectileState();
    launchProjectile(s, ROCKET, 0, 10, 1.3, z, -1, 0, 0);
    const ev = fly(s, ROCKET, 16, null, histories, time, 2000);
    expect(ev.kind).toBe(FlightEventKind.PLAYER);
    expect(ev.player).toBe(1);
    expect(ev.hitbox).toBeGreaterThanOrEqual(0);
    // The centre at contact is the rocket's radius from the body, on the path.
    expect(ev.z).toBe(z);
    expect(ev.x).toBeGreaterThan(0);
    // Far aside (beyond the arms too) it misses.
    launchProjectile(s, ROCKET, 0, 10, 1.3, z + 1, -1, 0, 0);
    expect(fly(s, ROCKET, 16, null, histories, time).kind).toBe(FlightEventKind.EXPIRED);
  });

  it('the shooter is not touched during the grace time, then is; a projectile at rest is not touched by a player walking into it', () => {
    const histories = [standing()];
    const s = createProjectileState();
    // Fired at itself from 3 m: reaches it in 150 ms, inside the 250 ms grace.
    launchProjectile(s, ROCKET, 0, 3, 1.2, 0, -1, 0, 0);
    const e1 = fly(s, ROCKET, 16, null, histories, 300, 600);
    expect(e1.player).toBe(-1);
    launchProjectile(s, { ...ROCKET, shooterGraceMs: 0 }, 0, 3, 1.2, 0, -1, 0, 0);
    const e2 = fly(s, { ...ROCKET, shooterGraceMs: 0 }, 16, null, histories, 300, 600);
    expect(e2.kind).toBe(FlightEventKind.PLAYER);
    expect(e2.player).toBe(0);
    // A grenade lying still where a player stands: no touch.
    const lying = createProjectileState(), ev = createFlightEvent();
    launchProjectile(lying, GRENADE, -1, 0, 0.08 + SKIN_M, 0, 1, 0, 0);
    lying.vx = 0; lying.mode = FlightMode.ROLLING;
    const floor = worldOf([[-10, -1, -10, 10, 0, 10]]);
    stepProjectile(ev, lying, GRENADE, 16, floor, vol, histories, 300);
    expect(ev.player).toBe(-1);
  });
});

describe('catch-up', () => {
  it('catchUpStartMs caps the span caught up', () => {
    expect(catchUpStartMs(1000, 1060)).toBe(1000);
    expect(catchUpStartMs(1000, 1300)).toBe(1300 - MAX_CATCH_UP_MS);
    expect(catchUpStartMs(1400, 1300)).toBe(1300);
    expect(catchUpStartMs(Number.NaN, 1300)).toBeNaN();
  });

  it('equals stepping the same flight with each sub-step against players posed by hand at its start time (200 seeded flights)', () => {
    const rnd = mulberry32(0x9a06);
    const histories = makeHistories(rnd, 8, 4);
    const { world } = room(0x9a07);
    const pose = createPlayerPose();
    let touched = 0;
    for (let k = 0; k < 200; k++) {
      const spec = k % 2 === 0 ? ROCKET : GRENADE;
      const from = NEWEST - 200 + rnd() * 100, span = 30 + rnd() * 100, step = 1000 / 64;
      const target = histories[Math.floor(rnd() * 8)]!;
      target.sampleAt(pose, from, rewinder.policy);
      const p0 = [pose.x + (rnd() - 0.5) * 8, 0.3 + rnd() * 2, pose.z + (rnd() - 0.5) * 8];
      const aim = [pose.x - p0[0], 1 - p0[1], pose.z - p0[2]];
      const a = createProjectileState(), b = createProjectileState();
      launchProjectile(a, spec, 0, p0[0], p0[1], p0[2], aim[0], aim[1], aim[2]);
      launchProjectile(b, spec, 0, p0[0], p0[1], p0[2], aim[0], aim[1], aim[2]);
      const ea = createFlightEvent(), eb = createFlightEvent();
      catchUpProjectile(ea, a, spec, from, from + span, step, world, vol, histories);
      // By hand: each sub-step against one-sample histories holding every player's pose at its start.
      let player = -1, bounces = 0;
      for (let i = 0; b.alive; i++) {
        const t = from + i * step;
        if (!(t < from + span)) break;
        const posed = histories.map((h) => {
          if (!h || h.sampleAt(pose, t, rewinder.policy) > 2) return undefined;
          const one = new PlayerHistory(4);
          one.record(0, t, pose);
          return one;
        });
        const dt = Math.min(t + step, from + span) - t;
        stepProjectile(eb, b, spec, dt, world, vol, posed, t);
        if (player < 0) player = eb.player;
        bounces += eb.bounces;
        if (eb.kind !== FlightEventKind.NONE) break;
      }
      // The one-sample histories re-normalise each pose's rotation: the same up to rounding.
      const da = [a.x, a.y, a.z, a.vx, a.vy, a.vz, a.ageMs], db = [b.x, b.y, b.z, b.vx, b.vy, b.vz, b.ageMs];
      for (let i = 0; i < 7; i++) expect(Math.abs(da[i] - db[i]), `flight ${k} value ${i}`).toBeLessThan(1e-9);
      expect(a.alive).toBe(b.alive);
      expect(ea.kind).toBe(eb.kind);
      expect(ea.player).toBe(player);
      expect(ea.bounces).toBe(bounces);
      if (player >= 0) touched++;
    }
    expect(touched).toBeGreaterThan(40);
  });
});

describe('determinism and allocation', () => {
  /** A seeded batch: rockets and grenades among 12 players in the room, 16 ms steps, every state folded into FNV-1a 64. */
  function batch(): string {
    const rnd = mulberry32(0x9a08);
    const histories = makeHistories(rnd, 12, 10);
    const { world, solids } = room(0x9a09);
    const values: number[] = [];
    const s = createProjectileState(), ev = createFlightEvent();
    for (let k = 0; k < 150; k++) {
      const spec = k % 3 === 0 ? ROCKET : GRENADE;
      const p = freePoint(rnd, solids, 0.31), d = randomDir(rnd);
      launchProjectile(s, spec, k % 12, p[0], p[1], p[2], d[0], d[1], d[2]);
      for (let i = 0; i < 200 && s.alive; i++) {
        stepProjectile(ev, s, spec, 16, world, vol, histories, NEWEST - (i % 10) * 20);
        values.push(s.x, s.y, s.z, s.vx, s.vy, s.vz, s.ageMs, s.bounces, ev.kind, ev.player, ev.x);
      }
    }
    return fnv1a64(new Uint8Array(Float64Array.from(values).buffer));
  }

  it('a seeded batch of flights hashes the same twice', () => {
    expect(batch()).toBe(batch());
  });

  it('a step allocates nothing (heap growth over 3,000 steps after warm-up)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rnd = mulberry32(0x9a0a);
    const histories = makeHistories(rnd, 12, 10);
    const { world, solids } = room(0x9a0b);
    const N = 3000;
    const starts: number[][] = [];
    for (let i = 0; i < 300; i++) starts.push([...freePoint(rnd, solids, 0.31), ...randomDir(rnd)]);
    const s = createProjectileState(), ev = createFlightEvent();
    let sink = 0;
    const run = (): void => {
      for (let i = 0; i < N; i++) {
        if (!s.alive) {
          const a = starts[i % 300];
          launchProjectile(s, i % 2 ? GRENADE : ROCKET, 0, a[0], a[1], a[2], a[3], a[4], a[5]);
        }
        sink += stepProjectile(ev, s, i % 2 ? GRENADE : ROCKET, 16, world, vol, histories, NEWEST);
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
    expect(sink).toBeGreaterThan(0);
    expect(least).toBeLessThan(8);
  });
});
