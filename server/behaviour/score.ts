/**
 * Behaviour detection: turns each player's per-shot measures (server/behaviour/measures.ts) into one
 * score against what honest players do, and names the shots behind it.
 *
 * Event measures give one number per event (a shot, or the first shot of a sighting), read in the
 * direction a cheat pushes it (too fast a reaction, too fast a turn, a shot off the view, ...).
 * Calibration (from honest players only, see detect.ts) keeps each one's honest distribution (201
 * quantiles). Each of a player's events becomes its honest rank u in [0, 1] (mid-rank on ties);
 * under honest play the mean of n ranks sits at the honest mean rank with variance var(u) / n, so
 * the player gets the normal tail of that z-score in the suspicious direction (a rank-sum test:
 * it sees a whole distribution move). A second test does the same with the share of a player's
 * events in the honest 10% tail (it sees a cheat that shows only now and then, or only at the
 * extreme). Both add the spread between honest players to the variance. Events in that tail are
 * the offending shots the report lists.
 * Player measures are one number per player where a player's shots do not vary independently
 * (how far its rewind depth exceeds its declared interpolation delay, how its input stream holds
 * and bunches): the calibration keeps the honest players' mean and spread, and a player gets the
 * normal upper tail of its z-score. None compares a player's round trip, how much it varies, or
 * its declared delay (what its link and settings make them, which the rules bound) with other
 * players'.
 * The score is the larger of two: -log10 of the smallest tail over the tests times the number of
 * tests (Bonferroni: one measure far out), and -log10 of the tail of the sum of the measures'
 * squared positive z-scores (several measures out a little each; for independent measures that sum
 * is a binomial mixture of chi-squares, positiveChiTailLog10), each doubled for taking the larger. So 2 means "1 in
 * 100 for an honest player" before calibration; `scoreThreshold` is
 * calibrated on honest players too (at least 2, and no calibration player's score above it). No measure or threshold knows any cheat profile.
 */
import { DEFAULT_CALIBRATION, type Calibration, type MeasureCalibration } from './calibration';

export type { Calibration, MeasureCalibration } from './calibration';
import { betaBinomialTailLog10, normalTailLog10, normalUpperQuantile, positiveChiTailLog10 } from './tails';

export { betaBinomialTailLog10, normalTailLog10, normalUpperQuantile, positiveChiTailLog10, chiSquareTailLog10 } from './tails';

/** How a measure is read: which shots give an event and which tail is suspicious. */
export interface MeasureSpec {
  name: string;
  /** What the number is, for people. */
  what: string;
  unit: string;
  /** 'low': small values are suspicious; 'high': large ones. */
  tail: 'low' | 'high';
  /**
   * Which shots give an event: the first shot of a sighting, later shots at the same target (one
   * per track window), the first shot of every burst, or every shot (player measures). Shots within
   * a burst (under BURST_GAP_MS apart, behaviourEvents.ts) share one aim and are not independent events.
   */
  shots: 'first' | 'later' | 'bursts' | 'all';
  /** 'event': binomial count of extreme events; 'player': the player's median (or mean) against honest players'. */
  level: 'event' | 'player';
  /** What the log must carry for it: the players' views, their input counts, or nothing beyond poses and shots. */
  needs: 'view' | 'inputs' | null;
  /** For player measures: the statistic of the player's values. */
  stat?: 'median' | 'mean';
  /**
   * For a positive, right-skewed player statistic: compared on a log scale, log(max(stat, floor)),
   * so the honest players' long tail (a lossy link bunches inputs and holds its stream) is not read
   * as a normal tail.
   */
  logFloor?: number;
}

/** Tests per player: two per event measure, one per player measure (the Bonferroni factor). */
export function testCount(): number {
  let n = 0;
  for (const m of MEASURES) n += m.level === 'event' ? 2 : 1;
  return n;
}

export const MEASURES: readonly MeasureSpec[] = [
  { name: 'reaction', what: 'target in sight to the first shot at it', unit: 'ms', tail: 'low', shots: 'first', level: 'event', needs: 'view' },
  { name: 'turnSpeed', what: 'fastest view turn from the sighting to the first shot', unit: 'deg/s', tail: 'high', shots: 'first', level: 'event', needs: 'view' },
  { name: 'onTarget', what: 'view ray on the body before the first shot', unit: 'ms', tail: 'low', shots: 'first', level: 'event', needs: 'view' },
  { name: 'sweep', what: 'view moving across the target in the tick before the first shot', unit: 'deg/s', tail: 'high', shots: 'first', level: 'event', needs: 'view' },
  { name: 'preAim', what: 'view to target before it came into sight', unit: 'deg', tail: 'low', shots: 'first', level: 'event', needs: 'view' },
  { name: 'hiddenFollow', what: 'view turning with the target while it was hidden (regression gain)', unit: '', tail: 'high', shots: 'first', level: 'event', needs: 'view' },
  { name: 'viewOffset', what: 'shot direction off the view', unit: 'deg', tail: 'high', shots: 'bursts', level: 'event', needs: 'view' },
  // Angular aim errors shrink with distance (part of the error is the aim point's offset from the
  // recorded root): compared within distance bands, so a long-range player is not "too precise".
  { name: 'shotErrorNear', what: 'shot direction off the target, under 10 m', unit: 'deg', tail: 'low', shots: 'bursts', level: 'event', needs: null },
  { name: 'shotErrorMid', what: 'shot direction off the target, 10-25 m', unit: 'deg', tail: 'low', shots: 'bursts', level: 'event', needs: null },
  { name: 'shotErrorFar', what: 'shot direction off the target, over 25 m', unit: 'deg', tail: 'low', shots: 'bursts', level: 'event', needs: null },
  { name: 'trackJitter', what: 'wobble of the view around the target while firing on it (beyond what the target\'s motion explains)', unit: 'deg', tail: 'low', shots: 'later', level: 'event', needs: 'view' },
  { name: 'trackLag', what: 'how far the view trails the target while firing on it', unit: 'ms', tail: 'low', shots: 'later', level: 'event', needs: 'view' },
  // Network measures read the player against its own connection (its declared delay), never against
  // other players': a distant or slow-rendering honest player is no cheat. How late shots arrive
  // after their claimed time is not one: it is the link's one-way delay and stalls, and the client's
  // clock error, all of which vary between honest players far more than a backdated claim needs
  // (shots claimed before inputs already stepped are a rule of flags.ts instead).
  { name: 'depthExcess', what: 'rewind depth beyond the declared interpolation delay (median)', unit: 'ms', tail: 'high', shots: 'all', level: 'player', stat: 'median', needs: null },
  { name: 'shortHolds', what: 'holds of the input stream too short for a retransmission and too long for the frame rate, released in a bunch, per second (mean)', unit: '/s', tail: 'high', shots: 'all', level: 'player', stat: 'mean', logFloor: 0.05, needs: 'inputs' },
  { name: 'inputBunching', what: 'inputs per tick, variance over mean, in the 2 s before a shot (median)', unit: '', tail: 'high', shots: 'all', level: 'player', stat: 'median', logFloor: 0.05, needs: 'inputs' },
];

/** Player measures need at least this many values. */
const MIN_PLAYER_VALUES = 5;
/** An event measure scores a player only from this many events on (its tests are normal approximations). */
export const MIN_EVENTS = 8;

/** One event: a measure's value on one shot. */
export interface BehaviourEvent {
  measure: number;
  value: number;
  /** Shot ordinal in the log and its receive time. */
  shot: number;
  timeMs: number;
}

export interface MeasureResult {
  name: string;
  events: number;
  /** Event measures: events beyond the threshold; their mean honest rank is in `stat` (both from one event on; tested from MIN_EVENTS). */
  beyond: number;
  /** Event measures: the events' mean honest rank. Player measures: the player's statistic (NaN under 5 values). */
  stat: number;
  /** Tail probability for an honest player (the smaller of the measure's tests). */
  p: number;
  /** -log10(p x tests), at least 0: the measure's part of the score. */
  score: number;
  median: number;
}

export interface BehaviourResult {
  score: number;
  /** The combined part of the score (sum of squared positive z-scores over the measures). */
  combined: number;
  flagged: boolean;
  measures: MeasureResult[];
  /** Events beyond the threshold of every measure whose own score passes the threshold: the shots to look at. */
  offending: { shot: number; timeMs: number; measure: string; value: number; threshold: number; unit: string }[];
}

/** The honest rank of x in [0, 1] from the calibration's quantile table (mid-rank on ties, linear in between). */
export function honestRank(q: readonly number[], x: number): number {
  const last = q.length - 1;
  if (!(x >= q[0]!)) return 0;
  if (!(x <= q[last]!)) return 1;
  let lo = 0, hi = last;
  // First index with q >= x.
  while (lo < hi) { const m = (lo + hi) >> 1; if (q[m]! < x) lo = m + 1; else hi = m; }
  const first = lo;
  if (q[first] === x) {
    let end = first;
    while (end < last && q[end + 1] === x) end++;
    return (first + end) / 2 / last;
  }
  const below = first - 1;
  return (below + (x - q[below]!) / (q[first]! - q[below]!)) / last;
}

function median(v: number[]): number {
  if (v.length === 0) return NaN;
  const s = v.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const beyond = (spec: MeasureSpec, value: number, threshold: number) => (spec.tail === 'low' ? value <= threshold : value >= threshold);

/** A player statistic on the scale its calibration is kept in (see MeasureSpec.logFloor). */
export function playerScale(spec: MeasureSpec, x: number): number {
  return spec.logFloor === undefined ? x : Math.log(Math.max(x, spec.logFloor));
}

/** A player measure's statistic over its values (NaN when too few). */
function playerStat(spec: MeasureSpec, values: number[]): number {
  if (values.length < MIN_PLAYER_VALUES) return NaN;
  if (spec.stat === 'mean') {
    // A rate of rare events: most windows hold none, so a median reads 0.
    let sum = 0;
    for (const v of values) sum += v;
    return sum / values.length;
  }
  return median(values);
}

/** Scores one player's events. */
export function scorePlayer(events: readonly BehaviourEvent[], cal: Calibration = DEFAULT_CALIBRATION): BehaviourResult {
  const m = MEASURES.length;
  const byMeasure: BehaviourEvent[][] = MEASURES.map(() => []);
  for (const e of events) byMeasure[e.measure]!.push(e);
  const measures: MeasureResult[] = [];
  const scores: number[] = [];
  const tests = testCount();
  let score = 0;
  let chi = 0;
  for (let i = 0; i < m; i++) {
    const spec = MEASURES[i]!;
    const c = cal.measures[spec.name];
    const list = byMeasure[i]!;
    const values = list.map((e) => e.value);
    const med = median(values);
    let lp = 0;
    let k = 0;
    let stat = NaN;
    if (c !== undefined && spec.level === 'event' && list.length > 0) {
      // The mean rank and the tail count from one event on (several matches' few events add up,
      // crossMatch.ts); the tests from MIN_EVENTS on.
      let sum = 0;
      for (const v of values) {
        if (beyond(spec, v, c.threshold)) k++;
        sum += honestRank(c.quantiles, v);
      }
      stat = sum / values.length;
      const n = values.length;
      if (n < MIN_EVENTS) {
        measures.push({ name: spec.name, events: n, beyond: k, stat, p: 1, score: 0, median: med });
        scores.push(0);
        continue;
      }
      const z = ((spec.tail === 'high' ? 1 : -1) * (stat - c.mean)) / Math.sqrt((c.sd * c.sd) / n + c.between * c.between);
      // The tail count, exactly: a beta-binomial whose mean share is the honest one and whose
      // spread between players is tailBetween (a normal approximation overstates a few events).
      const pt = c.tailMean;
      const rho = pt > 0 && pt < 1 ? Math.min(0.5, (c.tailBetween * c.tailBetween) / (pt * (1 - pt))) : 0;
      const lpt = betaBinomialTailLog10(k, n, pt, rho);
      const zt = normalUpperQuantile(lpt);
      lp = Math.min(normalTailLog10(z), lpt);
      const zb = Math.max(z, zt);
      if (zb > 0) chi += zb * zb;
    } else if (c !== undefined && spec.level === 'player') {
      stat = playerStat(spec, values);
      if (stat === stat) {
        const z = ((spec.tail === 'high' ? 1 : -1) * (playerScale(spec, stat) - c.mean)) / c.sd;
        lp = normalTailLog10(z);
        if (z > 0) chi += z * z;
      }
    }
    const s = Math.max(0, -lp - Math.log10(2 * tests));
    measures.push({ name: spec.name, events: list.length, beyond: k, stat, p: 10 ** lp, score: s, median: med });
    scores.push(s);
    if (s > score) score = s;
  }
  const combined = Math.max(0, -positiveChiTailLog10(chi, m) - Math.log10(2));
  if (combined > score) score = combined;
  const flagged = score >= cal.scoreThreshold;
  const offending: BehaviourResult['offending'] = [];
  if (flagged) {
    for (let i = 0; i < m; i++) {
      // The measures behind the flag: those past the threshold alone, or for a combined flag every measure with a real share in it.
      if (scores[i]! < (combined >= cal.scoreThreshold ? 1 : cal.scoreThreshold)) continue;
      const spec = MEASURES[i]!;
      const c = cal.measures[spec.name]!;
      // A player measure's offending shots: those beyond the honest mean + 3 sd.
      for (const e of byMeasure[i]!) if (beyond(spec, e.value, c.threshold)) offending.push({ shot: e.shot, timeMs: e.timeMs, measure: spec.name, value: e.value, threshold: c.threshold, unit: spec.unit });
    }
    offending.sort((a, b) => a.shot - b.shot);
  }
  return { score, combined, flagged, measures, offending };
}

/**
 * A source of honest players smaller than this many has its highest score raised by log10(this / n)
 * for the score threshold (calibrate).
 */
export const THRESHOLD_PLAYERS = 200;

/**
 * Calibrates from honest players' events (an array of per-player event lists): per event measure
 * the quantile table, the q-tail value and the honest rank's mean and spread; per player measure
 * the honest players' mean and spread; then the score threshold: at least 2 and above the highest
 * honest score plus `margin` (default 0: the highest of a few hundred honest players is their 99.7th
 * percentile or so). `groups` names each player's source (synthetic players, simulator bots, ...):
 * a source of n < THRESHOLD_PLAYERS players shows its highest score about once in n, and since a
 * score is -log10 of a tail probability, one log10(THRESHOLD_PLAYERS / n) higher about once in
 * THRESHOLD_PLAYERS; the threshold is above that too, so a small source that sits apart from the
 * rest (its players score higher) is not flagged one in n times on its next players.
 */
export function calibrate(honest: readonly (readonly BehaviourEvent[])[], source: string, q = 0.1, margin = 0, groups?: readonly number[]): Calibration {
  const measures: Record<string, MeasureCalibration> = {};
  MEASURES.forEach((spec, i) => {
    if (spec.level === 'player') {
      const stats: number[] = [];
      for (const p of honest) {
        const st = playerStat(spec, p.filter((e) => e.measure === i).map((e) => e.value));
        if (st === st) stats.push(playerScale(spec, st));
      }
      if (stats.length < 10) return;
      let mean = 0;
      for (const v of stats) mean += v;
      mean /= stats.length;
      let q2 = 0;
      for (const v of stats) q2 += (v - mean) * (v - mean);
      // A floor on the spread: a statistic the honest players all share exactly must still move by a
      // measurable amount (1 of its unit, or 5% on a log scale).
      const sd = Math.max(Math.sqrt(q2 / (stats.length - 1)), spec.logFloor === undefined ? 1 : 0.05);
      const edge = mean + (spec.tail === 'high' ? 3 : -3) * sd;
      measures[spec.name] = { threshold: spec.logFloor === undefined ? edge : Math.exp(edge), quantiles: [], mean, sd, between: 0, tailMean: NaN, tailSd: NaN, tailBetween: NaN, events: stats.length };
      return;
    }
    const values: number[] = [];
    for (const p of honest) for (const e of p) if (e.measure === i && Number.isFinite(e.value)) values.push(e.value);
    if (values.length < 20) return;
    values.sort((a, b) => a - b);
    const at = spec.tail === 'low' ? Math.floor(q * (values.length - 1)) : Math.ceil((1 - q) * (values.length - 1));
    const threshold = values[at]!;
    const quantiles: number[] = [];
    for (let j = 0; j <= 200; j++) quantiles.push(values[Math.round((j / 200) * (values.length - 1))]!);
    const rank = spread(honest, i, (v) => honestRank(quantiles, v));
    const tail = spread(honest, i, (v) => (beyond(spec, v, threshold) ? 1 : 0));
    measures[spec.name] = {
      threshold, quantiles, mean: rank.mean, sd: rank.sd, between: rank.between, tailMean: tail.mean, tailSd: tail.sd, tailBetween: tail.between, events: values.length,
    };
  });
  const cal: Calibration = { source, honestPlayers: honest.length, q, measures, scoreThreshold: 2 };
  // The score threshold: at least 2, and no honest calibration player above it (plus the margin).
  let top = 0;
  const byGroup = new Map<number, { top: number; n: number }>();
  honest.forEach((p, i) => {
    const sc = scorePlayer(p, cal).score;
    top = Math.max(top, sc);
    const g = groups?.[i] ?? 0;
    const e = byGroup.get(g) ?? { top: 0, n: 0 };
    byGroup.set(g, { top: Math.max(e.top, sc), n: e.n + 1 });
  });
  for (const g of byGroup.values()) if (g.n < THRESHOLD_PLAYERS) top = Math.max(top, g.top + Math.log10(THRESHOLD_PLAYERS / g.n));
  cal.scoreThreshold = Math.max(2, top + margin);
  return cal;
}

/**
 * Mean and spread of f(value) over honest events of measure i, and the spread between honest
 * players' means beyond what their event counts explain (players with at least 5 events).
 */
function spread(honest: readonly (readonly BehaviourEvent[])[], i: number, f: (v: number) => number): { mean: number; sd: number; between: number } {
  let n = 0, m1 = 0, m2 = 0;
  const perPlayer: { sum: number; n: number }[] = [];
  for (const p of honest) {
    let sum = 0, c = 0;
    for (const e of p) {
      if (e.measure !== i || !Number.isFinite(e.value)) continue;
      const x = f(e.value);
      sum += x; c++; m1 += x; m2 += x * x; n++;
    }
    if (c >= MIN_EVENTS) perPlayer.push({ sum, n: c });
  }
  m1 /= Math.max(1, n);
  const sd = Math.sqrt(Math.max(1e-6, m2 / Math.max(1, n) - m1 * m1));
  let between = 0;
  if (perPlayer.length >= 10) {
    let mm = 0, explained = 0;
    for (const p of perPlayer) { mm += p.sum / p.n; explained += (sd * sd) / p.n; }
    mm /= perPlayer.length;
    let vv = 0;
    for (const p of perPlayer) vv += (p.sum / p.n - mm) * (p.sum / p.n - mm);
    between = Math.sqrt(Math.max(0, vv / (perPlayer.length - 1) - explained / perPlayer.length));
  }
  return { mean: m1, sd, between };
}

/** The calibration with every number to 7 significant digits (what calibration.ts stores, so evaluation and audit agree). */
export function roundCalibration(cal: Calibration): Calibration {
  const r = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(7)) : v);
  const measures: Record<string, MeasureCalibration> = {};
  for (const [k, m] of Object.entries(cal.measures)) {
    measures[k] = {
      threshold: r(m.threshold), quantiles: m.quantiles.map(r), mean: r(m.mean), sd: r(m.sd), between: r(m.between),
      tailMean: r(m.tailMean), tailSd: r(m.tailSd), tailBetween: r(m.tailBetween), events: m.events,
    };
  }
  return { ...cal, measures, scoreThreshold: r(cal.scoreThreshold) };
}
