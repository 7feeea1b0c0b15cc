/**
 * `npm run cluster -- --processes N [--port 2567] [--host 127.0.0.1]`: N game server processes on
 * consecutive ports sharing matchmaking through Redis (REDIS_URL, default redis://127.0.0.1:6379,
 * keys under REDIS_KEY_PREFIX, default hitreg:), for local use and tests. Every other variable of
 * `npm start` (TICK_RATE, MATCH_LOG_DIR, LEVEL, limits, ...) is passed to each process. Output:
 * each process's lines, JSON as they come (each carries its pid), or `[pI] text` on a terminal.
 *
 * Exit codes: 0 after SIGTERM/SIGINT/SIGHUP once every process has finished its rooms (or was
 * stopped while starting); 1 when the processes cannot start (no Redis, a port in use, ...), all of
 * them died, or one had to be killed after the stop's deadline; 2 for bad arguments. A process that dies is
 * reported and the others go on. Run through npm (`npm run cluster`), the script execs tsx, so a
 * signal to npm's pid reaches this process through tsx, which relays it.
 */
import { parseArgs } from 'node:util';
import { ClusterAbortedError, startCluster, type Cluster } from './supervisor';
import { firstLine } from '../ops/log';

const USAGE = 'usage: npm run cluster -- --processes N [--port BASE (2567; 0 = free ports)] [--host 127.0.0.1]';

function fail(code: number, message: string): never {
  process.stderr.write(`cluster: ${message}\n`);
  process.exit(code);
}

let values;
try {
  ({ values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: { processes: { type: 'string', short: 'n' }, port: { type: 'string' }, host: { type: 'string' } },
  }));
} catch (e) {
  fail(2, `${firstLine(e)}. ${USAGE}`);
}
const processes = Number(values.processes ?? 2);
const port = Number(values.port ?? process.env.PORT ?? 2567);
if (!(Number.isInteger(processes) && processes >= 1 && processes <= 64)) fail(2, `--processes takes an integer 1..64. ${USAGE}`);
if (!(Number.isInteger(port) && port >= 0 && port + processes - 1 <= 65535)) fail(2, `--port takes a base port such that every port fits in 0..65535. ${USAGE}`);

const tty = process.stdout.isTTY === true;
const show = (i: number, line: string, stream: 'stdout' | 'stderr'): void => {
  const out = stream === 'stdout' ? process.stdout : process.stderr;
  if (!tty || !line.startsWith('{')) {
    out.write(tty ? `[p${i}] ${line}\n` : `${line}\n`);
    return;
  }
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    const { level: _l, time: _t, pid: _p, hostname: _h, msg, text, ...rest } = o;
    const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
    out.write(`[p${i}] ${typeof text === 'string' ? text : `${String(msg)}${fields ? ` ${fields}` : ''}`}\n`);
  } catch {
    out.write(`[p${i}] ${line}\n`);
  }
};

let cluster: Cluster | null = null;
let stopping = false;
const starting = new AbortController();

/**
 * SIGTERM, SIGINT or SIGHUP: every process finishes its rooms (SIGKILL after the supervisor's
 * deadline), then exit. During the start, the processes started so far are stopped the same way.
 * Further signals change nothing: the stop is bounded already, and one Ctrl-C under npm arrives
 * twice (from the terminal, and forwarded by npm through tsx).
 */
function onSignal(): void {
  if (stopping) return;
  stopping = true;
  if (cluster === null) {
    starting.abort();
    return;
  }
  const c = cluster;
  void c.stop().then(() => {
    const bad = c.processes.filter((p) => p.exit?.code !== 0);
    process.exit(bad.length === 0 ? 0 : 1);
  });
}
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, onSignal);

try {
  cluster = await startCluster({
    processes, basePort: port, host: values.host ?? process.env.HOST ?? '127.0.0.1', onLine: show, signal: starting.signal,
    ...(process.env.REDIS_KEY_PREFIX ? { keyPrefix: process.env.REDIS_KEY_PREFIX } : {}),
    onExit: (p) => {
      if (stopping) return;
      const live = cluster?.processes.filter((q) => q.exit === null).length ?? 0;
      process.stderr.write(`cluster: process ${p.index} (pid ${p.pid}, ${p.publicAddress}) exited (code ${p.exit?.code}, signal ${p.exit?.signal}); ${live} of ${processes} left\n`);
      if (live === 0) process.exit(1);
    },
  });
} catch (e) {
  if (e instanceof ClusterAbortedError) process.exit(0);
  fail(1, firstLine(e));
}
process.stdout.write(`cluster: ${processes} processes sharing matchmaking through ${cluster.redisUrl.replace(/:[^:@/]*@/, ':***@')}; matchmake at any of ${cluster.processes.map((p) => p.url).join(' ')}\n`);
