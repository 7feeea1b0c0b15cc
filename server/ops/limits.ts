/**
 * Server-level limits on what anonymous clients can make the process do over HTTP, enforced in
 * front of Colyseus's own request handling (`installRequestGate` wraps the HTTP server's request
 * event, so it sees every request before any Colyseus route does):
 *
 * - request bodies over `maxBodyBytes` are refused with 413 before they are buffered;
 * - room-creating matchmaking calls take a token from a per-address bucket (`roomCreateBurst`
 *   tokens, refilled at `roomCreatePerMinute`), else 429 with Retry-After: every `create`, and a
 *   `joinOrCreate` when no live room has a free seat (one that joins costs nothing);
 * - `create` is refused with 503 once `maxRooms` rooms are live (a `joinOrCreate` that would create
 *   the room past the cap is refused by the room itself, see servedRoom.ts).
 *
 * A few extra GET routes (/metrics) are served here too, and one subtree of paths for any method
 * (the review page), its bodies capped like the rest. Each refusal is one hostile-log event.
 * The bound on what a client that stops reading may hold unsent (`stallMaxBytes` for longer than
 * `stallMaxMs`) is a limit too; the rooms enforce it (hitreg/server StallWatch).
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { HostileLog } from './log';
import { DEFAULT_STALL_LIMITS } from '../match/index';
import { LIMIT_RANGES, inRange, type IntRange, type NumericLimit } from './ranges';

export interface LimitOptions {
  /** Live arena rooms per process. Default 64. */
  maxRooms?: number;
  /** Rooms one address may create back to back. Default 10. */
  roomCreateBurst?: number;
  /** Refill of that budget per minute. Default 30. */
  roomCreatePerMinute?: number;
  /** Largest HTTP request body, bytes. Default 16 KiB (a matchmaking body is a few hundred bytes). */
  maxBodyBytes?: number;
  /** Seconds a seat reserved by matchmaking waits for its WebSocket; then the seat (and an empty room) goes. Default 15. */
  seatReservationSeconds?: number;
  /** Take the client address from X-Forwarded-For / X-Real-IP (behind a reverse proxy). Default false. */
  trustProxy?: boolean;
  /** Hostile-event log lines per kind per minute. Default 20. */
  hostileLogPerMinute?: number;
  /**
   * Unsent bytes a connection may hold (WebSocket bufferedAmount: what the kernel would not take
   * yet) without limit of time. Default 64 KiB.
   */
  stallMaxBytes?: number;
  /**
   * Milliseconds a connection may hold more than stallMaxBytes; then it is closed with
   * CLOSE_STALLED (4408) and its slot kept for reconnection. Default 5000.
   */
  stallMaxMs?: number;
}

export const DEFAULT_LIMITS: Readonly<Required<LimitOptions>> = {
  maxRooms: 64,
  roomCreateBurst: 10,
  roomCreatePerMinute: 30,
  maxBodyBytes: 16 * 1024,
  seatReservationSeconds: 15,
  trustProxy: false,
  hostileLogPerMinute: 20,
  stallMaxBytes: DEFAULT_STALL_LIMITS.maxBytes,
  stallMaxMs: DEFAULT_STALL_LIMITS.maxMs,
};

// Every numeric limit has its range in ranges.ts, and nothing else is there.
type NumericLimitOptions = { [K in keyof LimitOptions as Required<LimitOptions>[K] extends number ? K : never]-?: IntRange };
const RANGES_COVER_LIMITS: NumericLimitOptions & Record<NumericLimit, IntRange> = LIMIT_RANGES;

/** Checks and fills limit options (programming errors throw, with what to pass instead). */
export function resolveLimits(o: LimitOptions = {}): Required<LimitOptions> {
  const r = { ...DEFAULT_LIMITS, ...o };
  for (const name of Object.keys(RANGES_COVER_LIMITS) as NumericLimit[]) {
    const v = r[name];
    const range = LIMIT_RANGES[name];
    if (!inRange(v, range)) throw new Error(`limits.${name} = ${v}: give an integer ${range.lo}..${range.hi}`);
  }
  return r;
}

/**
 * Token buckets by key (client address): `take` spends one token if there is one. Buckets that
 * are full again are forgotten, and the map never holds more than `maxKeys` addresses (when it
 * would, the fullest half is dropped), so a flood from many addresses cannot grow it without bound.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly burst: number,
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  private level(key: string, t: number): { tokens: number; at: number } {
    let b = this.buckets.get(key);
    if (b === undefined) {
      if (this.buckets.size >= this.maxKeys) this.sweep(t, true);
      b = { tokens: this.burst, at: t };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) * this.perMinute) / 60_000);
      b.at = t;
    }
    return b;
  }

  take(key: string): boolean {
    const b = this.level(key, this.now());
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Seconds until `key` has a token again (Infinity when the rate is 0). */
  retryAfterSeconds(key: string): number {
    const b = this.level(key, this.now());
    if (b.tokens >= 1) return 0;
    if (this.perMinute <= 0) return Number.POSITIVE_INFINITY;
    return Math.ceil(((1 - b.tokens) * 60) / this.perMinute);
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(t: number, force: boolean): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.at) * this.perMinute) / 60_000 >= this.burst) this.buckets.delete(k);
    }
    if (force && this.buckets.size >= this.maxKeys) {
      const keys = [...this.buckets.keys()];
      for (let i = 0; i < keys.length / 2; i++) this.buckets.delete(keys[i]!);
    }
  }
}

/** The address a request comes from: the socket's, or the first proxy hop when trusted. */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const h = req.headers['x-real-ip'] ?? req.headers['x-forwarded-for'];
    const first = (Array.isArray(h) ? h[0] : h)?.split(',')[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  return req.socket.remoteAddress ?? 'unknown';
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RequestGateOptions {
  limits: Required<LimitOptions>;
  hostile: HostileLog;
  /** Live rooms now. */
  roomCount: () => number;
  /** True when a joinOrCreate now would create a room (no live room takes players). */
  wouldCreate: () => boolean;
  /** Extra GET routes by path (e.g. "/metrics"). */
  routes?: Map<string, RouteHandler>;
  /**
   * Paths served whole by one handler, any method (the review page under /review/): its request
   * body is capped and read here like any other, then handed on as `req.body`.
   */
  subtree?: { owns: (path: string) => boolean; handle: RouteHandler };
  /** Why matchmaking cannot be served now (Redis away), or null: such requests get 503 with Retry-After. */
  matchmakingUnavailable?: () => string | null;
  /** A matchmaking request not answered in this long gets 503 with Retry-After, ms (default MATCHMAKE_DEADLINE_MS). */
  matchmakeDeadlineMs?: number;
  now?: () => number;
}

function refuse(res: ServerResponse, status: number, error: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ code: status, error });
  if (!res.headersSent) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close', ...headers });
  }
  res.end(body);
}

const MATCHMAKE = /^\/matchmake\/([A-Za-z]+)\/[^/?]*$/;

/** How long a matchmaking request may go unanswered before it is refused as retryable, ms. */
export const MATCHMAKE_DEADLINE_MS = 5000;
/** Seconds a client is told to wait before retrying matchmaking that could not be served. */
export const MATCHMAKE_RETRY_AFTER_S = 2;

/**
 * Answers `res` with a retryable 503 if nothing answered it within `ms` (a matchmaking step
 * waiting on Redis); whatever answers later writes into nothing.
 */
function answerWithin(res: ServerResponse, ms: number, onLate: () => void): void {
  const timer = setTimeout(() => {
    if (res.headersSent || res.writableEnded) return;
    onLate();
    refuse(res, 503, 'matchmaking did not answer in time; retry', { 'retry-after': String(MATCHMAKE_RETRY_AFTER_S) });
    res.writeHead = (() => res) as typeof res.writeHead;
    res.setHeader = (() => res) as typeof res.setHeader;
    res.write = (() => true) as typeof res.write;
    res.end = (() => res) as typeof res.end;
  }, ms);
  res.once('close', () => clearTimeout(timer));
}

/**
 * Puts the limits in front of every HTTP request of `server` (call once, before or after listen).
 * Accepted request bodies are read here (bounded) and handed on as `req.body`, which Colyseus's
 * router uses instead of reading the stream again.
 */
export function installRequestGate(server: HttpServer, options: RequestGateOptions): { buckets: TokenBuckets } {
  const { limits, hostile } = options;
  const buckets = new TokenBuckets(limits.roomCreateBurst, limits.roomCreatePerMinute, options.now);
  const emit = server.emit as (this: HttpServer, event: string | symbol, ...args: unknown[]) => boolean;
  // Slow clients must not hold a request open for minutes.
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;

  const gate = (req: IncomingMessage, res: ServerResponse, toColyseus: () => void): void => {
    let pass = toColyseus;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';
    const run = (route: RouteHandler): void => {
      Promise.resolve(route(req, res)).catch((e: unknown) => {
        hostile.report('server_error', { detail: String(e), path }, 'route failed');
        refuse(res, 500, 'internal error');
      });
    };
    const route = method === 'GET' || method === 'HEAD' ? options.routes?.get(path) : undefined;
    if (route !== undefined) {
      run(route);
      return;
    }
    const subtree = options.subtree?.owns(path) === true ? options.subtree.handle : null;
    if (subtree !== null) pass = () => run(subtree);
    const ip = clientAddress(req, limits.trustProxy);
    const declared = req.headers['content-length'];
    const length = declared === undefined ? -1 : Number(declared);
    if (length > limits.maxBodyBytes || Number.isNaN(length)) {
      hostile.report('http_body_too_large', { ip, path, bytes: declared }, 'request body over the cap');
      refuse(res, 413, `request body over ${limits.maxBodyBytes} bytes`);
      req.destroy();
      return;
    }
    const mm = method === 'POST' ? MATCHMAKE.exec(path) : null;
    if (mm !== null) {
      const m = mm[1];
      const unavailable = options.matchmakingUnavailable?.() ?? null;
      if (unavailable !== null) {
        refuse(res, 503, `matchmaking unavailable: ${unavailable}; retry`, { 'retry-after': String(MATCHMAKE_RETRY_AFTER_S) });
        req.resume();
        return;
      }
      answerWithin(res, options.matchmakeDeadlineMs ?? MATCHMAKE_DEADLINE_MS, () => hostile.report('matchmake_timeout', { ip, path }, 'matchmaking request unanswered: refused as retryable'));
      if (m === 'create' && options.roomCount() >= limits.maxRooms) {
        hostile.report('room_cap', { ip, rooms: options.roomCount() }, 'room refused: the process is at its room cap');
        refuse(res, 503, `server full: ${limits.maxRooms} rooms; try joinOrCreate or another server`, { 'retry-after': '10' });
        req.resume();
        return;
      }
      if ((m === 'create' || (m === 'joinOrCreate' && options.wouldCreate())) && !buckets.take(ip)) {
        const after = buckets.retryAfterSeconds(ip);
        hostile.report('room_create_rate', { ip }, 'room creation over the per-address rate');
        refuse(res, 429, 'too many rooms created from this address; wait and retry', Number.isFinite(after) ? { 'retry-after': String(after) } : {});
        req.resume();
        return;
      }
    }
    const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && (length > 0 || req.headers['transfer-encoding'] !== undefined);
    if (!hasBody) {
      pass();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > limits.maxBodyBytes) {
        over = true;
        hostile.report('http_body_too_large', { ip, path, bytes: size }, 'request body over the cap');
        refuse(res, 413, `request body over ${limits.maxBodyBytes} bytes`);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (over) return;
      (req as IncomingMessage & { body?: string }).body = Buffer.concat(chunks).toString('utf8');
      pass();
    });
    req.on('error', () => {
      if (!res.writableEnded) res.destroy();
    });
  };

  server.emit = function gatedEmit(this: HttpServer, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      gate(req, res, () => emit.call(this, event, ...args));
      return true;
    }
    return emit.call(this, event, ...args);
  } as typeof server.emit;
  return { buckets };
}
