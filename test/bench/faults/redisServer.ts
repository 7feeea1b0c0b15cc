/**
 * A Redis server of a fault test's own: `redis-server` on a free port with nothing kept on disk
 * (no RDB, no AOF), so a kill and a restart bring back an empty Redis as a production Redis
 * without persistence does. `kill()` is SIGKILL; `start()` starts it again on the same port and
 * resolves once it answers PING; `pause` stops and continues the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../../server/ops/scale';

export interface OwnRedis {
  port: number;
  url: string;
  /** Running now. */
  readonly up: boolean;
  start(): Promise<void>;
  /** SIGKILL; resolves when the process has exited. */
  kill(): Promise<void>;
  /** SIGSTOP (`true`) or SIGCONT (`false`): a Redis that keeps its connections and answers nothing. */
  pause(paused: boolean): void;
  /** One command on a short-lived connection (FLUSHALL, PING, ...). */
  command(...args: string[]): Promise<unknown>;
}

/** Starts redis-server on a free port of 127.0.0.1; throws a clear error when it cannot. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort('127.0.0.1');
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const command = async (...args: string[]): Promise<unknown> => {
    const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    c.on('error', () => {});
    try {
      await c.connect();
      return await c.call(args[0]!, ...args.slice(1));
    } finally {
      c.disconnect();
    }
  };

  const start = async (): Promise<void> => {
    const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], { stdio: 'ignore' });
    child = p;
    const failed = new Promise<never>((_, reject) => {
      p.once('error', (e) => reject(new Error(`redis-server could not start (${e.message}): these fault tests need the redis-server binary (Debian package redis-server)`)));
      p.once('exit', (code) => reject(new Error(`redis-server exited with ${code} on port ${port}`)));
    });
    failed.catch(() => {});
    const deadline = performance.now() + 10_000;
    for (;;) {
      const ok = await Promise.race([command('PING').then((a) => a === 'PONG', () => false), failed]);
      if (ok) return;
      if (performance.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING in 10 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const kill = async (): Promise<void> => {
    const p = child;
    child = null;
    if (p === null || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    port, url, command, start, kill,
    pause(paused: boolean) { child?.kill(paused ? 'SIGSTOP' : 'SIGCONT'); },
    get up() { return child !== null && child.exitCode === null; },
  };
}
