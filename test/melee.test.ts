/**
 * Melee swings through validateShot (shared/validate/melee.ts): the knife's thick trace reaches a
 * body within its radius of the line that a thin bullet misses, agreeing with a second method (the
 * capsule overlap of VolumeRewinder.overlapCapsule, a distance test, not a sweep) on who is reached;
 * never through a wall, yet not snagged by a wall or the floor beside it; its range, its origin
 * tolerance, its fire clock and its rounds (none); damage by the contact's zone and distance.
 */
import { describe, expect, it } from 'vitest';
import { pushBox, zoneCenter } from './helpers/server';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { standingHistories } from './helpers/wallScene';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, HitZone } from '../shared/rig/rig';
import { createRewindPolicy, OutOfWindow } from '../shared/lagcomp/history';
import { Rewinder } from '../shared/lagcomp/rewind';
import { createSphereCastHit, createVolumeOverlaps, VolumeRewinder } from '../shared/lagcomp/rewindVolume';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { World } from '../shared/world/world';
import { falloffAt, isMelee, WEAPONS, WeaponId, weaponTableProblem, type WeaponSpec } from '../shared/weapons';
import { createShotMessage, encodeShot, shotBytes, ShotAction, type ShotMessage } from '../shared/protocol/shot';
import { defaultValidationConfig, MELEE_ORIGIN_TOLERANCE_M, validateShot, type ShotScene, type ShotTiming, type ShotTargets, type ValidationConfig } from '../shared/validate/shot';
import { createShooterState, createVerdict, reasonName, VerdictKind, type ShooterState, type Verdict } from '../shared/validate/verdict';
import { mulberry32 } from '../shared/util/prng';

const rig = MANNEQUIN_RIG;
const NOW = 1000;
const AT = NOW - 25;
const WHEN = AT - 100;
const policy = createRewindPolicy(250, OutOfWindow.CLAMP);
const zoneTable = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
const timing: ShotTiming = { receiveTimeMs: NOW, rttMs: 50, interpDelayMs: 100, newestTickMs: NOW };
const KNIFE = WEAPONS[WeaponId.KNIFE]!;
const eye: [number, number, number] = [0, rig.eyeHeight, 0];

interface Box { x0: number; x1: number; z0: number; z1: number; y1?: number }

/** A floor, boxes (walls) and players standing at (x, z) facing the shooter (slot 0 at the origin, facing +z). */
function sceneWith(boxes: Box[], players: [number, number][], weapons: readonly WeaponSpec[] = WEAPONS) {
  const pos: number[] = [];
  const idx: number[] = [];
  pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
  for (const b of boxes) pushBox(pos, idx, b.x0, 0, b.z0, b.x1, b.y1 ?? 3, b.z1);
  const world = World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
  const all: [number, number][] = [[0, 0], ...players];
  const histories = standingHistories(all);
  const rewinder = new Rewinder(rig, { policy });
  const scene: ShotScene = { world, rewinder, volumes: new VolumeRewinder(rewinder), histories, eyePolicy: policy };
  const config: ValidationConfig = defaultValidationConfig(weapons, zoneTable, rig.eyeHeight, all.length);
  const targets: ShotTargets = { alive: all.map(() => true), lifeStartMs: all.map(() => 0) };
  const zone = (slot: number, z: number) => {
    const p = createPlayerPose();
    histories[slot]!.sampleAt(p, WHEN, policy);
    return zoneCenter(rewinder, rig, p, z);
  };
  return { world, scene, config, targets, zone, histories };
}
type Scene = ReturnType<typeof sceneWith>;

/** A swing (or shot) of `weapon` from `from` toward `point`, `len` metres long. */
function swing(weapon: number, point: readonly number[], len = KNIFE.rangeM, from: readonly number[] = eye, extra: Partial<ShotMessage> = {}): ShotMessage {
  const dx = point[0]! - from[0]!, dy = point[1]! - from[1]!, dz = point[2]! - from[2]!;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  return {
    ...createShotMessage(), action: ShotAction.FIRE, weapon, seq: 1, timeMs: AT, renderTimeMs: WHEN,
    sx: from[0]!, sy: from[1]!, sz: from[2]!, ex: from[0]! + (dx / l) * len, ey: from[1]! + (dy / l) * len, ez: from[2]! + (dz / l) * len, ...extra,
  };
}

function holding(weapon: number, weapons: readonly WeaponSpec[] = WEAPONS): ShooterState {
  const st = createShooterState(0, weapons.map((w) => w.magazine), weapons.map((w) => w.id));
  st.equipped = weapon;
  return st;
}

function judge(s: Scene, m: ShotMessage, state = holding(m.weapon, s.config.weapons)): Verdict {
  return validateShot(createVerdict(), s.scene, s.config, encodeShot(new Uint8Array(shotBytes(0)), m), state, timing, s.targets);
}

describe('the knife in the weapon table', () => {
  it('is a melee weapon carried by default; a melee weapon with a pattern or penetration is refused', () => {
    expect(isMelee(KNIFE)).toBe(true);
    expect(WEAPONS.filter(isMelee).map((w) => w.id)).toEqual([WeaponId.KNIFE]);
    expect(defaultValidationConfig(WEAPONS, zoneTable, 1.6).loadout).toContain(WeaponId.KNIFE);
    expect(weaponTableProblem(WEAPONS)).toBeNull();
    expect(weaponTableProblem([...WEAPONS.slice(0, 4), { ...KNIFE, pellets: 4 }])).toMatch(/melee/);
    expect(weaponTableProblem([...WEAPONS.slice(0, 4), { ...KNIFE, penetration: 0.2 }])).toMatch(/melee/);
    expect(weaponTableProblem([...WEAPONS.slice(0, 4), { ...KNIFE, radius: -0.1 }])).toMatch(/radius/);
    expect(weaponTableProblem([...WEAPONS.slice(0, 4), { ...KNIFE, radius: 2 }])).toMatch(/radius/);
  });
});

describe('a thick trace', () => {
  it('hits a body within its radius of the line that a thin bullet of the same reach misses', () => {
    const s = sceneWith([], [[0, 1.2]]);
    const chest = s.zone(1, HitZone.UPPER_TORSO);
    // Slide the aim sideways until a thin segment misses the body, then swing the knife along it.
    let side = -1;
    for (let d = 0.05; d < 1; d += 0.02) {
      const thin = judge(s, swing(WeaponId.PISTOL, [chest[0] + d, chest[1], chest[2]], KNIFE.rangeM));
      if (thin.kind === VerdictKind.MISS) { side = d; break; }
    }
    expect(side).toBeGreaterThan(0);
    const aim = [chest[0] + side + 0.1, chest[1], chest[2]];
    expect(reasonName(judge(s, swing(WeaponId.PISTOL, aim, KNIFE.rangeM)).reason)).toBe('OK_MISS');
    const v = judge(s, swing(WeaponId.KNIFE, aim));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.target).toBe(1);
    expect(v.fired).toBe(true);
    expect(v.after.ammo[WeaponId.KNIFE]).toBe(KNIFE.magazine); // no round used
    // Far beyond the radius: a miss.
    expect(reasonName(judge(s, swing(WeaponId.KNIFE, [chest[0] + side + 0.6, chest[1], chest[2]])).reason)).toBe('OK_MISS');
  });

  it('reaches whom the capsule overlaps (second method: VolumeRewinder.overlapCapsule), the zone and damage of the sweep contact', () => {
    const s = sceneWith([], [[0.3, 1.4], [-0.9, 1.1], [0.2, 2.6]]);
    const volumes = s.scene.volumes!;
    const over = createVolumeOverlaps(4);
    const cast = createSphereCastHit();
    const rng = mulberry32(0x6b6e);
    let hits = 0, misses = 0;
    for (let q = 0; q < 400; q++) {
      const m = swing(WeaponId.KNIFE, [-1.5 + 3 * rng(), 0.3 + 1.7 * rng(), 0.5 + 2.5 * rng()], KNIFE.rangeM * (0.3 + 0.7 * rng()));
      const v = judge(s, m);
      const masked = s.histories.map((h, i) => (i === 0 ? undefined : h));
      const n = volumes.overlapCapsule(over, masked, v.rewindTimeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez, KNIFE.radius!, 0);
      expect(v.kind === VerdictKind.HIT, `swing ${q}: ${reasonName(v.reason)} vs ${n} overlapped`).toBe(n > 0);
      if (v.kind !== VerdictKind.HIT) {
        misses++;
        continue;
      }
      hits++;
      expect(Array.from(over.player.subarray(0, n))).toContain(v.target);
      expect(volumes.sphereCast(cast, masked, v.rewindTimeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez, KNIFE.radius!, 0)).toBe(true);
      expect([v.target, v.zone, v.t, v.x]).toEqual([cast.player, cast.zone, cast.t, cast.x]);
      expect(v.damage).toBe(KNIFE.damage * zoneTable[cast.zone]!);
    }
    expect(hits).toBeGreaterThan(40);
    expect(misses).toBeGreaterThan(40);
  });

  it('a head swing takes the head multiplier; falloff reads the contact distance along the swing', () => {
    const s = sceneWith([], [[0, 1.3]]);
    const v = judge(s, swing(WeaponId.KNIFE, s.zone(1, HitZone.HEAD)));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.zone).toBe(HitZone.HEAD);
    expect(v.damage).toBe(KNIFE.damage * zoneTable[HitZone.HEAD]!);
    const falloff = [{ distanceM: 0.5, multiplier: 1 }, { distanceM: 2, multiplier: 0.5 }];
    const table = WEAPONS.map((w) => (w.id === WeaponId.KNIFE ? { ...w, falloff } : w));
    const f = sceneWith([], [[0, 1.3]], table);
    const m = swing(WeaponId.KNIFE, f.zone(1, HitZone.UPPER_TORSO));
    const w = judge(f, m);
    expect(reasonName(w.reason)).toBe('OK_HIT');
    const len = Math.sqrt((m.ex - m.sx) ** 2 + (m.ey - m.sy) ** 2 + (m.ez - m.sz) ** 2);
    expect(w.damage).toBe(KNIFE.damage * zoneTable[w.zone]! * falloffAt(falloff, w.t * Math.sqrt(len * len)));
    expect(falloffAt(falloff, w.t * len)).toBeLessThan(1);
  });
});

describe('walls', () => {
  it('never through a wall: a body behind a thin wall within reach is not hit', () => {
    const s = sceneWith([{ x0: -3, x1: 3, z0: 0.7, z1: 0.8 }], [[0, 1.3]]);
    const v = judge(s, swing(WeaponId.KNIFE, s.zone(1, HitZone.UPPER_TORSO)));
    expect(v.kind).not.toBe(VerdictKind.HIT);
    expect(reasonName(v.reason)).toBe('OCCLUDED');
    expect(v.target).toBe(1);
    expect(v.damage).toBe(0);
    // Without the wall the same swing hits.
    const open = sceneWith([], [[0, 1.3]]);
    expect(reasonName(judge(open, swing(WeaponId.KNIFE, open.zone(1, HitZone.UPPER_TORSO))).reason)).toBe('OK_HIT');
  });

  it('a body around a wall corner within the radius but not in sight of the line is not hit', () => {
    // The wall covers x >= -0.05 at z 0.7..0.8; the body stands behind it at x = 0.35. The swing
    // passes the wall's edge at x = -0.1: the capsule touches the body, the thin line to it crosses the wall.
    const s = sceneWith([{ x0: -0.05, x1: 3, z0: 0.7, z1: 0.8 }], [[0.32, 1.3]]);
    const chest = s.zone(1, HitZone.UPPER_TORSO);
    const v = judge(s, swing(WeaponId.KNIFE, [-0.1, chest[1], chest[2]]));
    expect(v.kind).not.toBe(VerdictKind.HIT);
    expect(['OCCLUDED', 'NOT_VISIBLE']).toContain(reasonName(v.reason));
    const open = sceneWith([], [[0.32, 1.3]]);
    expect(reasonName(judge(open, swing(WeaponId.KNIFE, [-0.1, chest[1], chest[2]])).reason)).toBe('OK_HIT');
  });

  it('does not snag on a wall beside the line or on the floor under it', () => {
    // A wall 0.15 m beside the line, along it: inside the trace's radius, not between eye and body.
    const s = sceneWith([{ x0: 0.15, x1: 0.5, z0: 0.2, z1: 1.0 }], [[-0.05, 1.3]]);
    const v = judge(s, swing(WeaponId.KNIFE, s.zone(1, HitZone.UPPER_TORSO)));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    // A low swing at the shins: the trace dips into the floor, the body is hit.
    const low = sceneWith([], [[0, 1.0]]);
    const shin = low.zone(1, HitZone.CALF);
    const w = judge(low, swing(WeaponId.KNIFE, [shin[0], 0.1, shin[2]]));
    expect(reasonName(w.reason)).toBe('OK_HIT');
  });

  it('a swing at a bare wall is a miss with the wall struck', () => {
    const s = sceneWith([{ x0: -3, x1: 3, z0: 1, z1: 1.2 }], []);
    const v = judge(s, swing(WeaponId.KNIFE, [0, 1.4, 3]));
    expect(reasonName(v.reason)).toBe('OK_MISS');
    expect(v.worldHit).toBe(true);
    expect(v.z).toBeCloseTo(1, 6);
  });
});

describe('reach and rules', () => {
  it('OUT_OF_RANGE beyond rangeM; exactly rangeM is judged', () => {
    const s = sceneWith([], [[0, 1.3]]);
    const chest = s.zone(1, HitZone.UPPER_TORSO);
    expect(reasonName(judge(s, swing(WeaponId.KNIFE, chest, KNIFE.rangeM + 0.01)).reason)).toBe('OUT_OF_RANGE');
    expect(reasonName(judge(s, swing(WeaponId.KNIFE, chest, KNIFE.rangeM)).reason)).toBe('OK_HIT');
  });

  it('a swing started away from the eye to reach beyond range: ORIGIN_MISMATCH past the melee tolerance, where a bullet would pass', () => {
    const s = sceneWith([], [[0, 3.6]]);
    const chest = s.zone(1, HitZone.UPPER_TORSO);
    expect(reasonName(judge(s, swing(WeaponId.KNIFE, chest)).reason)).toBe('OK_MISS'); // out of reach from the eye
    const d = MELEE_ORIGIN_TOLERANCE_M + 0.2;
    const dz = chest[2] - eye[2], dy = chest[1] - eye[1];
    const l = Math.sqrt(dz * dz + dy * dy);
    const from = [eye[0], eye[1] + (dy / l) * d, eye[2] + (dz / l) * d];
    expect(d).toBeLessThan(s.config.originToleranceM);
    const cheat = judge(s, swing(WeaponId.KNIFE, chest, KNIFE.rangeM * 0.999, from));
    expect(reasonName(cheat.reason)).toBe('ORIGIN_MISMATCH');
    expect(cheat.fired).toBe(false);
    expect(reasonName(judge(s, swing(WeaponId.PISTOL, chest, KNIFE.rangeM, from)).reason)).not.toBe('ORIGIN_MISMATCH');
  });

  it('the fire interval is enforced, no round is used and a reload is refused', () => {
    const s = sceneWith([], [[0, 1.3]]);
    const chest = s.zone(1, HitZone.UPPER_TORSO);
    const first = judge(s, swing(WeaponId.KNIFE, chest));
    expect(reasonName(first.reason)).toBe('OK_HIT');
    expect(first.after.nextFireMs).toBe(AT + KNIFE.fireIntervalMs);
    const t2 = { ...timing, receiveTimeMs: NOW + KNIFE.fireIntervalMs, newestTickMs: NOW };
    const again = (dt: number, seq: number) => validateShot(createVerdict(), s.scene, s.config,
      encodeShot(new Uint8Array(shotBytes(0)), swing(WeaponId.KNIFE, chest, KNIFE.rangeM, eye, { seq, timeMs: AT + dt, renderTimeMs: WHEN + dt })), first.after, t2, s.targets);
    expect(reasonName(again(KNIFE.fireIntervalMs - 1, 2).reason)).toBe('FIRE_RATE');
    const ok = again(KNIFE.fireIntervalMs, 3);
    expect(reasonName(ok.reason)).toMatch(/^OK_/);
    expect(ok.fired).toBe(true);
    expect(ok.after.ammo[WeaponId.KNIFE]).toBe(KNIFE.magazine);
    expect(ok.after.reloadEndMs[WeaponId.KNIFE] ?? 0).toBe(0);
    const reload = validateShot(createVerdict(), s.scene, s.config,
      encodeShot(new Uint8Array(shotBytes(0)), { ...createShotMessage(), action: ShotAction.RELOAD, weapon: WeaponId.KNIFE, seq: 4, timeMs: AT + 500 }), first.after, t2, s.targets);
    expect(reasonName(reload.reason)).toBe('MAGAZINE_FULL');
  });

  it('a scene without its own VolumeRewinder judges the same bits', () => {
    const s = sceneWith([], [[0.2, 1.3]]);
    const bare: ShotScene = { world: s.scene.world, rewinder: s.scene.rewinder, histories: s.scene.histories, eyePolicy: policy };
    const m = swing(WeaponId.KNIFE, s.zone(1, HitZone.UPPER_TORSO));
    const a = judge(s, m);
    const b = validateShot(createVerdict(), bare, s.config, encodeShot(new Uint8Array(shotBytes(0)), m), holding(WeaponId.KNIFE), timing, s.targets);
    expect([b.kind, b.reason, b.target, b.zone, b.t, b.x, b.y, b.z, b.damage]).toEqual([a.kind, a.reason, a.target, a.zone, a.t, a.x, a.y, a.z, a.damage]);
  });
});
