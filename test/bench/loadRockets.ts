/**
 * The load test's count of what its rocket players (lightRockets.ts) did in a window: launches the
 * servers accepted (verdict OK_LAUNCH) and refused (by reason), the projectile ends the rooms told of
 * (each once), how each ended, their mean flight (the end's server time less the launch's claimed
 * time) and the kills they made.
 */
import { FlightEventKind } from '../../shared/projectile/flight';
import type { HeardEnd, RocketPlayer } from './lightRockets';

export interface LaunchCount {
  launches: number;
  /** Launches refused, by verdict reason. */
  refused: Record<string, number>;
  ends: number;
  /** Ends by FlightEventKind name (PLAYER, LEVEL, FUSE, EXPIRED). */
  endsByKind: Record<string, number>;
  /** Over the ends whose launch a rocket player sent; NaN when there is none. */
  flightMsMean: number;
  kills: number;
}

const KIND_NAMES: Record<number, string> = Object.fromEntries(Object.entries(FlightEventKind).map(([k, v]) => [v, k]));

/** Launches sent and ends heard within local ms [t0, t1). */
export function countLaunches(players: readonly RocketPlayer[], ends: ReadonlyMap<string, HeardEnd>, t0: number, t1: number): LaunchCount {
  let launches = 0;
  const refused: Record<string, number> = {};
  for (const p of players) {
    for (const l of p.launches.values()) {
      if (l.sentAt < t0 || l.sentAt >= t1 || l.reason === null) continue;
      if (l.reason === 'OK_LAUNCH') launches++;
      else refused[l.reason] = (refused[l.reason] ?? 0) + 1;
    }
  }
  const shooters = new Map<string, RocketPlayer>();
  for (const p of players) shooters.set(`${p.roomId}:${p.slot()}`, p);
  const endsByKind: Record<string, number> = {};
  let count = 0, kills = 0, flightSum = 0, flights = 0;
  for (const h of ends.values()) {
    if (h.atMs < t0 || h.atMs >= t1) continue;
    count++;
    const kind = KIND_NAMES[h.end.kind] ?? String(h.end.kind);
    endsByKind[kind] = (endsByKind[kind] ?? 0) + 1;
    for (const v of h.end.victims) if (v.killed) kills++;
    const launch = shooters.get(`${h.roomId}:${h.end.shooter}`)?.launches.get(h.end.seq);
    if (launch !== undefined) {
      flightSum += h.end.timeMs - launch.timeMs;
      flights++;
    }
  }
  return { launches, refused, ends: count, endsByKind, flightMsMean: flights > 0 ? flightSum / flights : Number.NaN, kills };
}
