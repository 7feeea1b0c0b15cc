/**
 * The environment `npm start` reads, validated in one place. Every variable has a default; a value
 * that is set but wrong throws a ConfigError whose message is one line naming the variable, what
 * was given and what to give instead. Nothing here touches the network; files are only checked.
 */
import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { extname, resolve } from 'node:path';
import type { SpawnPoint } from '../arena/room';
import type { GameServerOptions } from '../options';
import type { AuthEnv } from './authTypes';
import { DEFAULT_LIMITS, type LimitOptions } from './limits';
import { FOG_MAX_RAYS_RANGE, HS256_SECRET_MIN_BYTES, LIMIT_RANGES, MAX_PLAYERS_RANGE, MONITOR_PASSWORD_MIN_LENGTH, TICK_RATE_RANGE, inRange, type IntRange } from './ranges';
import { WEAPONS } from '../../shared/weapons';
import { DEFAULT_FOG_RAYS_PER_UPDATE } from '../match/fogOptions';
import { checkKeyPrefix, checkPublicAddress, checkRedisUrl, DEFAULT_REDIS_KEY_PREFIX } from './scale';

export type { AuthEnv } from './authTypes';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type LogFormat = 'text' | 'json';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything `npm start` takes from the environment. */
export interface ServerEnv {
  port: number;
  host: string;
  tickRate: number;
  /** Absolute path of the level, or undefined for the default level. */
  level: string | undefined;
  spawnPoints: SpawnPoint[] | undefined;
  /** Players per room, undefined for the server's default. */
  maxPlayers: number | undefined;
  /** Weapon ids every player carries (the first equipped at spawn), undefined for the default loadout. */
  loadout: number[] | undefined;
  matchLogDir: string | false;
  statusIntervalMs: number;
  logFormat: LogFormat;
  logLevel: LogLevel;
  metrics: boolean;
  /** Clients may ask for debug verdicts (rewound poses; the web client's impact view). */
  debugVerdicts: boolean;
  /** Server-side fog of war (FOG, default on). */
  fog: 'on' | 'off';
  /** Rays after which a fog update tests no more pairs (FOG_MAX_RAYS; 0: no cap); undefined: FogFilter's default. */
  fogMaxRays: number | undefined;
  /** The monitor's password (user admin), null = no monitor. */
  monitorPassword: string | null;
  limits: LimitOptions;
  auth: AuthEnv | null;
  /** Shared matchmaking through Redis; null = this process alone. */
  redis: { url: string; keyPrefix: string } | null;
  /** Announced to clients with Redis; undefined = derived (server/ops/scale.ts publicAddressFor). */
  publicAddress: string | undefined;
  /** The fleet's audit queue every closed match log goes on; null = none (default). */
  auditQueue: { url: string; prefix: string } | null;
  /** The evidence store the review page at /review/ reads (a SQLite file's absolute path or a postgres:// URL); null = no page. */
  evidenceStore: string | null;
}

const span = (r: IntRange): string => `${r.lo}..${r.hi}`;
const L = LIMIT_RANGES;
const D = DEFAULT_LIMITS;

/** The variables, with their one-line help (docs/operations.md lists them). */
export const ENV_HELP: Record<string, string> = {
  PORT: 'TCP port 0..65535, 0 = any free port (default 2567)',
  HOST: 'interface to bind: an IP address or host name (default 0.0.0.0, every interface)',
  TICK_RATE: `fixed timestep in Hz, an integer ${span(TICK_RATE_RANGE)} (default 64)`,
  LEVEL: 'a .glb/.gltf level file (default server/assets/collision-world.glb)',
  RIG: '"mannequin" (default), a rig file (.rig.json, npm run build:rig) or a character (.glb, .gltf, .vrm); read by server/rig/rigFile.ts',
  RIG_MAP: 'bone map file for a RIG character whose bones follow no known convention',
  SPAWN_POINTS: 'spawn points as "x,y,z[,dirX,dirZ];..." in metres (default: found on the level floor)',
  MAX_PLAYERS: `players per room, an integer ${span(MAX_PLAYERS_RANGE)} (default 16)`,
  LOADOUT: `weapons every player carries, names or ids separated by commas, the first equipped at spawn (${WEAPONS.map((w) => `${w.id} ${w.name}`).join(', ')}; default rifle,pistol,sniper,shotgun,knife: shared/weapons.ts DEFAULT_LOADOUT)`,
  MATCH_LOG_DIR: 'directory for match logs, or "off" (default matches/)',
  STATUS_INTERVAL_MS: 'status line period in ms, 0 = none (default 5000)',
  LOG_FORMAT: '"text" or "json" (default text on a terminal, json otherwise)',
  LOG_LEVEL: `one of ${LOG_LEVELS.join(', ')} (default info)`,
  METRICS: '"on" or "off": Prometheus text at GET /metrics (default on)',
  FOG: '"off" sends every player to every client; "on" withholds enemies a client cannot see before the next patch (server-side fog of war) (default on)',
  FOG_MAX_RAYS: `rays after which a fog update tests no more pairs, an integer ${span(FOG_MAX_RAYS_RANGE)}, 0 = no cap; pairs a spent cap leaves untested are sent that tick and tested first at the next (default ${DEFAULT_FOG_RAYS_PER_UPDATE})`,
  DEBUG_VERDICTS: '"on" lets clients that ask get every player\'s rewound pose in their verdicts (the web client\'s ?debug=1 impact view; reveals positions, so for development) (default off)',
  MONITOR_PASSWORD: `set (>= ${MONITOR_PASSWORD_MIN_LENGTH} characters) to serve the Colyseus monitor at /colyseus/ for user "admin" (default: no monitor)`,
  MAX_ROOMS: `arena rooms per process, ${span(L.maxRooms)} (default ${D.maxRooms})`,
  ROOM_CREATE_BURST: `rooms one address may create at once, ${span(L.roomCreateBurst)} (default ${D.roomCreateBurst})`,
  ROOM_CREATE_PER_MINUTE: `rooms one address may create per minute after the burst, ${span(L.roomCreatePerMinute)} (default ${D.roomCreatePerMinute})`,
  MAX_BODY_BYTES: `largest HTTP request body in bytes, ${span(L.maxBodyBytes)} (default ${D.maxBodyBytes})`,
  SEAT_RESERVATION_SECONDS: `seconds a matchmade seat waits for its WebSocket, ${span(L.seatReservationSeconds)} (default ${D.seatReservationSeconds})`,
  TRUST_PROXY: '"on" to take the client address from X-Forwarded-For / X-Real-IP (default off)',
  HOSTILE_LOG_PER_MINUTE: `log lines per kind of hostile event per minute, ${span(L.hostileLogPerMinute)} (default ${D.hostileLogPerMinute})`,
  STALL_MAX_BYTES: `unsent bytes a client that does not read may hold indefinitely, ${span(L.stallMaxBytes)} (default ${D.stallMaxBytes})`,
  STALL_MAX_MS: `ms a client may hold more than STALL_MAX_BYTES unsent before it is disconnected (close code 4408, its slot kept), ${span(L.stallMaxMs)} (default ${D.stallMaxMs})`,
  AUTH_JWT_SECRET: `HS256 secret (>= ${HS256_SECRET_MIN_BYTES} characters): players must present a JWT signed with it`,
  AUTH_JWT_PUBLIC_KEY: 'path of a PEM Ed25519 public key: players must present an EdDSA JWT signed by its private key',
  AUTH_JWT_ISSUER: 'required "iss" claim when auth is on',
  AUTH_JWT_AUDIENCE: 'required "aud" claim when auth is on',
  REDIS_URL: 'redis://host:port[/db]: share matchmaking with every process that names the same Redis (default none: one process alone)',
  REDIS_KEY_PREFIX: `prefix of every Redis key, the same for all processes of one deployment (default ${DEFAULT_REDIS_KEY_PREFIX})`,
  PUBLIC_ADDRESS: 'with REDIS_URL, the host:port clients reach this process at (default HOST:PORT, or the host name and PORT when HOST is 0.0.0.0)',
  AUDIT_QUEUE: '"off" (default), "on" (the queue on REDIS_URL, else redis://127.0.0.1:6379) or a redis://host:port URL: put every closed match log on the audit queue for `npm run audit-worker`',
  EVIDENCE_STORE: '"off" (default), "on" (DATABASE_URL, else ./evidence.sqlite), a SQLite file or a postgres:// URL: serve the review page at /review/ over that evidence store, behind MONITOR_PASSWORD',
  AUDIT_QUEUE_PREFIX: 'with AUDIT_QUEUE, the queue\'s key prefix, the same for the servers and workers of one deployment (default hitreg-audit)',
};

function bad(name: string, value: string, what: string): ConfigError {
  return new ConfigError(`${name}=${JSON.stringify(value)} is not valid: ${what}`);
}

function get(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  if (v.trim() === '') throw new ConfigError(`${name} is set but empty: unset it for the default, or give ${ENV_HELP[name] ?? 'a value'}`);
  return v.trim();
}

function int(env: NodeJS.ProcessEnv, name: string, range: IntRange, fallback: number): number {
  const v = get(env, name);
  if (v === undefined) return fallback;
  if (!/^[+]?\d+$/.test(v) || !inRange(Number(v), range)) throw bad(name, v, `give ${ENV_HELP[name] ?? `an integer ${span(range)}`}`);
  return Number(v);
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const v = get(env, name);
  if (v === undefined) return fallback;
  const l = v.toLowerCase();
  if (['on', '1', 'true', 'yes'].includes(l)) return true;
  if (['off', '0', 'false', 'no'].includes(l)) return false;
  throw bad(name, v, 'give "on" or "off"');
}

/** "x,y,z[,dirX,dirZ];..." -> spawn points (dir defaults to +z). */
export function parseSpawnPoints(text: string, name = 'SPAWN_POINTS'): SpawnPoint[] {
  const out: SpawnPoint[] = [];
  for (const part of text.split(';')) {
    if (part.trim() === '') continue;
    const n = part.split(',').map((s) => Number(s.trim()));
    if ((n.length !== 3 && n.length !== 5) || n.some((x) => !Number.isFinite(x) || Math.abs(x) > 1e6)) {
      throw bad(name, text, `each point is "x,y,z" or "x,y,z,dirX,dirZ" (finite metres), points separated by ";", e.g. "0,0,0;4,0,4,-1,0"`);
    }
    const [x, y, z, dx = 0, dz = 1] = n as [number, number, number, number?, number?];
    if (dx === 0 && dz === 0) throw bad(name, text, 'a facing direction dirX,dirZ must not be 0,0');
    out.push({ x, y, z, dirX: dx, dirZ: dz });
  }
  if (out.length === 0) throw bad(name, text, 'give at least one point "x,y,z"');
  if (out.length > 256) throw bad(name, text, 'at most 256 points');
  return out;
}

/** "rifle,pistol,5" -> weapon ids of the WEAPONS table (names case-insensitive), each once, at least one. */
export function parseLoadout(text: string, name = 'LOADOUT'): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    const p = part.trim().toLowerCase();
    if (p === '') continue;
    const w = /^\d+$/.test(p) ? WEAPONS.find((x) => x.id === Number(p)) : WEAPONS.find((x) => x.name === p);
    if (w === undefined) throw bad(name, text, `"${part.trim()}" is no weapon; give ${ENV_HELP.LOADOUT}`);
    if (out.includes(w.id)) throw bad(name, text, `${w.name} is named twice; name each weapon once`);
    out.push(w.id);
  }
  if (out.length === 0) throw bad(name, text, `give at least one weapon, e.g. LOADOUT=rifle,pistol,rocket`);
  return out;
}

/** Reads and checks every variable; throws ConfigError (one line) on the first wrong one. */
export function readServerEnv(env: NodeJS.ProcessEnv = process.env, isTty = false): ServerEnv {
  const port = int(env, 'PORT', { lo: 0, hi: 65535 }, 2567);
  const host = get(env, 'HOST') ?? '0.0.0.0';
  if (isIP(host) === 0 && !/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/.test(host)) {
    throw bad('HOST', host, `give ${ENV_HELP.HOST}, e.g. HOST=127.0.0.1`);
  }
  const tickRate = int(env, 'TICK_RATE', TICK_RATE_RANGE, 64);

  let level: string | undefined;
  const levelVar = get(env, 'LEVEL');
  if (levelVar !== undefined) {
    level = resolve(levelVar);
    const ext = extname(level).toLowerCase();
    if (ext !== '.glb' && ext !== '.gltf') throw bad('LEVEL', levelVar, 'give a .glb or .gltf file, e.g. LEVEL=server/assets/bistro-collision.glb');
    let st;
    try {
      st = statSync(level);
    } catch {
      throw bad('LEVEL', levelVar, `no such file (${level}); give ${ENV_HELP.LEVEL}`);
    }
    if (!st.isFile()) throw bad('LEVEL', levelVar, 'that is a directory; give a .glb or .gltf file');
  }
  const spawnVar = get(env, 'SPAWN_POINTS');
  const spawnPoints = spawnVar === undefined ? undefined : parseSpawnPoints(spawnVar);
  const maxPlayersVar = get(env, 'MAX_PLAYERS');
  const maxPlayers = maxPlayersVar === undefined ? undefined : int(env, 'MAX_PLAYERS', MAX_PLAYERS_RANGE, 16);
  const loadoutVar = get(env, 'LOADOUT');
  const loadout = loadoutVar === undefined ? undefined : parseLoadout(loadoutVar);

  let matchLogDir: string | false = resolve('matches');
  const dirVar = get(env, 'MATCH_LOG_DIR');
  if (dirVar !== undefined) matchLogDir = dirVar.toLowerCase() === 'off' ? false : resolve(dirVar);
  if (matchLogDir !== false) {
    try {
      mkdirSync(matchLogDir, { recursive: true });
      accessSync(matchLogDir, constants.W_OK);
    } catch (e) {
      throw new ConfigError(`MATCH_LOG_DIR=${JSON.stringify(dirVar ?? 'matches')} cannot be used (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give a writable directory, or MATCH_LOG_DIR=off for no match logs`);
    }
  }

  const statusIntervalMs = int(env, 'STATUS_INTERVAL_MS', { lo: 0, hi: 3_600_000 }, 5000);
  const fmt = get(env, 'LOG_FORMAT');
  if (fmt !== undefined && fmt !== 'text' && fmt !== 'json') throw bad('LOG_FORMAT', fmt, 'give "text" or "json"');
  const logFormat: LogFormat = (fmt as LogFormat | undefined) ?? (isTty ? 'text' : 'json');
  const lvl = get(env, 'LOG_LEVEL');
  if (lvl !== undefined && !(LOG_LEVELS as readonly string[]).includes(lvl)) throw bad('LOG_LEVEL', lvl, `give one of ${LOG_LEVELS.join(', ')}`);

  const limits: LimitOptions = {
    maxRooms: int(env, 'MAX_ROOMS', L.maxRooms, D.maxRooms),
    roomCreateBurst: int(env, 'ROOM_CREATE_BURST', L.roomCreateBurst, D.roomCreateBurst),
    roomCreatePerMinute: int(env, 'ROOM_CREATE_PER_MINUTE', L.roomCreatePerMinute, D.roomCreatePerMinute),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', L.maxBodyBytes, D.maxBodyBytes),
    seatReservationSeconds: int(env, 'SEAT_RESERVATION_SECONDS', L.seatReservationSeconds, D.seatReservationSeconds),
    trustProxy: onOff(env, 'TRUST_PROXY', D.trustProxy),
    hostileLogPerMinute: int(env, 'HOSTILE_LOG_PER_MINUTE', L.hostileLogPerMinute, D.hostileLogPerMinute),
    stallMaxBytes: int(env, 'STALL_MAX_BYTES', L.stallMaxBytes, D.stallMaxBytes),
    stallMaxMs: int(env, 'STALL_MAX_MS', L.stallMaxMs, D.stallMaxMs),
  };

  // -1: unset, FogFilter's own default applies.
  const fogMaxRays = int(env, 'FOG_MAX_RAYS', FOG_MAX_RAYS_RANGE, -1);
  return {
    port, host, tickRate, level, spawnPoints, maxPlayers, loadout, matchLogDir, statusIntervalMs, logFormat,
    logLevel: (lvl as LogLevel | undefined) ?? 'info',
    metrics: onOff(env, 'METRICS', true),
    debugVerdicts: onOff(env, 'DEBUG_VERDICTS', false),
    fog: onOff(env, 'FOG', true) ? 'on' : 'off',
    fogMaxRays: fogMaxRays < 0 ? undefined : fogMaxRays,
    monitorPassword: monitorPassword(env),
    limits,
    auth: readAuthEnv(env),
    ...readScaleEnv(env),
    auditQueue: readAuditQueueEnv(env),
    evidenceStore: readEvidenceStoreEnv(env),
  };
}

function readEvidenceStoreEnv(env: NodeJS.ProcessEnv): string | null {
  const v = get(env, 'EVIDENCE_STORE');
  if (v === undefined || ['off', '0', 'false', 'no'].includes(v.toLowerCase())) return null;
  if (get(env, 'MONITOR_PASSWORD') === undefined) throw new ConfigError('EVIDENCE_STORE is set but MONITOR_PASSWORD is not: the review page at /review/ is behind the monitor\'s password; set MONITOR_PASSWORD too');
  if (['on', '1', 'true', 'yes'].includes(v.toLowerCase())) {
    const url = get(env, 'DATABASE_URL');
    return url ?? resolve('evidence.sqlite');
  }
  if (/^postgres(ql)?:\/\//i.test(v)) return v;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) throw bad('EVIDENCE_STORE', v.replace(/:[^:@/]*@/, ':***@'), `give ${ENV_HELP.EVIDENCE_STORE}`);
  const file = resolve(v);
  if (statOrNull(file)?.isDirectory() === true) throw bad('EVIDENCE_STORE', v, 'that is a directory; give a SQLite file (created when missing)');
  return file;
}

function statOrNull(path: string): { isDirectory(): boolean } | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function readAuditQueueEnv(env: NodeJS.ProcessEnv): ServerEnv['auditQueue'] {
  const v = get(env, 'AUDIT_QUEUE');
  const prefix = get(env, 'AUDIT_QUEUE_PREFIX');
  const off = v === undefined || ['off', '0', 'false', 'no'].includes(v.toLowerCase());
  if (off) {
    if (prefix !== undefined) throw new ConfigError('AUDIT_QUEUE_PREFIX is set but AUDIT_QUEUE is off: set AUDIT_QUEUE=on (or a redis:// URL) to put match logs on the audit queue');
    return null;
  }
  let url = v;
  if (['on', '1', 'true', 'yes'].includes(v.toLowerCase())) url = get(env, 'REDIS_URL') ?? 'redis://127.0.0.1:6379';
  const badUrl = checkRedisUrl(url);
  if (badUrl !== null) throw bad('AUDIT_QUEUE', v.replace(/:[^:@/]*@/, ':***@'), `${badUrl}; or give ${ENV_HELP.AUDIT_QUEUE}`);
  if (prefix !== undefined && !/^[A-Za-z0-9_.-]{1,64}$/.test(prefix)) throw bad('AUDIT_QUEUE_PREFIX', prefix, 'use 1..64 characters of A-Z a-z 0-9 _ . -');
  return { url, prefix: prefix ?? 'hitreg-audit' };
}

function readScaleEnv(env: NodeJS.ProcessEnv): Pick<ServerEnv, 'redis' | 'publicAddress'> {
  const url = get(env, 'REDIS_URL');
  const prefix = get(env, 'REDIS_KEY_PREFIX');
  const publicAddress = get(env, 'PUBLIC_ADDRESS');
  if (url === undefined) {
    if (publicAddress !== undefined || prefix !== undefined) throw new ConfigError('PUBLIC_ADDRESS/REDIS_KEY_PREFIX are set but REDIS_URL is not: a process without Redis matchmakes alone; set REDIS_URL=redis://host:port to join others');
    return { redis: null, publicAddress: undefined };
  }
  const badUrl = checkRedisUrl(url);
  if (badUrl !== null) throw bad('REDIS_URL', url.replace(/:[^:@/]*@/, ':***@'), badUrl);
  if (prefix !== undefined && checkKeyPrefix(prefix) !== null) throw bad('REDIS_KEY_PREFIX', prefix, checkKeyPrefix(prefix)!);
  if (publicAddress !== undefined && checkPublicAddress(publicAddress) !== null) throw bad('PUBLIC_ADDRESS', publicAddress, checkPublicAddress(publicAddress)!);
  return { redis: { url, keyPrefix: prefix ?? DEFAULT_REDIS_KEY_PREFIX }, publicAddress };
}

function monitorPassword(env: NodeJS.ProcessEnv): string | null {
  const pw = get(env, 'MONITOR_PASSWORD');
  if (pw === undefined) return null;
  if (pw.length < MONITOR_PASSWORD_MIN_LENGTH) throw new ConfigError(`MONITOR_PASSWORD is shorter than ${MONITOR_PASSWORD_MIN_LENGTH} characters: use a longer password (the monitor can dispose rooms)`);
  return pw;
}

function readAuthEnv(env: NodeJS.ProcessEnv): AuthEnv | null {
  const secret = get(env, 'AUTH_JWT_SECRET');
  const keyPath = get(env, 'AUTH_JWT_PUBLIC_KEY');
  const issuer = get(env, 'AUTH_JWT_ISSUER');
  const audience = get(env, 'AUTH_JWT_AUDIENCE');
  if (secret === undefined && keyPath === undefined) {
    if (issuer !== undefined || audience !== undefined) throw new ConfigError('AUTH_JWT_ISSUER/AUTH_JWT_AUDIENCE are set but auth is off: also set AUTH_JWT_SECRET or AUTH_JWT_PUBLIC_KEY');
    return null;
  }
  if (secret !== undefined && keyPath !== undefined) throw new ConfigError('AUTH_JWT_SECRET and AUTH_JWT_PUBLIC_KEY are both set: use one (HS256 secret or EdDSA public key)');
  if (secret !== undefined && Buffer.byteLength(secret) < HS256_SECRET_MIN_BYTES) throw new ConfigError(`AUTH_JWT_SECRET is shorter than ${HS256_SECRET_MIN_BYTES} bytes: use a random secret of at least ${HS256_SECRET_MIN_BYTES} characters (e.g. \`openssl rand -base64 48\`)`);
  let publicKeyPem: string | undefined;
  if (keyPath !== undefined) {
    try {
      publicKeyPem = readFileSync(resolve(keyPath), 'utf8');
    } catch (e) {
      throw new ConfigError(`AUTH_JWT_PUBLIC_KEY=${JSON.stringify(keyPath)} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give the path of a PEM Ed25519 public key`);
    }
    if (!publicKeyPem.includes('BEGIN PUBLIC KEY')) throw new ConfigError(`AUTH_JWT_PUBLIC_KEY=${JSON.stringify(keyPath)} is not a PEM public key ("-----BEGIN PUBLIC KEY-----")`);
  }
  return { secret, publicKeyPem, issuer, audience };
}

/** For createGameServer: the options that follow from the environment. */
export function gameServerOptionsFrom(e: ServerEnv): GameServerOptions {
  return {
    port: e.port,
    host: e.host,
    tickRate: e.tickRate,
    ...(e.level !== undefined ? { level: e.level } : {}),
    ...(e.spawnPoints !== undefined ? { spawnPoints: e.spawnPoints } : {}),
    ...(e.maxPlayers !== undefined ? { maxPlayers: e.maxPlayers } : {}),
    ...(e.loadout !== undefined ? { loadout: e.loadout } : {}),
    matchLogDir: e.matchLogDir,
    statusIntervalMs: e.statusIntervalMs,
    limits: e.limits,
    metrics: e.metrics,
    debugVerdicts: e.debugVerdicts,
    fog: e.fog,
    ...(e.fogMaxRays !== undefined ? { fogConfig: { maxRaysPerUpdate: e.fogMaxRays === 0 ? Infinity : e.fogMaxRays } } : {}),
    monitor: e.monitorPassword !== null ? { password: e.monitorPassword } : false,
    redis: e.redis,
    auditQueue: e.auditQueue,
    evidence: e.evidenceStore !== null ? { store: e.evidenceStore } : null,
    ...(e.publicAddress !== undefined ? { publicAddress: e.publicAddress } : {}),
  };
}
