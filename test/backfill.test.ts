/**
 * Backfills (shared/protocol/backfill.ts, MatchView.backfill): an enemy's recent poses handed to a
 * client ahead of the snapshot that sends it again. The message carries the server's history as
 * recorded (read back against the history itself); a hostile or broken one is refused whole; a
 * view that takes one draws the enemy from its first pose on, exactly where the server's history
 * has it, and the life a shot can hit begins there too; poses of another life, or a backfill whose
 * next snapshot does not begin that enemy's run, are not taken.
 */
import { describe, expect, it } from 'vitest';
import { MatchView, SnapshotPool } from '../shared/client/view';
import { PlayerHistory, createRewindPolicy, OutOfWindow, rewindStatusUsable } from '../shared/lagcomp/history';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { backfillBytes, BACKFILL_MAX_SAMPLES, Bf, BF_STRIDE, createBackfill, decodeBackfill, encodeBackfill } from '../shared/protocol/backfill';
import { defaultValidationConfig, rewindReachMs } from '../shared/validate/rules';
import { HIT_ZONE_COUNT } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { buildTestWorld } from './helpers/server';
import { arenaState, type StatePlayer } from './helpers/arenaStates';

const world = buildTestWorld();
const MAX = 4;
const HZ = 64;
const STEP = 1000 / HZ;
const T0 = 10_000;
const rules = defaultValidationConfig(WEAPONS, new Array<number>(HIT_ZONE_COUNT).fill(1), MANNEQUIN_RIG.eyeHeight, MAX, [WeaponId.RIFLE]);
const timeOf = (k: number): number => T0 + k * STEP;
/** The enemy's feet at tick k: walking a curve, a new life (epoch 1) from tick 20 on. */
const feetAt = (k: number): [number, number, number] => [0.09 * k + 0.3 * Math.sin(k / 5), 0.01 * (k % 7), 8 + 0.05 * k];
const epochAt = (k: number): number => (k < 20 ? 0 : 1);

/** The server's history of the enemy over ticks 0..n-1 (the mannequin's clip 1, a turning yaw). */
function serverHistory(n: number): PlayerHistory {
  const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 2000));
  const p = createPlayerPose();
  for (let k = 0; k < n; k++) {
    [p.x, p.y, p.z] = feetAt(k);
    const a = 0.02 * k;
    p.qx = 0; p.qy = Math.fround(Math.sin(a)); p.qz = 0; p.qw = Math.fround(Math.cos(a));
    p.clip = 1; p.time = (k * 0.013) % 0.9; p.alive = k !== 24; p.epoch = epochAt(k); p.eyeHeight = Number.NaN;
    expect(h.record(k, timeOf(k), p)).toBe(0);
  }
  return h;
}

/** Snapshot k as the arena's state: self (slot 0) at the origin, the enemy (slot 1) when `withEnemy`, and a second one like it in slot 2 when `andSlot2`. */
function stateAt(k: number, withEnemy: boolean, andSlot2 = false) {
  const players: StatePlayer[] = [{ slot: 0, x: 0, z: 0 }];
  for (const slot of withEnemy ? (andSlot2 ? [1, 2] : [1]) : []) {
    const [x, y, z] = feetAt(k);
    const a = 0.02 * k;
    players.push({ slot, x, y, z, qy: Math.fround(Math.sin(a)), qw: Math.fround(Math.cos(a)), clip: 1, animTime: (k * 0.013) % 0.9, epoch: epochAt(k), alive: k !== 24 });
  }
  return arenaState(k, timeOf(k), players);
}

function feed(pool: SnapshotPool, view: MatchView, state: unknown): void {
  const snap = pool.capture(state)!;
  view.apply(snap);
  snap.inUse = false;
}

function newView(): { view: MatchView; pool: SnapshotPool } {
  const view = new MatchView(world, MANNEQUIN_RIG, MAX, rewindReachMs(rules), HZ);
  view.ownSlot = 0;
  return { view, pool: new SnapshotPool(MAX, 2) };
}

const scratch = createPlayerPose();
const out = new Uint8Array(backfillBytes(BACKFILL_MAX_SAMPLES));

describe('backfill message', () => {
  it('carries the history\'s samples of one life within the times asked, oldest first, read back exactly', () => {
    const h = serverHistory(40);
    const bytes = encodeBackfill(out, 1, h, 1, timeOf(22) - 0.5, timeOf(35), scratch)!;
    expect(bytes.byteLength).toBe(backfillBytes(13));
    const b = createBackfill();
    expect(decodeBackfill(b, bytes)).toBe(true);
    expect([b.slot, b.count]).toEqual([1, 13]);
    const p = createPlayerPose();
    for (let i = 0; i < b.count; i++) {
      const k = 22 + i, q = i * BF_STRIDE;
      expect(h.snapshot(p, k)).toBe(b.samples[q + Bf.TIME]);
      expect([b.samples[q + Bf.TICK], b.samples[q + Bf.X], b.samples[q + Bf.Y], b.samples[q + Bf.Z], b.samples[q + Bf.QY], b.samples[q + Bf.QW], b.samples[q + Bf.ANIM], b.samples[q + Bf.CLIP], b.samples[q + Bf.ALIVE], b.samples[q + Bf.EPOCH]])
        .toEqual([k, p.x, p.y, p.z, p.qy, p.qw, p.time, p.clip, p.alive ? 1 : 0, p.epoch]);
      expect(Number.isNaN(b.samples[q + Bf.EYE]!)).toBe(true);
    }
    // Back across a life's start: only the asked life's samples (20..), however far back asked.
    const again = encodeBackfill(out, 1, h, 1, 0, timeOf(25), scratch)!;
    expect(decodeBackfill(b, again)).toBe(true);
    expect([b.count, b.samples[Bf.TICK]]).toEqual([5, 20]);
    // Nothing in range, an empty history: no message.
    expect(encodeBackfill(out, 1, h, 1, timeOf(50), timeOf(60), scratch)).toBeNull();
    expect(encodeBackfill(out, 1, new PlayerHistory(8), 0, 0, Infinity, scratch)).toBeNull();
    // At most BACKFILL_MAX_SAMPLES, the newest.
    const long = serverHistory(19 + BACKFILL_MAX_SAMPLES + 10);
    expect(decodeBackfill(b, encodeBackfill(out, 1, long, 1, 0, Infinity, scratch))).toBe(true);
    expect(b.count).toBe(BACKFILL_MAX_SAMPLES);
    expect(b.samples[(BACKFILL_MAX_SAMPLES - 1) * BF_STRIDE + Bf.TICK]).toBe(long.newestTick());
  });

  it('refuses what is not one whole', () => {
    const h = serverHistory(30);
    const good = encodeBackfill(out, 2, h, 1, timeOf(21), timeOf(29), scratch)!.slice();
    const b = createBackfill();
    const bad: unknown[] = [null, 'backfill', 12, [1, 2, 3], new Uint8Array(0), new Uint8Array(3), good.subarray(0, good.byteLength - 1), new Uint8Array([...good, 0])];
    const other = good.slice(); other[0] = 2; bad.push(other);
    const huge = good.slice(); huge[2] = 0xff; huge[3] = 0xff; bad.push(huge);
    for (const x of bad) {
      expect(decodeBackfill(b, x)).toBe(false);
      expect([b.count, b.slot]).toEqual([0, -1]);
    }
    // An unaligned view of the same bytes reads the same.
    const shifted = new Uint8Array(good.byteLength + 3);
    shifted.set(good, 3);
    expect(decodeBackfill(b, shifted.subarray(3))).toBe(true);
    expect(b.count).toBe(8);
  });
});

describe('a view that takes a backfill', () => {
  it('draws the enemy from the backfill\'s first pose, where the server\'s history has it, and its life starts there', () => {
    const h = serverHistory(40);
    const policy = createRewindPolicy(2000, OutOfWindow.REJECT);
    const { view, pool } = newView();
    for (let k = 0; k <= 29; k++) feed(pool, view, stateAt(k, false));
    const b = createBackfill();
    expect(decodeBackfill(b, encodeBackfill(out, 1, h, 1, timeOf(30) - 8 * STEP, timeOf(30), scratch))).toBe(true);
    view.backfill(b);
    feed(pool, view, stateAt(30, true));
    expect([view.backfillsTaken, view.backfillsDropped]).toEqual([1, 0]);
    expect(view.presentSinceMs[1]).toBe(timeOf(22));
    expect(view.lifeStartMs[1]).toBe(timeOf(22));
    const drawn = createPlayerPose(), truth = createPlayerPose();
    for (let t = timeOf(22); t <= timeOf(30); t += 1.7) {
      expect(view.renderPose(drawn, 1, t)).toBe(true);
      expect(rewindStatusUsable(h.sampleAt(truth, t, policy))).toBe(true);
      // Bit for bit, the rotation too (the server's renormalised one is not renormalised again).
      expect([drawn.x, drawn.y, drawn.z, drawn.qx, drawn.qy, drawn.qz, drawn.qw, drawn.time, drawn.clip, drawn.alive]).toEqual([truth.x, truth.y, truth.z, truth.qx, truth.qy, truth.qz, truth.qw, truth.time, truth.clip, truth.alive]);
    }
    expect(view.renderPose(drawn, 1, timeOf(22) - 1)).toBe(false);
    // Without it the same snapshot begins the run at its own time.
    const plain = newView();
    for (let k = 0; k <= 30; k++) feed(plain.pool, plain.view, stateAt(k, k === 30));
    expect([plain.view.presentSinceMs[1], plain.view.renderPose(drawn, 1, timeOf(29))]).toEqual([timeOf(30), false]);
  });

  it('takes one backfill per enemy: two enemies sent again by one snapshot both begin at their backfills', () => {
    const h = serverHistory(40);
    const { view, pool } = newView();
    for (let k = 0; k <= 29; k++) feed(pool, view, stateAt(k, false));
    const b = createBackfill();
    for (const slot of [1, 2]) {
      expect(decodeBackfill(b, encodeBackfill(out, slot, h, 1, timeOf(slot === 1 ? 22 : 26), timeOf(30), scratch))).toBe(true);
      view.backfill(b);
    }
    feed(pool, view, stateAt(30, true, true));
    expect([view.backfillsTaken, view.backfillsDropped, view.presentSinceMs[1], view.presentSinceMs[2]]).toEqual([2, 0, timeOf(22), timeOf(26)]);
    // A second backfill of the same enemy before the snapshot replaces the first.
    const again = newView();
    for (let k = 0; k <= 29; k++) feed(again.pool, again.view, stateAt(k, false));
    for (const from of [22, 27]) {
      decodeBackfill(b, encodeBackfill(out, 1, h, 1, timeOf(from), timeOf(30), scratch));
      again.view.backfill(b);
    }
    feed(again.pool, again.view, stateAt(30, true));
    expect([again.view.backfillsTaken, again.view.backfillsDropped, again.view.presentSinceMs[1]]).toEqual([1, 1, timeOf(27)]);
  });

  it('a dead pose in the backfill: the life a shot can hit begins at the first pose alive', () => {
    const h = serverHistory(40);
    const { view, pool } = newView();
    for (let k = 0; k <= 23; k++) feed(pool, view, stateAt(k, false));
    const b = createBackfill();
    // Ticks 24 (dead) .. 27.
    decodeBackfill(b, encodeBackfill(out, 1, h, 1, timeOf(24), timeOf(28), scratch));
    view.backfill(b);
    feed(pool, view, stateAt(28, true));
    expect([view.presentSinceMs[1], view.lifeStartMs[1]]).toEqual([timeOf(24), timeOf(25)]);
  });

  it('drops poses of another life, a backfill the next snapshot does not begin a run with, and one for itself', () => {
    const h = serverHistory(40);
    const b = createBackfill();
    /** A view fed snapshots `from`..`to` (the enemy in them or not), then handed the enemy's backfill of `life` over ticks [bfFrom, bfBefore). */
    const handed = (from: number, to: number, present: boolean, life: number, bfFrom: number, bfBefore: number) => {
      const v = newView();
      for (let k = from; k <= to; k++) feed(v.pool, v.view, stateAt(k, present));
      decodeBackfill(b, encodeBackfill(out, 1, h, life, timeOf(bfFrom), timeOf(bfBefore), scratch));
      v.view.backfill(b);
      return v;
    };
    // Poses of life 0 before a snapshot of life 1: none taken.
    const a = handed(0, 20, false, 0, 10, 20);
    feed(a.pool, a.view, stateAt(21, true));
    expect([a.view.backfillsTaken, a.view.backfillsDropped, a.view.presentSinceMs[1]]).toEqual([0, 1, timeOf(21)]);
    // The enemy already present: the snapshot continues its run, the backfill is dropped.
    const c = handed(20, 30, true, 1, 25, 31);
    feed(c.pool, c.view, stateAt(31, true));
    expect([c.view.backfillsTaken, c.view.backfillsDropped, c.view.presentSinceMs[1]]).toEqual([0, 1, timeOf(20)]);
    // Still absent in the next snapshot: dropped, and not taken by a later one.
    const d = handed(20, 30, false, 1, 25, 31);
    feed(d.pool, d.view, stateAt(31, false));
    feed(d.pool, d.view, stateAt(32, true));
    expect([d.view.backfillsTaken, d.view.backfillsDropped, d.view.presentSinceMs[1]]).toEqual([0, 1, timeOf(32)]);
    // For its own slot: ignored.
    b.slot = 0;
    d.view.backfill(b);
    feed(d.pool, d.view, stateAt(33, true));
    expect([d.view.backfillsTaken, d.view.backfillsDropped]).toEqual([0, 1]);
  });
});
