/**
 * Starts N game server processes (the built `npm start` entry, dist/server/main.js) that share
 * matchmaking through one Redis, on consecutive ports or on free ones, and keeps an IPC channel to
 * each: `report()` asks every live process for its ProcessReport (server/ops/supervised.ts),
 * `kill(i)` ends one (the fault test's kill -9), `stop()` ends them all with SIGTERM (rooms
 * finished, match logs ended) and SIGKILL after a deadline. A process whose supervisor dies stops
 * by itself (its IPC channel closes). An abort `signal` given while the processes start ends those
 * started so far the same way, and startCluster rejects with ClusterAbortedError. Each process
 * runs in a process group of its own, so signals reach it only through the supervisor.
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
/** How long stop() waits for the processes to finish their rooms before SIGKILL. */
export const STOP_DEADLINE_MS = 8000;
/** What to do when the cluster's Redis does not answer (a cluster cannot run without one). */
const CLUSTER_REDIS_REMEDY = 'the processes share matchmaking through it; start Redis there (e.g. redis-server), or set REDIS_URL to a Redis that answers';

/** startCluster was aborted through its `signal` before every process listened. */
export class ClusterAbortedError extends Error {
  override name = 'ClusterAbortedError';
}

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
  /** Aborting it while the processes start ends them (as stop() does) and rejects with ClusterAbortedError. */
  signal?: AbortSignal;
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
  // A process group of its own: a terminal's Ctrl-C (SIGINT to the whole foreground group) reaches
  // the supervisor only, which then stops each process once, instead of each process taking the
  // terminal's signal and then the supervisor's SIGTERM as a second one (which skips finishing rooms).
  const child = fork(SERVER_ENTRY, [], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execPath: process.execPath, execArgv: o.nodeArgs ?? [], detached: true });
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
  let onAbort: (() => void) | undefined;
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
    new Promise<never>((_, reject) => {
      onAbort = () => reject(new ClusterAbortedError('stopped while starting'));
      if (o.signal?.aborted) onAbort();
      else o.signal?.addEventListener('abort', onAbort, { once: true });
    }),
  ]).finally(() => {
    clearTimeout(timer);
    if (onAbort !== undefined) o.signal?.removeEventListener('abort', onAbort);
  }).catch(async (e: unknown) => {
    // Aborted: it may be past its start already, so it gets the time to finish that stop() gives.
    if (e instanceof ClusterAbortedError) await endProcesses([p], STOP_DEADLINE_MS);
    else if (p.exit === null) child.kill('SIGKILL');
    throw e;
  });
}

/** SIGTERM to every live process of `ps`, SIGKILL to those still alive after deadlineMs; resolves when all have exited. */
async function endProcesses(ps: readonly ClusterProcess[], deadlineMs: number): Promise<void> {
  for (const p of ps) if (p.exit === null) p.child.kill('SIGTERM');
  const timer = setTimeout(() => { for (const p of ps) if (p.exit === null) p.child.kill('SIGKILL'); }, deadlineMs);
  await Promise.all(ps.map((p) => p.exited));
  clearTimeout(timer);
}

/** Starts every process; when one fails the others are killed, when aborted they are stopped. */
async function startAll(n: number, o: Required<Pick<ClusterOptions, 'host' | 'redisUrl'>> & ClusterOptions): Promise<ClusterProcess[]> {
  const base = o.basePort ?? 2567;
  if (base !== 0 && !(base >= 1 && base + n - 1 <= 65535)) throw new Error(`base port ${base}: ports ${base}..${base + n - 1} must lie in 1..65535`);
  const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => startOne(i, o, base === 0 ? 0 : base + i)));
  const failed = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined;
  const processes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (failed === undefined) return processes;
  if (o.signal?.aborted) {
    await endProcesses(processes, STOP_DEADLINE_MS);
    throw new ClusterAbortedError('stopped while starting');
  }
  for (const p of processes) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  throw failed.reason as Error;
}

/** Sends one message to every live process and collects the answers of type `answer` (null on timeout). */
function askAll(processes: readonly ClusterProcess[]): <T>(message: (p: ClusterProcess) => Record<string, unknown>, answer: string, timeoutMs: number) => Promise<(T | null)[]> {
  let nextId = 1;
  return <T>(message: (p: ClusterProcess) => Record<string, unknown>, answer: string, timeoutMs: number) => {
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
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const n = Math.floor(options.processes);
  if (!(n >= 1 && n <= 64)) throw new Error(`processes ${options.processes}: give 1..64`);
  if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run npm run build first`);
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  await probeRedis(redisUrl, undefined, CLUSTER_REDIS_REMEDY);
  if (options.signal?.aborted) throw new ClusterAbortedError('stopped before starting');
  const processes = await startAll(n, { host: '127.0.0.1', ...options, redisUrl });
  if (options.signal?.aborted) {
    // Aborted just as the last process listened.
    await endProcesses(processes, STOP_DEADLINE_MS);
    throw new ClusterAbortedError('stopped while starting');
  }

  const expected = new Set<number>();
  for (const p of processes) {
    void p.exited.then(() => {
      if (!expected.has(p.index)) options.onExit?.(p);
    });
  }
  const ask = askAll(processes);
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
    async stop(deadlineMs = STOP_DEADLINE_MS) {
      for (const p of processes) expected.add(p.index);
      await endProcesses(processes, deadlineMs);
    },
  };
  return cluster;
}
