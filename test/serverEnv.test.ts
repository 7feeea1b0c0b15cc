/**
 * The environment `npm start` reads (server/ops/env.ts): defaults, every variable's accepted forms,
 * and for each wrong value one line (a ConfigError) naming the variable, what was given and what to
 * give. test/serverProcess.test.ts checks that such a line is all a real process prints.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, gameServerOptionsFrom, parseSpawnPoints, readServerEnv } from '../server/ops/env';

const tmp = mkdtempSync(join(tmpdir(), 'hitreg-env-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const level = join(tmp, 'level.glb');
writeFileSync(level, 'a level');
const keyPath = join(tmp, 'key.pem');
writeFileSync(keyPath, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());

const base = { MATCH_LOG_DIR: 'off' };

function refusal(env: Record<string, string>): string {
  try {
    readServerEnv({ ...base, ...env });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const msg = (e as Error).message;
    expect(msg).not.toMatch(/\n/);
    return msg;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('readServerEnv', () => {
  it('defaults', () => {
    const e = readServerEnv({ MATCH_LOG_DIR: join(tmp, 'logs') });
    expect(e).toMatchObject({ port: 2567, host: '0.0.0.0', tickRate: 64, level: undefined, spawnPoints: undefined, statusIntervalMs: 5000, logFormat: 'json', logLevel: 'info', metrics: true, monitorPassword: null, auth: null });
    expect(e.limits).toEqual({ maxRooms: 64, roomCreateBurst: 10, roomCreatePerMinute: 30, maxBodyBytes: 16384, seatReservationSeconds: 15, trustProxy: false, hostileLogPerMinute: 20, stallMaxBytes: 65536, stallMaxMs: 5000 });
    expect(readServerEnv(base, true).logFormat).toBe('text');
    expect(gameServerOptionsFrom(e)).toMatchObject({ port: 2567, tickRate: 64, matchLogDir: join(tmp, 'logs'), metrics: true, monitor: false, fog: 'on' });
  });

  it('FOG turns the fog of war off (on by default), and refuses anything but on or off', () => {
    expect(gameServerOptionsFrom(readServerEnv({ ...base, FOG: 'off' })).fog).toBe('off');
    expect(readServerEnv({ ...base, FOG: 'on' }).fog).toBe('on');
    expect(() => readServerEnv({ ...base, FOG: 'some' })).toThrow(/^FOG="some" is not valid: give "on" or "off"$/);
  });

  it('FOG_MAX_RAYS caps a fog update\'s rays (0: no cap; unset: the FogFilter default), and refuses anything but an integer', () => {
    expect(readServerEnv(base).fogMaxRays).toBeUndefined();
    expect(gameServerOptionsFrom(readServerEnv(base)).fogConfig).toBeUndefined();
    expect(gameServerOptionsFrom(readServerEnv({ ...base, FOG_MAX_RAYS: '5000' })).fogConfig).toEqual({ maxRaysPerUpdate: 5000 });
    expect(gameServerOptionsFrom(readServerEnv({ ...base, FOG_MAX_RAYS: '0' })).fogConfig).toEqual({ maxRaysPerUpdate: Infinity });
    for (const bad of ['-1', '1.5', 'lots', '1e4', '100000001']) {
      expect(() => readServerEnv({ ...base, FOG_MAX_RAYS: bad })).toThrow(new RegExp(`^FOG_MAX_RAYS="${bad.replace('.', '\\.')}" is not valid: give rays after which a fog update tests no more pairs, an integer 0\\.\\.100000000, 0 = no cap; .*\\(default 12000\\)$`));
    }
  });

  it('accepted values', () => {
    const e = readServerEnv({
      ...base, PORT: '0', HOST: '127.0.0.1', TICK_RATE: '128', LEVEL: level, SPAWN_POINTS: '0,0,0; 1,2,3,-1,0', STATUS_INTERVAL_MS: '0',
      LOG_FORMAT: 'text', LOG_LEVEL: 'debug', METRICS: 'off', MONITOR_PASSWORD: 'twelve-chars!', MAX_ROOMS: '3', ROOM_CREATE_BURST: '2',
      ROOM_CREATE_PER_MINUTE: '0', MAX_BODY_BYTES: '4096', SEAT_RESERVATION_SECONDS: '5', TRUST_PROXY: 'on', HOSTILE_LOG_PER_MINUTE: '0',
      STALL_MAX_BYTES: '1048576', STALL_MAX_MS: '0', AUTH_JWT_SECRET: 'x'.repeat(32), AUTH_JWT_ISSUER: 'me', AUTH_JWT_AUDIENCE: 'game',
    });
    expect(e).toMatchObject({ port: 0, host: '127.0.0.1', tickRate: 128, level, matchLogDir: false, statusIntervalMs: 0, logFormat: 'text', logLevel: 'debug', metrics: false, monitorPassword: 'twelve-chars!' });
    expect(e.spawnPoints).toEqual([{ x: 0, y: 0, z: 0, dirX: 0, dirZ: 1 }, { x: 1, y: 2, z: 3, dirX: -1, dirZ: 0 }]);
    expect(e.limits).toEqual({ maxRooms: 3, roomCreateBurst: 2, roomCreatePerMinute: 0, maxBodyBytes: 4096, seatReservationSeconds: 5, trustProxy: true, hostileLogPerMinute: 0, stallMaxBytes: 1048576, stallMaxMs: 0 });
    expect(e.auth).toEqual({ secret: 'x'.repeat(32), publicKeyPem: undefined, issuer: 'me', audience: 'game' });
    expect(readServerEnv({ ...base, HOST: 'game.example.com' }).host).toBe('game.example.com');
    // Room size and loadout: unset leaves the server's defaults; names and ids mix, in the order given.
    expect(readServerEnv(base)).toMatchObject({ maxPlayers: undefined, loadout: undefined });
    expect(gameServerOptionsFrom(readServerEnv(base))).not.toHaveProperty('loadout');
    const rockets = readServerEnv({ ...base, MAX_PLAYERS: '32', LOADOUT: 'Rocket, rifle,6' });
    expect(rockets).toMatchObject({ maxPlayers: 32, loadout: [5, 0, 6] });
    expect(gameServerOptionsFrom(rockets)).toMatchObject({ maxPlayers: 32, loadout: [5, 0, 6] });
    expect(readServerEnv({ ...base, AUTH_JWT_PUBLIC_KEY: keyPath }).auth?.publicKeyPem).toMatch(/BEGIN PUBLIC KEY/);
    // Shared matchmaking: off without REDIS_URL; with it, the prefix defaults and the address is passed on.
    expect(readServerEnv(base)).toMatchObject({ redis: null, publicAddress: undefined });
    const scaled = readServerEnv({ ...base, REDIS_URL: 'redis://10.0.0.2:6379/2', PUBLIC_ADDRESS: 'game1.example.com:2567' });
    expect(scaled).toMatchObject({ redis: { url: 'redis://10.0.0.2:6379/2', keyPrefix: 'hitreg:' }, publicAddress: 'game1.example.com:2567' });
    expect(gameServerOptionsFrom(scaled)).toMatchObject({ redis: { url: 'redis://10.0.0.2:6379/2', keyPrefix: 'hitreg:' }, publicAddress: 'game1.example.com:2567' });
    expect(readServerEnv({ ...base, REDIS_URL: 'redis://r:6379', REDIS_KEY_PREFIX: 'game-eu:' }).redis?.keyPrefix).toBe('game-eu:');
    expect(readServerEnv({ ...base, REDIS_URL: 'redis://r:6379', PUBLIC_ADDRESS: 'edge.example.com/game1' }).publicAddress).toBe('edge.example.com/game1');
    // The audit queue: off by default; on takes REDIS_URL (else the local Redis), or a URL of its own.
    expect(readServerEnv(base).auditQueue).toBeNull();
    expect(readServerEnv({ ...base, AUDIT_QUEUE: 'off' }).auditQueue).toBeNull();
    expect(readServerEnv({ ...base, AUDIT_QUEUE: 'on' }).auditQueue).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'hitreg-audit' });
    expect(readServerEnv({ ...base, AUDIT_QUEUE: 'on', REDIS_URL: 'redis://r:6379/1' }).auditQueue).toEqual({ url: 'redis://r:6379/1', prefix: 'hitreg-audit' });
    const queued = readServerEnv({ ...base, AUDIT_QUEUE: 'redis://q:6380', AUDIT_QUEUE_PREFIX: 'eu-1' });
    expect(gameServerOptionsFrom(queued).auditQueue).toEqual({ url: 'redis://q:6380', prefix: 'eu-1' });
  });

  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: '' }, /^PORT is set but empty: unset it for the default, or give TCP port 0\.\.65535/],
    [{ PORT: '70000' }, /^PORT="70000" is not valid: give TCP port/],
    [{ PORT: '80.5' }, /^PORT="80\.5" is not valid/],
    [{ HOST: 'bad host!' }, /^HOST="bad host!" is not valid: give interface to bind.*e\.g\. HOST=127\.0\.0\.1$/],
    [{ TICK_RATE: 'abc' }, /^TICK_RATE="abc" is not valid: give fixed timestep in Hz, an integer 1\.\.128 \(default 64\)$/],
    [{ TICK_RATE: '500' }, /^TICK_RATE="500" is not valid/],
    [{ TICK_RATE: '0' }, /^TICK_RATE="0" is not valid/],
    [{ LEVEL: 'README.md' }, /^LEVEL="README.md" is not valid: give a \.glb or \.gltf file/],
    [{ LEVEL: 'no/such/level.glb' }, /^LEVEL="no\/such\/level.glb" is not valid: no such file/],
    [{ LEVEL: tmp + '/x.glb/' }, /^LEVEL=.* is not valid: give a \.glb or \.gltf file|no such file/],
    [{ SPAWN_POINTS: '1,2' }, /^SPAWN_POINTS="1,2" is not valid: each point is "x,y,z"/],
    [{ SPAWN_POINTS: '0,0,0,0,0' }, /facing direction dirX,dirZ must not be 0,0/],
    [{ SPAWN_POINTS: ';' }, /give at least one point/],
    [{ MATCH_LOG_DIR: 'package.json/logs' }, /^MATCH_LOG_DIR="package.json\/logs" cannot be used \(ENOTDIR\): give a writable directory, or MATCH_LOG_DIR=off for no match logs$/],
    [{ STATUS_INTERVAL_MS: '-1' }, /^STATUS_INTERVAL_MS="-1" is not valid/],
    [{ LOG_FORMAT: 'xml' }, /^LOG_FORMAT="xml" is not valid: give "text" or "json"$/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL="loud" is not valid: give one of fatal, error/],
    [{ METRICS: 'maybe' }, /^METRICS="maybe" is not valid: give "on" or "off"$/],
    [{ MONITOR_PASSWORD: 'pw' }, /^MONITOR_PASSWORD is shorter than 12 characters/],
    [{ MAX_PLAYERS: '0' }, /^MAX_PLAYERS="0" is not valid: give players per room, an integer 1\.\.1024 \(default 16\)$/],
    [{ MAX_PLAYERS: '2000' }, /^MAX_PLAYERS="2000" is not valid/],
    [{ LOADOUT: 'rifle,bazooka' }, /^LOADOUT="rifle,bazooka" is not valid: "bazooka" is no weapon; give weapons every player carries.*5 rocket/],
    [{ LOADOUT: '9' }, /^LOADOUT="9" is not valid: "9" is no weapon/],
    [{ LOADOUT: 'rifle,0' }, /^LOADOUT="rifle,0" is not valid: rifle is named twice/],
    [{ LOADOUT: ',' }, /^LOADOUT="," is not valid: give at least one weapon/],
    [{ MAX_ROOMS: '0' }, /^MAX_ROOMS="0" is not valid: give arena rooms per process/],
    [{ ROOM_CREATE_BURST: 'lots' }, /^ROOM_CREATE_BURST="lots" is not valid/],
    [{ ROOM_CREATE_PER_MINUTE: '1e3' }, /^ROOM_CREATE_PER_MINUTE="1e3" is not valid/],
    [{ MAX_BODY_BYTES: '10' }, /^MAX_BODY_BYTES="10" is not valid: give largest HTTP request body in bytes, 256\.\.1048576/],
    [{ SEAT_RESERVATION_SECONDS: '0' }, /^SEAT_RESERVATION_SECONDS="0" is not valid/],
    [{ TRUST_PROXY: 'yes please' }, /^TRUST_PROXY="yes please" is not valid: give "on" or "off"$/],
    [{ HOSTILE_LOG_PER_MINUTE: '-5' }, /^HOSTILE_LOG_PER_MINUTE="-5" is not valid/],
    [{ STALL_MAX_BYTES: '512' }, /^STALL_MAX_BYTES="512" is not valid: give unsent bytes a client that does not read may hold indefinitely, 1024\.\.1073741824 \(default 65536\)$/],
    [{ STALL_MAX_MS: '5s' }, /^STALL_MAX_MS="5s" is not valid: give ms a client may hold more than STALL_MAX_BYTES unsent/],
    [{ AUTH_JWT_SECRET: 'short' }, /^AUTH_JWT_SECRET is shorter than 32 bytes/],
    [{ AUTH_JWT_SECRET: 'x'.repeat(32), AUTH_JWT_PUBLIC_KEY: keyPath }, /both set: use one/],
    [{ AUTH_JWT_PUBLIC_KEY: join(tmp, 'nope.pem') }, /^AUTH_JWT_PUBLIC_KEY=".*nope\.pem" cannot be read \(ENOENT\)/],
    [{ AUTH_JWT_PUBLIC_KEY: level }, /is not a PEM public key/],
    [{ AUTH_JWT_ISSUER: 'me' }, /auth is off: also set AUTH_JWT_SECRET or AUTH_JWT_PUBLIC_KEY/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /^REDIS_URL="http:\/\/127\.0\.0\.1:6379" is not valid: scheme http: is not redis: or rediss:/],
    [{ REDIS_URL: 'redis://127.0.0.1:6379/db' }, /^REDIS_URL=.* is not valid: path \/db is not a database number/],
    [{ REDIS_URL: 'not a url' }, /^REDIS_URL="not a url" is not valid: not a URL; give redis:\/\/host:port/],
    [{ REDIS_URL: 'redis://:secret@127.0.0.1:6379/x' }, /^REDIS_URL="redis:\/\/:\*\*\*@127\.0\.0\.1:6379\/x" is not valid/],
    [{ REDIS_URL: 'redis://127.0.0.1', REDIS_KEY_PREFIX: 'a b' }, /^REDIS_KEY_PREFIX="a b" is not valid: use 1\.\.64 characters/],
    [{ REDIS_URL: 'redis://127.0.0.1', PUBLIC_ADDRESS: 'ws://game1:2567' }, /^PUBLIC_ADDRESS="ws:\/\/game1:2567" is not valid: give it without a scheme/],
    [{ REDIS_URL: 'redis://127.0.0.1', PUBLIC_ADDRESS: 'game 1:2567' }, /^PUBLIC_ADDRESS="game 1:2567" is not valid: give host:port/],
    [{ PUBLIC_ADDRESS: 'game1:2567' }, /^PUBLIC_ADDRESS\/REDIS_KEY_PREFIX are set but REDIS_URL is not/],
    [{ AUDIT_QUEUE: 'maybe' }, /^AUDIT_QUEUE="maybe" is not valid: not a URL.*"off" \(default\), "on"/],
    [{ AUDIT_QUEUE: 'on', AUDIT_QUEUE_PREFIX: 'a:b' }, /^AUDIT_QUEUE_PREFIX="a:b" is not valid: use 1\.\.64 characters/],
    [{ AUDIT_QUEUE_PREFIX: 'eu-1' }, /^AUDIT_QUEUE_PREFIX is set but AUDIT_QUEUE is off/],
  ];
  for (const [env, re] of cases) {
    it(`refuses ${JSON.stringify(env).slice(0, 80)}`, () => {
      expect(refusal(env)).toMatch(re);
    });
  }

  it('spawn points: separators and spaces are forgiving, numbers are not', () => {
    expect(parseSpawnPoints('1,2,3;')).toHaveLength(1);
    expect(() => parseSpawnPoints('1,2,NaN')).toThrow(ConfigError);
    expect(() => parseSpawnPoints('1,2,1e9')).toThrow(ConfigError);
    expect(() => parseSpawnPoints(Array.from({ length: 257 }, () => '0,0,0').join(';'))).toThrow(/at most 256/);
  });
});
