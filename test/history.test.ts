// PlayerHistory: exact at tick times, interpolation between them, ring wrap-around, epochs
// (teleport/respawn) never interpolated across, the rewind window's edge and the out-of-window
// policy, and hostile input refused without changing anything.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  createRewindPolicy, DEFAULT_REWIND_WINDOW_MS, MAX_REWIND_WINDOW_MS, OutOfWindow, PlayerHistory, RecordResult, RewindStatus,
} from '../shared/lagcomp/history';
import { copyPlayerPose, createPlayerPose, type PlayerPose } from '../shared/lagcomp/pose';

const HZ = 64;
const DT = 1000 / HZ;

/** A pose that moves along +x at 10 m/s, turns about +y, and runs the jog clip. */
function poseAt(tick: number, epoch = 0): PlayerPose {
  const p = createPlayerPose();
  const s = tick / HZ;
  p.x = 10 * s; p.y = 0.5; p.z = -3 + 0.25 * s;
  const half = 0.3 * s; // yaw half-angle, radians (test code may use trig)
  p.qx = 0; p.qy = Math.sin(half); p.qz = 0; p.qw = Math.cos(half);
  p.clip = 1; p.time = s; p.epoch = epoch;
  return p;
}

function fill(h: PlayerHistory, from: number, to: number, epochOf: (tick: number) => number = () => 0): void {
  for (let t = from; t <= to; t++) expect(h.record(t, 1000 + t * DT, poseAt(t, epochOf(t)))).toBe(RecordResult.OK);
}

const wide = createRewindPolicy(MAX_REWIND_WINDOW_MS, OutOfWindow.CLAMP);

describe('PlayerHistory', () => {
  it('returns every recorded snapshot bit for bit at its tick time (EXACT)', () => {
    const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 1000));
    fill(h, 0, 60);
    const out = createPlayerPose();
    for (let t = 0; t <= 60; t++) {
      expect(h.sampleAt(out, 1000 + t * DT, wide)).toBe(RewindStatus.EXACT);
      const p = poseAt(t);
      // The stored rotation is renormalised once; these are unit already, so equal to the last bit or one ulp.
      expect([out.x, out.y, out.z, out.time, out.clip, out.epoch]).toEqual([p.x, p.y, p.z, p.time, p.clip, p.epoch]);
      expect(out.qy).toBeCloseTo(p.qy, 15);
      expect(out.qw).toBeCloseTo(p.qw, 15);
    }
  });

  it('interpolates position, animation time and orientation between ticks', () => {
    const h = new PlayerHistory(32);
    fill(h, 0, 20);
    const out = createPlayerPose();
    fc.assert(fc.property(fc.integer({ min: 0, max: 19 }), fc.double({ min: 0, max: 1, noNaN: true }), (tick, f) => {
      const st = h.sampleAt(out, 1000 + (tick + f) * DT, wide);
      expect([RewindStatus.EXACT, RewindStatus.INTERPOLATED]).toContain(st);
      const a = poseAt(tick), b = poseAt(tick + 1);
      expect(out.x).toBeCloseTo(a.x + (b.x - a.x) * f, 9);
      expect(out.z).toBeCloseTo(a.z + (b.z - a.z) * f, 9);
      expect(out.time).toBeCloseTo(a.time + (b.time - a.time) * f, 9);
      // nlerp vs slerp over a small angle: within 1e-6, and unit length.
      const half = 0.3 * (tick + f) / HZ;
      expect(out.qy).toBeCloseTo(Math.sin(half), 6);
      expect(out.qw).toBeCloseTo(Math.cos(half), 6);
      expect(Math.abs(out.qx * out.qx + out.qy * out.qy + out.qz * out.qz + out.qw * out.qw - 1)).toBeLessThan(1e-14);
    }), { seed: 4001, numRuns: 300 });
  });

  it('takes the short way round when consecutive quaternions have opposite signs', () => {
    const h = new PlayerHistory(4);
    const a = poseAt(0), b = poseAt(1);
    b.qx = -b.qx; b.qy = -b.qy; b.qz = -b.qz; b.qw = -b.qw; // same rotation as poseAt(1)
    h.record(0, 0, a);
    h.record(1, 10, b);
    const out = createPlayerPose();
    expect(h.sampleAt(out, 5, wide)).toBe(RewindStatus.INTERPOLATED);
    const half = 0.3 * 0.5 / HZ;
    expect(Math.abs(out.qw)).toBeCloseTo(Math.cos(half), 9);
  });

  it('wraps around: after many more ticks than slots, keeps exactly the newest `capacity` snapshots', () => {
    const cap = 10;
    const h = new PlayerHistory(cap);
    fill(h, 0, 137);
    expect(h.size()).toBe(cap);
    expect(h.newestTick()).toBe(137);
    expect(h.oldestTimeMs()).toBe(1000 + 128 * DT);
    expect(h.newestTimeMs()).toBe(1000 + 137 * DT);
    const out = createPlayerPose();
    for (let k = 0; k < cap; k++) {
      expect(h.snapshot(out, k)).toBe(1000 + (128 + k) * DT);
      expect(out.x).toBe(poseAt(128 + k).x);
    }
    // Between the last slot of the array and the first (the physical wrap point) interpolation still works.
    for (let t = 128; t < 137; t++) {
      expect(h.sampleAt(out, 1000 + (t + 0.5) * DT, wide)).toBe(RewindStatus.INTERPOLATED);
      expect(out.x).toBeCloseTo((poseAt(t).x + poseAt(t + 1).x) / 2, 12);
    }
    // Older than the oldest kept snapshot: clamped to it (the ring forgot the rest).
    expect(h.sampleAt(out, 1000 + 120 * DT, wide)).toBe(RewindStatus.CLAMPED_OLD);
    expect(out.x).toBe(poseAt(128).x);
    h.clear();
    expect(h.size()).toBe(0);
    expect(h.sampleAt(out, 1000, wide)).toBe(RewindStatus.EMPTY);
  });

  it('never interpolates across a teleport or respawn (epoch change): takes the nearer snapshot whole', () => {
    const h = new PlayerHistory(32);
    // Ticks 0..9 in epoch 0, a teleport at tick 10 (epoch 1, far away), 10..19 in epoch 1.
    for (let t = 0; t < 20; t++) {
      const p = poseAt(t, t < 10 ? 0 : 1);
      if (t >= 10) p.x += 500;
      h.record(t, 1000 + t * DT, p);
    }
    const out = createPlayerPose();
    for (const f of [0.01, 0.25, 0.49]) {
      expect(h.sampleAt(out, 1000 + (9 + f) * DT, wide)).toBe(RewindStatus.SNAPPED_EPOCH);
      expect(out.x).toBe(poseAt(9).x);
      expect(out.epoch).toBe(0);
    }
    for (const f of [0.5, 0.75, 0.99]) {
      expect(h.sampleAt(out, 1000 + (9 + f) * DT, wide)).toBe(RewindStatus.SNAPPED_EPOCH);
      expect(out.x).toBe(poseAt(10).x + 500);
      expect(out.epoch).toBe(1);
    }
    // Never a position in between the two places.
    fc.assert(fc.property(fc.double({ min: 0, max: 19, noNaN: true }), (tt) => {
      h.sampleAt(out, 1000 + tt * DT, wide);
      const far = out.x > 250;
      expect(far).toBe(out.epoch === 1);
    }), { seed: 4002, numRuns: 200 });
  });

  it('a respawn (alive false -> true with a new epoch) is not interpolated either; alive comes from the nearer snapshot', () => {
    const h = new PlayerHistory(8);
    const dead = poseAt(0); dead.alive = false;
    const reborn = poseAt(1, 1); reborn.x = 40;
    h.record(0, 0, dead);
    h.record(1, 10, reborn);
    const out = createPlayerPose();
    expect(h.sampleAt(out, 4, wide)).toBe(RewindStatus.SNAPPED_EPOCH);
    expect(out.alive).toBe(false);
    expect(h.sampleAt(out, 6, wide)).toBe(RewindStatus.SNAPPED_EPOCH);
    expect(out.alive).toBe(true);
    expect(out.x).toBe(40);
  });

  it('a clip change or a wrapped clip time is not lerped: the nearer snapshot gives the animation state', () => {
    const h = new PlayerHistory(8);
    const a = poseAt(0), b = poseAt(1), c = poseAt(2);
    a.clip = 1; a.time = 0.70; b.clip = 1; b.time = 0.02; // wrapped by the caller
    c.clip = 2; c.time = 0.5; // clip change
    h.record(0, 0, a); h.record(1, 10, b); h.record(2, 20, c);
    const out = createPlayerPose();
    expect(h.sampleAt(out, 3, wide)).toBe(RewindStatus.INTERPOLATED);
    expect([out.clip, out.time]).toEqual([1, 0.70]);
    expect(out.x).toBeCloseTo(a.x + (b.x - a.x) * 0.3, 12); // the root still interpolates
    expect(h.sampleAt(out, 8, wide)).toBe(RewindStatus.INTERPOLATED);
    expect([out.clip, out.time]).toEqual([1, 0.02]);
    expect(h.sampleAt(out, 14, wide)).toBe(RewindStatus.INTERPOLATED);
    expect([out.clip, out.time]).toEqual([1, 0.02]);
    expect(h.sampleAt(out, 16, wide)).toBe(RewindStatus.INTERPOLATED);
    expect([out.clip, out.time]).toEqual([2, 0.5]);
  });

  it('window edge: inside is served, outside follows the policy (clamp or reject) and says which side', () => {
    const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 1000));
    fill(h, 0, 127); // two seconds at 64 Hz, ring keeps the last ~1 s
    const newest = h.newestTimeMs();
    const out = createPlayerPose();
    const clamp = createRewindPolicy(DEFAULT_REWIND_WINDOW_MS, OutOfWindow.CLAMP);
    const reject = createRewindPolicy(DEFAULT_REWIND_WINDOW_MS, OutOfWindow.REJECT);
    expect(clamp.windowMs).toBe(250);

    // Exactly at the edge: served, not clamped (250 ms is 16 ticks at 64 Hz, so a snapshot time).
    expect(h.sampleAt(out, newest - 250, reject)).toBe(RewindStatus.EXACT);
    expect(h.sampleAt(out, newest - 249.5, reject)).toBe(RewindStatus.INTERPOLATED);
    expect(h.sampleAt(out, newest - 250, reject)).toBe(RewindStatus.EXACT);
    const atEdge = copyPlayerPose(createPlayerPose(), out);
    // Just past it: clamp returns the edge pose, reject refuses and leaves out untouched.
    expect(h.sampleAt(out, newest - 250.001, clamp)).toBe(RewindStatus.CLAMPED_OLD);
    expect(out).toEqual(atEdge);
    const before = copyPlayerPose(createPlayerPose(), out);
    expect(h.sampleAt(out, newest - 250.001, reject)).toBe(RewindStatus.REJECTED_OLD);
    expect(out).toEqual(before);
    // In the future: newest pose under clamp, refused under reject.
    expect(h.sampleAt(out, newest + 0.001, reject)).toBe(RewindStatus.REJECTED_NEW);
    expect(out).toEqual(before);
    expect(h.sampleAt(out, newest + 1e9, clamp)).toBe(RewindStatus.CLAMPED_NEW);
    expect(out.x).toBe(poseAt(127).x);
    expect(h.sampleAt(out, newest, reject)).toBe(RewindStatus.EXACT);

    // A wider window reaches further back; it is clamped to 1000 ms at most.
    const w600 = createRewindPolicy(600, OutOfWindow.REJECT);
    expect(h.sampleAt(out, newest - 590, w600)).toBe(RewindStatus.INTERPOLATED);
    expect(h.sampleAt(out, newest - 610, w600)).toBe(RewindStatus.REJECTED_OLD);
    expect(createRewindPolicy(5000).windowMs).toBe(MAX_REWIND_WINDOW_MS);
    expect(createRewindPolicy(-3).windowMs).toBe(0);
    expect(createRewindPolicy(NaN).windowMs).toBe(DEFAULT_REWIND_WINDOW_MS);
  });

  it('refuses hostile input without changing anything', () => {
    const h = new PlayerHistory(8);
    fill(h, 0, 3);
    const size = h.size();
    const bad = (mut: (p: PlayerPose) => void): PlayerPose => { const p = poseAt(4); mut(p); return p; };
    expect(h.record(4, 1000 + 4 * DT, bad((p) => { p.x = NaN; }))).toBe(RecordResult.NOT_FINITE);
    expect(h.record(4, 1000 + 4 * DT, bad((p) => { p.time = Infinity; }))).toBe(RecordResult.NOT_FINITE);
    expect(h.record(4, 1000 + 4 * DT, bad((p) => { p.qw = 0; p.qy = 0; }))).toBe(RecordResult.BAD_ROTATION);
    expect(h.record(4, 1000 + 4 * DT, bad((p) => { p.clip = 1.5; }))).toBe(RecordResult.BAD_CLIP);
    expect(h.record(4, 1000 + 4 * DT, bad((p) => { p.clip = 300; }))).toBe(RecordResult.BAD_CLIP);
    expect(h.record(3, 1000 + 5 * DT, poseAt(3))).toBe(RecordResult.NOT_INCREASING);
    expect(h.record(5, 1000 + 3 * DT, poseAt(5))).toBe(RecordResult.NOT_INCREASING);
    expect(h.record(Number.NaN, 1000 + 9 * DT, poseAt(9))).toBe(RecordResult.NOT_FINITE);
    expect(h.size()).toBe(size);
    const out = createPlayerPose();
    const before = copyPlayerPose(createPlayerPose(), out);
    expect(h.sampleAt(out, NaN, wide)).toBe(RewindStatus.INVALID);
    expect(h.sampleAt(out, -Infinity, wide)).toBe(RewindStatus.INVALID);
    expect(out).toEqual(before);
    expect(() => new PlayerHistory(1)).toThrow(/capacityFor/);
    expect(() => new PlayerHistory(2.5)).toThrow(/capacityFor/);
    expect(() => new PlayerHistory(1 << 20)).toThrow(/capacityFor/);
  });

  it('sampleRootAt agrees with sampleAt, and every rewound root lies in the swept bound', () => {
    const out = createPlayerPose();
    const root = new Float64Array(4);
    fc.assert(fc.property(
      fc.array(fc.record({ dx: fc.double({ min: -1, max: 1, noNaN: true }), jump: fc.boolean(), dead: fc.boolean() }), { minLength: 1, maxLength: 60 }),
      fc.array(fc.double({ min: -300, max: 1200, noNaN: true }), { minLength: 1, maxLength: 20 }),
      (steps, times) => {
        const h = new PlayerHistory(12);
        let x = 0, epoch = 0;
        steps.forEach((st, tick) => {
          const p = poseAt(tick, epoch);
          if (st.jump) { epoch++; x += 50; p.epoch = epoch; }
          x += st.dx;
          p.x = x; p.alive = !st.dead;
          h.record(tick, tick * DT, p);
        });
        // Every stored root (both runs of a wrapped ring) lies in the bound, the farthest on its edge.
        let far = 0;
        for (let k = 0; k < h.size(); k++) {
          h.snapshot(out, k);
          const d = Math.hypot(out.x - h.sweepX, out.y - h.sweepY, out.z - h.sweepZ);
          expect(d).toBeLessThanOrEqual(h.sweepR);
          far = Math.max(far, d);
        }
        expect(h.sweepR - far).toBeLessThan(1e-6);
        for (const tt of times) {
          for (const policy of [wide, createRewindPolicy(250, OutOfWindow.REJECT)]) {
            const a = h.sampleAt(out, tt, policy);
            root.fill(-7);
            const b = h.sampleRootAt(root, tt, policy);
            expect(b).toBe(a);
            if (a <= RewindStatus.CLAMPED_NEW || a === RewindStatus.SNAPPED_EPOCH) {
              expect([root[0], root[1], root[2], root[3]]).toEqual([out.x, out.y, out.z, out.alive ? 1 : 0]);
              expect(Math.hypot(out.x - h.sweepX, out.y - h.sweepY, out.z - h.sweepZ)).toBeLessThanOrEqual(h.sweepR);
            } else {
              expect(root[0]).toBe(-7);
            }
          }
        }
      },
    ), { seed: 4003, numRuns: 200 });
  });

  it('memory is bounded: 102 bytes per slot, under 16 KB per player per second at 128 Hz', () => {
    for (const hz of [64, 128]) {
      const h = new PlayerHistory(PlayerHistory.capacityFor(hz, 250));
      expect(h.byteLength()).toBe(h.capacity * 102);
      const perSecond = h.byteLength() / 0.25;
      expect(perSecond).toBeLessThanOrEqual(16 * 1024);
    }
  });
});
