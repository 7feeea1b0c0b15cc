/**
 * The Redis fault, tried as an operator's bad day goes: a 2-process cluster on a Redis of its own
 * (test/bench/faults/redisServer.ts) with simulator bots playing in a room of process 0; then
 * either Redis is killed with SIGKILL and restarted empty after `outageMs` (`mode: 'restart'`), or
 * every key is erased with FLUSHALL (`mode: 'flushall'`). Measured from outside, over HTTP and the
 * bots' sockets:
 * - joins during the outage: each answer's status, whether a 503 carried Retry-After, and requests
 *   that got no answer within JOIN_DEADLINE_MS (hung);
 * - secondsToRecover: from Redis answering PING again (or from the FLUSHALL) until a `join` (never
 *   a create) through EVERY process reaches the room that lived through the outage;
 * - ticksPerSecondMin: the tick rate each bot saw from the fault until recovery (state ticks over
 *   its own wall clock, over that whole span), the lowest over the bots; ticksPerSecondMinWindow:
 *   the lowest of any bot's one-second windows in that span (a loaded machine shows there first);
 * - what the processes printed: structured Redis state lines and any "Unhandled error event".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from '../../../server/cluster/supervisor';
import { startLoad, type Load } from '../loadBots';
import { startOwnRedis, type OwnRedis } from './redisServer';
import { ROOM_NAME } from '../../../shared/protocol/messages';

/** A matchmaking request with no answer after this long counts as hung, ms (the server's own deadline is 5 s). */
export const JOIN_DEADLINE_MS = 6000;

export interface RedisOutageOptions {
  mode?: 'restart' | 'flushall';
  /** Play before the fault, ms (default 12,000). */
  playMs?: number;
  /** Time Redis stays down (restart mode), ms (default 10,000). */
  outageMs?: number;
  /** Give up waiting for recovery after this long, ms (default 30,000). */
  recoverLimitMs?: number;
  bots?: number;
  seed?: number;
  onLine?: (line: string) => void;
}

export interface JoinTally {
  attempts: number;
  /** 503 with a Retry-After header: the refusal the rules ask for. */
  refusedRetryable: number;
  hung: number;
  /** Any other answer (the status codes seen, by count). */
  other: Record<string, number>;
}

export interface RedisOutageResult {
  mode: 'restart' | 'flushall';
  secondsToRecover: number | null;
  /** Per process: seconds from Redis back until its `join` reached the surviving room. */
  perProcessSeconds: (number | null)[];
  joinsDuringOutage: JoinTally;
  ticksPerSecondMin: number;
  ticksPerSecondMinWindow: number;
  processesAlive: number;
  botsConnected: number;
  bots: number;
  /** `hitreg_redis_up` scraped from every process's /metrics during the fault and after recovery. */
  redisUpMetric: { during: number[]; after: number[] };
  unhandledErrorLines: number;
  redisLostLines: number;
  redisBackLines: number;
}

interface Answer { status: number | 'hung' | 'error'; retryAfter: string | null; roomId: string | null }

async function matchmake(baseUrl: string, method: 'join' | 'joinOrCreate'): Promise<Answer> {
  const http = baseUrl.replace(/^ws/, 'http');
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), JOIN_DEADLINE_MS);
  try {
    const res = await fetch(`${http}/matchmake/${method}/${ROOM_NAME}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'probe' }), signal: ctl.signal,
    });
    const body = await res.text();
    let roomId: string | null = null;
    try {
      const parsed = JSON.parse(body) as { room?: { roomId?: string }; roomId?: string };
      roomId = parsed.roomId ?? parsed.room?.roomId ?? null;
    } catch { /* not JSON */ }
    return { status: res.status, retryAfter: res.headers.get('retry-after'), roomId };
  } catch (e) {
    return { status: (e as Error).name === 'AbortError' ? 'hung' : 'error', retryAfter: null, roomId: null };
  } finally {
    clearTimeout(timer);
  }
}

/** The value of `hitreg_redis_up` in a process's /metrics, NaN when absent or unreachable. */
async function redisUpMetric(baseUrl: string): Promise<number> {
  try {
    const text = await (await fetch(`${baseUrl.replace(/^ws/, 'http')}/metrics`, { signal: AbortSignal.timeout(JOIN_DEADLINE_MS) })).text();
    const m = /^hitreg_redis_up (\d+)$/m.exec(text);
    return m === null ? Number.NaN : Number(m[1]);
  } catch {
    return Number.NaN;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function redisOutageScenario(o: RedisOutageOptions = {}): Promise<RedisOutageResult> {
  const mode = o.mode ?? 'restart';
  const dir = mkdtempSync(join(tmpdir(), 'hitreg-faults-redis-'));
  const lines: string[] = [];
  let redis: OwnRedis | null = null;
  let cluster: Cluster | null = null;
  let load: Load | null = null;
  try {
    redis = await startOwnRedis();
    cluster = await startCluster({
      processes: 2, basePort: 0, redisUrl: redis.url, keyPrefix: 'hitreg-faults:',
      env: { MATCH_LOG_DIR: dir, ROOM_CREATE_BURST: '1000', STATUS_INTERVAL_MS: '0', LOG_LEVEL: 'info' },
      onLine: (i, line) => { lines.push(`[p${i}] ${line}`); o.onLine?.(`[p${i}] ${line}`); },
    });
    const urls = cluster.processes.map((p) => p.url);
    load = await startLoad({ urls: [urls[0]!], rooms: 1, botsPerRoom: o.bots ?? 6, cheatersPerRoom: 0, seed: o.seed ?? 27 });
    const roomId = load.roomIds[0]!;
    const bots = load.bots;
    load.start();
    await sleep(o.playMs ?? 12_000);

    // Tick rates the bots see, sampled until the end.
    let ticksPerSecondMinWindow = Infinity;
    const measuredAtFault = bots.map((b) => ({ ticks: b.bot.clock.ticksMeasured, ms: b.bot.clock.msMeasured }));
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const b of bots) if (b.left === null && b.bot.clock.ticksPerSecond > 0) ticksPerSecondMinWindow = Math.min(ticksPerSecondMinWindow, b.bot.clock.ticksPerSecond);
        await sleep(250);
      }
    })();

    const tally: JoinTally = { attempts: 0, refusedRetryable: 0, hung: 0, other: {} };
    const count = (a: Answer): void => {
      tally.attempts++;
      if (a.status === 503 && a.retryAfter !== null) tally.refusedRetryable++;
      else if (a.status === 'hung') tally.hung++;
      else tally.other[String(a.status)] = (tally.other[String(a.status)] ?? 0) + 1;
    };
    let backAt: number;
    let during: number[] = [];
    if (mode === 'restart') {
      await redis.kill();
      const outageEnd = performance.now() + (o.outageMs ?? 10_000);
      const polls: Promise<void>[] = [];
      while (performance.now() < outageEnd - 500) {
        for (const u of urls) polls.push(matchmake(u, 'joinOrCreate').then(count));
        await sleep(500);
      }
      await Promise.all(polls);
      during = await Promise.all(urls.map(redisUpMetric));
      await sleep(Math.max(0, outageEnd - performance.now()));
      await redis.start();
      backAt = performance.now();
    } else {
      await redis.command('FLUSHALL');
      backAt = performance.now();
    }

    // Recovery: each process's `join` must reach the room that lived through the fault.
    const limit = backAt + (o.recoverLimitMs ?? 30_000);
    const perProcessSeconds = await Promise.all(urls.map(async (u) => {
      while (performance.now() < limit) {
        const a = await matchmake(u, "join");
        if (a.status === 200 && a.roomId === roomId) return (performance.now() - backAt) / 1000;
        await sleep(100);
      }
      return null;
    }));
    sampling = false;
    await sampler;
    const spanRates = bots.map((b, i) => {
      const ms = b.bot.clock.msMeasured - measuredAtFault[i]!.ms;
      return ms > 0 ? ((b.bot.clock.ticksMeasured - measuredAtFault[i]!.ticks) * 1000) / ms : Number.NaN;
    }).filter((x) => Number.isFinite(x));
    const ticksPerSecondMin = spanRates.length > 0 ? Math.min(...spanRates) : Number.NaN;
    const after = await Promise.all(urls.map(redisUpMetric));
    const alive = cluster.processes.filter((p) => p.exit === null).length;
    const recovered = perProcessSeconds.every((s) => s !== null);
    return {
      mode,
      secondsToRecover: recovered ? Math.round(Math.max(...(perProcessSeconds as number[])) * 100) / 100 : null,
      perProcessSeconds: perProcessSeconds.map((s) => (s === null ? null : Math.round(s * 100) / 100)),
      joinsDuringOutage: tally,
      ticksPerSecondMin: Number.isFinite(ticksPerSecondMin) ? Math.round(ticksPerSecondMin * 10) / 10 : 0,
      ticksPerSecondMinWindow: Number.isFinite(ticksPerSecondMinWindow) ? Math.round(ticksPerSecondMinWindow * 10) / 10 : 0,
      processesAlive: alive,
      botsConnected: bots.filter((b) => b.left === null).length,
      bots: bots.length,
      redisUpMetric: { during, after },
      unhandledErrorLines: lines.filter((l) => l.includes('Unhandled error event')).length,
      redisLostLines: lines.filter((l) => l.includes('"redis lost"')).length,
      redisBackLines: lines.filter((l) => l.includes('"redis back"')).length,
    };
  } finally {
    await load?.close().catch(() => {});
    await cluster?.stop().catch(() => {});
    await redis?.kill().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
