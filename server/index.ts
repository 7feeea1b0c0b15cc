/**
 * createGameServer: one Colyseus 0.18 server with the `arena` room over WebSocket, the level loaded
 * into a World, the mannequin rig, and the rules. Used by `npm start` (server/main.ts), the tests,
 * the client simulator and the audit. Port 0 listens on an ephemeral port (tests run in parallel).
 *
 * Around the room (server/ops/): limits on what anonymous clients can make the process do
 * (request bodies, rooms, room creation per address, seat reservations), an optional token
 * verifier run at matchmaking, Prometheus metrics at /metrics, structured logs in which
 * Colyseus's own error output becomes one rate-limited line per hostile event, and with an evidence
 * store the review page under /review/, behind the monitor's password (server/ops/review.ts).
 *
 * With `redis`, matchmaking and room lookup are shared through Redis with every other process of
 * the same deployment (server/ops/scale.ts); each process announces its own public address. Without
 * it the process matchmakes alone (Colyseus's local presence), as a single server.
 *
 * The start runs in steps, each a function below: where the process is reached (Redis probed),
 * the rules, the rooms' config, the room class (server/ops/servedRoom.ts), the HTTP and Colyseus
 * servers, the listen, and the handle whose close() is the shutdown.
 */
import { buildClimbMap } from '../shared/fog/index';
import { createServer, type Server as HttpServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { defineServer, defineRoom, createRouter, basicAuth, matchMaker, type Server } from '@colyseus/core';
import { Encoder } from '@colyseus/schema';
import { WebSocketTransport } from '@colyseus/ws-transport';
import { monitor as colyseusMonitor } from '@colyseus/monitor';
import { loadWorld, DEFAULT_LEVEL_PATH } from './level/gltf';
import { autoSpawnPoints } from './level/spawnPoints';
import { MANNEQUIN_RIG, Clip } from './rig/mannequin';
import { ARENA_LOADOUT, DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, ROOM_NAME, WEAPONS, World, defaultMoveConfig, defaultValidationConfig, type MoveConfig, type Rig, type ValidationConfig } from '../shared/index';
import { DEFAULT_PING_INTERVAL_MS, DEFAULT_STALL_LIMITS, walkGridOf, type MatchRecorder } from './match/index';
import type { ArenaRoom } from './arena/room';
import type { ArenaConfig } from './arena/config';
import { DEFAULT_REJECT_BUDGET } from './arena/budget';
import { createServerStats, type ServerStats } from './arena/stats';
import { HostileLog, colyseusLogger, routeLibraryConsole, createLogger, firstLine, type Logger } from './ops/log';
import { installRequestGate, resolveLimits, type LimitOptions } from './ops/limits';
import { ServerMetrics } from './ops/metrics';
import { createRedisScale, probeRedis, publicAddressFor, freePort, checkPublicAddress, checkKeyPrefix, redisDisplay, type RedisScale } from './ops/scale';
import { TickTimes } from './ops/tickTimes';
import { ListenError, listenErrorMessage } from './ops/listen';
import { MatchLogs, type MatchLogTotals } from './ops/matchLogs';
import { LogEnqueuer } from './ops/auditQueue';
import { openReview, type ReviewMount } from './ops/review';
import { servedRoomFor } from './ops/servedRoom';
import { statusLineFor } from './ops/status';
import { inRange, MAX_PLAYERS_RANGE, resolveMonitorPassword, resolveTickRate } from './ops/ranges';
import { serverRoutes } from './http/routes';
import type { GameServerOptions, GameServer } from './options';

export { ListenError } from './ops/listen';
export { findSpawnPoints, spreadSpawnPoints, autoSpawnPoints } from './level/spawnPoints';

/** Where `npm run build` writes the browser client. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../dist/web', import.meta.url));

export type { ArenaRoom } from './arena/room';
export type { ArenaConfig, HostileEvent, SpawnPoint, StalledEvent } from './arena/config';
export type { MatchRecorder, MatchHeader, TickRecord, ShotRecord, MatchEvent } from './match/index';
export type { ServerStats } from './arena/stats';
export type { LimitOptions } from './ops/limits';
export type { TokenVerifier, PlayerIdentity } from './ops/authTypes';
export { jwtVerifier, AuthError } from './ops/auth';
export type { GameServerOptions, GameServer } from './options';

/** The top of the head above the eye, metres: how far below a ceiling a jumping eye stays at least. */
const HEAD_ABOVE_EYE_M = 0.12;

/**
 * The port to listen on and, with Redis, the address this process announces. Redis is probed here,
 * first, so a missing Redis is one clear error before anything is built; port 0 with Redis becomes
 * a free port now, since the announced address must name it.
 */
async function reachAt(options: GameServerOptions, host: string): Promise<{ port: number; publicAddress: string | null }> {
  const port = options.port ?? 2567;
  if (!options.redis) return { port, publicAddress: null };
  const prefixProblem = options.redis.keyPrefix === undefined ? null : checkKeyPrefix(options.redis.keyPrefix);
  if (prefixProblem !== null) throw new Error(`redis.keyPrefix ${JSON.stringify(options.redis.keyPrefix)}: ${prefixProblem}`);
  if (options.publicAddress !== undefined) {
    const p = checkPublicAddress(options.publicAddress);
    if (p !== null) throw new Error(`publicAddress ${JSON.stringify(options.publicAddress)}: ${p}`);
  }
  await probeRedis(options.redis.url);
  const bound = port === 0 ? await freePort(host) : port;
  return { port: bound, publicAddress: publicAddressFor(options.publicAddress, host, bound) };
}

/** The level, the rig and the rules a room judges and moves by. */
interface Rules {
  levelPath: string;
  world: World;
  rig: Rig;
  maxPlayers: number;
  validation: ValidationConfig;
  movement: MoveConfig;
}

async function resolveRules(options: GameServerOptions): Promise<Rules> {
  const levelPath = typeof options.level === 'string' ? options.level : options.level instanceof World ? '(prebuilt World)' : DEFAULT_LEVEL_PATH;
  const world = options.level instanceof World ? options.level : await loadWorld(levelPath);
  const rig = options.rig ?? MANNEQUIN_RIG;
  const maxPlayers = options.maxPlayers ?? 16;
  if (!inRange(maxPlayers, MAX_PLAYERS_RANGE)) throw new Error(`maxPlayers ${String(maxPlayers)}: use an integer ${MAX_PLAYERS_RANGE.lo}..${MAX_PLAYERS_RANGE.hi}`);
  // A full room's first patch with per-client views (fog of war) runs to about 176 KB at 64
  // players; the encoder grows past its default buffer with a warning on stderr: size it up front.
  Encoder.BUFFER_SIZE = Math.max(Encoder.BUFFER_SIZE, 64 * 1024 + maxPlayers * maxPlayers * 48);
  const weapons = options.weapons ?? WEAPONS;
  const zoneMultipliers: number[] = [];
  for (let z = 0; z < HIT_ZONE_COUNT; z++) zoneMultipliers.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const validation: ValidationConfig = { ...defaultValidationConfig(weapons, zoneMultipliers, rig.eyeHeight, maxPlayers, options.loadout ?? ARENA_LOADOUT), ...options.validation };
  if (validation.loadout.length === 0) throw new Error(`loadout ${JSON.stringify(options.loadout ?? ARENA_LOADOUT)} names no weapon of the table (ids 0..${weapons.length - 1})`);
  const movement: MoveConfig = { ...defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, rig.clips.map((c) => c.duration)), headHeight: rig.eyeHeight + HEAD_ABOVE_EYE_M, ...options.movement };
  return { levelPath, world, rig, maxPlayers, validation, movement };
}

/** What every room of one server shares beside the rules: its counters, registry, logs and hooks. */
interface RoomShared {
  tickRate: number;
  stats: ServerStats;
  rooms: Map<string, ArenaRoom>;
  hostile: HostileLog;
  /** The match log of each room, when the options name no recorder of their own. */
  logRecorder: (roomId: string) => MatchRecorder;
  onTickTimed: (wallMs: number) => void;
}

function arenaConfig(options: GameServerOptions, rules: Rules, shared: RoomShared, limits: Required<LimitOptions>): ArenaConfig {
  const { world, levelPath, maxPlayers } = rules;
  const { hostile, rooms } = shared;
  const config: ArenaConfig = {
    world, levelPath, rig: rules.rig, tickRate: shared.tickRate, maxPlayers,
    spawnPoints: options.spawnPoints ?? autoSpawnPoints(world, maxPlayers, levelPath),
    respawnDelayMs: options.respawnDelayMs ?? 2000,
    maxHealth: options.maxHealth ?? 100,
    validation: rules.validation,
    movement: rules.movement,
    recorder: options.recorder ?? (options.matchLogDir === false ? undefined : shared.logRecorder),
    patchRateMs: options.patchRateMs ?? 0,
    pingIntervalMs: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    defaultInterpDelayMs: options.defaultInterpDelayMs ?? 100,
    maxInterpDelayMs: options.maxInterpDelayMs ?? 250,
    maxBulletHoles: options.maxBulletHoles ?? 64,
    killFeedLength: 8,
    reconnectSeconds: options.reconnectSeconds ?? 10,
    debugVerdicts: options.debugVerdicts ?? false,
    fog: options.fog === 'off' ? 'off' : 'on',
    fogClimb: options.fog === 'off' ? undefined : buildClimbMap(world, rules.movement.stepHeight),
    fogWalk: options.fog === 'off' ? undefined : walkGridOf(world, rules.movement) ?? null,
    fogConfig: options.fogConfig,
    fogPrecisionMs: options.fogPrecisionMs,
    maxProjectiles: options.maxProjectiles,
    rejectBudget: { ...DEFAULT_REJECT_BUDGET, ...options.rejectBudget },
    onHostile: options.onHostile ?? ((e) => hostile.report(`client_${e.event}`, { roomId: e.roomId, sessionId: e.sessionId, slot: e.slot, count: e.count, reason: e.reason }, 'hostile client')),
    stalls: { ...DEFAULT_STALL_LIMITS, maxBytes: limits.stallMaxBytes, maxMs: limits.stallMaxMs },
    onStalled: (e) => hostile.report('stalled_client', { roomId: e.roomId, sessionId: e.sessionId, slot: e.slot, bytes: e.bytes, ms: Math.round(e.overMs), rule: e.rule }, 'client not reading: disconnected, slot kept'),
    clock: options.clock ?? (() => performance.now()),
    stats: shared.stats,
    onTickTimed: shared.onTickTimed,
    onCreated: (room) => rooms.set(room.roomId, room as ArenaRoom),
    onDisposed: (room) => rooms.delete(room.roomId),
  };
  if (config.spawnPoints.length === 0) throw new Error('spawnPoints is empty: pass at least one point');
  return config;
}

/** The HTTP and Colyseus servers of one process, built but not yet listening, and how to undo them. */
interface Served {
  server: Server;
  http: HttpServer;
  /** The upgraded (WebSocket) connections still open: a stop waits for their close frames to go out. */
  sockets: Set<Duplex>;
  scale: RedisScale | null;
  metrics: ServerMetrics | null;
  webPage: boolean;
  unrouteConsole: () => void;
}

interface ServeParts {
  room: typeof ArenaRoom;
  rules: Rules;
  shared: RoomShared;
  logger: Logger;
  limits: Required<LimitOptions>;
  monitorPassword: string | null;
  publicAddress: string | null;
  matchLogs: () => MatchLogTotals;
  /** The review page under /review/, when an evidence store is configured. */
  review: ReviewMount | null;
}

/**
 * The Colyseus server on an HTTP server of our own (so its errors and requests pass through here
 * first): the room, Redis presence and driver, the monitor, metrics, the review page, and every
 * GET route behind the request gate (server/ops/limits.ts).
 */
function serveArena(options: GameServerOptions, parts: ServeParts): Served {
  const { logger, limits, monitorPassword, shared: { hostile, rooms, stats } } = parts;
  const http = createServer();
  const transport = new WebSocketTransport({ server: http, maxPayload: 4096 });
  const sockets = new Set<Duplex>();
  http.on('upgrade', (_req, socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  http.removeAllListeners('error');
  const unrouteConsole = routeLibraryConsole(hostile);
  const scale = !options.redis ? null : createRedisScale({
    ...options.redis,
    onSwept: (ids) => logger.warn({ processIds: ids }, 'removed the rooms of processes that stopped answering'),
    onSweepError: (message) => hostile.report('redis_error', { detail: message }, 'sweep for dead processes failed'),
    localRoomIds: () => [...rooms.keys()],
    onLost: (reason) => logger.warn({ reason }, 'redis lost'),
    onBack: ({ downMs }) => logger.warn({ downMs }, 'redis back'),
    onRestored: (info) => logger.warn(info, 'redis had lost this process\'s entries: written back'),
    onCheckError: (message) => hostile.report('redis_error', { detail: message }, 'check of this process\'s Redis entries failed'),
  });
  const server = defineServer({
    ...(scale !== null ? { presence: scale.presence, driver: scale.driver, publicAddress: parts.publicAddress!, selectProcessIdToCreateRoom: scale.selectProcessIdToCreateRoom } : {}),
    rooms: { [ROOM_NAME]: defineRoom(parts.room) },
    ...(monitorPassword !== null ? { routes: createRouter(colyseusMonitor({ prefix: '/colyseus', use: [basicAuth({ users: { admin: monitorPassword } })] })) } : {}),
    transport,
    greet: false,
    // Signals are the embedding program's business (server/main.ts handles them).
    gracefullyShutdown: false,
    logger: colyseusLogger(logger, hostile),
  });
  if (options.latencyMs !== undefined) server.simulateLatency(options.latencyMs);

  const link = scale?.link;
  const metrics = options.metrics === false ? null : new ServerMetrics({
    stats, rooms, matchLogs: parts.matchLogs, hostile: hostile.counts,
    ...(link !== undefined ? { redis: { up: () => link.up, outages: () => link.outages } } : {}),
  });
  const { routes, webPage } = serverRoutes(metrics, parts.rules.world, parts.rules.rig, webDirOf(options));
  const wouldCreate = (): boolean => {
    for (const room of rooms.values()) if (!room.locked) return false;
    return true;
  };
  const matchmakingUnavailable = link === undefined ? undefined : (): string | null => (link.up ? null : 'Redis, which matchmaking goes through, is not answering');
  const review = parts.review;
  installRequestGate(http, { limits, hostile, roomCount: () => rooms.size, wouldCreate, routes, matchmakingUnavailable, ...(review !== null ? { subtree: review } : {}) });
  return { server, http, sockets, scale, metrics, webPage, unrouteConsole };
}

/** The built browser client's directory, or false for no page. */
function webDirOf(options: GameServerOptions): string | false {
  return options.webDir === false ? false : options.webDir ?? DEFAULT_WEB_DIR;
}

/** Listens on host:port and returns the bound port; a failure undoes serveArena and throws a one-line ListenError. */
async function listenOn(served: Served, hostile: HostileLog, host: string, port: number): Promise<number> {
  const { server, http } = served;
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      server.listen(port, host).then(() => {
        http.off('error', reject);
        resolve();
      }, reject);
    });
  } catch (e) {
    served.unrouteConsole();
    served.metrics?.close();
    served.scale?.stop();
    await server.gracefullyShutdown(false).catch(() => {});
    http.close();
    throw new ListenError(listenErrorMessage(e as NodeJS.ErrnoException, host, port), (e as NodeJS.ErrnoException).code);
  }
  http.on('error', (e) => hostile.report('server_error', { detail: firstLine(e) }, 'HTTP server error'));
  const address = http.address();
  return typeof address === 'object' && address !== null ? address.port : Number(port);
}

/** The handle's close(): stops the status timer and the sweep, finishes every room and its log, frees the port. Runs once. */
/** How long a stop waits for the clients' connections to close after their rooms closed them, ms. */
const SOCKET_CLOSE_WAIT_MS = 1000;

/** Resolves when every socket in `sockets` has closed, or after `ms`. */
function socketsClosed(sockets: Set<Duplex>, ms: number): Promise<void> {
  if (sockets.size === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function check(): void { if (sockets.size === 0) done(); }
    function done(): void {
      clearTimeout(timer);
      for (const s of sockets) s.off('close', check);
      resolve();
    }
    for (const s of sockets) s.once('close', check);
  });
}

function shutdownFor(served: Served, logs: MatchLogs, timer: ReturnType<typeof setInterval> | null, enqueuer: LogEnqueuer | null, review: ReviewMount | null): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= (async () => {
      if (timer) clearInterval(timer);
      served.scale?.stop();
      try {
        await served.server.gracefullyShutdown(false);
        await logs.finishAll();
        // The logs just finished are on their way to the audit queue: give them a moment.
        await enqueuer?.close();
        // The rooms closed every client with its close code; let those frames reach the clients
        // (a compressed patch ahead of one goes through zlib first) before the process may exit.
        await socketsClosed(served.sockets, SOCKET_CLOSE_WAIT_MS);
      } finally {
        served.metrics?.close();
        served.unrouteConsole();
        served.http.closeAllConnections?.();
        await review?.close().catch(() => {});
      }
    })();
    return closing;
  };
}

export async function createGameServer(options: GameServerOptions = {}): Promise<GameServer> {
  const logger = options.logger ?? createLogger({ format: 'json', level: 'warn' });
  const host = options.host ?? '0.0.0.0';
  const { port: wantPort, publicAddress } = await reachAt(options, host);
  const limits = resolveLimits(options.limits);
  const tickRate = resolveTickRate(options.tickRate);
  const monitorPassword = resolveMonitorPassword(options.monitor);
  const rules = await resolveRules(options);

  const stats = createServerStats();
  const rooms = new Map<string, ArenaRoom>();
  const hostile = new HostileLog(logger, { perMinute: limits.hostileLogPerMinute });
  // Match logs: each room's file opens at its first join; bytes of closed logs are kept for /metrics.
  // With an audit queue, each closed log is put on it (the queue's module is loaded only then).
  const enqueuer = options.auditQueue ? await LogEnqueuer.open(options.auditQueue, (fields, msg) => logger.warn(fields, msg)) : null;
  // The review page: the evidence store opened now, so a store that cannot be opened stops the start.
  let review: ReviewMount | null = null;
  try {
    review = options.evidence ? await openReview(options.evidence, monitorPassword, webDirOf(options)) : null;
  } catch (e) {
    await enqueuer?.close(0);
    throw e;
  }
  const logs = new MatchLogs(options.matchLogDir || undefined, enqueuer ? (path) => enqueuer.add(path) : undefined);
  const tickTimes = new TickTimes();
  let metrics: ServerMetrics | null = null;
  const onTickTimed = (ms: number): void => {
    stats.ticks++;
    tickTimes.record(ms);
    metrics?.tickSeconds.observe(ms / 1000);
  };
  const shared: RoomShared = { tickRate, stats, rooms, hostile, logRecorder: logs.recorderFor, onTickTimed };
  const config = arenaConfig(options, rules, shared, limits);
  let joins = 0;
  const room = servedRoomFor(config, { verifier: options.auth ?? null, limits, hostile, logger, rooms, onJoined: () => void joins++ });

  const served = serveArena(options, { room, rules, shared, logger, limits, monitorPassword, publicAddress, matchLogs: logs.totals, review });
  metrics = served.metrics;
  let port: number;
  try {
    port = await listenOn(served, hostile, host, wantPort);
  } catch (e) {
    await enqueuer?.close(0);
    await review?.close().catch(() => {});
    throw e;
  }
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  served.scale?.start();

  const statusLine = statusLineFor(stats, rooms, tickRate);
  const log = options.log ?? ((line: string) => logger.info(line));
  const timer = options.statusIntervalMs ? setInterval(() => log(statusLine()), options.statusIntervalMs) : null;
  timer?.unref();
  return {
    server: served.server, http: served.http, port, url: `ws://${urlHost}:${port}`, world: rules.world, rig: rules.rig, config, stats, rooms,
    statusLine, logger, hostile, metrics, matchLogBytes: logs.bytes, matchLogTotals: logs.totals, tickTimes, webPage: served.webPage,
    joins: () => joins,
    processId: matchMaker.processId,
    publicAddress,
    redis: options.redis ? redisDisplay(options.redis.url) : null,
    auditQueue: enqueuer,
    review: review !== null ? { store: review.where } : null,
    close: shutdownFor(served, logs, timer, enqueuer, review),
  };
}
