/**
 * A player who left is no target: a shot fired after the leave time at the spot where the player
 * last stood misses (no damage, no hit), in the room, in the audit replay of its log, and in a
 * predicting client's view, which forgets a player once it is gone from the state. A shot fired
 * before the leave and judged after it still counts (it was in flight), as a shot at a player
 * killed in flight does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TestPlayer, TEST_SPAWNS, zoneCenter, sleep, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { reasonName } from '../shared/validate/verdict';
import type { MatchRecorder, ShotRecord } from '../server/match/recorder';

const INTERP = 100;
let ts: TestServer;
const shots: ShotRecord[] = [];
const recorder: MatchRecorder = {
  header() {}, tick() {}, event() {}, close() {},
  shot(s) { shots.push(structuredClone(s)); },
};

beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, recorder, maxPlayers: 4, validation: { claimToleranceMs: 150 } });
});
afterAll(async () => {
  await ts?.close();
});

describe('a player who left', () => {
  it('is not hit by a shot fired after the leave at the spot where it stood', async () => {
    const a = await TestPlayer.create(ts.url, { interpDelayMs: INTERP });
    const b = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: INTERP });
    for (const p of [a, b]) await p.until(() => p.pings >= 2 && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'pings and state');
    await sleep(300);
    const room = ts.server.rooms.get(a.room.roomId)!;
    // Where A draws B now: the segment through B's head, from A's eye.
    const rt0 = await a.renderNow(INTERP);
    const pose = a.renderPose(b.slot, rt0)!;
    expect(pose).not.toBeNull();
    const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, pose, HitZone.UPPER_TORSO);
    const snap = a.snapshots.at(-1)!.poses.get(a.slot)!;
    const sx = snap.x, sy = snap.y + ts.server.rig.eyeHeight, sz = snap.z;
    const d = Math.sqrt((cx - sx) ** 2 + (cy - sy) ** 2 + (cz - sz) ** 2);
    const seg = { sx, sy, sz, ex: sx + ((cx - sx) / d) * 30, ey: sy + ((cy - sy) / d) * 30, ez: sz + ((cz - sz) / d) * 30 };
    // Control: the same segment hits B while B is here.
    const control = await a.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt0, claimedTarget: b.slot, ...seg });
    expect(reasonName(control.reason)).toBe('OK_HIT');
    expect(control.damage).toBeLessThan(100); // B lives on: it leaves alive

    const bSlot = b.slot;
    await b.leave();
    await a.until(() => a.state.players.size === 1, 5000, 'B gone from the state');
    // Well past the rewind window: nobody has stood there since the leave.
    await sleep(600);
    const rt = await a.renderNow(INTERP);
    const after = await a.shoot({ seq: 2, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: bSlot, ...seg });
    expect(reasonName(after.reason)).toBe('OK_MISS');
    expect(after.damage).toBe(0);
    expect(a.hits.filter((h) => h.target === bSlot).length).toBe(1); // the control only
    await a.leave();
  });
});
