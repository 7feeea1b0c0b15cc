/**
 * Fog of war for projectiles in the arena room (FogFilter flights + the `projectiles` StateView),
 * with real WebSocket clients on the test level (a wall 6 m wide and 3 m high across z = -4 between
 * A (0,0,0) and C (0,0,-8); B (0,0,8) in the open): C, withheld from A and B behind the wall, fires
 * rockets. One fired away into the floor far behind the wall never reaches A or B, nor does its end
 * reach A (its blast out of A's sight);
 * one fired past the wall's end toward A's side reaches A before any line from A's eye to the rocket
 * (the server's flight re-flown from C's own snapshots at each tick) is clear, and is drawn from the
 * state it arrives with where the server has it; C always gets its own.
 * With fog off every client gets every rocket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireRocket } from './helpers/fireRocket';
import { buildTestWorld, joinSpawned, startTestServer, TestPlayer, TEST_SPAWNS, type TestServer } from './helpers/server';
import type { ArenaRoom } from '../server/arena/room';
import { SyncedProjectiles } from '../shared/client/projectiles';
import { WEAPONS, WeaponId } from '../shared/weapons';

const INTERP = 100;
const world = buildTestWorld();
const LOADOUT = [WeaponId.RIFLE, WeaponId.ROCKET, WeaponId.GRENADE];

function roomOf(s: TestServer, p: TestPlayer): ArenaRoom {
  const r = s.server.rooms.get(p.room.roomId);
  if (!r) throw new Error('room not found');
  return r;
}

/** A room of `n` players (slot i at TEST_SPAWNS[i]) with synced clocks and a few patches each. */
const match = (s: TestServer, n: number): Promise<TestPlayer[]> => joinSpawned(s.url, n, INTERP);


/** Any clear line from the eye to the rocket's sphere (centre and 6 points of its surface) at (x, y, z)? */
function lineOfSight(eye: [number, number, number], x: number, y: number, z: number, r: number): boolean {
  for (const [ox, oy, oz] of [[0, 0, 0], [r, 0, 0], [-r, 0, 0], [0, r, 0], [0, -r, 0], [0, 0, r], [0, 0, -r]] as const) {
    if (!world.anyHit(eye[0], eye[1], eye[2], x + ox, y + oy, z + oz)) return true;
  }
  return false;
}

let ts: TestServer;
let tsOff: TestServer;

describe('fog of war: projectiles', () => {
  beforeAll(async () => {
    ts = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, loadout: LOADOUT, maxPlayers: 4 });
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('a rocket fired behind the wall into the floor by a withheld player reaches neither client across the wall, nor is its end told to the one that cannot see its blast; the shooter gets both', async () => {
    const [a, b, c] = await match(ts, 3);
    const room = roomOf(ts, a!);
    expect(room.fog!.isSent(0, 2)).toBe(false);
    expect(room.fog!.isSent(1, 2)).toBe(false);
    // Far behind the wall: even its 4 m blast stays below A's sight over the wall.
    const id = await fireRocket(ts, c!, INTERP, 0, 0, -42);
    await c!.until(() => c!.projectileEnds.some((e) => e.id === id), 5000, 'the rocket\'s end on the shooter');
    expect(c!.projectileStates.get(id)?.length ?? 0).toBeGreaterThan(0);
    const end = c!.projectileEnds.find((e) => e.id === id)!;
    expect([end.z < -35, end.exploded]).toEqual([true, true]);
    // Patches well after the end: nothing of it reached A or B.
    await a!.snapshotsPass(20);
    await b!.snapshotsPass(5);
    for (const p of [a!, b!]) expect(p.projectileStates.has(id)).toBe(false);
    // A, near the wall, cannot see even the top of its blast; B, 12 m back, may (a jump there sees
    // over the wall to the top of a 4 m blast that far behind it), so only A is sure not to be told.
    expect(a!.projectileEnds.some((e) => e.id === id)).toBe(false);
    await Promise.all([a, b, c].map((p) => p!.leave()));
  });

  it('a rocket fired past the end of the wall reaches the viewer before any line of sight from its eye to the rocket exists', async () => {
    const [a, b, c] = await match(ts, 3);
    const room = roomOf(ts, a!);
    expect(room.fog!.isSent(0, 2)).toBe(false);
    const eye: [number, number, number] = [0, ts.server.rig.eyeHeight, 0];
    const id = await fireRocket(ts, c!, INTERP, 12, ts.server.rig.eyeHeight - 0.5, -2);
    await a!.until(() => a!.projectileFirstMs.has(id), 5000, 'the rocket on A\'s client');
    await c!.until(() => c!.projectileEnds.some((e) => e.id === id), 8000, 'the rocket\'s end');
    const firstSeen = a!.projectileFirstMs.get(id)!;
    // The server's flight, re-flown from the shooter's own first snapshot at each tick (nothing is in
    // its way until far beyond A's sight of it: the same bits as the server's).
    const states = c!.projectileStates.get(id)!;
    const spec = WEAPONS[WeaponId.ROCKET]!.projectile!;
    const synced = new SyncedProjectiles(world, WEAPONS, ts.server.config.tickRate);
    synced.update([states[0]!]);
    const step = synced.stepMs;
    let firstLine = Number.NaN;
    for (let t = states[0]!.timeMs; t < states[0]!.timeMs + 3000; t += step) {
      synced.advance(t);
      const e = synced.entries.get(id)!;
      if (lineOfSight(eye, e.x, e.y, e.z, spec.radius)) { firstLine = t; break; }
    }
    console.log(`[fog] rocket launched at ${states[0]!.timeMs.toFixed(1)} ms: first line of sight from A at ${firstLine.toFixed(1)}, on A's client from the patch of ${firstSeen.toFixed(1)}`);
    expect(firstLine).toBeGreaterThan(states[0]!.timeMs);
    expect(firstSeen).toBeLessThan(firstLine);
    // A's copy, from the state it arrived with (after the launch: mid-flight), is drawn where the server has it.
    const mine = new SyncedProjectiles(world, WEAPONS, ts.server.config.tickRate);
    mine.update([a!.projectileStates.get(id)![0]!]);
    mine.advance(firstLine);
    const drawn = mine.entries.get(id)!, server = synced.entries.get(id)!;
    expect([drawn.x, drawn.y, drawn.z]).toEqual([server.x, server.y, server.z]);
    // Sent once, until its end: A is told the end too; B (in the open, across the level) gets what its own sight allows.
    await a!.until(() => a!.projectileEnds.some((e) => e.id === id), 5000, 'the end on A\'s client');
    await a!.until(() => !a!.state.projectiles.has(String(id)), 3000, 'the rocket gone from A\'s state');
    expect(b!.projectileEnds.some((e) => e.id === id)).toBe(b!.projectileFirstMs.has(id) || room.fog!.isSent(1, 2));
    await Promise.all([a, b, c].map((p) => p!.leave()));
  });
});

describe('fog of war off: projectiles', () => {
  beforeAll(async () => {
    tsOff = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, loadout: LOADOUT, maxPlayers: 4, fog: 'off' });
  });
  afterAll(async () => {
    await tsOff?.close();
  });

  it('every client gets the rocket fired behind the wall, and its end', async () => {
    const [a, b, c] = await match(tsOff, 3);
    const id = await fireRocket(tsOff, c!, INTERP, 0, 0, -14);
    for (const p of [a!, b!, c!]) {
      await p.until(() => p.projectileEnds.some((e) => e.id === id), 5000, 'the rocket\'s end');
      expect(p.projectileStates.get(id)?.length ?? 0).toBeGreaterThan(0);
    }
    await Promise.all([a, b, c].map((p) => p!.leave()));
  });
});
