/**
 * The room's tick clock (server/match/tickClock.ts): stamps dt apart on the room's real clock,
 * never ahead of it, and not left behind it by steps a stall dropped. The loop driving it is the
 * fixed-step accumulator the room uses (a whole number of steps per timer frame, at most 5, the
 * backlog dropped after that), replayed here over chosen timer frames.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TickClock } from '../server/match/tickClock';

const DT = 1000 / 64;
const MAX_CATCHUP = 5;

interface Stamped { tick: number; real: number; t: number }

/** Runs the accumulator over timer frames at the given real times (the first frame's delta since `clockStart`). */
function drive(frames: readonly number[], clockStart = 0, maxCatchup = MAX_CATCHUP): Stamped[] {
  const clock = new TickClock();
  const out: Stamped[] = [];
  let acc = 0, tick = 0, last = clockStart;
  for (const real of frames) {
    acc += real - last;
    last = real;
    let ran = 0;
    while (acc >= DT && ran < maxCatchup) {
      acc -= DT;
      out.push({ tick, real, t: clock.stamp(tick, DT, real) });
      tick++;
      ran++;
    }
    if (ran === maxCatchup) acc = 0;
  }
  return out;
}

/** Timer frames every DT plus a lateness from `late(k)`, from `from` for `n` frames. */
function frames(from: number, n: number, late: (k: number) => number = () => 0): number[] {
  return Array.from({ length: n }, (_, k) => from + (k + 1) * DT + late(k));
}

describe('TickClock', () => {
  it('stamps a steady loop exactly dt apart, never ahead of the real time and after its first period within the timer\'s lateness of it', () => {
    const late = (k: number): number => (k * 7) % 5;
    const s = drive(frames(0, 300, late));
    for (const x of s) expect(x.t).toBeLessThanOrEqual(x.real);
    const steady = s.filter((x) => x.real > 1100);
    expect(steady.length).toBeGreaterThan(200);
    for (let i = 1; i < steady.length; i++) expect(steady[i]!.t - steady[i - 1]!.t).toBeCloseTo(DT, 9);
    for (const x of steady) expect(x.real - x.t).toBeLessThanOrEqual(4 + 1 + 1e-9);
  });

  it('does not stamp the first frame\'s catch-up steps in the future', () => {
    // The room's clock started 400 ms before the loop's first frame: five steps run at one instant.
    const s = drive([400, ...frames(400, 200)], 0);
    expect(s.slice(0, 5).every((x) => x.real === 400)).toBe(true);
    for (const x of s) expect(x.t).toBeLessThanOrEqual(x.real);
    for (let i = 1; i < s.length; i++) expect(s[i]!.t - s[i - 1]!.t).toBeCloseTo(DT, 9);
  });

  it('catches up a stall that dropped steps within its burst: dt apart, ending on the real time', () => {
    for (const stall of [100, 300, 2000]) {
      const before = frames(0, 100);
      const stallEnd = before[before.length - 1]! + stall;
      const s = drive([...before, stallEnd, ...frames(stallEnd, 50)]);
      const burst = s.filter((x) => x.real === stallEnd);
      expect(burst.length).toBe(MAX_CATCHUP);
      for (let i = 1; i < burst.length; i++) expect(burst[i]!.t - burst[i - 1]!.t).toBeCloseTo(DT, 9);
      expect(burst[burst.length - 1]!.t).toBeCloseTo(stallEnd, 9);
      for (const x of s.filter((y) => y.real > stallEnd)) {
        expect(x.t).toBeLessThanOrEqual(x.real);
        expect(x.real - x.t).toBeLessThan(DT);
      }
    }
  });

  it('takes out within a period a smaller lag that steps a loop dropped left behind', () => {
    // A loop that runs one step per frame and drops the rest: one 45 ms frame leaves ~30 ms behind.
    const before = frames(0, 100);
    const gapEnd = before[before.length - 1]! + 45;
    const s = drive([...before, gapEnd, ...frames(gapEnd, 200)], 0, 1);
    const rightAfter = s.filter((x) => x.real > gapEnd && x.real < gapEnd + 300);
    expect(Math.min(...rightAfter.map((x) => x.real - x.t))).toBeGreaterThan(DT);
    const later = s.filter((x) => x.real > gapEnd + 2100);
    expect(later.length).toBeGreaterThan(50);
    for (const x of later) expect(x.real - x.t).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('never runs backwards nor ahead of the real time, whatever the frames (property)', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.double({ min: 0, max: 2 * DT, noNaN: true }), fc.double({ min: 0, max: 400, noNaN: true })), { minLength: 1, maxLength: 400 }),
      fc.double({ min: 0, max: 1000, noNaN: true }),
      (gaps, start) => {
        let real = start;
        const s = drive(gaps.map((g) => (real += g)), 0);
        for (let i = 0; i < s.length; i++) {
          const x = s[i]!;
          expect(x.t).toBeLessThanOrEqual(x.real + ((i + 1) * DT) / 1000); // a burst past the real time is pushed on by dt/1000 a step
          if (i > 0) expect(x.t).toBeGreaterThan(s[i - 1]!.t);
          expect(x.real - x.t).toBeLessThanOrEqual(4 * DT + 1e-9);
        }
      },
    ), { numRuns: 300, seed: 29 });
  });
});
