/**
 * The simulator's report: from every bot's message log (prediction and verdict by sequence number)
 * and the server's counters to the numbers that say whether the rules are fair and tight, plus a
 * plain-text rendering:
 * - honest players: agreement of every prediction (shots and weapon actions) with its verdict,
 *   over all messages and without the races no client can foresee (a death while the message was
 *   in flight); honest messages the server refused; the distance of honest accepted shots' starts
 *   from the server's eye path (originOffsetM), the number the origin tolerance is set from;
 * - rule-breaking cheats: every message must be refused, with the reason the cheat was built for;
 * - inhuman cheats: accepted by the rules, counted apart (the audit's detection is in `detection`).
 */
import { TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';
import { Intent, OVERRULED, type ShotLog } from './shots';

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
  predictedHits: number;
  confirmedHits: number;
  /**
   * Predictions that match the verdict over every judged honest message: the same kind, the same
   * target for a hit, the same reason for a refusal (a refusal against a predicted miss disagrees).
   */
  agreementAll: number;
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
  cameraPushes: number;
  botFrames: number;
  starvedFrames: number;
  messageRejects: Record<string, number>;
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

type ShotPart = Omit<SimReport, 'config' | 'detection' | 'tickRate' | 'ticksPerSecond' | 'tickMsP50' | 'tickMsP99' | 'ticks' | 'prediction' | 'weaponState' | 'serverErrors' | 'hostileEvents' | 'server' | 'matchLog' | 'cameraPushes' | 'botFrames' | 'starvedFrames' | 'messageRejects' | 'network' | 'durationMs'>;

/** Builds the message part of the report from the bots' logs (`fireIntervals` by weapon id: what counts as full rate). */
export function summarizeShots(logs: readonly ShotLog[], fireIntervals: readonly number[] = []): ShotPart {
  let lost = 0, unanswered = 0, honestShots = 0, honestJudged = 0, fire = 0, switches = 0, reloads = 0, fullRate = 0;
  let predictedHits = 0, confirmedHits = 0, agree = 0, agreeClean = 0, raceShots = 0;
  let phsm = 0, pmsh = 0, other = 0, rejNot = 0, otherKind = 0, races = 0;
  let honestRejected = 0, honestDiedInFlight = 0;
  const honestRejectedByReason: Record<string, number> = {};
  const offsets: number[] = [];
  const floorLeads: number[] = [];
  const honestRejections: ShotPart['honestRejections'] = [];
  const acceptedList: ShotPart['ruleCheatAcceptedList'] = [];
  let cheatShots = 0, cheatJudged = 0, cheatAccepted = 0, cheatAcceptedHits = 0, cheatRaces = 0, cheatUnexpected = 0, inhumanShots = 0, inhumanHits = 0;
  const cheatRejectedByReason: Record<string, number> = {};
  const byProfile: Record<string, ProfileReport> = {};
  const latencies: number[] = [];
  const lastFire = new Map<string, ShotLog>();
  for (const s of logs) {
    if (s.dropped) lost++;
    else if (s.verdict === null) unanswered++;
    const v = s.verdict;
    if (v !== null) latencies.push(s.verdictAt - s.sentAt);
    const pr = s.profile === 'honest' ? null : (byProfile[s.profile] ??= emptyProfile(s.strength));
    if (s.intent === Intent.HONEST) {
      honestShots++;
      if (s.action === 0) {
        fire++;
        const key = `${s.roomId}:${s.slot}`;
        const prev = lastFire.get(key);
        if (prev !== undefined && prev.weapon === s.weapon) {
          const gap = s.timeMs - prev.timeMs;
          const interval = fireIntervals[s.weapon] ?? Number.NaN;
          if (Math.abs(gap - interval) < 1e-6) fullRate++;
        }
        lastFire.set(key, s);
      } else if (s.action === 1) switches++;
      else reloads++;
      if (v === null) continue;
      honestJudged++;
      const predHit = s.predictedKind === VerdictKind.HIT;
      const servHit = v.kind === VerdictKind.HIT;
      if (predHit) predictedHits++;
      if (servHit) confirmedHits++;
      const race = s.diedInFlight || s.targetDiedInFlight;
      if (race) raceShots++;
      const same = s.predictedKind === v.kind
        && (v.kind !== VerdictKind.HIT || s.predictedTarget === v.target)
        && (v.kind !== VerdictKind.REJECTED || s.predictedReason === v.reasonName);
      if (same) {
        agree++;
        if (!race) agreeClean++;
      } else {
        if (predHit && v.kind === VerdictKind.MISS) phsm++;
        else if (s.predictedKind === VerdictKind.MISS && servHit) pmsh++;
        else if (predHit && servHit) other++;
        else if (v.kind === VerdictKind.REJECTED) rejNot++;
        else otherKind++;
        if (race) races++;
      }
      if (v.kind === VerdictKind.REJECTED) {
        bump(honestRejectedByReason, v.reasonName);
        if (v.reason === VerdictReason.SHOOTER_DEAD && s.diedInFlight) honestDiedInFlight++;
        else {
          honestRejected++;
          if (honestRejections.length < 20) {
            const dv = new DataView(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength);
            honestRejections.push({ bot: s.bot, seq: s.seq, reason: v.reasonName, start: [dv.getFloat64(32, true), dv.getFloat64(40, true), dv.getFloat64(48, true)], originOffsetM: v.originOffsetM, predictedOriginOffsetM: s.predictedOriginOffsetM });
          }
        }
      } else if (s.action === 0 && v.originOffsetM >= 0) offsets.push(v.originOffsetM);
      if (s.floorLeadMs === s.floorLeadMs) floorLeads.push(s.floorLeadMs);
    } else if (s.intent === Intent.INVALID) {
      cheatShots++;
      pr!.cheatShots++;
      if (s.dropped) pr!.lost++;
      if (v === null) continue;
      cheatJudged++;
      pr!.judged++;
      if (v.kind === VerdictKind.REJECTED) {
        bump(cheatRejectedByReason, v.reasonName);
        bump(pr!.rejectedByReason, v.reasonName);
      }
      const o = cheatOutcome(s);
      if (o === 'expected') pr!.expectedReason++;
      else if (o === 'other') cheatUnexpected++;
      else if (o === 'race') cheatRaces++;
      else if (o === 'accepted') {
        cheatAccepted++;
        if (acceptedList.length < 20) acceptedList.push({ profile: s.profile, bot: s.bot, seq: s.seq, expected: s.expected, verdict: v.reasonName, originOffsetM: v.originOffsetM, predictedOriginOffsetM: s.predictedOriginOffsetM });
        pr!.accepted++;
        if (v.kind === VerdictKind.HIT) {
          pr!.acceptedHits++;
          cheatAcceptedHits++;
        }
      }
    } else if (s.intent === Intent.INHUMAN) {
      inhumanShots++;
      pr!.inhumanShots++;
      if (v?.kind === VerdictKind.HIT) {
        inhumanHits++;
        pr!.inhumanHits++;
      }
    } else {
      pr!.validShots++;
      if (v?.kind === VerdictKind.REJECTED) pr!.validRejected++;
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    shots: logs.length, lostShots: lost, unanswered, honestShots, honestJudged,
    honestFireShots: fire, honestSwitches: switches, honestReloads: reloads, honestFullRateShots: fullRate,
    predictedHits, confirmedHits,
    agreementAll: honestJudged > 0 ? agree / honestJudged : Number.NaN,
    agreementRaceFree: honestJudged - raceShots > 0 ? agreeClean / (honestJudged - raceShots) : Number.NaN,
    raceShots,
    disagreements: { predictedHitServerMiss: phsm, predictedMissServerHit: pmsh, otherTarget: other, rejectedNotPredicted: rejNot, otherKind, deathRaces: races },
    honestRejected, honestRejectedByReason, honestRejectedDiedInFlight: honestDiedInFlight, honestRejections,
    originOffsetM: distribution(offsets),
    floorLeadMs: distribution(floorLeads),
    ruleCheatShots: cheatShots, ruleCheatJudged: cheatJudged, ruleCheatAccepted: cheatAccepted, ruleCheatAcceptedHits: cheatAcceptedHits, ruleCheatAcceptedList: acceptedList,
    ruleCheatRejectedByReason: cheatRejectedByReason, ruleCheatUnexpectedReason: cheatUnexpected, ruleCheatAcceptedRaces: cheatRaces,
    inhumanShots, inhumanHits, byProfile,
    verdictLatencyMsP50: percentile(latencies, 0.5), verdictLatencyMsP99: percentile(latencies, 0.99),
  };
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(2)}%` : 'n/a';
}

function ms(x: number | null): string {
  return x !== null && Number.isFinite(x) ? `${x.toFixed(2)} ms` : 'n/a';
}

function m(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(3)} m` : 'n/a';
}

function reasons(r: Record<string, number>): string {
  const e = Object.entries(r).sort((a, b) => b[1] - a[1]);
  return e.length === 0 ? 'none' : e.map(([k, v]) => `${k} ${v}`).join(', ');
}

/** The report as lines of text for a terminal. */
export function formatReport(r: SimReport): string {
  const c = r.config;
  const L: string[] = [];
  L.push(`hitreg client-sim: ${c.bots} honest + ${c.cheaters} cheaters, ${c.seconds} s, rtt ${c.rttMs}${c.rttSpreadMs > 0 ? ` +- ${c.rttSpreadMs}` : ''} ms, jitter ${c.jitterMs} ms, loss ${(c.loss * 100).toFixed(1)}%${c.burst !== null ? ` in bursts of ${c.burst}` : ''}${c.bandwidthBytesPerS > 0 ? `, ${(c.bandwidthBytesPerS * 8 / 1000).toFixed(0)} kbit/s cap` : ''}${c.stalls !== null ? `, ${c.stalls.forMs} ms stalls every ${c.stalls.everyMs} ms` : ''}, seed ${c.seed}, interp ${c.interpDelayMs} ms${c.rttSpreadMs > 0 ? ' (at the mean rtt; each bot its own)' : ''}, ${c.tickRate} Hz, patch ${c.patchMs} ms, ${c.inProcess ? 'in-process server' : c.url}`);
  L.push(`messages              ${r.shots} (lost on the link ${r.lostShots}, unanswered ${r.unanswered})`);
  L.push(`network (TCP)         ${r.network.lostTransmissions} transmissions lost, ${r.network.retransmittedMessages} messages retransmitted, longest retransmission wait ${r.network.maxRetransmitDelayMs.toFixed(0)} ms`);
  L.push(`honest                ${r.honestShots} messages (judged ${r.honestJudged}): ${r.honestFireShots} shots (${r.honestFullRateShots} exactly one fire interval after the last), ${r.honestSwitches} switches, ${r.honestReloads} reloads`);
  L.push(`hits                  predicted ${r.predictedHits}, confirmed ${r.confirmedHits}`);
  L.push(`agreement             ${pct(r.agreementAll)} of all ${r.honestJudged} judged honest messages; ${pct(r.agreementRaceFree)} without the ${r.raceShots} death races`);
  const d = r.disagreements;
  L.push(`  disagreements       predicted hit/server miss ${d.predictedHitServerMiss}, predicted miss/server hit ${d.predictedMissServerHit}, other target ${d.otherTarget}, refused unpredicted ${d.rejectedNotPredicted}, other ${d.otherKind}; of them races ${d.deathRaces}`);
  L.push(`honest rejected       ${r.honestRejected} (all by reason: ${reasons(r.honestRejectedByReason)}; SHOOTER_DEAD while in flight: ${r.honestRejectedDiedInFlight})`);
  for (const h of r.honestRejections) L.push(`  bot ${h.bot} seq ${h.seq} ${h.reason}: start (${h.start.map((x) => x.toFixed(3)).join(', ')}), origin offset ${m(h.originOffsetM)} (predicted ${m(h.predictedOriginOffsetM)})`);
  const o = r.originOffsetM;
  L.push(`origin offset         honest accepted shots: p50 ${m(o.p50)}, p99 ${m(o.p99)}, p99.9 ${m(o.p999)}, max ${m(o.max)} over ${o.n}`);
  const fl = r.floorLeadMs;
  if (fl.n > 0) L.push(`stream floor lead     honest claims behind what their stream had said: p50 ${fl.p50.toFixed(1)} ms, p99 ${fl.p99.toFixed(1)} ms, max ${fl.max.toFixed(1)} ms over ${fl.n}`);
  L.push(`rule cheats           ${r.ruleCheatShots} (judged ${r.ruleCheatJudged}), accepted ${r.ruleCheatAccepted} (hits ${r.ruleCheatAcceptedHits}; races not counted ${r.ruleCheatAcceptedRaces}); refused for another reason ${r.ruleCheatUnexpectedReason}: ${reasons(r.ruleCheatRejectedByReason)}`);
 for (const a of r.ruleCheatAcceptedList) L.push(`  accepted: ${a.profile} bot ${a.bot} seq ${a.seq}, expected ${a.expected}, got ${a.verdict}; origin offset ${m(a.originOffsetM)} (the cheater predicted ${m(a.predictedOriginOffsetM)})`);
  L.push(`inhuman shots         ${r.inhumanShots} (hits ${r.inhumanHits}; valid by the rules, left to the audit)`);
  for (const [name, p] of Object.entries(r.byProfile)) {
    const det = r.detection?.[name];
    const stats = Object.entries(p.stats).map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(2)}`).join(', ');
    L.push(`  ${name.padEnd(15)} s=${p.strength.toFixed(2)} cheats ${p.cheatShots} judged ${p.judged} as-built ${p.expectedReason} accepted ${p.accepted} | ${reasons(p.rejectedByReason)} | valid ${p.validShots} (rejected ${p.validRejected})${p.inhumanShots > 0 ? ` | inhuman ${p.inhumanShots} hits ${p.inhumanHits}` : ''}${stats ? ` | ${stats}` : ''}${det ? ` | audit flagged ${det.flagged}/${det.players}` : ''}`);
  }
  if (r.detection !== null) {
    const fp = Object.values(r.detection)[0]?.falsePositiveRate;
    L.push(`audit                 false positives ${pct(fp ?? Number.NaN)} of the honest players of this run`);
  }
  L.push(`verdict latency       p50 ${ms(r.verdictLatencyMsP50)}  p99 ${ms(r.verdictLatencyMsP99)}`);
  L.push(`ticks                 ${r.ticksPerSecond.toFixed(1)} per second seen by the clients (nominal ${r.tickRate}); server tick time p50 ${ms(r.tickMsP50)} p99 ${ms(r.tickMsP99)} over ${r.ticks} ticks`);
  L.push(`own prediction        ${r.prediction.corrections} corrections, error mean ${m(r.prediction.meanErrorM)} max ${m(r.prediction.maxErrorM)}; ${r.prediction.jumps} jumps`);
  L.push(`weapon state mirror   ${r.weaponState.firedMismatches} carried-out mismatches; synced state differed ${r.weaponState.mismatches} of ${r.weaponState.checks} quiet checks`);
  L.push(`server errors         ${r.serverErrors ?? 'n/a (remote server)'}; hostile-client events ${r.hostileEvents}`);
  if (r.server !== null) L.push(`server counters       shots ${r.server.shots} hits ${r.server.hits} misses ${r.server.misses} kills ${r.server.kills} rejects: ${reasons(r.server.rejects)}`);
  if (r.matchLog !== null) L.push(`match log             ${r.matchLog}`);
  L.push(`camera push-backs     ${r.cameraPushes} over ${r.botFrames} bot frames (trigger held on a starved buffer: ${r.starvedFrames})`);
  L.push(`input/pong rejects    ${reasons(r.messageRejects)}`);
  return L.join('\n');
}
