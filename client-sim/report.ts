/**
 * The simulator's report: from every bot's message log (prediction and verdict by sequence number)
 * and the server's counters to the numbers that say whether the rules are fair and tight (the
 * plain-text rendering is reportText.ts):
 * - honest players: agreement of every prediction (shots and weapon actions) with its verdict,
 *   over all messages and without the races no client can foresee (a death while the message was
 *   in flight); honest messages the server refused; the distance of honest accepted shots' starts
 *   from the server's eye path (originOffsetM), the number the origin tolerance is set from;
 * - rule-breaking cheats: every message must be refused, with the reason the cheat was built for;
 * - inhuman cheats: accepted by the rules, counted apart (the audit's detection is in `detection`).
 */
import { TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';
import type { VerdictReply } from '../shared/protocol/messages';
import { Intent, OVERRULED, pelletsAgree, type ShotLog } from './shots';
import type { ImpactReport } from './impacts';
import type { FogMeasures } from './fogMeasure';

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

export interface Distribution {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  n: number;
}

export interface DetectionReport {
  strength: number;
  players: number;
  flagged: number;
  /** Flagged players of this profile / players of this profile. */
  detectionRate: number;
  /** Flagged honest players / honest players in the same run (per honest player of the run: few players, coarse). */
  falsePositiveRate: number;
  /** Audit rules that flagged this profile's players, with counts. */
  rules: Record<string, number>;
}

/** The peek at the run's round trip (peek.ts PeekRow's medians), ms. */
export interface PeekSummary {
  rttMs: number;
  fog: 'on' | 'off';
  peeks: number;
  ms: number | null;
  headMs: number | null;
  modelMs: number;
  modelRenderClockMs: number;
  /** How late the server had the peeker where its screen had it (one way + input buffering + the tick), ms. */
  peekerServerLagMs: number | null;
}

export interface SimReport {
  config: {
    bots: number; cheaters: number; seconds: number; rttMs: number; rttSpreadMs: number; jitterMs: number; loss: number;
    /** Mean loss burst in transmissions (null: independent losses); bandwidth cap per direction, bytes/s (0: none). */
    burst: number | null; bandwidthBytesPerS: number; stalls: { everyMs: number; forMs: number } | null; seed: number;
    interpDelayMs: number; tickRate: number; patchMs: number; url: string; inProcess: boolean; profiles: string[];
  };
  /** The links' TCP model over all bots, both directions: transmissions lost, messages that needed a retransmission, the longest such wait (ms). */
  network: { lostTransmissions: number; retransmittedMessages: number; maxRetransmitDelayMs: number };
  /** Every weapon message sent by every bot (shots, switches, reloads), including ones the link dropped. */
  shots: number;
  /** Messages the link dropped (no verdict) and messages still unanswered at the end. */
  lostShots: number;
  unanswered: number;
  /** Honest messages (shots and actions) and those with a verdict. */
  honestShots: number;
  honestJudged: number;
  honestFireShots: number;
  honestSwitches: number;
  honestReloads: number;
  /** Honest shots claimed exactly one fire interval after the previous one (the fire clock's edge). */
  honestFullRateShots: number;
  /** Honest rockets and grenades launched (verdict LAUNCH). */
  honestLaunches: number;
  /** Their predicted ends against the server's (impacts.ts). */
  impacts: ImpactReport;
  predictedHits: number;
  confirmedHits: number;
  /**
   * Predictions that match the verdict over every judged honest message: the same kind, the same
   * target for a hit, the same reason for a refusal (a refusal against a predicted miss disagrees),
   * and where the reply carries pellets, the same reason and first player met for each.
   */
  agreementAll: number;
  /** Honest pulls whose verdict carries pellets (spread patterns, wall-bangs), pellet by pellet. */
  pellets: PelletReport;
  /** The same without races (raceShots): the shooter or predicted target died on the server while the message was in flight. */
  agreementRaceFree: number;
  raceShots: number;
  disagreements: {
    predictedHitServerMiss: number; predictedMissServerHit: number; otherTarget: number; rejectedNotPredicted: number; otherKind: number;
    /** Of those: races. */
    deathRaces: number;
  };
  /** Honest messages the server rejected, except SHOOTER_DEAD for a shooter killed while its shot was in flight. */
  honestRejected: number;
  /** Every rejected honest message by reason (the in-flight deaths included). */
  honestRejectedByReason: Record<string, number>;
  honestRejectedDiedInFlight: number;
  /** The first 20 honest refusals (SHOOTER_DEAD races aside), for diagnosis: where the start was and how far from the eye path. */
  honestRejections: { bot: number; seq: number; reason: string; start: [number, number, number]; originOffsetM: number; predictedOriginOffsetM: number }[];
  /** Distance of honest accepted shots' starts from the server's eye path, metres. */
  originOffsetM: Distribution;
  /**
   * In-process: how far the newest time an honest message's stream had stated when it arrived (an
   * input stamp, a ping answered, an action) lay ahead of its claimed time, ms, over judged honest
   * messages: what streamSlackMs must cover (negative: the claim was the newest).
   */
  floorLeadMs: Distribution;
  /** Rule-breaking cheat messages, judged, and those the server accepted (races aside). */
  ruleCheatShots: number;
  ruleCheatJudged: number;
  ruleCheatAccepted: number;
  ruleCheatAcceptedHits: number;
  /** The first 20 accepted rule-breaking messages, for diagnosis. */
  ruleCheatAcceptedList: { profile: string; bot: number; seq: number; expected: string | null; verdict: string; originOffsetM: number; predictedOriginOffsetM: number }[];
  ruleCheatRejectedByReason: Record<string, number>;
  /** Refused, but for another reason than the cheat's own. */
  ruleCheatUnexpectedReason: number;
  /** Not counted as accepted: the target died or a dead cheater respawned while the message was in flight. */
  ruleCheatAcceptedRaces: number;
  inhumanShots: number;
  inhumanHits: number;
  byProfile: Record<string, ProfileReport>;
  /** Audit of the match logs: per profile, detection and false-positive rates (null: no in-process log). */
  detection: Record<string, DetectionReport> | null;
  verdictLatencyMsP50: number;
  verdictLatencyMsP99: number;
  /** Nominal tick rate and ticks per wall-clock second measured by the clients from state.tick. */
  tickRate: number;
  ticksPerSecond: number;
  tickMsP50: number | null;
  tickMsP99: number | null;
  ticks: number;
  /** Own-movement prediction: corrections, mean and largest position error at reconciliation (m). */
  prediction: { corrections: number; meanErrorM: number; maxErrorM: number; jumps: number };
  /** Mirrored weapon state: verdicts whose carried-out flag differed from the prediction, synced states that differed. */
  weaponState: { firedMismatches: number; checks: number; mismatches: number };
  serverErrors: number | null;
  /** Structured hostile-client events the in-process room raised (refusals, throttling), counted instead of printed. */
  hostileEvents: number;
  server: { shots: number; hits: number; misses: number; kills: number; rejects: Record<string, number> } | null;
  matchLog: string | null;
  /**
   * Each in-process room's match log (null when it wrote none) and who played which slot: the bot,
   * its profile ('honest' for an honest bot) and strength. Empty for a remote server.
   */
  rooms: { roomId: string; matchLog: string | null; slots: { slot: number; bot: number; profile: string; strength: number }[] }[];
  cameraPushes: number;
  botFrames: number;
  starvedFrames: number;
  messageRejects: Record<string, number>;
  /**
   * Fog of war (in-process only, null against a remote server; client-sim/fogWatch.ts and README
   * "Fog of war" define them): the server's fog setting, honest screen samples with an enemy in
   * sight whose data had not arrived, the share of covered enemy-ticks withheld, how long a
   * wallhack had each enemy before it came into sight (p50, p90), the scripted peek at the run's
   * round trip (peek.ts), and the share of honest deaths already in cover on the victim's screen.
   */
  fog: 'on' | 'off' | null;
  popIn: number | null;
  withheldShare: number | null;
  wallhackLeadMs: { p50: number | null; p90: number | null; n: number } | null;
  peekersAdvantageMs: PeekSummary | null;
  diedBehindCoverRate: number | null;
  /** The counts behind those, and the rewind window the deaths were judged under. */
  fogDetail: FogMeasures['fogDetail'] & { serverHasFog: boolean } | null;
  durationMs: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const i = Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));
  return sorted[i]!;
}

export function distribution(values: number[]): Distribution {
  const s = Float64Array.from(values).sort();
  return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), p999: percentile(s, 0.999), max: s.length > 0 ? s[s.length - 1]! : Number.NaN, n: s.length };
}

function bump(r: Record<string, number>, k: string): void {
  r[k] = (r[k] ?? 0) + 1;
}

function emptyProfile(strength: number): ProfileReport {
  return { strength, cheatShots: 0, lost: 0, judged: 0, rejectedByReason: {}, accepted: 0, acceptedHits: 0, expectedReason: 0, validShots: 0, validRejected: 0, inhumanShots: 0, inhumanHits: 0, stats: {} };
}

/** How a rule-breaking message came out: refused as built, refused otherwise, a race, or accepted. */
export function cheatOutcome(s: ShotLog): 'expected' | 'other' | 'race' | 'accepted' | 'pending' {
  const v = s.verdict;
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

type ShotPart = Omit<SimReport, 'impacts' | 'config' | 'detection' | 'tickRate' | 'ticksPerSecond' | 'tickMsP50' | 'tickMsP99' | 'ticks' | 'prediction' | 'weaponState' | 'serverErrors' | 'hostileEvents' | 'server' | 'matchLog' | 'rooms' | 'cameraPushes' | 'botFrames' | 'starvedFrames' | 'messageRejects' | 'network' | 'durationMs' | 'fog' | 'popIn' | 'withheldShare' | 'wallhackLeadMs' | 'peekersAdvantageMs' | 'diedBehindCoverRate' | 'fogDetail'>;

/** The running counts summarizeShots keeps over the logs. */
interface Tally {
  lost: number; unanswered: number; honestShots: number; honestJudged: number; fire: number; switches: number; reloads: number; fullRate: number; launches: number;
  predictedHits: number; confirmedHits: number; agree: number; agreeClean: number; raceShots: number;
  pellets: PelletReport;
  /** Disagreements: predicted hit/server miss, predicted miss/server hit, other target, refused unpredicted, other kind; of them races. */
  phsm: number; pmsh: number; other: number; rejNot: number; otherKind: number; races: number;
  honestRejected: number; honestDiedInFlight: number;
  honestRejectedByReason: Record<string, number>;
  offsets: number[];
  floorLeads: number[];
  honestRejections: ShotPart['honestRejections'];
  acceptedList: ShotPart['ruleCheatAcceptedList'];
  cheatShots: number; cheatJudged: number; cheatAccepted: number; cheatAcceptedHits: number; cheatRaces: number; cheatUnexpected: number;
  inhumanShots: number; inhumanHits: number;
  cheatRejectedByReason: Record<string, number>;
  byProfile: Record<string, ProfileReport>;
  latencies: number[];
  /** Each shooter's (room:slot) last honest shot, for the full-rate count. */
  lastFire: Map<string, ShotLog>;
}

function newTally(): Tally {
  return {
    lost: 0, unanswered: 0, honestShots: 0, honestJudged: 0, fire: 0, switches: 0, reloads: 0, fullRate: 0, launches: 0,
    predictedHits: 0, confirmedHits: 0, agree: 0, agreeClean: 0, raceShots: 0,
    pellets: { pulls: 0, pellets: 0, agreeing: 0, pelletOnlyDisagreements: 0, refused: 0, patternPulls: 0, patternHits: 0, wallBangs: 0, wallBangTries: 0 },
    phsm: 0, pmsh: 0, other: 0, rejNot: 0, otherKind: 0, races: 0,
    honestRejected: 0, honestDiedInFlight: 0, honestRejectedByReason: {}, offsets: [], floorLeads: [], honestRejections: [], acceptedList: [],
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
  const v = s.verdict;
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

/** The message part of the report from the counts over `shots` messages. */
function shotPart(t: Tally, shots: number): ShotPart {
  t.latencies.sort((a, b) => a - b);
  return {
    shots, lostShots: t.lost, unanswered: t.unanswered, honestShots: t.honestShots, honestJudged: t.honestJudged,
    honestFireShots: t.fire, honestSwitches: t.switches, honestReloads: t.reloads, honestFullRateShots: t.fullRate, honestLaunches: t.launches,
    predictedHits: t.predictedHits, confirmedHits: t.confirmedHits,
    agreementAll: t.honestJudged > 0 ? t.agree / t.honestJudged : Number.NaN,
    pellets: t.pellets,
    agreementRaceFree: t.honestJudged - t.raceShots > 0 ? t.agreeClean / (t.honestJudged - t.raceShots) : Number.NaN,
    raceShots: t.raceShots,
    disagreements: { predictedHitServerMiss: t.phsm, predictedMissServerHit: t.pmsh, otherTarget: t.other, rejectedNotPredicted: t.rejNot, otherKind: t.otherKind, deathRaces: t.races },
    honestRejected: t.honestRejected, honestRejectedByReason: t.honestRejectedByReason, honestRejectedDiedInFlight: t.honestDiedInFlight, honestRejections: t.honestRejections,
    originOffsetM: distribution(t.offsets),
    floorLeadMs: distribution(t.floorLeads),
    ruleCheatShots: t.cheatShots, ruleCheatJudged: t.cheatJudged, ruleCheatAccepted: t.cheatAccepted, ruleCheatAcceptedHits: t.cheatAcceptedHits, ruleCheatAcceptedList: t.acceptedList,
    ruleCheatRejectedByReason: t.cheatRejectedByReason, ruleCheatUnexpectedReason: t.cheatUnexpected, ruleCheatAcceptedRaces: t.cheatRaces,
    inhumanShots: t.inhumanShots, inhumanHits: t.inhumanHits, byProfile: t.byProfile,
    verdictLatencyMsP50: percentile(t.latencies, 0.5), verdictLatencyMsP99: percentile(t.latencies, 0.99),
  };
}

/** Builds the message part of the report from the bots' logs (`fireIntervals` by weapon id: what counts as full rate). */
export function summarizeShots(logs: readonly ShotLog[], fireIntervals: readonly number[] = []): ShotPart {
  const t = newTally();
  for (const s of logs) {
    if (s.dropped) t.lost++;
    else if (s.verdict === null) t.unanswered++;
    if (s.verdict !== null) t.latencies.push(s.verdictAt - s.sentAt);
    const pr = s.profile === 'honest' ? null : (t.byProfile[s.profile] ??= emptyProfile(s.strength));
    if (s.intent === Intent.HONEST) countHonest(t, s, fireIntervals);
    else if (s.intent === Intent.INVALID) countRuleCheat(t, s, pr!);
    else countCheaterOther(t, s, pr!);
  }
  return shotPart(t, logs.length);
}
