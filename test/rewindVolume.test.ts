// Swept spheres on rewound players (VolumeRewinder.sphereCast, sphereCastAll) against brute force
// with no broadphase: every player posed by its history at the sub-tick query time; the swept-sphere
// kernel over every posed triangle (start overlap by exact distance), and independently the first
// time the centre's signed distance to a hull drops to r (golden section + bisection). Radius 0
// against firstHit and allHits; skip rules; hostile input; no allocation per query (all five queries).
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createRewindPolicy, OutOfWindow, PlayerHistory } from '../shared/lagcomp/history';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createHitboxHit, createHitboxHits, Rewinder } from '../shared/lagcomp/rewind';
import { createSphereCastHit, createSphereCastHits, createVolumeOverlaps, VolumeRewinder } from '../shared/lagcomp/rewindVolume';
import { mulberry32 } from '../shared/util/prng';
import * as entry from '../shared/index';
import {
  bruteSweep, DT, goldenMin, H, HZ, insideHitbox, lerp, makeHistories, nearBody, NEWEST, posePlayers, queryTime, randomDir, rewinder, rig, sd, TICKS,
} from './helpers/volumeBrute';

const vol = new VolumeRewinder(rewinder);

describe('VolumeRewinder.sphereCast', () => {
  it('equals brute force over every posed triangle of 12 players (3,000 sweeps, sub-tick times, radius 0 to 0.3)', () => {
    const rnd = mulberry32(0x5c01);
    const histories = makeHistories(rnd, 12, 5);
    histories[5] = undefined;
    const out = createSphereCastHit();
    let hits = 0, embedded = 0, misses = 0;
    for (let k = 0; k < 3000; k++) {
      const time = queryTime(rnd), exclude = Math.floor(rnd() * 14) - 1;
      const posed = posePlayers(histories, time, exclude);
      const aim = nearBody(rnd, posed), dir = randomDir(rnd), len = rnd() < 0.1 ? 0 : 0.3 + rnd() * 3;
      const back = rnd() < 0.2 ? 0 : 0.2 + rnd() * 2;
      const A = [aim[0] + dir[0] * back, aim[1] + dir[1] * back, aim[2] + dir[2] * back];
      const B = [A[0] - dir[0] * len, A[1] - dir[1] * len, A[2] - dir[2] * len];
      const r = rnd() < 0.15 ? 0 : rnd() * 0.3, tMax = rnd() < 0.3 ? 0.2 + rnd() * 0.8 : 1;
      const got = vol.sphereCast(out, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], r, exclude, tMax);
      let ref: { t: number; h: number; p: number } | null = null;
      for (const P of posed) {
        const b = bruteSweep(P, A, B, r, tMax);
        if (b && (!ref || b.t <= ref.t)) ref = { ...b, p: P.p };
      }
      expect(got, `query ${k}`).toBe(ref !== null);
      if (!ref) { misses++; continue; }
      hits++;
      expect(Math.abs(out.t - ref.t), `query ${k}`).toBeLessThan(1e-9);
      if (out.player !== ref.p || out.hitbox !== ref.h) {
        // Only a tie within rounding may pick another hitbox: its own brute t must be the same.
        const P = posed.find((x) => x.p === out.player)!;
        expect(Math.abs(bruteSweep(P, A, B, r, tMax)!.t - ref.t)).toBeLessThan(1e-9);
      }
      expect(out.zone).toBe(rig.hitboxZone[out.hitbox]);
      expect(out.bone).toBe(rig.hitboxJoint[out.hitbox]);
      expect(rig.triStart[out.hitbox] <= out.triangle && out.triangle < rig.triStart[out.hitbox + 1]).toBe(true);
      expect(out.status).toBe(posed.find((x) => x.p === out.player)!.status);
      // Centre at contact on the path; contact point r from it along the unit normal; normal unit.
      const C = lerp(A, B, out.t);
      expect(Math.hypot(out.cx - C[0], out.cy - C[1], out.cz - C[2])).toBeLessThan(1e-9);
      expect(Math.hypot(out.nx, out.ny, out.nz)).toBeCloseTo(1, 9);
      const P = posed.find((x) => x.p === out.player)!;
      expect(sd(P, out.hitbox, [out.x, out.y, out.z])).toBeLessThan(1e-9); // the contact point lies on the hull
      if (out.embedded) {
        embedded++;
        expect(out.t).toBe(0);
        expect(sd(P, out.hitbox, A)).toBeLessThanOrEqual(r + 1e-12);
      } else {
        expect(Math.abs(Math.hypot(C[0] - out.x, C[1] - out.y, C[2] - out.z) - r)).toBeLessThan(1e-9);
        expect(Math.abs(C[0] - out.x - r * out.nx) + Math.abs(C[1] - out.y - r * out.ny) + Math.abs(C[2] - out.z - r * out.nz)).toBeLessThan(1e-9);
      }
    }
    expect(hits).toBeGreaterThan(1000);
    expect(misses).toBeGreaterThan(200);
    expect(embedded).toBeGreaterThan(100);
  });

  it('t is the first time the centre comes within r of a hull (golden section and bisection on the signed distance)', () => {
    const rnd = mulberry32(0x5c02);
    const histories = makeHistories(rnd, 4, 2);
    const out = createSphereCastHit();
    let hits = 0;
    for (let k = 0; k < 150; k++) {
      const time = queryTime(rnd);
      const posed = posePlayers(histories, time, -1);
      const aim = nearBody(rnd, posed), dir = randomDir(rnd);
      const A = [aim[0] + dir[0] * 1.5, aim[1] + dir[1] * 1.5, aim[2] + dir[2] * 1.5];
      const B = [aim[0] - dir[0] * 1.5, aim[1] - dir[1] * 1.5, aim[2] - dir[2] * 1.5];
      const r = 0.01 + rnd() * 0.25;
      let ref = Infinity;
      for (const P of posed) {
        for (let h = 0; h < H; h++) {
          const f = (t: number) => sd(P, h, lerp(A, B, t)) - r;
          if (f(0) <= 0) { ref = 0; continue; }
          const m = goldenMin(f, 0, 1, 60);
          if (m.v > 0) continue;
          let lo = 0, hi = m.s;
          for (let i = 0; i < 60; i++) { const mid = (lo + hi) / 2; if (f(mid) <= 0) hi = mid; else lo = mid; }
          ref = Math.min(ref, hi);
        }
      }
      const got = vol.sphereCast(out, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], r, -1);
      expect(got).toBe(ref <= 1);
      if (got) {
        hits++;
        expect(Math.abs(out.t - ref), `query ${k}`).toBeLessThan(1e-7);
      }
    }
    expect(hits).toBeGreaterThan(60);
  });

  it('sphereCastAll equals sphereCast player by player, sorted, entry 0 = sphereCast; a small record keeps the nearest', () => {
    const rnd = mulberry32(0x5c03);
    const histories = makeHistories(rnd, 12, 3);
    const all = createSphereCastHits(64), small = createSphereCastHits(2);
    const one = createSphereCastHit();
    const solo: (PlayerHistory | undefined)[] = [];
    let multi = 0;
    for (let k = 0; k < 600; k++) {
      const time = queryTime(rnd), exclude = Math.floor(rnd() * 13) - 1;
      const posed = posePlayers(histories, time, exclude);
      const aim = nearBody(rnd, posed), dir = randomDir(rnd);
      const A = [aim[0] + dir[0] * 4, aim[1] + dir[1] * 4, aim[2] + dir[2] * 4];
      const B = [aim[0] - dir[0] * 4, aim[1] - dir[1] * 4, aim[2] - dir[2] * 4];
      const r = rnd() * 0.4, tMax = 0.4 + rnd() * 0.6;
      const n = vol.sphereCastAll(all, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], r, exclude, tMax);
      vol.sphereCastAll(small, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], r, exclude, tMax);
      const want: { p: number; t: number; h: number; x: number }[] = [];
      for (let p = 0; p < histories.length; p++) {
        solo.length = 0;
        solo[p] = histories[p];
        if (vol.sphereCast(one, solo, time, A[0], A[1], A[2], B[0], B[1], B[2], r, exclude, tMax)) want.push({ p, t: one.t, h: one.hitbox, x: one.x });
      }
      want.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : b.p - a.p));
      expect(n).toBe(want.length);
      expect(all.total).toBe(want.length);
      for (let i = 0; i < n; i++) {
        expect([all.player[i], all.t[i], all.hitbox[i], all.x[i]]).toEqual([want[i].p, want[i].t, want[i].h, want[i].x]);
      }
      expect(small.count).toBe(Math.min(2, n));
      expect(small.total).toBe(n);
      for (let i = 0; i < small.count; i++) expect(small.player[i]).toBe(all.player[i]);
      const first = vol.sphereCast(one, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], r, exclude, tMax);
      expect(first).toBe(n > 0);
      if (first) expect([one.player, one.t]).toEqual([all.player[0], all.t[0]]);
      if (n > 1) multi++;
    }
    expect(multi).toBeGreaterThan(50);
  });

  it('radius 0 is firstHit for segments starting outside every hitbox; a start inside one is t = 0, embedded', () => {
    const rnd = mulberry32(0x5c04);
    const histories = makeHistories(rnd, 8, 3);
    const out = createSphereCastHit();
    const fh = createHitboxHit();
    const fhs = createHitboxHits(16), sch = createSphereCastHits(16);
    let hits = 0, inside = 0;
    for (let k = 0; k < 2000; k++) {
      const time = queryTime(rnd);
      const posed = posePlayers(histories, time, -1);
      const aim = rnd() < 0.15 ? insideHitbox(rnd, posed) : nearBody(rnd, posed), dir = randomDir(rnd), back = rnd() < 0.3 ? 0 : 3;
      const A = [aim[0] + dir[0] * back, aim[1] + dir[1] * back, aim[2] + dir[2] * back];
      const B = [aim[0] - dir[0] * 3, aim[1] - dir[1] * 3, aim[2] - dir[2] * 3];
      const startsInside = posed.some((P) => { for (let h = 0; h < H; h++) if (sd(P, h, A) <= 0) return true; return false; });
      const got = vol.sphereCast(out, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], 0, -1);
      if (startsInside) {
        inside++;
        expect(got && out.t === 0 && out.embedded).toBe(true);
        continue;
      }
      const ref = rewinder.firstHit(fh, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], -1);
      expect(got, `query ${k}`).toBe(ref);
      if (!ref) continue;
      hits++;
      expect(Math.abs(out.t - fh.t)).toBeLessThan(1e-9);
      expect([out.player, out.hitbox, out.embedded]).toEqual([fh.player, fh.hitbox, false]);
      expect(Math.hypot(out.x - fh.x, out.y - fh.y, out.z - fh.z)).toBeLessThan(1e-8);
      if (out.feature === 0) expect(out.nx * fh.nx + out.ny * fh.ny + out.nz * fh.nz).toBeCloseTo(1, 9);
      // And every player along it, as allHits.
      const n = vol.sphereCastAll(sch, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], 0, -1);
      expect(n).toBe(rewinder.allHits(fhs, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], -1));
      for (let i = 0; i < n; i++) {
        expect([sch.player[i], sch.hitbox[i]]).toEqual([fhs.player[i], fhs.hitbox[i]]);
        expect(Math.abs(sch.t[i] - fhs.t[i])).toBeLessThan(1e-9);
      }
    }
    expect(hits).toBeGreaterThan(500);
    expect(inside).toBeGreaterThan(60);
  });
});

describe('VolumeRewinder rules and input', () => {
  it('skips the excluded, dead, empty and refused players as firstHit does; hostile input is a miss', () => {
    // Eight players standing at the origin, identical poses: slot 3 dead, slot 5 empty; 2 or 6 excluded.
    const histories: (PlayerHistory | undefined)[] = [];
    const pose = createPlayerPose();
    for (let p = 0; p < 8; p++) {
      const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 1000));
      for (let tick = 0; tick < TICKS; tick++) {
        pose.time = tick / HZ;
        pose.alive = p !== 3;
        h.record(tick, tick * DT, pose);
      }
      histories.push(p === 5 ? undefined : h);
    }
    const reject = new VolumeRewinder(new Rewinder(rig, { policy: createRewindPolicy(100, OutOfWindow.REJECT) }));
    const ov = createVolumeOverlaps(16);
    const hit = createSphereCastHit();
    const all = createSphereCastHits(16);
    const c = [0, 1, 0];
    expect(vol.overlapSphere(ov, histories, NEWEST, c[0], c[1], c[2], 0.5, 2)).toBe(5);
    expect([...ov.player.subarray(0, 5)]).toEqual([0, 1, 4, 6, 7]); // equal distances: lowest slot first
    expect(vol.overlapSphere(ov, histories, NEWEST - 200, c[0], c[1], c[2], 0.5, -1)).toBe(6); // clamped
    expect(reject.overlapSphere(ov, histories, NEWEST - 200, c[0], c[1], c[2], 0.5, -1)).toBe(0); // refused: out of window
    expect(reject.overlapSphere(ov, histories, NEWEST - 50.5, c[0], c[1], c[2], 0.5, -1)).toBe(6);
    expect(vol.sphereCastAll(all, histories, NEWEST, c[0], c[1], c[2] - 3, c[0], c[1], c[2] + 3, 0.1, 6)).toBe(5);
    expect([...all.player.subarray(0, 5)]).toEqual([7, 4, 2, 1, 0]); // equal t: highest slot first
    expect(vol.sphereCast(hit, histories, NEWEST, c[0], c[1], c[2] - 3, c[0], c[1], c[2] + 3, 0.1, 6)).toBe(true);
    expect([hit.player, hit.t]).toEqual([7, all.t[0]]);
    const box = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    expect(vol.overlapBox(ov, histories, NEWEST, c[0], c[1], c[2], 0.1, 0.1, 0.1, box, -1)).toBe(6);
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(vol.sphereCast(hit, histories, NEWEST, bad, 0, 0, 0, 1, 0, 0.1, -1)).toBe(false);
      expect(vol.sphereCast(hit, histories, NEWEST, c[0], c[1], c[2] - 3, c[0], c[1], c[2] + 3, bad, -1)).toBe(false);
      if (bad !== Infinity) expect(vol.sphereCastAll(all, histories, NEWEST, c[0], c[1], c[2] - 3, c[0], c[1], c[2] + 3, 0.1, -1, bad)).toBe(0); // tMax: Infinity is 1
      expect(vol.overlapSphere(ov, histories, NEWEST, c[0], bad, c[2], 0.3, -1)).toBe(0);
      expect(vol.overlapCapsule(ov, histories, NEWEST, c[0], c[1], c[2], c[0], c[1], bad, 0.3, -1)).toBe(0);
      expect(vol.overlapBox(ov, histories, NEWEST, c[0], c[1], c[2], 0.1, bad, 0.1, box, -1)).toBe(0);
      expect(vol.overlapBox(ov, histories, NEWEST, c[0], c[1], c[2], 0.1, 0.1, 0.1, [1, 0, 0, 0, bad, 0, 0, 0, 1], -1)).toBe(0);
      expect(vol.overlapSphere(ov, histories, bad, c[0], c[1], c[2], 0.3, -1)).toBe(0);
    }
    expect(vol.sphereCast(hit, histories, NEWEST, c[0], c[1], c[2] - 3, c[0], c[1], c[2] + 3, -0.1, -1)).toBe(false);
    expect(vol.sphereCast(hit, histories, NEWEST, c[0], c[1], c[2] - 3, c[0], c[1], c[2] + 3, 0.1, -1, 0)).toBe(false);
    expect(hit.player).toBe(-1);
    expect(vol.overlapSphere(ov, histories, NEWEST, c[0], c[1], c[2], -0.1, -1)).toBe(0);
    expect(vol.overlapBox(ov, histories, NEWEST, c[0], c[1], c[2], -0.1, 0.1, 0.1, box, -1)).toBe(0);
    expect(vol.overlapBox(ov, histories, NEWEST, c[0], c[1], c[2], 0.1, 0.1, 0.1, [1, 0, 0, 0, 1, 0, 0, 0.01, 1], -1)).toBe(0); // not orthonormal
    expect(vol.overlapBox(ov, histories, NEWEST, c[0], c[1], c[2], 0.1, 0.1, 0.1, [1, 0, 0], -1)).toBe(0); // too short
    // The static sweep (A = B) is the sphere overlap at t = 0.
    expect(vol.sphereCast(hit, histories, NEWEST, c[0], c[1], c[2], c[0], c[1], c[2], 0.05, -1)).toBe(true);
    expect([hit.t, hit.embedded]).toEqual([0, true]);
    expect(() => createVolumeOverlaps(-1)).toThrow(RangeError);
    expect(() => createSphereCastHits(1.5)).toThrow(RangeError);
    // The public entry carries them.
    expect(entry.VolumeRewinder).toBe(VolumeRewinder);
    expect(typeof entry.createSphereCastHits).toBe('function');
    expect(typeof entry.closestSegmentTriangle).toBe('function');
  });

  it('a query allocates nothing (heap growth over 2,000 queries of each kind after warm-up)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rnd = mulberry32(0x5c09);
    const histories = makeHistories(rnd, 16, 4);
    const N = 2000;
    // The arguments as numbers already on the heap (an array of any elements holds each double as a
    // heap number), so passing them allocates nothing whether or not V8 inlines the call: what is
    // measured is the query's own allocation.
    const Q: unknown[][] = [];
    for (let i = 0; i < N; i++) {
      const time = queryTime(rnd);
      const a = nearBody(rnd, posePlayers(histories, time, -1)), d = randomDir(rnd);
      const args: unknown[] = [null];
      args[0] = time;
      args.push(a[0] + d[0], a[1] + d[1], a[2] + d[2], a[0] - d[0], a[1] - d[1], a[2] - d[2], rnd() * 0.3, 0.1, 0.2);
      Q.push(args);
    }
    const hit = createSphereCastHit(), hits = createSphereCastHits(16), ov = createVolumeOverlaps(16);
    const axes = new Float64Array([0, 1, 0, -1, 0, 0, 0, 0, 1]);
    let sink = 0, posed = 0;
    type N9 = [number, number, number, number, number, number, number, number, number, number];
    // One monomorphic loop per kind; 'loop' is the same loop around no query.
    const kinds: [string, (a: N9) => void][] = [
      ['loop', (a) => { sink += a[0] === a[1] ? 1 : 0; }],
      ['sphereCast', (a) => { if (vol.sphereCast(hit, histories, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], -1)) sink++; }],
      ['sphereCastAll', (a) => { sink += vol.sphereCastAll(hits, histories, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], -1); }],
      ['overlapSphere', (a) => { sink += vol.overlapSphere(ov, histories, a[0], a[1], a[2], a[3], a[7], -1); }],
      ['overlapCapsule', (a) => { sink += vol.overlapCapsule(ov, histories, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], -1); }],
      ['overlapBox', (a) => { sink += vol.overlapBox(ov, histories, a[0], a[1], a[2], a[3], a[7], a[8], a[9], axes, -1); }],
    ];
    const bytes: Record<string, number> = {};
    const LIMIT = 8;
    for (const [name, f] of kinds) {
      const run = (): void => {
        for (let i = 0; i < N; i++) {
          f(Q[i] as N9);
          posed += vol.lastCandidates;
        }
      };
      for (let r = 0; r < 5; r++) run(); // warm-up
      // Rounds until one is clean (optimised code can come late on a loaded machine), at most 40.
      let least = Infinity;
      for (let r = 0; r < 40 && !(least < (name === 'loop' ? 0.5 : LIMIT)); r++) {
        gc();
        const before = process.memoryUsage().heapUsed;
        run();
        least = Math.min(least, (process.memoryUsage().heapUsed - before) / N);
      }
      bytes[name] = name === 'loop' ? least : Math.round(least);
    }
    expect(sink).toBeGreaterThan(0);
    expect(posed).toBeGreaterThan(N * 6 * 2); // the queries posed players (about 3 each): the narrow phases ran
    // Bytes per query: 0 when nothing is allocated (a few bytes of noise: code that runs too rarely to
    // be optimised). One boxed double is 16; one object or array per query, player, hitbox or triangle
    // far more (before the kernels passed doubles through arrays: 70 to 6,000).
    for (const [name] of kinds.slice(1)) expect(bytes[name], `${name}: ${JSON.stringify(bytes)}`).toBeLessThan(LIMIT);
  });
});
