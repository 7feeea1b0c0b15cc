/**
 * The fleet's audit queue on a real Redis (a BullMQ key prefix of the test's own, removed after;
 * skipped, naming host:port, when Redis does not answer) with a worker (server/evidence/worker.ts)
 * in this process and a SQLite store on disk: a good log is recorded once however often it comes;
 * poisoned logs (not a log, empty, a header cut short, truncated, corrupt, missing) fail at their
 * first attempt with their reason; a job whose store write fails is retried with backoff and then
 * recorded; and a game server with an audit queue puts each closed match log on it, the worker
 * records its named player.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { synthesizeMatch } from '../server/behaviour/synth/synthMatch';
import { closeAuditWorkers } from '../server/behaviour/audit';
import { AuditQueue, jobIdFor } from '../server/evidence/queue';
import { EvidenceStore } from '../server/evidence/store';
import { logIdOf } from '../server/evidence/evidence';
import { startAuditWorker, type AuditWorkerOptions, type WorkerEvent } from '../server/evidence/worker';
import { poisonOf, POISON_KINDS } from './bench/fleetLogs';
import { buildTestWorld, startTestServer, TEST_SPAWNS, TestPlayer, shootAtZone, roomClosed } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { REDIS_URL, hostPort, redisProblem, uniqueName } from './helpers/services';

const dir = mkdtempSync(join(tmpdir(), 'evidence-queue-'));
const GOOD = join(dir, 'good.hrml');
let problem: string | null = null;

/** The worker's events as they come, and waiting for one. */
class Events {
  readonly list: WorkerEvent[] = [];
  private waiters: (() => void)[] = [];
  readonly push = (e: WorkerEvent): void => {
    this.list.push(e);
    for (const w of this.waiters.splice(0)) w();
  };
  async until(test: (list: WorkerEvent[]) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!test(this.list)) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.list)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => { clearTimeout(t); r(); });
      });
    }
  }
}

interface Rig { queue: AuditQueue; worker: Worker; store: EvidenceStore; events: Events }
const rigs: Rig[] = [];

async function rig(name: string, extra: Partial<AuditWorkerOptions> = {}, store?: EvidenceStore): Promise<Rig> {
  const prefix = uniqueName(`evq_${name}`);
  const events = new Events();
  const s = store ?? await EvidenceStore.open(join(dir, `${name}.sqlite`));
  const queue = new AuditQueue({ url: REDIS_URL, prefix }, { attempts: 3, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: false, removeOnFail: false });
  const worker = startAuditWorker({ store: s, url: REDIS_URL, prefix, lockMs: 5000, onEvent: events.push, ...extra });
  await worker.waitUntilReady();
  const r = { queue, worker, store: s, events };
  rigs.push(r);
  return r;
}

beforeAll(async () => {
  problem = await redisProblem();
  if (problem !== null) {
    console.warn(`test/evidenceQueue.test.ts: skipped: ${problem}`);
    return;
  }
  await synthesizeMatch({ world: await loadWorld(), levelPath: DEFAULT_LEVEL_PATH, path: GOOD, seed: 3, players: 3, durationS: 8, identities: [{ slot: 0, playerId: 'ann', verified: true }, { slot: 1, playerId: 'ben', verified: false }] });
});

afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.worker.close();
    await r.queue.queue.obliterate({ force: true });
    await r.queue.close();
    await r.store.close();
  }
});

afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

const skipMessage = (): string => `needs Redis on ${hostPort(REDIS_URL)}: ${problem}`;

describe('fleet audits on the queue', () => {
  it('records a good log once however often it comes; poisoned logs fail at their first attempt with their reason', async (ctx) => {
    if (problem !== null) ctx.skip(skipMessage());
    const r = await rig('poison');
    const good = new Uint8Array(readFileSync(GOOD));
    const again = join(dir, 'same-bytes-other-path.hrml');
    writeFileSync(again, good);
    const poison = POISON_KINDS.map((kind) => {
      const path = join(dir, `poison-${kind}.hrml`);
      writeFileSync(path, poisonOf(kind, good));
      return { kind, path };
    });
    const missing = join(dir, 'missing.hrml');
    for (const p of [GOOD, ...poison.map((x) => x.path), missing]) await r.queue.enqueueLog(p);
    // The same path twice while it waits is one job.
    expect(await r.queue.enqueueLog(GOOD)).toBe(jobIdFor(GOOD));
    await r.events.until((l) => l.length >= poison.length + 2, 'every job to finish');
    await r.queue.enqueueLog(again);
    await r.events.until((l) => l.some((e) => e.event === 'done' && e.path === again), 'the copy to finish');

    const done = r.events.list.filter((e) => e.event === 'done');
    expect(done.map((e) => [e.path, e.recorded, e.logId])).toEqual([[GOOD, true, logIdOf(good)], [again, false, logIdOf(good)]]);
    const failed = r.events.list.filter((e): e is Extract<WorkerEvent, { event: 'failed' }> => e.event === 'failed');
    const reason = (path: string) => failed.find((f) => f.path === path);
    const expected: Record<string, RegExp> = {
      'not-a-log': /^not a match log: magic/, empty: /^not a match log: 0 bytes/, 'cut-header': /no readable header record/,
      truncated: /^the log ends early \(/, corrupt: /^the audit failed .*(corrupt-record|mismatch)|^the log ends early/,
    };
    for (const p of poison) {
      expect(reason(p.path), p.kind).toMatchObject({ attempt: 1, final: true });
      expect(reason(p.path)!.reason, p.kind).toMatch(expected[p.kind]!);
    }
    expect(reason(missing)).toMatchObject({ attempt: 1, final: true, reason: expect.stringMatching(/ENOENT/) });
    // BullMQ agrees: failed after one attempt, with that reason.
    for (const p of [...poison.map((x) => x.path), missing]) {
      const job = await r.queue.queue.getJob(jobIdFor(p));
      expect([await job!.getState(), job!.attemptsMade, job!.failedReason]).toEqual(['failed', 1, reason(p)!.reason]);
    }
    expect(await r.store.counts()).toMatchObject({ matches: 1, playerMatches: 2 });
  });

  it('retries a job whose store write failed, with backoff, and records it once', async (ctx) => {
    if (problem !== null) ctx.skip(skipMessage());
    const store = await EvidenceStore.open(join(dir, 'retry.sqlite'));
    const record = store.record.bind(store);
    let calls = 0;
    store.record = async (e) => {
      if (++calls === 1) throw new Error('the store is away (test)');
      return record(e);
    };
    const r = await rig('retry', {}, store);
    await r.queue.enqueueLog(GOOD);
    await r.events.until((l) => l.some((e) => e.event === 'done'), 'the retried job to finish');
    expect(r.events.list.map((e) => e.event)).toEqual(['failed', 'done']);
    expect(r.events.list[0]).toMatchObject({ attempt: 1, final: false, reason: 'the store is away (test)' });
    const job = await r.queue.queue.getJob(jobIdFor(GOOD));
    expect(job!.attemptsMade).toBe(2);
    // Exponential backoff: the second attempt began at least the first delay (200 ms) after the first failed.
    expect(job!.processedOn! - job!.timestamp).toBeGreaterThanOrEqual(200);
    expect(await store.counts()).toMatchObject({ matches: 1, playerMatches: 2 });
  });

  it('a game server with an audit queue puts each closed match log on it; the worker records its named player', async (ctx) => {
    if (problem !== null) ctx.skip(skipMessage());
    const logs = join(dir, 'server-logs');
    const prefix = uniqueName('evq_server');
    const ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: logs, validation: { claimToleranceMs: 150 }, auditQueue: { url: REDIS_URL, prefix } });
    const store = await EvidenceStore.open(join(dir, 'server.sqlite'));
    const events = new Events();
    const queue = new AuditQueue({ url: REDIS_URL, prefix });
    // The log names the test level by no file: the worker audits with the server's world.
    const worker = startAuditWorker({ store, url: REDIS_URL, prefix, onEvent: events.push, audit: { world: ts.server.world } });
    rigs.push({ queue, worker, store, events });
    try {
      const a = await TestPlayer.create(ts.url, { interpDelayMs: 100, playerId: 'carol' });
      const b = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: 100 });
      for (const p of [a, b]) await p.until(() => p.clock.synced && p.slot >= 0 && p.snapshots.length > 4, 5000, 'ready');
      await a.until(() => a.renderPose(b.slot, a.serverNow() - 150) !== null, 5000, 'b rendered');
      expect((await shootAtZone(a, ts, b.slot, 1, HitZone.UPPER_TORSO)).reasonName).toBe('OK_HIT');
      const closed = roomClosed(ts, a.room.roomId);
      await Promise.all([a.leave(), b.leave()]);
      await closed;
      await events.until((l) => l.some((e) => e.event === 'done' || e.event === 'failed'), 'the server\'s log audited');
      const file = join(logs, readdirSync(logs).find((f) => f.endsWith('.hrml'))!);
      expect(events.list[0]).toMatchObject({ event: 'done', path: file, recorded: true, players: 1, logId: logIdOf(new Uint8Array(readFileSync(file))) });
      expect(ts.server.auditQueue).toMatchObject({ enqueued: 1, failures: 0 });
      const matches = await store.playerMatches({ playerId: 'carol', verified: false });
      expect(matches.map((m) => [m.path, m.shots, m.hits])).toEqual([[file, 1, 1]]);
    } finally {
      await ts.close();
    }
  });
});
