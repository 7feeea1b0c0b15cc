/**
 * Bullet holes under fog of war (hitreg/server FogMarks through the arena's fogHoles.ts and the
 * `holes` StateView), with real WebSocket clients on the test level (a wall 6 m wide and 3 m high
 * across z = -4 between A (0,0,0) and C (0,0,-8); B (0,0,8) in the open; D joins late at (20,0,8)):
 * C, withheld from A and B, shoots the floor far behind the wall: the hole reaches C at once and
 * never A or B (no line from their eyes to it, checked on the level); C shoots the floor past the
 * wall's end in A's sight: the hole reaches A and B; B, sent to A, shoots the floor behind the wall:
 * A gets it as it gets B. D, joining after, gets every hole it may see (all three: it looks past the
 * wall's end). With fog off every client gets every hole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, joinSpawned, startTestServer, TestPlayer, TEST_SPAWNS, type TestServer } from './helpers/server';
import { reasonName, WeaponId } from '../shared/index';

const INTERP = 100;
const world = buildTestWorld();

/** A room of `n` players (slot i at TEST_SPAWNS[i]) with synced clocks and a few patches each. */
const match = (s: TestServer, n: number): Promise<TestPlayer[]> => joinSpawned(s.url, n, INTERP);

/** The holes this client holds, as "shooter:seq". */
function holesOf(p: TestPlayer): string[] {
  const out: string[] = [];
  for (const h of p.state.holes ?? []) out.push(`${h.shooter}:${h.seq}`);
  return out;
}

/** Any clear line from (x, 1.6 .. 2.8, z) (an eye, standing to jumping) to the point? */
function seen(x: number, z: number, h: { x: number; y: number; z: number }): boolean {
  for (const y of [1.6, 2.2, 2.8]) if (!world.anyHit(x, y, z, h.x, h.y + 0.01, h.z)) return true;
  return false;
}

describe('fog of war: bullet holes', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, maxPlayers: 4 });
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('a withheld shooter\'s hole reaches a client only once it may see it; a hole of a shooter it is sent reaches it at once; a late joiner gets those it may see', async () => {
    const [a, b, c] = await match(ts, 3) as [TestPlayer, TestPlayer, TestPlayer];
    const room = ts.server.rooms.get(a.room.roomId)!;
    expect([room.fog!.isSent(0, 2), room.fog!.isSent(1, 2), room.fog!.isSent(0, 1)]).toEqual([false, false, true]);
    const eye = ts.server.rig.eyeHeight;
    const fire = async (p: TestPlayer, seq: number, sx: number, sz: number, ex: number, ez: number): Promise<string> => {
      await p.untilFireReady();
      const v = await p.shoot({ seq, weapon: WeaponId.RIFLE, claimedTarget: -1, renderTimeMs: await p.renderNow(INTERP), sx, sy: eye, sz, ex, ey: -1, ez });
      expect(reasonName(v.reason)).toBe('OK_MISS');
      return `${p.slot}:${seq}`;
    };
    // C into the floor far behind the wall.
    const hidden = await fire(c, 1, 0, -8, 0, -30);
    await c.until(() => holesOf(c).includes(hidden), 3000, 'the shooter\'s own hole');
    const hole = room.state.holes.find((h) => `${h.shooter}:${h.seq}` === hidden)!;
    expect([seen(0, 0, hole), seen(0, 8, hole)]).toEqual([false, false]);
    // C past the wall's end into the floor on A's side, in A's and B's sight.
    const open = await fire(c, 2, 0, -8, 9, 1);
    const openHole = room.state.holes.find((h) => `${h.shooter}:${h.seq}` === open)!;
    expect([seen(0, 0, openHole), seen(0, 8, openHole)]).toEqual([true, true]);
    await a.until(() => holesOf(a).includes(open), 5000, 'the hole in A\'s sight on A');
    await b.until(() => holesOf(b).includes(open), 5000, 'the hole in B\'s sight on B');
    // B (sent to A) into the floor past the wall's other end.
    const fromB = await fire(b, 1, 0, 8, -7, -12);
    await a.until(() => holesOf(a).includes(fromB), 3000, 'B\'s hole on A');
    await a.snapshotsPass(40);
    await b.snapshotsPass(5);
    expect(holesOf(a)).not.toContain(hidden);
    expect(holesOf(b)).not.toContain(hidden);
    // D joins at (20, 0, 8): it looks past the wall's end at every hole.
    const d = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: INTERP });
    await d.until(() => d.slot === 3, 5000, 'D\'s slot');
    for (const h of room.state.holes) expect(seen(20, 8, h), `${h.shooter}:${h.seq}`).toBe(true);
    await d.until(() => [hidden, open, fromB].every((k) => holesOf(d).includes(k)), 10_000, 'every hole on D');
    await Promise.all([a, b, c, d].map((p) => p.leave()));
  });
});

describe('fog off: bullet holes', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, maxPlayers: 4, fog: 'off' });
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('every client gets every hole', async () => {
    const [a, b, c] = await match(ts, 3) as [TestPlayer, TestPlayer, TestPlayer];
    const eye = ts.server.rig.eyeHeight;
    const v = await c.shoot({ seq: 1, weapon: WeaponId.RIFLE, claimedTarget: -1, renderTimeMs: await c.renderNow(INTERP), sx: 0, sy: eye, sz: -8, ex: 0, ey: -1, ez: -30 });
    expect(reasonName(v.reason)).toBe('OK_MISS');
    for (const p of [a, b, c]) await p.until(() => holesOf(p).includes('2:1'), 3000, 'the hole on every client');
    await Promise.all([a, b, c].map((p) => p.leave()));
  });
});
