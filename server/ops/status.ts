/**
 * The one-line status of a game server (`[arena] rooms ... ticks/s ... shots/s ...`), printed every
 * few seconds by `npm start` and by createGameServer's `statusIntervalMs`. Each line's shot rate
 * is over the time since the previous line.
 */
import { totalRejects, type ServerStats } from '../arena/stats';
import type { ArenaRoom } from '../arena/room';

export function statusLineFor(stats: ServerStats, rooms: ReadonlyMap<string, ArenaRoom>, tickRate: number): () => string {
  let lastShots = 0;
  let lastAt = performance.now();
  return () => {
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
}
