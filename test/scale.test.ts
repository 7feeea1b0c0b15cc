/**
 * The building blocks of running many processes: the public address rule, the exact tick-time
 * ring (against a plain array), match log names that cannot collide between processes, and in one
 * process with a real Redis (REDIS_URL, default redis://127.0.0.1:6379; fails with a clear message
 * when none answers): createGameServer with `redis` announces its address, lists its rooms under
 * its own key prefix only, and removes them when it closes; clearRedisPrefix deletes only its prefix.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { publicAddressFor, checkPublicAddress, clearRedisPrefix, probeRedis, RedisUnavailableError } from '../server/ops/scale';
import { TickTimes } from '../server/ops/tickTimes';
import { matchLogFileName } from '../server/matchlog/recorder';
import { startTestServer, TestPlayer } from './helpers/server';
import { REDIS_URL, needRedis } from './helpers/redis';

const prefix = `hitreg-test-${process.pid}-${Date.now().toString(36)}-unit:`;
afterAll(async () => {
  await clearRedisPrefix(REDIS_URL, prefix).catch(() => 0);
});


describe('public address', () => {
  it('given, else the bound host and port, else the host name and port', () => {
    expect(publicAddressFor('game1.example.com:443/eu', '0.0.0.0', 2567)).toBe('game1.example.com:443/eu');
    expect(publicAddressFor(undefined, '127.0.0.1', 2568)).toBe('127.0.0.1:2568');
    expect(publicAddressFor(undefined, '::1', 2568)).toBe('[::1]:2568');
    expect(publicAddressFor(undefined, '0.0.0.0', 2567)).toBe(`${hostname()}:2567`);
    expect(checkPublicAddress('10.0.0.5:2567')).toBeNull();
    expect(checkPublicAddress('wss://x:1')).toMatch(/without a scheme/);
    expect(checkPublicAddress('x y')).toMatch(/host:port/);
  });
});

describe('tick times', () => {
  it('take() returns the ticks since the last take, the newest when the ring overflowed', () => {
    const t = new TickTimes(8);
    const all: number[] = [];
    let taken = 0;
    for (let round = 0; round < 5; round++) {
      const n = [3, 8, 11, 0, 5][round]!;
      for (let i = 0; i < n; i++) {
        const ms = Math.fround(all.length * 0.25 + 0.125);
        all.push(ms);
        t.record(ms);
      }
      const { ms, lost } = t.take();
      const want = all.slice(taken).slice(-8);
      expect(Array.from(ms)).toEqual(want);
      expect(lost).toBe(Math.max(0, all.length - taken - 8));
      taken = all.length;
    }
    expect(t.count).toBe(all.length);
  });
});

describe('match log names', () => {
  it('carry the process, so two processes with the same room id never collide', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(matchLogFileName('r1', at)).toBe('2026-01-02T03-04-05-678Z-r1.hrml');
    expect(matchLogFileName('r1', at, 'host-a-p1')).toBe('2026-01-02T03-04-05-678Z-host-a-p1-r1.hrml');
    expect(matchLogFileName('r1', at, 'host-b-p1')).not.toBe(matchLogFileName('r1', at, 'host-a-p1'));
    expect(matchLogFileName('../r', at, 'a/b')).toBe('2026-01-02T03-04-05-678Z-a_b-___r.hrml');
  });
});

describe('one process on Redis', () => {
  it('no Redis at the URL: RedisUnavailableError with one line', async () => {
    await expect(probeRedis('redis://127.0.0.1:1', 2000)).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(probeRedis('redis://127.0.0.1:1', 2000)).rejects.toThrow(/^no Redis answers at redis:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\): start Redis/);
  });

  it('announces its address, lists its rooms under its prefix, removes them on close; clearRedisPrefix keeps other prefixes', async () => {
    await needRedis();
    const ts = await startTestServer({ redis: { url: REDIS_URL, keyPrefix: prefix } });
    const redis = new Redis(REDIS_URL);
    try {
      expect(ts.server.publicAddress).toBe(`127.0.0.1:${ts.port}`);
      expect(ts.server.redis).toBe(new URL(REDIS_URL).toString());
      const p = await TestPlayer.create(ts.url);
      const listing = JSON.parse((await redis.hget(`${prefix}roomcaches`, p.room.roomId))!) as { processId: string; publicAddress: string };
      expect(listing).toMatchObject({ processId: ts.server.processId, publicAddress: `127.0.0.1:${ts.port}` });
      await p.room.leave(true);
      await ts.close();
      expect(await redis.hlen(`${prefix}roomcaches`)).toBe(0);
      expect(await redis.hexists(`${prefix}roomcount`, ts.server.processId)).toBe(0);
      await redis.set(`${prefix}x`, '1');
      await redis.set(`${prefix}y`, '1');
      await redis.set(`${prefix.slice(0, -1)}-other:x`, '1');
      expect(await clearRedisPrefix(REDIS_URL, prefix)).toBe(2);
      expect(await redis.exists(`${prefix.slice(0, -1)}-other:x`)).toBe(1);
      await redis.del(`${prefix.slice(0, -1)}-other:x`);
    } finally {
      redis.disconnect();
      await ts.close();
    }
  });
});
