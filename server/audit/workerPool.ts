/**
 * The audit's worker threads: a pool started on first use and reused by later audits in the same
 * process, each worker replaying one shard at a time from a log held in shared memory; and reading
 * or copying a log into that shared memory.
 */
import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { ReplayResult } from '../../shared/audit/replay';
import type { WorkerJob } from './jobs';

/**
 * Workers start from this snippet: it registers tsx's loader inside the worker (loader hooks of the
 * parent thread do not reach workers) and then imports the TypeScript worker module.
 */
const WORKER_BOOTSTRAP = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)}); })`;

export type ShardResult = Omit<ReplayResult, 'frames'>;

/** One pooled worker thread: runs one job at a time; unref'd while idle so it never keeps the process alive. */
class PooledWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, { resolve: (r: ShardResult) => void; reject: (e: Error) => void; progress: (n: number) => void }>();

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER_BOOTSTRAP, { eval: true });
    w.on('message', (m: { id: number; type: string; shots?: number; result?: ShardResult; message?: string }) => {
      const job = this.pending.get(m.id);
      if (!job) return;
      if (m.type === 'progress') job.progress(m.shots!);
      else {
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref();
        if (m.type === 'done') job.resolve(m.result!);
        else job.reject(new Error(`audit worker failed: ${m.message}`));
      }
    });
    const fail = (e: Error) => {
      for (const job of this.pending.values()) job.reject(e);
      this.pending.clear();
      this.worker = null;
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`audit worker exited with code ${code}`)));
    w.unref();
    this.worker = w;
    return w;
  }

  run(job: Omit<WorkerJob, 'id'>, progress: (n: number) => void): Promise<ShardResult> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      w.ref();
      w.postMessage({ ...job, id });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

const pool: PooledWorker[] = [];

/** The first n pooled workers (started on first use, reused by later audits in this process). */
export function workerPool(n: number): PooledWorker[] {
  while (pool.length < n) pool.push(new PooledWorker());
  return pool.slice(0, n);
}

/** Stops the pooled audit workers (they are unref'd, so this is only needed to free them early). */
export async function closeAuditWorkers(): Promise<void> {
  await Promise.all(pool.splice(0).map((w) => w.close()));
}

export function copyToShared(given: Uint8Array): { shared: SharedArrayBuffer; bytes: Uint8Array } {
  const shared = new SharedArrayBuffer(Math.max(1, given.length));
  const bytes = new Uint8Array(shared, 0, given.length);
  bytes.set(given);
  return { shared, bytes };
}

export async function readShared(path: string): Promise<{ shared: SharedArrayBuffer; bytes: Uint8Array }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const shared = new SharedArrayBuffer(Math.max(1, size));
    const bytes = new Uint8Array(shared, 0, size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(bytes, at, size - at, at);
      if (bytesRead === 0) break; // the file shrank while we read: audit what we have
      at += bytesRead;
    }
    return { shared, bytes: bytes.subarray(0, at) };
  } finally {
    await fh.close();
  }
}
