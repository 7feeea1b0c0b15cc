/**
 * verdictReply with fog of war: what a shooter reads of a shot that met a player withheld from it.
 * Checked against a second method: the same message judged with that player standing out of the
 * way, whose reply is what a shooter who cannot know of the player must read.
 */
import { describe, expect, it } from 'vitest';
import { eye, judge, pull, sceneWith, type Wall } from './helpers/wallScene';
import { verdictReply } from '../server/match/index';
import { HitZone } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { reasonName, VerdictKind, VerdictReason } from '../shared/validate/verdict';

const concrete: Wall[] = [{ z0: 3, z1: 3.4, material: 'concrete' }];
/** Where slot 1 stands when it is out of the way of every shot here. */
const AWAY: [number, number] = [40, -40];
const withheld = (slot: number) => slot === 1;

describe('verdictReply for a player withheld from the shooter', () => {
  it('a shot into a wall with the player behind it reads as the miss it is without that player', () => {
    const behind = sceneWith(concrete, [[0, 6]]);
    const away = sceneWith(concrete, [AWAY]);
    for (const weapon of [WeaponId.RIFLE, WeaponId.SHOTGUN]) {
      const m = pull(behind, weapon, behind.zone(1, HitZone.UPPER_TORSO));
      const v = judge(behind, m);
      expect(reasonName(v.reason)).toBe('OCCLUDED');
      expect(v.target).toBe(1);
      const truth = verdictReply(v);
      expect(truth.target).toBe(1);
      const miss = verdictReply(judge(away, m));
      expect(reasonName(miss.reason)).toBe('OK_MISS');
      expect(verdictReply(v, withheld)).toEqual(miss);
      if ((WEAPONS[weapon]!.pellets ?? 1) > 1) expect(truth.pellets!.some((p) => p.target === 1)).toBe(true);
      // A player the shooter is sent keeps the truth.
      expect(verdictReply(v, () => false)).toEqual(truth);
    }
  });

  it('a hit through the wall keeps its target, zone and damage but not where along the shot: the pellet stops at its exit hole', () => {
    const wood: Wall[] = [{ z0: 3, z1: 3.05, material: 'wood' }];
    const sc = sceneWith(wood, [[0, 6]]);
    const v = judge(sc, pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.HEAD)));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    const truth = verdictReply(v);
    const masked = verdictReply(v, withheld);
    expect(masked.kind).toBe(VerdictKind.HIT);
    expect([masked.target, masked.zone, masked.damage]).toEqual([truth.target, truth.zone, truth.damage]);
    expect(truth.t).toBeGreaterThan(0);
    expect(masked.t).toBe(-1);
    const p = masked.pellets![0]!;
    expect([p.reason, p.target, p.walls]).toEqual([VerdictReason.OK_HIT, 1, 1]);
    // The truth stops on the player 6 m out; the reply at the wall's far face (z 3.05), on the line from the eye.
    expect(truth.pellets![0]!.z).toBeGreaterThan(5.5);
    expect(p.z).toBeCloseTo(3.05, 5);
    const exit = masked.impacts!.find((h) => h.exit)!;
    expect([p.x, p.y, p.z]).toEqual([exit.x, exit.y, exit.z]);
    const along = (p.z - eye[2]) / (truth.pellets![0]!.z - eye[2]);
    expect(p.x - eye[0]).toBeCloseTo((truth.pellets![0]!.x - eye[0]) * along, 6);
  });

  it('a shot from a start pushed around a corner at a player the eye cannot see (NOT_VISIBLE) reads as a miss, its pellet stopped short of the player', () => {
    const sc = sceneWith([{ z0: 4, z1: 4.1, material: 'wood', x0: 1.5, x1: 5 }, { z0: 1.8, z1: 2.2, material: 'concrete', x0: 0.5, x1: 1.7 }], [[3.5, 6]]);
    const side: [number, number, number] = [1.4, eye[1], 0];
    const m = pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.UPPER_TORSO), 1, 30, undefined, side);
    const v = judge(sc, m);
    expect(reasonName(v.reason)).toBe('NOT_VISIBLE');
    const masked = verdictReply(v, withheld);
    expect([masked.kind, reasonName(masked.reason), masked.target, masked.zone]).toEqual([VerdictKind.MISS, 'OK_MISS', -1, -1]);
    expect(masked.pellets).toBeUndefined();
    // The truth's t is on the player (z near 6); the reply's at the wood wall's near face (z 4), where the bullet was unseen.
    const zAt = (t: number) => m.sz + t * (m.ez - m.sz);
    expect(zAt(verdictReply(v).t)).toBeGreaterThan(5.5);
    expect(zAt(masked.t)).toBeCloseTo(4, 6);
  });

  it('a bullet through a player the shooter is sent into one withheld behind it stops, in the reply, at its hit on the first', () => {
    const wood: Wall[] = [{ z0: 3, z1: 3.05, material: 'wood' }];
    const sc = sceneWith(wood, [[0, 6], [0, 9]]);
    const v = judge(sc, pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.UPPER_TORSO)));
    expect(Array.from(v.hits.target.subarray(0, v.hits.count))).toEqual([1, 2]);
    const truth = verdictReply(v);
    expect(truth.pellets![0]!.z).toBeGreaterThan(8.5);
    const masked = verdictReply(v, (slot) => slot === 2);
    const p = masked.pellets![0]!;
    expect([p.reason, p.target]).toEqual([VerdictReason.OK_HIT, 1]);
    expect([p.x, p.y, p.z]).toEqual([v.hits.x[0], v.hits.y[0], v.hits.z[0]]);
    expect(p.z).toBeLessThan(6);
    // The top-level hit is on the player it is sent: left as it is.
    expect([masked.target, masked.t]).toEqual([truth.target, truth.t]);
  });

  it('a refusal about someone else than a withheld player is left as it is', () => {
    const sc = sceneWith(concrete, [[0, 6]]);
    const v = judge(sc, pull(sc, WeaponId.RIFLE, sc.zone(1, HitZone.UPPER_TORSO)));
    expect(verdictReply(v, (slot) => slot === 2)).toEqual(verdictReply(v));
  });
});
