// The behaviour score across a player's matches (server/behaviour/crossMatch.ts, crossCalibrate.ts):
// with no player or match part it is the one-match score of all the events together (a second
// computation); the variance parts are recovered from a population drawn with known ones; the
// pooled z-score of honest players drawn from that model is standard normal whatever their event
// counts; and on a seeded honest population of persons who play five matches each, thresholds fitted
// on some persons flag at most 1% of others at any of their first five matches, where the per-match
// threshold read across matches would flag many, while a persistent cheat is caught more often the
// more matches it plays. The shipped cross-match calibration loads and round-trips.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../shared/util/prng';
import { calibrate, MEASURES, scorePlayer, type BehaviourEvent, type Calibration } from '../server/behaviour/score';
import { scoreAcrossMatches, type MatchEvidence } from '../server/behaviour/crossMatch';
import { fitCrossMatch, scoresByMatches, varianceParts } from '../server/behaviour/crossCalibrate';
import { crossCalibrationText, DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration, parseCrossCalibration, type CrossMatchCalibration } from '../server/behaviour/crossCalibration';

const idx = (name: string) => MEASURES.findIndex((m) => m.name === name);
const REACTION = idx('reaction'), SWEEP = idx('sweep'), LAG = idx('trackLag'), HOLDS = idx('shortHolds');

function rng(seed: number) {
  const u = mulberry32(seed);
  return { u, normal: () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u()) };
}

/** A person of the model: its own offsets (in units of each measure's spread), the same in every match; `cheat` shifts its reaction. */
interface Person { reaction: number; sweep: number; lag: number; holds: number; cheat: number }

function person(r: ReturnType<typeof rng>, cheat = 0): Person {
  return { reaction: r.normal(), sweep: r.normal(), lag: r.normal(), holds: r.normal(), cheat };
}

/** One match of `p`: events whose values move with the person (player part), the match (match part) and each event (noise). */
function matchEvents(p: Person, r: ReturnType<typeof rng>): BehaviourEvent[] {
  const ev: BehaviourEvent[] = [];
  let shot = 0;
  const add = (measure: number, n: number, value: () => number) => { for (let i = 0; i < n; i++) ev.push({ measure, value: value(), shot: shot++, timeMs: shot * 100 }); };
  const mReaction = r.normal(), mSweep = r.normal(), mLag = r.normal(), mHolds = r.normal();
  add(REACTION, 4 + Math.floor(r.u() * 16), () => 260 + 18 * p.reaction + 12 * mReaction + 60 * r.normal() - p.cheat);
  add(SWEEP, 4 + Math.floor(r.u() * 16), () => Math.abs(40 + 6 * p.sweep + 5 * mSweep + 25 * r.normal()));
  add(LAG, 3 + Math.floor(r.u() * 10), () => 100 + 10 * p.lag + 8 * mLag + 30 * r.normal());
  const holds = Math.exp(-1.5 + 0.3 * p.holds + 0.4 * mHolds);
  add(HOLDS, 10 + Math.floor(r.u() * 20), () => holds * (0.5 + r.u()));
  return ev;
}

/** Persons' matches, each scored with the per-match calibration. */
function population(seed: number, persons: number, matches: number, cal: Calibration, cheat = 0): MatchEvidence[][] {
  const r = rng(seed);
  return Array.from({ length: persons }, (_, i) => {
    const p = person(r, cheat);
    return Array.from({ length: matches }, (_, j) => ({ match: `p${i}m${j}`, behaviour: scorePlayer(matchEvents(p, r), cal) }));
  });
}

/** The per-match calibration from single matches of other persons. */
function perMatchCalibration(seed: number): Calibration {
  const r = rng(seed);
  return calibrate(Array.from({ length: 300 }, () => matchEvents(person(r), r)), 'model');
}

describe('cross-match score against a second computation', () => {
  it('with no player or match part, each measure and the score are the one-match score of all the events together', () => {
    // A per-match calibration with no spread between players, and a cross-match one with none either.
    const base = perMatchCalibration(1);
    const cal: Calibration = { ...base, measures: Object.fromEntries(Object.entries(base.measures).map(([k, m]) => [k, { ...m, between: 0, tailBetween: 0 }])) };
    const cross: CrossMatchCalibration = {
      source: 'test', behaviourSource: cal.source, honestPlayers: 0, fpTarget: 0.01, fitShare: 0.005, thresholds: [3, 3, 3, 3],
      measures: Object.fromEntries(MEASURES.filter((m) => m.level === 'event' && cal.measures[m.name]).map((m) => {
        const c = cal.measures[m.name]!;
        return [m.name, { mean: c.mean, sd: c.sd, matchSd: 0, playerSd: 0, tailMean: c.tailMean, tailMatchSd: 0, tailPlayerSd: 0, players: 0 }];
      })),
    };
    const r = rng(2);
    let compared = 0;
    for (let t = 0; t < 40; t++) {
      const p = person(r, t % 3 === 0 ? 40 : 0);
      const matches = Array.from({ length: 1 + (t % 4) }, () => matchEvents(p, r));
      const all = matches.flat().filter((e) => MEASURES[e.measure]!.level === 'event');
      const one = scorePlayer(all, cal);
      const many = scoreAcrossMatches(matches.map((ev, j) => ({ match: String(j), behaviour: scorePlayer(ev, cal) })), cross);
      for (const name of Object.keys(cross.measures)) {
        const a = one.measures.find((m) => m.name === name)!, b = many.measures.find((m) => m.name === name)!;
        expect(b.events, name).toBe(a.events);
        if (a.events === 0) continue;
        expect(b.stat, name).toBeCloseTo(a.stat, 12);
        expect(Math.log10(b.p), `${name} over ${a.events} events`).toBeCloseTo(Math.log10(a.p), 9);
        compared++;
      }
      expect(many.score).toBeCloseTo(one.score, 9);
      expect(many.combined).toBeCloseTo(one.combined, 9);
    }
    expect(compared).toBeGreaterThan(60);
  });

  it('recovers the player and match parts of a population drawn with known ones', () => {
    const r = rng(3);
    const P = 0.05, M = 0.03, S = 0.29;
    const players = Array.from({ length: 3000 }, () => {
      const b = P * r.normal();
      return Array.from({ length: 2 + Math.floor(r.u() * 4) }, () => {
        const n = 1 + Math.floor(r.u() * 30);
        return { n, x: 0.5 + b + M * r.normal() + (S / Math.sqrt(n)) * r.normal() };
      });
    });
    const v = varianceParts(players, S * S);
    expect(v.mean).toBeCloseTo(0.5, 2);
    expect(v.playerSd).toBeGreaterThan(P * 0.9);
    expect(v.playerSd).toBeLessThan(P * 1.1);
    expect(v.matchSd).toBeGreaterThan(M * 0.8);
    expect(v.matchSd).toBeLessThan(M * 1.2);
  });

  it('an honest player\'s pooled z is standard normal under the model, whatever its matches\' event counts', () => {
    const r = rng(4);
    const c = { mean: 0.5, sd: 0.29, matchSd: 0.04, playerSd: 0.06, tailMean: 0.1, tailMatchSd: 0, tailPlayerSd: 0, players: 0 };
    const cross: CrossMatchCalibration = { source: 't', behaviourSource: 't', honestPlayers: 0, fpTarget: 0.01, fitShare: 0.005, thresholds: [9, 9, 9, 9, 9, 9], measures: { reaction: c } };
    const zs: number[] = [];
    for (let t = 0; t < 20000; t++) {
      const b = c.playerSd * r.normal();
      const k = 1 + (t % 6);
      const matches: MatchEvidence[] = Array.from({ length: k }, (_, j) => {
        const n = 8 + Math.floor(r.u() * 40);
        const stat = c.mean + b + c.matchSd * r.normal() + (c.sd / Math.sqrt(n)) * r.normal();
        return { match: String(j), behaviour: { score: 0, measures: [{ name: 'reaction', events: n, beyond: 0, stat }] } };
      });
      zs.push(scoreAcrossMatches(matches, cross).measures[REACTION]!.z);
    }
    const mean = zs.reduce((a, z) => a + z, 0) / zs.length;
    const sd = Math.sqrt(zs.reduce((a, z) => a + (z - mean) ** 2, 0) / zs.length);
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(sd).toBeGreaterThan(0.97);
    expect(sd).toBeLessThan(1.03);
    // Low ranks are suspicious for reaction: z is read on the low side, so its upper 5% tail is 5%.
    expect(zs.filter((z) => z > 1.6448536).length / zs.length).toBeCloseTo(0.05, 2);
  });
});

describe('false positives per player on a seeded honest population', () => {
  const cal = perMatchCalibration(10);
  const fitOn = population(11, 240, 5, cal);
  const cross = fitCrossMatch(fitOn, cal, { source: 'model', horizon: 5 });
  const heldOut = population(12, 400, 5, cal);
  const everFlagged = (people: MatchEvidence[][], c: CrossMatchCalibration, k = 5) =>
    people.filter((p) => { for (let j = 1; j <= k; j++) if (scoreAcrossMatches(p.slice(0, j), c).flagged) return true; return false; }).length / people.length;

  it('fits the player part it was drawn with and thresholds for 1 to 5 matches, none under 2', () => {
    expect(cross.thresholds.length).toBe(5);
    for (const t of cross.thresholds) expect(t).toBeGreaterThanOrEqual(2);
    expect(cross.measures.reaction!.playerSd).toBeGreaterThan(0.02);
    // At most fitShare of its own persons are flagged at any of their first five matches.
    const own = scoresByMatches(fitOn, cross, 5).filter((s) => s.some((x, k) => x >= cross.thresholds[k]!)).length;
    expect(own).toBeLessThanOrEqual(Math.floor(cross.fitShare * fitOn.length));
  });

  it('flags at most 1% of held-out honest persons within five matches; the one-match threshold across matches would flag more', () => {
    expect(everFlagged(heldOut, cross)).toBeLessThanOrEqual(0.01);
    // The pooled score judged with the per-match threshold and no player part: honest persons who are
    // quick in every match add up.
    const naive: CrossMatchCalibration = {
      ...cross, thresholds: new Array(5).fill(cal.scoreThreshold),
      measures: Object.fromEntries(Object.entries(cross.measures).map(([k, m]) => [k, { ...m, playerSd: 0, tailPlayerSd: 0 }])),
    };
    expect(everFlagged(heldOut, naive)).toBeGreaterThan(0.03);
  });

  it('a persistent cheat is caught more often the more matches it plays, and the result names the measure and matches behind it', () => {
    const cheaters = population(13, 100, 5, cal, 80);
    const within1 = everFlagged(cheaters, cross, 1), within5 = everFlagged(cheaters, cross, 5);
    expect(within5).toBeGreaterThan(within1 + 0.3);
    const who = cheaters.findIndex((p) => scoreAcrossMatches(p, cross).flagged);
    const caught = scoreAcrossMatches(cheaters[who]!, cross);
    const d = caught.drivers[0]!;
    expect(d.measure).toBe('reaction');
    // Each match's share of the measure's z-score: all five matches, adding up to the z-score.
    expect(d.byMatch.map((m) => m.match).sort()).toEqual(cheaters[who]!.map((m) => m.match).sort());
    expect(d.byMatch.reduce((a, m) => a + m.z, 0)).toBeCloseTo(d.z, 9);
    expect(d.byMatch[0]!.z).toBeGreaterThanOrEqual(d.byMatch[4]!.z);
    expect(caught.byMatch.map((m) => m.match).sort()).toEqual(cheaters[who]!.map((m) => m.match).sort());
  });
});

describe('cross-match calibration file', () => {
  it('the shipped file loads, has a threshold per match up to its horizon, and the writer reproduces it byte for byte', () => {
    const text = readFileSync(DEFAULT_CROSS_CALIBRATION_URL, 'utf8');
    const cal = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
    expect(cal.thresholds.length).toBeGreaterThanOrEqual(5);
    expect(cal.honestPlayers).toBeGreaterThanOrEqual(200);
    for (const name of Object.keys(cal.measures)) expect(MEASURES.some((m) => m.name === name), name).toBe(true);
    expect(crossCalibrationText(cal)).toBe(text);
    const doc = JSON.parse(text);
    expect(() => parseCrossCalibration(JSON.stringify({ ...doc, version: 9 }))).toThrow(/version 9/);
    expect(() => parseCrossCalibration(JSON.stringify({ ...doc, calibration: { ...doc.calibration, thresholds: [] } }))).toThrow(/no thresholds/);
  });
});
