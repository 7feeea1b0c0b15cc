/**
 * Reviewers' labels back into the score across matches (`npm run detect -- --labels`). Each
 * labelled player's matches in the store are scored with the cross-match calibration
 * (server/behaviour/crossMatch.ts); a player a reviewer called clean whom the score flags raises
 * the threshold for that many matches just above its score. Thresholds are only ever raised: the
 * honest population they were fitted on keeps its false-positive control, and a few labels cannot
 * lower it. Players called cheaters whom the score does not flag are listed: what the score misses,
 * for whoever tunes the measures. Players labelled unsure only count.
 */
import { scoreAcrossMatches, type MatchEvidence } from '../behaviour/crossMatch';
import type { CrossMatchCalibration } from '../behaviour/crossCalibration';
import { matchEvidenceOf } from './cross';
import type { EvidenceStore, LabelRecord } from './store';

/** A clean player's score must sit this far under its threshold after recalibration. */
export const LABEL_MARGIN = 1e-6;

export interface LabelledScore {
  playerId: string;
  verified: boolean;
  label: LabelRecord['label'];
  matches: number;
  score: number;
  threshold: number;
  flagged: boolean;
}

export interface LabelRecalibration {
  labelled: { clean: number; cheater: number; unsure: number };
  /** Labelled players with a scored match, before and after. */
  before: LabelledScore[];
  after: LabelledScore[];
  thresholdsBefore: number[];
  thresholdsAfter: number[];
  /** What changed: each raised threshold and the clean player that raised it. */
  raised: { matches: number; from: number; to: number; by: string }[];
  cleanFlagged: { before: number; after: number };
  cheatersFlagged: { before: number; after: number };
  /** Cheaters the score does not flag after recalibration. */
  missed: string[];
  calibration: CrossMatchCalibration;
}

function scoreAll(players: { rec: LabelRecord; matches: MatchEvidence[] }[], cal: CrossMatchCalibration): LabelledScore[] {
  const out: LabelledScore[] = [];
  for (const p of players) {
    const r = scoreAcrossMatches(p.matches, cal);
    if (r.matches === 0) continue;
    out.push({ playerId: p.rec.playerId, verified: p.rec.verified, label: p.rec.label, matches: r.matches, score: r.score, threshold: r.threshold, flagged: r.flagged });
  }
  return out;
}

/** Scores every labelled player of `store` and raises the thresholds that flag a clean one. */
export async function recalibrateFromLabels(store: EvidenceStore, cal: CrossMatchCalibration): Promise<LabelRecalibration> {
  const labels = await store.labelledPlayers();
  const players: { rec: LabelRecord; matches: MatchEvidence[] }[] = [];
  for (const rec of labels) players.push({ rec, matches: (await store.playerMatches(rec)).map(matchEvidenceOf) });
  const before = scoreAll(players, cal);
  const thresholds = cal.thresholds.slice();
  const raised: LabelRecalibration['raised'] = [];
  for (const s of before) {
    if (s.label !== 'clean' || !s.flagged) continue;
    const k = Math.min(s.matches, thresholds.length) - 1;
    const to = s.score + LABEL_MARGIN;
    if (!(to > thresholds[k]!)) continue;
    raised.push({ matches: k + 1, from: thresholds[k]!, to, by: s.playerId });
    thresholds[k] = to;
  }
  const next: CrossMatchCalibration = { ...cal, thresholds, source: raised.length > 0 ? `${cal.source}; raised by ${raised.length} clean label(s)` : cal.source };
  const after = scoreAll(players, next);
  const count = (list: LabelledScore[], label: string) => list.filter((s) => s.label === label && s.flagged).length;
  return {
    labelled: { clean: labels.filter((l) => l.label === 'clean').length, cheater: labels.filter((l) => l.label === 'cheater').length, unsure: labels.filter((l) => l.label === 'unsure').length },
    before, after, thresholdsBefore: cal.thresholds.slice(), thresholdsAfter: thresholds, raised,
    cleanFlagged: { before: count(before, 'clean'), after: count(after, 'clean') },
    cheatersFlagged: { before: count(before, 'cheater'), after: count(after, 'cheater') },
    missed: after.filter((s) => s.label === 'cheater' && !s.flagged).map((s) => s.playerId),
    calibration: next,
  };
}
