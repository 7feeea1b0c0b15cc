/**
 * A predicting client's mirrored rules state (shared/client/weaponState.ts) against the server's own chain:
 * seeded random streams of fire, switch and reload messages at random claimed times are applied to
 * a "server" ShooterState with the shared weapon rules, while the mirror predicts each (head),
 * receives the verdicts later and in order (confirmed), including verdicts where the server did not
 * carry out what the prediction did (a shot the server refused on geometry) and messages the link
 * lost. Whenever nothing is in flight, head and confirmed equal the server's state field by field.
 * Twice: with a model of the rules, and with validateShot itself on both sides (the bot's scene and
 * the server's differing where the bot's own-movement prediction was off).
 */
import { describe, expect, it } from 'vitest';
import { WeaponState, verdictFired } from '../shared/client/weaponState';
import { Rng } from '../client-sim/rng';
import { WEAPONS } from '../shared/weapons';
import { ShotAction } from '../shared/protocol/shot';
import { defaultValidationConfig } from '../shared/validate/shot';
import { copyShooterState, createShooterState, VerdictKind, VerdictReason, type ShooterState } from '../shared/validate/verdict';
import { applyFire, applyReload, applySwitch, checkFire, RULES_OK } from '../shared/validate/weaponRules';
import type { VerdictReply } from '../shared/protocol/messages';
import { createShotMessage, encodeShot, SHOT_BYTES } from '../shared/protocol/shot';
import { validateShot, type ShotScene, type ShotTiming } from '../shared/validate/shot';
import { createVerdict } from '../shared/validate/verdict';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../shared/lagcomp/history';
import { Rewinder } from '../shared/lagcomp/rewind';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { buildTestWorld } from './helpers/server';

const config = defaultValidationConfig(WEAPONS, [1, 1, 1, 1, 1, 1, 1, 1], MANNEQUIN_RIG.eyeHeight, 4);

function plain(s: ShooterState): unknown {
  return { lastActionMs: s.lastActionMs, nextFireMs: s.nextFireMs, equipped: s.equipped, drawEndMs: s.drawEndMs, ammo: s.ammo.slice(), reloadEndMs: s.reloadEndMs.slice() };
}

const probe = createShooterState(0, WEAPONS.map((w) => w.magazine), config.loadout);

/**
 * The server's step for one message, as validateShot takes it: the rules on a copy, kept when they
 * pass and the geometry does not refuse the shot (a refused message leaves the state as it was).
 */
function serverStep(st: ShooterState, action: number, weapon: number, t: number, geometryOk: boolean): boolean {
  const w = WEAPONS[weapon]!;
  const s = copyShooterState(probe, st);
  let ok: boolean;
  if (action === ShotAction.FIRE) {
    ok = checkFire(s, w, t) === RULES_OK && geometryOk;
    if (ok) applyFire(s, w, t);
  } else if (action === ShotAction.SWITCH) ok = applySwitch(s, WEAPONS, w, t) === RULES_OK;
  else ok = applyReload(s, w, t) === RULES_OK;
  if (ok) copyShooterState(st, s);
  return ok;
}

function reply(seq: number, fired: boolean, action: number): VerdictReply {
  const kind = fired ? (action === ShotAction.FIRE ? VerdictKind.MISS : VerdictKind.ACTION) : VerdictKind.REJECTED;
  return { seq, kind, reason: fired ? VerdictReason.OK_MISS : VerdictReason.ORIGIN_MISMATCH, reasonName: '', target: -1, zone: -1, t: -1, damage: 0, rewindTimeMs: 0, timeSource: 0, originOffsetM: 0 };
}

describe('mirrored weapon state', () => {
  it('reads whether the server carried a message out from its verdict', () => {
    expect(verdictFired({ kind: VerdictKind.HIT, reason: VerdictReason.OK_HIT })).toBe(true);
    expect(verdictFired({ kind: VerdictKind.ACTION, reason: VerdictReason.OK_RELOAD })).toBe(true);
    expect(verdictFired({ kind: VerdictKind.REJECTED, reason: VerdictReason.OCCLUDED })).toBe(true);
    expect(verdictFired({ kind: VerdictKind.REJECTED, reason: VerdictReason.NOT_VISIBLE })).toBe(true);
    expect(verdictFired({ kind: VerdictKind.REJECTED, reason: VerdictReason.FIRE_RATE })).toBe(false);
  });

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`equals the server's chain: a rules model (seed ${seed})`, () => run(seed, false));
    it(`equals the server's chain: validateShot on both sides (seed ${seed})`, () => run(seed, true));
  }
});

/**
 * One seeded stream. With `pipeline`, both sides run validateShot: the bot against its own scene
 * (its shooter always where it thinks it is), the server against one where, now and then, the
 * shooter stood 3 m away (the bot's movement prediction was wrong: ORIGIN_MISMATCH, not fired).
 * Without, the rules model above stands in for both.
 */
function run(seed: number, pipeline: boolean): void {
  const rng = new Rng(seed);
  const mags = WEAPONS.map((w) => w.magazine);
  const server = createShooterState(0, mags, config.loadout);
  const mirror = new WeaponState(config);
  mirror.slot = 0;
  const after = createShooterState(0, mags, config.loadout);
  const inFlight: { seq: number; action: number; weapon: number; t: number; lost: boolean; geometryOk: boolean; bytes: Uint8Array }[] = [];
  const botScene = pipeline ? scene() : null;
  const serverScene = pipeline ? scene() : null;
  let t = 1000, seq = 0, quiet = 0, disagreements = 0, tick = 0;
  for (let step = 0; step < 600; step++) {
    t += rng.next() < 0.6 ? WEAPONS[mirror.head.equipped]!.fireIntervalMs * rng.uniform(0.9, 1.2) : rng.uniform(0, 900);
    const r = rng.next();
    const action = r < 0.8 ? ShotAction.FIRE : r < 0.92 ? ShotAction.SWITCH : ShotAction.RELOAD;
    const weapon = action === ShotAction.SWITCH ? rng.int(0, WEAPONS.length) : mirror.head.equipped;
    const geometryOk = rng.next() > 0.05; // now and then the server refuses a shot the prediction fired
    const m = createShotMessage();
    m.action = action; m.weapon = weapon; m.seq = ++seq; m.timeMs = t; m.renderTimeMs = t - 100; m.claimedTarget = action === ShotAction.FIRE ? -1 : 0;
    if (action === ShotAction.FIRE) {
      m.sx = 0; m.sy = EYE; m.sz = 0; m.ex = 0; m.ey = EYE; m.ez = 5;
    }
    const bytes = encodeShot(new Uint8Array(SHOT_BYTES), m);
    let fired: boolean;
    if (botScene !== null) {
      tick++;
      botScene.record(tick, t, 0);
      serverScene!.record(tick, t, geometryOk ? 0 : 3);
      const v = validateShot(verdict, botScene, config, bytes, mirror.head, timing(t), targets);
      fired = v.fired;
      copyShooterState(after, v.after);
    } else {
      copyShooterState(after, mirror.head);
      fired = serverStep(after, action, weapon, t, true);
      after.lastSeq = seq;
    }
    mirror.sent(seq, action, weapon, t, fired, after);
    inFlight.push({ seq, action, weapon, t, lost: rng.next() < 0.03, geometryOk, bytes });
    // Verdicts come back a few messages later, in order.
    const drainAll = rng.next() < 0.2;
    while (inFlight.length > 0 && (drainAll || inFlight.length > 4)) {
      const f = inFlight.shift()!;
      if (f.lost) {
        mirror.settle(f.seq, null);
        continue;
      }
      let did: boolean;
      if (serverScene !== null) {
        const v = validateShot(verdict, serverScene, config, f.bytes, server, timing(f.t), targets);
        did = v.fired;
        copyShooterState(server, v.after);
        mirror.settle(f.seq, { ...reply(f.seq, did, f.action), kind: v.kind, reason: v.reason });
      } else {
        did = serverStep(server, f.action, f.weapon, f.t, f.geometryOk);
        server.lastSeq = f.seq;
        mirror.settle(f.seq, reply(f.seq, did, f.action));
      }
      if (!did && f.action === ShotAction.FIRE && !f.geometryOk) disagreements++;
    }
    if (inFlight.length === 0) {
      quiet++;
      expect(plain(mirror.confirmed)).toEqual(plain(server));
      expect(plain(mirror.head)).toEqual(plain(server));
    }
  }
  expect(quiet).toBeGreaterThan(20);
  expect(disagreements).toBeGreaterThan(0);
}

const EYE = MANNEQUIN_RIG.eyeHeight;
const world = buildTestWorld();
const verdict = createVerdict();
const targets = { alive: [false, false, false, false], lifeStartMs: [0, 0, 0, 0] };
const timingScratch: ShotTiming = { receiveTimeMs: 0, rttMs: 50, interpDelayMs: 100, newestTickMs: 0 };
function timing(t: number): ShotTiming {
  timingScratch.receiveTimeMs = t + 25;
  timingScratch.newestTickMs = t;
  return timingScratch;
}

/** A scene with one shooter (slot 0) whose recorded x the caller sets per snapshot. */
function scene(): ShotScene & { record(tick: number, t: number, x: number): void } {
  const policy = createRewindPolicy(1050, OutOfWindow.CLAMP);
  const histories = [0, 1, 2, 3].map(() => new PlayerHistory(64));
  const pose = createPlayerPose();
  return {
    world, rewinder: new Rewinder(MANNEQUIN_RIG, { policy }), histories, eyePolicy: policy,
    record(tick: number, t: number, x: number): void {
      pose.x = x;
      histories[0]!.record(tick, t, pose);
    },
  };
}
