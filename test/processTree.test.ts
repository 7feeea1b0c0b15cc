/**
 * `npm run cluster` and `npm run load` as a user runs them, real processes all the way down: npm,
 * tsx, the supervisor (or the load driver) and its game server processes. A SIGTERM or SIGINT sent
 * to the pid the user has (npm's, or tsx's or node's below it) ends every process of the tree; the
 * test snapshots the tree from /proc once it is up, signals one pid, and polls /proc (generous
 * bound) until none of the snapshot's processes, nor any other of its process group, is alive.
 *
 * And a Redis that does not answer (a port nothing listens on) is one line, no stack, non-zero exit,
 * for `npm run load`, `npm run cluster` and the server itself.
 *
 * Needs Redis on 127.0.0.1:6379 for the tree cases (each says so and skips when none answers); the
 * processes write only under a key prefix of this run's, deleted at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { Proc, killAll } from './helpers/process';
import { clearRedisPrefix, probeRedis } from '../server/ops/scale';

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `hitreg-tree-${process.pid}-${Date.now().toString(36)}:`;
/** How long a stopped tree may take to be gone: far above the supervisor's 8 s deadline, for a loaded machine. */
const GONE_WITHIN_MS = 60_000;
const START_WITHIN_MS = 90_000;

let redisProblem: string | null = null;
beforeAll(async () => {
  try {
    await probeRedis(REDIS_URL, 3000, 'start redis-server there to run them');
  } catch (e) {
    redisProblem = (e as Error).message;
    console.warn(`test/processTree.test.ts: the process-tree cases need Redis on 127.0.0.1:6379 and are skipped: ${redisProblem}`);
  }
});
/** Process groups and trees started here: what outlived a failed case is killed at the end. */
const groups: number[] = [];
const trees: ProcInfo[][] = [];
/** Key prefixes of the load runs (deleted at the end whatever happened). */
const prefixes: string[] = [];
afterAll(async () => {
  killAll();
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  for (const p of trees.flat()) if (alive(p)) process.kill(p.pid, 'SIGKILL');
  if (redisProblem === null) for (const p of [prefix, ...prefixes]) await clearRedisPrefix(REDIS_URL, p).catch(() => 0);
});

interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  /** Start time in clock ticks since boot: tells a pid's process from a later one with the same pid. */
  start: string;
  cmd: string;
}

function readProc(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, state: f[0]!, ppid: Number(f[1]), pgrp: Number(f[2]), start: f[19]!, cmd };
  } catch {
    return null;
  }
}

function allProcs(): ProcInfo[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => readProc(Number(d)) ?? []);
}

/** `root` and every process below it, now. */
function treeOf(root: number): ProcInfo[] {
  const all = allProcs();
  const out = all.filter((p) => p.pid === root);
  for (let i = 0; i < out.length; i++) for (const p of all) if (p.ppid === out[i]!.pid) out.push(p);
  return out;
}

/** Alive: the same process (pid and start time) and not a zombie. */
function alive(p: ProcInfo): boolean {
  const now = readProc(p.pid);
  return now !== null && now.start === p.start && now.state !== 'Z' && now.state !== 'X';
}

function describeProcs(ps: ProcInfo[]): string {
  return ps.map((p) => `${p.pid} ${p.state} ${p.cmd.slice(0, 100)}`).join('; ');
}

/** Polls `test` every 100 ms; throws with `what()` after timeoutMs. */
async function until(test: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!test()) {
    if (performance.now() > deadline) throw new Error(`after ${timeoutMs} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function clusterEnv(): Record<string, string> {
  return { REDIS_URL, REDIS_KEY_PREFIX: prefix, MATCH_LOG_DIR: 'off', STATUS_INTERVAL_MS: '0', LOG_LEVEL: 'info' };
}

function started(p: Proc): Proc {
  groups.push(p.pid);
  return p;
}

function npmCluster(): Proc {
  return started(new Proc('npm', ['run', 'cluster', '--', '--processes', '2', '--port', '0'], clusterEnv()));
}

function npmLoad(): Proc {
  return started(new Proc('npm', ['run', 'load', '--', '--processes', '1', '--rooms', '1', '--bots-per-room', '2', '--seconds', '3600', '--warmup', '0'], { REDIS_URL }));
}

/** Waits for a stdout line containing `text`, then returns the process tree under npm. */
async function upTree(p: Proc, text: string, servers: number): Promise<ProcInfo[]> {
  await until(() => p.stdout.some((l) => l.includes(text)) || p.exit !== null, START_WITHIN_MS, () => `no "${text}" line; stdout: ${p.stdout.slice(-10).join('\n')}; stderr: ${p.stderr.slice(0, 2000)}`);
  expect(p.exit, `exited before "${text}": ${p.stderr.slice(0, 2000)}`).toBeNull();
  const tree = treeOf(p.pid);
  trees.push(tree);
  expect(tree.filter((q) => q.cmd.includes('dist/server/main.js')).length, describeProcs(tree)).toBe(servers);
  return tree;
}

/** The pid of the process in `tree` whose parent is `parent` and whose command line contains `text`. */
function childOf(tree: ProcInfo[], parent: number, text: string): number {
  const c = tree.find((q) => q.ppid === parent && q.cmd.includes(text));
  if (c === undefined) throw new Error(`no child of ${parent} running ${text}: ${describeProcs(tree)}`);
  return c.pid;
}

/** Sends `signal` to `pid` (negative: a process group), then waits until nothing of `tree` nor of npm's process group is alive. */
async function signalAndWaitGone(p: Proc, tree: ProcInfo[], pid: number, signal: NodeJS.Signals): Promise<void> {
  process.kill(pid, signal);
  await until(() => !tree.some(alive), GONE_WITHIN_MS, () => `${signal} to ${pid} left ${describeProcs(tree.filter(alive))}`);
  await until(() => !allProcs().some((q) => q.pgrp === p.pid && alive(q)), GONE_WITHIN_MS, () => `left in the process group: ${describeProcs(allProcs().filter((q) => q.pgrp === p.pid && alive(q)))}`);
  await p.exitWithin(GONE_WITHIN_MS);
}

describe('a signal to npm run cluster / npm run load ends the whole process tree', () => {
  const cases: { name: string; signal: NodeJS.Signals; target: 'npm' | 'tsx' | 'node' | 'terminal' }[] = [
    { name: 'SIGTERM to npm', signal: 'SIGTERM', target: 'npm' },
    { name: 'SIGINT to npm', signal: 'SIGINT', target: 'npm' },
    { name: 'SIGTERM to tsx', signal: 'SIGTERM', target: 'tsx' },
    { name: 'SIGTERM to the supervisor\'s node (below tsx)', signal: 'SIGTERM', target: 'node' },
    // A terminal's Ctrl-C: npm, tsx and the supervisor each get it (the servers, in groups of their own, do not).
    { name: 'SIGINT to npm\'s process group (Ctrl-C)', signal: 'SIGINT', target: 'terminal' },
  ];
  for (const c of cases) {
    it(`npm run cluster: ${c.name}`, async (ctx) => {
      if (redisProblem !== null) ctx.skip(`needs Redis on 127.0.0.1:6379: ${redisProblem}`);
      const p = npmCluster();
      const tree = await upTree(p, 'cluster: 2 processes sharing matchmaking', 2);
      const tsx = childOf(tree, p.pid, 'tsx');
      const pid = c.target === 'npm' ? p.pid : c.target === 'terminal' ? -p.pid : c.target === 'tsx' ? tsx : childOf(tree, tsx, 'cluster/cli.ts');
      await signalAndWaitGone(p, tree, pid, c.signal);
      // Each server was stopped once, finished its rooms and said so (not killed, not orphaned).
      expect(p.json.filter((l) => l.msg === 'stopped').length).toBe(2);
      expect(p.json.filter((l) => l.msg === 'shutting down').length).toBe(2);
      expect(p.json.filter((l) => String(l.msg).startsWith('second signal'))).toEqual([]);
    }, 2 * START_WITHIN_MS + 2 * GONE_WITHIN_MS);
  }

  it('npm run load: SIGTERM to npm stops the bots and the server process; the run\'s Redis keys are deleted', async (ctx) => {
    if (redisProblem !== null) ctx.skip(`needs Redis on 127.0.0.1:6379: ${redisProblem}`);
    const p = npmLoad();
    const tree = await upTree(p, 'light players in', 1);
    const driver = childOf(tree, childOf(tree, p.pid, 'tsx'), 'load.bench.ts');
    prefixes.push(`hitreg-load-${driver}-`);
    await signalAndWaitGone(p, tree, p.pid, 'SIGTERM');
    expect(p.stderr).toContain('load: SIGTERM: stopping the bots and the servers');
    // The driver's key prefix is hitreg-load-<its pid>-<time>:.
    const redis = new Redis(REDIS_URL);
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `hitreg-load-${driver}-*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
      expect(keys).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 2 * START_WITHIN_MS + 2 * GONE_WITHIN_MS);
});

/** A TCP port on 127.0.0.1 that nothing listens on (free a moment ago). */
function deadPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

/** Everything a process printed, line by line, blank lines left out. */
function printed(p: Proc): string[] {
  return [...p.stdout, ...p.stderr.split('\n')].filter((l) => l.trim() !== '');
}

describe('no Redis at REDIS_URL: one line, no stack, exit non-zero', () => {
  const cases: { name: string; start: (url: string) => Proc; line: RegExp }[] = [
    { name: 'npm run load', start: (url) => new Proc('npm', ['run', '--silent', 'load', '--', '--seconds', '1', '--warmup', '0'], { REDIS_URL: url }), line: /^load: no Redis answers at redis:\/\/127\.0\.0\.1:\d+\/? \(ECONNREFUSED\): .*start Redis there/ },
    { name: 'npm run cluster', start: (url) => new Proc('npm', ['run', '--silent', 'cluster', '--', '--port', '0'], { REDIS_URL: url }), line: /^cluster: no Redis answers at redis:\/\/127\.0\.0\.1:\d+\/? \(ECONNREFUSED\): .*start Redis there/ },
    { name: 'the server (npm start)', start: (url) => new Proc('npm', ['start', '--silent'], { REDIS_URL: url, PORT: '0', MATCH_LOG_DIR: 'off' }), line: /^hitreg: no Redis answers at redis:\/\/127\.0\.0\.1:\d+\/? \(ECONNREFUSED\): start Redis there/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const port = await deadPort();
      const p = started(c.start(`redis://127.0.0.1:${port}`));
      const exit = await p.exitWithin(START_WITHIN_MS);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      const lines = printed(p);
      expect(lines, lines.join('\n')).toHaveLength(1);
      expect(lines[0]).toMatch(c.line);
      expect(lines[0]).toContain(`127.0.0.1:${port}`);
      expect(lines.join('\n')).not.toMatch(/ioredis|Unhandled error event|\n\s+at /);
    }, START_WITHIN_MS + 10_000);
  }
});
