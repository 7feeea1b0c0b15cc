// Rewind and test: the bone-local segment test equals brute force against the world-space triangle
// snapshot; firstHit over many histories (broadphase included) equals brute force over every
// player; the off-by-one-tick case (a target at 10 m/s, shot at the exact rendered time, hits the
// rendered pose; one tick off misses); skipping rules and hostile input.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSegmentHit } from '../shared/kernels/hit';
import { intersectWatertight } from '../shared/kernels/watertight';
import { createRewindPolicy, OutOfWindow, PlayerHistory, RewindStatus } from '../shared/lagcomp/history';
import { createPlayerPose, type PlayerPose } from '../shared/lagcomp/pose';
import { createHitboxHit, Rewinder } from '../shared/lagcomp/rewind';
import { Clip, MANNEQUIN_RIG } from '../server/rig/mannequin';
import { BONE_STRIDE, HitZone } from '../shared/rig/rig';
import { mulberry32 } from '../shared/util/prng';

const rig = MANNEQUIN_RIG;
const rewinder = new Rewinder(rig);
const tris = new Float64Array(rig.triangleCount * 9);
const wsHit = createSegmentHit();

/** Nearest hit over world triangles, brute force: { t, tri } or null. */
function bruteForce(world: Float64Array, s: number[], e: number[], tMax = 1): { t: number; tri: number } | null {
  let best: { t: number; tri: number } | null = null;
  for (let i = 0; i < rig.triangleCount; i++) {
    const o = i * 9;
    if (!intersectWatertight(wsHit, s[0], s[1], s[2], e[0], e[1], e[2], world[o], world[o + 1], world[o + 2], world[o + 3], world[o + 4], world[o + 5], world[o + 6], world[o + 7], world[o + 8])) continue;
    if (wsHit.t > tMax) continue;
    if (!best || wsHit.t < best.t) best = { t: wsHit.t, tri: i };
  }
  return best;
}

function hitboxOfTriangle(tri: number): number {
  let h = 0;
  while (rig.triStart[h + 1] <= tri) h++;
  return h;
}

/** A random pose: any clip and time, position within a few metres, a random (not only yaw) rotation. */
const poseArb = fc.record({
  clip: fc.integer({ min: 0, max: 3 }),
  time: fc.double({ min: 0, max: 20, noNaN: true }),
  x: fc.double({ min: -5, max: 5, noNaN: true }),
  y: fc.double({ min: -1, max: 1, noNaN: true }),
  z: fc.double({ min: -5, max: 5, noNaN: true }),
  q: fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: 0.05, max: 1, noNaN: true })),
}).map((r) => {
  const p = createPlayerPose();
  const n = Math.hypot(...r.q);
  p.clip = r.clip; p.time = r.time; p.x = r.x; p.y = r.y; p.z = r.z;
  p.qx = r.q[0] / n; p.qy = r.q[1] / n; p.qz = r.q[2] / n; p.qw = r.q[3] / n;
  return p;
});

/** Segments from ~3 m around the player's chest through a random point near the body. */
const segArb = fc.tuple(
  fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
  fc.tuple(fc.double({ min: -0.4, max: 0.4, noNaN: true }), fc.double({ min: 0, max: 1.8, noNaN: true }), fc.double({ min: -0.4, max: 0.4, noNaN: true })),
);

function segmentFor(pose: PlayerPose, dir: number[], target: number[]): { s: number[]; e: number[] } {
  const n = Math.hypot(...dir) || 1;
  const T = [pose.x + target[0], pose.y + target[1], pose.z + target[2]];
  const d = dir.map((v) => (v / n) * 3);
  return { s: [T[0] + d[0], T[1] + d[1], T[2] + d[2]], e: [T[0] - d[0], T[1] - d[1], T[2] - d[2]] };
}

describe('Rewinder', () => {
  it('bone-local segment test equals the world-space triangle snapshot (brute force watertight)', () => {
    const bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    const hit = createHitboxHit();
    let hits = 0;
    fc.assert(fc.property(poseArb, segArb, fc.double({ min: 0.2, max: 1, noNaN: true }), (pose, [dir, target], tMax) => {
      const { s, e } = segmentFor(pose, dir, target);
      rewinder.poseBones(bones, pose);
      const got = rewinder.intersectBones(hit, bones, s[0], s[1], s[2], e[0], e[1], e[2], tMax);
      expect(rewinder.hitboxTriangles(tris, pose)).toBe(rig.triangleCount);
      const ref = bruteForce(tris, s, e, tMax);
      expect(got).toBe(ref !== null);
      if (ref) {
        hits++;
        expect(Math.abs(hit.t - ref.t)).toBeLessThan(1e-9);
        expect(hit.hitbox).toBe(hitboxOfTriangle(ref.tri));
        expect(hit.zone).toBe(rig.hitboxZone[hit.hitbox]);
        expect(hit.bone).toBe(rig.hitboxJoint[hit.hitbox]);
        expect(hit.x).toBeCloseTo(s[0] + hit.t * (e[0] - s[0]), 12);
        // The world normal is unit and faces the start.
        expect(Math.hypot(hit.nx, hit.ny, hit.nz)).toBeCloseTo(1, 9);
        expect(hit.nx * (e[0] - s[0]) + hit.ny * (e[1] - s[1]) + hit.nz * (e[2] - s[2])).toBeLessThanOrEqual(0);
      }
    }), { seed: 4301, numRuns: 400 });
    expect(hits).toBeGreaterThan(50); // the property saw plenty of hits (73 with this seed), not just misses
  });

  it('firstHit over many players (broadphase included) equals brute force over every player', () => {
    const rnd = mulberry32(4302);
    const HZ = 64, DT = 1000 / HZ;
    const N = 12;
    const histories: (PlayerHistory | undefined)[] = [];
    const motion: { x: number; z: number; vx: number; vz: number; yaw: number; clip: number }[] = [];
    for (let p = 0; p < N; p++) {
      histories.push(new PlayerHistory(PlayerHistory.capacityFor(HZ, 1000)));
      motion.push({ x: (rnd() - 0.5) * 8, z: (rnd() - 0.5) * 8, vx: (rnd() - 0.5) * 12, vz: (rnd() - 0.5) * 12, yaw: rnd() * 6, clip: Math.floor(rnd() * 4) });
    }
    histories[5] = undefined; // an empty slot
    const pose = createPlayerPose();
    for (let tick = 0; tick < 40; tick++) {
      for (let p = 0; p < N; p++) {
        const h = histories[p];
        if (!h) continue;
        const m = motion[p], s = tick / HZ;
        pose.x = m.x + m.vx * s; pose.y = 0; pose.z = m.z + m.vz * s;
        const half = (m.yaw + s) / 2;
        pose.qx = 0; pose.qy = Math.sin(half); pose.qz = 0; pose.qw = Math.cos(half);
        pose.clip = m.clip; pose.time = s; pose.alive = p !== 7; // player 7 is dead
        h.record(tick, tick * DT, pose);
      }
    }
    const hit = createHitboxHit();
    const sampled = createPlayerPose();
    const policy = createRewindPolicy();
    let hits = 0, candidates = 0;
    for (let q = 0; q < 300; q++) {
      const timeMs = 39 * DT - rnd() * 240;
      const s = [(rnd() - 0.5) * 30, rnd() * 2, (rnd() - 0.5) * 30];
      const T = [(rnd() - 0.5) * 10, rnd() * 1.8, (rnd() - 0.5) * 10];
      const e = [s[0] + (T[0] - s[0]) * 2, s[1] + (T[1] - s[1]) * 2, s[2] + (T[2] - s[2]) * 2];
      const exclude = q % 13;
      const got = rewinder.firstHit(hit, histories, timeMs, s[0], s[1], s[2], e[0], e[1], e[2], exclude);
      candidates += rewinder.lastCandidates;
      let ref: { t: number; tri: number; player: number } | null = null;
      for (let p = 0; p < N; p++) {
        const h = histories[p];
        if (!h || p === exclude) continue;
        const st = h.sampleAt(sampled, timeMs, policy);
        expect([RewindStatus.EXACT, RewindStatus.INTERPOLATED]).toContain(st);
        if (!sampled.alive) continue;
        rewinder.hitboxTriangles(tris, sampled);
        const r = bruteForce(tris, s, e);
        if (r && (!ref || r.t < ref.t)) ref = { ...r, player: p };
      }
      expect(got).toBe(ref !== null);
      if (ref) {
        hits++;
        expect(hit.player).toBe(ref.player);
        expect(Math.abs(hit.t - ref.t)).toBeLessThan(1e-9);
        expect(hit.hitbox).toBe(hitboxOfTriangle(ref.tri));
        expect(hit.player).not.toBe(exclude);
        expect(hit.player).not.toBe(7);
      } else {
        expect(hit.player).toBe(-1);
      }
    }
    expect(hits).toBeGreaterThan(20);
    // The broadphase really prunes: on average far fewer than all players get posed.
    expect(candidates / 300).toBeLessThan(4);
  });

  it('off-by-one-tick: a target at 10 m/s, shot at the exact rendered time, hits the rendered pose', () => {
    const HZ = 64, DT = 1000 / HZ, V = 10;
    const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 250));
    const pose = createPlayerPose();
    // Running along +x, facing +x (yaw +90 degrees about y), clip time = seconds.
    const analytic = (out: PlayerPose, tMs: number): PlayerPose => {
      out.x = (V * tMs) / 1000; out.y = 0; out.z = 0;
      out.qx = 0; out.qy = Math.SQRT1_2; out.qz = 0; out.qw = Math.SQRT1_2;
      out.clip = Clip.RUN; out.time = tMs / 1000; out.alive = true; out.epoch = 0;
      return out;
    };
    for (let tick = 0; tick <= 30; tick++) h.record(tick, tick * DT, analytic(pose, tick * DT));
    const hit = createHitboxHit();
    let checked = 0;
    for (const renderedTick of [22.37, 25, 27.81]) {
      const tr = renderedTick * DT;
      // What the shooter saw: the rendered pose at tr (the client interpolates between the same snapshots).
      h.sampleAt(pose, tr, createRewindPolicy());
      const rendered = analytic(createPlayerPose(), tr);
      expect(pose.x).toBeCloseTo(rendered.x, 12);
      rewinder.hitboxTriangles(tris, pose);
      // Aim across the motion (along z) at the head's leading edge, 1 cm inside it.
      const hb = rig.hitboxZone.indexOf(HitZone.HEAD);
      let cy = 0, cz = 0, n = 0;
      for (let i = rig.triStart[hb] * 9; i < rig.triStart[hb + 1] * 9; i += 3) { cy += tris[i + 1]; cz += tris[i + 2]; n++; }
      cy /= n; cz /= n;
      let front = -Infinity;
      for (let x = pose.x - 0.5; x < pose.x + 0.5; x += 0.001) {
        const r = bruteForce(tris, [x, cy, cz - 2], [x, cy, cz + 2]);
        if (r && hitboxOfTriangle(r.tri) === hb) front = x;
      }
      expect(front).toBeGreaterThan(-Infinity);
      const ax = front - 0.01;
      // Exact rendered time: the head is hit.
      expect(rewinder.firstHit(hit, [h], tr, ax, cy, cz - 2, ax, cy, cz + 2, -1)).toBe(true);
      expect(hit.zone).toBe(HitZone.HEAD);
      expect(hit.status).toBe(Number.isInteger(renderedTick) ? RewindStatus.EXACT : RewindStatus.INTERPOLATED);
      // One tick earlier (the classic off-by-one): the head was 15.6 cm behind; the shot misses it.
      const early = rewinder.firstHit(hit, [h], tr - DT, ax, cy, cz - 2, ax, cy, cz + 2, -1);
      expect(early && hit.zone === HitZone.HEAD).toBe(false);
      checked++;
    }
    expect(checked).toBe(3);
  });

  it('skips the shooter, dead players and refused samples; honours tMax; hostile input is a miss', () => {
    const h = new PlayerHistory(8);
    const pose = createPlayerPose();
    for (let t = 0; t < 5; t++) h.record(t, t * 10, pose);
    const hit = createHitboxHit();
    const shot = [0, 1.4, -3, 0, 1.4, 3]; // through the chest along z
    expect(rewinder.firstHit(hit, [h], 20, ...(shot as [number, number, number, number, number, number]), -1)).toBe(true);
    expect(hit.player).toBe(0);
    const t0 = hit.t;
    expect(rewinder.firstHit(hit, [h], 20, ...(shot as [number, number, number, number, number, number]), 0)).toBe(false);
    expect(hit.player).toBe(-1);
    // tMax before the body: miss; tMax after: hit.
    expect(rewinder.firstHit(hit, [h], 20, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1, t0 * 0.99)).toBe(false);
    expect(rewinder.firstHit(hit, [h], 20, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1, t0 * 1.01)).toBe(true);
    // Refused under a reject policy (in the future).
    const strict = new Rewinder(rig, { policy: createRewindPolicy(250, OutOfWindow.REJECT) });
    expect(strict.firstHit(hit, [h], 41, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(false);
    expect(strict.firstHit(hit, [h], 40, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(true);
    // Clamped under the default policy, and the status says so.
    expect(rewinder.firstHit(hit, [h], 1e12, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(true);
    expect(hit.status).toBe(RewindStatus.CLAMPED_NEW);
    // Dead: no hit.
    pose.alive = false;
    h.record(5, 50, pose);
    expect(rewinder.firstHit(hit, [h], 50, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(false);
    // Hostile numbers: a miss, no exception.
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(rewinder.firstHit(hit, [h], bad, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(false);
      expect(rewinder.firstHit(hit, [h], 20, bad, shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(false);
      expect(rewinder.firstHit(hit, [h], 20, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1, bad === Infinity ? NaN : bad)).toBe(false);
    }
    expect(rewinder.firstHit(hit, [h], 20, 1, 1, 1, 1, 1, 1, -1)).toBe(false); // zero length
    expect(rewinder.firstHit(hit, [], 20, shot[0], shot[1], shot[2], shot[3], shot[4], shot[5], -1)).toBe(false);
    expect(() => rewinder.hitboxTriangles(new Float64Array(9), pose)).toThrow(/triangleCount/);
  });

  it('trianglesAt: the world triangle snapshot of a rewound time, refused samples write nothing', () => {
    const h = new PlayerHistory(8);
    const a = createPlayerPose(), b = createPlayerPose();
    b.x = 2; b.time = 0.1;
    h.record(0, 0, a);
    h.record(1, 100, b);
    const mid = createPlayerPose();
    expect(h.sampleAt(mid, 50, createRewindPolicy())).toBe(RewindStatus.INTERPOLATED);
    const ref = new Float64Array(rig.triangleCount * 9);
    rewinder.hitboxTriangles(ref, mid);
    const got = new Float64Array(rig.triangleCount * 9);
    expect(rewinder.trianglesAt(got, h, 50)).toBe(rig.triangleCount);
    expect(Array.from(got)).toEqual(Array.from(ref));
    const strict = new Rewinder(rig, { policy: createRewindPolicy(250, OutOfWindow.REJECT) });
    got.fill(7);
    expect(strict.trianglesAt(got, h, 500)).toBe(0);
    expect(strict.trianglesAt(got, h, NaN)).toBe(0);
    expect(strict.trianglesAt(got, new PlayerHistory(4), 50)).toBe(0);
    expect(got.every((v) => v === 7)).toBe(true);
  });

  it('a segment starting inside a hitbox still hits it (back faces kept by default)', () => {
    const h = new PlayerHistory(4);
    h.record(0, 0, createPlayerPose());
    const hit = createHitboxHit();
    // From inside the chest outward.
    expect(rewinder.firstHit(hit, [h], 0, 0, 1.35, 0, 0, 1.35, 3, -1)).toBe(true);
    expect(hit.front).toBe(false);
    const culling = new Rewinder(rig, { cullBack: true });
    expect(culling.firstHit(hit, [h], 0, 0, 1.35, 0, 0, 1.35, 3, -1)).toBe(false);
  });
});
