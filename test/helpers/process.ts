/**
 * Test harness for real server processes: spawns a command (`npm start`, `node dist/server/main.js`,
 * a CLI) in its own process group, collects stdout lines (parsed as JSON when they are) and stderr,
 * waits for lines with a deadline, and reports how and when the process exited. `killAll` ends
 * every process group this module started and that is still alive (test cleanup).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** ms from spawn to exit. */
  atMs: number;
}

export class Proc {
  readonly child: ChildProcess;
  readonly stdout: string[] = [];
  readonly json: Record<string, unknown>[] = [];
  stderr = '';
  readonly started = performance.now();
  exit: Exit | null = null;
  readonly exited: Promise<Exit>;
  private waiters: (() => void)[] = [];

  constructor(command: string, args: string[], env: Record<string, string | undefined>, cwd = REPO) {
    const base: Record<string, string | undefined> = { ...process.env };
    // A test must not inherit the runner's own settings for the server.
    for (const k of ['PORT', 'HOST', 'TICK_RATE', 'LEVEL', 'RIG', 'RIG_MAP', 'SPAWN_POINTS', 'MATCH_LOG_DIR', 'LOG_FORMAT', 'LOG_LEVEL', 'AUTH_JWT_SECRET', 'AUTH_JWT_PUBLIC_KEY', 'MONITOR_PASSWORD', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'PUBLIC_ADDRESS', 'AUDIT_QUEUE', 'AUDIT_QUEUE_PREFIX', 'DATABASE_URL', 'EVIDENCE_STORE']) delete base[k];
    this.child = spawn(command, args, { cwd, env: { ...base, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(this);
    let buf = '';
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        this.stdout.push(line);
        if (line.startsWith('{')) {
          try {
            this.json.push(JSON.parse(line) as Record<string, unknown>);
          } catch {
            // not JSON after all
          }
        }
      }
      this.wake();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
      this.wake();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal, atMs: performance.now() - this.started };
        live.delete(this);
        this.wake();
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves with the first JSON line that passes `test`; rejects on exit or after timeoutMs. */
  async line(test: (o: Record<string, unknown>) => boolean, timeoutMs = 20_000, what = 'a log line'): Promise<Record<string, unknown>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = this.json.find(test);
      if (hit !== undefined) return hit;
      if (this.exit !== null) throw new Error(`process exited (${JSON.stringify(this.exit)}) before ${what}; stderr: ${this.stderr.slice(0, 2000)}; stdout: ${this.stdout.slice(-20).join('\n')}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stdout: ${this.stdout.slice(-20).join('\n')}; stderr: ${this.stderr.slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  /** The exit, or an error after timeoutMs (the process is then killed). */
  async exitWithin(timeoutMs: number): Promise<Exit> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`process ${this.pid} still running after ${timeoutMs} ms; stdout: ${this.stdout.slice(-10).join('\n')}; stderr: ${this.stderr.slice(0, 2000)}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** True while any process of this process group is alive. */
  groupAlive(): boolean {
    try {
      process.kill(-this.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // already gone
    }
  }
}

const live = new Set<Proc>();

/** Ends every process group started here that is still alive. */
export function killAll(): void {
  for (const p of live) p.kill('SIGKILL');
  live.clear();
}

/** `npm start` in the repository with extra environment. */
export function npmStart(env: Record<string, string | undefined>): Proc {
  return new Proc('npm', ['start', '--silent'], env);
}

/** The built server directly (what `npm start` runs), for the many quick refusal cases. */
export function nodeServer(env: Record<string, string | undefined>): Proc {
  return new Proc('node', ['dist/server/main.js'], env);
}

