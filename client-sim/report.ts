/**
 * The simulator's report: from every bot's message log (prediction and verdict by sequence number)
 * and the server's counters to the numbers that say whether the rules are fair and tight (the
 * count message by message is shotTally.ts, the plain-text rendering reportText.ts):
 * - honest players: agreement of every prediction (shots and weapon actions) with its verdict,
 *   over all messages and without the races no client can foresee (a death while the message was
 *   in flight); honest messages the server refused; the distance of honest accepted shots' starts
 *   from the server's eye path (originOffsetM), the number the origin tolerance is set from;
 * - rule-breaking cheats: every message must be refused, with the reason the cheat was built for;
 * - inhuman cheats: accepted by the rules, counted apart (the audit's detection is in `detection`).
 */
import type { ShotLog } from './shots';
import type { ImpactReport } from './impacts';
import type { FogMeasures } from './fogMeasure';
import { newTally, tallyShot, type AcceptedCheat, type Disagreement, type HonestRejection, type PelletReport, type ProfileReport, type Tally } from './shotTally';

export { cheatOutcome, type PelletReport, type ProfileReport } from './shotTally';

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
    /** The bots joined with `fogBackfill` (SimOptions.backfill). */
    backfill: boolean;
    /** The in-process server's fog kept its caches (SimOptions.fogCaches). */
    fogCaches: boolean;
    /** The in-process server's fog's hiddenTight (SimOptions.fogTight; null: its default). */
    fogTight: number | null;
    /** The in-process server's fog's visibleHoldTicks (SimOptions.fogHold; null: its default). */
    fogHold: number | null;
    /** The in-process server's fog's precision budget, ms (SimOptions.fogPrecisionMs; null: its default). */
    fogPrecisionMs: number | null;
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
  honestRejections: HonestRejection[];
  /** The first 20 disagreements outside death races (what agreementRaceFree misses), for diagnosis. */
  disagreementList: Disagreement[];
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
  ruleCheatAcceptedList: AcceptedCheat[];
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
  /**
   * The fog's measures, whether the server has the option, the bots' backfills taken into a run and
   * dropped (MatchView.backfillsTaken, backfillsDropped), and the server's fog work: the share of
   * viewer-updates decided precisely (its precision budget) and its mean timed update, ms (null: no fog update timed).
   */
  fogDetail: FogMeasures['fogDetail'] & { serverHasFog: boolean; backfillsTaken: number; backfillsDropped: number; preciseShare: number | null; fogUpdateMs: number | null } | null;
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

type ShotPart = Omit<SimReport, 'impacts' | 'config' | 'detection' | 'tickRate' | 'ticksPerSecond' | 'tickMsP50' | 'tickMsP99' | 'ticks' | 'prediction' | 'weaponState' | 'serverErrors' | 'hostileEvents' | 'server' | 'matchLog' | 'rooms' | 'cameraPushes' | 'botFrames' | 'starvedFrames' | 'messageRejects' | 'network' | 'durationMs' | 'fog' | 'popIn' | 'withheldShare' | 'wallhackLeadMs' | 'peekersAdvantageMs' | 'diedBehindCoverRate' | 'fogDetail'>;

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
    honestRejected: t.honestRejected, honestRejectedByReason: t.honestRejectedByReason, honestRejectedDiedInFlight: t.honestDiedInFlight, honestRejections: t.honestRejections, disagreementList: t.disagreementList,
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
  for (const s of logs) tallyShot(t, s, fireIntervals);
  return shotPart(t, logs.length);
}
