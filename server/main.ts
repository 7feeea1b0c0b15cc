/**
 * `npm start`: one game server process (see docs/operations.md). Reads and checks the
 * environment (server/ops/env.ts: every variable, one line on a bad value), prints the address and
 * a status line every few seconds, and logs through pino (text on a terminal, JSON otherwise).
 *
 * Exit codes: 0 after SIGTERM, SIGINT or SIGHUP once every room is finished (match logs ended and
 * flushed, at most ~4.5 s); 1 when it cannot start (bad environment, unreadable level, port in
 * use, Node older than 22, REDIS_URL set and no Redis answering) or after an uncaught exception
 * (rooms are finished first). A second signal exits at once with 1 (the same signal again within
 * a second is the same request: npm forwards the terminal's Ctrl-C that the server also receives). An unhandled promise rejection
 * is logged and the server goes on. With REDIS_URL the process shares matchmaking with every other
 * process on that Redis (server/ops/scale.ts).
 */
import './ops/nodeVersion';
import { createGameServer, type GameServer } from './index';
import { ConfigError, gameServerOptionsFrom, readServerEnv, type ServerEnv } from './ops/env';
import { createLogger, firstLine } from './ops/log';
import { verifierFromEnv } from './ops/auth';
import { answerSupervisor } from './ops/supervised';
import { rigFromEnv } from './rig/rigFile';
import { redisDisplay } from './ops/scale';

/** How long a signal-triggered shutdown may take before the process gives up on it. */
const SHUTDOWN_DEADLINE_MS = 4500;

function die(message: string): never {
  process.stderr.write(`hitreg: ${message}\n`);
  process.exit(1);
}

let env: ServerEnv;
try {
  env = readServerEnv(process.env, process.stdout.isTTY === true);
} catch (e) {
  die(e instanceof ConfigError ? e.message : firstLine(e));
}

const logger = createLogger({ format: env.logFormat, level: env.logLevel });
let game: GameServer | undefined;

/**
 * A repeat of the first signal within this long is the same request: one Ctrl-C under `npm start`
 * reaches the server twice (from the terminal to the whole process group, and forwarded by npm).
 */
const SAME_SIGNAL_MS = 1000;
let stopping = false;
let stoppedBy = '';
let stoppingAt = 0;
let failedWhileStopping = false;
function shutdown(reason: string, code: number): void {
  if (stopping) {
    if (reason === stoppedBy && performance.now() - stoppingAt < SAME_SIGNAL_MS) return;
    logger.warn({ reason }, 'second signal: exiting without finishing rooms');
    process.exit(1);
  }
  stopping = true;
  stoppedBy = reason;
  stoppingAt = performance.now();
  const g = game;
  if (g === undefined) {
    // A signal during start: nothing runs yet, nothing to finish.
    logger.info({ reason }, 'stopped before listening');
    process.exit(code);
  }
  logger.info({ reason, rooms: g.rooms.size, players: g.stats.players }, 'shutting down');
  const deadline = setTimeout(() => {
    logger.error({ rooms: g.rooms.size }, `shutdown took over ${SHUTDOWN_DEADLINE_MS} ms; exiting`);
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  g.close().then(
    () => {
      const t = g.matchLogTotals();
      const lost = t.unwrittenBytes > 0 || t.writeFailures > 0 ? { matchLogUnwrittenBytes: t.unwrittenBytes, matchLogWriteFailures: t.writeFailures, matchLogDroppedRecords: t.droppedRecords } : {};
      logger.info({ matchLogBytes: t.bytes, ...lost }, 'stopped');
      process.exit(failedWhileStopping ? 1 : code);
    },
    (e: unknown) => {
      logger.error({ err: firstLine(e) }, 'shutdown failed');
      process.exit(1);
    },
  );
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal, 0));
// An exception nobody caught leaves the process in an unknown state: finish the rooms and exit 1
// (during a shutdown already under way, that shutdown goes on and its exit code becomes 1).
process.on('uncaughtException', (e) => {
  logger.fatal({ err: e }, 'uncaught exception');
  if (stopping) failedWhileStopping = true;
  else shutdown('uncaughtException', 1);
});
// A promise rejected with no handler (a library's or a room's) is logged; the matches go on.
process.on('unhandledRejection', (e) => {
  logger.error({ err: e }, 'unhandled promise rejection');
});
// Under a supervisor (npm run cluster): its reports, and a stop when the supervisor goes away,
// also while the server is still starting.
answerSupervisor(() => game, () => shutdown('supervisor gone', 0));

let started: GameServer;
try {
  // RIG (server/rig/rigFile.ts): the mannequin, a rig file or a character built into a rig now.
  const rig = await rigFromEnv(process.env);
  started = await createGameServer({ ...gameServerOptionsFrom(env), statusIntervalMs: 0, logger, rig, auth: verifierFromEnv(env.auth) });
} catch (e) {
  die(firstLine(e));
}
game = started;

const c = started.config;
logger.info({
  url: started.url, room: 'arena', tickRate: c.tickRate, level: c.levelPath, worldHash: started.world.hash, rigHash: started.rig.hash,
  spawnPoints: c.spawnPoints.length, fog: c.fog, auth: env.auth !== null, metrics: env.metrics, node: process.version,
  port: started.port, processId: started.processId, redis: started.redis, publicAddress: started.publicAddress,
  auditQueue: env.auditQueue !== null ? `${redisDisplay(env.auditQueue.url)} (${env.auditQueue.prefix})` : null,
  review: started.review !== null ? started.review.store : null,
  text: `[arena] listening on ${started.url} (room "arena", ${c.tickRate} Hz, level ${c.levelPath}, world ${started.world.hash}, rig ${started.rig.hash}, Node ${process.version}${env.auth !== null ? ', auth on' : ''}${env.metrics ? `, metrics http://${started.url.slice(5)}/metrics` : ''}${started.webPage ? `, play at http://${started.url.slice(5)}/` : ''}${c.fog === 'off' ? ', fog of war off' : ''}${env.debugVerdicts ? ', debug verdicts allowed' : ''}${started.redis !== null ? `, matchmaking shared through ${started.redis} as process ${started.processId} at ${started.publicAddress}` : ''}${env.auditQueue !== null ? `, match logs onto the audit queue at ${redisDisplay(env.auditQueue.url)} (${env.auditQueue.prefix})` : ''}${started.review !== null ? `, review page http://${started.url.slice(5)}/review/ over ${started.review.store}` : ''})`,
}, 'listening');

if (env.statusIntervalMs > 0) {
  setInterval(() => {
    const s = started.stats;
    logger.info({ text: started.statusLine(), rooms: s.rooms, players: s.players, shots: s.shots, hits: s.hits, misses: s.misses, kills: s.kills }, 'status');
  }, env.statusIntervalMs).unref();
}
