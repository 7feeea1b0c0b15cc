/**
 * Shots raced by a death (validateShot with honourShotsInFlight): a dead shooter's message stated
 * before the news of its death could reach it (the kill plus half the round trip plus
 * tradeSlackMs) is judged, one stated after is SHOOTER_DEAD, and so is one that arrives later after
 * its action than a clock error plus a one-way trip allow; a target killed after the shot was
 * fired, or within that trade window before it, is hit where the shooter saw it, one dead before is
 * not. Each case is also judged with the rules off (honourShotsInFlight; tradeSlackMs is off by
 * default), which gives the verdicts logs written before them replay with.
 */
import { describe, expect, it } from 'vitest';
import { buildTestWorld, zoneCenter } from './helpers/server';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, HitZone } from '../shared/rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../shared/lagcomp/history';
import { Rewinder } from '../shared/lagcomp/rewind';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { createShotMessage, encodeShot, SHOT_BYTES } from '../shared/protocol/shot';
import { defaultValidationConfig, validateShot, type ShotScene, type ShotTiming, type ShotTargets } from '../shared/validate/shot';
import { TRADE_SLACK_MS } from '../shared/validate/rules';
import { createShooterState, createVerdict, reasonName } from '../shared/validate/verdict';

const rig = MANNEQUIN_RIG;
const DT = 1000 / 64;
const NOW = 1000;
const RTT = 50;
const INTERP = 100;
/** Slot 1 is killed at this tick's time and lies dead from the next tick on. */
const TARGET_DIES_AT = 56 * DT;
const on = defaultValidationConfig(WEAPONS, Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!), rig.eyeHeight, 2);
const off = { ...on, honourShotsInFlight: false };
const trade = { ...on, tradeSlackMs: TRADE_SLACK_MS };
/** The trade window at the tests' round trip: half of it plus the slack. */
const GRACE = RTT / 2 + TRADE_SLACK_MS;
const policy = createRewindPolicy(250, OutOfWindow.CLAMP);

/** Slot 0 stands at the origin facing +z; slot 1 stands 8 m ahead facing it. Both alive throughout unless told. */
function histories(targetDies: boolean): PlayerHistory[] {
  const hs = [new PlayerHistory(128), new PlayerHistory(128)];
  const pose = createPlayerPose();
  for (let k = 0; k <= 64; k++) {
    const t = k * DT;
    for (const slot of [0, 1]) {
      pose.x = 0; pose.y = 0; pose.z = slot === 0 ? 0 : 8;
      pose.qx = 0; pose.qy = slot === 0 ? 0 : 1; pose.qz = 0; pose.qw = slot === 0 ? 1 : 0;
      pose.clip = Clip.IDLE; pose.time = t / 1000; pose.epoch = 1;
      pose.alive = !(slot === 1 && targetDies && t > TARGET_DIES_AT);
      hs[slot]!.record(k, t, pose);
    }
  }
  return hs;
}

function scene(targetDies: boolean): ShotScene {
  return { world: buildTestWorld(), rewinder: new Rewinder(rig, { policy }), histories: histories(targetDies), eyePolicy: policy };
}

/** A shot from slot 0's eye through slot 1's chest, fired at `at` and rendered INTERP earlier. */
function shot(sc: ShotScene, at: number): Uint8Array {
  const p = createPlayerPose();
  sc.histories[0]!.sampleAt(p, at, policy);
  const sx = p.x, sy = p.y + rig.eyeHeight, sz = p.z;
  sc.histories[1]!.sampleAt(p, at - INTERP, policy);
  const [cx, cy, cz] = zoneCenter(sc.rewinder, rig, p, HitZone.UPPER_TORSO);
  const dx = cx - sx, dy = cy - sy, dz = cz - sz;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  return encodeShot(new Uint8Array(SHOT_BYTES), {
    ...createShotMessage(), seq: 1, weapon: WeaponId.RIFLE, claimedTarget: 1, timeMs: at, renderTimeMs: at - INTERP,
    sx, sy, sz, ex: sx + (dx / l) * 30, ey: sy + (dy / l) * 30, ez: sz + (dz / l) * 30,
  });
}

const timing = (extra: Partial<ShotTiming> = {}): ShotTiming => ({ receiveTimeMs: NOW, rttMs: RTT, interpDelayMs: INTERP, newestTickMs: NOW, ...extra });
const bothAlive: ShotTargets = { alive: [true, true], lifeStartMs: [0, 0] };

describe('shots raced by a death', () => {
  const sc = scene(false);
  const dead = { ...createShooterState(0, WEAPONS.map((w) => w.magazine)), alive: false };
  const judge = (cfg: typeof on, at: number, t: ShotTiming) => reasonName(validateShot(createVerdict(), sc, cfg, shot(sc, at), dead, t, bothAlive).reason);

  it('a dead shooter\'s shot fired before its death is judged; one fired after it is SHOOTER_DEAD', () => {
    const at = NOW - RTT / 2;
    expect(judge(on, at, timing({ shooterDiedMs: at }))).toBe('OK_HIT');
    expect(judge(on, at, timing({ shooterDiedMs: at + 10 }))).toBe('OK_HIT');
    expect(judge(on, at, timing({ shooterDiedMs: at - 1e-6 }))).toBe('SHOOTER_DEAD');
    // The death time unknown (a room that did not say, or a slot never alive): refused.
    expect(judge(on, at, timing())).toBe('SHOOTER_DEAD');
    expect(judge(on, at, timing({ shooterDiedMs: Number.NaN }))).toBe('SHOOTER_DEAD');
    expect(judge(off, at, timing({ shooterDiedMs: at + 10 }))).toBe('SHOOTER_DEAD');
  });

  it('with trades on (tradeSlackMs), one fired before the news of its death could reach it is judged, one fired later is SHOOTER_DEAD', () => {
    expect(on.tradeSlackMs).toBeUndefined(); // off by default
    const at = NOW - RTT / 2;
    expect(judge(trade, at, timing({ shooterDiedMs: at + 10 }))).toBe('OK_HIT');
    expect(judge(trade, at, timing({ shooterDiedMs: at - 1e-6 }))).toBe('OK_HIT');
    expect(judge(trade, at, timing({ shooterDiedMs: at - GRACE }))).toBe('OK_HIT');
    expect(judge(trade, at, timing({ shooterDiedMs: at - GRACE - 1e-6 }))).toBe('SHOOTER_DEAD');
    // The window grows with the shooter's round trip, capped like the future bound's.
    expect(judge(trade, at, timing({ rttMs: 2 * RTT, shooterDiedMs: at - GRACE - 1 }))).toBe('OK_HIT');
    const cappedGrace = on.maxRttMs / 2 + TRADE_SLACK_MS;
    expect(judge(trade, at, timing({ rttMs: 5000, shooterDiedMs: at - cappedGrace }))).toBe('OK_HIT');
    expect(judge(trade, at, timing({ rttMs: 5000, shooterDiedMs: at - cappedGrace - 1e-3 }))).toBe('SHOOTER_DEAD');
    // The arrival bound still holds, and without honourShotsInFlight the slack grants nothing.
    expect(judge(trade, NOW - on.futureSlackMs - RTT - 1e-3, timing({ shooterDiedMs: NOW - on.futureSlackMs - RTT - 10 }))).toBe('SHOOTER_DEAD');
    expect(judge({ ...off, tradeSlackMs: TRADE_SLACK_MS }, at, timing({ shooterDiedMs: at + 10 }))).toBe('SHOOTER_DEAD');
  });

  it('backdating buys at most the clock error plus a round trip: a later arrival is SHOOTER_DEAD', () => {
    const bound = on.futureSlackMs + RTT;
    const at = NOW - bound;
    expect(judge(on, at, timing({ shooterDiedMs: at + 1 }))).toBe('OK_HIT');
    expect(judge(on, at - 1e-6, timing({ shooterDiedMs: at + 1 }))).toBe('SHOOTER_DEAD');
    // The round trip counted is capped like the future bound's: a client holding its pongs gains nothing.
    const capped = NOW - on.futureSlackMs - on.maxRttMs;
    expect(judge(on, capped, timing({ rttMs: 5000, shooterDiedMs: capped + 1 }))).toBe('OK_HIT');
    expect(judge(on, capped - 1e-6, timing({ rttMs: 5000, shooterDiedMs: capped + 1 }))).toBe('SHOOTER_DEAD');
  });

  it('the other rules still hold for a dead shooter\'s shot (a replayed seq, a future time)', () => {
    const at = NOW - RTT / 2;
    const v = validateShot(createVerdict(), sc, on, shot(sc, at), { ...dead, lastSeq: 1 }, timing({ shooterDiedMs: at + 10 }), bothAlive);
    expect(reasonName(v.reason)).toBe('SEQ_REPLAYED');
    expect(judge(on, NOW + on.futureSlackMs + RTT / 2 + 1, timing({ shooterDiedMs: NOW + 500 }))).toBe('TIME_FUTURE');
  });
});

describe('a target killed while the shot was in flight', () => {
  const sc = scene(true);
  const shooter = createShooterState(0, WEAPONS.map((w) => w.magazine));
  const deadNow: ShotTargets = { alive: [true, false], lifeStartMs: [0, 0] };
  const judge = (cfg: typeof on, at: number) => {
    const v = validateShot(createVerdict(), sc, cfg, shot(sc, at), shooter, timing(), deadNow);
    return { reason: reasonName(v.reason), target: v.target, rewound: v.rewindTimeMs };
  };

  it('is hit where the shooter saw it alive when the kill came after the shot was fired', () => {
    const fired = TARGET_DIES_AT - DT; // a tick before the kill, rendering INTERP earlier
    const hit = judge(on, fired);
    expect(hit.reason).toBe('OK_HIT');
    expect(hit.target).toBe(1);
    expect(hit.rewound).toBeLessThan(TARGET_DIES_AT);
    expect(judge(off, fired).reason).toBe('OK_MISS');
  });

  it('with trades on, is hit when it was killed within the trade window before the shot was fired (the news was still on its way)', () => {
    const fired = TARGET_DIES_AT + 2 * DT; // two ticks after the kill, rendering the target alive
    expect(2 * DT).toBeLessThan(GRACE);
    const v = judge(trade, fired);
    expect(v.rewound).toBeLessThan(TARGET_DIES_AT);
    expect(v.reason).toBe('OK_HIT');
    // Trades off (the default): dead before the shot was fired, so not hit.
    expect(judge(on, fired).reason).toBe('OK_MISS');
  });

  it('is not hit when it was dead longer than the trade window before the shot was fired, though alive at the rewound time', () => {
    const fired = TARGET_DIES_AT + GRACE + DT; // past the window, rendering the target alive
    const v = judge(trade, fired);
    expect(v.rewound).toBeLessThan(TARGET_DIES_AT);
    expect(v.reason).toBe('OK_MISS');
  });

  it('is not hit when the rewound time is after its death', () => {
    expect(judge(on, TARGET_DIES_AT + 2 * DT + INTERP).reason).toBe('OK_MISS');
  });

  it('a target whose current life began after the rewound time is not hit either way', () => {
    const at = TARGET_DIES_AT - DT;
    const v = validateShot(createVerdict(), sc, on, shot(sc, at), shooter, timing(), { alive: [true, false], lifeStartMs: [0, at - INTERP + 1] });
    expect(reasonName(v.reason)).toBe('OK_MISS');
  });
});
