// The pattern measure (server/behaviour/pattern.ts) and the spread-cancel flag on synthetic pulls:
// an honest aim error and its pull's pattern are independent (correlations' z about N(0, 1), the
// centroid nearer than the aim under half the time); an aim moved against its predicted pattern
// (client-sim/cheats/spreadCancel.ts cancellingAim) puts the centroid on the target, also when it
// aims at another point of the body than the measure's, and is flagged from minPatternPulls pulls on.
import { describe, expect, it } from 'vitest';
import { Rng } from '../client-sim/rng';
import { cancellingAim } from '../client-sim/cheats/spreadCancel';
import { createPatternMeasure, patternMeasure, PatternSums, type PatternMeasure } from '../server/behaviour/pattern';
import { DEFAULT_THRESHOLDS, FlagRule, flagPlayers, type ShotFacts } from '../server/behaviour/flags';
import { createPelletResults } from '../shared/validate/pelletVerdict';
import { predictPellets } from '../shared/validate/spread';
import { createShooterState, TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';
import { MAX_PELLETS, WEAPONS, WeaponId } from '../shared/weapons';

const shotgun = WEAPONS[WeaponId.SHOTGUN]!;
const SEED = 0x5eed;
const eye = new Float64Array([0, 1.6, 0]);
const stops = new Float64Array(3 * MAX_PELLETS);
const pellets = createPelletResults();
const state = createShooterState(3, WEAPONS.map((w) => w.magazine));
const aim = new Float64Array(3);

interface Pull { m: PatternMeasure; aimError: number }

/**
 * Pull number `pull` at a target `dist` m ahead (slightly off the z axis), aimed with the error
 * (ea, eb) radians across and up, or, with `cancel`, along the aim whose pattern's centroid is on
 * the target's point `lift` m above the one measured.
 */
function pullAt(pull: number, dist: number, ea: number, eb: number, cancel: boolean, lift = 0): Pull {
  const tx = 0.1 * dist, ty = -0.3, tz = dist;
  const cy = ty + lift, cl = Math.sqrt(tx * tx + cy * cy + tz * tz);
  const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
  state.pulls = pull;
  let ux = tx / tl + ea, uy = ty / tl + eb, uz = tz / tl - 0.1 * ea;
  if (cancel) {
    expect(cancellingAim(aim, stops, SEED, state, shotgun, 0, eye, tx / cl, cy / cl, tz / cl)).toBe(true);
    [ux, uy, uz] = [aim[0]!, aim[1]!, aim[2]!];
  }
  const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
  ux /= ul; uy /= ul; uz /= ul;
  const L = 39.96;
  const n = predictPellets(stops, SEED, state, shotgun, 0, eye[0]!, eye[1]!, eye[2]!, eye[0]! + ux * L, eye[1]! + uy * L, eye[2]! + uz * L);
  pellets.count = n;
  for (let k = 0; k < n; k++) { pellets.ex[k] = stops[3 * k]!; pellets.ey[k] = stops[3 * k + 1]!; pellets.ez[k] = stops[3 * k + 2]!; }
  const m = patternMeasure(createPatternMeasure(), pellets, eye[0]!, eye[1]!, eye[2]!, ux, uy, uz, tx, ty, tz);
  const ex = ux - tx / tl, ey = uy - ty / tl, ez = uz - tz / tl;
  return { m, aimError: Math.sqrt(ex * ex + ey * ey + ez * ez) };
}

function fact(shooter: number, p: Pull): ShotFacts {
  return {
    shooter, kind: VerdictKind.HIT, reason: VerdictReason.OK_HIT, zone: 2, target: 1, timeSource: TimeSource.CLAIMED,
    rewindDepthMs: 100, inputAheadMs: -20, reactionMs: NaN, snapDegPerS: NaN, rttMs: 80, sinceShooterDeathMs: NaN, serverGapMs: 15.625, claimOffByMs: 0,
    pattern: p.m,
  };
}

describe('pattern measure', () => {
  it('agrees with the angles in the aim frame (second method: the offsets as the pattern draws them)', () => {
    // An aim exactly at the target: the target's offset is 0, the lean is the pattern's mean offset x radius.
    const p = pullAt(7, 6, 0, 0, false);
    expect(Math.abs(p.m.offR) + Math.abs(p.m.offU)).toBeLessThan(1e-12);
    const lean = Math.sqrt(p.m.leanR ** 2 + p.m.leanU ** 2);
    expect(Math.abs(lean - p.m.error)).toBeLessThan(1e-3 * lean);
    expect(lean).toBeGreaterThan(0);
    expect(lean).toBeLessThan(shotgun.spread!);
  });

  it('honest pulls: the centroid lean does not go with the target; nobody is flagged', () => {
    const rng = new Rng(11);
    const facts: ShotFacts[] = [];
    const all = new PatternSums();
    const zs: number[] = [];
    for (let player = 0; player < 20; player++) {
      const sigma = 0.005 + 0.03 * rng.next(); // players differ: some aim finer than the pattern leans
      const lift = 0.2 * rng.normal(); // and at different points of the body
      const own = new PatternSums();
      for (let i = 0; i < 40; i++) {
        const p = pullAt(player * 1000 + i, 3 + 10 * rng.next(), sigma * rng.normal(), sigma * rng.normal() + lift / 8, false);
        all.add(p.m);
        own.add(p.m);
        facts.push(fact(player, p));
      }
      zs.push(own.z());
    }
    expect(all.n).toBe(800);
    expect(Math.abs(all.z())).toBeLessThan(3);
    // Independent noise added to an aim error moves the centroid farther more often than nearer.
    expect(all.nearer / all.n).toBeLessThan(0.5);
    expect(all.nearer / all.n).toBeGreaterThan(0.2);
    // The players' z-scores: about N(0, 1).
    const mean = zs.reduce((a, b) => a + b, 0) / zs.length;
    const sd = Math.sqrt(zs.reduce((a, b) => a + (b - mean) ** 2, 0) / (zs.length - 1));
    expect(Math.abs(mean)).toBeLessThan(0.8);
    expect(sd).toBeGreaterThan(0.5);
    expect(sd).toBeLessThan(1.6);
    const players = flagPlayers(facts, 250);
    expect(players).toHaveLength(20);
    for (const p of players) {
      expect(p.patternPulls).toBe(40);
      expect(p.patternZ).toBeCloseTo(zs[p.player]!, 9);
      expect(p.flags.map((f) => f.rule)).not.toContain(FlagRule.SPREAD_CANCEL);
    }
  });

  it('cancelling pulls: the centroid on the target, the aim off it by the lean; flagged from minPatternPulls on', () => {
    const rng = new Rng(12);
    const pulls: Pull[] = [];
    for (let i = 0; i < DEFAULT_THRESHOLDS.minPatternPulls; i++) {
      const p = pullAt(i, 3 + 10 * rng.next(), 0, 0, true);
      expect(p.m.error).toBeLessThan(1e-6);
      expect(p.aimError).toBeGreaterThan(1e-4);
      pulls.push(p);
    }
    const [few] = flagPlayers(pulls.slice(1).map((p) => fact(0, p)), 250);
    expect(few!.patternPulls).toBe(DEFAULT_THRESHOLDS.minPatternPulls - 1);
    expect(few!.flags).toEqual([]);
    const [all] = flagPlayers(pulls.map((p) => fact(0, p)), 250);
    expect(all!.patternNearer).toBe(1);
    expect(Math.min(...all!.patternCorrelation)).toBeGreaterThan(0.999);
    expect(all!.flags.map((f) => f.rule)).toEqual([FlagRule.SPREAD_CANCEL]);
  });

  it('cancelling onto another point of the body (0.15 m above the measured chest) is seen as well', () => {
    const rng = new Rng(13);
    const facts: ShotFacts[] = [];
    for (let i = 0; i < 20; i++) facts.push(fact(0, pullAt(i, 3 + 10 * rng.next(), 0, 0, true, 0.15)));
    const [p] = flagPlayers(facts, 250);
    // A lift in metres is a different angle at each distance: only its mean is taken out.
    expect(Math.min(...p!.patternCorrelation)).toBeGreaterThan(0.6);
    expect(p!.flags.map((f) => f.rule)).toEqual([FlagRule.SPREAD_CANCEL]);
  });

  it('gives nothing for a single-segment shot', () => {
    pellets.count = 1;
    const m = patternMeasure(createPatternMeasure(), pellets, 0, 0, 0, 0, 0, 1, 0, 0, 5);
    expect(m.leanR).toBeNaN();
    expect(m.error).toBeNaN();
  });
});
