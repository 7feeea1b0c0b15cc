/**
 * Which shots give which behaviour events (server/behaviour/events.ts) for weapons not aimed at the
 * body: a rocket's, grenade's or knife's shot gives the same events as the same shot of a hitscan
 * weapon less those that hold the aim against the target's body (shot error, time on the body,
 * sweep, tracking wobble and lag), whether its verdict launched, hit or was rejected; those weapons
 * (projectile and melee) are read from the log header's weapon table.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditEvents, eventsFromRows, looseAimWeapons } from '../server/behaviour/events';
import { MEASURES, type BehaviourEvent } from '../server/behaviour/score';
import { MeasureCol } from '../server/behaviour/observer';
import { SHOT_COLUMNS, ShotCol } from '../shared/audit/replay';
import { VerdictKind } from '../shared/validate/verdict';
import { isMelee, WEAPONS, WeaponId } from '../shared/weapons';

const BODY_MEASURES = new Set(['shotErrorNear', 'shotErrorMid', 'shotErrorFar', 'onTarget', 'sweep', 'trackJitter', 'trackLag']);

/** One shot as the replay writes its row: only the columns eventsFromRows reads. */
interface Shot { shooter: number; target: number; gapMs: number; sight: number; dist: number; weapon: number; kind: number; values: number[] }

function rowsOf(shots: readonly Shot[], hitscan: boolean): Float64Array {
  const r = new Float64Array(shots.length * SHOT_COLUMNS).fill(NaN);
  let t = 1000;
  shots.forEach((s, i) => {
    const o = i * SHOT_COLUMNS;
    t += s.gapMs;
    r[o + ShotCol.SHOOTER] = s.shooter; r[o + ShotCol.INDEX] = i; r[o + ShotCol.RECEIVED_MS] = t;
    r[o + ShotCol.WEAPON] = hitscan ? WeaponId.RIFLE : s.weapon;
    r[o + ShotCol.KIND] = hitscan ? VerdictKind.HIT : s.kind;
    r[o + ShotCol.REWIND_DEPTH_MS] = 100 + s.values[0]!; r[o + ShotCol.INTERP_MS] = 100;
    r[o + MeasureCol.AIM_TARGET] = s.target;
    r[o + MeasureCol.SIGHT_START_MS] = s.sight;
    r[o + MeasureCol.TARGET_DIST_M] = s.dist;
    const cols = [MeasureCol.INPUT_SPREAD, MeasureCol.SHORT_HOLDS, MeasureCol.VIEW_OFFSET, MeasureCol.SHOT_ERROR, MeasureCol.REACTION_MS, MeasureCol.PEAK_TURN,
      MeasureCol.ON_TARGET_MS, MeasureCol.SWEEP, MeasureCol.PRE_AIM, MeasureCol.HIDDEN_FOLLOW, MeasureCol.TRACK_ERROR, MeasureCol.TRACK_LAG_MS];
    cols.forEach((c, j) => { r[o + c] = s.values[j + 1]!; });
  });
  return r;
}

const shotArb = fc.record({
  shooter: fc.integer({ min: 0, max: 2 }),
  target: fc.integer({ min: -1, max: 3 }),
  gapMs: fc.integer({ min: 0, max: 1500 }),
  sight: fc.integer({ min: 0, max: 3 }).map((x) => x * 1000),
  dist: fc.double({ min: 1, max: 60, noNaN: true }),
  weapon: fc.constantFrom<number>(WeaponId.RIFLE, WeaponId.SHOTGUN, WeaponId.ROCKET, WeaponId.GRENADE, WeaponId.KNIFE),
  kind: fc.constantFrom<number>(VerdictKind.HIT, VerdictKind.MISS, VerdictKind.REJECTED, VerdictKind.LAUNCH),
  values: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 13, maxLength: 13 }),
});

describe('behaviour events of projectile weapons', () => {
  it('the header\'s weapon table names the projectile and melee weapons; a header without one names none', () => {
    const got = looseAimWeapons({ validation: { weapons: WEAPONS } });
    expect([...got].sort()).toEqual(WEAPONS.filter((w) => w.projectile !== undefined || isMelee(w)).map((w) => w.id).sort());
    expect(got.has(WeaponId.ROCKET) && got.has(WeaponId.GRENADE) && got.has(WeaponId.KNIFE)).toBe(true);
    expect(got.has(WeaponId.RIFLE) || got.has(WeaponId.SHOTGUN) || got.has(WeaponId.SNIPER) || got.has(WeaponId.PISTOL)).toBe(false);
    expect(looseAimWeapons(null).size).toBe(0);
    expect(looseAimWeapons({ validation: {} }).size).toBe(0);
  });

  it('a projectile or melee shot gives the hitscan shot\'s events less the measures against the body', () => {
    const looseAim = looseAimWeapons({ validation: { weapons: WEAPONS } });
    // Shots at least a tracking window apart: a left-out tracking event then holds back no later one.
    fc.assert(fc.property(fc.array(shotArb.map((s) => ({ ...s, gapMs: 300 + s.gapMs })), { minLength: 1, maxLength: 40 }), (shots) => {
      const got = eventsFromRows(rowsOf(shots, false), shots.length, looseAim);
      const asHitscan = eventsFromRows(rowsOf(shots, true), shots.length);
      const notAtBody = (i: number) => shots[i]!.kind === VerdictKind.LAUNCH || looseAim.has(shots[i]!.weapon);
      for (const [shooter, list] of asHitscan) {
        const want = list.filter((e: BehaviourEvent) => !(notAtBody(e.shot) && BODY_MEASURES.has(MEASURES[e.measure]!.name)));
        expect(got.get(shooter) ?? []).toEqual(want);
      }
      expect([...got.keys()].sort()).toEqual([...asHitscan.keys()].sort());
    }), { numRuns: 200 });
  });

  it('without projectile or melee shots the events are those of the rows alone, and an audited log\'s are read with its header', () => {
    fc.assert(fc.property(fc.array(shotArb.map((s) => ({ ...s, weapon: WeaponId.RIFLE, kind: s.kind === VerdictKind.LAUNCH ? VerdictKind.MISS : s.kind })), { minLength: 1, maxLength: 40 }), (shots) => {
      const rows = rowsOf(shots, false);
      const plain = eventsFromRows(rows, shots.length);
      expect(eventsFromRows(rows, shots.length, looseAimWeapons({ validation: { weapons: WEAPONS } }))).toEqual(plain);
      expect(auditEvents({ rows, shots: shots.length, header: { validation: { weapons: WEAPONS } } })).toEqual(plain);
    }), { numRuns: 100 });
    // A rejected rocket: the header's table makes it a projectile shot, the rows alone do not.
    const shot: Shot = { shooter: 0, target: 1, gapMs: 0, sight: 0, dist: 15, weapon: WeaponId.ROCKET, kind: VerdictKind.REJECTED, values: Array(13).fill(0.5) };
    const rows = rowsOf([shot], false);
    const names = (m: Map<number, BehaviourEvent[]>) => (m.get(0) ?? []).map((e) => MEASURES[e.measure]!.name);
    expect(names(eventsFromRows(rows, 1))).toContain('shotErrorMid');
    expect(names(auditEvents({ rows, shots: 1, header: { validation: { weapons: WEAPONS } } }))).not.toContain('shotErrorMid');
    expect(names(auditEvents({ rows, shots: 1, header: { validation: { weapons: WEAPONS } } }))).toContain('reaction');
  });
});
