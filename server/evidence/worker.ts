/**
 * The fleet's audit worker: takes match logs off the audit queue (queue.ts), audits each
 * (auditMatchLog, the replay in a pooled worker thread so this thread keeps renewing the job's
 * lock) and records its evidence in the store. `auditLogIntoStore` is the job; `startAuditWorker`
 * runs it on BullMQ with `concurrency` jobs at once.
 *
 * What becomes of a job:
 * - recorded (or already there: the store's write is idempotent, so a job retried after a worker
 *   died mid-write, or a log enqueued twice, leaves one match);
 * - failed at once, with its reason, when the log cannot be evidence: not a file, not a match log,
 *   an audit that failed, a log that ends early (evidence.ts notEvidence). BullMQ's
 *   UnrecoverableError: no retry, no crash loop;
 * - retried with exponential backoff (queue.ts DEFAULT_JOB_OPTIONS) for anything else (the store
 *   or Redis away), failed after the last attempt;
 * - a worker killed mid-job holds the job's lock until it expires (`lockMs`); then BullMQ's stalled
 *   check of a live worker puts the job back, at most `maxStalledCount` times.
 */
import { readFile } from 'node:fs/promises';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { LogFormatError } from '../../shared/matchlog/frame';
import type { World } from '../../shared/world/world';
import { loadWorld } from '../level/gltf';
import { auditMatchLog, type AuditOptions } from '../behaviour/audit';
import { evidenceFromAudit, notEvidence } from './evidence';
import { AUDIT_QUEUE_NAME, DEFAULT_AUDIT_QUEUE_PREFIX, queueRedisUrl, redisConnection, type AuditJobData, type QueueTarget } from './queue';
import type { EvidenceStore } from './store';

export interface AuditJobResult {
  logId: string;
  /** False when the store had the match already. */
  recorded: boolean;
  players: number;
  shots: number;
  /** Wall time of the job's audit and write, ms. */
  ms: number;
}

export interface EvidenceAuditOptions {
  /** Record logs that end early (default false: they fail as not evidence). */
  incomplete?: boolean;
  /** Options of the audit (thresholds, level). */
  audit?: Omit<AuditOptions, 'workers' | 'inWorkers' | 'firstWorker' | 'loadLevel' | 'onProgress'>;
}

/** Loads each level once per process (every log of a fleet usually names the same one). */
const levels = new Map<string, Promise<World>>();
function loadLevelOnce(path: string): Promise<World> {
  let w = levels.get(path);
  if (w === undefined) {
    levels.set(path, (w = loadWorld(path)));
    w.catch(() => levels.delete(path));
  }
  return w;
}

const codeOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/**
 * Audits the log at `path` and records it. Throws UnrecoverableError when the log cannot be
 * evidence (the message says why), any other error when the audit or the write could not run.
 * `lane`: which pooled audit thread to use (one per concurrent job).
 */
export async function auditLogIntoStore(path: string, store: EvidenceStore, options: EvidenceAuditOptions = {}, lane = 0): Promise<AuditJobResult> {
  const t0 = performance.now();
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (e) {
    const code = codeOf(e);
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES' || code === 'ENOTDIR') throw new UnrecoverableError(`cannot read ${path} (${code}): not a match log file here`);
    throw e;
  }
  let result;
  try {
    result = await auditMatchLog(path, { ...options.audit, workers: 1, inWorkers: true, firstWorker: lane, loadLevel: loadLevelOnce }, bytes);
  } catch (e) {
    // Not a match log (its preamble), or no header to rebuild the match from (the audit's problems come with it).
    if (e instanceof LogFormatError || Array.isArray((e as { problems?: unknown }).problems)) {
      const line = (e as Error).message.split('\n', 1)[0]!;
      throw new UnrecoverableError(line.startsWith('not a match log') || line.startsWith('cannot audit') ? line : `not a match log: ${line}`);
    }
    throw e;
  }
  const why = notEvidence(result, { incomplete: options.incomplete });
  if (why !== null) throw new UnrecoverableError(why);
  const evidence = evidenceFromAudit(result, bytes);
  const { recorded } = await store.record(evidence);
  return { logId: evidence.logId, recorded, players: evidence.players.length, shots: evidence.shots, ms: performance.now() - t0 };
}

export interface AuditWorkerOptions extends QueueTarget, EvidenceAuditOptions {
  store: EvidenceStore;
  /** Jobs audited at once (default 1; one audit thread each). */
  concurrency?: number;
  /** How long a job's lock lasts without renewal, ms (default 30000): how soon a dead worker's job is taken back. */
  lockMs?: number;
  /** How often stalled jobs are looked for, ms (default lockMs). */
  stalledIntervalMs?: number;
  /** Times a job may be taken back from dead workers before it fails (default 2). */
  maxStalledCount?: number;
  /** Told of every finished or failed attempt. */
  onEvent?: (e: WorkerEvent) => void;
}

export type WorkerEvent =
  | { event: 'done'; job: string; path: string; logId: string; recorded: boolean; players: number; ms: number }
  | { event: 'failed'; job: string; path: string; reason: string; attempt: number; final: boolean }
  | { event: 'stalled'; job: string }
  | { event: 'error'; message: string };

/** Starts a BullMQ worker on the audit queue; close() lets its running jobs finish. */
export function startAuditWorker(options: AuditWorkerOptions): Worker<AuditJobData, AuditJobResult> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const lockMs = options.lockMs ?? 30_000;
  const freeLanes = Array.from({ length: concurrency }, (_, i) => i);
  const emit = options.onEvent ?? (() => {});
  const worker = new Worker<AuditJobData, AuditJobResult>(AUDIT_QUEUE_NAME, async (job: Job<AuditJobData>) => {
    const path = job.data?.path;
    if (typeof path !== 'string' || path === '') throw new UnrecoverableError('the job names no log path');
    const lane = freeLanes.shift() ?? 0;
    try {
      return await auditLogIntoStore(path, options.store, options, lane);
    } finally {
      freeLanes.push(lane);
    }
  }, {
    connection: redisConnection(queueRedisUrl(options.url)),
    prefix: options.prefix ?? DEFAULT_AUDIT_QUEUE_PREFIX,
    concurrency,
    lockDuration: lockMs,
    stalledInterval: options.stalledIntervalMs ?? lockMs,
    maxStalledCount: options.maxStalledCount ?? 2,
  });
  worker.on('completed', (job, r) => emit({ event: 'done', job: job.id ?? '', path: job.data.path, logId: r.logId, recorded: r.recorded, players: r.players, ms: Math.round(r.ms) }));
  worker.on('failed', (job, err) => {
    if (job === undefined) return;
    const final = err instanceof UnrecoverableError || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    emit({ event: 'failed', job: job.id ?? '', path: job.data?.path ?? '', reason: err.message, attempt: job.attemptsMade, final });
  });
  worker.on('stalled', (id) => emit({ event: 'stalled', job: id }));
  worker.on('error', (e) => emit({ event: 'error', message: e.message }));
  return worker;
}
