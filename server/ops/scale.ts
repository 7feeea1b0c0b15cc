/**
 * One game over many processes. With a Redis URL every process that names the same Redis (and key
 * prefix) shares matchmaking and room lookup through Colyseus's Redis presence and driver; a
 * client matchmakes at any process and then opens its WebSocket to the public address of the
 * process that holds its room. This module holds what createGameServer needs for that:
 *
 * - `probeRedis`: one connection and a PING with a deadline, so a missing Redis is one clear line
 *   at start instead of a server that retries forever in the background;
 * - `publicAddressFor`: the address a process announces (PUBLIC_ADDRESS, else HOST:PORT, else the
 *   machine's host name and the port);
 * - placement: a new room goes to the live process (one still subscribed to its Redis channel)
 *   with the fewest rooms, read from the room listings, which are written when a room is created,
 *   not from the once-a-second process stats;
 * - the sweep: every few seconds a process looks for processes that are in Redis but no longer
 *   subscribed to their channel (killed, machine gone) and lets Colyseus health-check them, which
 *   removes their rooms and their process entry. Colyseus alone does this only when a join first
 *   runs into a dead room;
 * - the link (server/ops/redisLink.ts): Redis lost and back as one line each, this process's
 *   entries written back when Redis comes back empty, and `link.up` for the request gate.
 */
import { hostname } from 'node:os';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { matchMaker } from '@colyseus/core';
import { RedisLink, ResilientRedisDriver, WatchedRedisPresence, resilientRedisOptions } from './redisLink';

/** Key prefix when none is given: keeps hitreg's keys apart from other users of the same Redis. */
export const DEFAULT_REDIS_KEY_PREFIX = 'hitreg:';

/** Redis did not answer at start. `message` is one line saying what to do. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** The URL with any password replaced, for logs. */
export function redisDisplay(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Checks the URL's form: redis:// or rediss://, a host, an optional port and database number. */
export function checkRedisUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL; give redis://host:port (e.g. redis://127.0.0.1:6379)';
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return `scheme ${u.protocol} is not redis: or rediss:; give redis://host:port`;
  if (u.hostname === '') return 'no host; give redis://host:port';
  if (u.pathname !== '' && u.pathname !== '/' && !/^\/\d{1,2}$/.test(u.pathname)) return `path ${u.pathname} is not a database number; give redis://host:port/0..15`;
  return null;
}

/** The key prefix rule: letters, digits and `:_.-`, at most 64 characters. */
export function checkKeyPrefix(prefix: string): string | null {
  return /^[A-Za-z0-9:_.-]{1,64}$/.test(prefix) ? null : 'use 1..64 characters of A-Z a-z 0-9 : _ . -';
}

/** What a lone server can do when its Redis does not answer (probeRedis's default advice). */
export const SERVER_REDIS_REMEDY = 'start Redis there (e.g. redis-server), or unset REDIS_URL to run one process with local matchmaking';

/**
 * Connects once, sends PING, disconnects; throws RedisUnavailableError within about `timeoutMs`, its
 * message one line: what did not answer, where, why, and `remedy` (what the caller can do).
 */
export async function probeRedis(url: string, timeoutMs = 3000, remedy = SERVER_REDIS_REMEDY): Promise<void> {
  const bad = checkRedisUrl(url);
  if (bad !== null) throw new RedisUnavailableError(`REDIS_URL=${JSON.stringify(redisDisplay(url))} is not valid: ${bad}`);
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  let first: NodeJS.ErrnoException | null = null;
  client.on('error', (e: NodeJS.ErrnoException) => { first ??= e; }); // the socket's own error (ECONNREFUSED, ...) names the cause
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise<never>((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: `no answer in ${timeoutMs} ms` })), timeoutMs); }),
    ]);
    if (answer !== 'PONG') throw Object.assign(new Error('unexpected answer'), { code: `answered ${JSON.stringify(answer)} to PING` });
  } catch (e) {
    const err = (first ?? e) as NodeJS.ErrnoException;
    const why = err.code ?? err.message.split('\n', 1)[0];
    throw new RedisUnavailableError(`no Redis answers at ${redisDisplay(url)} (${why}): ${remedy}`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/**
 * The address clients reach this process at after matchmaking (host:port, optionally with a path,
 * no scheme: the client's own ws/wss setting applies): `given` when set, else the bound host and
 * port, else (bound to every interface) this machine's host name and the port.
 */
export function publicAddressFor(given: string | undefined, host: string, port: number): string {
  if (given !== undefined) return given;
  const h = isWildcard(host) ? hostname() : host;
  return `${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** The rule for PUBLIC_ADDRESS: host[:port][/path], no scheme, no spaces. */
export function checkPublicAddress(address: string): string | null {
  if (/^[a-z]+:\/\//i.test(address)) return 'give it without a scheme (host:port, e.g. game1.example.com:2567); clients use ws or wss as they connect';
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\/[A-Za-z0-9._~\/-]*)?$/.test(address)) return 'give host:port, optionally with a path (game1.example.com:2567, 10.0.0.5:2567, edge.example.com/game1)';
  return null;
}

/** A port free on `host` right now (for a process that must know its port before it listens). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface RedisScaleOptions {
  url: string;
  /** Every process of one deployment uses the same prefix (default DEFAULT_REDIS_KEY_PREFIX). */
  keyPrefix?: string;
  /** How often to look for dead processes, ms (default 3000; 0 = never, Colyseus's own checks only). */
  sweepMs?: number;
  /** Called with what a sweep removed (process ids). */
  onSwept?: (processIds: string[]) => void;
  /** Called when a sweep itself fails (Redis unreachable for a while): the message. */
  onSweepError?: (message: string) => void;
  /** Ids of the rooms live in this process (written back to a Redis that lost them). */
  localRoomIds?: () => string[];
  /** Redis stopped answering (one call per outage): the last connection error. */
  onLost?: (reason: string) => void;
  /** Redis answers again after `downMs`. */
  onBack?: (info: { downMs: number }) => void;
  /** This process's entries were missing from Redis and were written back. */
  onRestored?: (info: { processEntry: boolean; rooms: number }) => void;
  /** A check of this process's entries failed while Redis seemed up. */
  onCheckError?: (message: string) => void;
}

export interface RedisScale {
  presence: WatchedRedisPresence;
  driver: ResilientRedisDriver;
  /** Redis's state as this process sees it. */
  link: RedisLink;
  selectProcessIdToCreateRoom: (roomName: string, clientOptions: unknown) => Promise<string>;
  /** Starts the sweep and the link's watch (call once the server listens). */
  start(): void;
  /** Stops the sweep and the watch; the presence and driver are closed by Colyseus's shutdown. */
  stop(): void;
}

/** Room listings per process id, from the driver (one HGETALL). */
async function roomsByProcess(driver: ResilientRedisDriver): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of await driver.query({})) out.set(r.processId, (out.get(r.processId) ?? 0) + 1);
  return out;
}

export function createRedisScale(options: RedisScaleOptions): RedisScale {
  const redisOptions = resilientRedisOptions(options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
  const presence = new WatchedRedisPresence(new Redis(options.url, redisOptions));
  const driver = new ResilientRedisDriver(new Redis(options.url, redisOptions));
  const link = new RedisLink({
    presence, driver, localRoomIds: options.localRoomIds ?? (() => []),
    onLost: options.onLost, onBack: options.onBack, onRestored: options.onRestored, onCheckError: options.onCheckError,
  });
  const sweepMs = options.sweepMs ?? 3000;

  const selectProcessIdToCreateRoom = async (): Promise<string> => {
    const [listed, rooms, channels] = await Promise.all([matchMaker.stats.fetchAll(), roomsByProcess(driver), presence.channels('p:*')]);
    // Only processes still subscribed to their channel: a killed one drops out at once, before the sweep.
    const subscribed = new Set(channels.map((c) => c.slice(2)));
    const live = listed.filter((p) => p.processId === matchMaker.processId || subscribed.has(p.processId));
    let best: string | undefined;
    let bestRooms = Infinity;
    let bestCcu = Infinity;
    let ties = 0;
    for (const p of live) {
      const n = rooms.get(p.processId) ?? 0;
      if (n < bestRooms || (n === bestRooms && p.ccu < bestCcu)) {
        best = p.processId;
        bestRooms = n;
        bestCcu = p.ccu;
        ties = 1;
      } else if (n === bestRooms && p.ccu === bestCcu && Math.random() * ++ties < 1) {
        // Reservoir choice among equals: concurrent creations spread instead of piling onto one.
        best = p.processId;
      }
    }
    return best ?? matchMaker.processId;
  };

  let timer: ReturnType<typeof setInterval> | null = null;
  let sweeping = false;
  const sweep = async (): Promise<void> => {
    if (sweeping || !link.up || matchMaker.state !== matchMaker.MatchMakerState.READY) return;
    sweeping = true;
    try {
      const [channels, live, rooms] = await Promise.all([presence.channels('p:*'), matchMaker.stats.fetchAll(), roomsByProcess(driver)]);
      const subscribed = new Set(channels.map((c) => c.slice(2)));
      const known = new Set<string>([...live.map((p) => p.processId), ...rooms.keys()]);
      const suspects = [...known].filter((id) => id !== matchMaker.processId && !subscribed.has(id));
      if (suspects.length === 0) return;
      // Colyseus's health check: asks the process on its channel; no answer in ~2 s removes its
      // rooms and its process entry and leaves a receipt in case it was only slow.
      const alive = await Promise.all(suspects.map((id) => matchMaker.healthCheckProcessId(id) as Promise<boolean>));
      const removed = suspects.filter((_, i) => alive[i] === false);
      if (removed.length > 0) options.onSwept?.(removed);
    } catch (e) {
      options.onSweepError?.((e as Error).message);
    } finally {
      sweeping = false;
    }
  };

  return {
    presence,
    driver,
    link,
    selectProcessIdToCreateRoom,
    start() {
      link.start();
      if (sweepMs > 0 && timer === null) {
        timer = setInterval(() => void sweep(), sweepMs);
        timer.unref();
      }
    },
    stop() {
      link.stop();
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}

/** Deletes every key under `prefix` (SCAN, never KEYS); returns how many. For tests and teardown of a deployment. */
export async function clearRedisPrefix(url: string, prefix: string): Promise<number> {
  if (checkKeyPrefix(prefix) !== null) throw new Error(`clearRedisPrefix: prefix ${JSON.stringify(prefix)}: ${checkKeyPrefix(prefix)}`);
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {}); // the failed command below says what went wrong
  let n = 0;
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) n += await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return n;
}
