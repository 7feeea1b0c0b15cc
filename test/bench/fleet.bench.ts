/**
 * Fleet audits under load and a kill: `npm run bench:fleet -- [--logs N] [--workers W] [--kill] [--json]
 * [--concurrency C] [--bases B] [--players P] [--seconds S] [--pool N] [--poison N] [--lock-ms MS]`.
 *
 * Makes N match logs (fleetLogs.ts: B real synthetic matches of P players x S s, copied into
 * distinct logs, each its own log id; plus --poison logs that cannot be evidence, default 5, one of
 * each kind), starts W `audit-worker` processes (concurrency C each) on a Redis key prefix and a
 * temporary SQLite store of its own, enqueues every log, and with --kill SIGKILLs the first worker
 * once half the logs are done (while it holds a job) and starts it again. When the queue has drained
 * it prints one JSON line (with --json; a sentence otherwise):
 *
 *   logs       valid logs enqueued (poison not counted)
 *   audited    of them, those whose match is in the store
 *   failed     jobs that ended failed (the poison should, with its reason; `poisonFailed` counts those)
 *   lost       enqueued logs (poison included) neither in the store nor failed
 *   duplicates rows of the store beyond one per (log, player), and matches beyond one per log
 *   jobsPerSecond  finished jobs over the wall time from the first enqueue to the drain
 *   jobP99Ms   99th percentile of a completed job's processing time (BullMQ processedOn to finishedOn)
 *   killed     workers SIGKILLed; `stalled`: jobs BullMQ took back from a dead worker
 *
 * Redis at REDIS_URL (default redis://127.0.0.1:6379). Everything it made is removed at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args';
import { distinctCopy, makeBaseLogs, playerIdOf, poisonOf, POISON_KINDS } from './fleetLogs';
import { AuditQueue, queueRedisUrl } from '../../server/evidence/queue';
import { logIdOf } from '../../server/evidence/evidence';
import { EvidenceStore } from '../../server/evidence/store';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface WorkerProc { child: ChildProcess; done: number; stalled: number; ready: Promise<void>; exited: Promise<void> }

/** One `audit-worker` process in its own process group, its JSON lines counted. */
function startWorker(store: string, prefix: string, concurrency: number, lockMs: number): WorkerProc {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/evidence/workerCli.ts', '--store', store, '--prefix', prefix, '--concurrency', String(concurrency), '--lock-ms', String(lockMs)], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const w = { child, done: 0, stalled: 0 } as WorkerProc;
  let buf = '';
  let ready: () => void;
  w.ready = new Promise((r) => { ready = r; });
  w.exited = new Promise((r) => child.on('exit', () => r()));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.includes('"event":"ready"')) ready();
      else if (line.includes('"event":"done"')) w.done++;
      else if (line.includes('"event":"stalled"')) w.stalled++;
    }
  });
  return w;
}

function killGroup(w: WorkerProc, signal: NodeJS.Signals): void {
  try {
    process.kill(-w.child.pid!, signal);
  } catch {
    // gone already
  }
}

function p99(v: number[]): number {
  if (v.length === 0) return Number.NaN;
  const s = v.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
}

export async function run(opts: { json: boolean; logs?: number; workers?: number; kill?: boolean; concurrency?: number; bases?: number; players?: number; seconds?: number; pool?: number; poison?: number; lockMs?: number }): Promise<Record<string, unknown>> {
  const n = Math.floor(opts.logs ?? 1000), workers = Math.floor(opts.workers ?? 2), concurrency = Math.floor(opts.concurrency ?? 1);
  const players = Math.floor(opts.players ?? 4), bases = Math.floor(opts.bases ?? 8), pool = Math.max(players, Math.floor(opts.pool ?? 200));
  const poisonCount = Math.floor(opts.poison ?? POISON_KINDS.length), lockMs = Math.floor(opts.lockMs ?? 3000);
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  const prefix = `hitreg-fleet-bench-${process.pid}`;
  const storePath = join(dir, 'evidence.sqlite');
  const queue = new AuditQueue({ url: queueRedisUrl(), prefix }, { attempts: 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: false, removeOnFail: false });
  const procs: WorkerProc[] = [];
  try {
    // The logs: distinct copies of a few real matches, and the poison spread among them.
    const base = await makeBaseLogs(join(dir, 'bases'), { bases, players, seconds: opts.seconds ?? 6, pool });
    const valid: { path: string; logId: string }[] = [];
    const paths: string[] = [];
    const poisonEvery = poisonCount > 0 ? Math.max(1, Math.floor(n / poisonCount)) : Infinity;
    let poisoned = 0;
    for (let j = 0; j < n; j++) {
      const bytes = distinctCopy(base[j % bases]!, j + 1, (slot) => playerIdOf(((j + 1) * players + slot) % pool));
      const path = join(dir, `log-${j}.hrml`);
      writeFileSync(path, bytes);
      valid.push({ path, logId: logIdOf(bytes) });
      paths.push(path);
      if (poisoned < poisonCount && j % poisonEvery === Math.floor(poisonEvery / 2)) {
        const p = join(dir, `poison-${poisoned}.hrml`);
        writeFileSync(p, poisonOf(POISON_KINDS[poisoned % POISON_KINDS.length]!, bytes));
        paths.push(p);
        poisoned++;
      }
    }
    // An empty store, migrated once before the workers race to open it.
    await (await EvidenceStore.open(storePath)).close();
    for (let i = 0; i < workers; i++) procs.push(startWorker(storePath, prefix, concurrency, lockMs));
    await Promise.all(procs.map((p) => p.ready));

    const t0 = performance.now();
    await queue.queue.addBulk(paths.map((path) => ({ name: 'audit', data: { path, enqueuedAt: new Date().toISOString() } })));
    let killed = 0;
    const restarted: WorkerProc[] = [];
    const deadline = t0 + 10 * 60_000;
    for (;;) {
      const c = await queue.counts();
      if (opts.kill && killed === 0 && c.completed + c.failed >= paths.length / 2 && c.active > 0) {
        killGroup(procs[0]!, 'SIGKILL');
        await procs[0]!.exited;
        killed++;
        const again = startWorker(storePath, prefix, concurrency, lockMs);
        restarted.push(again);
        procs.push(again);
      }
      if (c.waiting + c.active + c.delayed === 0 && c.completed + c.failed >= paths.length) break;
      if (performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const wallMs = performance.now() - t0;

    const completed = await queue.queue.getJobs(['completed'], 0, -1);
    const failedJobs = await queue.queue.getJobs(['failed'], 0, -1);
    const failedPaths = new Set(failedJobs.map((j) => j.data.path));
    const store = await EvidenceStore.open(storePath);
    const inStore = new Set((await store.db.all<{ log_id: string }>('SELECT log_id FROM matches')).map((r) => r.log_id));
    const dupRows = (await store.db.all<{ n: number }>(
      'SELECT CAST((SELECT COUNT(*) FROM player_matches) - (SELECT COUNT(*) FROM (SELECT DISTINCT log_id, player_id, verified FROM player_matches) d) AS INTEGER) AS n'))[0]!.n;
    const counts = await store.counts();
    await store.close();
    const audited = valid.filter((v) => inStore.has(v.logId)).length;
    const poisonPaths = paths.filter((p) => p.includes('poison-'));
    const lost = valid.filter((v) => !inStore.has(v.logId) && !failedPaths.has(v.path)).length + poisonPaths.filter((p) => !failedPaths.has(p)).length;
    const out = {
      bench: 'fleet', logs: n, audited, failed: failedJobs.length, lost,
      duplicates: Number(dupRows) + Math.max(0, counts.matches - inStore.size),
      jobsPerSecond: Number(((completed.length + failedJobs.length) / (wallMs / 1000)).toFixed(1)),
      jobP99Ms: Math.round(p99(completed.map((j) => (j.finishedOn ?? 0) - (j.processedOn ?? 0)))),
      killed, stalled: procs.reduce((s, p) => s + p.stalled, 0),
      poison: poisonPaths.length, poisonFailed: poisonPaths.filter((p) => failedPaths.has(p)).length,
      failedReasons: [...new Set(failedJobs.map((j) => j.failedReason.split(':', 1)[0]))],
      workers, concurrency, players, seconds: opts.seconds ?? 6, bases, wallMs: Math.round(wallMs),
      playerRows: counts.playerMatches, drained: performance.now() <= deadline,
    };
    return out;
  } finally {
    for (const p of procs) killGroup(p, 'SIGTERM');
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 5000))]);
    for (const p of procs) killGroup(p, 'SIGKILL');
    await queue.queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  const a = benchArgs('fleet.bench.ts', ['logs', 'workers', 'concurrency', 'bases', 'players', 'seconds', 'pool', 'poison', 'lock-ms'], [], process.argv.slice(2), ['kill']);
  run({ ...a, lockMs: a['lock-ms'] }).then((o) => {
    if (a.json) console.log(JSON.stringify(o));
    else console.log(`fleet: ${o.logs} logs, ${o.audited} audited, ${o.failed} failed (${o.poisonFailed} of ${o.poison} poison), ${o.lost} lost, ${o.duplicates} duplicates; ${o.jobsPerSecond} jobs/s, p99 ${o.jobP99Ms} ms per job; ${o.killed} killed, ${o.stalled} taken back`);
    process.exit(0);
  }, (e: unknown) => {
    console.error(`bench:fleet: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
    process.exit(1);
  });
}
