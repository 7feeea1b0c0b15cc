/**
 * Fits the cross-match calibration (crossCalibration.ts) on honest players who each played several
 * matches: per measure, how much of the honest spread stays with the player from match to match and
 * how much changes with the match (method of moments over pairs of one player's matches), then the
 * score threshold for 1 ... k matches, set on those players' own cross-match scores so that no more
 * than a given share of them is flagged at any of their first k matches.
 */
import { MEASURES, playerScale, type Calibration } from './score';
import { scoreAcrossMatches, type MatchEvidence } from './crossMatch';
import type { CrossMatchCalibration, CrossMeasure } from './crossCalibration';

/** One player's matches that gave a measure something: per match the events (1 for a player statistic), value and tail share. */
type Row = { n: number; x: number; t: number };

/**
 * Variance components of a per-match value x with events n, whose events' own variance is `noise`
 * (0: none), over players' rows: the mean, the part that changes from match to match and the part
 * that stays with the player. Within a player, E[(x_i - x_j)^2] / 2 = M^2 + noise (1/n_i + 1/n_j) / 2;
 * across two of its matches, E[(x_i - mu)(x_j - mu)] = P^2. Pairs weigh by their events' harmonic
 * mean, so matches with a handful of events count less; each player's pairs together weigh as one
 * match pair, so players with more matches do not count more.
 */
export function varianceParts(players: readonly (readonly { n: number; x: number }[])[], noise: number): { mean: number; matchSd: number; playerSd: number; players: number } {
  let sw = 0, sx = 0;
  for (const p of players) for (const r of p) { sw += r.n; sx += r.n * r.x; }
  const mean = sw > 0 ? sx / sw : NaN;
  let wm = 0, m2 = 0, wp = 0, p2 = 0, used = 0;
  for (const p of players) {
    if (p.length < 2) continue;
    used++;
    const pairs = (p.length * (p.length - 1)) / 2;
    for (let i = 0; i < p.length; i++) {
      for (let j = i + 1; j < p.length; j++) {
        const a = p[i]!, b = p[j]!;
        const w = 1 / (1 / a.n + 1 / b.n) / pairs;
        const d = a.x - b.x;
        wm += w; m2 += w * (d * d / 2 - (noise * (1 / a.n + 1 / b.n)) / 2);
        wp += w; p2 += w * (a.x - mean) * (b.x - mean);
      }
    }
  }
  return { mean, matchSd: wm > 0 ? Math.sqrt(Math.max(0, m2 / wm)) : 0, playerSd: wp > 0 ? Math.sqrt(Math.max(0, p2 / wp)) : 0, players: used };
}

/**
 * Each measure's honest parts from the players' matches, beside the per-match calibration. The
 * centre is the per-match calibration's, and the player part at least what its spread between
 * players (of one match each) leaves after the match part: its honest players may be a broader
 * population than the persons who played several matches (simulator bots beside synthetic players),
 * and a quirk of their setup stays with them from match to match.
 */
export function crossMeasures(players: readonly (readonly MatchEvidence[])[], behaviour: Calibration): Record<string, CrossMeasure> {
  const out: Record<string, CrossMeasure> = {};
  for (const spec of MEASURES) {
    const c = behaviour.measures[spec.name];
    if (c === undefined) continue;
    const rows: Row[][] = players.map((p) => {
      const list: Row[] = [];
      for (const m of p) {
        const r = m.behaviour?.measures.find((x) => x.name === spec.name);
        if (r === undefined || !(r.stat === r.stat)) continue;
        if (spec.level === 'player') list.push({ n: 1, x: playerScale(spec, r.stat), t: NaN });
        else if (r.events > 0) list.push({ n: r.events, x: r.stat, t: r.beyond / r.events });
      }
      return list;
    });
    // The player part: at least what the one-match spread between players leaves after the match part.
    const player = (own: number, oneMatch: number, match: number) => Math.sqrt(Math.max(own * own, oneMatch * oneMatch - match * match));
    if (spec.level === 'player') {
      const v = varianceParts(rows, 0);
      if (v.players < 10) continue;
      out[spec.name] = { mean: c.mean, sd: NaN, matchSd: v.matchSd, playerSd: player(v.playerSd, c.sd, v.matchSd), tailMean: NaN, tailMatchSd: NaN, tailPlayerSd: NaN, players: v.players };
      continue;
    }
    const v = varianceParts(rows, c.sd * c.sd);
    if (v.players < 10) continue;
    const pt = c.tailMean;
    const t = varianceParts(rows.map((p) => p.map((r) => ({ n: r.n, x: r.t }))), pt * (1 - pt));
    out[spec.name] = {
      mean: c.mean, sd: c.sd, matchSd: v.matchSd, playerSd: player(v.playerSd, c.between, v.matchSd),
      tailMean: pt, tailMatchSd: t.matchSd, tailPlayerSd: player(t.playerSd, c.tailBetween, t.matchSd), players: v.players,
    };
  }
  return out;
}

export interface FitOptions {
  source: string;
  /** Matches the thresholds go up to (default: the most any player played). */
  horizon?: number;
  /** The per-player false-positive rate the calibration is for (default 0.01). */
  fpTarget?: number;
  /**
   * The share of its own honest players it may flag at any of their first k matches (default half
   * of fpTarget: what is fitted on one sample is looser on the next).
   */
  fitShare?: number;
  /** No threshold below this (default the per-match calibration's threshold: several matches are never judged more loosely than one). */
  floor?: number;
}

/**
 * Each honest player's cross-match score over its first 1, 2, ... `horizon` matches (NaN where it
 * played fewer), under `cal` (its thresholds are not read).
 */
export function scoresByMatches(players: readonly (readonly MatchEvidence[])[], cal: CrossMatchCalibration, horizon: number): number[][] {
  const open = { ...cal, thresholds: new Array<number>(horizon).fill(Infinity) };
  return players.map((p) => {
    const scored = p.filter((m) => m.behaviour !== null);
    const out: number[] = [];
    for (let k = 1; k <= horizon; k++) out.push(k <= scored.length ? scoreAcrossMatches(scored.slice(0, k), open).score : NaN);
    return out;
  });
}

/** The smallest number of 7 significant digits (what the file keeps) above x. */
function above7(x: number): number {
  const r = Number(x.toPrecision(7));
  return r > x ? r : Number((r + 10 ** (Math.floor(Math.log10(Math.abs(r) || 1)) - 6)).toPrecision(7));
}

/**
 * Thresholds for 1 ... horizon matches from honest players' scores (scores[p][k - 1]): at each k
 * just above the j-th highest score (the same j for every k; as the file keeps it), with j as large
 * as keeps the players flagged at any k within `allowed`; never under `floor`.
 */
export function thresholdsFor(scores: readonly (readonly number[])[], horizon: number, allowed: number, floor: number): number[] {
  const sorted: number[][] = [];
  for (let k = 0; k < horizon; k++) sorted.push(scores.map((s) => s[k]!).filter((x) => x === x).sort((a, b) => b - a));
  const at = (j: number) => sorted.map((s) => Math.max(floor, j <= s.length ? above7(s[j - 1]!) : floor));
  const flaggedBy = (thr: number[]) => scores.filter((s) => thr.some((t, k) => s[k]! >= t)).length;
  let best = at(1);
  for (let j = 2; j <= scores.length; j++) {
    const thr = at(j);
    if (flaggedBy(thr) > allowed) break;
    best = thr;
  }
  return best;
}

/** Fits the cross-match calibration on honest players' matches (each player's in the order played), scored with `behaviour`. */
export function fitCrossMatch(players: readonly (readonly MatchEvidence[])[], behaviour: Calibration, o: FitOptions): CrossMatchCalibration {
  const horizon = o.horizon ?? Math.max(1, ...players.map((p) => p.filter((m) => m.behaviour !== null).length));
  const fpTarget = o.fpTarget ?? 0.01;
  const fitShare = o.fitShare ?? fpTarget / 2;
  const cal: CrossMatchCalibration = {
    source: o.source, behaviourSource: behaviour.source, honestPlayers: players.length, fpTarget, fitShare,
    measures: crossMeasures(players, behaviour), thresholds: [],
  };
  const scores = scoresByMatches(players, cal, horizon);
  cal.thresholds = thresholdsFor(scores, horizon, Math.floor(fitShare * players.length), o.floor ?? Math.max(2, behaviour.scoreThreshold));
  return cal;
}
