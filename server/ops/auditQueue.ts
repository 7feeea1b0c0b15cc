/**
 * The game server's side of fleet audits (optional, off by default; AUDIT_QUEUE in
 * server/ops/env.ts): each match log, once its recorder has closed it, is put on the audit queue
 * (server/evidence/queue.ts) for `npm run audit-worker` processes to audit and record. The queue
 * module (and bullmq) is loaded only when this is on. An enqueue never throws into the room: while
 * Redis is away the connection holds it and retries (ioredis: 20 tries per command), and one that
 * still fails is a warning line naming the log. A stop waits a little for enqueues in flight and
 * says which logs did not make it (`npm run audit -- <dir> --store` records such logs by hand).
 */
import type { AuditQueue } from '../evidence/queue';

export interface AuditQueueOptions {
  /** redis://host:port[/db] of the queue. */
  url: string;
  /** BullMQ key prefix (default hitreg-audit). */
  prefix?: string;
}

export class LogEnqueuer {
  private readonly pending = new Map<string, Promise<void>>();
  enqueued = 0;
  failures = 0;

  private constructor(private readonly queue: AuditQueue, private readonly warn: (fields: Record<string, unknown>, msg: string) => void) {}

  static async open(options: AuditQueueOptions, warn: (fields: Record<string, unknown>, msg: string) => void): Promise<LogEnqueuer> {
    const { AuditQueue: Queue } = await import('../evidence/queue');
    return new LogEnqueuer(new Queue({ url: options.url, prefix: options.prefix }), warn);
  }

  /** Puts the closed log at `path` on the queue (in the background). */
  add(path: string): void {
    const p = this.queue.enqueueLog(path).then(
      () => { this.enqueued++; },
      (e: unknown) => {
        this.failures++;
        this.warn({ path, err: (e as Error).message }, 'match log not put on the audit queue');
      },
    ).finally(() => this.pending.delete(path));
    this.pending.set(path, p);
  }

  /** Waits up to `waitMs` for enqueues in flight, then closes; resolves with the logs not enqueued. */
  async close(waitMs = 1500): Promise<string[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([...this.pending.values()]), new Promise<void>((r) => { timer = setTimeout(r, waitMs); })]);
    clearTimeout(timer);
    const left = [...this.pending.keys()];
    if (left.length > 0) this.warn({ logs: left }, 'stopping with match logs not yet on the audit queue');
    await Promise.race([this.queue.close().catch(() => {}), new Promise<void>((r) => setTimeout(r, 500).unref())]);
    return left;
  }
}
