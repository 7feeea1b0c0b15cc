/**
 * The fire clock and the weapon rules, through validateShot with the shooter's state threaded from
 * each verdict to the next message, as the room does:
 * - property (fast-check): whatever a client sends (any action, weapon, claimed time, arrival
 *   order), accepted shots of one weapon are at least its interval apart in claimed time, so any
 *   W ms of claimed time holds at most floor(W / interval) + 1 of them, and any W ms of arrival at
 *   most floor((W + maxFireLagMs + futureSlackMs + maxRttMs / 2) / interval) + 1; with several weapons each shot
 *   is at least the previous shot's weapon interval after it;
 * - an honest full-rate rifle whose messages are held back by TCP stalls (200 ms and 600 ms) and
 *   arrive bunched gets every shot accepted;
 * - switch, draw and reload: each refusal has its reason, and cycling weapons to skip reloads costs
 *   the draw times.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildTestWorld } from './helpers/server';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../shared/rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../shared/lagcomp/history';
import { Rewinder } from '../shared/lagcomp/rewind';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { createShotMessage, encodeShot, ShotAction, SHOT_BYTES } from '../shared/protocol/shot';
import { defaultValidationConfig, validateShot, type ShotScene, type ValidationConfig } from '../shared/validate/shot';
import { copyShooterState, createShooterState, createVerdict, reasonName, VerdictKind, type ShooterState } from '../shared/validate/verdict';

const rig = MANNEQUIN_RIG;
const world = buildTestWorld();
const DT = 1000 / 64;
const SPAN_MS = 8000;
const zoneTable = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
const policy = createRewindPolicy(1050, OutOfWindow.CLAMP);
const magazines = WEAPONS.map((w) => w.magazine);

/** The shooter stands at the origin for SPAN_MS; nobody else is there. */
function scene(): ShotScene {
  const h = new PlayerHistory(Math.ceil(SPAN_MS / DT) + 4);
  const pose = createPlayerPose();
  for (let k = 0; k * DT <= SPAN_MS; k++) {
    pose.x = 0; pose.y = 0; pose.z = 0; pose.qx = 0; pose.qy = 0; pose.qz = 0; pose.qw = 1;
    pose.clip = Clip.IDLE; pose.time = 0; pose.alive = true; pose.epoch = 1;
    h.record(k, k * DT, pose);
  }
  return { world, rewinder: new Rewinder(rig, { policy }), histories: [h], eyePolicy: policy };
}
const SCENE = scene();

interface Sent { action: number; weapon: number; timeMs: number; receiveMs: number; seq: number }
interface Judged extends Sent { kind: number; reason: string; fired: boolean }

/** Runs messages through the pipeline in arrival order, threading the shooter state. */
function play(config: ValidationConfig, msgs: readonly Sent[], start: ShooterState = createShooterState(0, magazines, config.loadout)): Judged[] {
  const state = copyShooterState(createShooterState(0, []), start);
  const v = createVerdict();
  const buf = new Uint8Array(SHOT_BYTES);
  const eye = rig.eyeHeight;
  const out: Judged[] = [];
  for (const m of msgs) {
    // A shot at the floor 10 m ahead: always a valid miss when the rules allow it.
    const shot = {
      ...createShotMessage(), action: m.action, weapon: m.weapon, seq: m.seq, timeMs: m.timeMs,
      renderTimeMs: m.timeMs - 100, sx: 0, sy: eye, sz: 0, ex: 0, ey: -1, ez: 10,
    };
    validateShot(v, SCENE, config, encodeShot(buf, shot), state, { receiveTimeMs: m.receiveMs, rttMs: 100, interpDelayMs: 100, newestTickMs: Math.min(m.receiveMs, SPAN_MS) }, { alive: [true], lifeStartMs: [0] });
    copyShooterState(state, v.after);
    out.push({ ...m, kind: v.kind, reason: reasonName(v.reason), fired: v.fired });
  }
  return out;
}

/** Most accepted shots inside any window of W ms over the given times (sorted). */
function maxInWindow(times: number[], w: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! > w) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

const msgArb = fc.record({
  action: fc.constantFrom(ShotAction.FIRE, ShotAction.FIRE, ShotAction.FIRE, ShotAction.SWITCH, ShotAction.RELOAD),
  weapon: fc.constantFrom(WeaponId.RIFLE, WeaponId.PISTOL, WeaponId.SNIPER),
  // Arrival gaps from 0 (bunched) to 300 ms; claims anywhere from 1.2 s before arrival to 50 ms after.
  gap: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 40 })),
  claimOffset: fc.oneof(fc.integer({ min: -1200, max: 50 }), fc.integer({ min: -120, max: 40 })),
  seqStep: fc.integer({ min: 0, max: 2 }),
});

function toMessages(raw: { action: number; weapon: number; gap: number; claimOffset: number; seqStep: number }[]): Sent[] {
  let receive = 1000;
  let seq = 0;
  return raw.map((r) => {
    receive += r.gap;
    seq += r.seqStep;
    return { action: r.action, weapon: r.weapon, timeMs: receive + r.claimOffset, receiveMs: receive, seq };
  });
}

describe('fire clock: no client fires faster than its weapon', () => {
  it('one weapon: at most floor(W / interval) + 1 accepted shots in any W ms of claimed time, and the arrival bound', () => {
    const config = { ...defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1, [WeaponId.RIFLE]) };
    const interval = WEAPONS[WeaponId.RIFLE]!.fireIntervalMs;
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(msgArb, { minLength: 1, maxLength: 60 }), (raw) => {
        const judged = play(config, toMessages(raw.map((r) => ({ ...r, weapon: WeaponId.RIFLE }))));
        const shots = judged.filter((j) => j.action === ShotAction.FIRE && j.fired);
        const claimed = shots.map((s) => s.timeMs);
        accepted += shots.length;
        for (let i = 1; i < claimed.length; i++) expect(claimed[i]! - claimed[i - 1]!).toBeGreaterThanOrEqual(interval);
        for (const w of [0, 50, 99, 100, 250, 1000]) {
          expect(maxInWindow(claimed, w)).toBeLessThanOrEqual(Math.floor(w / interval) + 1);
          expect(maxInWindow(shots.map((s) => s.receiveMs), w)).toBeLessThanOrEqual(Math.floor((w + config.maxFireLagMs + config.futureSlackMs + config.maxRttMs / 2) / interval) + 1);
        }
      }),
      { seed: 0xf17e, numRuns: 300 },
    );
    // The generator gets shots accepted, not only refusals.
    expect(accepted).toBeGreaterThan(300);
  });

  it('the most a client can bank: after idling, claims spaced exactly one interval back to the lag bound', () => {
    const config = defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1);
    const interval = WEAPONS[WeaponId.RIFLE]!.fireIntervalMs;
    const receive = 5000;
    // Claimed from receive - maxFireLagMs up to receive + futureSlackMs + rtt/2 (the play() round
    // trip is 100 ms), one interval apart, all arriving at once.
    const msgs: Sent[] = [];
    for (let t = receive - config.maxFireLagMs, seq = 1; t <= receive + config.futureSlackMs + 50; t += interval, seq++) {
      msgs.push({ action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: t, receiveMs: receive, seq });
    }
    const j = play(config, msgs);
    const accepted = j.filter((x) => x.fired).length;
    expect(accepted).toBe(Math.floor((config.maxFireLagMs + config.futureSlackMs + 50) / interval) + 1);
    // One more, an interval before the first: too old.
    expect(play(config, [{ action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: receive - config.maxFireLagMs - 1, receiveMs: receive, seq: 1 }])[0]!.reason).toBe('TIME_TOO_OLD');
  });

  it('any loadout, any switching: each accepted shot is at least the previous shot\'s weapon interval later', () => {
    const config = defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1);
    fc.assert(
      fc.property(fc.array(msgArb, { minLength: 1, maxLength: 80 }), (raw) => {
        const judged = play(config, toMessages(raw));
        let prev: Judged | null = null;
        for (const j of judged) {
          if (j.action !== ShotAction.FIRE || !j.fired) continue;
          if (prev !== null) expect(j.timeMs - prev.timeMs).toBeGreaterThanOrEqual(WEAPONS[prev.weapon]!.fireIntervalMs);
          prev = j;
        }
      }),
      { seed: 0xc10c, numRuns: 300 },
    );
  });

  it('two shots 60 ms apart after idling: the second is refused (no allowance counted twice)', () => {
    const config = defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1);
    const j = play(config, [
      { action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: 3000, receiveMs: 3050, seq: 1 },
      { action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: 3060, receiveMs: 3110, seq: 2 },
      { action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: 3100, receiveMs: 3150, seq: 3 },
    ]);
    expect(j.map((x) => x.reason)).toEqual(['OK_MISS', 'FIRE_RATE', 'OK_MISS']);
  });
});

describe('fire clock: honest bunching is accepted', () => {
  it('a full-rate rifle through a 200 ms and a 600 ms TCP stall: every shot accepted, then the magazine reloads', () => {
    const config = defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1);
    const oneWay = 50;
    // Fired every 100 ms on the client's clock from t = 1000; messages sent during a stall arrive
    // together when it ends (head-of-line blocking): the one lost, then everything behind it.
    const stalls = [[1450, 200], [2300, 600]] as const;
    const msgs: Sent[] = [];
    for (let k = 0; k < 30; k++) {
      const t = 1000 + k * 100;
      let arrive = t + oneWay;
      for (const [at, len] of stalls) if (t >= at && t < at + len) arrive = at + len + oneWay;
      msgs.push({ action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: t, receiveMs: arrive, seq: k + 1 });
    }
    const j = play(config, msgs);
    expect(j.filter((x) => x.reason !== 'OK_MISS')).toEqual([]);
    // Bunched: some arrived in the same millisecond.
    expect(new Set(msgs.map((m) => m.receiveMs)).size).toBeLessThan(msgs.length);
    // The 31st round: the magazine is empty and reloading until 2 s after the 30th shot.
    const after = play(config, [...msgs, { action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: 4000, receiveMs: 4050, seq: 31 }]).at(-1)!;
    expect(after.reason).toBe('RELOADING');
  });
});

describe('weapon rules: switch, draw, reload', () => {
  const config = defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1);
  const msg = (action: number, weapon: number, timeMs: number, seq: number): Sent => ({ action, weapon, timeMs, receiveMs: timeMs + 40, seq });

  it('shots only from the equipped, drawn weapon; switching costs the draw time', () => {
    const pistol = WEAPONS[WeaponId.PISTOL]!;
    const j = play(config, [
      msg(ShotAction.FIRE, WeaponId.PISTOL, 1000, 1), // rifle in hand
      msg(ShotAction.SWITCH, WeaponId.RIFLE, 1010, 2), // already
      msg(ShotAction.SWITCH, WeaponId.PISTOL, 1020, 3),
      msg(ShotAction.FIRE, WeaponId.RIFLE, 1030 + pistol.drawMs, 4), // holstered
      msg(ShotAction.FIRE, WeaponId.PISTOL, 1020 + pistol.drawMs - 1, 5), // still drawing
      msg(ShotAction.FIRE, WeaponId.PISTOL, 1020 + pistol.drawMs, 6),
      msg(ShotAction.SWITCH, WeaponId.SNIPER, 1020 + pistol.drawMs - 10, 7), // before the previous action
    ]);
    expect(j.map((x) => x.reason)).toEqual(['NOT_EQUIPPED', 'ALREADY_EQUIPPED', 'OK_SWITCH', 'NOT_EQUIPPED', 'WEAPON_DRAWING', 'OK_MISS', 'ACTION_ORDER']);
    expect(j[2]!.kind).toBe(VerdictKind.ACTION);
  });

  it('a weapon outside the loadout can be neither drawn nor fired', () => {
    const c = defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, 1, [WeaponId.RIFLE, WeaponId.PISTOL]);
    const j = play(c, [msg(ShotAction.SWITCH, WeaponId.SNIPER, 1000, 1), msg(ShotAction.FIRE, WeaponId.SNIPER, 1100, 2)]);
    expect(j.map((x) => x.reason)).toEqual(['NOT_CARRIED', 'NOT_CARRIED']);
  });

  it('reload: a timed state, asked for or started by the last round; a switch cancels it', () => {
    const rifle = WEAPONS[WeaponId.RIFLE]!;
    const seq = { n: 0 };
    const m = (action: number, weapon: number, t: number) => msg(action, weapon, t, ++seq.n);
    const j = play(config, [
      m(ShotAction.RELOAD, WeaponId.RIFLE, 1000), // full
      m(ShotAction.FIRE, WeaponId.RIFLE, 1000),
      m(ShotAction.RELOAD, WeaponId.RIFLE, 1100),
      m(ShotAction.RELOAD, WeaponId.RIFLE, 1200), // already reloading
      m(ShotAction.FIRE, WeaponId.RIFLE, 1100 + rifle.reloadMs - 1),
      m(ShotAction.FIRE, WeaponId.RIFLE, 1100 + rifle.reloadMs),
      m(ShotAction.RELOAD, WeaponId.RIFLE, 3200),
      m(ShotAction.SWITCH, WeaponId.PISTOL, 3300), // cancels the rifle's reload
      m(ShotAction.SWITCH, WeaponId.RIFLE, 3400),
      m(ShotAction.FIRE, WeaponId.RIFLE, 3400 + rifle.drawMs), // one round fewer, not reloaded
    ]);
    expect(j.map((x) => x.reason)).toEqual(['MAGAZINE_FULL', 'OK_MISS', 'OK_RELOAD', 'RELOADING', 'RELOADING', 'OK_MISS', 'OK_RELOAD', 'OK_SWITCH', 'OK_SWITCH', 'OK_MISS']);
  });

  it('cycling weapons as magazines empty fires no more rounds in 6 s than the draw and reload times allow', () => {
    // A client that empties each weapon and switches at once, versus the rifle alone with reloads.
    const cycle = (order: number[]): number => {
      const msgs: Sent[] = [];
      let t = 1000, seq = 0, w = 0;
      const ammo = WEAPONS.map((x) => x.magazine);
      msgs.push({ action: ShotAction.FIRE, weapon: order[0]!, timeMs: t, receiveMs: t + 40, seq: ++seq });
      while (t < 7000) {
        const weapon = WEAPONS[order[w]!]!;
        if (ammo[weapon.id]! <= 1) {
          w = (w + 1) % order.length;
          t += 1;
          msgs.push({ action: ShotAction.SWITCH, weapon: order[w]!, timeMs: t, receiveMs: t + 40, seq: ++seq });
          t += WEAPONS[order[w]!]!.drawMs;
          continue;
        }
        ammo[weapon.id]!--;
        t += weapon.fireIntervalMs;
        msgs.push({ action: ShotAction.FIRE, weapon: weapon.id, timeMs: t, receiveMs: t + 40, seq: ++seq });
      }
      return play(config, msgs).filter((x) => x.action === ShotAction.FIRE && x.fired && x.timeMs < 7000).length;
    };
    const rifleOnly = play(config, Array.from({ length: 120 }, (_, k) => ({ action: ShotAction.FIRE, weapon: WeaponId.RIFLE, timeMs: 1000 + k * 50, receiveMs: 1040 + k * 50, seq: k + 1 })))
      .filter((x) => x.fired && x.timeMs < 7000).length;
    const cycled = cycle([WeaponId.RIFLE, WeaponId.PISTOL, WeaponId.SNIPER]);
    // Rifle alone: 30 rounds from 1000 to 3900 ms, reloading until 5900, then 11 more up to 6900.
    // Cycling: 30 + 12 + 5 rounds less the draw times; never more than a rifle that never reloads
    // could fire (60 in 6 s).
    expect(rifleOnly).toBe(30 + 11);
    expect(cycled).toBeLessThanOrEqual(60);
    expect(cycled).toBeLessThan(30 + 12 + 5 + 1);
  });
});
