/**
 * A player who left is no target: a shot fired after the leave time at the spot where the player
 * last stood misses (no damage, no hit) in the room, in the audit's replay of the room's match log
 * (verifyMatchLog, bit for bit), and in a predicting client's view, which forgets a player once it
 * is gone from the state. On the code before this rule the room's verdict was OK_HIT with damage.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TestPlayer, TEST_SPAWNS, zoneCenter, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { createVerdict, reasonName } from '../shared/validate/verdict';
import { validateShot, rewindReachMs } from '../shared/validate/shot';
import { createShotMessage, encodeShot, SHOT_BYTES } from '../shared/protocol/shot';
import { MatchView, SnapshotPool } from '../shared/client/view';
import { createShooterState } from '../shared/validate/verdict';
import { verifyMatchLog } from '../shared/audit/verify';

const INTERP = 100;
const dir = mkdtempSync(join(tmpdir(), 'departed-'));
let ts: TestServer;

beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: dir, maxPlayers: 4, validation: { claimToleranceMs: 150 } });
});
afterAll(async () => {
  await ts?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a player who left', () => {
  it('is not hit by a shot fired after the leave at the spot where it stood: room, replay and prediction agree', async () => {
    const a = await TestPlayer.create(ts.url, { interpDelayMs: INTERP });
    const b = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: INTERP });
    for (const p of [a, b]) await p.until(() => p.pings >= 2 && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'pings and state');
    // A's predicting view, fed every patch A receives.
    const w = a.welcome!;
    const view = new MatchView(ts.server.world, ts.server.rig, w.validation.maxPlayers, rewindReachMs(w.validation), w.tickRate);
    const pool = new SnapshotPool(w.validation.maxPlayers, 2);
    a.room.onStateChange((state: unknown) => {
      const snap = pool.capture(state);
      if (snap !== null) { view.apply(snap); snap.inUse = false; }
    });
    await a.until(() => a.renderPose(b.slot, a.serverNow() - INTERP - 50) !== null, 10_000, 'B rendered');
    const room = ts.server.rooms.get(a.room.roomId)!;
    // Where A draws B now: the segment through B's chest, from A's eye.
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
    // Well past the rewind window on A's clock: nobody has stood there since the leave.
    await a.serverTimePasses(600);
    const rt = await a.renderNow(INTERP);
    const shot = a.shot({ seq: 2, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: bSlot, ...seg });
    a.sendShot(shot);
    const after = await a.verdictFor(2);
    expect(reasonName(after.reason)).toBe('OK_MISS');
    expect(after.damage).toBe(0);
    expect(a.hits.filter((h) => h.target === bSlot).length).toBe(1); // the control only

    // The prediction: the view forgot B when it left the state.
    expect(view.present(bSlot)).toBe(false);
    const shooter = createShooterState(a.slot, w.validation.weapons.map((x) => x.magazine), w.validation.loadout);
    shooter.lastSeq = 1;
    const predicted = validateShot(createVerdict(), view, w.validation, encodeShot(new Uint8Array(SHOT_BYTES), { ...createShotMessage(), ...shot }), shooter,
      { receiveTimeMs: a.serverNow(), rttMs: 10, interpDelayMs: INTERP, newestTickMs: view.newestTimeMs }, view.targets);
    expect(reasonName(predicted.reason)).toBe('OK_MISS');
    await a.leave();

    // The replay: the room's log, judged again from the log alone.
    await ts.server.close();
    const log = readdirSync(dir).find((f) => f.endsWith('.hrml'))!;
    const audit = verifyMatchLog(new Uint8Array(readFileSync(join(dir, log))), ts.server.world, ts.server.rig);
    expect(audit.problems).toEqual([]);
    expect(audit.mismatches).toEqual([]);
    expect(audit.shots).toBe(2);
  });
});
