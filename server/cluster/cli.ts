/**
 * `npm run cluster -- --processes N [--port 2567] [--host 127.0.0.1]`: N game server processes on
 * consecutive ports sharing matchmaking through Redis (REDIS_URL, default redis://127.0.0.1:6379),
 * for local use and tests. Every other variable of `npm start` (TICK_RATE, MATCH_LOG_DIR, LEVEL,
 * limits, ...) is passed to each process. Output: each process's lines, JSON as they come (each
 * carries its pid), or `[pI] text` on a terminal.
 *
 * Exit codes: 0 after SIGTERM/SIGINT once every process has finished its rooms; 1 when the
 * processes cannot start (no Redis, a port in use, ...) or all of them died; 2 for bad arguments.
 * A process that dies is reported and the others go on.
 */
import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from './supervisor';
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

let cluster: Cluster;
let stopping = false;
try {
  cluster = await startCluster({
    processes, basePort: port, host: values.host ?? process.env.HOST ?? '127.0.0.1', onLine: show,
    onExit: (p) => {
      if (stopping) return;
      process.stderr.write(`cluster: process ${p.index} (pid ${p.pid}, ${p.publicAddress}) exited (code ${p.exit?.code}, signal ${p.exit?.signal}); ${cluster.processes.filter((q) => q.exit === null).length} of ${processes} left\n`);
      if (cluster.processes.every((q) => q.exit !== null)) process.exit(1);
    },
  });
} catch (e) {
  fail(1, firstLine(e));
}
process.stdout.write(`cluster: ${processes} processes sharing matchmaking through ${cluster.redisUrl.replace(/:[^:@/]*@/, ':***@')}; matchmake at any of ${cluster.processes.map((p) => p.url).join(' ')}\n`);

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    void cluster.stop().then(() => {
      const bad = cluster.processes.filter((p) => p.exit?.code !== 0);
      process.exit(bad.length === 0 ? 0 : 1);
    });
  });
}
