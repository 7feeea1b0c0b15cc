/**
 * The parts of surviving a Redis outage that need no cluster (server/ops/redisLink.ts, the request
 * gate in server/ops/limits.ts):
 * - the driver forgets a failed room query: with a real Redis whose room hash has the wrong type,
 *   queries fail; once the key is fixed the next query answers (Colyseus's own driver keeps the
 *   failed request and fails for ever);
 * - RedisLink: a real redis-server of the test's own killed and started again, or stopped with
 *   SIGSTOP and continued, gives exactly one lost and one back, and `up` follows;
 * - matchmaking while Redis is away is refused at once with 503 and Retry-After, and a matchmaking
 *   request nothing answers is refused with 503 and Retry-After at the deadline, never left hanging.
 * The Redis at REDIS_URL (default redis://127.0.0.1:6379) is used under a key prefix of the test's own.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { RedisDriver } from '@colyseus/redis-driver';
import { RedisLink, ResilientRedisDriver, WatchedRedisPresence, resilientRedisOptions } from '../server/ops/redisLink';
import { clearRedisPrefix } from '../server/ops/scale';
import { installRequestGate, resolveLimits } from '../server/ops/limits';
import { createLogger, HostileLog } from '../server/ops/log';
import { startOwnRedis } from './bench/faults/redisServer';
import { waitFor } from './helpers/wait';
import { REDIS_URL, needRedis } from './helpers/redis';

const prefix = `hitreg-link-${process.pid}-${Date.now().toString(36)}:`;

afterAll(async () => {
  await clearRedisPrefix(REDIS_URL, prefix).catch(() => 0);
});


describe('ResilientRedisDriver', () => {
  it('a failed room query is not kept: the next query after the fault answers', async () => {
    await needRedis();
    const admin = new Redis(REDIS_URL, { keyPrefix: prefix });
    const plainClient = new Redis(REDIS_URL, { keyPrefix: `${prefix}plain:` });
    const resilient = new ResilientRedisDriver(new Redis(REDIS_URL, { keyPrefix: prefix }));
    const plain = new RedisDriver(plainClient);
    try {
      // A string where the room hash belongs: HGETALL answers WRONGTYPE.
      await admin.set('roomcaches', 'not a hash');
      await admin.set('plain:roomcaches', 'not a hash');
      await expect(resilient.query({})).rejects.toThrow(/WRONGTYPE/);
      await expect(plain.query({})).rejects.toThrow(/WRONGTYPE/);
      await admin.del('roomcaches', 'plain:roomcaches');
      await admin.hset('roomcaches', 'r1', JSON.stringify({ roomId: 'r1', name: 'arena', processId: 'p', clients: 0, maxClients: 8, locked: false }));
      const rooms = await resilient.query({});
      expect(rooms.map((r) => r.roomId)).toEqual(['r1']);
      // Colyseus's own driver still answers with the first failure.
      await expect(plain.query({})).rejects.toThrow(/WRONGTYPE/);
    } finally {
      admin.disconnect();
      plainClient.disconnect();
      resilient.client.disconnect();
    }
  });
});

describe('RedisLink', () => {
  it('one lost and one back per outage of a real redis-server (killed, or stopped with its connections open), up following it; reconnects by itself', async () => {
    const own = await startOwnRedis();
    const options = resilientRedisOptions(prefix, 200);
    const presence = new WatchedRedisPresence(new Redis(own.url, options));
    const driver = new ResilientRedisDriver(new Redis(own.url, options));
    const events: string[] = [];
    const link = new RedisLink({ presence, driver, localRoomIds: () => [], checkMs: 200, answerMs: 500, onLost: (r) => events.push(`lost ${r}`), onBack: () => events.push('back') });
    try {
      await waitFor(() => [...presence.connections, driver.client].every((c) => c.status === 'ready'), 'connections ready', 10_000);
      link.start();
      expect(link.up).toBe(true);
      expect(events).toEqual([]);
      for (let round = 1; round <= 2; round++) {
        await own.kill();
        await waitFor(() => !link.up, 'link down', 10_000);
        // Several reconnection attempts fail while it is away: still one line.
        await new Promise((r) => setTimeout(r, 700));
        await own.start();
        await waitFor(() => link.up, 'link up again', 10_000);
        expect(events.filter((e) => e.startsWith('lost'))).toHaveLength(round);
        expect(events.filter((e) => e === 'back')).toHaveLength(round);
        expect(link.outages).toBe(round);
      }
      // Stopped (SIGSTOP): the connections stay open and nothing answers; only the PING notices.
      own.pause(true);
      await waitFor(() => !link.up, 'link down while Redis is stopped', 10_000);
      expect(events.at(-1)).toMatch(/^lost no answer to PING/);
      own.pause(false);
      await waitFor(() => link.up, 'link up once Redis continues', 10_000);
      expect(events.filter((e) => e === 'back')).toHaveLength(3);
      // Commands work again on every connection.
      expect(await driver.client.ping()).toBe('PONG');
      await presence.publish('x', 1);
      // Stopped, then closed on purpose (a server shutting down): no line for that.
      const seen = events.length;
      link.stop();
      for (const c of [...presence.connections, driver.client]) c.disconnect();
      await waitFor(() => [...presence.connections, driver.client].every((c) => c.status === 'end'), 'connections closed', 10_000);
      expect(events).toHaveLength(seen);
    } finally {
      link.stop();
      for (const c of [...presence.connections, driver.client]) c.disconnect();
      await own.kill();
    }
  });
});

describe('matchmaking requests through the gate', () => {
  const servers: Server[] = [];
  afterAll(() => { for (const s of servers) s.close(); });

  async function gated(unavailable: () => string | null, deadlineMs: number): Promise<number> {
    const server = createServer(() => { /* a matchmaker stuck on Redis: never answers */ });
    const sink = new Writable({ write(_c, _e, cb) { cb(); } });
    installRequestGate(server, {
      limits: resolveLimits(), hostile: new HostileLog(createLogger({ format: 'json', level: 'info', destination: sink })),
      roomCount: () => 0, wouldCreate: () => false, matchmakingUnavailable: unavailable, matchmakeDeadlineMs: deadlineMs,
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const a = server.address();
    return typeof a === 'object' && a !== null ? a.port : 0;
  }

  function post(port: number, path: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 2 } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
      });
      req.on('error', reject);
      req.end('{}');
    });
  }

  it('Redis away: 503 with Retry-After at once, for every matchmaking method', async () => {
    const port = await gated(() => 'Redis is not answering', 60_000);
    for (const m of ['joinOrCreate', 'create', 'join', 'joinById', 'reconnect']) {
      const r = await post(port, `/matchmake/${m}/arena`);
      expect(r.status).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(r.body).toMatch(/Redis is not answering/);
    }
  });

  it('a matchmaking request nothing answers: 503 with Retry-After at the deadline', async () => {
    const port = await gated(() => null, 300);
    const r = await post(port, '/matchmake/joinOrCreate/arena');
    expect(r.status).toBe(503);
    expect(Number(r.retryAfter)).toBeGreaterThan(0);
    expect(r.body).toMatch(/did not answer in time/);
  });
});
