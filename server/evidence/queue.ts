/**
 * The fleet's audit queue on Redis (BullMQ): finished match logs go in by path (`enqueueLog`), the
 * audit workers (worker.ts, `npm run audit-worker`) take them out, audit each and record it in the
 * evidence store. A job is retried with exponential backoff when its audit could not run (the store
 * down, say); a log that cannot be evidence fails at once with its reason (worker.ts). The job id
 * is the log's path hashed, so a log enqueued twice while waiting is one job.
 *
 * This module only enqueues: the game server loads it (and bullmq) when AUDIT_QUEUE is on, and
 * nothing of the audit comes with it.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

/** The queue's name (its keys are `<prefix>:match-audit:...`). */
export const AUDIT_QUEUE_NAME = 'match-audit';
export const DEFAULT_AUDIT_QUEUE_PREFIX = 'hitreg-audit';
export const DEFAULT_QUEUE_REDIS_URL = 'redis://127.0.0.1:6379';

export interface QueueTarget {
  /** redis://[user:password@]host:port[/db] (default REDIS_URL, else redis://127.0.0.1:6379). */
  url?: string;
  /** BullMQ's key prefix (default hitreg-audit): deployments, tests and benchmarks keep apart by it. */
  prefix?: string;
}

/** What a job carries. */
export interface AuditJobData {
  path: string;
  enqueuedAt: string;
}

/** The Redis URL a queue or worker uses: the one given, else REDIS_URL, else the local default. */
export function queueRedisUrl(url?: string, env: NodeJS.ProcessEnv = process.env): string {
  return url ?? (env.REDIS_URL?.trim() || DEFAULT_QUEUE_REDIS_URL);
}

/** ioredis options for a redis:// URL (BullMQ opens its own connections from them). */
export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`${url}: give a redis://host:port[/db] URL`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`${url}: the database after the / is a number`);
  return {
    host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : 6379, db,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Retries (attempts in all) and their backoff: 1 s, 2 s, 4 s, ... Finished jobs are kept a while
 * (a day, at most 10,000) for `npm run audit-worker -- --status` and the benchmark's timings.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
};

/** The job id of a log: its absolute path hashed (BullMQ ids may not contain ':'). */
export function jobIdFor(path: string): string {
  return `log-${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32)}`;
}

/** The queue, for enqueueing and for reading its jobs. Close it when done. */
export class AuditQueue {
  readonly queue: Queue<AuditJobData>;
  readonly prefix: string;

  constructor(target: QueueTarget = {}, jobOptions: JobsOptions = DEFAULT_JOB_OPTIONS) {
    this.prefix = target.prefix ?? DEFAULT_AUDIT_QUEUE_PREFIX;
    this.queue = new Queue<AuditJobData>(AUDIT_QUEUE_NAME, { connection: redisConnection(queueRedisUrl(target.url)), prefix: this.prefix, defaultJobOptions: jobOptions });
    // Redis going away is retried by the connection; an 'error' without a listener would throw.
    this.queue.on('error', () => {});
  }

  /** Puts the log at `path` on the queue for auditing; resolves with its job id. */
  async enqueueLog(path: string, options: JobsOptions = {}): Promise<string> {
    const abs = resolve(path);
    const job = await this.queue.add('audit', { path: abs, enqueuedAt: new Date().toISOString() }, { jobId: jobIdFor(abs), ...options });
    return job.id!;
  }

  /** Jobs by state: waiting, active, delayed (a retry's backoff), completed, failed. */
  async counts(): Promise<Record<'waiting' | 'active' | 'delayed' | 'completed' | 'failed', number>> {
    const c = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    return { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, completed: c.completed ?? 0, failed: c.failed ?? 0 };
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/** Puts one log on the queue at `target` (a connection for this one call); resolves with its job id. */
export async function enqueueLog(path: string, target: QueueTarget = {}): Promise<string> {
  const q = new AuditQueue(target);
  try {
    return await q.enqueueLog(path);
  } finally {
    await q.close();
  }
}
