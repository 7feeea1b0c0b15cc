/**
 * Reconnection over real WebSockets: a client whose connection drops (not a consented leave) stays
 * in the match, standing and hittable, and the same session that reconnects within the allowed time
 * keeps its slot, health, loadout, seq and history; one that does not is removed when the time runs
 * out. The match log records the drop and the reconnection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, TestPlayer, joinPair, shootAtZone, waitFor, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { ShotAction } from '../shared/protocol/shot';
import { reasonName } from '../shared/validate/verdict';
import type { MatchEvent, MatchRecorder } from '../server/match/recorder';

let ts: TestServer;
const events: MatchEvent[] = [];
const recorder: MatchRecorder = { header() {}, tick() {}, shot() {}, event: (e) => void events.push({ ...e }), close() {} };

beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, recorder, reconnectSeconds: 4, validation: { claimToleranceMs: 150 } });
});
afterAll(async () => {
  await ts?.close();
});

function drop(p: TestPlayer): string {
  const token = p.room.reconnectionToken;
  p.room.reconnection.enabled = false; // the test reconnects by hand
  p.room.connection.close();
  return token;
}

describe('reconnection', () => {
  it('a dropped player reconnects within the time and keeps slot, health, loadout, seq and history', async () => {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    const session = a.room.sessionId;
    // B hits A; A switches to the pistol.
    const first = await shootAtZone(b, ts, 0, 1, HitZone.UPPER_TORSO);
    expect(reasonName(first.reason), JSON.stringify(first)).toBe('OK_HIT');
    expect(reasonName((await a.act(ShotAction.SWITCH, WeaponId.PISTOL, 1)).reason)).toBe('OK_SWITCH');
    await a.untilDrawn(WeaponId.PISTOL);
    const before = room.state.players.get(session)!;
    const health = before.health;
    expect(health).toBeLessThan(100);
    const slot = room.slotOf(session)!;
    const oldest = room.match.scene.histories[slot.index]!.oldestTimeMs();

    const token = drop(a);
    await waitFor(() => room.state.players.get(session)?.connected === false, 'the server to see the drop');
    // Still in the match, marked disconnected, its history still recorded tick by tick.
    const atDrop = room.match.scene.histories[slot.index]!.newestTimeMs();
    const dropTick = room.tickCount;
    await waitFor(() => room.tickCount >= dropTick + 3, 'ticks after the drop');
    expect(room.slotOf(session)).toBe(slot);
    const newest = room.match.scene.histories[slot.index]!.newestTimeMs();
    expect(newest).toBeGreaterThan(atDrop);
    // Still hittable while away.
    expect(reasonName((await shootAtZone(b, ts, 0, 2, HitZone.UPPER_TORSO)).reason)).toBe('OK_HIT');

    const back = await TestPlayer.reconnect(ts.url, token);
    await back.until(() => back.clock.synced && back.snapshots.length > 4, 5000, 'resynced');
    expect(back.room.sessionId).toBe(session);
    const me = room.state.players.get(session)!;
    expect(me.connected).toBe(true);
    expect(me.slot).toBe(slot.index);
    expect(me.health).toBe(health - 25);
    expect(me.weapon).toBe(WeaponId.PISTOL);
    // The history was never cleared: it reaches back across the drop.
    expect(room.match.scene.histories[slot.index]!.oldestTimeMs()).toBeLessThanOrEqual(Math.max(oldest, newest - 1000));
    // The seq carries on: 1 was used by the switch, 2 is new.
    expect(reasonName((await back.act(ShotAction.RELOAD, WeaponId.PISTOL, 1)).reason)).toBe('SEQ_REPLAYED');
    expect(reasonName((await shootAtZone(back, ts, 1, 2, HitZone.UPPER_TORSO, WeaponId.PISTOL)).reason)).toBe('OK_HIT');
    expect(events.some((e) => e.kind === 'drop' && e.slot === slot.index)).toBe(true);
    expect(events.some((e) => e.kind === 'reconnect' && e.slot === slot.index)).toBe(true);
    await back.leave();
    await b.leave();
  });

  it('a player who does not come back in time is removed', async () => {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    const session = a.room.sessionId;
    const slot = room.slotOf(session)!.index;
    drop(a);
    await waitFor(() => room.state.players.get(session)?.connected === false, 'the server to see the drop');
    await b.until(() => !b.state.players.has(session), 30_000, 'removal after the reconnection time');
    expect(room.slotOf(session)).toBeUndefined();
    expect(events.some((e) => e.kind === 'leave' && e.slot === slot)).toBe(true);
    await b.leave();
  });
});
