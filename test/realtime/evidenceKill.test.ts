/**
 * A fleet audit worker killed with SIGKILL in the middle of a job loses nothing: two real
 * `audit-worker` processes (server/evidence/workerCli.ts) on a real Redis (a key prefix of the
 * test's own, removed after; skipped, naming host:port, when Redis does not answer) and one SQLite
 * store on disk. The first takes the job (BullMQ's own "active" event) and is killed while the job
 * is still active; once its lock expires the second worker's stalled check takes the job back and
 * audits it: the job completes, BullMQ counts one stall, and the store holds the match once, one
 * row per (log, player). A realtime test: it waits out a lock of 2 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueEvents } from 'bullmq';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../server/level/gltf';
import { synthesizeMatch } from '../../server/behaviour/synth/synthMatch';
import { AUDIT_QUEUE_NAME, AuditQueue, redisConnection } from '../../server/evidence/queue';
import { EvidenceStore } from '../../server/evidence/store';
import { Proc, killAll } from '../helpers/process';
import { REDIS_URL, hostPort, redisProblem, uniqueName } from '../helpers/services';

const dir = mkdtempSync(join(tmpdir(), 'evidence-kill-'));
const LOG = join(dir, 'long.hrml');
const STORE = join(dir, 'evidence.sqlite');
const LOCK_MS = 2000;
let problem: string | null = null;

beforeAll(async () => {
  problem = await redisProblem();
  if (problem !== null) {
    console.warn(`test/realtime/evidenceKill.test.ts: skipped: ${problem}`);
    return;
  }
  // A long match: its audit keeps the worker busy for a second or more.
  const identities = Array.from({ length: 16 }, (_, s) => ({ slot: s, playerId: `p${s}`, verified: s % 2 === 0 }));
  await synthesizeMatch({ world: await loadWorld(), levelPath: DEFAULT_LEVEL_PATH, path: LOG, seed: 11, players: 16, durationS: 180, identities });
});

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

function worker(prefix: string): Proc {
  return new Proc(process.execPath, ['--import', 'tsx', 'server/evidence/workerCli.ts', '--store', STORE, '--prefix', prefix, '--lock-ms', String(LOCK_MS)], { REDIS_URL });
}

describe('a fleet audit worker killed mid-job', () => {
  it('loses nothing: the job is taken back after its lock expires, audited by another worker and stored once', async (ctx) => {
    if (problem !== null) ctx.skip(`needs Redis on ${hostPort(REDIS_URL)}: ${problem}`);
    const prefix = uniqueName('evkill');
    const queue = new AuditQueue({ url: REDIS_URL, prefix });
    const events = new QueueEvents(AUDIT_QUEUE_NAME, { connection: redisConnection(REDIS_URL), prefix });
    await events.waitUntilReady();
    const first = worker(prefix);
    try {
      await first.line((o) => o.event === 'ready', 60_000, 'the first worker ready');
      const active = new Promise<string>((resolve) => events.on('active', ({ jobId }) => resolve(jobId)));
      const jobId = await queue.enqueueLog(LOG);
      expect(await active).toBe(jobId);
      first.kill('SIGKILL');
      const exit = await first.exitWithin(10_000);
      expect(exit.signal).toBe('SIGKILL');
      // Killed mid-job: the job is still active (its lock held by the dead worker), nothing stored.
      const job = await queue.queue.getJob(jobId);
      expect(await job!.getState()).toBe('active');
      expect(first.json.some((o) => o.event === 'done')).toBe(false);

      const completed = new Promise<string>((resolve) => events.on('completed', ({ jobId: id }) => { if (id === jobId) resolve(id); }));
      const second = worker(prefix);
      await second.line((o) => o.event === 'ready', 60_000, 'the second worker ready');
      await completed;
      const done = await second.line((o) => o.event === 'done', 60_000, 'the second worker\'s done line');
      expect(done).toMatchObject({ job: jobId, path: LOG, players: 16 });
      expect(second.json.some((o) => o.event === 'stalled' && o.job === jobId)).toBe(true);
      const after = (await queue.queue.getJob(jobId))!;
      expect([await after.getState(), after.stalledCounter]).toEqual(['completed', 1]);

      const store = await EvidenceStore.open(STORE);
      try {
        expect(await store.counts()).toMatchObject({ matches: 1, playerMatches: 16 });
        const dup = await store.db.all<{ n: number }>('SELECT CAST(COUNT(*) AS INTEGER) AS n FROM (SELECT DISTINCT log_id, player_id, verified FROM player_matches) d');
        expect(dup[0]!.n).toBe(16);
        expect((await store.playerMatches({ playerId: 'p0', verified: true })).length).toBe(1);
      } finally {
        await store.close();
      }
      second.kill('SIGTERM');
      expect((await second.exitWithin(20_000)).code).toBe(0);
    } finally {
      killAll();
      await events.close();
      await queue.queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
