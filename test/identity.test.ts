/**
 * Player identity in the match log (format 12 on): a client that names itself with the `playerId`
 * join option is logged unverified, a verified token's subject verified (auth on: HS256 tokens
 * signed here), a hostile id (control characters, too long) is not logged and changes nothing else;
 * the audit names each slot's identities, and a corrupted identity record is reported, not trusted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { buildTestWorld, startTestServer, TEST_SPAWNS, TestPlayer, shootAtZone, roomClosed, waitFor, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { jwtVerifier } from '../server/ops/auth';
import { readFrames } from '../shared/matchlog/frame';
import { RecordType } from '../shared/matchlog/records';
import { readIdentity, playerIdBytes, MAX_PLAYER_ID_BYTES } from '../shared/matchlog/identityRecord';
import { verifyMatchLog } from '../shared/audit/verify';
import { crc32 } from '../shared/matchlog/crc32';

const dirs: string[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  await closeAuditWorkers();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serverWith(auth: boolean): Promise<{ ts: TestServer; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'identity-'));
  dirs.push(dir);
  const secret = 'a test secret of at least thirty-two bytes!';
  const ts = await startTestServer({
    level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: dir, validation: { claimToleranceMs: 150 },
    ...(auth ? { auth: jwtVerifier({ secret }) } : {}),
  });
  servers.push(ts);
  return { ts, dir };
}

async function token(sub: string): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setExpirationTime('1h').sign(new TextEncoder().encode('a test secret of at least thirty-two bytes!'));
}

async function ready(p: TestPlayer): Promise<void> {
  await p.until(() => p.clock.synced && p.slot >= 0 && p.snapshots.length > 4, 5000, 'ready');
}

describe('player identity in the match log', () => {
  it('logs a self-named player unverified, skips a hostile id, and the audit names each slot\'s identity', async () => {
    const { ts, dir } = await serverWith(false);
    const a = await TestPlayer.create(ts.url, { interpDelayMs: 100, playerId: 'alice#1' });
    const b = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: 100, playerId: 'bad\u0000id' });
    const c = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: 100, playerId: 'x'.repeat(MAX_PLAYER_ID_BYTES + 1) });
    for (const p of [a, b, c]) await ready(p);
    await a.until(() => a.renderPose(b.slot, a.serverNow() - 150) !== null, 5000, 'b rendered');
    await b.until(() => b.renderPose(a.slot, b.serverNow() - 150) !== null, 5000, 'a rendered');
    expect((await shootAtZone(a, ts, b.slot, 1, HitZone.UPPER_TORSO)).reasonName).toBe('OK_HIT');
    expect((await shootAtZone(b, ts, a.slot, 1, HitZone.UPPER_TORSO)).reasonName).toBe('OK_HIT');
    const closed = roomClosed(ts, a.room.roomId);
    await Promise.all([a.leave(), b.leave(), c.leave()]);
    await closed;
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.hrml'))!);
    const bytes = new Uint8Array(readFileSync(file));
    const frames = readFrames(bytes);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const ids = frames.frames.filter((f) => f.type === RecordType.IDENTITY).map((f) => readIdentity(view, f.payloadOffset, f.payloadLength));
    expect(ids).toEqual([{ slot: 0, playerId: 'alice#1', verified: false }]);
    const r = await auditMatchLog(file, { world: ts.server.world });
    expect(r.problems).toEqual([]);
    expect(r.players.find((p) => p.player === 0)!.identities).toEqual([{ playerId: 'alice#1', verified: false }]);
    expect(r.players.find((p) => p.player === 1)!.identities).toEqual([]);

    // A flipped id byte with a fixed CRC still decodes as another id; a broken length is refused and reported.
    const f = frames.frames.find((x) => x.type === RecordType.IDENTITY)!;
    const bad = bytes.slice();
    const bv = new DataView(bad.buffer);
    bv.setUint8(f.payloadOffset + 3, 200);
    bv.setUint32(f.payloadOffset + f.payloadLength, crc32(bad, f.payloadOffset - 1, f.payloadOffset + f.payloadLength), true);
    const v = verifyMatchLog(bad, ts.server.world, ts.server.rig);
    expect(v.replay!.badRecords.map((x) => [x.type, x.why])).toEqual([['identity', 'identity record malformed']]);
    expect(v.problems.some((m) => m.includes('identity'))).toBe(true);
  });

  it('logs a verified token\'s subject as verified, whatever playerId the client also sends', async () => {
    const { ts, dir } = await serverWith(true);
    const make = async (sub: string) => {
      const { Client } = await import('@colyseus/sdk');
      const client = new Client(ts.url);
      client.auth.token = await token(sub);
      return client;
    };
    const ca = await make('player-42');
    const room = await ca.create('arena', { interpDelayMs: 100, playerId: 'someone-else' });
    await waitFor(() => room.state?.players?.size === 1, 'the player in the state');
    const closed = roomClosed(ts, room.roomId);
    await room.leave();
    await closed;
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.hrml'))!);
    const bytes = new Uint8Array(readFileSync(file));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const ids = readFrames(bytes).frames.filter((f) => f.type === RecordType.IDENTITY).map((f) => readIdentity(view, f.payloadOffset, f.payloadLength));
    expect(ids).toEqual([{ slot: 0, playerId: 'player-42', verified: true }]);
  });

  it('playerIdBytes takes 1..128 UTF-8 bytes without control characters, nothing else', () => {
    expect(playerIdBytes('é'.repeat(64))?.length).toBe(128);
    expect(playerIdBytes('é'.repeat(65))).toBeNull();
    for (const bad of ['', 'a\nb', 'a\u007fb', 42, null, undefined, { id: 'x' }]) expect(playerIdBytes(bad)).toBeNull();
  });
});
