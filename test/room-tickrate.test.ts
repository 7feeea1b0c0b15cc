/**
 * The arena at 128 Hz: snapshots 1000/128 ms apart in every history, the history sized for the
 * window at that rate, and a shot judged against them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, zoneCenter, waitFor, type TestServer, joinPair } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { reasonName } from '../shared/validate/verdict';
import { createPlayerPose } from '../shared/lagcomp/pose';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, tickRate: 128 });
});
afterAll(async () => {
  await ts?.close();
});

describe('arena at 128 Hz', () => {
  it('records a snapshot every 7.8125 ms and judges shots against them', async () => {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    expect(a.state.tickRate).toBe(128);
    const h = room.match.scene.histories[1]!;
    await waitFor(() => h.newestTimeMs() - h.oldestTimeMs() >= ts.server.config.validation.rewindWindowMs, 'a rewind window of history');
    // Consecutive snapshot times differ by exactly one tick, but where the tick clock keeps to the real time.
    const span = h.newestTimeMs() - h.oldestTimeMs();
    expect(span).toBeGreaterThanOrEqual(ts.server.config.validation.rewindWindowMs);
    const pose = createPlayerPose();
    let regular = 0;
    for (let k = 1; k < h.size(); k++) {
      const gap = h.snapshot(pose, k) - h.snapshot(pose, k - 1);
      if (Math.abs(gap - 1000 / 128) < 1e-9) regular++;
      else expect(gap, 'time never runs backwards (the tick clock keeps to the real time: server/match/tickClock.ts)').toBeGreaterThan(0);
    }
    // Most gaps are exactly a tick (a 64 Hz history would have none); how many the clock adjusts
    // depends on how late the machine's event loop runs, so no tighter share is asked.
    expect(regular).toBeGreaterThan((h.size() - 1) / 2);
    // The ring covers the deepest rewind (window + action-time lag at the largest round trip:
    // 800 + 3.5 x (300 - 100)) plus half a second.
    expect(room.match.scene.options.capacityTicks).toBe(Math.ceil(((250 + 1500 + 500) * 128) / 1000) + 2);
    const rt = await a.renderNow(100);
    const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, a.renderPose(1, rt)!, HitZone.HEAD);
    const me = a.snapshots.at(-1)!.poses.get(0)!;
    const sy = me.y + ts.server.rig.eyeHeight;
    const d = [cx - me.x, cy - sy, cz - me.z];
    const l = Math.sqrt(d[0]! * d[0]! + d[1]! * d[1]! + d[2]! * d[2]!);
    const v = await a.shoot({ seq: 1, weapon: WeaponId.RIFLE, claimedTarget: 1, renderTimeMs: rt, sx: me.x, sy, sz: me.z, ex: me.x + (d[0]! / l) * 30, ey: sy + (d[1]! / l) * 30, ez: me.z + (d[2]! / l) * 30 });
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.zone).toBe(HitZone.HEAD);
    await a.leave();
    await b.leave();
  });
});
