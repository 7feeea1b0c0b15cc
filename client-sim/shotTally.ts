/**
 * The count of every weapon message's prediction against its verdict, message by message, that
 * summarizeShots (report.ts) turns into the report's message part: honest agreement and which way
 * each disagreement went, pellets, refusals and start offsets; rule-breaking cheats by outcome
 * (cheatOutcome), per profile too; inhuman and ordinary cheater messages; verdict latencies.
 * The per-profile and pellet counts are kept in the report's own shapes (ProfileReport, PelletReport,
 * re-exported by report.ts).
 */
import { TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';
import type { VerdictReply } from '../shared/protocol/messages';
import { Intent, OVERRULED, pelletsAgree, type ShotLog } from './shots';

export interface ProfileReport {
  strength: number;
  /** Rule-breaking messages the profile sent, and those the link lost. */
  cheatShots: number;
  lost: number;
  judged: number;
  rejectedByReason: Record<string, number>;
  /** Judged rule-breaking messages the server did not refuse as it must. */
  accepted: number;
  acceptedHits: number;
  /** Refused with the reason the cheat was built to trigger (OVERRULED: the claim was replaced). */
  expectedReason: number;
  /** The profile's ordinary messages and how many the server rejected. */
  validShots: number;
  validRejected: number;
  /** Rule-abiding inhuman shots and their hits. */
  inhumanShots: number;
  inhumanHits: number;
  /** Profile counters (cheats' own), e.g. the speed cheat's measured speed. */
  stats: Record<string, number>;
}

export interface PelletReport {
  /** Judged honest messages whose reply carries pellets, and their pellets. */
  pulls: number;
  pellets: number;
  /** Pellets whose predicted reason and first player met equal the reply's. */
  agreeing: number;
  /** Messages agreeing on kind, target and reason whose pellets disagree. */
  pelletOnlyDisagreements: number;
  /** Honest pellets the server refused as not of the pattern (SPREAD_MISMATCH), plus honest pulls refused for their pellet count. */
  refused: number;
  /** Honest pulls of several pellets, and those that hit. */
  patternPulls: number;
  patternHits: number;
  /** Honest single shots that hit a player behind a wall they passed (wall-bangs). */
  wallBangs: number;
  /** Targets honest players lost behind cover and meant to shoot through (a wall-bang goes only where predicted to hit). */
  wallBangTries: number;
}

/** An honest message whose verdict differed from its prediction with no death race, listed for diagnosis (SimReport.disagreementList). */
export interface Disagreement {
  bot: number; seq: number; weapon: number; timeMs: number; renderTimeMs: number;
  predicted: string; predictedTarget: number; verdict: string; target: number; rewindTimeMs: number; timeSource: number; pelletsOnly: boolean;
}

/** An honest refusal listed for diagnosis (SimReport.honestRejections). */
export interface HonestRejection { bot: number; seq: number; reason: string; start: [number, number, number]; originOffsetM: number; predictedOriginOffsetM: number }

/** An accepted rule-breaking message listed for diagnosis (SimReport.ruleCheatAcceptedList). */
export interface AcceptedCheat { profile: string; bot: number; seq: number; expected: string | null; verdict: string; originOffsetM: number; predictedOriginOffsetM: number }

function bump(r: Record<string, number>, k: string): void {
  r[k] = (r[k] ?? 0) + 1;
}

function emptyProfile(strength: number): ProfileReport {
  return { strength, cheatShots: 0, lost: 0, judged: 0, rejectedByReason: {}, accepted: 0, acceptedHits: 0, expectedReason: 0, validShots: 0, validRejected: 0, inhumanShots: 0, inhumanHits: 0, stats: {} };
}

/**
 * How a rule-breaking message came out: refused as built, refused otherwise, a race, or accepted; by
 * the server's own verdict in-process (ShotLog.serverVerdict: fog of war reads a refusal about a
 * player withheld from the cheater as a miss in its reply), else by the reply.
 */
export function cheatOutcome(s: ShotLog): 'expected' | 'other' | 'race' | 'accepted' | 'pending' {
  const v = s.serverVerdict ?? s.verdict;
  if (v === null) return 'pending';
  if (s.expected === OVERRULED) {
    // Refused outright: only a race explains it (the shooter died or respawned while it was in flight).
    if (v.kind === VerdictKind.REJECTED) return s.respawnedInFlight || s.diedInFlight ? 'race' : 'other';
    if (v.timeSource === TimeSource.ESTIMATED || v.timeSource === TimeSource.CLAMPED) {
      return v.kind === VerdictKind.HIT ? (s.targetDiedInFlight ? 'race' : 'accepted') : 'expected';
    }
    return s.respawnedInFlight || s.targetDiedInFlight ? 'race' : 'accepted';
  }
  if (v.kind === VerdictKind.REJECTED) {
    if (v.reasonName === s.expected) return 'expected';
    // Judged in another life than the one it was sent in: the cheat met a different rules state.
    return s.respawnedInFlight || s.diedInFlight ? 'race' : 'other';
  }
  if ((v.kind === VerdictKind.MISS && s.targetDiedInFlight) || s.respawnedInFlight) return 'race';
  return 'accepted';
}

/** The running counts summarizeShots (report.ts) keeps over the logs. */
export interface Tally {
  lost: number; unanswered: number; honestShots: number; honestJudged: number; fire: number; switches: number; reloads: number; fullRate: number; launches: number;
  predictedHits: number; confirmedHits: number; agree: number; agreeClean: number; raceShots: number;
  pellets: PelletReport;
  /** Disagreements: predicted hit/server miss, predicted miss/server hit, other target, refused unpredicted, other kind; of them races. */
  phsm: number; pmsh: number; other: number; rejNot: number; otherKind: number; races: number;
  honestRejected: number; honestDiedInFlight: number;
  honestRejectedByReason: Record<string, number>;
  offsets: number[];
  floorLeads: number[];
  honestRejections: HonestRejection[];
  /** The first 20 race-free disagreements. */
  disagreementList: Disagreement[];
  acceptedList: AcceptedCheat[];
  cheatShots: number; cheatJudged: number; cheatAccepted: number; cheatAcceptedHits: number; cheatRaces: number; cheatUnexpected: number;
  inhumanShots: number; inhumanHits: number;
  cheatRejectedByReason: Record<string, number>;
  byProfile: Record<string, ProfileReport>;
  latencies: number[];
  /** Each shooter's (room:slot) last honest shot, for the full-rate count. */
  lastFire: Map<string, ShotLog>;
}

export function newTally(): Tally {
  return {
    lost: 0, unanswered: 0, honestShots: 0, honestJudged: 0, fire: 0, switches: 0, reloads: 0, fullRate: 0, launches: 0,
    predictedHits: 0, confirmedHits: 0, agree: 0, agreeClean: 0, raceShots: 0,
    pellets: { pulls: 0, pellets: 0, agreeing: 0, pelletOnlyDisagreements: 0, refused: 0, patternPulls: 0, patternHits: 0, wallBangs: 0, wallBangTries: 0 },
    phsm: 0, pmsh: 0, other: 0, rejNot: 0, otherKind: 0, races: 0,
    honestRejected: 0, honestDiedInFlight: 0, honestRejectedByReason: {}, offsets: [], floorLeads: [], honestRejections: [], disagreementList: [], acceptedList: [],
    cheatShots: 0, cheatJudged: 0, cheatAccepted: 0, cheatAcceptedHits: 0, cheatRaces: 0, cheatUnexpected: 0, inhumanShots: 0, inhumanHits: 0,
    cheatRejectedByReason: {}, byProfile: {}, latencies: [], lastFire: new Map(),
  };
}

/** An honest shot: counted, and counted at full rate when claimed exactly one fire interval after the shooter's last shot with the same weapon. */
function countFire(t: Tally, s: ShotLog, fireIntervals: readonly number[]): void {
  t.fire++;
  const key = `${s.roomId}:${s.slot}`;
  const prev = t.lastFire.get(key);
  if (prev !== undefined && prev.weapon === s.weapon) {
    const gap = s.timeMs - prev.timeMs;
    const interval = fireIntervals[s.weapon] ?? Number.NaN;
    if (Math.abs(gap - interval) < 1e-6) t.fullRate++;
  }
  t.lastFire.set(key, s);
}

/** A judged honest message's prediction against its verdict: agreement, and which way a disagreement went. */
function countAgreement(t: Tally, s: ShotLog, v: VerdictReply): void {
  const predHit = s.predictedKind === VerdictKind.HIT;
  const servHit = v.kind === VerdictKind.HIT;
  if (predHit) t.predictedHits++;
  if (servHit) t.confirmedHits++;
  const race = s.diedInFlight || s.targetDiedInFlight;
  if (race) t.raceShots++;
  const sameTop = s.predictedKind === v.kind
    && (v.kind !== VerdictKind.HIT || s.predictedTarget === v.target)
    && (v.kind !== VerdictKind.REJECTED || s.predictedReason === v.reasonName);
  const samePellets = pelletsAgree(s.predictedPellets, v);
  if (sameTop && !samePellets) t.pellets.pelletOnlyDisagreements++;
  const same = sameTop && samePellets;
  if (same) {
    t.agree++;
    if (!race) t.agreeClean++;
  } else {
    if (predHit && v.kind === VerdictKind.MISS) t.phsm++;
    else if (s.predictedKind === VerdictKind.MISS && servHit) t.pmsh++;
    else if (predHit && servHit) t.other++;
    else if (v.kind === VerdictKind.REJECTED) t.rejNot++;
    else t.otherKind++;
    if (race) t.races++;
    else if (t.disagreementList.length < 20) {
      t.disagreementList.push({
        bot: s.bot, seq: s.seq, weapon: s.weapon, timeMs: s.timeMs, renderTimeMs: s.renderTimeMs,
        predicted: s.predictedReason, predictedTarget: s.predictedTarget, verdict: v.reasonName, target: v.target,
        rewindTimeMs: v.rewindTimeMs, timeSource: v.timeSource, pelletsOnly: sameTop,
      });
    }
  }
}

/** An honest message's pellets, when its reply carries them: agreement pellet by pellet, refusals, pattern pulls and wall-bangs. */
function countPellets(t: Tally, s: ShotLog, v: VerdictReply): void {
  const r = t.pellets;
  if (v.reason === VerdictReason.PELLET_COUNT || (v.reason === VerdictReason.SPREAD_MISMATCH && v.pellets === undefined)) r.refused++;
  const got = v.pellets;
  if (got === undefined) return;
  r.pulls++;
  r.pellets += got.length;
  const pred = s.predictedPellets;
  let wallHit = false;
  for (let k = 0; k < got.length; k++) {
    const g = got[k]!;
    if (pred !== null && 2 * k + 1 < pred.length && pred[2 * k] === g.reason && pred[2 * k + 1] === g.target) r.agreeing++;
    if (g.reason === VerdictReason.SPREAD_MISMATCH) r.refused++;
    if (g.walls > 0 && g.reason === VerdictReason.OK_HIT) wallHit = true;
  }
  if (got.length > 1) {
    r.patternPulls++;
    if (v.kind === VerdictKind.HIT) r.patternHits++;
  } else if (wallHit) r.wallBangs++;
}

/** A refused honest message: by reason; SHOOTER_DEAD for a shooter killed while it was in flight apart; the first 20 others listed. */
function countHonestRefusal(t: Tally, s: ShotLog, v: VerdictReply): void {
  bump(t.honestRejectedByReason, v.reasonName);
  if (v.reason === VerdictReason.SHOOTER_DEAD && s.diedInFlight) {
    t.honestDiedInFlight++;
    return;
  }
  t.honestRejected++;
  if (t.honestRejections.length < 20) {
    const dv = new DataView(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength);
    t.honestRejections.push({ bot: s.bot, seq: s.seq, reason: v.reasonName, start: [dv.getFloat64(32, true), dv.getFloat64(40, true), dv.getFloat64(48, true)], originOffsetM: v.originOffsetM, predictedOriginOffsetM: s.predictedOriginOffsetM });
  }
}

/** An honest message: its action, and once judged its agreement, refusal or start offset, and its stream floor lead. */
function countHonest(t: Tally, s: ShotLog, fireIntervals: readonly number[]): void {
  t.honestShots++;
  if (s.action === 0) countFire(t, s, fireIntervals);
  else if (s.action === 1) t.switches++;
  else t.reloads++;
  const v = s.verdict;
  if (v === null) return;
  t.honestJudged++;
  countAgreement(t, s, v);
  countPellets(t, s, v);
  if (v.kind === VerdictKind.LAUNCH) t.launches++;
  if (v.kind === VerdictKind.REJECTED) countHonestRefusal(t, s, v);
  else if (s.action === 0 && v.originOffsetM >= 0) t.offsets.push(v.originOffsetM);
  if (s.floorLeadMs === s.floorLeadMs) t.floorLeads.push(s.floorLeadMs);
}

/** A rule-breaking message, overall and for its profile: refusals by reason and its outcome (cheatOutcome); the first 20 accepted listed. */
function countRuleCheat(t: Tally, s: ShotLog, pr: ProfileReport): void {
  t.cheatShots++;
  pr.cheatShots++;
  if (s.dropped) pr.lost++;
  const v = s.serverVerdict ?? s.verdict;
  if (v === null) return;
  t.cheatJudged++;
  pr.judged++;
  if (v.kind === VerdictKind.REJECTED) {
    bump(t.cheatRejectedByReason, v.reasonName);
    bump(pr.rejectedByReason, v.reasonName);
  }
  const o = cheatOutcome(s);
  if (o === 'expected') pr.expectedReason++;
  else if (o === 'other') t.cheatUnexpected++;
  else if (o === 'race') t.cheatRaces++;
  else if (o === 'accepted') {
    t.cheatAccepted++;
    if (t.acceptedList.length < 20) t.acceptedList.push({ profile: s.profile, bot: s.bot, seq: s.seq, expected: s.expected, verdict: v.reasonName, originOffsetM: v.originOffsetM, predictedOriginOffsetM: s.predictedOriginOffsetM });
    pr.accepted++;
    if (v.kind === VerdictKind.HIT) {
      pr.acceptedHits++;
      t.cheatAcceptedHits++;
    }
  }
}

/** A cheater's inhuman message (and its hits) or ordinary message (and its refusals), for its profile. */
function countCheaterOther(t: Tally, s: ShotLog, pr: ProfileReport): void {
  const v = s.verdict;
  if (s.intent === Intent.INHUMAN) {
    t.inhumanShots++;
    pr.inhumanShots++;
    if (v?.kind === VerdictKind.HIT) {
      t.inhumanHits++;
      pr.inhumanHits++;
    }
  } else {
    pr.validShots++;
    if (v?.kind === VerdictKind.REJECTED) pr.validRejected++;
  }
}

/** Counts one message into `t` (`fireIntervals` by weapon id: what counts as full rate). */
export function tallyShot(t: Tally, s: ShotLog, fireIntervals: readonly number[]): void {
  if (s.dropped) t.lost++;
  else if (s.verdict === null) t.unanswered++;
  if (s.verdict !== null) t.latencies.push(s.verdictAt - s.sentAt);
  const pr = s.profile === 'honest' ? null : (t.byProfile[s.profile] ??= emptyProfile(s.strength));
  if (s.intent === Intent.HONEST) countHonest(t, s, fireIntervals);
  else if (s.intent === Intent.INVALID) countRuleCheat(t, s, pr!);
  else countCheaterOther(t, s, pr!);
}
