/**
 * Two game server processes sharing matchmaking through Redis (REDIS_URL, default
 * redis://127.0.0.1:6379; these tests fail with a clear message when no Redis answers), as real
 * processes with simulator bots over real WebSockets:
 * - rooms are placed on the process with fewer rooms, and either process's matchmaking reaches
 *   a room of the other (each process announces its own public address);
 * - kill -9 of one process under load: its players leave with 1006 (abnormal closure: no close
 *   frame, the process is gone), the other process's room keeps ticking at its rate, the killed
 *   process's entries are swept from Redis, new rooms go to the survivor, and the killed
 *   process's match log audits cleanly up to the kill (no end record, nothing else wrong);
 * - SIGTERM to the survivor: its players leave with 4001, its logs end and audit clean, and it
 *   removes its own entries from Redis;
 * - a process given a REDIS_URL where no Redis answers ends with exit 1 and one line.
 * Every run uses its own key prefix and deletes its keys at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { readFrames } from '../../shared/matchlog/frame';
import { RecordType } from '../../shared/matchlog/records';
import { startCluster, type Cluster } from '../../server/cluster/supervisor';
import { clearRedisPrefix, probeRedis, DEFAULT_REDIS_KEY_PREFIX } from '../../server/ops/scale';
import type { ProcessReport } from '../../server/ops/supervised';
import { auditMatchLog, closeAuditWorkers, ProblemKind } from '../../server/behaviour/audit';
import { EndWhy } from '../../shared/audit/logEnd';
import { startLoad, type Load } from '../bench/loadBots';
import { TestPlayer, sleep, waitFor } from '../helpers/server';
import { killAll, nodeServer } from '../helpers/process';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `hitreg-test-${process.pid}-${Date.now().toString(36)}:`;
const dir = mkdtempSync(join(tmpdir(), 'hitreg-cluster-'));
/** WebSocket close code of a connection that ended without a close frame: the process died. */
const ABNORMAL_CLOSURE = 1006;
/** Colyseus's close code for a server that shuts down. */
const SERVER_SHUTDOWN = 4001;
let cluster: Cluster | null = null;
let load: Load | null = null;
const output: string[] = [];

beforeAll(async () => {
  try {
    await probeRedis(REDIS_URL);
  } catch (e) {
    throw new Error(`these tests need Redis: ${(e as Error).message} (set REDIS_URL to a Redis these tests may use; they write only under a key prefix of their own and delete it)`);
  }
  cluster = await startCluster({
    processes: 2, basePort: 0, redisUrl: REDIS_URL, keyPrefix: prefix,
    env: { MATCH_LOG_DIR: dir, ROOM_CREATE_BURST: '1000', STATUS_INTERVAL_MS: '0', LOG_LEVEL: 'info' },
    onLine: (i, line) => void output.push(`[p${i}] ${line}`),
  });
});

afterAll(async () => {
  await load?.close();
  await cluster?.stop();
  await closeAuditWorkers();
  killAll();
  await clearRedisPrefix(REDIS_URL, prefix).catch(() => 0);
  rmSync(dir, { recursive: true, force: true });
});

const byProcess = (reports: ProcessReport[], roomId: string): ProcessReport | undefined => reports.find((r) => r.rooms.some((x) => x.roomId === roomId));

describe('a cluster of two processes on one Redis', () => {
  it('places rooms on both processes; each process matchmakes into the other\'s rooms', async () => {
    const c = cluster!;
    load = await startLoad({ urls: c.processes.map((p) => p.url), rooms: 2, botsPerRoom: 3, cheatersPerRoom: 0, seed: 7 });
    const reports = await c.report();
    expect(reports).toHaveLength(2);
    const homes = load.roomIds.map((id) => byProcess(reports, id)?.processId);
    expect(new Set(homes).size).toBe(2);
    // Three bots and the opener joined each room; the bots' matchmaking went through both addresses.
    for (const r of reports) expect(r.joins).toBe(4);
    expect(reports.every((r) => r.publicAddress === `127.0.0.1:${c.processes.find((p) => p.processId === r.processId)!.port}`)).toBe(true);
    // Only this run's prefix holds its keys.
    const redis = new Redis(REDIS_URL);
    try {
      const rooms = await redis.hgetall(`${prefix}roomcaches`);
      expect(Object.keys(rooms).sort()).toEqual([...load.roomIds].sort());
      expect(await redis.hexists(`${DEFAULT_REDIS_KEY_PREFIX}roomcaches`, load.roomIds[0]!)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('kill -9 of one process under load: its players leave with 1006, the other room ticks on, Redis is swept, new rooms go to the survivor, its log audits up to the kill', async () => {
    const c = cluster!;
    const l = load!;
    l.start();
    // Three seconds of play in every room, counted in its ticks (192 at 64 Hz).
    const ticksAt = (reports: ProcessReport[]) => new Map(reports.flatMap((r) => r.rooms.map((room) => [room.roomId, room.ticks] as const)));
    const started = ticksAt(await c.report());
    await waitFor(async () => [...ticksAt(await c.report())].every(([id, ticks]) => ticks >= (started.get(id) ?? 0) + 192), 'every room 192 ticks into the load');
    const before = await c.report();
    const victimReport = byProcess(before, l.roomIds[0]!)!;
    const victim = c.processes.find((p) => p.processId === victimReport.processId)!;
    const survivor = c.processes.find((p) => p !== victim)!;
    const victimBots = l.bots.filter((b) => b.roomId === l.roomIds[0]);
    const survivorBots = l.bots.filter((b) => b.roomId === l.roomIds[1]);

    c.kill(victim.index, 'SIGKILL');
    const killedAt = performance.now();
    await victim.exited;
    expect(victim.exit!.signal).toBe('SIGKILL');

    // The survivor's room over a window after the kill: ticks per second of its own clock.
    const a = (await c.report()).find((r) => r.processId === survivor.processId)!;
    await sleep(2000);
    const b = (await c.report()).find((r) => r.processId === survivor.processId)!;
    const roomA = a.rooms.find((r) => r.roomId === l.roomIds[1])!;
    const roomB = b.rooms.find((r) => r.roomId === l.roomIds[1])!;
    const tps = ((roomB.ticks - roomA.ticks) * 1000) / (b.atMs - a.atMs);
    expect(tps).toBeGreaterThan(56);
    expect(tps).toBeLessThan(72);
    expect(roomB.players).toBe(3);

    // The killed process's players: a leave with 1006 (the connection ended without a close frame).
    await waitFor(() => victimBots.every((x) => x.left !== null), 'the victim\'s players gone');
    expect(victimBots.map((x) => x.left?.code)).toEqual(victimBots.map(() => ABNORMAL_CLOSURE));
    expect(Math.max(...victimBots.map((x) => x.left!.atMs - killedAt))).toBeLessThan(5000);
    expect(survivorBots.every((x) => x.left === null)).toBe(true);

    // Redis: the sweep removes the dead process's rooms and its process entry.
    const redis = new Redis(REDIS_URL);
    try {
      await waitFor(async () => {
        const rooms = Object.values(await redis.hgetall(`${prefix}roomcaches`)).map((s) => JSON.parse(s) as { processId: string });
        const processes = Object.keys(await redis.hgetall(`${prefix}roomcount`));
        return !rooms.some((r) => r.processId === victim.processId) && !processes.includes(victim.processId);
      }, 'the dead process swept from Redis', 60_000);
    } finally {
      redis.disconnect();
    }

    // New rooms go to the survivor.
    const fresh = await TestPlayer.create(survivor.url);
    try {
      const after = await c.report();
      expect(after.map((r) => r.processId)).toEqual([survivor.processId]);
      expect(after[0]!.rooms.map((r) => r.roomId)).toContain(fresh.room.roomId);
    } finally {
      await fresh.room.leave(true);
    }

    // The killed process's match log: everything up to the kill replays bit for bit.
    const logs = readdirSync(dir).filter((f) => f.endsWith('.hrml') && f.includes(`-${victim.processId}-`));
    expect(logs).toHaveLength(1);
    const r = await auditMatchLog(join(dir, logs[0]!));
    expect(r.mismatches).toEqual([]);
    expect(r.failed).toBe(false);
    expect(r.problems.map((p) => p.kind).filter((k) => k !== ProblemKind.NO_END && k !== ProblemKind.TRUNCATED)).toEqual([]);
    expect(r.problems.map((p) => p.kind)).toContain(ProblemKind.NO_END);
    // Where and why it ends: between records or inside the one being written at the kill, everything before it audited.
    expect([EndWhy.NO_END_RECORD, EndWhy.PARTIAL_RECORD]).toContain(r.ends.why);
    expect(r.ends.records).toBe(r.frames.frames.length);
    expect(r.ticks).toBeGreaterThan(100);
  });

  it('SIGTERM to the survivor: its players leave with 4001, its log ends and audits clean, Redis is left empty', async () => {
    const c = cluster!;
    const l = load!;
    const survivor = c.processes.find((p) => p.exit === null)!;
    const bots = l.bots.filter((b) => b.left === null);
    expect(bots.length).toBe(3);
    c.kill(survivor.index, 'SIGTERM');
    expect((await survivor.exited).code).toBe(0);
    await waitFor(() => bots.every((b) => b.left !== null), 'every player gone');
    expect(bots.map((b) => b.left?.code)).toEqual(bots.map(() => SERVER_SHUTDOWN));
    const logs = readdirSync(dir).filter((f) => f.endsWith('.hrml') && f.includes(`-${survivor.processId}-`));
    expect(logs.length).toBeGreaterThanOrEqual(1);
    for (const f of logs) {
      const r = await auditMatchLog(join(dir, f));
      expect(r.failed).toBe(false);
      // Every log ends with its end record, the room that never saw a shot included.
      expect(readFrames(new Uint8Array(readFileSync(join(dir, f)))).frames.at(-1)!.type).toBe(RecordType.END);
      expect({ f, problems: r.problems }).toEqual({ f, problems: [] });
    }
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.hlen(`${prefix}roomcaches`)).toBe(0);
      expect(await redis.hlen(`${prefix}roomcount`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('REDIS_URL where no Redis answers: exit 1 and one line', async () => {
    const p = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', REDIS_URL: 'redis://127.0.0.1:1' });
    const exit = await p.exitWithin(15_000);
    expect(exit.code).toBe(1);
    const lines = p.stderr.split('\n').filter((x) => x.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:1 .*unset REDIS_URL/);
  });
});
