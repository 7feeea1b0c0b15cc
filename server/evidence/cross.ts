/**
 * The store's players ranked by their evidence across matches: each player's stored matches scored
 * by the score across matches (server/behaviour/crossMatch.ts, the test `npm run detect -- --matches`
 * calibrates), the same pooled test and per-player false-positive control: a player is flagged when
 * its score reaches the threshold for its number of scored matches, set so that few honest players
 * are flagged at any of their first matches (the calibration's fpTarget).
 *
 * Order: flagged players first, then by the score's margin over (or under) its threshold, then by
 * score, then by matches; players with no match the score can read come last. A stored match is
 * left out of the score when its audit scored no behaviour, or when it was recorded before the store
 * kept each measure's tail count (migration 2): such a player ranks on the matches it has, and its
 * entry says how many were left out and why.
 */
import { scoreAcrossMatches, type CrossMatchResult, type MatchEvidence } from '../behaviour/crossMatch';
import type { CrossMatchCalibration } from '../behaviour/crossCalibration';
import type { PlayerKey } from './evidence';
import type { EvidenceStore, Label, PlayerMatch, PlayerSummary } from './store';

/** Why a stored match is not in the score across matches, or null when it is readable. */
export type Unscored = 'no-score' | 'no-tail-counts';

export function whyUnscored(m: PlayerMatch): Unscored | null {
  if (m.score === null) return 'no-score';
  return m.measures.every((x) => x.beyond !== null) ? null : 'no-tail-counts';
}

/** A stored match as the score across matches takes it (null behaviour when whyUnscored says so). */
export function matchEvidenceOf(m: PlayerMatch): MatchEvidence {
  return {
    match: m.logId,
    behaviour: whyUnscored(m) !== null ? null : { score: m.score!, measures: m.measures.map((x) => ({ name: x.measure, events: x.events, beyond: x.beyond!, stat: x.stat ?? Number.NaN })) },
    flags: m.flags.map((f) => ({ rule: f.rule })),
  };
}

/** One player's score across its stored matches, in their stored order (oldest first). */
export function crossOfMatches(matches: readonly PlayerMatch[], cal: CrossMatchCalibration): CrossMatchResult {
  return scoreAcrossMatches(matches.map(matchEvidenceOf), cal);
}

export interface CrossRankedPlayer extends PlayerKey {
  /** Matches in the store. */
  matches: number;
  /** Matches the score read (the latest with measures, up to the calibration's horizon). */
  scoredMatches: number;
  /** Stored matches left out: the audit scored no behaviour; recorded before the store kept tail counts. */
  unscored: { noScore: number; noTailCounts: number };
  /** The score across matches and the threshold for `scoredMatches`; null when no match could be scored. */
  score: number | null;
  threshold: number | null;
  /** score - threshold (null with them). */
  margin: number | null;
  /** The score reached its threshold. */
  flagged: boolean;
  /** The measures behind the score, strongest first. */
  drivers: string[];
  /** Matches whose own (per-match) score flagged them, the highest of those scores, shots, offending shots. */
  flaggedMatches: number;
  maxScore: number | null;
  shots: number;
  offendingShots: number;
  /** The newest label, if any. */
  label: Label | null;
  /** Matches in the score whose per-match results came from another calibration than the one the score goes with (cal.behaviourSource). */
  otherCalibration: number;
  /** What the entry rests on when not every stored match is in the score, or some were scored with another calibration (null otherwise). */
  note: string | null;
}

/** A player's summary from all its stored matches (oldest first), as the store's playerSummaries gives it. */
export function summaryOf(player: PlayerKey, matches: readonly PlayerMatch[], latest: number, label: Label | null = null): PlayerSummary {
  const scores = matches.map((m) => m.score).filter((s): s is number => s !== null);
  const readable = matches.filter((m) => whyUnscored(m) === null);
  return {
    playerId: player.playerId, verified: player.verified, matches: matches.length, flaggedMatches: matches.filter((m) => m.flagged).length,
    maxScore: scores.length > 0 ? Math.max(...scores) : null, shots: matches.reduce((n, m) => n + m.shots, 0), offendingShots: matches.reduce((n, m) => n + m.offendingShots, 0),
    noScore: matches.filter((m) => whyUnscored(m) === 'no-score').length, noTailCounts: matches.filter((m) => whyUnscored(m) === 'no-tail-counts').length,
    label, readable: readable.slice(Math.max(0, readable.length - Math.max(0, Math.floor(latest)))),
  };
}

/** The ranked entry of a player: its latest readable matches scored across matches with `cal`. */
export function rankEntry(s: PlayerSummary, cal: CrossMatchCalibration): CrossRankedPlayer {
  const r = crossOfMatches(s.readable, cal);
  const scored = r.matches > 0;
  // s.readable is the latest readable matches up to the horizon: the ones the score read.
  const otherCalibration = s.readable.filter((m) => m.calibration !== cal.behaviourSource).length;
  return {
    playerId: s.playerId, verified: s.verified,
    matches: s.matches, scoredMatches: r.matches, unscored: { noScore: s.noScore, noTailCounts: s.noTailCounts },
    score: scored ? r.score : null, threshold: scored ? r.threshold : null, margin: scored ? r.score - r.threshold : null, flagged: scored && r.flagged,
    drivers: r.drivers.map((d) => d.measure),
    flaggedMatches: s.flaggedMatches, maxScore: s.maxScore, shots: s.shots, offendingShots: s.offendingShots,
    label: s.label, otherCalibration, note: noteOf(s, r.matches, otherCalibration),
  };
}

function noteOf(s: PlayerSummary, scored: number, otherCalibration: number): string | null {
  const notes: string[] = [];
  if (scored < s.matches) {
    const why: string[] = [];
    if (s.noScore > 0) why.push(`${s.noScore} the audit scored no behaviour in`);
    if (s.noTailCounts > 0) why.push(`${s.noTailCounts} recorded before the store kept the measures' tail counts (store migration 2; audit them again to count them)`);
    const older = s.matches - scored - s.noScore - s.noTailCounts;
    if (older > 0) why.push(`${older} older than the latest ${scored} scored`);
    notes.push(`${scored === 0 ? 'no match to score: not ranked by evidence' : `scored on ${scored} of ${s.matches} matches`}; left out: ${why.join('; ')}`);
  }
  if (otherCalibration > 0) notes.push(`${otherCalibration} of the scored matches were scored with another per-match calibration than the one the thresholds were set with`);
  return notes.length > 0 ? notes.join('. ') : null;
}

/** Flagged first, then by margin, then by score, then by matches (unscored last); ties by id, self-named first. */
export function crossOrder(a: CrossRankedPlayer, b: CrossRankedPlayer): number {
  if (a.flagged !== b.flagged) return a.flagged ? -1 : 1;
  if ((a.margin === null) !== (b.margin === null)) return a.margin === null ? 1 : -1;
  if (a.margin !== null && b.margin !== null && a.margin !== b.margin) return b.margin - a.margin;
  if (a.score !== null && b.score !== null && a.score !== b.score) return b.score - a.score;
  if (a.matches !== b.matches) return b.matches - a.matches;
  if (a.playerId !== b.playerId) return a.playerId < b.playerId ? -1 : 1;
  return Number(a.verified) - Number(b.verified);
}

/** The latest matches the score across matches reads with `cal` (its horizon; at least 1). */
export const crossHorizon = (cal: CrossMatchCalibration): number => Math.max(1, cal.thresholds.length);

/**
 * Every player of the store scored across its latest matches with `cal`, ranked (crossOrder), the
 * first `limit`. Reads each player's numbers and the measures of its latest matches up to the
 * horizon (store.playerSummaries), and scores every player: its cost grows with the players and the
 * store's rows of player matches, not with the measure rows of older matches.
 */
export async function rankByCrossMatch(store: EvidenceStore, cal: CrossMatchCalibration, options: { limit?: number } = {}): Promise<CrossRankedPlayer[]> {
  const ranked = (await store.playerSummaries(crossHorizon(cal))).map((s) => rankEntry(s, cal));
  return ranked.sort(crossOrder).slice(0, Math.max(0, Math.floor(options.limit ?? 100)));
}
