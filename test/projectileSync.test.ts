/**
 * Flights on their sub-step grid, and the two client copies built on it (shared/client/projectiles.ts):
 * a flight's path does not depend on how the time is split into calls; the shooter's prediction
 * (LaunchPredictor, flown frame by frame from its render time) meets the level on the same bits as
 * the server's flight (started late by the catch-up cap, flown tick by tick); a synced copy
 * (SyncedProjectiles) re-flown from a snapshot the server wrote after a bounce reaches the
 * server's states bit for bit at every grid point.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ProjectileFlights, type ProjectileEndData } from '../shared/projectile/flights';
import { FlightEventKind } from '../shared/projectile/flight';
import { MAX_CATCH_UP_MS } from '../shared/projectile/catchUp';
import { VolumeRewinder } from '../shared/lagcomp/rewindVolume';
import { Rewinder } from '../shared/lagcomp/rewind';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../shared/rig/rig';
import { defaultValidationConfig } from '../shared/validate/shot';
import { MatchView } from '../shared/client/view';
import { LaunchPredictor, SyncedProjectiles } from '../shared/client/projectiles';
import { worldOf } from './helpers/projectileScenes';

const TICK_RATE = 64;
const Q = 1000 / TICK_RATE;
/** A room: floor, walls, a ceiling, and a block in the middle to bounce off. */
const world = worldOf([
  [-20, -1, -20, 20, 0, 20], [-21, 0, -20, -20, 6, 20], [20, 0, -20, 21, 6, 20], [-20, 0, -21, 20, 6, -20], [-20, 0, 20, 20, 6, 21],
  [-20, 6, -20, 20, 7, 20], [-2, 0, -2, 2, 1.5, 2],
]);
const vol = new VolumeRewinder(new Rewinder(MANNEQUIN_RIG));
const NOBODY: undefined[] = new Array(8).fill(undefined);
const zones = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
const rules = defaultValidationConfig(WEAPONS, zones, MANNEQUIN_RIG.eyeHeight, 8, [WeaponId.RIFLE, WeaponId.ROCKET, WeaponId.GRENADE]);

interface Launch { weapon: number; p: number[]; d: number[] }

const launchArb = fc.record({
  weapon: fc.constantFrom(WeaponId.ROCKET, WeaponId.GRENADE),
  x: fc.double({ min: -15, max: 15, noNaN: true }), z: fc.double({ min: -15, max: 15, noNaN: true }), y: fc.double({ min: 1.6, max: 1.8, noNaN: true }),
  yaw: fc.double({ min: -1, max: 1, noNaN: true }), yaw2: fc.double({ min: -1, max: 1, noNaN: true }), pitch: fc.double({ min: -0.6, max: 0.8, noNaN: true }),
}).filter((l) => Math.abs(l.x) > 2.6 || Math.abs(l.z) > 2.6).map((l): Launch => {
  const n = Math.sqrt(l.yaw * l.yaw + l.yaw2 * l.yaw2 + l.pitch * l.pitch) || 1;
  return { weapon: l.weapon, p: [l.x, l.y, l.z], d: [l.yaw / n, l.pitch / n, l.yaw2 / n] };
}).filter((l) => Math.abs(l.d[0]!) + Math.abs(l.d[2]!) > 0.1);

function flights(): ProjectileFlights {
  return new ProjectileFlights(WEAPONS, zones, world, vol, 8, 8);
}

/** Flies one launch (fired at fireMs, spawned at nowMs) with ticks at `times`; returns its end and the state at every grid step reached. */
function fly(l: Launch, fireMs: number, nowMs: number, times: number[]): { end: ProjectileEndData | null; states: Map<number, number[]> } {
  const f = flights();
  let end: ProjectileEndData | null = null;
  const onEnd = (e: ProjectileEndData) => { end = { ...e }; };
  const states = new Map<number, number[]>();
  const keep = () => {
    if (f.live[0] === 1) states.set(f.steps[0]!, [f.x[0]!, f.y[0]!, f.z[0]!, f.vx[0]!, f.vy[0]!, f.vz[0]!, f.ageMs[0]!, f.bounces[0]!, f.mode[0]!]);
  };
  expect(f.spawn(3, l.weapon, 1, fireMs, nowMs, Q, l.p[0]!, l.p[1]!, l.p[2]!, l.d[0]!, l.d[1]!, l.d[2]!, NOBODY, onEnd)).toBe(0);
  keep();
  for (const t of times) {
    if (end !== null) break;
    f.step(0, t, NOBODY, onEnd);
    keep();
  }
  return { end, states };
}

const ticks = (from: number, ms: number): number[] => Array.from({ length: Math.ceil(ms / Q) + 1 }, (_, k) => from + (k + 1) * Q);

describe('flights on their sub-step grid', () => {
  it('reach the same bits however the time is split into calls', () => {
    fc.assert(fc.property(launchArb, fc.array(fc.double({ min: 0.5, max: 70, noNaN: true }), { minLength: 400, maxLength: 400 }), (l, gaps) => {
      const a = fly(l, 0, 0, ticks(0, 6000));
      let t = 0;
      const b = fly(l, 0, 0, gaps.map((g) => (t += g)));
      expect(a.end).not.toBeNull();
      expect(b.end).not.toBeNull();
      for (const k of ['kind', 'x', 'y', 'z', 'ageMs', 'bounces', 'player'] as const) expect(Object.is(b.end![k], a.end![k]), k).toBe(true);
      let common = 0;
      for (const [step, s] of b.states) {
        const o = a.states.get(step);
        if (o === undefined) continue;
        common++;
        expect(s).toEqual(o);
      }
      expect(common).toBeGreaterThan(0);
    }), { numRuns: 60, seed: 20261128 });
  });

  it('the shooter\'s prediction meets the level where the server does, though the server starts it late by the catch-up cap', () => {
    fc.assert(fc.property(launchArb, fc.double({ min: 0, max: 200, noNaN: true }), (l, lateMs) => {
      const fire = 1000;
      // The server learns of the shot lateMs after the render time it states; its flight starts at most MAX_CATCH_UP_MS before.
      const now = fire + lateMs;
      const server = fly(l, fire, now, ticks(now, 6000));
      const view = new MatchView(world, MANNEQUIN_RIG, 8, 1000, TICK_RATE);
      const predictor = new LaunchPredictor(view, rules, TICK_RATE);
      let predicted: ProjectileEndData | null = null;
      const onEnd = (e: ProjectileEndData) => { predicted = { ...e }; };
      expect(predictor.launch(3, l.weapon, 1, l.p[0]!, l.p[1]!, l.p[2]!, l.d[0]!, l.d[1]!, l.d[2]!, fire, onEnd)).toBe(0);
      for (let t = fire; predicted === null && t < fire + 7000; t += 16.7) predictor.advance(t, onEnd);
      expect(predicted).not.toBeNull();
      expect(server.end).not.toBeNull();
      for (const k of ['kind', 'x', 'y', 'z', 'ageMs', 'bounces'] as const) expect(Object.is(predicted![k], server.end![k]), k).toBe(true);
      expect([FlightEventKind.LEVEL, FlightEventKind.FUSE, FlightEventKind.EXPIRED]).toContain(server.end!.kind);
      // The server's end is later by the part of the delay past the cap.
      const late = Math.max(0, lateMs - MAX_CATCH_UP_MS);
      expect(server.end!.timeMs - predicted!.timeMs).toBeCloseTo(late, 6);
    }), { numRuns: 40, seed: 7 });
  });

  it('a prediction started at a wrong guess of the server\'s start is flown again from the start the verdict names, and then ends when the server\'s does', () => {
    const l: Launch = { weapon: WeaponId.ROCKET, p: [-10, 1.7, -10], d: [0.6, 0, 0.8] };
    const fire = 500, now = fire + 180;
    const server = fly(l, fire, now, ticks(now, 3000));
    const serverStart = now - MAX_CATCH_UP_MS;
    const view = new MatchView(world, MANNEQUIN_RIG, 8, 1000, TICK_RATE);
    const predictor = new LaunchPredictor(view, rules, TICK_RATE);
    const ends: ProjectileEndData[] = [];
    const onEnd = (e: ProjectileEndData) => { ends.push({ ...e }); };
    // Guessed 40 ms early: the flight starts 40 ms before the server's.
    predictor.launch(3, l.weapon, 4, l.p[0]!, l.p[1]!, l.p[2]!, l.d[0]!, l.d[1]!, l.d[2]!, fire, onEnd, now - 40);
    for (let t = fire; ends.length === 0; t += 16.7) predictor.advance(t, onEnd);
    expect(ends[0]!.timeMs).toBeCloseTo(server.end!.timeMs - 40, 6);
    let t = ends[0]!.timeMs;
    expect(predictor.confirm(4, serverStart, onEnd)).toBe(true);
    // Re-flown to the last render time: it starts 40 ms later, so it has not ended yet.
    expect(ends.length).toBe(1);
    while (ends.length === 1) predictor.advance((t += 16.7), onEnd);
    for (const k of ['kind', 'x', 'y', 'z', 'ageMs', 'timeMs'] as const) expect(Object.is(ends[1]![k], server.end![k]), k).toBe(true);
    // Confirming the start it already flew from changes nothing; an unknown seq neither.
    expect(predictor.confirm(4, serverStart, onEnd)).toBe(false);
    expect(predictor.confirm(99, serverStart, onEnd)).toBe(false);
    expect(ends.length).toBe(2);
  });

  it('a synced copy re-flown from the server\'s snapshot after a bounce reaches the server\'s states at every grid point', () => {
    const l: Launch = { weapon: WeaponId.GRENADE, p: [-10, 1.7, -10], d: [0.6, 0.3, 0.74] };
    const f = flights();
    f.spawn(3, l.weapon, 9, 0, 0, Q, l.p[0]!, l.p[1]!, l.p[2]!, l.d[0]!, l.d[1]!, l.d[2]!, NOBODY, () => {});
    const serverStates = new Map<number, number[]>();
    let snap: Parameters<SyncedProjectiles['update']>[0] extends Iterable<infer S> ? S : never = null as never;
    let t = 0;
    while (f.live[0] === 1 && t < 3000) {
      t += Q;
      f.step(0, t, NOBODY, () => {});
      if (f.live[0] !== 1) break;
      serverStates.set(f.timeMs[0]!, [f.x[0]!, f.y[0]!, f.z[0]!, f.vx[0]!, f.vy[0]!, f.vz[0]!, f.ageMs[0]!]);
      if (snap === null && f.bounces[0]! > 0) {
        snap = { id: 0, shooter: 3, weapon: l.weapon, seq: 9, timeMs: f.timeMs[0]!, ageMs: f.ageMs[0]!, x: f.x[0]!, y: f.y[0]!, z: f.z[0]!, vx: f.vx[0]!, vy: f.vy[0]!, vz: f.vz[0]!, bounces: f.bounces[0]!, mode: f.mode[0]! };
      }
    }
    expect(snap).not.toBeNull();
    const synced = new SyncedProjectiles(world, WEAPONS, TICK_RATE);
    synced.update([snap]);
    const e = synced.entries.get(0)!;
    let compared = 0;
    for (let r = snap.timeMs + 3.3; e.state.alive && r < snap.timeMs + 2000; r += 9.1) {
      synced.advance(r);
      const want = serverStates.get(e.timeMs);
      if (want === undefined) continue;
      compared++;
      expect([e.state.x, e.state.y, e.state.z, e.state.vx, e.state.vy, e.state.vz, e.state.ageMs]).toEqual(want);
      // The drawn point is the state carried on along its arc for less than one sub-step.
      expect(Math.abs(e.x - e.state.x) + Math.abs(e.z - e.state.z)).toBeLessThan(Math.sqrt(e.state.vx ** 2 + e.state.vz ** 2) * (Q / 1000) * 2 + 1e-9);
    }
    expect(compared).toBeGreaterThan(20);
    synced.update([]);
    expect(synced.entries.size).toBe(0);
  });
});
