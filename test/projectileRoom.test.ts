/**
 * Rockets and grenades through the arena room, end to end: real @colyseus/sdk clients over
 * WebSocket against the real server on the flat test level (floor and one wall). A launch is
 * answered with its projectile's id; the projectile appears in every client's synced state, is
 * rewritten when it bounces, and is removed at its end, which every client hears of (the
 * `projectile` message) with the victims; a blast kill is confirmed to the shooter, felt by the
 * victim, shown in the kill feed, and the victim respawns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, joinPair, shootAtZone, TEST_SPAWNS, type TestPlayer, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { FlightEventKind } from '../shared/projectile/flight';
import { ShotAction } from '../shared/protocol/shot';
import { SyncedProjectiles } from '../shared/client/projectiles';
import type { ArenaRoom } from '../server/arena/room';

let ts: TestServer;

beforeAll(async () => {
  ts = await startTestServer({
    level: buildTestWorld(),
    spawnPoints: TEST_SPAWNS,
    respawnDelayMs: 300,
    maxPlayers: 4,
    validation: { claimToleranceMs: 150 },
    loadout: [WeaponId.RIFLE, WeaponId.ROCKET, WeaponId.GRENADE],
  });
});
afterAll(async () => {
  await ts?.close();
});

function roomOf(p: TestPlayer): ArenaRoom {
  return ts.server.rooms.get(p.room.roomId)!;
}

async function take(p: TestPlayer, weapon: number, seq: number): Promise<void> {
  const v = await p.act(ShotAction.SWITCH, weapon, seq);
  expect(v.reasonName).toBe('OK_SWITCH');
  await p.untilDrawn(weapon);
}

describe('projectiles in the arena room', () => {
  it('a rocket at a player: its id in the verdict, synced while it flies, a direct hit whose blast kills, confirmed, fed, and the victim respawns', async () => {
    const [a, b] = await joinPair(ts.url);
    await take(a, WeaponId.ROCKET, 1);
    const epoch = b.state.players.get(b.room.sessionId).epoch as number;
    const v = await shootAtZone(a, ts, b.slot, 2, HitZone.UPPER_TORSO, WeaponId.ROCKET);
    expect(v.reasonName).toBe('OK_LAUNCH');
    expect(v.projectile).toBeGreaterThanOrEqual(0);
    const id = v.projectile!;
    for (const p of [a, b]) await p.until(() => p.projectileEnds.some((e) => e.id === id), 5000, 'the rocket\'s end');
    const end = a.projectileEnds.find((e) => e.id === id)!;
    // The flight started at most the catch-up cap before the shot was judged, never before its render time.
    expect(v.projectileStartMs).toBeGreaterThanOrEqual(v.rewindTimeMs);
    expect(v.projectileStartMs).toBeLessThan(end.timeMs);
    expect(end).toMatchObject({ shooter: a.slot, weapon: WeaponId.ROCKET, seq: 2, kind: FlightEventKind.PLAYER, player: b.slot, exploded: true });
    // 8 m at 20 m/s: synced to both clients while it flew, then removed from the state.
    for (const p of [a, b]) {
      expect(p.projectileStates.get(id)?.length ?? 0).toBeGreaterThan(0);
      await p.until(() => p.state.projectiles.size === 0, 3000, 'the rocket gone from the state');
    }
    const victim = end.victims.find((x) => x.slot === b.slot && x.killed);
    expect(victim).toBeDefined();
    await a.until(() => a.hits.some((h) => h.seq === 2 && h.target === b.slot && h.killed), 3000, 'the kill confirmed to the shooter');
    await b.until(() => b.damaged.some((d) => d.from === a.slot && d.health === 0), 3000, 'the victim told');
    const feed = roomOf(a).state.killFeed;
    expect(feed.some((k) => k.killer === a.slot && k.victim === b.slot && k.weapon === WeaponId.ROCKET)).toBe(true);
    await b.until(() => {
      const me = b.state.players.get(b.room.sessionId);
      return me.alive && me.epoch !== epoch;
    }, 5000, 'the victim respawned');
    await Promise.all([a.leave(), b.leave()]);
  });

  it('a grenade bounces: each bounce rewrites its synced state, a client re-flying it from those states meets the server\'s end, and the fuse ends it', async () => {
    const [a, b] = await joinPair(ts.url);
    await take(a, WeaponId.GRENADE, 1);
    // Thrown up and away from b (behind a, away from the wall), to bounce on the floor until its fuse.
    const me = a.snapshots.at(-1)!.poses.get(a.slot)!;
    const sy = me.y + ts.server.rig.eyeHeight;
    const v = await a.shoot({ seq: 2, weapon: WeaponId.GRENADE, claimedTarget: -1, renderTimeMs: await a.renderNow(100), sx: me.x, sy, sz: me.z, ex: me.x + 6, ey: sy + 3, ez: me.z - 0.5 });
    expect(v.reasonName).toBe('OK_LAUNCH');
    const id = v.projectile!;
    await b.until(() => b.projectileEnds.some((e) => e.id === id), 6000, 'the grenade\'s end');
    const end = b.projectileEnds.find((e) => e.id === id)!;
    expect(end.kind).toBe(FlightEventKind.FUSE);
    const states = b.projectileStates.get(id)!;
    expect(states.length).toBeGreaterThan(1);
    for (let k = 1; k < states.length; k++) expect(states[k]!.bounces > states[k - 1]!.bounces || states[k]!.mode !== states[k - 1]!.mode).toBe(true);
    // The last synced state re-flown against the level to the fuse: the server's end point.
    const synced = new SyncedProjectiles(ts.server.world, WEAPONS, ts.server.config.tickRate);
    synced.update([states.at(-1)!]);
    synced.advance(end.timeMs + synced.stepMs);
    const e = synced.entries.get(id)!;
    expect(Math.hypot(e.x - end.x, e.y - end.y, e.z - end.z)).toBeLessThan(1e-9);
    await Promise.all([a.leave(), b.leave()]);
  });
});
