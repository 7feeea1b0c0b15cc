/**
 * createGameServer: one Colyseus 0.18 server with the `arena` room over WebSocket, the level loaded
 * into a World, the mannequin rig, and the rules. Used by `npm start` (server/main.ts), the tests,
 * the client simulator and the audit. Port 0 listens on an ephemeral port (tests run in parallel).
 *
 * Around the room (server/ops/): limits on what anonymous clients can make the process do
 * (request bodies, rooms, room creation per address, seat reservations), an optional token
 * verifier run at matchmaking, Prometheus metrics at /metrics, and structured logs in which
 * Colyseus's own error output becomes one rate-limited line per hostile event.
 *
 * With `redis`, matchmaking and room lookup are shared through Redis with every other process of
 * the same deployment (server/ops/scale.ts); each process announces its own public address. Without
 * it the process matchmakes alone (Colyseus's local presence), as a single server.
 */
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { defineServer, defineRoom, createRouter, basicAuth, matchMaker, ServerError, ErrorCode, type Client, type AuthContext } from '@colyseus/core';
import { WebSocketTransport } from '@colyseus/ws-transport';
import { loadWorld, DEFAULT_LEVEL_PATH } from './level/gltf';
import { MANNEQUIN_RIG, Clip } from './rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, ROOM_NAME, WEAPONS, World, defaultMoveConfig, defaultValidationConfig, type MoveConfig, type ValidationConfig } from '../shared/index';
import { DEFAULT_PING_INTERVAL_MS, MatchLogRecorder, type MatchRecorder } from './match/index';
import { arenaRoomFor, type ArenaRoom } from './arena/room';
import type { ArenaConfig } from './arena/config';
import { DEFAULT_REJECT_BUDGET } from './arena/budget';
import { createServerStats, totalRejects } from './arena/stats';
import { HostileLog, colyseusLogger, routeLibraryConsole, createLogger, firstLine } from './ops/log';
import { installRequestGate, resolveLimits, type RouteHandler } from './ops/limits';
import { ServerMetrics } from './ops/metrics';
import { AuthError, type PlayerIdentity } from './ops/auth';
import { monitor as colyseusMonitor } from '@colyseus/monitor';
import { createRedisScale, probeRedis, publicAddressFor, freePort, checkPublicAddress, checkKeyPrefix, redisDisplay, type RedisScale } from './ops/scale';
import { TickTimes } from './ops/tickTimes';
import { fileURLToPath } from 'node:url';
import { assetRoutes, webRoutes } from './http/assets';
import { ListenError, listenErrorMessage } from './ops/listen';
import { autoSpawnPoints } from './level/spawnPoints';

export { ListenError } from './ops/listen';
export { findSpawnPoints, spreadSpawnPoints, autoSpawnPoints } from './level/spawnPoints';

/** Where `npm run build` writes the browser client. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../dist/web', import.meta.url));

export type { ArenaRoom } from './arena/room';
export type { ArenaConfig, HostileEvent, SpawnPoint } from './arena/config';
export type { MatchRecorder, MatchHeader, TickRecord, ShotRecord, MatchEvent } from './match/index';
export type { ServerStats } from './arena/stats';
export type { LimitOptions } from './ops/limits';
export type { TokenVerifier, PlayerIdentity } from './ops/auth';
export { jwtVerifier, AuthError } from './ops/auth';
export type { GameServerOptions, GameServer } from './options';
import type { GameServerOptions, GameServer } from './options';

/** The top of the head above the eye, metres: how far below a ceiling a jumping eye stays at least. */
const HEAD_ABOVE_EYE_M = 0.12;

export async function createGameServer(options: GameServerOptions = {}): Promise<GameServer> {
  const logger = options.logger ?? createLogger({ format: 'json', level: 'warn' });
  const host = options.host ?? '0.0.0.0';
  let wantPort = options.port ?? 2567;
  let publicAddress: string | null = null;
  let scale: RedisScale | null = null;
  if (options.redis) {
    const prefixProblem = options.redis.keyPrefix === undefined ? null : checkKeyPrefix(options.redis.keyPrefix);
    if (prefixProblem !== null) throw new Error(`redis.keyPrefix ${JSON.stringify(options.redis.keyPrefix)}: ${prefixProblem}`);
    if (options.publicAddress !== undefined) {
      const p = checkPublicAddress(options.publicAddress);
      if (p !== null) throw new Error(`publicAddress ${JSON.stringify(options.publicAddress)}: ${p}`);
    }
    await probeRedis(options.redis.url);
    if (wantPort === 0) wantPort = await freePort(host);
    publicAddress = publicAddressFor(options.publicAddress, host, wantPort);
  }
  const tickTimes = new TickTimes();
  let joins = 0;
  const log = options.log ?? ((line: string) => logger.info(line));
  const limits = resolveLimits(options.limits);
  const tickRate = Math.round(options.tickRate ?? 64);
  if (!(tickRate >= 1 && tickRate <= 128)) throw new Error(`tickRate ${options.tickRate}: use 1..128 Hz (64 default, 128 for competitive play)`);
  const levelPath = typeof options.level === 'string' ? options.level : options.level instanceof World ? '(prebuilt World)' : DEFAULT_LEVEL_PATH;
  const world = options.level instanceof World ? options.level : await loadWorld(levelPath);
  const rig = options.rig ?? MANNEQUIN_RIG;
  const maxPlayers = options.maxPlayers ?? 16;
  const weapons = options.weapons ?? WEAPONS;
  const zoneMultipliers: number[] = [];
  for (let z = 0; z < HIT_ZONE_COUNT; z++) zoneMultipliers.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const validation: ValidationConfig = { ...defaultValidationConfig(weapons, zoneMultipliers, rig.eyeHeight, maxPlayers, options.loadout), ...options.validation };
  if (validation.loadout.length === 0) throw new Error(`loadout ${JSON.stringify(options.loadout)} names no weapon of the table (ids 0..${weapons.length - 1})`);
  const movement: MoveConfig = { ...defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, rig.clips.map((c) => c.duration)), headHeight: rig.eyeHeight + HEAD_ABOVE_EYE_M, ...options.movement };
  const stats = createServerStats();
  const rooms = new Map<string, ArenaRoom>();
  let metrics: ServerMetrics | null = null;
  const hostile = new HostileLog(logger, { perMinute: limits.hostileLogPerMinute });

  // Match logs: each room's file opens at its first join; bytes of closed logs are kept for /metrics.
  const liveLogs = new Set<MatchLogRecorder>();
  let closedLogBytes = 0;
  const logRecorder = (roomId: string): MatchRecorder => {
    const rec: MatchLogRecorder = new MatchLogRecorder({
      roomId, dir: options.matchLogDir || undefined, openAt: 'firstJoin', origin: `${hostname()}-${matchMaker.processId}`,
      onClosed: (s) => {
        if (liveLogs.delete(rec)) closedLogBytes += s.bytesWritten;
      },
    });
    liveLogs.add(rec);
    return rec;
  };
  const matchLogBytes = (): number => {
    let n = closedLogBytes;
    for (const r of liveLogs) n += r.bytesWritten;
    return n;
  };

  const config: ArenaConfig = {
    world,
    levelPath,
    rig,
    tickRate,
    maxPlayers,
    spawnPoints: options.spawnPoints ?? autoSpawnPoints(world, maxPlayers, levelPath),
    respawnDelayMs: options.respawnDelayMs ?? 2000,
    maxHealth: options.maxHealth ?? 100,
    validation,
    movement,
    recorder: options.recorder ?? (options.matchLogDir === false ? undefined : logRecorder),
    patchRateMs: options.patchRateMs ?? 0,
    pingIntervalMs: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    defaultInterpDelayMs: options.defaultInterpDelayMs ?? 100,
    maxInterpDelayMs: options.maxInterpDelayMs ?? 250,
    maxBulletHoles: options.maxBulletHoles ?? 64,
    killFeedLength: 8,
    reconnectSeconds: options.reconnectSeconds ?? 10,
    debugVerdicts: options.debugVerdicts ?? false,
    rejectBudget: { ...DEFAULT_REJECT_BUDGET, ...options.rejectBudget },
    onHostile: options.onHostile ?? ((e) => hostile.report(`client_${e.event}`, { roomId: e.roomId, sessionId: e.sessionId, slot: e.slot, count: e.count, reason: e.reason }, 'hostile client')),
    clock: options.clock ?? (() => performance.now()),
    stats,
    onCreated: (room) => rooms.set(room.roomId, room as ArenaRoom),
    onDisposed: (room) => rooms.delete(room.roomId),
  };
  if (config.spawnPoints.length === 0) throw new Error('spawnPoints is empty: pass at least one point');

  const verifier = options.auth ?? null;
  const Bound = arenaRoomFor(config);
  /** The arena room as this server runs it: auth, the room cap, seat reservations, tick timing, lifecycle logs. */
  class ServedArenaRoom extends Bound {
    static override async onAuth(token: string, _options: unknown, context: AuthContext): Promise<PlayerIdentity | true> {
      if (verifier === null) return true;
      try {
        return await verifier(token || undefined);
      } catch (e) {
        const reason = e instanceof AuthError ? e.reason : 'verifier_failed';
        hostile.report('auth_refused', { reason, ip: context?.ip }, 'token refused');
        throw new ServerError(ErrorCode.AUTH_FAILED, e instanceof AuthError ? e.message : 'token could not be checked');
      }
    }

    override onCreate(clientOptions: unknown): void {
      if (rooms.size >= limits.maxRooms) {
        hostile.report('room_cap', { rooms: rooms.size }, 'room refused: the process is at its room cap');
        throw new ServerError(ErrorCode.MATCHMAKE_UNHANDLED, `server full: ${limits.maxRooms} rooms`);
      }
      super.onCreate(clientOptions);
      this.seatReservationTimeout = limits.seatReservationSeconds;
      logger.debug({ roomId: this.roomId }, 'room created');
    }

    override setFixedTimestep(...args: Parameters<ArenaRoom['setFixedTimestep']>): ReturnType<ArenaRoom['setFixedTimestep']> {
      const [step, ...rest] = args;
      return super.setFixedTimestep((ctx) => {
        const t0 = performance.now();
        try {
          step(ctx);
        } finally {
          stats.ticks++;
          tickTimes.record(performance.now() - t0);
          metrics?.tickSeconds.observe((performance.now() - t0) / 1000);
        }
      }, ...rest);
    }

    override onJoin(client: Client, joinOptions?: unknown): void {
      super.onJoin(client, joinOptions);
      joins++;
      const id = client.auth as PlayerIdentity | undefined;
      logger.info({ roomId: this.roomId, sessionId: client.sessionId, slot: this.slotOf(client.sessionId)?.index, ...(id?.id ? { playerId: id.id } : {}) }, 'join');
    }

    override onLeave(client: Client): void {
      const slot = this.slotOf(client.sessionId)?.index;
      super.onLeave(client);
      logger.info({ roomId: this.roomId, sessionId: client.sessionId, slot }, 'leave');
    }

    override onDispose(): void | Promise<unknown> {
      logger.debug({ roomId: this.roomId, ticks: this.tickCount }, 'room disposed');
      return super.onDispose();
    }
  }

  // The HTTP server is ours so its errors and requests pass through here first.
  const http = createServer();
  const transport = new WebSocketTransport({ server: http, maxPayload: 4096 });
  http.removeAllListeners('error');
  const unrouteConsole = routeLibraryConsole(hostile);
  const monitorPassword = options.monitor ? options.monitor.password : null;
  if (monitorPassword !== null && monitorPassword.length < 12) throw new Error('monitor.password: use at least 12 characters');
  if (options.redis) {
    scale = createRedisScale({
      ...options.redis,
      onSwept: (ids) => logger.warn({ processIds: ids }, 'removed the rooms of processes that stopped answering'),
      onSweepError: (message) => hostile.report('redis_error', { detail: message }, 'sweep for dead processes failed'),
    });
  }
  const server = defineServer({
    ...(scale !== null ? { presence: scale.presence, driver: scale.driver, publicAddress: publicAddress!, selectProcessIdToCreateRoom: scale.selectProcessIdToCreateRoom } : {}),
    rooms: { [ROOM_NAME]: defineRoom(ServedArenaRoom) },
    ...(monitorPassword !== null ? { routes: createRouter(colyseusMonitor({ prefix: '/colyseus', use: [basicAuth({ users: { admin: monitorPassword } })] })) } : {}),
    transport,
    greet: false,
    // Signals are the embedding program's business (server/main.ts handles them).
    gracefullyShutdown: false,
    logger: colyseusLogger(logger, hostile),
  });
  if (options.latencyMs !== undefined) server.simulateLatency(options.latencyMs);

  if (options.metrics !== false) metrics = new ServerMetrics({ stats, rooms, matchLogBytes, hostile: hostile.counts });
  const routes = new Map<string, RouteHandler>();
  if (metrics !== null) {
    const m = metrics;
    routes.set('/metrics', async (_req, res) => {
      const body = await m.text();
      res.writeHead(200, { 'content-type': m.contentType, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  }
  // The world and rig by content hash (clients fetch them after the welcome), and the web client.
  for (const [path, handler] of assetRoutes(world, rig)) routes.set(path, handler);
  let webPage = false;
  if (options.webDir !== false) {
    for (const [path, handler] of webRoutes(options.webDir ?? DEFAULT_WEB_DIR)) if (!routes.has(path)) routes.set(path, handler);
    webPage = routes.has('/');
  }
  const wouldCreate = (): boolean => {
    for (const room of rooms.values()) if (!room.locked) return false;
    return true;
  };
  installRequestGate(http, { limits, hostile, roomCount: () => rooms.size, wouldCreate, routes });

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      server.listen(wantPort, host).then(() => {
        http.off('error', reject);
        resolve();
      }, reject);
    });
  } catch (e) {
    unrouteConsole();
    metrics?.close();
    scale?.stop();
    await server.gracefullyShutdown(false).catch(() => {});
    http.close();
    throw new ListenError(listenErrorMessage(e as NodeJS.ErrnoException, host, wantPort), (e as NodeJS.ErrnoException).code);
  }
  http.on('error', (e) => hostile.report('server_error', { detail: firstLine(e) }, 'HTTP server error'));
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : Number(wantPort);
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `ws://${urlHost}:${port}`;
  scale?.start();

  let lastShots = 0;
  let lastAt = performance.now();
  const statusLine = (): string => {
    const now = performance.now();
    const rate = ((stats.shots - lastShots) * 1000) / Math.max(1, now - lastAt);
    lastShots = stats.shots;
    lastAt = now;
    const top = Object.entries(stats.rejects).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, v]) => `${k}:${v}`).join(' ');
    let tps = Number.POSITIVE_INFINITY;
    for (const room of rooms.values()) if (room.ticksPerSecond > 0) tps = Math.min(tps, room.ticksPerSecond);
    const tickPart = `ticks/s ${Number.isFinite(tps) ? tps.toFixed(1) : '-'} of ${tickRate}`;
    return `[arena] rooms ${stats.rooms} ${tickPart} players ${stats.players} shots/s ${rate.toFixed(1)} shots ${stats.shots} hits ${stats.hits} misses ${stats.misses} kills ${stats.kills} rejects ${totalRejects(stats)}${top ? ` (${top})` : ''}`;
  };
  const timer = options.statusIntervalMs ? setInterval(() => log(statusLine()), options.statusIntervalMs) : null;
  timer?.unref();

  let closing: Promise<void> | null = null;
  return {
    server, http, port, url, world, rig, config, stats, rooms, statusLine, logger, hostile, metrics, matchLogBytes, tickTimes,
    joins: () => joins,
    processId: matchMaker.processId,
    publicAddress,
    redis: options.redis ? redisDisplay(options.redis.url) : null,
    webPage,
    close() {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        scale?.stop();
        try {
          await server.gracefullyShutdown(false);
          // Rooms disposed just before the stop still get their logs' end records.
          await Promise.allSettled([...liveLogs].map((r) => r.finish()));
        } finally {
          metrics?.close();
          unrouteConsole();
          http.closeAllConnections?.();
        }
      })();
      return closing;
    },
  };
}
