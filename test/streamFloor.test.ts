/**
 * Claims against their own stream, on HitregMatch with a fake clock and a game of its own (a body
 * that steps one queued input per tick, each input stamped by the client): the stream floor (the
 * newest input stamp, answered ping or action claim that arrived) and where a shot's eye path ends
 * (the newest snapshot whose input stamp is at most the claim plus eyeStampSlackMs). A fast-check
 * property over arbitrary interleavings of stamped inputs (backdated, honest or ahead), ping answers,
 * ticks and shots (claimed anywhere from 400 ms back to 100 ms ahead, started wherever the shooter's
 * inputs, stepped or still queued, take it): no accepted shot claims earlier than a message that
 * arrived before it, less streamSlackMs, and none starts farther than the origin tolerance from the
 * eye path built, by brute force over the game's own snapshots, only from positions stamped up to its
 * claim. Then the input stamps the match refuses, each with its reason, changing nothing.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildTestWorld } from './helpers/server';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { createShotMessage, encodeShot, SHOT_BYTES, ShotAction } from '../shared/protocol/shot';
import { VerdictKind, reasonName } from '../shared/validate/verdict';
import { WeaponId } from '../shared/weapons';
import { EYE_STAMP_SLACK_MS, ORIGIN_TOLERANCE_M, STREAM_SLACK_MS } from '../shared/validate/rules';
import { HitregMatch, type PoseInput } from '../server/match/index';

const world = buildTestWorld();
const rig = MANNEQUIN_RIG;
const DT = 1000 / 64;
const INTERP = 100;

type Op =
  | { t: 'tick' }
  | { t: 'input'; lead: number; dx: number }
  | { t: 'pong' }
  | { t: 'fire'; claimLead: number; eyeLead: number; off: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ t: 'tick' } as const) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('input' as const), lead: fc.integer({ min: -250, max: 150 }), dx: fc.double({ min: -0.4, max: 0.4, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.constant({ t: 'pong' } as const) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('fire' as const), claimLead: fc.integer({ min: -400, max: 100 }), eyeLead: fc.integer({ min: -200, max: 600 }), off: fc.double({ min: 0, max: 1.4, noNaN: true }) }) },
);

/** The game: the shooter's body steps one queued input a tick; its snapshots as the match saw them. */
function run(ops: readonly Op[]): void {
  const clock = { ms: 0 };
  const body = { x: 0, stamp: Number.NaN };
  const queue: { stamp: number; dx: number }[] = [];
  /** Every input the match took (stepped or queued), in order: where the client meant to be when. */
  const taken: { stamp: number; dx: number }[] = [];
  const snaps: { t: number; x: number; stamp: number }[] = [];
  const match = new HitregMatch<string>({
    world, rig, tickRate: 64, maxPlayers: 2, clock: () => clock.ms, weaponRules: false, onProblem: () => {},
    poses: (id: string, out: PoseInput) => {
      if (id === 'a') { out.x = body.x; out.z = 0; out.inputStampMs = body.stamp; } else { out.x = 0; out.z = -20; }
      out.y = 0; out.viewX = 0; out.viewY = 0; out.viewZ = 1;
    },
  });
  match.join('a', { interpDelayMs: INTERP });
  match.join('b');
  match.setRoundTrip('a', 40);
  let floor = Number.NaN;
  const raise = (t: number) => { if (!(floor >= t)) floor = t; };
  const tick = () => {
    clock.ms += DT;
    const q = queue.shift();
    if (q !== undefined) { body.x += q.dx; body.stamp = q.stamp; }
    const t = match.tick();
    snaps.push({ t, x: body.x, stamp: body.stamp });
  };
  const input = (stamp: number, dx: number) => {
    const why = match.stamp('a', stamp);
    if (why === null) {
      expect(stamp >= floor - STREAM_SLACK_MS || !(floor === floor)).toBe(true);
      queue.push({ stamp, dx });
      taken.push({ stamp, dx });
      raise(stamp);
    } else if (why === 'BACKDATED') {
      expect(stamp).toBeLessThan(floor - STREAM_SLACK_MS);
    } else {
      expect(why).toBe('TIME_FUTURE');
    }
    expect(match.streamFloor('a')).toBe(floor);
  };
  // An honest second of play first: one input a tick, stamped at its tick.
  for (let i = 0; i < 64; i++) { input(clock.ms + DT, 0.05); tick(); }
  /** Where the client's inputs stamped up to `tau` take it (stepped or not). */
  const meant = (tau: number) => taken.reduce((x, i) => (i.stamp <= tau ? x + i.dx : x), 0);
  /** The body's x at server time `tau`, interpolated between snapshots as the history does. */
  const xAt = (tau: number) => {
    if (tau <= snaps[0]!.t) return snaps[0]!.x;
    for (let i = 1; i < snaps.length; i++) {
      const a = snaps[i - 1]!, b = snaps[i]!;
      if (tau <= b.t) return a.x + ((b.x - a.x) * (tau - a.t)) / (b.t - a.t);
    }
    return snaps[snaps.length - 1]!.x;
  };
  let seq = 0;
  for (const o of ops) {
    if (o.t === 'tick') tick();
    else if (o.t === 'input') input(clock.ms + o.lead, o.dx);
    else if (o.t === 'pong') {
      const ping = match.ping('a')!;
      expect(match.pong('a', ping.slice())).toBeNull();
      raise(clock.ms);
    } else {
      const at = clock.ms + o.claimLead;
      const sx = meant(at + o.eyeLead);
      const sy = rig.eyeHeight;
      const m = { ...createShotMessage(), seq: ++seq, action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: at, renderTimeMs: at - INTERP, claimedTarget: -1, sx, sy, sz: o.off, ex: sx, ey: sy, ez: o.off + 10 };
      const floorBefore = floor;
      const v = match.shot('a', encodeShot(new Uint8Array(SHOT_BYTES), m)).verdict;
      if (v.kind === VerdictKind.REJECTED) {
        if (floorBefore === floorBefore && at < floorBefore - STREAM_SLACK_MS && reasonName(v.reason) !== 'TIME_TOO_OLD' && reasonName(v.reason) !== 'ACTION_ORDER') expect(reasonName(v.reason)).toBe('BACKDATED');
        continue;
      }
      // Accepted: not before what its stream had said ...
      if (floorBefore === floorBefore) expect(at).toBeGreaterThanOrEqual(floorBefore - STREAM_SLACK_MS);
      // ... and started on the eye path that ends where its moves up to the claim took it.
      const when = v.rewindTimeMs;
      let end = Number.NEGATIVE_INFINITY;
      for (let i = snaps.length - 1; i >= 0; i--) if (snaps[i]!.stamp <= at + EYE_STAMP_SLACK_MS) { end = snaps[i]!.t; break; }
      end = Math.max(when, Math.min(end, snaps[snaps.length - 1]!.t));
      const ax = xAt(when), bx = xAt(end);
      const lo = Math.min(ax, bx), hi = Math.max(ax, bx);
      const dx = sx < lo ? lo - sx : sx > hi ? sx - hi : 0;
      expect(Math.sqrt(dx * dx + o.off * o.off)).toBeLessThanOrEqual(ORIGIN_TOLERANCE_M + 1e-9);
      if (v.fired) raise(at);
    }
  }
}

describe('the stream floor and the eye path end', () => {
  it('property: no accepted shot claims before its stream (less the slack) or starts beyond its claim\'s eye path', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 20, maxLength: 160 }), (ops) => { run(ops); }), { numRuns: 150, seed: 24 });
  });

  it('stamps the match refuses, each with its reason and changing nothing; pongs and actions raise the floor', () => {
    const clock = { ms: 0 };
    const match = new HitregMatch<string>({
      world, rig, tickRate: 64, maxPlayers: 2, clock: () => clock.ms, weaponRules: false,
      poses: (_id: string, out: PoseInput) => { out.x = 0; out.y = 0; out.z = 0; },
    });
    match.join('a');
    match.setRoundTrip('a', 40);
    for (let i = 0; i < 64; i++) { clock.ms += DT; match.tick(); }
    expect(match.streamFloor('a')).toBeNaN();
    expect(match.stamp('a', 990)).toBeNull();
    expect(match.streamFloor('a')).toBe(990);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -Infinity, '1000' as unknown as number, null as unknown as number]) expect(match.stamp('a', bad)).toBe('NON_FINITE');
    // Ahead of the server's clock by more than futureSlackMs (60) and half the round trip told (20).
    expect(match.stamp('a', clock.ms + 81)).toBe('TIME_FUTURE');
    expect(match.stamp('a', 1e300)).toBe('TIME_FUTURE');
    // Earlier than the floor by more than streamSlackMs.
    expect(match.stamp('a', 990 - STREAM_SLACK_MS - 0.001)).toBe('BACKDATED');
    expect(match.stamp('a', -1e300)).toBe('BACKDATED');
    expect(match.stamp('nobody', 990)).toBe('NO_PLAYER');
    expect(match.streamFloor('a')).toBe(990);
    expect(match.streamFloor('nobody')).toBeNaN();
    // Within the slack: taken, and the floor does not go back.
    expect(match.stamp('a', 990 - STREAM_SLACK_MS)).toBeNull();
    expect(match.streamFloor('a')).toBe(990);
    // A ping answered: the floor is its send time.
    clock.ms += 200;
    const ping = match.ping('a')!;
    clock.ms += 30;
    expect(match.pong('a', ping.slice())).toBeNull();
    expect(match.streamFloor('a')).toBe(clock.ms - 30);
    // An action carried out: its claim.
    const at = clock.ms + 10;
    const m = { ...createShotMessage(), seq: 1, action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: at, renderTimeMs: at - INTERP, claimedTarget: -1, sx: 0, sy: rig.eyeHeight, sz: 0, ex: 0, ey: rig.eyeHeight, ez: 10 };
    const v = match.shot('a', encodeShot(new Uint8Array(SHOT_BYTES), m)).verdict;
    expect(reasonName(v.reason)).toBe('OK_MISS');
    expect(match.streamFloor('a')).toBe(at);
    // A shot held back and judged later keeps the floor it arrived under (ShotOptions.streamFloorMs):
    // an input that arrived after it does not count against it.
    clock.ms += 300;
    expect(match.stamp('a', clock.ms)).toBeNull();
    const frame = (seq: number, t: number) => encodeShot(new Uint8Array(SHOT_BYTES), { ...m, seq, timeMs: t, renderTimeMs: t - INTERP });
    expect(reasonName(match.shot('a', frame(2, at + 5), { streamFloorMs: at }).verdict.reason)).toBe('OK_MISS');
    expect(reasonName(match.shot('a', frame(3, clock.ms - STREAM_SLACK_MS)).verdict.reason)).toBe('OK_MISS');
    const order = match.shot('a', frame(4, clock.ms - STREAM_SLACK_MS - 1)).verdict;
    expect(reasonName(order.reason)).toBe('ACTION_ORDER'); // before its own last action: that rule first
    clock.ms += 300;
    expect(match.stamp('a', clock.ms)).toBeNull();
    const back2 = match.shot('a', frame(5, clock.ms - STREAM_SLACK_MS - 1)).verdict;
    expect(reasonName(back2.reason)).toBe('BACKDATED');
    expect(match.streamFloor('a')).toBe(clock.ms);
    expect(back2.fired).toBe(false);
  });
});
