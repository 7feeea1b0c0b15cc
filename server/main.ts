/**
 * `npm start`: one process, in-memory defaults, the default level. Prints the address and a status
 * line every few seconds. From the environment: PORT (default 2567), HOST (default 0.0.0.0, every
 * interface; HOST=127.0.0.1 for this machine only), TICK_RATE (default 64, 128 allowed),
 * LEVEL (a .glb path; default server/assets/collision-world.glb), MATCH_LOG_DIR (default matches/) and
 * RIG (default "mannequin"; a rig file or a character .glb, see server/rig/rigFile.ts).
 */
import { createGameServer } from './index';
import { rigFromEnv } from './rig/rigFile';

const port = Number(process.env.PORT ?? 2567);
const tickRate = Number(process.env.TICK_RATE ?? 64);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT=${process.env.PORT} is not a port number; use e.g. PORT=2567`);
  process.exit(1);
}
const game = await createGameServer({
  port,
  tickRate,
  rig: await rigFromEnv(process.env).catch((e: Error) => { console.error(e.message); process.exit(1); }),
  statusIntervalMs: 5000,
  ...(process.env.HOST ? { host: process.env.HOST } : {}),
  ...(process.env.LEVEL ? { level: process.env.LEVEL } : {}),
});
console.log(`[arena] listening on ${game.url} (room "arena", ${game.config.tickRate} Hz, level ${game.config.levelPath}, world ${game.world.hash}, rig ${game.rig.hash})`);
// Colyseus installs its own SIGINT/SIGTERM handlers (graceful shutdown, then exit).
