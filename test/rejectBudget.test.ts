/**
 * The budget of refused messages, against a real server with its real match log: a client flooding
 * malformed weapon messages gets its first ones judged (and refused), then its messages are dropped
 * unjudged and counted compactly in the log, then it is disconnected with CLOSE_OVER_BUDGET; an
 * honest player in the same room keeps playing; the log audits with zero mismatches.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, joinPair, shootAtZone, waitFor, roomClosed, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { reasonName } from '../shared/validate/verdict';
import { CLOSE_OVER_BUDGET } from '../server/arena/budget';
import type { HostileEvent } from '../server/arena/config';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { readFrames } from '../shared/matchlog/frame';
import { readEvent, RecordType } from '../shared/matchlog/records';
import { readFileSync } from 'node:fs';

const dir = mkdtempSync(join(tmpdir(), 'budget-'));
let ts: TestServer;
const hostile: HostileEvent[] = [];

beforeAll(async () => {
  ts = await startTestServer({
    level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: dir, validation: { claimToleranceMs: 150 },
    rejectBudget: { perSecond: 20, burst: 40, disconnectAfterMs: 1000 }, onHostile: (e) => void hostile.push(e),
  });
});
afterAll(async () => {
  await ts?.close();
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe('budget of refused messages', () => {
  it('throttles, counts in the log, disconnects; the honest player plays on; the log audits clean', async () => {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    let closedWith = -1;
    b.room.reconnection.enabled = false;
    b.room.onLeave((code: number) => { closedWith = code; });
    // B floods 250 malformed messages a second (under Colyseus's own message-rate cap), paced on
    // the wall clock: a timer that fires late sends what was due, so the rate holds on a loaded machine.
    const junk = new Uint8Array(10);
    const t0 = performance.now();
    let sent = 0;
    const flood = setInterval(() => { for (const due = Math.floor((performance.now() - t0) / 4); sent < due && closedWith < 0; sent++) b.room.sendBytes('shot', junk); }, 20);
    try {
      // The close is no message to B (its until() would not look again): poll for it.
      await waitFor(() => closedWith >= 0 && hostile.some((e) => e.event === 'disconnected'), 'B disconnected and its disconnect reported');
    } finally {
      clearInterval(flood);
    }
    expect(closedWith).toBe(CLOSE_OVER_BUDGET);
    // Judged: about the burst plus the refill over the ~1 s before throttling set in; the rest dropped.
    const judged = b.verdicts.length;
    expect(judged).toBeGreaterThanOrEqual(40);
    expect(judged).toBeLessThan(150);
    expect(ts.server.stats.throttled).toBeGreaterThan(100);
    expect(hostile.map((e) => e.event)).toEqual(expect.arrayContaining(['throttled', 'disconnected']));
    expect(hostile.every((e) => e.reason === 'MALFORMED')).toBe(true);
    // At most one line per client per second.
    const lines = hostile.filter((e) => e.sessionId === b.room.sessionId);
    expect(lines.length).toBeLessThanOrEqual(5);
    // The honest player is unaffected.
    expect(room.state.players.has(a.room.sessionId)).toBe(true);
    expect(reasonName((await shootAtZone(a, ts, 1, 1, HitZone.UPPER_TORSO)).reason)).not.toBe('MALFORMED');
    const closed = roomClosed(ts, room.roomId);
    await a.leave();
    // The room disposes when empty and closes its log (END record, flushed).
    await closed;

    const files = readdirSync(dir).filter((f) => f.endsWith('.hrml'));
    expect(files).toHaveLength(1);
    const path = join(dir, files[0]!);
    const bytes = new Uint8Array(readFileSync(path));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let dropped = 0;
    for (const f of readFrames(bytes).frames) {
      if (f.type !== RecordType.EVENT) continue;
      const e = readEvent(view, f.payloadOffset, f.payloadLength);
      if (e?.kind === 'throttled') dropped += e.other;
    }
    expect(dropped).toBe(ts.server.stats.throttled);
    const r = await auditMatchLog(path, { world: ts.server.world });
    expect(r.mismatches).toEqual([]);
    expect(r.problems).toEqual([]);
    expect(r.shots).toBe(judged + 1);
  });
});
