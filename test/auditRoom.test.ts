// The match log as the room writes it, with hostile traffic: a test-level room whose default
// recorder (MatchLogRecorder) writes to a temp dir, two real @colyseus/sdk clients, a hit, a kill,
// and payloads no client should send (oversized, not bytes, truncated, NaN, a replayed seq). The
// audit replays the file bit for bit, every reason included.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, type TestServer, joinPair, shootAtZone, roomClosed } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { reasonName } from '../shared/validate/verdict';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { SHOT_COLUMNS, ShotCol } from '../shared/audit/replay';

const dir = mkdtempSync(join(tmpdir(), 'audit-room-'));
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: dir, respawnDelayMs: 200, validation: { claimToleranceMs: 150 } });
});
afterAll(async () => {
  await ts?.close();
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe('match log written by the room', () => {
  it('replays hostile payloads, hits and a kill bit for bit', async () => {
    const [a, b] = await joinPair(ts.url);
    const roomId = a.room.roomId;
    const shootAt = (seq: number, zone: number) => shootAtZone(a, ts, 1, seq, zone);
    const seen: string[] = [];
    seen.push(reasonName((await shootAt(1, HitZone.UPPER_TORSO)).reason));
    await a.untilFireReady();
    seen.push(reasonName((await shootAt(2, HitZone.HEAD)).reason)); // 25 + 100: a kill
    const before = a.verdicts.length;
    a.room.sendBytes('shot', new Uint8Array(1000)); // oversized
    a.room.send('shot', 'not bytes');
    a.room.sendBytes('shot', new Uint8Array(20)); // truncated
    a.sendShot(a.shot({ seq: 3, weapon: WeaponId.RIFLE, renderTimeMs: Number.NaN, sx: 0, sy: 1.6, sz: 0, ex: 0, ey: 1.6, ez: 10 }));
    a.sendShot(a.shot({ seq: 2, weapon: WeaponId.RIFLE, renderTimeMs: a.serverNow() - 100, sx: 0, sy: 1.6, sz: 0, ex: 0, ey: 1.6, ez: 10 }));
    await a.until(() => a.verdicts.length === before + 5, 3000, 'hostile verdicts');
    seen.push(...a.verdicts.slice(before).map((v) => reasonName(v.reason)));
    const closed = roomClosed(ts, roomId);
    await a.leave();
    await b.leave();
    // The room disposes, its recorder writes the end record and closes the file.
    await closed;

    const files = readdirSync(dir).filter((f) => f.endsWith('.hrml'));
    expect(files).toHaveLength(1);
    const r = await auditMatchLog(join(dir, files[0]!), { world: ts.server.world });
    expect(r.problems).toEqual([]);
    expect(r.mismatches).toEqual([]);
    expect(r.shots).toBe(7);
    // The log's tick clock gives the rate the room really ticked at, never above nominal (how close
    // to nominal it stays is measured from a client in tickRateWallClock.test.ts).
    expect(r.ticksPerSecond).toBeGreaterThan(0);
    expect(r.ticksPerSecond).toBeLessThanOrEqual(1.03 * 64);
    const reasons = Array.from({ length: r.shots }, (_, i) => reasonName(r.rows[i * SHOT_COLUMNS + ShotCol.REASON]!));
    expect(reasons).toEqual(seen);
    expect(reasons).toEqual(expect.arrayContaining(['OK_HIT', 'OVERSIZED', 'MALFORMED', 'NON_FINITE', 'SEQ_REPLAYED']));
  });
});
