// The fog-of-war measuring pieces of the simulator (client-sim/fogMeasure.ts) against brute force on
// synthetic inputs: which snapshots bracket a render time and whether they hold a slot, since when
// a slot has been received without a break, line of sight to sampled hitbox points (against a
// Moller-Trumbore test over every triangle), and the report's counts (pop-ins, onsets and their
// leads, covered ticks withheld, deaths in cover) over a scripted walk past a wall; the body's
// outline against the posed mesh.
import { describe, expect, it } from 'vitest';
import { anyClear, BodyPoints, FogTally, leadSummary, LONG_HIDDEN_MS, ONSET_GAP_MS, ReceiptLog } from '../client-sim/fogMeasure';
import { peekWorld } from '../client-sim/peek';
import { Rng } from '../client-sim/rng';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { Rewinder } from '../shared/lagcomp/rewind';
import { SNAP_STRIDE, Snap } from '../shared/client/snapshot';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { bruteBlocked } from './helpers/projectileScenes';

const SLOTS = 4;

interface Received { timeMs: number; localMs: number; present: boolean[] }

function playersOf(present: boolean[]): Float64Array {
  const p = new Float64Array(SLOTS * SNAP_STRIDE);
  for (let s = 0; s < SLOTS; s++) p[s * SNAP_STRIDE + Snap.PRESENT] = present[s] ? 1 : 0;
  return p;
}

/** Snapshots every 15.625 ms with some missing, each slot present in runs (flips with probability 0.1), now and then a stall. */
function snapshots(rng: Rng, n: number): Received[] {
  const out: Received[] = [];
  const present = [true, true, false, true];
  let t = 1000, local = 0, holdUntil = 0;
  for (let i = 0; i < n; i++) {
    t += rng.next() < 0.2 ? 31.25 : 15.625;
    for (let s = 0; s < SLOTS; s++) if (rng.next() < 0.1) present[s] = !present[s];
    // Every 100th snapshot a stall: it and those behind it for 300 ms arrive together (in order, as over TCP).
    if (i % 100 === 50) holdUntil = t + 340;
    local = Math.max(local, t + 40 + rng.next() * 30, t + 40 < holdUntil ? holdUntil : 0);
    out.push({ timeMs: t, localMs: local, present: [...present] });
  }
  return out;
}

/** Brute force: the bracketing snapshots by a scan of everything kept. */
function bruteArrived(kept: readonly Received[], slot: number, t: number): boolean {
  if (kept.length === 0) return false;
  let before: Received | null = null, after: Received | null = null;
  for (const r of kept) {
    if (r.timeMs <= t && (before === null || r.timeMs > before.timeMs)) before = r;
    if (r.timeMs >= t && (after === null || r.timeMs < after.timeMs)) after = r;
  }
  return (before === null || before.present[slot]!) && (after === null || after.present[slot]!);
}

function bruteSince(all: readonly Received[], slot: number): number {
  let since = Number.NaN;
  for (let i = all.length - 1; i >= 0 && all[i]!.present[slot]; i--) since = all[i]!.localMs;
  return since;
}

describe('ReceiptLog', () => {
  for (const capacity of [512, 16]) {
    it(`brackets render times and times unbroken runs as a scan does (capacity ${capacity})`, () => {
      const rng = new Rng(7 + capacity);
      const all = snapshots(rng, 300);
      const log = new ReceiptLog(SLOTS, capacity);
      let checked = 0;
      for (let i = 0; i < all.length; i++) {
        const r = all[i]!;
        log.record(r.timeMs, r.localMs, playersOf(r.present));
        const kept = all.slice(Math.max(0, i + 1 - capacity), i + 1);
        for (let q = 0; q < 5; q++) {
          // Render times from before the oldest kept to past the newest, some exactly on a snapshot.
          const t = q === 0 ? kept[Math.floor(rng.next() * kept.length)]!.timeMs : r.timeMs - 300 + rng.next() * 340;
          for (let s = 0; s < SLOTS; s++) {
            expect(log.arrived(s, t)).toBe(bruteArrived(kept, s, t));
            checked++;
          }
        }
        for (let s = 0; s < SLOTS; s++) expect(Object.is(log.receivedSince(s), bruteSince(all.slice(0, i + 1), s)) || log.receivedSince(s) === bruteSince(all.slice(0, i + 1), s)).toBe(true);
      }
      expect(checked).toBe(300 * 5 * SLOTS);
      expect(new ReceiptLog(SLOTS).arrived(0, 1000)).toBe(false);
    });
  }

  it('counts a backfill as arrived from its first pose to the snapshot whose run it began, while that run lasts', () => {
    const rng = new Rng(11);
    const all = snapshots(rng, 300);
    const log = new ReceiptLog(SLOTS);
    /** Per slot: the span its current run's backfill covered (null: none). */
    const filled: ([number, number] | null)[] = new Array(SLOTS).fill(null);
    let withBackfill = 0;
    for (let i = 0; i < all.length; i++) {
      const r = all[i]!, prev = all[i - 1];
      // Before each snapshot, a backfill of 100 ms for every other slot (some begin a run, most do not).
      const from: number[] = [];
      for (let s = 0; s < SLOTS; s++) {
        from[s] = Number.NaN;
        if (rng.next() < 0.5) continue;
        from[s] = r.timeMs - 100;
        log.backfill(s, from[s]!);
      }
      log.record(r.timeMs, r.localMs, playersOf(r.present));
      for (let s = 0; s < SLOTS; s++) {
        if (!r.present[s]) filled[s] = null;
        else if (prev === undefined || !prev.present[s]) filled[s] = Number.isNaN(from[s]!) ? null : [from[s]!, r.timeMs];
      }
      for (let q = 0; q < 5; q++) {
        const t = r.timeMs - 300 + rng.next() * 340;
        for (let s = 0; s < SLOTS; s++) {
          const f = filled[s];
          const byBackfill = f !== null && t >= f[0] && t <= f[1];
          if (byBackfill && !bruteArrived(all.slice(0, i + 1), s, t)) withBackfill++;
          expect(log.arrived(s, t)).toBe(byBackfill || bruteArrived(all.slice(0, i + 1), s, t));
        }
      }
    }
    expect(withBackfill).toBeGreaterThan(50);
  });
});

/** A body near the peek level's wall end, at a random yaw (test input only). */
function placeBehindWall(pose: ReturnType<typeof createPlayerPose>, rng: Rng): void {
  pose.x = -4 + rng.next() * 6; pose.z = -3 + rng.next() * 2.5; pose.y = 0;
  const half = rng.next() * Math.PI;
  pose.qx = 0; pose.qy = Math.sin(half); pose.qz = 0; pose.qw = Math.cos(half);
}

/** An eye on the wall's other side, out in the open. */
function eyeBeyondWall(rng: Rng): number[] {
  return [-3 + rng.next() * 10, 1.68, 3 + rng.next() * 10];
}

describe('BodyPoints and anyClear', () => {
  it('find a line of sight exactly when one of the sampled points is clear by a test of every triangle', () => {
    const world = peekWorld();
    const rewinder = new Rewinder(MANNEQUIN_RIG);
    const points = new BodyPoints(MANNEQUIN_RIG);
    expect(points.count).toBe(7);
    const pts = new Float64Array(points.count * 3);
    const pose = createPlayerPose();
    const rng = new Rng(3);
    let clear = 0, blocked = 0;
    for (let i = 0; i < 400; i++) {
      placeBehindWall(pose, rng);
      const n = points.fill(pts, rewinder, pose);
      // The points sit on the body: within 1 m across of the root, between the floor and 2 m up.
      for (let k = 0; k < n; k++) {
        expect(Math.hypot(pts[k * 3]! - pose.x, pts[k * 3 + 2]! - pose.z)).toBeLessThan(1);
        expect(pts[k * 3 + 1]!).toBeGreaterThan(-0.05);
        expect(pts[k * 3 + 1]!).toBeLessThan(2);
      }
      const eye = eyeBeyondWall(rng);
      let brute = false;
      for (let k = 0; k < n && !brute; k++) brute = !bruteBlocked(world, eye, [pts[k * 3]!, pts[k * 3 + 1]!, pts[k * 3 + 2]!]);
      const got = anyClear(world, eye[0]!, eye[1]!, eye[2]!, pts, n);
      expect(got).toBe(brute);
      if (got) clear++; else blocked++;
    }
    expect(clear).toBeGreaterThan(40);
    expect(blocked).toBeGreaterThan(40);
  });
});

describe('BodyPoints.outline', () => {
  const rig = MANNEQUIN_RIG;
  const DIRS = 14;

  it('is, for every hitbox, its posed mesh vertices farthest along 14 directions: each point one of that hitbox\'s posed vertices', () => {
    const rewinder = new Rewinder(rig);
    const outline = BodyPoints.outline(rig);
    expect(outline.count).toBe(rig.hitboxCount * DIRS);
    const pts = new Float64Array(outline.count * 3);
    const tris = new Float64Array(rig.triangles.length);
    const pose = createPlayerPose();
    const rng = new Rng(5);
    for (let i = 0; i < 50; i++) {
      pose.x = rng.next() * 10; pose.z = rng.next() * 10; pose.y = rng.next();
      const half = rng.next() * Math.PI; // a yaw, test input only
      pose.qy = Math.sin(half); pose.qw = Math.cos(half);
      pose.time = rng.next() * 2;
      outline.fill(pts, rewinder, pose);
      rewinder.hitboxTriangles(tris, pose);
      for (let k = 0; k < outline.count; k++) {
        const h = Math.floor(k / DIRS);
        let nearest = Infinity;
        for (let v = rig.triStart[h]! * 3; v < rig.triStart[h + 1]! * 3; v++) {
          nearest = Math.min(nearest, Math.hypot(tris[v * 3]! - pts[k * 3]!, tris[v * 3 + 1]! - pts[k * 3 + 1]!, tris[v * 3 + 2]! - pts[k * 3 + 2]!));
        }
        expect(nearest).toBeLessThan(1e-9);
      }
    }
  });

  it('sees bodies the sampled points do not: in sight exactly when a test of every triangle finds one of its points clear', () => {
    const world = peekWorld();
    const rewinder = new Rewinder(rig);
    const points = new BodyPoints(rig);
    const outline = BodyPoints.outline(rig);
    const pts = new Float64Array(points.count * 3);
    const opts = new Float64Array(outline.count * 3);
    const pose = createPlayerPose();
    const rng = new Rng(7);
    let outlineOnly = 0, checked = 0;
    for (let i = 0; i < 600; i++) {
      placeBehindWall(pose, rng);
      const eye = eyeBeyondWall(rng);
      const n = points.fill(pts, rewinder, pose);
      if (anyClear(world, eye[0]!, eye[1]!, eye[2]!, pts, n)) continue;
      const m = outline.fill(opts, rewinder, pose);
      const got = anyClear(world, eye[0]!, eye[1]!, eye[2]!, opts, m);
      let brute = false;
      for (let k = 0; k < m && !brute; k++) brute = !bruteBlocked(world, eye, [opts[k * 3]!, opts[k * 3 + 1]!, opts[k * 3 + 2]!]);
      expect(got).toBe(brute);
      checked++;
      if (got) outlineOnly++;
    }
    expect(checked).toBeGreaterThan(100);
    expect(outlineOnly).toBeGreaterThan(5);
  });
});

describe('FogTally', () => {
  it('counts a sample seen only by the outline as a pop-in when the data had not arrived and the stream was not behind', () => {
    const t = new FogTally();
    t.screen(0, 1, 100, false, false, Number.NaN, false, true);
    expect([t.popIn, t.outlinePopIn, t.popInBy.get(0)]).toEqual([1, 1, 1]);
    t.screen(0, 1, 116, false, true, 100, false, true); // arrived
    t.screen(0, 1, 132, false, false, Number.NaN, true, true); // the stream behind the screen
    t.screen(0, 1, 148, true, false, Number.NaN, false, true); // the sampled points saw it: counted once, as before
    expect([t.popIn, t.outlinePopIn, t.stalledPopIn]).toEqual([2, 1, 0]);
  });

  it('counts pop-ins, onsets with their leads, withheld covered ticks and deaths in cover as a brute-force pass does', () => {
    const world = peekWorld();
    const rewinder = new Rewinder(MANNEQUIN_RIG);
    const points = new BodyPoints(MANNEQUIN_RIG);
    const pts = new Float64Array(points.count * 3);
    const pose = createPlayerPose();
    const rng = new Rng(11);
    const all = snapshots(rng, 600);
    const log = new ReceiptLog(SLOTS);
    const tally = new FogTally();
    const interp = 90;
    // The observer (0) holds an angle at (4, 1.68, 12); enemy slot e walks back and forth behind the wall's end.
    const eye = [4, 1.68, 12];
    const samples: { at: number; slot: number; visible: boolean; arrived: boolean; since: number; stalled: boolean }[] = [];
    let next = 0;
    for (let at = 1100; at < all[all.length - 1]!.localMs; at += 16 + (rng.next() < 0.005 ? 150 : 0)) {
      while (next < all.length && all[next]!.localMs <= at) {
        const r = all[next++]!;
        log.record(r.timeMs, r.localMs, playersOf(r.present));
      }
      const t = at - interp;
      for (let s = 1; s < SLOTS; s++) {
        pose.x = -2.5 + 3.5 * (0.5 + 0.5 * Math.sin(t / (250 * s) + s)); pose.z = -1.5; pose.y = 0;
        const n = points.fill(pts, rewinder, pose);
        let visible = false;
        for (let k = 0; k < n && !visible; k++) visible = !bruteBlocked(world, eye, [pts[k * 3]!, pts[k * 3 + 1]!, pts[k * 3 + 2]!]);
        const kept = all.slice(0, next);
        const arrived = bruteArrived(kept, s, t);
        const since = bruteSince(kept, s);
        const stalled = kept.length === 0 || kept[kept.length - 1]!.timeMs < t;
        samples.push({ at, slot: s, visible, arrived, since, stalled });
        tally.screen(0, s, at, anyClear(world, eye[0]!, eye[1]!, eye[2]!, pts, n), log.arrived(s, t), log.receivedSince(s), log.behind(t));
      }
    }
    // Brute force over the recorded samples.
    let popIn = 0, stalledPopIn = 0, visibleN = 0;
    const leads: number[] = [], leadsAfterHidden: number[] = [];
    for (let s = 1; s < SLOTS; s++) {
      const mine = samples.filter((x) => x.slot === s);
      for (let i = 0; i < mine.length; i++) {
        const x = mine[i]!;
        if (!x.visible) continue;
        // Out of sight before this sample since the earliest sample of an unbroken run of hidden samples.
        let j = i - 1;
        while (j > 0 && !mine[j - 1]!.visible && mine[j]!.at - mine[j - 1]!.at <= ONSET_GAP_MS) j--;
        visibleN++;
        if (!x.arrived && x.stalled) stalledPopIn++;
        else if (!x.arrived) popIn++;
        const prev = mine[i - 1];
        if (prev !== undefined && !prev.visible && x.at - prev.at <= ONSET_GAP_MS) {
          const lead = x.arrived && !Number.isNaN(x.since) ? x.at - x.since : 0;
          leads.push(lead);
          if (prev.at - mine[j]!.at >= LONG_HIDDEN_MS) leadsAfterHidden.push(lead);
        }
      }
    }
    expect(tally.screenSamples).toBe(samples.length);
    expect(tally.visibleSamples).toBe(visibleN);
    expect(tally.popIn).toBe(popIn);
    expect(tally.stalledPopIn).toBe(stalledPopIn);
    expect(stalledPopIn).toBeGreaterThan(0);
    expect(tally.popInBy.get(0) ?? 0).toBe(popIn);
    expect(popIn).toBeGreaterThan(0);
    expect(leads.length).toBeGreaterThan(5);
    // The tally keeps them in time order, the brute force slot by slot.
    expect([...tally.leadsMs].sort((a, b) => a - b)).toEqual([...leads].sort((a, b) => a - b));
    expect([...tally.leadsAfterHiddenMs].sort((a, b) => a - b)).toEqual([...leadsAfterHidden].sort((a, b) => a - b));
    expect(leadsAfterHidden.length).toBeGreaterThan(0);
    expect(leadsAfterHidden.length).toBeLessThan(leads.length);
    const sorted = [...leads].sort((a, b) => a - b);
    expect(leadSummary(leads)).toEqual({ p50: sorted[Math.ceil(0.5 * sorted.length) - 1], p90: sorted[Math.ceil(0.9 * sorted.length) - 1], n: leads.length });
    expect(leadSummary([])).toEqual({ p50: null, p90: null, n: 0 });

    // Ticks: covered or not, withheld or not.
    const ticks = Array.from({ length: 500 }, () => [rng.next() < 0.4, rng.next() < 0.5] as const);
    for (const [covered, withheld] of ticks) tally.tick(covered, withheld);
    const cov = ticks.filter(([c]) => c);
    expect(tally.coveredTicks).toBe(cov.length);
    expect(tally.withheldShare).toBeCloseTo(cov.filter(([, w]) => w).length / cov.length, 12);
    expect(tally.withheldVisibleTicks).toBe(ticks.filter(([c, w]) => !c && w).length);

    // Deaths: in cover from the killer as the last screen sample had it; another enemy's cover does not count.
    tally.cover(5, 1, true); tally.cover(5, 2, false);
    expect(tally.death(5, 1)).toBe(true);
    expect(tally.death(5, 2)).toBe(false);
    expect(tally.death(5, 3)).toBe(false);
    tally.cover(5, 1, false);
    expect(tally.death(5, 1)).toBe(false);
    expect(tally.diedBehindCoverRate).toBeCloseTo(1 / 4, 12);
    expect([tally.coverSamples, tally.inCoverSamples]).toEqual([3, 1]);
  });

  it('counts appearances and those already in sight as a brute-force pass over the samples does', () => {
    const rng = new Rng(23);
    const tally = new FogTally();
    // Per pair: samples 16 ms apart with now and then a gap; drawn, in sight and new life at random.
    const samples: { obs: number; enemy: number; at: number; drawn: boolean; inSight: boolean; newLife: boolean }[] = [];
    for (let obs = 0; obs < 3; obs++) {
      for (let enemy = 1; enemy < 4; enemy++) {
        let drawn = rng.next() < 0.5;
        for (let at = 1000, i = 0; i < 400; i++, at += 16 + (rng.next() < 0.03 ? 120 : 0)) {
          if (rng.next() < 0.1) drawn = !drawn;
          samples.push({ obs, enemy, at, drawn, inSight: drawn && rng.next() < 0.3, newLife: rng.next() < 0.1 });
        }
      }
    }
    // Interleaved in time as screens sample them.
    const order = samples.map((x, i) => [x.at, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [, i] of order) { const x = samples[i]!; tally.drawnSample(x.obs, x.enemy, x.at, x.drawn, x.inSight, x.newLife); }
    let appearances = 0, inSight = 0;
    for (let i = 1; i < samples.length; i++) {
      const x = samples[i]!, prev = samples[i - 1]!;
      if (prev.obs !== x.obs || prev.enemy !== x.enemy) continue;
      if (x.drawn && !prev.drawn && x.at - prev.at <= ONSET_GAP_MS && !x.newLife) {
        appearances++;
        if (x.inSight) inSight++;
      }
    }
    expect(tally.appearances).toBe(appearances);
    expect(tally.appearedInSight).toBe(inSight);
    expect(inSight).toBeGreaterThan(0);
    expect(inSight).toBeLessThan(appearances);
  });
});
