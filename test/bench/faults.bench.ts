/**
 * `npm run bench:faults`: an operator's bad day, tried from outside with real processes, a real
 * Redis, real sockets and a real full filesystem (test/bench/faults/*):
 * - redisOutage: a 2-process cluster with bots playing; its own Redis killed with SIGKILL after
 *   --play seconds and restarted empty --outage seconds later, --runs times; then once FLUSHALL.
 *   Reports the slowest recovery (Redis answering until a join through every process reaches the
 *   surviving room), the joins tried during the outages and how they were answered, and the lowest
 *   tick rate a bot saw;
 * - stalledClients: --waves rounds of --stalled clients that join and stop reading beside playing
 *   bots: how many were cut loose, the server's RSS growth and what the last round added;
 * - diskFull: a server whose match logs go to a 1 MiB tmpfs (needs root to mount; otherwise the
 *   entry says why it did not run): bytes left unwritten as /metrics reports them and whether the
 *   audit of the cut log says it is truncated.
 * With --json the last line is one object: { bench: 'faults', redisOutage: { secondsToRecover, joinsDuringOutage,
 * ticksPerSecondMin, ... }, stalledClients: { stalled, disconnected, rssGrowthMb, ... },
 * diskFull: { unwrittenBytes, auditSaysTruncated, ... } }. --only redis|stalled|disk runs one part.
 *
 *   npm run bench:faults [-- --json] [-- --runs 3] [-- --stalled 300 --waves 6] [-- --only redis]
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args';
import { redisOutageScenario, type JoinTally, type RedisOutageResult } from './faults/redisOutage';
import { stalledClientsScenario } from './faults/stalledClients';
import { diskFullScenario, TmpfsUnavailableError } from './faults/diskFull';

function addTally(into: JoinTally, t: JoinTally): void {
  into.attempts += t.attempts;
  into.refusedRetryable += t.refusedRetryable;
  into.hung += t.hung;
  for (const [k, v] of Object.entries(t.other)) into.other[k] = (into.other[k] ?? 0) + v;
}

async function redisPart(runs: number, playS: number, outageS: number, log: (s: string) => void): Promise<Record<string, unknown>> {
  const restarts: RedisOutageResult[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await redisOutageScenario({ mode: 'restart', playMs: playS * 1000, outageMs: outageS * 1000, seed: 27 + i });
    log(`redis outage run ${i + 1}/${runs}: back in ${r.secondsToRecover ?? 'never'} s; ${r.joinsDuringOutage.refusedRetryable}/${r.joinsDuringOutage.attempts} joins refused 503 + Retry-After, ${r.joinsDuringOutage.hung} hung; ticks/s min ${r.ticksPerSecondMin}`);
    restarts.push(r);
  }
  const flush = await redisOutageScenario({ mode: 'flushall', playMs: playS * 1000, seed: 99 });
  log(`FLUSHALL: back in ${flush.secondsToRecover ?? 'never'} s; ticks/s min ${flush.ticksPerSecondMin}`);
  const all = [...restarts, flush];
  const joins: JoinTally = { attempts: 0, refusedRetryable: 0, hung: 0, other: {} };
  for (const r of restarts) addTally(joins, r.joinsDuringOutage);
  const recover = all.map((r) => r.secondsToRecover);
  return {
    runs, outageSeconds: outageS,
    secondsToRecover: recover.includes(null) ? null : Math.max(...(recover as number[])),
    secondsToRecoverRuns: restarts.map((r) => r.secondsToRecover),
    secondsToRecoverFlushall: flush.secondsToRecover,
    joinsDuringOutage: joins,
    ticksPerSecondMin: Math.min(...all.map((r) => r.ticksPerSecondMin)),
    ticksPerSecondMinWindow: Math.min(...all.map((r) => r.ticksPerSecondMinWindow)),
    processesAlive: Math.min(...all.map((r) => r.processesAlive)),
    botsDisconnected: all.reduce((n, r) => n + r.bots - r.botsConnected, 0),
    unhandledErrorLines: all.reduce((n, r) => n + r.unhandledErrorLines, 0),
    stateLines: { lost: restarts.reduce((n, r) => n + r.redisLostLines, 0), back: restarts.reduce((n, r) => n + r.redisBackLines, 0) },
  };
}

/** One bench row (`bench: 'faults'`) holding the three parts; `npm run bench` calls this with defaults. */
export async function run(opts: { json: boolean }, argv: string[] = []): Promise<void> {
  const a = { ...benchArgs('faults.bench.ts', ['runs', 'play', 'outage', 'stalled', 'waves'], ['only'], argv), json: opts.json };
  const log = (s: string): void => { if (!a.json) console.log(s); else console.error(s); };
  const only = a.only;
  if (only !== undefined && !['redis', 'stalled', 'disk'].includes(only)) {
    console.error('--only takes redis, stalled or disk');
    process.exit(2);
  }
  const out: Record<string, unknown> = { bench: 'faults' };
  // The cluster runs the built server (dist/): build it when a source is newer.
  if (only === undefined || only === 'redis') execFileSync(process.execPath, ['server/build/build.mjs', '--if-stale'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'ignore', 'inherit'] });
  if (only === undefined || only === 'redis') out.redisOutage = await redisPart(a.runs ?? 3, a.play ?? 12, a.outage ?? 10, log);
  if (only === undefined || only === 'stalled') {
    out.stalledClients = await stalledClientsScenario({ stalled: a.stalled ?? 300, waves: a.waves ?? 6 });
    log(`stalled clients: ${JSON.stringify(out.stalledClients)}`);
  }
  if (only === undefined || only === 'disk') {
    try {
      const d = await diskFullScenario({});
      out.diskFull = {
        unwrittenBytes: d.unwrittenBytes, auditSaysTruncated: d.auditSaysTruncated, why: d.ends.why,
        writeFailures: d.afterClose.writeFailures, ticksPerSecondAfterFull: d.ticksPerSecondAfterFull, players: d.players, sizeBytes: d.sizeBytes,
      };
    } catch (e) {
      if (!(e instanceof TmpfsUnavailableError)) throw e;
      out.diskFull = { skipped: e.message };
    }
    log(`full disk: ${JSON.stringify(out.diskFull)}`);
  }
  if (a.json) console.log(JSON.stringify(out));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run({ json: process.argv.includes('--json') }, process.argv.slice(2));
  process.exit(0);
}
