/**
 * A game server started by a supervisor with an IPC channel (server/cluster/supervisor.ts: `npm run
 * cluster`, the load and fault tests) answers its `report` requests with what the supervisor
 * cannot see from outside: the exact tick times since the last report, each room's tick count, the
 * process's CPU time and memory, joins and verdicts; and `profile-start` / `profile-stop` (with a path) take a
 * V8 CPU profile of just the window between them (node:inspector), written as a .cpuprofile file.
 * A process started without IPC (npm start by an operator) answers nothing.
 *
 * Set up first thing, before the server starts: a supervisor that goes away while the server is
 * still starting stops it too (`onGone`), and reports asked for before it listens go unanswered.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { GameServer } from '../options';

export interface ProcessReport {
  type: 'report';
  id: number;
  pid: number;
  processId: string;
  publicAddress: string | null;
  /** performance.now() of this process when the report was made (differences only). */
  atMs: number;
  /** process.cpuUsage(), µs since start. */
  cpuUserUs: number;
  cpuSystemUs: number;
  /** process.memoryUsage(): resident set and V8 heap in use, bytes. */
  rssBytes: number;
  heapUsedBytes: number;
  rooms: { roomId: string; ticks: number; players: number }[];
  players: number;
  joins: number;
  /** Shots judged since start (every verdict kind). */
  shots: number;
  internalErrors: number;
  /** Every tick's wall time since the previous report, ms. */
  tickMs: number[];
  ticksLost: number;
}

/**
 * `game()` is the running server (undefined while it starts); `onGone` runs when the supervisor's
 * channel closes (it stopped or was killed), at once when it has closed already.
 */
export function answerSupervisor(game: () => GameServer | undefined, onGone: () => void): void {
  if (typeof process.send !== 'function') return;
  if (!process.connected) {
    onGone();
    return;
  }
  let last = 0;
  let session: Session | null = null;
  process.on('message', (m: { type?: string; id?: number; path?: string }) => {
    if (m?.type === 'profile-start' && session === null) {
      const s = new Session();
      session = s;
      s.connect();
      void s.post('Profiler.enable').then(() => s.post('Profiler.setSamplingInterval', { interval: 500 })).then(() => s.post('Profiler.start'))
        .then(() => process.send!({ type: 'profile-started', id: m.id }));
      return;
    }
    if (m?.type === 'profile-stop' && session !== null && typeof m.path === 'string') {
      const s = session;
      session = null;
      const path = m.path;
      void s.post('Profiler.stop').then(({ profile }) => writeFile(path, JSON.stringify(profile))).finally(() => {
        s.disconnect();
        process.send!({ type: 'profile-stopped', id: m.id, path });
      });
      return;
    }
    const g = game();
    if (m?.type !== 'report' || g === undefined) return;
    const taken = g.tickTimes.take();
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    const rooms = [...g.rooms.values()].map((r) => ({ roomId: r.roomId, ticks: r.tickCount, players: r.clients.length }));
    const report: ProcessReport = {
      type: 'report', id: m.id ?? ++last, pid: process.pid, processId: g.processId, publicAddress: g.publicAddress,
      atMs: performance.now(), cpuUserUs: cpu.user, cpuSystemUs: cpu.system, rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, rooms, players: g.stats.players,
      joins: g.joins(), shots: g.stats.shots, internalErrors: g.stats.internalErrors + g.stats.recorderErrors,
      tickMs: Array.from(taken.ms, (x) => Math.round(x * 1000) / 1000), ticksLost: taken.lost,
    };
    process.send!(report);
  });
  process.once('disconnect', onGone);
  // The IPC channel must not keep a stopping server alive.
  process.channel?.unref();
}
