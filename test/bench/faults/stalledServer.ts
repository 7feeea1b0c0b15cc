/**
 * The game server of the stalled-clients scenario (stalledClients.ts), run as a child process
 * (`node --import tsx`) so that its memory is its own: what `npm start` runs (the environment read
 * and checked by server/ops/env.ts, createGameServer, reports to its parent over IPC as under a
 * supervisor: server/ops/supervised.ts, with the process's RSS) whose rooms also send every client
 * FILLER_KBPS kilobytes a second of filler bytes (and whose kept slots last RECONNECT_SECONDS when set) (message type "filler", one broadcast per room every
 * 20 ms). Why: on loopback the kernel takes ~4 MB per connection before anything stays in the server
 * process, and the arena's own stream (10-40 KB/s a player) would take minutes to fill that.
 * Prints one JSON line `{"msg":"listening","url":...,"port":...}`; exits when its parent goes. Run
 * with --expose-gc, a `{ type: 'gc' }` message from the parent runs a full garbage collection (what
 * the heap still holds then is held, not garbage waiting).
 */
import { createGameServer, type GameServer } from '../../../server/index';
import { gameServerOptionsFrom, readServerEnv } from '../../../server/ops/env';
import { createLogger } from '../../../server/ops/log';
import { answerSupervisor } from '../../../server/ops/supervised';

const FILLER = 'filler';
const PERIOD_MS = 20;

const env = readServerEnv(process.env, false);
const logger = createLogger({ format: 'json', level: env.logLevel });
let game: GameServer | undefined;
answerSupervisor(() => game, () => process.exit(0));
process.on('message', (m: { type?: string }) => {
  if (m?.type === 'gc') (globalThis as { gc?: () => void }).gc?.();
});
const reconnectSeconds = process.env.RECONNECT_SECONDS === undefined ? undefined : Number(process.env.RECONNECT_SECONDS);
game = await createGameServer({ ...gameServerOptionsFrom(env), statusIntervalMs: 0, logger, ...(reconnectSeconds !== undefined ? { reconnectSeconds } : {}) });
const g = game;
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: g.url, port: g.port, pid: process.pid })}\n`);

const kbps = Number(process.env.FILLER_KBPS ?? '0');
if (kbps > 0) {
  const chunk = new Uint8Array(Math.max(1, Math.round((kbps * 1024 * PERIOD_MS) / 1000)));
  setInterval(() => {
    for (const room of g.rooms.values()) room.broadcastBytes(FILLER, chunk, {});
  }, PERIOD_MS);
}
