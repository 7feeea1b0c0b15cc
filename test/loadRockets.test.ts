/**
 * The load test's rocket count (test/bench/loadRockets.ts): only launches sent and ends heard inside
 * the window count, refusals are tallied by reason, a launch without a verdict yet is neither, and
 * each end's flight is matched to its own shooter's launch by room, slot and seq.
 */
import { describe, expect, it } from 'vitest';
import { countLaunches } from './bench/loadRockets';
import type { HeardEnd, RocketPlayer } from './bench/lightRockets';
import type { ProjectileEndReply } from '../shared/protocol/messages';
import { FlightEventKind } from '../shared/projectile/flight';

function player(roomId: string, slot: number, launches: [number, number, number, string | null][]): RocketPlayer {
  return {
    room: undefined as never, roomId, verdicts: {}, rejects: {}, left: null, slot: () => slot,
    launches: new Map(launches.map(([seq, timeMs, sentAt, reason]) => [seq, { timeMs, sentAt, reason }])),
  };
}

function end(roomId: string, shooter: number, seq: number, timeMs: number, atMs: number, kind: number, killed: boolean[]): [string, HeardEnd] {
  const e: ProjectileEndReply = {
    id: seq, shooter, weapon: 5, seq, kind, x: 0, y: 0, z: 0, timeMs, player: -1, exploded: true,
    victims: killed.map((k, i) => ({ slot: 20 + i, damage: 50, killed: k })),
  };
  return [`${roomId}:${shooter}:${seq}`, { roomId, end: e, atMs }];
}

describe('countLaunches', () => {
  // Two rooms whose rocket players share slot 3: ends must find their own room's launch.
  const players = [
    player('a', 3, [[1, 1000, 5, 'OK_LAUNCH'], [2, 2000, 15, 'OK_LAUNCH'], [3, 2500, 16, 'SHOOTER_DEAD'], [4, 3000, 17, null], [5, 4000, 30, 'OK_LAUNCH']]),
    player('b', 3, [[1, 5000, 12, 'OK_LAUNCH'], [2, 6000, 18, 'FIRE_RATE']]),
  ];
  const ends = new Map([
    end('a', 3, 1, 1200, 9, FlightEventKind.PLAYER, [true]), // before the window
    end('a', 3, 2, 2300, 16, FlightEventKind.PLAYER, [true, false]),
    end('b', 3, 1, 5100, 13, FlightEventKind.LEVEL, [true, true]),
    end('a', 7, 9, 9000, 14, FlightEventKind.EXPIRED, []), // a shooter that is no rocket player: counted, no flight
    end('a', 3, 5, 4500, 31, FlightEventKind.LEVEL, []), // after the window
  ]);

  it('counts the window [10, 20) only', () => {
    const c = countLaunches(players, ends, 10, 20);
    expect(c.launches).toBe(2); // a:2 and b:1; a:4 has no verdict yet
    expect(c.refused).toEqual({ SHOOTER_DEAD: 1, FIRE_RATE: 1 });
    expect(c.ends).toBe(3);
    expect(c.endsByKind).toEqual({ PLAYER: 1, LEVEL: 1, EXPIRED: 1 });
    expect(c.kills).toBe(3);
    expect(c.flightMsMean).toBe(((2300 - 2000) + (5100 - 5000)) / 2);
  });

  it('an empty window: nothing, and no flight', () => {
    const c = countLaunches(players, ends, 100, 200);
    expect(c).toMatchObject({ launches: 0, refused: {}, ends: 0, endsByKind: {}, kills: 0 });
    expect(c.flightMsMean).toBeNaN();
  });
});
