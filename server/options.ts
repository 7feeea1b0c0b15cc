/**
 * What createGameServer (./index.ts) takes and gives back: its options (level, rig, rules, limits,
 * logs, auth, metrics, scaling) and the running server's handle.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server } from '@colyseus/core';
import type { MoveConfig, Rig, ValidationConfig, WeaponSpec, World } from '../shared/index';
import type { MatchRecorder } from './match/index';
import type { ArenaRoom } from './arena/room';
import type { ArenaConfig, HostileEvent, SpawnPoint } from './arena/config';
import type { RejectBudgetConfig } from './arena/budget';
import type { ServerStats } from './arena/stats';
import type { HostileLog, Logger } from './ops/log';
import type { LimitOptions } from './ops/limits';
import type { ServerMetrics } from './ops/metrics';
import type { MatchLogTotals } from './ops/matchLogs';
import type { AuditQueueOptions } from './ops/auditQueue';
import type { EvidenceOptions } from './ops/review';
import type { TokenVerifier } from './ops/authTypes';
import type { TickTimes } from './ops/tickTimes';

export interface GameServerOptions {
  /** 2567 by default; 0 = an ephemeral port (read it back from GameServer.port). */
  port?: number;
  /** Interface to bind, default all ("0.0.0.0"); the url uses 127.0.0.1 for it. */
  host?: string;
  /** Fixed timestep in Hz: 64 (default) or up to 128. */
  tickRate?: number;
  /** Level: a .glb path (default server/assets/collision-world.glb) or a World already built. */
  level?: string | World;
  rig?: Rig;
  /** One recorder for every room, or a factory called per room with its id. */
  recorder?: MatchRecorder | ((roomId: string) => MatchRecorder);
  /**
   * Without `recorder`, every room writes its match log (server/matchlog/recorder.ts) into this
   * directory, one file per match; default MATCH_LOG_DIR or ./matches. false = no match log.
   */
  matchLogDir?: string | false;
  maxPlayers?: number;
  /** Spawn points: slot i first spawns at spawnPoints[i % n], respawns rotate. Default: found on the level's floor. */
  spawnPoints?: SpawnPoint[];
  respawnDelayMs?: number;
  maxHealth?: number;
  weapons?: readonly WeaponSpec[];
  /** Weapon ids every player carries, the first equipped at each spawn (default shared/weapons.ts ARENA_LOADOUT: DEFAULT_LOADOUT, then the rocket and the grenade). */
  loadout?: readonly number[];
  /** Overrides of the validation rules (window, tolerances, ...). */
  validation?: Partial<Omit<ValidationConfig, 'weapons' | 'zoneMultipliers' | 'maxPlayers' | 'eyeHeightM'>>;
  movement?: Partial<MoveConfig>;
  /**
   * State patch interval, ms. 0 (the default) sends one patch per tick, at the end of the tick, so a
   * client's snapshots are exactly the poses the server records in its history (patching every
   * other tick measured 98.8% prediction agreement against 99.9% for every tick, client-sim/README.md).
   */
  patchRateMs?: number;
  pingIntervalMs?: number;
  defaultInterpDelayMs?: number;
  maxInterpDelayMs?: number;
  maxBulletHoles?: number;
  /** Seconds a dropped client may take to reconnect and keep its slot (default 10; 0 = never). */
  reconnectSeconds?: number;
  /** Budget of refused messages per client (server/arena/budget.ts; default 20/s, burst 60, disconnect after 3 s over). */
  rejectBudget?: Partial<RejectBudgetConfig>;
  /** Structured lines about hostile clients (default: the server's hostile log, kind client_<event>; the room rate-limits them per client). */
  onHostile?: (e: HostileEvent) => void;
  /** Simulated round-trip latency, ms (Colyseus simulateLatency; process-wide). */
  latencyMs?: number;
  /** Print a status line this often (ms) through `log`; 0 = never (default 0; npm start prints its own). */
  statusIntervalMs?: number;
  /** Where status lines go (default the logger at info). */
  log?: (line: string) => void;
  /** Structured log (pino). Default: JSON lines on stdout at level warn (hostile events, errors). */
  logger?: Logger;
  /** Limits on bodies, rooms, room creation and seat reservations (defaults in server/ops/limits.ts). */
  limits?: LimitOptions;
  /**
   * Checks each matchmaking request's bearer token before a room is created or a seat reserved
   * (e.g. `jwtVerifier({ secret })`); the identity lands in `client.auth`. Default none: open server.
   */
  auth?: TokenVerifier | null;
  /** Serve Prometheus metrics at GET /metrics. Default true. */
  metrics?: boolean;
  /** Serve the Colyseus monitor (@colyseus/monitor) at /colyseus/, behind HTTP basic auth as user `admin`. Default off. */
  monitor?: { password: string } | false;
  /** Projectiles (rockets, grenades) a room flies at once at most; a launch past it is refused PROJECTILE_LIMIT (default 256). */
  maxProjectiles?: number;
  /**
   * Allow debug verdicts: a client joining with `{ debug: true }` then gets every other player's
   * rewound pose in each verdict (the web client's impact view). Default false.
   */
  debugVerdicts?: boolean;
  /**
   * Server-side fog of war: 'on' (default) sends each client only the enemies it could see before the
   * next patch (hitreg/server FogFilter), 'off' sends every player to every client.
   */
  fog?: 'on' | 'off';
  /**
   * FogOfWar settings over its defaults (shared/fog FogConfig: the caches that keep its work small,
   * the sampling): e.g. shared/fog FOG_NO_CACHES decides every pair on its own regions every tick
   * (what the caches cost in what is withheld, at several times the work).
   */
  fogConfig?: ArenaConfig['fogConfig'];
  /**
   * The fog update time, ms, that precise viewers may fill (their pairs decided on the plain regions:
   * more withheld at more rays; default hitreg/server DEFAULT_FOG_PRECISION_MS, 0: none).
   */
  fogPrecisionMs?: number;
  /**
   * The built browser client to serve at `/` (default dist/web, written by `npm run build`; nothing is
   * served when it has not been built). false = serve no page.
   */
  webDir?: string | false;
  /** Monotonic clock in ms (default performance.now). */
  clock?: () => number;
  /**
   * Share matchmaking with other processes through Redis (redis://host:port[/db]); default none: this
   * process matchmakes alone. Start fails with RedisUnavailableError when no Redis answers.
   */
  redis?: { url: string; keyPrefix?: string; sweepMs?: number } | null;
  /**
   * With `redis`: the address clients connect to after matchmaking (host:port[/path], no scheme);
   * default the bound host and port, or this machine's host name and the port when bound to every
   * interface. Port 0 with `redis` picks a free port before listening, so the address is known.
   */
  publicAddress?: string;
  /**
   * Put every match log, once closed, on the fleet's audit queue (server/ops/auditQueue.ts; Redis
   * through BullMQ) for `npm run audit-worker`; default none. The workers must read the logs at the
   * same paths (a shared MATCH_LOG_DIR).
   */
  auditQueue?: AuditQueueOptions | null;
  /**
   * Serve the review page at /review/ over this evidence store (a SQLite file or a postgres:// URL;
   * docs/evidence.md), behind the monitor's password as user `admin`: needs `monitor`. Default none.
   */
  evidence?: EvidenceOptions | null;
}

export interface GameServer {
  server: Server;
  http: HttpServer;
  port: number;
  url: string;
  world: World;
  rig: Rig;
  config: ArenaConfig;
  stats: ServerStats;
  /** Live arena rooms by roomId. */
  rooms: Map<string, ArenaRoom>;
  statusLine(): string;
  logger: Logger;
  hostile: HostileLog;
  /** True when the built web client is served at `/`. */
  webPage: boolean;
  /** null when created with `metrics: false`. */
  metrics: ServerMetrics | null;
  /** Match log bytes written so far, every room included. */
  matchLogBytes(): number;
  /** The match logs' counters: bytes written, pending and given up, failed writes, dropped records (every room included). */
  matchLogTotals(): MatchLogTotals;
  /** Every room tick's wall time, exactly (load tests read windows of it). */
  tickTimes: TickTimes;
  /** Players that joined a room of this process so far (reconnections not counted). */
  joins(): number;
  /** Colyseus's id of this process (the key of its rooms in Redis). */
  processId: string;
  /** With `redis`: the address announced to clients; null for a lone process. */
  publicAddress: string | null;
  /** With `redis`: the Redis URL (password hidden); null for a lone process. */
  redis: string | null;
  /** With `auditQueue`: match logs put on the audit queue so far, and enqueues that failed; null without. */
  auditQueue: { enqueued: number; failures: number } | null;
  /** With `evidence`: the store the review page at /review/ reads (password hidden); null without. */
  review: { store: string } | null;
  /** Stops taking players, finishes every room (match logs get their end record and are flushed), closes the port. */
  close(): Promise<void>;
}
