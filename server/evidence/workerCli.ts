/**
 * `npm run audit-worker`: one audit worker process of the fleet (worker.ts).
 *
 *   npm run audit-worker -- [--store file.sqlite | postgres://...] [--concurrency N] [--redis redis://host:port]
 *                           [--prefix P] [--lock-ms MS] [--incomplete] [--status]
 *   npm run audit-worker -- --enqueue <log or directory> ... [--redis URL] [--prefix P]
 *
 * Takes match logs off the audit queue (REDIS_URL, default redis://127.0.0.1:6379; key prefix
 * hitreg-audit) and records each in the evidence store (default DATABASE_URL, else
 * ./evidence.sqlite). Prints one JSON line per event on stdout: {"event":"ready"}, then "done",
 * "failed" (with its reason, and whether it was the last attempt), "stalled", "error". SIGTERM or
 * SIGINT lets the running jobs finish and exits 0; a second one exits at once. `--status` prints
 * the queue's counts as one JSON line and exits; `--enqueue` puts logs (every *.hrml under a
 * directory) on the queue, e.g. those of servers that ran without AUDIT_QUEUE, prints how many and
 * exits. Exit code 2: bad arguments or the store cannot be opened.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { findMatchLogs } from '../behaviour/many';
import { closeAuditWorkers } from '../behaviour/audit';
import { hidePassword } from './db';
import { AuditQueue, queueRedisUrl } from './queue';
import { defaultStoreTarget, EvidenceStore } from './store';
import { startAuditWorker } from './worker';

const USAGE = 'usage: npm run audit-worker -- [--store file.sqlite | postgres://...] [--concurrency N] [--redis redis://host:port] [--prefix P] [--lock-ms MS] [--incomplete] [--status | --enqueue <log or directory> ...]';

function intArg(v: string | undefined, name: string, lo: number, hi: number, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < lo || n > hi) throw new Error(`${name} takes an integer ${lo}..${hi}. ${USAGE}`);
  return n;
}

const say = (o: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(o)}\n`);

/** --enqueue: every log named (every *.hrml under a directory) onto the queue. */
async function enqueueAll(paths: string[], url: string, prefix: string | undefined): Promise<number> {
  if (paths.length === 0) {
    console.error(`audit-worker: --enqueue needs logs or directories. ${USAGE}`);
    return 2;
  }
  const logs: string[] = [];
  for (const p of paths) {
    const isDir = await stat(p).then((s) => s.isDirectory(), () => false);
    logs.push(...(isDir ? await findMatchLogs(p) : [p]));
  }
  const q = new AuditQueue({ url, prefix });
  try {
    for (const log of logs) await q.enqueueLog(log);
    say({ event: 'enqueued', logs: logs.length, redis: hidePassword(url), ...(await q.counts()) });
  } finally {
    await q.close();
  }
  return 0;
}

const OPTIONS = {
  store: { type: 'string' }, concurrency: { type: 'string' }, redis: { type: 'string' }, prefix: { type: 'string' }, 'lock-ms': { type: 'string' },
  incomplete: { type: 'boolean' }, status: { type: 'boolean' }, enqueue: { type: 'boolean' },
} as const;

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: OPTIONS });
  } catch (e) {
    console.error(`audit-worker: ${(e as Error).message.split('\n', 1)[0]}. ${USAGE}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  if (positionals.length > 0 && !v.enqueue) {
    console.error(`audit-worker: ${positionals[0]}: paths go with --enqueue. ${USAGE}`);
    return 2;
  }
  let concurrency: number, lockMs: number;
  try {
    concurrency = intArg(v.concurrency, '--concurrency', 1, 64, 1);
    lockMs = intArg(v['lock-ms'], '--lock-ms', 1000, 600_000, 30_000);
  } catch (e) {
    console.error(`audit-worker: ${(e as Error).message}`);
    return 2;
  }
  const url = queueRedisUrl(v.redis);
  if (v.status) {
    const q = new AuditQueue({ url, prefix: v.prefix });
    try {
      say({ event: 'status', redis: hidePassword(url), ...(await q.counts()) });
    } finally {
      await q.close();
    }
    return 0;
  }
  if (v.enqueue) return enqueueAll(positionals, url, v.prefix);
  let store: EvidenceStore;
  const target = v.store ?? defaultStoreTarget();
  try {
    store = await EvidenceStore.open(target);
  } catch (e) {
    console.error(`audit-worker: cannot open the evidence store ${hidePassword(target)}: ${(e as Error).message.split('\n', 1)[0]}`);
    return 2;
  }
  const worker = startAuditWorker({ store, url, prefix: v.prefix, concurrency, lockMs, incomplete: v.incomplete === true, onEvent: say });
  await worker.waitUntilReady();
  say({ event: 'ready', pid: process.pid, store: store.where, redis: hidePassword(url), concurrency });
  return new Promise<number>((done) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) process.exit(1);
      stopping = true;
      say({ event: 'stopping', signal });
      void (async () => {
        await worker.close();
        await closeAuditWorkers();
        await store.close();
        say({ event: 'stopped' });
        done(0);
      })();
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  // Exits when done: a connection library's timer must not keep a stopped worker alive.
  main(process.argv.slice(2)).then((code) => process.exit(code), (e: unknown) => {
    console.error(`audit-worker: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  });
}
