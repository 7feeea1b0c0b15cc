/**
 * Starts N game server processes (the built `npm start` entry, dist/server/main.js) that share
 * matchmaking through one Redis, on consecutive ports or on free ones, and keeps an IPC channel to
 * each: `report()` asks every live process for its ProcessReport (server/ops/supervised.ts),
 * `kill(i)` ends one (the fault test's kill -9), `stop()` ends them all with SIGTERM (rooms
 * finished, match logs ended) and SIGKILL after a deadline. A process whose supervisor dies stops
 * by itself (its IPC channel closes).
 *
 * No entry process is needed: every process answers matchmaking, and a seat reservation names the
 * public address of the process that holds the room, which the client then connects to.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeRedis } from '../ops/scale';
import type { ProcessReport } from '../ops/supervised';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SERVER_ENTRY = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface ClusterOptions {
  processes: number;
  /** Process i listens on basePort + i; 0 = each picks a free port (default 2567). */
  basePort?: number;
  /** Interface every process binds (default 127.0.0.1). */
  host?: string;
  /** Default REDIS_URL from the environment, else redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Key prefix shared by the processes (default the server's, hitreg:). */
  keyPrefix?: string;
  /** More environment for every process (TICK_RATE, MATCH_LOG_DIR, LOG_LEVEL, limits, ...). */
  env?: Record<string, string | undefined>;
  /** Each output line of each process (default: written to this process's stdout/stderr). */
  onLine?: (index: number, line: string, stream: 'stdout' | 'stderr') => void;
  /** A process that exits on its own (not through kill() or stop()). */
  onExit?: (p: ClusterProcess) => void;
  /** Node options for every process (e.g. --cpu-prof --cpu-prof-dir=DIR). */
  nodeArgs?: string[];
  /** How long a process may take to print its listening line (default 30 s). */
  startTimeoutMs?: number;
}

export interface ClusterProcess {
  index: number;
  pid: number;
  /** Where to matchmake through this process (ws://host:port). */
  url: string;
  port: number;
  publicAddress: string;
  processId: string;
  child: ChildProcess;
  /** Null while running. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The process's structured log lines seen so far (JSON lines parsed). */
  lines: Record<string, unknown>[];
}

export interface Cluster {
  processes: ClusterProcess[];
  redisUrl: string;
  /** Reports of every live process (a process that does not answer within timeoutMs is left out). */
  report(timeoutMs?: number): Promise<ProcessReport[]>;
  /** Starts a V8 CPU profile in every live process (what runs from now on). */
  profileStart(): Promise<void>;
  /** Stops them; each process writes `${dir}/p<index>.cpuprofile`. Resolves with the paths written. */
  profileStop(dir: string): Promise<string[]>;
  kill(index: number, signal?: NodeJS.Signals): void;
  /** SIGTERM to every live process, SIGKILL after deadlineMs; resolves when all have exited. */
  stop(deadlineMs?: number): Promise<void>;
}

/** Environment variables of the supervisor that must not leak into the processes it starts. */
const OWN = ['PORT', 'PUBLIC_ADDRESS', 'REDIS_URL', 'REDIS_KEY_PREFIX'];

function startOne(index: number, o: Required<Pick<ClusterOptions, 'host' | 'redisUrl'>> & ClusterOptions, port: number): Promise<ClusterProcess> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of OWN) delete env[k];
  Object.assign(env, {
    LOG_FORMAT: 'json', ...o.env,
    PORT: String(port), HOST: o.host, REDIS_URL: o.redisUrl,
    ...(o.keyPrefix !== undefined ? { REDIS_KEY_PREFIX: o.keyPrefix } : {}),
  });
  const child = fork(SERVER_ENTRY, [], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execPath: process.execPath, execArgv: o.nodeArgs ?? [] });
  const lines: Record<string, unknown>[] = [];
  let resolveListening!: (l: Record<string, unknown>) => void;
  const listening = new Promise<Record<string, unknown>>((r) => { resolveListening = r; });
  let stderr = '';
  const pipe = (stream: 'stdout' | 'stderr') => {
    let buf = '';
    child[stream]!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (stream === 'stderr') stderr += `${line}\n`;
        if (line.startsWith('{')) {
          try {
            const obj = JSON.parse(line) as Record<string, unknown>;
            lines.push(obj);
            if (obj.msg === 'listening') resolveListening(obj);
          } catch {
            // not JSON after all
          }
        }
        if (o.onLine) o.onLine(index, line, stream);
        else (stream === 'stdout' ? process.stdout : process.stderr).write(`${line}\n`);
      }
    });
  };
  pipe('stdout');
  pipe('stderr');
  const p = { index, pid: child.pid ?? -1, child, exit: null, lines } as unknown as ClusterProcess;
  p.exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    p.exit = { code, signal };
    resolve(p.exit);
  }));
  const timeoutMs = o.startTimeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    listening.then((l) => {
      p.url = String(l.url);
      p.port = Number(l.port);
      p.publicAddress = String(l.publicAddress);
      p.processId = String(l.processId);
      return p;
    }),
    p.exited.then((e) => {
      throw new Error(`process ${index} exited (code ${e.code}, signal ${e.signal}) before listening: ${stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'}`);
    }),
    new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`process ${index} did not listen within ${timeoutMs} ms`)), timeoutMs); }),
  ]).finally(() => clearTimeout(timer)).catch((e: unknown) => {
    if (p.exit === null) child.kill('SIGKILL');
    throw e;
  });
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const n = Math.floor(options.processes);
  if (!(n >= 1 && n <= 64)) throw new Error(`processes ${options.processes}: give 1..64`);
  if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run npm run build first`);
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const o = { host: '127.0.0.1', ...options, redisUrl };
  await probeRedis(redisUrl);
  const base = options.basePort ?? 2567;
  if (base !== 0 && !(base >= 1 && base + n - 1 <= 65535)) throw new Error(`base port ${base}: ports ${base}..${base + n - 1} must lie in 1..65535`);
  const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => startOne(i, o, base === 0 ? 0 : base + i)));
  const failed = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined;
  const processes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (failed !== undefined) {
    for (const p of processes) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    throw failed.reason as Error;
  }

  const expected = new Set<number>();
  for (const p of processes) {
    void p.exited.then(() => {
      if (!expected.has(p.index)) options.onExit?.(p);
    });
  }
  let nextId = 1;
  /** Sends one message to every live process and collects the answers of type `answer` (null on timeout). */
  const ask = <T>(message: (p: ClusterProcess) => Record<string, unknown>, answer: string, timeoutMs: number): Promise<(T | null)[]> => {
    const live = processes.filter((p) => p.exit === null && p.child.connected);
    return Promise.all(live.map((p) => new Promise<T | null>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => { p.child.off('message', on); resolve(null); }, timeoutMs);
      const on = (m: { type?: string; id?: number }) => {
        if (m?.type !== answer || m.id !== id) return;
        clearTimeout(timer);
        p.child.off('message', on);
        resolve(m as T);
      };
      p.child.on('message', on);
      try {
        p.child.send({ ...message(p), id });
      } catch {
        clearTimeout(timer);
        p.child.off('message', on);
        resolve(null);
      }
    })));
  };
  const cluster: Cluster = {
    processes,
    redisUrl,
    async report(timeoutMs = 5000) {
      return (await ask<ProcessReport>(() => ({ type: 'report' }), 'report', timeoutMs)).filter((a): a is ProcessReport => a !== null);
    },
    async profileStart() {
      await ask(() => ({ type: 'profile-start' }), 'profile-started', 10_000);
    },
    async profileStop(dir) {
      const done = await ask<{ path: string }>((p) => ({ type: 'profile-stop', path: join(dir, `p${p.index}.cpuprofile`) }), 'profile-stopped', 30_000);
      return done.flatMap((d) => (d !== null ? [d.path] : []));
    },
    kill(index, signal = 'SIGKILL') {
      const p = processes[index];
      if (p === undefined || p.exit !== null) return;
      expected.add(index);
      p.child.kill(signal);
    },
    async stop(deadlineMs = 8000) {
      for (const p of processes) cluster.kill(p.index, 'SIGTERM');
      const timer = setTimeout(() => { for (const p of processes) if (p.exit === null) p.child.kill('SIGKILL'); }, deadlineMs);
      await Promise.all(processes.map((p) => p.exited));
      clearTimeout(timer);
    },
  };
  return cluster;
}
