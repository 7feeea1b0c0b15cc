/**
 * The simulator's report (report.ts SimReport) as lines of text for a terminal: the run's
 * conditions, then one line per measure, with the first honest refusals and accepted cheats listed.
 */
import type { SimReport } from './report';

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
  L.push(`honest                ${r.honestShots} messages (judged ${r.honestJudged}): ${r.honestFireShots} shots (${r.honestFullRateShots} exactly one fire interval after the last), ${r.honestSwitches} switches, ${r.honestReloads} reloads, ${r.honestLaunches} rockets and grenades launched`);
  const im = r.impacts;
  if (im.launches > 0) L.push(`projectile impacts    ${pct(im.rate)} of ${im.resolved} predicted ends agree with the server's (same end and target, within 0.5 m; ${im.sameVictims} same blast victims; distance p50 ${im.distanceM.p50.toFixed(3)} m, p90 ${im.distanceM.p90.toFixed(3)} m)`);
  L.push(`hits                  predicted ${r.predictedHits}, confirmed ${r.confirmedHits}`);
  L.push(`agreement             ${pct(r.agreementAll)} of all ${r.honestJudged} judged honest messages; ${pct(r.agreementRaceFree)} without the ${r.raceShots} death races`);
  const d = r.disagreements;
  L.push(`  disagreements       predicted hit/server miss ${d.predictedHitServerMiss}, predicted miss/server hit ${d.predictedMissServerHit}, other target ${d.otherTarget}, refused unpredicted ${d.rejectedNotPredicted}, other ${d.otherKind}; of them races ${d.deathRaces}`);
  const pl = r.pellets;
  L.push(`pellets               ${pl.pulls} honest replies with pellets, ${pl.pellets} pellets, ${pct(pl.pellets > 0 ? pl.agreeing / pl.pellets : Number.NaN)} as predicted (${pl.pelletOnlyDisagreements} messages off by their pellets only); refused ${pl.refused}; pattern pulls ${pl.patternPulls} (hits ${pl.patternHits}), wall-bangs that hit ${pl.wallBangs} (targets lost behind cover to shoot through ${pl.wallBangTries})`);
  L.push(`honest rejected       ${r.honestRejected} (all by reason: ${reasons(r.honestRejectedByReason)}; SHOOTER_DEAD while in flight: ${r.honestRejectedDiedInFlight})`);
  for (const d of r.disagreementList) L.push(`  disagreement: bot ${d.bot} seq ${d.seq} weapon ${d.weapon}: predicted ${d.predicted} (target ${d.predictedTarget}), server ${d.verdict} (target ${d.target}, rewound to ${d.rewindTimeMs.toFixed(1)}, time source ${d.timeSource}; action ${d.timeMs.toFixed(1)}, render ${d.renderTimeMs.toFixed(1)})${d.pelletsOnly ? ', pellets only' : ''}`);
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
  const fd = r.fogDetail;
  if (fd !== null) {
    const lead = r.wallhackLeadMs;
    L.push(`fog of war            ${r.fog}${fd.serverHasFog ? '' : ' (asked; this server has no fog option: everything sent)'}: pop-ins ${r.popIn} of ${fd.visibleSamples} in-sight screen samples (${fd.outlinePopIn} seen by the body's outline alone, looked at in ${fd.outlineSamples} withheld ones); covered enemy-ticks withheld ${pct(r.withheldShare ?? Number.NaN)} of ${fd.coveredTicks} (in-sight ones withheld ${fd.withheldVisibleTicks} of ${fd.visibleTicks}); wallhack lead p50 ${ms(lead?.p50 ?? null)} p90 ${ms(lead?.p90 ?? null)} over ${lead?.n ?? 0} onsets (after 1 s out of sight: p50 ${ms(fd.wallhackLeadAfterHiddenMs.p50)} p90 ${ms(fd.wallhackLeadAfterHiddenMs.p90)} over ${fd.wallhackLeadAfterHiddenMs.n}); died behind cover ${fd.deathsBehindCover} of ${fd.deaths} deaths (rewind window ${fd.rewindWindowMs} ms); backfills taken ${fd.backfillsTaken}, dropped ${fd.backfillsDropped}; server: viewers precise ${fd.preciseShare === null ? 'n/a' : pct(fd.preciseShare)}, fog update ${fd.fogUpdateMs === null ? 'n/a' : `${fd.fogUpdateMs.toFixed(2)} ms`}`);
  }
  const pk = r.peekersAdvantageMs;
  if (pk !== null) L.push(`peeker's advantage    ${ms(pk.ms)} (head only ${ms(pk.headMs)}) over ${pk.peeks} peeks at ${pk.rttMs} ms; Riot's model ${ms(pk.modelMs)}, with the render clock ${ms(pk.modelRenderClockMs)}; the server had the peeker ${ms(pk.peekerServerLagMs)} after its screen`);
  return L.join('\n');
}
