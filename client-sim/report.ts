/**
 * The simulator's report: from every bot's shot log (prediction and verdict by sequence number)
 * and the server's counters to the numbers the README reports (agreement, rejections, latency), plus a plain-text rendering. Honest
 * shots measure agreement and false rejections; cheat shots measure that every invalid one was
 * refused (by which reason, and whether it was the expected one); aim-snap shots are counted apart.
 */
import { VerdictKind, VerdictReason } from '../shared/validate/verdict';
import { Intent, type ShotLog } from './bot';

export interface ProfileReport {
  /** Shots the profile sent as cheats (intent invalid), and those the link lost. */
  cheatShots: number;
  lost: number;
  judged: number;
  rejectedByReason: Record<string, number>;
  /** Judged cheat shots not rejected (HIT or MISS). */
  accepted: number;
  acceptedHits: number;
  /** Rejected with the reason the cheat was built to trigger. */
  expectedReason: number;
  /** The profile's ordinary (valid) shots and how many the server rejected. */
  validShots: number;
  validRejected: number;
  aimSnapShots: number;
  aimSnapHits: number;
}

export interface SimReport {
  config: {
    bots: number; cheaters: number; seconds: number; rttMs: number; rttSpreadMs: number; jitterMs: number; loss: number; seed: number;
    interpDelayMs: number; tickRate: number; patchMs: number; url: string; inProcess: boolean; profiles: string[];
  };
  /** Every shot sent by every bot (honest, cheat, valid, aim-snap), including ones the link dropped. */
  shots: number;
  /** Shots the link dropped (no verdict) and shots still unanswered at the end. */
  lostShots: number;
  unanswered: number;
  honestShots: number;
  /** Honest shots with a verdict (the base of the agreement). */
  honestJudged: number;
  predictedHits: number;
  confirmedHits: number;
  /**
   * Honest predictions that match the verdict (hit or not, and the same target when both hit), over
   * the judged honest shots that were not death races (raceShots): a race is a shot whose shooter or
   * predicted target died on the server while it was in flight, which no client can foresee.
   */
  agreement: number;
  /** The same over every judged honest shot, races included. */
  agreementAll: number;
  raceShots: number;
  disagreements: {
    predictedHitServerMiss: number; predictedMissServerHit: number; otherTarget: number;
    /** Of those: death races (counted in agreementAll only). */
    deathRaces: number;
  };
  /** Honest shots the server rejected, except SHOOTER_DEAD for a shooter killed while its shot was in flight. */
  honestRejected: number;
  /** Every rejected honest shot by reason (the in-flight deaths included). */
  honestRejectedByReason: Record<string, number>;
  /** SHOOTER_DEAD for shots fired before the bot could know it had been killed (not in honestRejected). */
  honestRejectedDiedInFlight: number;
  cheatShots: number;
  cheatJudged: number;
  cheatRejectedByReason: Record<string, number>;
  /** Invalid cheat shots the server did not reject (judged HIT or MISS). */
  cheatAccepted: number;
  /** Of cheatAccepted: those the server scored as hits (the harmful ones). */
  cheatAcceptedHits: number;
  /**
   * Cheat shots accepted because of a race, not counted in cheatAccepted: misses whose target died
   * on the server while they were in flight (the cheat had nobody left to hit), and shots a dead
   * cheater fired that arrived after the server had respawned it (valid by then).
   */
  cheatAcceptedRaces: number;
  cheatUnexpectedReason: number;
  aimSnapShots: number;
  aimSnapHits: number;
  byProfile: Record<string, ProfileReport>;
  verdictLatencyMsP50: number;
  verdictLatencyMsP99: number;
  tickMsP50: number | null;
  tickMsP99: number | null;
  ticks: number;
  /** Server-side exceptions (handler or tick failures, recorder failures); null when the server is remote. */
  serverErrors: number | null;
  server: { shots: number; hits: number; misses: number; kills: number; rejects: Record<string, number> } | null;
  /** Whether the in-process server wrote a match log and where (null when remote or none). */
  matchLog: string | null;
  cameraPushes: number;
  botFrames: number;
  /** Frames an honest trigger was held because nothing was buffered at the render time yet. */
  starvedFrames: number;
  /** Inputs and pongs the room refused, by reason (all bots). */
  messageRejects: Record<string, number>;
  durationMs: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const i = Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));
  return sorted[i]!;
}

function bump(r: Record<string, number>, k: string): void {
  r[k] = (r[k] ?? 0) + 1;
}

function emptyProfile(): ProfileReport {
  return { cheatShots: 0, lost: 0, judged: 0, rejectedByReason: {}, accepted: 0, acceptedHits: 0, expectedReason: 0, validShots: 0, validRejected: 0, aimSnapShots: 0, aimSnapHits: 0 };
}

export interface DeathInfo {
  /** Server ms of each death by slot, from the kill feed / events, for classifying races. */
  deathsBySlot: Map<number, number[]>;
}

/** Builds the shot part of the report from the bots' logs. */
export function summarizeShots(logs: readonly ShotLog[]): Omit<SimReport, 'config' | 'tickMsP50' | 'tickMsP99' | 'ticks' | 'serverErrors' | 'server' | 'matchLog' | 'cameraPushes' | 'botFrames' | 'starvedFrames' | 'messageRejects' | 'durationMs'> {
  let lost = 0, unanswered = 0, honestShots = 0, honestJudged = 0, predictedHits = 0, confirmedHits = 0, agree = 0, agreeClean = 0, raceShots = 0;
  let phsm = 0, pmsh = 0, other = 0, races = 0;
  let honestRejected = 0, honestDiedInFlight = 0;
  const honestRejectedByReason: Record<string, number> = {};
  let cheatShots = 0, cheatJudged = 0, cheatAccepted = 0, cheatAcceptedHits = 0, cheatAcceptedRaces = 0, cheatUnexpected = 0, aimSnapShots = 0, aimSnapHits = 0;
  const cheatRejectedByReason: Record<string, number> = {};
  const byProfile: Record<string, ProfileReport> = {};
  const latencies: number[] = [];
  for (const s of logs) {
    if (s.dropped) lost++;
    else if (s.verdict === null) unanswered++;
    const v = s.verdict;
    if (v !== null) latencies.push(s.verdictAt - s.sentAt);
    const pr = s.profile === 'honest' ? null : (byProfile[s.profile] ??= emptyProfile());
    if (s.intent === Intent.HONEST) {
      honestShots++;
      if (v === null) continue;
      honestJudged++;
      const predHit = s.predictedKind === VerdictKind.HIT;
      const servHit = v.kind === VerdictKind.HIT;
      if (predHit) predictedHits++;
      if (servHit) confirmedHits++;
      const race = s.diedInFlight || s.targetDiedInFlight;
      if (race) raceShots++;
      if (predHit === servHit && (!predHit || s.predictedTarget === v.target)) {
        agree++;
        if (!race) agreeClean++;
      } else {
        if (predHit && !servHit) phsm++;
        else if (!predHit && servHit) pmsh++;
        else other++;
        if (race) races++;
      }
      if (v.kind === VerdictKind.REJECTED) {
        bump(honestRejectedByReason, v.reasonName);
        if (v.reason === VerdictReason.SHOOTER_DEAD && s.diedInFlight) honestDiedInFlight++;
        else honestRejected++;
      }
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
        if (v.reasonName === s.expected) pr!.expectedReason++;
        else cheatUnexpected++;
      } else if ((v.kind === VerdictKind.MISS && s.targetDiedInFlight) || s.respawnedInFlight) {
        cheatAcceptedRaces++;
      } else {
        cheatAccepted++;
        pr!.accepted++;
        if (v.kind === VerdictKind.HIT) {
          pr!.acceptedHits++;
          cheatAcceptedHits++;
        }
      }
    } else if (s.intent === Intent.AIM_SNAP) {
      aimSnapShots++;
      pr!.aimSnapShots++;
      if (v?.kind === VerdictKind.HIT) {
        aimSnapHits++;
        pr!.aimSnapHits++;
      }
    } else {
      pr!.validShots++;
      if (v?.kind === VerdictKind.REJECTED) pr!.validRejected++;
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    shots: logs.length, lostShots: lost, unanswered, honestShots, honestJudged, predictedHits, confirmedHits,
    agreement: honestJudged - raceShots > 0 ? agreeClean / (honestJudged - raceShots) : Number.NaN,
    agreementAll: honestJudged > 0 ? agree / honestJudged : Number.NaN,
    raceShots,
    disagreements: { predictedHitServerMiss: phsm, predictedMissServerHit: pmsh, otherTarget: other, deathRaces: races },
    honestRejected, honestRejectedByReason, honestRejectedDiedInFlight: honestDiedInFlight,
    cheatShots, cheatJudged, cheatRejectedByReason, cheatAccepted, cheatAcceptedHits, cheatAcceptedRaces, cheatUnexpectedReason: cheatUnexpected, aimSnapShots, aimSnapHits, byProfile,
    verdictLatencyMsP50: percentile(latencies, 0.5), verdictLatencyMsP99: percentile(latencies, 0.99),
  };
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(2)}%` : 'n/a';
}

function ms(x: number | null): string {
  return x !== null && Number.isFinite(x) ? `${x.toFixed(2)} ms` : 'n/a';
}

function reasons(r: Record<string, number>): string {
  const e = Object.entries(r).sort((a, b) => b[1] - a[1]);
  return e.length === 0 ? 'none' : e.map(([k, v]) => `${k} ${v}`).join(', ');
}

/** The report as lines of text for a terminal. */
export function formatReport(r: SimReport): string {
  const c = r.config;
  const L: string[] = [];
  L.push(`hitreg client-sim: ${c.bots} honest + ${c.cheaters} cheaters, ${c.seconds} s, rtt ${c.rttMs}${c.rttSpreadMs > 0 ? ` +- ${c.rttSpreadMs}` : ''} ms, jitter ${c.jitterMs} ms, loss ${(c.loss * 100).toFixed(1)}%, seed ${c.seed}, interp ${c.interpDelayMs} ms${c.rttSpreadMs > 0 ? ' (at the mean rtt; each bot its own)' : ''}, ${c.tickRate} Hz, patch ${c.patchMs} ms, ${c.inProcess ? 'in-process server' : c.url}`);
  L.push(`shots                 ${r.shots} (lost on the link ${r.lostShots}, unanswered ${r.unanswered})`);
  L.push(`honest shots          ${r.honestShots} (judged ${r.honestJudged})`);
  L.push(`predicted hits        ${r.predictedHits}`);
  L.push(`confirmed hits        ${r.confirmedHits}`);
  L.push(`agreement (hit/miss)  ${pct(r.agreement)} of ${r.honestJudged - r.raceShots} honest shots without a death race; ${pct(r.agreementAll)} of all ${r.honestJudged} (${r.raceShots} races: shooter or target died on the server while the shot was in flight)`);
  L.push(`  disagreements       predicted hit/server miss ${r.disagreements.predictedHitServerMiss}, predicted miss/server hit ${r.disagreements.predictedMissServerHit}, other target ${r.disagreements.otherTarget}; of them death races ${r.disagreements.deathRaces}`);
  L.push(`honest rejected       ${r.honestRejected} (all rejections by reason: ${reasons(r.honestRejectedByReason)}; of them SHOOTER_DEAD while the shot was in flight: ${r.honestRejectedDiedInFlight})`);
  L.push(`cheat shots           ${r.cheatShots} (judged ${r.cheatJudged}) rejected: ${reasons(r.cheatRejectedByReason)}`);
  L.push(`cheat accepted        ${r.cheatAccepted} (as hits ${r.cheatAcceptedHits}, as misses ${r.cheatAccepted - r.cheatAcceptedHits}; not counted: ${r.cheatAcceptedRaces} races: target died or dead shooter respawned in flight); rejected for another reason than the cheat's: ${r.cheatUnexpectedReason}`);
  L.push(`aim-snap shots        ${r.aimSnapShots} (hits ${r.aimSnapHits}; valid geometry, left to the audit)`);
  for (const [name, p] of Object.entries(r.byProfile)) {
    L.push(`  ${name.padEnd(15)} cheats ${p.cheatShots} judged ${p.judged} expected-reason ${p.expectedReason} accepted ${p.accepted} (hits ${p.acceptedHits}) | ${reasons(p.rejectedByReason)} | valid ${p.validShots} (rejected ${p.validRejected})${p.aimSnapShots > 0 ? ` | aim-snap ${p.aimSnapShots} hits ${p.aimSnapHits}` : ''}`);
  }
  L.push(`verdict latency       p50 ${ms(r.verdictLatencyMsP50)}  p99 ${ms(r.verdictLatencyMsP99)}`);
  L.push(`server tick time      p50 ${ms(r.tickMsP50)}  p99 ${ms(r.tickMsP99)} over ${r.ticks} ticks`);
  L.push(`server errors         ${r.serverErrors ?? 'n/a (remote server)'}`);
  if (r.server !== null) L.push(`server counters       shots ${r.server.shots} hits ${r.server.hits} misses ${r.server.misses} kills ${r.server.kills} rejects: ${reasons(r.server.rejects)}`);
  if (r.matchLog !== null) L.push(`match log             ${r.matchLog}`);
  L.push(`camera push-backs     ${r.cameraPushes} over ${r.botFrames} bot frames (trigger held on a starved buffer: ${r.starvedFrames})`);
  L.push(`input/pong rejects    ${reasons(r.messageRejects)}`);
  return L.join('\n');
}
