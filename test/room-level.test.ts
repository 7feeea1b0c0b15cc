/**
 * The arena on the default level (server/assets/collision-world.glb) with its default spawn points
 * and real clients: movement from inputs only (speed clamped, ground followed), a head shot, the
 * status line, and the server's limits on client options.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, zoneCenter, waitFor, type TestServer, joinPair } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { ShotAction } from '../shared/protocol/shot';
import { reasonName } from '../shared/validate/verdict';
import { createInputMessage } from '../shared/protocol/input';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer({});
});
afterAll(async () => {
  await ts?.close();
});

describe('arena on the default level', () => {
  it('spawns on the floor, moves only by inputs within the speed clamp, and registers a head shot', async () => {
    // Hostile join options (a huge interpolation delay, a 500-character name) are clamped, not trusted.
    const [a, b] = await joinPair(ts.url, { interpDelayMs: 100, name: 'alice' }, { interpDelayMs: 99999, name: 'x'.repeat(500) });
    const room = ts.server.rooms.get(a.room.roomId)!;
    const sp = ts.server.config.spawnPoints;
    // Spawns: on the level's floor (y = -1.745 at the centre) at spawn points 0 and 1.
    const bs = room.state.players.get(b.room.sessionId)!;
    expect(bs.y).toBeCloseTo(-1.745, 2);
    expect(bs.x).toBeCloseTo(sp[1]!.x, 6);
    // Client options are clamped: the interpolation delay to the server's maximum, the name to 24 characters.
    expect(room.match.player(b.room.sessionId)!.interpDelayMs).toBe(ts.server.config.maxInterpDelayMs);
    expect(bs.name.length).toBe(24);
    // The pistol (a head shot does not kill): switch and wait out its draw time.
    expect(reasonName((await a.act(ShotAction.SWITCH, WeaponId.PISTOL, 1)).reason)).toBe('OK_SWITCH');
    await a.untilDrawn(WeaponId.PISTOL);

    const rt = await a.renderNow(100);
    const pose = a.renderPose(1, rt)!;
    const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, pose, HitZone.HEAD);
    const me = a.snapshots.at(-1)!.poses.get(0)!;
    const sx = me.x, sy = me.y + ts.server.rig.eyeHeight, sz = me.z;
    const d = [cx - sx, cy - sy, cz - sz];
    const l = Math.hypot(d[0]!, d[1]!, d[2]!);
    const v = await a.shoot({ seq: 2, weapon: WeaponId.PISTOL, claimedTarget: 1, renderTimeMs: rt, sx, sy, sz, ex: sx + (d[0]! / l) * 20, ey: sy + (d[1]! / l) * 20, ez: sz + (d[2]! / l) * 20 });
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.zone).toBe(HitZone.HEAD);

    // Movement: B asks to run with an over-long wish vector; the server moves it at most maxSpeed.
    const x0 = bs.x, z0 = bs.z;
    const t0 = room.match.newestTickMs;
    const inp = createInputMessage();
    inp.seq = 1; inp.wishX = 50; inp.wishZ = 0; inp.viewX = 1; inp.viewY = 0; inp.viewZ = 0;
    b.sendInput(inp);
    await waitFor(() => Math.hypot(bs.x - x0, bs.z - z0) > 0.3, 'B moved');
    const dist = Math.hypot(bs.x - x0, bs.z - z0);
    const elapsed = (room.match.newestTickMs - t0) / 1000;
    expect(dist).toBeGreaterThan(0.3);
    expect(dist).toBeLessThanOrEqual(ts.server.config.movement.maxSpeed * elapsed + 1e-9);
    expect(Number.isFinite(bs.y)).toBe(true);
    // A stale input (a seq already sent) is refused.
    inp.seq = b.inputSeq;
    b.sendInput(inp);
    await b.until(() => b.rejects.some((r) => r.reason === 'INPUT_STALE'), 3000, 'stale input reject');

    const line = ts.server.statusLine();
    expect(line).toMatch(/players 2 .*hits 1 .*rejects \d+/);
    await a.leave();
    await b.leave();
  });
});
