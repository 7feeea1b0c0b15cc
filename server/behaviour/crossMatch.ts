/**
 * Behaviour evidence across a player's matches. One match's score (score.ts) rests on the few
 * dozen events a player gives in it; a subtle cheat shows in every match it plays. This module
 * pools a player's per-match measure summaries (what the audit gives per match: each measure's
 * event count, mean honest rank and tail count, or the player statistic) into one test per measure
 * over all its matches, and combines the measures as score.ts does (Bonferroni over the tests, and
 * the sum of squared positive z-scores).
 *
 * Pooling is not independence: an honest player who reacts quickly does so in every match. Each
 * measure's honest spread is split (crossCalibrate.ts) into the part that belongs to the player
 * (the same in every match), the part that belongs to the match (opponents, map positions) and the
 * events' own noise; a player's pooled statistic over k matches is judged against the variance
 * those give for its event counts, so more matches shrink only the parts that average out. The
 * threshold for k matches is set empirically on honest players who each played several matches, so
 * that few enough of them are flagged at any of their first k matches (the false-positive rate is
 * per player, not per match). Pure: plain arrays in, a result out; the evidence store calls it.
 */
import { MEASURES, MIN_EVENTS, playerScale, testCount } from './score';
import { betaBinomialTailLog10, normalTailLog10, normalUpperQuantile, positiveChiTailLog10 } from './tails';
import type { CrossMatchCalibration, CrossMeasure } from './crossCalibration';

export type { CrossMatchCalibration, CrossMeasure } from './crossCalibration';

/** What the cross-match score reads of one measure of one match (score.ts MeasureResult). */
export interface MatchMeasure {
  name: string;
  events: number;
  /** Event measures: events in the honest tail. */
  beyond: number;
  /** Event measures: mean honest rank of the events; player measures: the statistic (NaN: none). */
  stat: number;
}

/** One match of one player: what the audit gave (its BehaviourResult and rule flags). */
export interface MatchEvidence {
  /** The caller's name for the match (echoed in the result). */
  match: string;
  /** The per-match behaviour result (null: not scored, the match is left out). */
  behaviour: { score: number; measures: readonly MatchMeasure[] } | null;
  /** The match's rule flags (counted in the result, not scored). */
  flags?: readonly { rule: string }[];
}

export interface CrossMeasureResult {
  name: string;
  /** Matches that gave the measure anything, and its events over them (player measures: matches with a statistic). */
  matches: number;
  events: number;
  /** Event measures: the pooled mean honest rank; player measures: the mean statistic over matches (on its calibrated scale). */
  stat: number;
  /** Its z-score (suspicious side positive; NaN when not tested) and tail probability. */
  z: number;
  p: number;
  /** -log10(p x tests), at least 0. */
  score: number;
}

export interface CrossMatchResult {
  /** Matches scored (the latest `calibration.thresholds.length` that have a behaviour result). */
  matches: number;
  score: number;
  combined: number;
  /** The threshold for this many matches (Infinity for none). */
  threshold: number;
  flagged: boolean;
  measures: CrossMeasureResult[];
  /**
   * The measures behind the score (each whose own score is at least 1, or the largest), and per
   * measure the matches by their share of its z-score, largest first.
   */
  drivers: { measure: string; score: number; z: number; byMatch: { match: string; z: number }[] }[];
  /** Matches by their summed share of the drivers' z-scores, largest first, with each match's own score. */
  byMatch: { match: string; z: number; matchScore: number }[];
  /** Rule flags by rule: how many of the scored matches raised it (shown beside the score, not part of it). */
  ruleFlags: Record<string, number>;
}

/** One measure of one match: its events (or 1 for a player statistic) and its value. */
interface Part { match: string; n: number; stat: number; beyond: number }

/** The suspicious side's sign of a measure. */
const side = (i: number) => (MEASURES[i]!.tail === 'high' ? 1 : -1);

/** A measure's pooled test over `parts` (each a match that gave it something). */
function measureTest(i: number, parts: readonly Part[], c: CrossMeasure | undefined): { out: CrossMeasureResult; lp: number; zb: number; shares: number[] } {
  const spec = MEASURES[i]!;
  const none = { out: { name: spec.name, matches: parts.length, events: 0, stat: NaN, z: NaN, p: 1, score: 0 }, lp: 0, zb: 0, shares: parts.map(() => 0) };
  if (c === undefined || parts.length === 0) return none;
  if (spec.level === 'player') {
    const k = parts.length;
    let mean = 0;
    for (const q of parts) mean += q.stat / k;
    const sd = Math.sqrt(c.playerSd * c.playerSd + (c.matchSd * c.matchSd) / k);
    if (!(sd > 0)) return none;
    const z = (side(i) * (mean - c.mean)) / sd;
    const shares = parts.map((q) => (side(i) * (q.stat - c.mean)) / k / sd);
    return { out: { name: spec.name, matches: k, events: k, stat: mean, z, p: 10 ** normalTailLog10(z), score: 0 }, lp: normalTailLog10(z), zb: z, shares };
  }
  let n = 0, sum = 0, k = 0, n2 = 0;
  for (const q of parts) { n += q.n; sum += q.n * q.stat; k += q.beyond; n2 += q.n * q.n; }
  if (n < MIN_EVENTS) return { ...none, out: { ...none.out, events: n, stat: sum / n } };
  const stat = sum / n;
  // The pooled mean rank: the events' noise, the matches' and the player's own offset.
  const sd = Math.sqrt((c.sd * c.sd) / n + (c.matchSd * c.matchSd * n2) / (n * n) + c.playerSd * c.playerSd);
  const z = (side(i) * (stat - c.mean)) / sd;
  // The pooled tail count: beta-binomial whose correlation gives the count the variance of its
  // player and match parts (n p (1 - p) (1 + (n - 1) rho) = n p (1 - p) + n^2 P^2 + sum n_i^2 M^2).
  const pt = c.tailMean;
  let lpt = 0, zt = 0;
  if (pt > 0 && pt < 1) {
    const extra = n * c.tailPlayerSd * c.tailPlayerSd + (n2 / n) * c.tailMatchSd * c.tailMatchSd;
    const rho = n > 1 ? Math.min(0.5, extra / ((n - 1) * pt * (1 - pt))) : 0;
    lpt = betaBinomialTailLog10(k, n, pt, rho);
    zt = normalUpperQuantile(lpt);
  }
  const lp = Math.min(normalTailLog10(z), lpt);
  const shares = parts.map((q) => (side(i) * q.n * (q.stat - c.mean)) / n / sd);
  return { out: { name: spec.name, matches: parts.length, events: n, stat, z, p: 10 ** lp, score: 0 }, lp, zb: Math.max(z, zt), shares };
}

/** The threshold for `k` matches: the calibrated one, the last one past the horizon, Infinity for none. */
export function crossThreshold(cal: CrossMatchCalibration, k: number): number {
  if (k < 1 || cal.thresholds.length === 0) return Infinity;
  return cal.thresholds[Math.min(k, cal.thresholds.length) - 1]!;
}

/**
 * Scores a player over its matches (in the order played): the latest matches up to the
 * calibration's horizon that have a behaviour result, each measure pooled over them, judged with
 * the threshold for that many matches.
 */
export function scoreAcrossMatches(all: readonly MatchEvidence[], cal: CrossMatchCalibration): CrossMatchResult {
  const scored = all.filter((m) => m.behaviour !== null);
  const matches = scored.slice(Math.max(0, scored.length - Math.max(1, cal.thresholds.length)));
  const tests = testCount();
  const measures: CrossMeasureResult[] = [];
  const perMeasure: { i: number; score: number; z: number; shares: number[]; parts: Part[] }[] = [];
  let score = 0, chi = 0;
  for (let i = 0; i < MEASURES.length; i++) {
    const spec = MEASURES[i]!;
    const parts: Part[] = [];
    for (const m of matches) {
      const r = m.behaviour!.measures.find((x) => x.name === spec.name);
      if (r === undefined || !(r.stat === r.stat)) continue;
      if (spec.level === 'player') parts.push({ match: m.match, n: 1, stat: playerScale(spec, r.stat), beyond: 0 });
      else if (r.events > 0) parts.push({ match: m.match, n: r.events, stat: r.stat, beyond: r.beyond });
    }
    const t = measureTest(i, parts, cal.measures[spec.name]);
    t.out.score = Math.max(0, -t.lp - Math.log10(2 * tests));
    if (t.zb > 0) chi += t.zb * t.zb;
    if (t.out.score > score) score = t.out.score;
    measures.push(t.out);
    perMeasure.push({ i, score: t.out.score, z: t.out.z, shares: t.shares, parts });
  }
  const combined = Math.max(0, -positiveChiTailLog10(chi, MEASURES.length) - Math.log10(2));
  if (combined > score) score = combined;
  const threshold = crossThreshold(cal, matches.length);
  return { matches: matches.length, score, combined, threshold, flagged: score >= threshold, measures, ...drivers(perMeasure, matches), ruleFlags: ruleCounts(matches) };
}

/** The measures behind the score and the matches behind them. */
function drivers(perMeasure: { i: number; score: number; z: number; shares: number[]; parts: Part[] }[], matches: readonly MatchEvidence[]): Pick<CrossMatchResult, 'drivers' | 'byMatch'> {
  const top = Math.max(0, ...perMeasure.map((m) => m.score));
  const behind = perMeasure.filter((m) => m.z > 0 && (m.score >= 1 || (top > 0 && m.score === top))).sort((a, b) => b.score - a.score);
  const total = new Map<string, number>(matches.map((m) => [m.match, 0]));
  const list = behind.map((m) => {
    const byMatch = m.parts.map((q, j) => ({ match: q.match, z: m.shares[j]! })).sort((a, b) => b.z - a.z);
    for (const b of byMatch) total.set(b.match, total.get(b.match)! + Math.max(0, b.z));
    return { measure: MEASURES[m.i]!.name, score: m.score, z: m.z, byMatch };
  });
  const byMatch = matches.map((m) => ({ match: m.match, z: total.get(m.match)!, matchScore: m.behaviour!.score })).sort((a, b) => b.z - a.z || b.matchScore - a.matchScore);
  return { drivers: list, byMatch };
}

function ruleCounts(matches: readonly MatchEvidence[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of matches) for (const rule of new Set((m.flags ?? []).map((f) => f.rule))) out[rule] = (out[rule] ?? 0) + 1;
  return out;
}
