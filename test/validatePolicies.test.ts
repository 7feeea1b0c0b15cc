/**
 * The policies a game chooses for validateShot, each checked against a second computation: weapon
 * rules left to the game, teams under each friendly-fire policy, players who left, eye heights per
 * snapshot (crouching), damage falloff by distance; and weapon messages as objects, encoded once
 * into the same frame an encoder of the message would write.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildTestWorld, zoneCenter } from './helpers/server';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, HitZone } from '../shared/rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../shared/lagcomp/history';
import { Rewinder } from '../shared/lagcomp/rewind';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { WEAPONS, WeaponId, falloffAt, weaponTableProblem, type WeaponSpec } from '../shared/weapons';
import { createShotMessage, decodeShot, encodeShot, ShotAction, SHOT_BYTES, FrameStatus, type ShotMessage } from '../shared/protocol/shot';
import { encodeShotObject } from '../shared/protocol/shotObject';
import { defaultValidationConfig, validateShot, type ShotScene, type ShotTargets, type ShotTiming, type ValidationConfig } from '../shared/validate/shot';
import { createShooterState, createVerdict, reasonName, VerdictKind } from '../shared/validate/verdict';

const rig = MANNEQUIN_RIG;
const world = buildTestWorld();
const DT = 1000 / 64;
const NOW = 1000;
const AT = NOW - 25;
const WHEN = AT - 100;
const policy = createRewindPolicy(250, OutOfWindow.CLAMP);
const zones = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
const base = defaultValidationConfig(WEAPONS, zones, rig.eyeHeight, 4);

/**
 * Slot 0 shoots from the origin toward +z; slot 1 stands 4 m ahead (in the line of fire), slot 2
 * 10 m ahead behind it, slot 3 at the side. `eye0` is the shooter's eye height per snapshot (NaN:
 * the rules').
 */
function scene(eye0: (t: number) => number = () => Number.NaN): ShotScene {
  const hs = [0, 1, 2, 3].map(() => new PlayerHistory(128));
  const pose = createPlayerPose();
  for (let k = 0; k <= 64; k++) {
    const t = k * DT;
    for (const [slot, x, z, eye] of [[0, 0, 0, eye0(t)], [1, 0, 4, NaN], [2, 0, 10, NaN], [3, 6, 0, NaN]] as const) {
      pose.x = x; pose.y = 0; pose.z = z;
      pose.qx = 0; pose.qy = slot === 0 ? 0 : 1; pose.qz = 0; pose.qw = slot === 0 ? 1 : 0;
      pose.clip = Clip.IDLE; pose.time = t / 1000; pose.alive = true; pose.epoch = 1; pose.eyeHeight = eye;
      hs[slot]!.record(k, t, pose);
    }
  }
  return { world, rewinder: new Rewinder(rig, { policy }), histories: hs, eyePolicy: policy };
}

const timing: ShotTiming = { receiveTimeMs: NOW, rttMs: 50, interpDelayMs: 100, newestTickMs: NOW };
const everyone = (): ShotTargets => ({ alive: [true, true, true, true], lifeStartMs: [0, 0, 0, 0] });

/** A shot from (0, eyeY, 0) through the centre of `zone` of `target` as posed at WHEN, 30 m long. */
function aimed(sc: ShotScene, target: number, zone: number, eyeY = rig.eyeHeight, extra: Partial<ShotMessage> = {}): ShotMessage {
  const p = createPlayerPose();
  sc.histories[target]!.sampleAt(p, WHEN, policy);
  const [cx, cy, cz] = zoneCenter(sc.rewinder, rig, p, zone);
  const dy = cy - eyeY;
  const l = Math.sqrt(cx * cx + dy * dy + cz * cz);
  return { ...createShotMessage(), seq: 1, timeMs: AT, renderTimeMs: WHEN, weapon: WeaponId.RIFLE, sx: 0, sy: eyeY, sz: 0, ex: (cx / l) * 30, ey: eyeY + (dy / l) * 30, ez: (cz / l) * 30, ...extra };
}

function judge(sc: ShotScene, config: ValidationConfig, shot: ShotMessage, targets = everyone(), shooter = createShooterState(0, WEAPONS.map((w) => w.magazine))) {
  return validateShot(createVerdict(), sc, config, encodeShot(new Uint8Array(SHOT_BYTES), shot), shooter, timing, targets);
}

describe('weapon rules left to the game', () => {
  const sc = scene();
  const off: ValidationConfig = { ...base, weaponRules: false };
  it('a shot is judged on time and geometry alone: an empty, holstered weapon hits; the state after moves only its seq and action time', () => {
    const shooter = createShooterState(0, WEAPONS.map(() => 0)); // every magazine empty
    shooter.equipped = WeaponId.PISTOL;
    const shot = aimed(sc, 1, HitZone.UPPER_TORSO);
    expect(reasonName(judge(sc, base, shot, undefined, shooter).reason)).toBe('NOT_EQUIPPED');
    const v = judge(sc, off, shot, undefined, shooter);
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.fired).toBe(true);
    expect(v.after.ammo).toEqual(shooter.ammo);
    expect(v.after.nextFireMs).toBe(shooter.nextFireMs);
    expect([v.after.lastSeq, v.after.lastActionMs]).toEqual([1, AT]);
    // The action clock still holds: an older action after it is out of order.
    const earlier = validateShot(createVerdict(), sc, off, encodeShot(new Uint8Array(SHOT_BYTES), { ...shot, seq: 2, timeMs: AT - 1, renderTimeMs: WHEN - 1 }), v.after, timing, everyone());
    expect(reasonName(earlier.reason)).toBe('ACTION_ORDER');
  });

  it('switch and reload messages are refused (RULES_OFF), their seq used', () => {
    for (const action of [ShotAction.SWITCH, ShotAction.RELOAD]) {
      const v = judge(sc, off, { ...createShotMessage(), seq: 4, action, weapon: WeaponId.PISTOL, timeMs: AT });
      expect(reasonName(v.reason)).toBe('RULES_OFF');
      expect(v.after.lastSeq).toBe(4);
    }
  });
});

describe('teams and friendly fire', () => {
  const sc = scene();
  const teams = (team: number[]): ShotTargets => ({ ...everyone(), team });
  const shot = aimed(sc, 2, HitZone.UPPER_TORSO); // through slot 1 (4 m) on its way to slot 2 (10 m)

  it('without teams, or on different teams, the first player in the line takes it', () => {
    for (const t of [everyone(), teams([0, 1, 0, 1]), teams([-1, -1, -1, -1])]) {
      const v = judge(sc, base, shot, t);
      expect([reasonName(v.reason), v.target]).toEqual(['OK_HIT', 1]);
    }
  });

  it("'full' damages a teammate like anyone; 'noDamage' stops the bullet there for nothing; 'off' lets it through to the enemy behind", () => {
    const t = teams([0, 0, 1, 1]);
    const full = judge(sc, base, shot, t);
    expect([reasonName(full.reason), full.target, full.damage > 0]).toEqual(['OK_HIT', 1, true]);
    const none = judge(sc, { ...base, friendlyFire: 'noDamage' }, shot, t);
    expect([reasonName(none.reason), none.kind, none.target, none.damage]).toEqual(['OK_FRIENDLY', VerdictKind.HIT, 1, 0]);
    const off = judge(sc, { ...base, friendlyFire: 'off' }, shot, t);
    expect([reasonName(off.reason), off.target, off.damage > 0]).toEqual(['OK_HIT', 2, true]);
    // Aimed at the teammate's head under 'off': the bullet passes it by; with nobody behind, it misses.
    const alone: ShotTargets = { ...t, lifeStartMs: [0, 0, Infinity, 0] }; // slot 2's life has not begun
    expect(reasonName(judge(sc, { ...base, friendlyFire: 'off' }, aimed(sc, 1, HitZone.HEAD), alone).reason)).toBe('OK_MISS');
  });
});

describe('players who left', () => {
  const sc = scene();
  it('a player who left at or before the action time is no target; one who left after it still is (the shot was in flight)', () => {
    const shot = aimed(sc, 1, HitZone.UPPER_TORSO);
    for (const [leftMs, reason, target] of [[AT, 'OK_HIT', 2], [AT - 500, 'OK_HIT', 2], [AT + 1, 'OK_HIT', 1], [Number.NaN, 'OK_HIT', 1]] as const) {
      // Slot 1 gone: not alive now; shots in flight are honoured by the default rules.
      const t: ShotTargets = { alive: [true, false, true, true], lifeStartMs: [0, 0, 0, 0], leftMs: [NaN, leftMs, NaN, NaN] };
      const v = judge(sc, base, shot, t);
      expect([reasonName(v.reason), v.target], `left at ${leftMs}`).toEqual([reason, target]);
    }
  });
});

describe('eye heights per snapshot', () => {
  it('the eye path follows each snapshot\'s eye (crouching), interpolated between ticks; NaN is the rules\' eye', () => {
    const crouch = 1.0;
    const sc = scene((t) => (t < 500 ? rig.eyeHeight : crouch)); // crouched from 500 ms on
    const standing = aimed(sc, 1, HitZone.UPPER_TORSO, rig.eyeHeight);
    const low = aimed(sc, 1, HitZone.UPPER_TORSO, crouch);
    // At WHEN (875) and the newest tick the shooter crouches: a start at its crouched eye is where it was.
    const v = judge(sc, base, low);
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.originOffsetM).toBe(0);
    const w = judge(sc, base, standing);
    expect(w.originOffsetM).toBeCloseTo(rig.eyeHeight - crouch, 12);
    // Without per-snapshot eyes the rules' eye height is the eye.
    expect(judge(scene(), base, standing).originOffsetM).toBe(0);
    // Between a standing and a crouched snapshot the eye is interpolated like the root.
    const h = sc.histories[0]!;
    const p = createPlayerPose();
    const t0 = 31 * DT; // the last standing tick (484.375 ms); the next one (500) crouches
    const wide = createRewindPolicy(2000, OutOfWindow.CLAMP);
    h.sampleAt(p, t0 + DT / 4, wide);
    expect(p.eyeHeight).toBe(rig.eyeHeight * 0.75 + crouch * 0.25);
    h.sampleAt(p, t0, wide);
    expect(p.eyeHeight).toBe(rig.eyeHeight);
  });

  it('a history refuses an infinite eye height and keeps an unknown (NaN) one', () => {
    const h = new PlayerHistory(8);
    const p = createPlayerPose();
    p.eyeHeight = Infinity;
    expect(h.record(0, 0, p)).not.toBe(0);
    p.eyeHeight = NaN;
    expect(h.record(0, 0, p)).toBe(0);
    const q = createPlayerPose();
    q.eyeHeight = 3;
    h.sampleAt(q, 0, policy);
    expect(q.eyeHeight).toBeNaN();
  });
});

describe('damage falloff by distance', () => {
  const curve = [{ distanceM: 5, multiplier: 1 }, { distanceM: 9, multiplier: 0.5 }, { distanceM: 20, multiplier: 0.25 }];
  it('falloffAt is piecewise linear between its points and flat beyond them', () => {
    expect(falloffAt(null, 100)).toBe(1);
    expect(falloffAt(curve, 0)).toBe(1);
    expect(falloffAt(curve, 7)).toBe(0.75);
    expect(falloffAt(curve, 9)).toBe(0.5);
    expect(falloffAt(curve, 14.5)).toBe(0.375);
    expect(falloffAt(curve, 1e9)).toBe(0.25);
    fc.assert(fc.property(fc.double({ min: 0, max: 40, noNaN: true }), (d) => {
      const m = falloffAt(curve, d);
      return m <= 1 && m >= 0.25 && (d <= 5 ? m === 1 : true);
    }), { seed: 7, numRuns: 500 });
  });

  it('a hit deals weapon x zone x the falloff at the hit\'s distance from the start', () => {
    const sc = scene();
    const weapons: WeaponSpec[] = WEAPONS.map((w) => (w.id === WeaponId.RIFLE ? { ...w, falloff: curve } : w));
    expect(weaponTableProblem(weapons)).toBeNull();
    const config = { ...base, weapons };
    for (const [target, zone] of [[1, HitZone.UPPER_TORSO], [2, HitZone.HEAD], [3, HitZone.UPPER_TORSO]] as const) {
      const shot = aimed(sc, target, zone);
      const v = judge(sc, config, shot, { ...everyone(), alive: [true, target === 1, target === 2, target === 3] });
      expect(reasonName(v.reason)).toBe('OK_HIT');
      const dist = v.t * Math.sqrt((shot.ex - shot.sx) ** 2 + (shot.ey - shot.sy) ** 2 + (shot.ez - shot.sz) ** 2);
      const hitDist = Math.sqrt((v.x - shot.sx) ** 2 + (v.y - shot.sy) ** 2 + (v.z - shot.sz) ** 2);
      expect(dist).toBeCloseTo(hitDist, 9);
      expect(v.damage).toBe(25 * zones[v.zone]! * falloffAt(curve, dist));
    }
  });

  it('weaponTableProblem names what is wrong with a table', () => {
    expect(weaponTableProblem(WEAPONS)).toBeNull();
    expect(weaponTableProblem([])).toMatch(/empty/);
    expect(weaponTableProblem([{ ...WEAPONS[1]! }])).toMatch(/id 1/);
    expect(weaponTableProblem([{ ...WEAPONS[0]!, rangeM: -1 }])).toMatch(/rangeM/);
    expect(weaponTableProblem([{ ...WEAPONS[0]!, magazine: 1.5 }])).toMatch(/magazine/);
    expect(weaponTableProblem([{ ...WEAPONS[0]!, falloff: [{ distanceM: 5, multiplier: 1 }, { distanceM: 5, multiplier: 0.5 }] }])).toMatch(/increase/);
  });
});

describe('weapon messages as objects', () => {
  const ctx = { renderTimeMs: Number.NaN, interpDelayMs: 100, slotOf: (id: string) => ['a', 'b', 'c'].indexOf(id) };
  it('an object is the frame an encoder of the same message writes, bit for bit', () => {
    const num = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -0));
    fc.assert(fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 255 }), num, num, fc.array(num, { minLength: 6, maxLength: 6 }), fc.constantFrom('a', 'b', 'z', null), (seq, weapon, timeMs, renderTimeMs, p, target) => {
      const out = new Uint8Array(SHOT_BYTES);
      expect(encodeShotObject(out, { seq, weapon, timeMs, renderTimeMs, start: p.slice(0, 3), end: { x: p[3], y: p[4], z: p[5] }, target }, ctx)).toBeNull();
      const m: ShotMessage = { ...createShotMessage(), seq, weapon, timeMs, renderTimeMs, sx: p[0]!, sy: p[1]!, sz: p[2]!, ex: p[3]!, ey: p[4]!, ez: p[5]!, claimedTarget: target === null ? -1 : ctx.slotOf(target) };
      expect(Array.from(out)).toEqual(Array.from(encodeShot(new Uint8Array(SHOT_BYTES), m)));
    }), { seed: 11, numRuns: 300 });
    // Switch and reload carry no segment; a fire without a render time takes the action time less the delay.
    const out = new Uint8Array(SHOT_BYTES);
    expect(encodeShotObject(out, { seq: 3, action: 'switch', weapon: 1, timeMs: 50 }, ctx)).toBeNull();
    const m = createShotMessage();
    expect(decodeShot(m, out)).toBe(FrameStatus.OK);
    expect([m.action, m.weapon, m.seq, m.timeMs]).toEqual([ShotAction.SWITCH, 1, 3, 50]);
    expect(encodeShotObject(out, { seq: 4, weapon: 0, timeMs: 500, start: [0, 1, 0], end: [0, 1, 9] }, ctx)).toBeNull();
    decodeShot(m, out);
    expect(m.renderTimeMs).toBe(400);
  });

  it('what cannot be a frame is refused with the field at fault; nothing throws on any value', () => {
    const out = new Uint8Array(SHOT_BYTES);
    const cases: [unknown, RegExp][] = [
      [null, /object/], ['fire', /object/], [[1, 2], /object/], [new Uint8Array(80), /object/],
      [{ weapon: 0, timeMs: 1 }, /seq/], [{ seq: -1, weapon: 0, timeMs: 1 }, /seq/], [{ seq: 2 ** 32, weapon: 0, timeMs: 1 }, /seq/], [{ seq: 1.5, weapon: 0, timeMs: 1 }, /seq/],
      [{ seq: 1, weapon: 256, timeMs: 1 }, /weapon/], [{ seq: 1, weapon: '0', timeMs: 1 }, /weapon/], [{ seq: 1, weapon: 0, timeMs: '1' }, /timeMs/],
      [{ seq: 1, weapon: 0, timeMs: 1, action: 'jump' }, /action/], [{ seq: 1, weapon: 0, timeMs: 1 }, /start/],
      [{ seq: 1, weapon: 0, timeMs: 1, start: [0, 0], end: [0, 0, 1] }, /start/], [{ seq: 1, weapon: 0, timeMs: 1, start: [0, 0, 0], end: { x: 1, y: '2', z: 3 } }, /end/],
      [{ seq: 1, weapon: 0, timeMs: 1, start: [0, 0, 0], end: [0, 0, 1], renderTimeMs: 'now' }, /renderTimeMs/],
    ];
    for (const [obj, why] of cases) expect(encodeShotObject(out, obj, ctx), JSON.stringify(obj)).toMatch(why);
    fc.assert(fc.property(fc.anything(), (x) => {
      const r = encodeShotObject(out, x, ctx);
      return r === null || typeof r === 'string';
    }), { seed: 12, numRuns: 500 });
  });
});
