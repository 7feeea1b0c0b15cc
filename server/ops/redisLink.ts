/**
 * Keeps a process's matchmaking alive through a Redis that comes and goes. Colyseus's Redis
 * presence and driver reconnect by themselves, but on their own a restarted (empty) or flushed
 * Redis leaves the process unmatchable, and one failed room query poisons the driver for good. Here:
 *
 * - `ResilientRedisDriver`: the driver with its shared room-list request dropped when it fails
 *   (Colyseus 0.18.5 keeps a rejected request cached, so every later query fails with the first
 *   error even once Redis answers again);
 * - `WatchedRedisPresence`: the presence with its connections reachable, so their state is known;
 * - `RedisLink`: watches the three connections (presence pub and sub, driver). Redis is up when all
 *   three are ready and a PING on each command connection, sent every `checkMs`, is answered within
 *   `answerMs` (a Redis that is stopped or cut off keeps its connections open and answers nothing:
 *   only the PING sees it). Each change of state is one call of `onLost(reason)` or `onBack(...)`, never a
 *   line per reconnection attempt. While up, it checks every `checkMs` that this process's entry
 *   and its live rooms' listings are in Redis, and writes back what is missing (a Redis restarted
 *   empty, a FLUSHALL): `onRestored` says what it wrote back.
 *
 * Connections retry forever with a backoff of `100 ms × attempt`, at most `maxBackoffMs`; commands
 * given while Redis is away wait for it (no per-command retry limit). Matchmaking does not wait:
 * the request gate refuses it with 503 and Retry-After while `up` is false (server/ops/limits.ts).
 */
import type { Redis, RedisOptions } from 'ioredis';
import { RedisPresence } from '@colyseus/redis-presence';
import { RedisDriver } from '@colyseus/redis-driver';
import { matchMaker } from '@colyseus/core';

/** Longest wait between reconnection attempts, ms. */
export const REDIS_MAX_BACKOFF_MS = 1000;

/** Reconnection and command options of every connection of the presence and driver. */
export function resilientRedisOptions(keyPrefix: string, maxBackoffMs = REDIS_MAX_BACKOFF_MS): RedisOptions {
  return {
    keyPrefix,
    retryStrategy: (times: number) => Math.min(100 * times, maxBackoffMs),
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
  };
}

type RoomListRequest = Promise<unknown>;
interface DriverInternals {
  _client: Redis;
  _concurrentRoomCacheRequest?: RoomListRequest;
  _roomCacheRequestByName: Record<string, RoomListRequest>;
  getRooms(roomName?: string): RoomListRequest;
}

export class ResilientRedisDriver extends RedisDriver {
  constructor(client: Redis) {
    super(client);
    const self = this as unknown as DriverInternals;
    const getRooms = self.getRooms.bind(this);
    self.getRooms = (roomName?: string): RoomListRequest => {
      const request = getRooms(roomName);
      const shared = self._concurrentRoomCacheRequest;
      request.catch(() => {
        if (self._concurrentRoomCacheRequest === shared) self._concurrentRoomCacheRequest = undefined;
        if (self._roomCacheRequestByName[roomName as string] === request) delete self._roomCacheRequestByName[roomName as string];
      });
      return request;
    };
  }

  get client(): Redis {
    return (this as unknown as DriverInternals)._client;
  }
}

export class WatchedRedisPresence extends RedisPresence {
  /** The publishing/command connection and the subscriber connection. */
  get connections(): [Redis, Redis] {
    return [this.pub as Redis, this.sub as Redis];
  }
}

export interface RedisLinkOptions {
  presence: WatchedRedisPresence;
  driver: ResilientRedisDriver;
  /** Ids of the rooms live in this process now. */
  localRoomIds: () => string[];
  /** How often to PING and to check that this process's entries are in Redis, ms (default 1000). */
  checkMs?: number;
  /** A PING not answered in this long means Redis is not answering, ms (default 2000). */
  answerMs?: number;
  onLost?: (reason: string) => void;
  onBack?: (info: { downMs: number }) => void;
  /** Entries written back after Redis lost them: the process entry and how many room listings. */
  onRestored?: (info: { processEntry: boolean; rooms: number }) => void;
  /** A check or write-back failed while Redis seemed up. */
  onCheckError?: (message: string) => void;
}

const firstLine = (e: unknown): string => String((e as Error)?.message ?? e).split('\n', 1)[0]!;

export class RedisLink {
  /** All three connections ready. */
  up = true;
  /** State changes to down so far. */
  outages = 0;
  private downSince = 0;
  private lastError = 'connection closed';
  private timer: ReturnType<typeof setInterval> | null = null;
  private checking = false;
  private pinging = false;
  /** The last PING was answered in time (false from the moment one is overdue until one answers). */
  private answering = true;
  private started = false;
  private readonly connections: Redis[];

  constructor(private readonly o: RedisLinkOptions) {
    const [pub, sub] = o.presence.connections;
    this.connections = [pub, sub, o.driver.client];
    for (const c of this.connections) {
      // Replaces the presence's own listeners, which print a line for every failed attempt.
      c.removeAllListeners('error');
      c.on('error', (e: Error) => { this.lastError = firstLine(e); });
      for (const event of ['ready', 'close', 'end', 'reconnecting']) c.on(event, () => this.evaluate());
    }
  }

  /** Starts watching and the periodic check (call once the server listens: Redis was up to get there). */
  start(): void {
    if (this.timer !== null) return;
    this.started = true;
    this.evaluate();
    this.timer = setInterval(() => {
      this.ping();
      void this.check();
    }, this.o.checkMs ?? 1000);
    this.timer.unref();
  }

  /** Stops watching (before the connections are closed on purpose: no line for that). */
  stop(): void {
    this.started = false;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** PINGs both command connections; no answer within answerMs marks Redis as not answering. */
  private ping(): void {
    if (this.pinging || !this.connections.every((c) => c.status === 'ready')) return;
    this.pinging = true;
    const [pub] = this.o.presence.connections;
    const overdue = setTimeout(() => {
      this.answering = false;
      this.lastError = `no answer to PING in ${this.o.answerMs ?? 2000} ms`;
      this.evaluate();
    }, this.o.answerMs ?? 2000);
    Promise.all([pub.ping(), this.o.driver.client.ping()]).then(() => {
      this.answering = true;
    }, () => undefined).finally(() => {
      clearTimeout(overdue);
      this.pinging = false;
      this.evaluate();
    });
  }

  private evaluate(): void {
    if (!this.started) return;
    const up = this.answering && this.connections.every((c) => c.status === 'ready');
    if (up === this.up) return;
    this.up = up;
    if (!up) {
      this.outages++;
      this.downSince = performance.now();
      this.o.onLost?.(this.lastError);
      return;
    }
    this.o.onBack?.({ downMs: Math.round(performance.now() - this.downSince) });
    void this.check();
  }

  /** Writes back this process's entry and room listings when Redis no longer has them. */
  async check(): Promise<void> {
    if (!this.up || this.checking || matchMaker.state !== matchMaker.MatchMakerState.READY) return;
    this.checking = true;
    try {
      const [pub] = this.o.presence.connections;
      const ids = this.o.localRoomIds();
      const [listed, cached] = await Promise.all([pub.hexists('roomcount', matchMaker.processId), this.o.driver.findByIds(ids)]);
      const missingRooms = ids.filter((id) => !cached.has(id)).length;
      if (listed === 1 && missingRooms === 0) return;
      if (listed !== 1) await matchMaker.stats.persist(true);
      if (missingRooms > 0) await matchMaker.restoreMissingRoomCaches();
      this.o.onRestored?.({ processEntry: listed !== 1, rooms: missingRooms });
    } catch (e) {
      if (this.up) this.o.onCheckError?.(firstLine(e));
    } finally {
      this.checking = false;
    }
  }
}
