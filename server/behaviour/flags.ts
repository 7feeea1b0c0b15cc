/**
 * Per-player cheat indicators computed from replayed shots, and the thresholds that turn them into
 * flags. A flag is a pointer for a reviewer, not a verdict: the report lists which rules triggered
 * and the numbers behind them. Every threshold is an option with a documented default.
 */
import { HitZone } from '../../shared/rig/rig';
import { TimeSource, VerdictKind, VerdictReason, reasonName } from '../../shared/validate/verdict';
import { betaBinomialTailLog10 } from './tails';
import { PatternSums, type PatternMeasure } from './pattern';
import { MEASURES, scorePlayer, type BehaviourEvent, type BehaviourResult, type Calibration } from './score';

/** What the audit knows about one replayed shot (a row of the replay's results). */
export interface ShotFacts {
  shooter: number;
  kind: number;
  reason: number;
  zone: number;
  target: number;
  timeSource: number;
  /** Claimed action time - rewound time, ms (NaN when the shot was rejected before the time step). */
  rewindDepthMs: number;
  /** The newest input stepped before the shot: its stamp less the shot's claimed action time, ms (NaN unknown). */
  inputAheadMs: number;
  /** The shot's ordinal among the log's shots and its receive time, ms (for the report's list of backdated shots; optional). */
  index?: number;
  receivedMs?: number;
  /**
   * From the target becoming visible (line of sight from the eye) to the shot, ms; NaN unknown or
   * not the first hit of that sighting (auditMatchLog keeps only first hits).
   */
  reactionMs: number;
  /** Fastest turn over the snap window just before the shot, degrees per second; NaN unknown. */
  snapDegPerS: number;
  /** The server's round-trip estimate for the shooter at the shot, ms. */
  rttMs: number;
  /** Receive time minus the shooter's latest death at or before it, ms; NaN when it has not died. */
  sinceShooterDeathMs: number;
  /** The longest gap between the server's ticks in the 500 ms before the shot arrived, ms (NaN unknown). */
  serverGapMs: number;
  /** How far the claimed render time sat from the server's estimate beyond the claim tolerance, ms (0 within; NaN unknown). */
  claimOffByMs: number;
  /** A pattern pull's centroid against its aim and the target (pattern.ts); absent for other shots. */
  pattern?: Readonly<PatternMeasure>;
}

export interface FlagThresholds {
  /** Players with fewer shots are reported but never flagged. */
  minShots: number;
  /**
   * Rejected shots / shots above this flags. A SHOOTER_DEAD rejection that arrived within the
   * shooter's round trip plus raceSlackMs of its death is a race, not counted: the client fired
   * before the news of its death could reach it (the snapshot takes half a round trip down, the
   * shot half a round trip up), which every honest client does now and then, more often on a slow
   * or loaded connection. A client that fires on while it knows it is dead is counted.
   */
  maxRejectionRatio: number;
  raceSlackMs: number;
  /**
   * A shot received within 500 ms after the server's ticks paused longer than this (ms) arrived
   * while the server was catching up: it stamped the shot late, and its timing checks (claimed
   * time overruled, TIME_TOO_OLD, TIME_FUTURE) read the server's lateness as the client's. Such a
   * shot whose claim sat off the server's estimate by no more than the tolerance plus the pause is
   * counted apart (`stalled`), not in those rules; a claim further off still counts.
   */
  stallGapMs: number;
  /**
   * Any single cheat-indicating reason above this share of shots flags, once it occurred at least
   * minReasonShots times (this rule ignores minShots: four shots through walls out of eight say
   * enough).
   */
  maxReasonRatio: number;
  minReasonShots: number;
  /**
   * Head hits / hits above this flags (with at least minHits hits), once a player whose true share
   * were this limit would win that many of its fights with head hits with a chance under
   * headshotChance. A player picks the head or the body per fight, not per shot, so the hits of
   * one fight are not independent draws: the chance is counted over fights (a run of hits on one
   * target, each within fightGapMs of the last; a fight is a head fight when most of its hits are
   * in the head; a hit without a receive time is a fight of its own). A share is judged by what its
   * sample can show: 6 heads in 9 fights is what an honest player aiming at the head a third of the
   * time lands now and then, 13 in 14 hits over three fights too; 16 of 18 fights is not.
   */
  maxHeadshotRatio: number;
  headshotChance: number;
  minHits: number;
  fightGapMs: number;
  /** A hit whose rewind depth is within this of the window (or was clamped to it) is "at the edge". */
  edgeMs: number;
  /** Hits at the edge / hits above this flags. */
  maxEdgeRatio: number;
  /** Median reaction time of hits below this flags (with at least minReactionSamples). */
  minMedianReactionMs: number;
  minReactionSamples: number;
  /** A turn faster than this (degrees per second, tick to tick) just before a shot is a snap. */
  snapDegPerS: number;
  /** Hits preceded by a snap / hits above this flags. */
  maxSnapRatio: number;
  /** Shots whose claimed time the server overruled (estimate or clamp) / shots above this flags. */
  maxOverruledRatio: number;
  /**
   * A shot claimed more than this before an input the room had already stepped from the same client
   * is backdated, ms. Over one TCP stream the inputs stepped before a shot was judged were sent
   * before it, so honest stamps can lead the claim only by what a client that stamps a shot at its
   * scheduled time (a spray's fire interval) lets a late frame add: up to 160 ms in the simulator's
   * loaded runs. Backdated shots above maxReasonRatio of shots (at least minReasonShots) flag: the
   * claims buy deeper rewinds than the client fired at.
   */
  backdateMs: number;
  /**
   * Spread cancelling: over a player's pattern pulls (at least minPatternPulls) the correlations
   * between the centroid's lean from the aim and the target's offset from the aim, across and up
   * (pattern.ts PatternSums), as a z-score against independence, above this flags. An honest aim
   * and its pull's pattern are independent: z about N(0, 1).
   */
  minPatternPulls: number;
  maxPatternZ: number;
}

export const DEFAULT_THRESHOLDS: Readonly<FlagThresholds> = Object.freeze({
  minShots: 10,
  maxRejectionRatio: 0.2,
  raceSlackMs: 100,
  stallGapMs: 50,
  maxReasonRatio: 0.1,
  minReasonShots: 3,
  maxHeadshotRatio: 0.6,
  headshotChance: 1e-2,
  minHits: 8,
  fightGapMs: 1500,
  edgeMs: 20,
  maxEdgeRatio: 0.3,
  minMedianReactionMs: 120,
  minReactionSamples: 5,
  snapDegPerS: 1500,
  maxSnapRatio: 0.3,
  maxOverruledRatio: 0.25,
  backdateMs: 250,
  minPatternPulls: 12,
  maxPatternZ: 3.5,
});

/** Rejections that judge the shot's timing (what a server stall distorts). */
const TIMING_REASONS: ReadonlySet<number> = new Set([VerdictReason.TIME_TOO_OLD, VerdictReason.TIME_FUTURE]);

/** Reasons an honest client does not produce in numbers (tampered shots, wall hacks, speed hacks). */
const CHEAT_REASONS: ReadonlySet<string> = new Set([
  'MALFORMED', 'NON_FINITE', 'OUT_OF_BOUNDS', 'UNKNOWN_WEAPON', 'BAD_TARGET', 'SEQ_REPLAYED', 'SELF_TARGET',
  'FIRE_RATE', 'NO_AMMO', 'TIME_FUTURE', 'TIME_TOO_OLD', 'OUT_OF_RANGE', 'ORIGIN_MISMATCH', 'START_BLOCKED',
  'OCCLUDED', 'OVERSIZED', 'BACKDATED',
]);

export const FlagRule = {
  REJECTIONS: 'rejections',
  REASON: 'reason',
  HEADSHOTS: 'headshots',
  WINDOW_EDGE: 'window-edge',
  REACTION: 'reaction',
  AIM_SNAP: 'aim-snap',
  OVERRULED_TIME: 'overruled-time',
  BACKDATED: 'backdated',
  /** Pattern pulls whose centroid leans toward the target from the aim, pull after pull. */
  SPREAD_CANCEL: 'spread-cancel',
  /** The behaviour score (behaviour.ts) passed its calibrated threshold. */
  BEHAVIOUR: 'behaviour',
} as const;
export type FlagRule = (typeof FlagRule)[keyof typeof FlagRule];

export interface Flag {
  rule: FlagRule;
  /** One line for people: the measured value, the threshold. */
  detail: string;
  value: number;
  threshold: number;
}

export interface PlayerReport {
  player: number;
  shots: number;
  hits: number;
  misses: number;
  rejected: number;
  /** SHOOTER_DEAD rejections explained by the shot being on the wire when the shooter died (not in `rejected`). */
  raced: number;
  /** Shots received right after a server stall, left out of the timing rules (see stallGapMs). */
  stalled: number;
  byReason: Record<string, number>;
  headshots: number;
  /** Fights (runs of hits on one target, see fightGapMs) and those mostly in the head. */
  fights: number;
  headFights: number;
  edgeHits: number;
  overruled: number;
  /** Shots claimed more than backdateMs before an input of the same client the room had already stepped. */
  backdated: number;
  /** Those shots (ordinal, receive time, how far the stepped input's stamp led the claim), listed when the rule flags. */
  backdatedShots: { shot: number; timeMs: number; aheadMs: number }[];
  reactionSamples: number;
  medianReactionMs: number;
  snapHits: number;
  /**
   * Pattern pulls measured; the correlations between their centroid's lean and the target's offset
   * from the aim, across and up, their z-score; the share whose centroid sat nearer the target than the aim.
   */
  patternPulls: number;
  patternCorrelation: [number, number];
  patternZ: number;
  patternNearer: number;
  flags: Flag[];
  /** The behaviour measures and score (set by the audit; null when not scored). */
  behaviour: BehaviourResult | null;
  /**
   * Who held this slot (the log's identity records, format 12 on; set by the audit): each player id
   * that joined on it, in log order, verified when it was a checked token's subject. Empty when the
   * game named nobody; more than one when the slot changed hands during the match.
   */
  identities: { playerId: string; verified: boolean }[];
  /**
   * Behaviour measures this player's log cannot give: the game's pose adapter left the view or the
   * input counts unknown (or the log's format predates them), so those measures were not computed
   * rather than read from placeholders. Set by the audit.
   */
  unavailable: { measure: string; needs: 'view' | 'inputs' }[];
}

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The open run of hits on one target. */
interface Fight { target: number; lastMs: number; hits: number; heads: number }

function closeFight(p: { fight: Fight; fights: number; headFights: number }): void {
  const f = p.fight;
  if (f.hits === 0) return;
  p.fights++;
  if (2 * f.heads > f.hits) p.headFights++;
  f.hits = 0;
  f.heads = 0;
}

/** Adds a hit to the shooter's open fight, or closes it and opens another (new target, a pause over gapMs, no receive time). */
function addFightHit(p: { fight: Fight; fights: number; headFights: number }, s: ShotFacts, gapMs: number): void {
  const f = p.fight;
  const t = s.receivedMs ?? Number.NaN;
  if (!(s.target === f.target && t - f.lastMs <= gapMs)) closeFight(p);
  f.target = s.target;
  f.lastMs = t;
  f.hits++;
  if (s.zone === HitZone.HEAD) f.heads++;
}

/** Aggregates shots per shooter and applies the thresholds. `windowMs` is the match's rewind window. */
export function flagPlayers(shots: Iterable<ShotFacts>, windowMs: number, thresholds: Partial<FlagThresholds> = {}): PlayerReport[] {
  const th = { ...DEFAULT_THRESHOLDS, ...thresholds };
  const players = new Map<number, PlayerReport & { reactions: number[]; reasonsAfterStall: Record<string, number>; pattern: PatternSums; fight: Fight }>();
  for (const s of shots) {
    let p = players.get(s.shooter);
    if (!p) {
      p = {
        player: s.shooter, shots: 0, hits: 0, misses: 0, rejected: 0, raced: 0, stalled: 0, byReason: {}, headshots: 0, fights: 0, headFights: 0, edgeHits: 0, overruled: 0, backdated: 0, backdatedShots: [],
        reactionSamples: 0, medianReactionMs: Number.NaN, snapHits: 0, patternPulls: 0, patternCorrelation: [Number.NaN, Number.NaN], patternZ: Number.NaN, patternNearer: Number.NaN, flags: [], behaviour: null, unavailable: [], identities: [], reactions: [], reasonsAfterStall: {}, pattern: new PatternSums(),
        fight: { target: -1, lastMs: Number.NaN, hits: 0, heads: 0 },
      };
      players.set(s.shooter, p);
    }
    p.shots++;
    const name = reasonName(s.reason);
    p.byReason[name] = (p.byReason[name] ?? 0) + 1;
    const stalled = s.serverGapMs > th.stallGapMs && s.claimOffByMs <= s.serverGapMs;
    if (stalled) p.stalled++;
    if (!stalled && (s.timeSource === TimeSource.ESTIMATED || s.timeSource === TimeSource.CLAMPED)) p.overruled++;
    if (s.inputAheadMs > th.backdateMs) {
      p.backdated++;
      p.backdatedShots.push({ shot: s.index ?? NaN, timeMs: s.receivedMs ?? NaN, aheadMs: s.inputAheadMs });
    }
    if (s.pattern !== undefined && s.kind !== VerdictKind.REJECTED) p.pattern.add(s.pattern);
    if (s.kind === VerdictKind.REJECTED) {
      if (s.reason === VerdictReason.SHOOTER_DEAD && s.sinceShooterDeathMs <= s.rttMs + th.raceSlackMs) p.raced++;
      else if (stalled && TIMING_REASONS.has(s.reason)) p.reasonsAfterStall[name] = (p.reasonsAfterStall[name] ?? 0) + 1;
      else p.rejected++;
    }
    else if (s.kind === VerdictKind.MISS) p.misses++;
    else if (s.kind === VerdictKind.HIT) {
      p.hits++;
      if (s.zone === HitZone.HEAD) p.headshots++;
      addFightHit(p, s, th.fightGapMs);
      if (s.timeSource === TimeSource.CLAMPED || s.rewindDepthMs >= windowMs - th.edgeMs) p.edgeHits++;
      if (s.reactionMs === s.reactionMs) p.reactions.push(s.reactionMs);
      if (s.snapDegPerS > th.snapDegPerS) p.snapHits++;
    }
  }
  const out: PlayerReport[] = [];
  for (const p of [...players.values()].sort((a, b) => a.player - b.player)) {
    closeFight(p);
    const { reactions, reasonsAfterStall, pattern, fight: _fight, ...report } = p;
    report.reactionSamples = reactions.length;
    report.medianReactionMs = median(reactions);
    const flags = report.flags;
    flagPattern(report, pattern, th);
    for (const [name, all] of Object.entries(p.byReason)) {
      const n = all - (reasonsAfterStall[name] ?? 0);
      const r = n / p.shots;
      if (CHEAT_REASONS.has(name) && n >= th.minReasonShots && r > th.maxReasonRatio) {
        flags.push({ rule: FlagRule.REASON, value: r, threshold: th.maxReasonRatio, detail: `${name}: ${n} of ${p.shots} shots, ${pct(r)} (limit ${pct(th.maxReasonRatio)}, at least ${th.minReasonShots})` });
      }
    }
    const back = p.backdated / p.shots;
    if (p.backdated >= th.minReasonShots && back > th.maxReasonRatio) {
      flags.push({ rule: FlagRule.BACKDATED, value: back, threshold: th.maxReasonRatio, detail: `${p.backdated} of ${p.shots} shots (${pct(back)}) claimed over ${th.backdateMs} ms before inputs the room had already stepped (limit ${pct(th.maxReasonRatio)}, at least ${th.minReasonShots})` });
    } else {
      report.backdatedShots = [];
    }
    if (p.shots >= th.minShots) {
      const rej = p.rejected / p.shots;
      if (rej > th.maxRejectionRatio) flags.push({ rule: FlagRule.REJECTIONS, value: rej, threshold: th.maxRejectionRatio, detail: `${pct(rej)} of ${p.shots} shots rejected (limit ${pct(th.maxRejectionRatio)})` });
      const over = p.overruled / p.shots;
      if (over > th.maxOverruledRatio) flags.push({ rule: FlagRule.OVERRULED_TIME, value: over, threshold: th.maxOverruledRatio, detail: `claimed time overruled on ${pct(over)} of shots (limit ${pct(th.maxOverruledRatio)})` });
      if (p.hits >= th.minHits) {
        const hs = p.headshots / p.hits;
        const chance = hs > th.maxHeadshotRatio ? betaBinomialTailLog10(p.headFights, p.fights, th.maxHeadshotRatio, 0) : 0;
        if (chance < Math.log10(th.headshotChance)) {
          flags.push({ rule: FlagRule.HEADSHOTS, value: hs, threshold: th.maxHeadshotRatio, detail: `${pct(hs)} of ${p.hits} hits in the head, ${p.headFights} of ${p.fights} fights won with head hits (limit ${pct(th.maxHeadshotRatio)}; 1 in 10^${(-chance).toFixed(1)} at the limit)` });
        }
        const edge = p.edgeHits / p.hits;
        if (edge > th.maxEdgeRatio) flags.push({ rule: FlagRule.WINDOW_EDGE, value: edge, threshold: th.maxEdgeRatio, detail: `${pct(edge)} of hits within ${th.edgeMs} ms of the ${windowMs} ms rewind window (limit ${pct(th.maxEdgeRatio)})` });
        const snap = p.snapHits / p.hits;
        if (snap > th.maxSnapRatio) flags.push({ rule: FlagRule.AIM_SNAP, value: snap, threshold: th.maxSnapRatio, detail: `${pct(snap)} of hits right after a turn faster than ${th.snapDegPerS} deg/s (limit ${pct(th.maxSnapRatio)})` });
      }
      if (reactions.length >= th.minReactionSamples && report.medianReactionMs < th.minMedianReactionMs) {
        flags.push({ rule: FlagRule.REACTION, value: report.medianReactionMs, threshold: th.minMedianReactionMs, detail: `median reaction ${report.medianReactionMs.toFixed(0)} ms over ${reactions.length} hits (limit ${th.minMedianReactionMs} ms)` });
      }
    }
    out.push(report);
  }
  return out;
}

/** The pattern pulls' statistic into `p`, and the spread-cancel flag when their centroids go with the target beyond chance. */
function flagPattern(p: PlayerReport, sums: PatternSums, th: FlagThresholds): void {
  const n = sums.n;
  p.patternPulls = n;
  if (n === 0) return;
  p.patternNearer = sums.nearer / n;
  p.patternCorrelation = [sums.correlation(0), sums.correlation(1)];
  p.patternZ = sums.z();
  if (n >= th.minPatternPulls && p.patternZ > th.maxPatternZ) {
    p.flags.push({ rule: FlagRule.SPREAD_CANCEL, value: p.patternZ, threshold: th.maxPatternZ,
      detail: `${n} pattern pulls: the centroid's lean from the aim goes with the target's offset (correlation across ${p.patternCorrelation[0].toFixed(2)}, up ${p.patternCorrelation[1].toFixed(2)}, z ${p.patternZ.toFixed(1)}, limit ${th.maxPatternZ}, at least ${th.minPatternPulls} pulls); centroid nearer the target than the aim on ${pct(p.patternNearer)}` });
  }
}

/**
 * Scores every player's behaviour events (behaviour.ts) into its report, and adds the `behaviour`
 * flag where the score passes the calibration's threshold (the measures that passed it named).
 */
const fmt = (v: number) => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(2));

export function flagBehaviour(players: PlayerReport[], events: Map<number, BehaviourEvent[]>, cal: Calibration): void {
  for (const p of players) {
    const b = scorePlayer(events.get(p.player) ?? [], cal);
    p.behaviour = b;
    if (!b.flagged) continue;
    const worst = b.measures
      .map((m, i) => ({ m, s: m.score, spec: MEASURES[i]! }))
      .filter((x) => x.s >= cal.scoreThreshold)
      .sort((a, b2) => b2.s - a.s)
      .map((x) => (x.spec.level === 'event'
        ? `${x.m.name}: mean honest rank ${x.m.stat.toFixed(2)} over ${x.m.events} events, ${x.m.beyond} in the honest ${(100 * cal.q).toFixed(0)}% tail (beyond ${fmt(cal.measures[x.m.name]!.threshold)} ${x.spec.unit})`
        : x.spec.logFloor !== undefined
          ? `${x.m.name}: ${fmt(x.m.stat)} ${x.spec.unit} (honest ${fmt(Math.exp(cal.measures[x.m.name]!.mean))} x/ ${fmt(Math.exp(cal.measures[x.m.name]!.sd))})`
          : `${x.m.name}: ${fmt(x.m.stat)} ${x.spec.unit} (honest ${fmt(cal.measures[x.m.name]!.mean)} +- ${fmt(cal.measures[x.m.name]!.sd)})`));
    // No measure alone: the combined test passed; name the measures that lean furthest.
    const why = worst.length > 0 ? worst.join('; ')
      : `several measures together: ${b.measures.filter((m) => m.p < 0.05).sort((x, y) => x.p - y.p).slice(0, 4).map((m) => `${m.name} (p ${m.p.toExponential(1)})`).join(', ')}`;
    p.flags.push({ rule: FlagRule.BEHAVIOUR, value: b.score, threshold: cal.scoreThreshold, detail: `behaviour score ${b.score.toFixed(1)} (limit ${cal.scoreThreshold.toFixed(1)}): ${why}` });
  }
}
