/**
 * Simulated matches, for the measurements page: the simulator's two standard runs against a server
 * in this process (client-sim/simulate.ts), each a seeded match over modelled TCP links.
 * - honest: 16 honest bots, 60 s, 100 ms round trip, 20 ms jitter, 1% loss (`npm run sim -- --bots
 *   16 --seconds 60 --rtt 100 --jitter 20 --loss 0.01 --seed 1`): prediction agreement, honest
 *   messages refused, where shots start against the server's eye path, ticks per second seen by the
 *   clients, and the honest bots the audit flags.
 * - cheaters: 12 honest bots beside 19 cheaters, every profile once (`--bots 12 --cheaters 19
 *   --cheaters-still`): rule-breaking messages accepted, and players of each kind the audit flags.
 * - launchers: the honest run with every bot a launcher fan (`--launchers 1`): how often a shooter's
 *   predicted rocket or grenade end agrees with the server's (client-sim/impacts.ts).
 * - rooms: the honest run on the walled level (`--level rooms --spawns spread`: nine rooms joined by
 *   doorways, players spread over them), at 100 and 200 ms round trips, with fog off at both, and at
 *   200 ms with bots that take no backfills (`--backfill off`), and at both with the fog's tight tier at
 *   the plain regions (`--fog-tight 0`), with no viewer made precise (`--fog-precision 0`) and with a
 *   2 ms precision budget at 100 ms (`--fog-precision 2`), and with its caches off (`--fog-caches off`: every pair decided
 *   on its own regions every tick): what fog of war withholds where walls hide players, what its caches
 *   give up of it, and its pop-ins there.
 * - peek: the scripted held angle against a peek (client-sim/peek.ts; `npm run sim -- --peek --peeks 3`)
 *   at 20-200 ms round trips, fog off and on: the peeker's advantage against Riot's model.
 * The wall clock runs the match, so a loaded machine shows in the tick rate and the latencies.
 * Run: `npm run bench:sim [-- --json] [-- --seconds S]`.
 */
import { fileURLToPath } from 'node:url';
import { interpDelayFor, runSimulation, type SimOptions, type SimReport } from '../../client-sim/simulate';
import { peekTable } from '../../client-sim/peek';
import { benchArgs } from './args';
import { roomsLevel } from '../../server/level/rooms';
import type { World } from '../../shared/world/world';

const RUNS: { run: string; options: SimOptions }[] = [
  { run: 'honest', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1 } },
  { run: 'launchers', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, launcherShare: 1 } },
  { run: 'cheaters', options: { bots: 12, cheaters: 19, cheatersStill: true, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1 } },
  { run: 'rooms', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms' } },
  { run: 'rooms 200 ms', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 200, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms' } },
  { run: 'rooms fog off', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fog: 'off' } },
  { run: 'rooms 200 ms fog off', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 200, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fog: 'off' } },
  { run: 'rooms 200 ms no backfill', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 200, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', backfill: false } },
  { run: 'rooms tight fog', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogTight: 0 } },
  { run: 'rooms 200 ms tight fog', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 200, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogTight: 0 } },
  { run: 'rooms no precise viewers', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogPrecisionMs: 0 } },
  { run: 'rooms 200 ms no precise viewers', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 200, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogPrecisionMs: 0 } },
  { run: 'rooms precision 2 ms', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogPrecisionMs: 2 } },
  { run: 'rooms no fog caches', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogCaches: false } },
  { run: 'rooms 200 ms no fog caches', options: { bots: 16, cheaters: 0, seconds: 60, rttMs: 200, jitterMs: 20, loss: 0.01, seed: 1, spawns: 'spread', level: 'rooms', fogCaches: false } },
];

/** A run's options for runSimulation: the walled level built once and handed to the in-process server. */
let rooms: World | null = null;
function optionsOf(o: SimOptions & { level?: unknown }): SimOptions {
  if (o.level !== 'rooms') return o;
  rooms ??= roomsLevel();
  return { ...o, level: rooms, server: { ...o.server, level: rooms } };
}

function row(run: string, r: SimReport): Record<string, unknown> {
  const det = r.detection ?? {};
  const cheaters = Object.entries(det).filter(([k]) => k !== 'honest');
  return {
    bench: 'sim', run, bots: r.config.bots, cheaters: r.config.cheaters, seconds: r.config.seconds,
    honestMessages: r.honestJudged, agreementAll: r.agreementAll, agreementRaceFree: r.agreementRaceFree, raceShots: r.raceShots,
    honestRejected: r.honestRejected, disagreements: r.disagreements, disagreementList: r.disagreementList, originOffsetM: { p50: r.originOffsetM.p50, p99: r.originOffsetM.p99, max: r.originOffsetM.max },
    ruleCheatMessages: r.ruleCheatJudged, ruleCheatAccepted: r.ruleCheatAccepted,
    ruleCheatAcceptedList: r.ruleCheatAcceptedList.map((a) => `${a.profile}: ${a.verdict}`),
    ticksPerSecond: r.ticksPerSecond, tickRate: r.tickRate, tickMsP99: r.tickMsP99, verdictLatencyMsP99: r.verdictLatencyMsP99,
    honestFlagged: det.honest?.flagged ?? null, honestPlayers: det.honest?.players ?? null,
    launches: r.impacts.launches, impactsResolved: r.impacts.resolved, impactAgreement: r.impacts.rate, impactSameVictims: r.impacts.sameVictims,
    impactDistanceM: r.impacts.distanceM, impactsByEnd: r.impacts.byEnd,
    cheatersFlagged: cheaters.reduce((n, [, d]) => n + d.flagged, 0), cheaterPlayers: cheaters.reduce((n, [, d]) => n + d.players, 0),
    fog: r.fog, popIn: r.popIn, outlinePopIn: r.fogDetail?.outlinePopIn ?? null, outlineSamples: r.fogDetail?.outlineSamples ?? null, stalledPopIn: r.fogDetail?.stalledPopIn ?? null, appearances: r.fogDetail?.appearances ?? null, appearedInSight: r.fogDetail?.appearedInSight ?? null, withheldShare: r.withheldShare, wallhackLeadMs: r.wallhackLeadMs,
    diedBehindCoverRate: r.diedBehindCoverRate, deaths: r.fogDetail?.deaths ?? null,
    backfill: r.config.backfill, backfillsTaken: r.fogDetail?.backfillsTaken ?? null, backfillsDropped: r.fogDetail?.backfillsDropped ?? null,
    preciseShare: r.fogDetail?.preciseShare ?? null, fogUpdateMs: r.fogDetail?.fogUpdateMs ?? null,
  };
}

export async function run(opts: { json: boolean; seconds?: number }): Promise<void> {
  for (const { run, options } of RUNS) {
    const r = row(run, await runSimulation({ ...optionsOf(options), seconds: opts.seconds ?? options.seconds }));
    if (opts.json) { console.log(JSON.stringify(r)); continue; }
    console.log(`sim ${run}: ${r.bots} honest bots, ${r.cheaters} cheaters, ${r.seconds} s: agreement ${(100 * Number(r.agreementAll)).toFixed(2)}% of ${r.honestMessages} honest messages ` +
      `(${r.raceShots} death races), ${r.honestRejected} honest refused, ${r.ruleCheatAccepted} of ${r.ruleCheatMessages} rule-breaking accepted, ` +
      `${Number(r.ticksPerSecond).toFixed(1)} of ${r.tickRate} ticks/s, audit flagged ${r.honestFlagged}/${r.honestPlayers} honest and ${r.cheatersFlagged}/${r.cheaterPlayers} cheaters`);
  }
  const peeks = await peekTable({ jitterMs: 0, loss: 0, peeks: 3, seed: 1, interpFor: (rtt, patchMs, windowMs, maxInterpMs) => interpDelayFor(rtt, 0, patchMs, windowMs, maxInterpMs) });
  for (const p of peeks) {
    const r = { bench: 'peek', ...p };
    if (opts.json) console.log(JSON.stringify(r));
    else console.log(`peek rtt ${p.rttMs} fog ${p.fog}: advantage ${p.peekersAdvantageMs?.toFixed(0)} ms (Riot's model ${p.modelMs.toFixed(0)} ms) over ${p.peeks} peeks`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const a = benchArgs('sim.bench.ts', ['seconds']);
  await run({ json: a.json, seconds: a.seconds });
  process.exit(0);
}
