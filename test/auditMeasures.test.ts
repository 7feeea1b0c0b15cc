// The audit's behaviour measures (server/behaviour/measures.ts, motion.ts) on scripted tick traces:
// a human flick that settles before firing against a triggerbot that fires the tick its sweep
// meets the body; pursuit with a lag against a view locked onto the target; a view that ignores a
// hidden player against one that follows it behind cover; inputs that arrive every tick against
// inputs held and released in bunches, and holds shorter than a retransmission; a tick that caught up several inputs read per step; and the
// same view in height (a shot over the head is off the body); the body those read against.
import { describe, expect, it } from 'vitest';
import { BehaviourRing, createShotMeasures, DEFAULT_MEASURE_WINDOWS, VIEW_INPUT_TICKS, type ReplayWorld, type RingPose } from '../server/behaviour/measures';
import { HEAD_TOP_M, viewOnBody } from '../server/behaviour/motion';

const DT = 1000 / 64;
const EYE = 1.6;
const DEG = Math.PI / 180;
const open: ReplayWorld = { anyHit: () => false };

interface Frame {
  /** Shooter's view yaw and pitch, radians; its position. */
  yaw: number; pitch: number; sx?: number; sz?: number;
  /** Target root position. */
  tx: number; tz: number; ty?: number;
  inputs?: number;
  /** Movement steps the shooter's tick took (default 1). */
  steps?: number;
  /** When the tick's view was aimed (the input's stamp), ms; absent: unknown. */
  vt?: number;
  /** When the server ran the tick, ms (default: the tick's number times DT). */
  at?: number;
}

function pose(x: number, y: number, z: number, vx: number, vy: number, vz: number, inputs: number, steps = 1, viewTimeMs = NaN): RingPose {
  return { x, y, z, qy: 0, qw: 1, alive: true, epoch: 1, vx, vy, vz, inputs, steps, viewTimeMs };
}

/** Feeds the frames as ticks (shooter slot 0, target slot 1) and measures a shot fired along the view of tick `fire`. */
/** `delayMs`: the client's render delay the shot declares (action time less render time); NaN: none. */
function measure(frames: Frame[], fire: number, world: ReplayWorld = open, delayMs = NaN) {
  // The ticks up to the shot, as the replay has them when the shot arrives.
  const ring = new BehaviourRing(2, world, EYE);
  for (let j = 0; j <= fire; j++) {
    const g = frames[j]!;
    const r = ring.beginTick();
    const c = Math.cos(g.pitch);
    ring.putSlot(r, 0, pose(g.sx ?? 0, 0, g.sz ?? 0, Math.sin(g.yaw) * c, Math.sin(g.pitch), Math.cos(g.yaw) * c, g.inputs ?? 1, g.steps ?? 1, g.vt ?? NaN));
    ring.putSlot(r, 1, pose(g.tx, g.ty ?? 0, g.tz, 0, 0, 1, 1));
    ring.endTick(g.at ?? j * DT);
  }
  const f = frames[fire]!;
  const cp = Math.cos(f.pitch);
  const dx = Math.sin(f.yaw) * cp, dy = Math.sin(f.pitch), dz = Math.cos(f.yaw) * cp;
  const sx = f.sx ?? 0, sz = f.sz ?? 0;
  const at = fire * DT + 5;
  return ring.measureShot(createShotMeasures(), 0, -1, -1, at, at + delayMs, at, sx, EYE, sz, sx + dx * 50, EYE + dy * 50, sz + dz * 50, DEFAULT_MEASURE_WINDOWS);
}

const minJerk = (u: number) => { const x = Math.max(0, Math.min(1, u)); return x * x * x * (10 - 15 * x + 6 * x * x); };
/** Pitch from the eye to the chest of a target on the same floor `d` m away. */
const chestPitch = (d: number) => Math.atan2(0.775 * EYE - EYE, d);

describe('behaviour measures on scripted traces', () => {
  it('a triggerbot fires the tick its sweeping crosshair meets the body; a human settles and waits', () => {
    const p = chestPitch(10);
    // Human: a 160 ms minimum-jerk flick from 30 degrees left onto the target, then 10 ticks on it before firing.
    const human: Frame[] = [];
    for (let j = 0; j <= 30; j++) human.push({ yaw: -30 * DEG * (1 - minJerk((j * DT) / 160)), pitch: p, tx: 0, tz: 10 });
    // Triggerbot: the view sweeps at 300 degrees/s and fires as the crosshair reaches the body.
    const bot: Frame[] = [];
    for (let j = 0; j <= 30; j++) bot.push({ yaw: -30 * DEG + 300 * DEG * (j * DT) / 1000, pitch: p, tx: 0, tz: 10 });
    const meets = bot.findIndex((f) => Math.abs(f.yaw) < 0.35 / 10);
    const h = measure(human, 20);
    const b = measure(bot, meets);
    expect(h.target).toBe(1);
    expect(b.target).toBe(1);
    expect(h.onTargetMs).toBeGreaterThanOrEqual(140);
    expect(b.onTargetMs).toBe(0);
    const degPerS = (c: number) => (c * 1000) / DEG;
    expect(degPerS(h.sweep)).toBeLessThan(5);
    expect(degPerS(b.sweep)).toBeGreaterThan(250);
    expect(degPerS(b.sweep)).toBeLessThan(350);
  });

  it('a tick that caught up held-back inputs is read per step: the turn speed of its inputs, no crossing speed', () => {
    const p = chestPitch(10);
    // A steady 100 degrees/s turn onto the target; the 20th tick stepped 8 inputs at once (TCP
    // delivered them together), so the view moved 8 steps' worth in that one tick.
    const steady: Frame[] = [];
    const step = 100 * DEG * (DT / 1000);
    let yaw = -28 * step; // on the target's centre at the 20th tick
    for (let j = 0; j <= 20; j++) {
      const steps = j === 20 ? 8 : 1;
      yaw += steps * step;
      steady.push({ yaw, pitch: p, tx: 0, tz: 10, steps });
    }
    const perStep = measure(steady, 20);
    const degPerS = (c: number) => (c * 1000) / DEG;
    expect(degPerS(perStep.peakTurn)).toBeLessThan(101);
    expect(Number.isNaN(perStep.sweep)).toBe(true);
    // Read per tick (as if one step), the same trace turns 8 times as fast.
    const perTick = measure(steady.map((f) => ({ ...f, steps: 1 })), 20);
    expect(degPerS(perTick.peakTurn)).toBeGreaterThan(700);
  });

  it('the body is a column: a view level with the target but aimed over its head is not on it', () => {
    const frames: Frame[] = [];
    for (let j = 0; j <= 20; j++) frames.push({ yaw: 0, pitch: 6 * DEG, tx: 0, tz: 10 });
    expect(measure(frames, 20).onTargetMs).toBe(0);
    const low: Frame[] = frames.map((f) => ({ ...f, pitch: chestPitch(10) }));
    expect(measure(low, 20).onTargetMs).toBeGreaterThanOrEqual(280);
  });

  it('tracking lag: a pursuit 120 ms behind a weaving target reads about 120 ms, a locked view about 0', () => {
    const d = 12;
    const tx = (t: number) => 4 * Math.sin((2 * Math.PI * t) / 3000);
    const lagged: Frame[] = [];
    const locked: Frame[] = [];
    let yaw = 0;
    for (let j = 0; j <= 96; j++) {
      const t = 1500 + j * DT;
      // A tick records the view its input carried: aimed at the target as it was a tick before.
      const bearing = Math.atan2(tx(t - VIEW_INPUT_TICKS * DT), d);
      yaw += (bearing - yaw) * (1 - Math.exp(-DT / 120));
      lagged.push({ yaw, pitch: chestPitch(d), tx: tx(t), tz: d });
      locked.push({ yaw: bearing, pitch: chestPitch(d), tx: tx(t), tz: d });
    }
    const a = measure(lagged, 96);
    const b = measure(locked, 96);
    // A first-order lag trails by about its time constant over motion slow against it (the per-tick
    // step trails by (1 - k) / k ticks = 112 ms, over (1 + (omega tau)^2) for the weave: 105 ms).
    expect(a.trackLag).toBeGreaterThan(90);
    expect(a.trackLag).toBeLessThan(125);
    expect(Math.abs(b.trackLag)).toBeLessThan(10);
    // The lag explains the offset: little wobble is left either way.
    expect(a.trackError).toBeLessThan(0.2 * DEG);
  });

  it('view times: a view held on ticks no input reached is read against the target when it was aimed, not the tick it sits in', () => {
    // A strafing target 10 m away; the client aims exactly at it as rendered 100 ms behind its clock,
    // but its inputs reach the room unevenly: every third tick steps none (the view is held) and the
    // next steps two (the room shows the newer one).
    const d = 10, delay = 100;
    const tx = (t: number) => 3 * Math.sin((2 * Math.PI * t) / 1200);
    const timed: Frame[] = [];
    const untimed: Frame[] = [];
    let vt = 0;
    for (let j = 0; j <= 96; j++) {
      const t = j * DT;
      // The newest input stepped at tick j: aimed a tick before it, or two ticks before on a held tick.
      if (j % 3 !== 1) vt = t - DT;
      const yaw = Math.atan2(tx(vt - delay), d);
      timed.push({ yaw, pitch: chestPitch(d), tx: tx(t), tz: d, vt });
      untimed.push({ yaw, pitch: chestPitch(d), tx: tx(t), tz: d });
    }
    const degPerS = (c: number) => (c * 1000) / DEG;
    const a = measure(timed, 96, open, delay);
    const b = measure(untimed, 96);
    // Read against the target as aimed: on it all along, no lag, no wobble, no sweep.
    expect(Math.abs(a.trackLag)).toBeLessThan(3);
    expect(a.trackError).toBeLessThan(0.05 * DEG);
    expect(degPerS(a.sweep)).toBeLessThan(1);
    expect(a.onTargetMs).toBeGreaterThan(0);
    // By the fixed lag alone (the render delay unknown), the same views read as a pursuit 100 ms
    // behind with wobble, and never on the body long.
    expect(b.trackLag).toBeGreaterThan(50);
    expect(b.trackError).toBeGreaterThan(10 * a.trackError);
    expect(b.onTargetMs).toBeLessThan(a.onTargetMs);
  });

  it('a view that follows a player behind cover reads a gain near 1 and a small pre-aim; one that ignores it, near 0', () => {
    // A wall hides everything at x < 2; the target runs out from behind it at 6 m/s, 12 m ahead.
    const wall: ReplayWorld = { anyHit: (_sx, _sy, _sz, ex) => ex < 2 };
    const d = 12;
    const tx = (j: number) => -4 + (6 * j * DT) / 1000;
    const appears = Math.ceil((6 * 1000) / 6 / DT);
    const follower: Frame[] = [];
    const ignorer: Frame[] = [];
    for (let j = 0; j <= appears + 12; j++) {
      const bearing = Math.atan2(tx(j), d);
      follower.push({ yaw: bearing, pitch: chestPitch(d), tx: tx(j), tz: d });
      ignorer.push({ yaw: j < appears ? 20 * DEG : bearing, pitch: 0, tx: tx(j), tz: d });
    }
    const f = measure(follower, appears + 12, wall);
    const g = measure(ignorer, appears + 12, wall);
    expect(f.hiddenFollow).toBeGreaterThan(0.95);
    expect(f.hiddenFollow).toBeLessThan(1.05);
    expect(Math.abs(g.hiddenFollow)).toBeLessThan(0.05);
    expect(f.preAim).toBeLessThan(0.01);
    expect(g.preAim).toBeGreaterThan(0.2);
    // In the open (no cover before the sighting) neither is measured.
    expect(measure(follower, appears + 12).hiddenFollow).toBeNaN();
  });

  it('input arrivals: one per tick spreads far under 1, bunches of 8 every 8 ticks about 7', () => {
    const even: Frame[] = [];
    const bunched: Frame[] = [];
    for (let j = 0; j <= 200; j++) {
      even.push({ yaw: 0, pitch: chestPitch(10), tx: 0, tz: 10, inputs: 1 + (j % 5 === 0 ? 1 : 0) });
      bunched.push({ yaw: 0, pitch: chestPitch(10), tx: 0, tz: 10, inputs: j % 8 === 7 ? 8 : 0 });
    }
    expect(measure(even, 200).inputSpread).toBeLessThan(0.2);
    expect(measure(bunched, 200).inputSpread).toBeCloseTo(7, 5);
  });

  it('short holds: a choked stream released every 6 ticks reads about 10 a second; a retransmission stall, a slow frame rate or a steady stream none', () => {
    const frames = (inputs: (j: number) => number) => Array.from({ length: 201 }, (_, j): Frame => ({ yaw: 0, pitch: chestPitch(10), tx: 0, tz: 10, inputs: inputs(j) }));
    const window = DEFAULT_MEASURE_WINDOWS.inputWindowMs / 1000;
    // Choked: nothing for 5 ticks (94 ms between takes), then the 6 held inputs at once.
    const choked = measure(frames((j) => (j % 6 === 5 ? 6 : 0)), 200).shortHolds;
    expect(choked).toBeGreaterThan(10.5 * (1 - 1 / 20));
    expect(choked).toBeLessThan(11);
    // A lost segment: 14 ticks (234 ms, past the least retransmission timeout) held, then released.
    expect(measure(frames((j) => (j % 40 < 14 ? 0 : j % 40 === 14 ? 15 : 1)), 200).shortHolds).toBe(0);
    // 16 frames a second: one input every 4 ticks, never two at once.
    expect(measure(frames((j) => (j % 4 === 0 ? 1 : 0)), 200).shortHolds).toBe(0);
    expect(measure(frames(() => 1), 200).shortHolds).toBe(0);
    // One hitch of 5 ticks in the window: one hold over the window's span.
    const hitch = measure(frames((j) => (j > 150 && j < 156 ? 0 : j === 156 ? 6 : 1)), 200).shortHolds;
    expect(hitch).toBeCloseTo(1 / window, 1);
  });

  it('short holds: a server that stalls (its ticks late) and then takes what arrived meanwhile makes none; a client that chokes its stream while the server is on time still reads them', () => {
    // Cycles of 12 ticks over 12 DT: five on time, the sixth 70 ms after the fifth (the server stalled),
    // then six back to back catching up. Each tick takes the inputs that arrived since the last one.
    const at = (j: number) => {
      const c = Math.floor(j / 12) * 12 * DT, i = j % 12;
      return i <= 4 ? c + i * DT : c + 4 * DT + 70 + ((i - 5) * (12 * DT - 4 * DT - 70)) / 7;
    };
    const frames = (arrivals: (t: number) => boolean) => Array.from({ length: 201 }, (_, j): Frame => {
      let inputs = 0;
      // Inputs leave the client one a frame (every DT, half a tick after the tick) and arrive at once.
      for (let m = 0; m * DT <= at(j); m++) if (m * DT + DT / 2 <= at(j) && (j === 0 || m * DT + DT / 2 > at(j - 1)) && arrivals(m * DT + DT / 2)) inputs++;
      return { yaw: 0, pitch: chestPitch(10), tx: 0, tz: 10, inputs, at: at(j) };
    });
    const steady = frames(() => true);
    expect(steady.some((f) => f.inputs! >= 4)).toBe(true);
    expect(measure(steady, 200).shortHolds).toBe(0);
    // The same server with a client that holds its stream over each cycle's catch-up ticks (ticks on
    // time for the server, none of them late) and lets it go at the next cycle's first tick.
    const chokedFrames = Array.from({ length: 201 }, (_, j): Frame => {
      const i = j % 12;
      return { ...steady[j]!, inputs: i === 0 && j > 0 ? 7 : i >= 6 ? 0 : steady[j]!.inputs };
    });
    expect(measure(chokedFrames, 200).shortHolds).toBeGreaterThan(4);
  });
});

describe('viewOnBody: the body the time on target is read against', () => {
  // A second method, from angles: the chord between the view's bearing and the root's (atan2 of
  // each), and the ray's height at the root's range from the pitch's tangent.
  function byGeometry(ex: number, ey: number, ez: number, yaw: number, pitch: number, rx: number, ry: number, rz: number, hw: number): boolean {
    const px = rx - ex, pz = rz - ez, hd = Math.sqrt(px * px + pz * pz);
    const bearing = Math.atan2(px, pz);
    let d = yaw - bearing;
    d = Math.atan2(Math.sin(d), Math.cos(d));
    const chord = 2 * Math.sin(Math.abs(d) / 2);
    const y = ey + Math.tan(pitch) * hd;
    return chord <= Math.min(0.5, hw / hd) && y >= ry && y <= ry + EYE + HEAD_TOP_M;
  }
  it('agrees with the ray\'s offset and height at the body\'s range, for seeded views around a body', () => {
    let seed = 11;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    let on = 0, off = 0;
    for (let i = 0; i < 20000; i++) {
      const ex = 40 * rand() - 20, ez = 40 * rand() - 20, ey = EYE + 2 * rand() - 1;
      const rx = 40 * rand() - 20, rz = 40 * rand() - 20, ry = 2 * rand() - 1;
      const px = rx - ex, pz = rz - ez, hd = Math.sqrt(px * px + pz * pz);
      if (hd < 1) continue;
      // Views near the body: within a few body widths and a body height.
      const yaw = Math.atan2(px, pz) + ((rand() - 0.5) * 3) / hd;
      const pitch = Math.atan2(ry + 2.4 * rand() - 0.3 - ey, hd);
      const want = byGeometry(ex, ey, ez, yaw, pitch, rx, ry, rz, 0.3);
      const got = viewOnBody(ex, ey, ez, Math.sin(yaw) * Math.cos(pitch), Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch), rx, ry, rz, EYE, 0.3, false);
      expect(got, `case ${i}`).toBe(want);
      if (got) on++; else off++;
      // Flat: height does not count.
      expect(viewOnBody(ex, ey, ez, Math.sin(yaw), 5, Math.cos(yaw), rx, ry, rz, EYE, 0.3, true)).toBe(byGeometry(ex, ey, ez, yaw, Math.atan2(ry + 1 - ey, hd), rx, ry, rz, 0.3));
    }
    expect(on).toBeGreaterThan(2000);
    expect(off).toBeGreaterThan(2000);
  });

  it('the shipped body: 0.3 m either side, from the feet to just above the eye', () => {
    expect(DEFAULT_MEASURE_WINDOWS.bodyHalfWidthM).toBe(0.3);
    const at = (side: number, up: number) => viewOnBody(0, EYE, 0, side, up - EYE, 10, 0, 0, 10, EYE, 0.3, false);
    expect(at(0, 1.2)).toBe(true);
    expect(at(0.28, 1.2)).toBe(true);
    expect(at(0.33, 1.2)).toBe(false);
    expect(at(0, EYE + HEAD_TOP_M - 0.01)).toBe(true);
    expect(at(0, EYE + HEAD_TOP_M + 0.01)).toBe(false);
    expect(at(0, -0.01)).toBe(false);
  });
});
