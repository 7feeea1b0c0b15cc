/**
 * The server's content-addressed assets and the welcome: a real client joins, reads the world and rig
 * hashes from its welcome, fetches both over HTTP (ETag = hash, immutable caching, 304 on a
 * revalidation, gzip when asked) and loads them with the shared loaders, which accept them only
 * with the announced hashes. Debug verdicts (rewound poses) come only when the server allows them
 * and the client asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { HitZone } from '../shared/rig/rig';
import { PlayerHistory } from '../shared/lagcomp/history';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { rigFromBuffer } from '../shared/rig/rigBinary';
import { World } from '../shared/world/world';
import { rigAssetPath, worldAssetPath } from '../shared/protocol/messages';
import { acceptWorld } from '../web/src/net';
import { buildTestWorld, joinPair, shootAtZone, startTestServer, TEST_SPAWNS, type TestServer } from './helpers/server';

/** GET with raw bytes back (fetch would undo the gzip). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

// Colyseus's matchmaker is process-wide: one game server at a time in this file.
let ts: TestServer;
let debugTs: TestServer;

describe('assets by content hash', () => {
  beforeAll(async () => {
    ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, webDir: false });
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('the welcome names the world and rig; both load from the server with exactly those hashes', async () => {
    const [a, b] = await joinPair(ts.url);
    await a.until(() => a.welcome !== null, 3000, 'welcome');
    const w = a.welcome!;
    expect(w.slot).toBe(a.slot);
    expect(w.worldHash).toBe(ts.server.world.hash);
    expect(w.rigHash).toBe(ts.server.rig.hash);
    expect(w.tickRate).toBe(64);
    expect(w.interpDelayMs).toBe(100);
    expect(w.debug).toBe(false);
    expect(w.validation.rewindWindowMs).toBe(ts.server.config.validation.rewindWindowMs);
    expect(w.movement.maxSpeed).toBe(ts.server.config.movement.maxSpeed);

    const world = await fetch(`http://127.0.0.1:${ts.port}${worldAssetPath(w.worldHash)}`);
    expect(world.status).toBe(200);
    expect(world.headers.get('etag')).toBe(`"${w.worldHash}"`);
    expect(world.headers.get('cache-control')).toContain('immutable');
    expect(World.fromBuffer(await world.arrayBuffer()).hash).toBe(w.worldHash);
    const rig = await fetch(`http://127.0.0.1:${ts.port}${rigAssetPath(w.rigHash)}`);
    expect(rig.headers.get('etag')).toBe(`"${w.rigHash}"`);
    const rigBytes = await rig.arrayBuffer();
    expect(rigFromBuffer(rigBytes, w.rigHash).hash).toBe(w.rigHash);
    // The page's loader (web/src/net.ts) accepts the world only with the announced hash, and
    // World.fromBuffer refuses damaged bytes outright.
    const worldBytes = await (await fetch(`http://127.0.0.1:${ts.port}${worldAssetPath(w.worldHash)}`)).arrayBuffer();
    expect(acceptWorld(worldBytes, w.worldHash).hash).toBe(w.worldHash);
    expect(() => acceptWorld(worldBytes, '0123456789abcdef')).toThrow(/announced 0123456789abcdef/);
    const damaged = new Uint8Array(worldBytes.slice(0));
    damaged[8] ^= 0xff; // a header byte
    expect(() => acceptWorld(damaged.buffer, w.worldHash)).toThrow();
    const edited = new Uint8Array(worldBytes.slice(0));
    edited[edited.length - 5] ^= 0x01; // a byte of the body: refused by the checks or by the hash
    expect(() => acceptWorld(edited.buffer, w.worldHash)).toThrow();
    expect(() => rigFromBuffer(rigBytes, ts.server.world.hash)).toThrow(/expected/);
    await a.leave();
    await b.leave();
  });

  it('revalidation with the ETag is a 304 without a body; gzip on request; other hashes are not served', async () => {
    const path = worldAssetPath(ts.server.world.hash);
    const again = await get(ts.port, path, { 'if-none-match': `"${ts.server.world.hash}"` });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const plain = await get(ts.port, path);
    const gz = await get(ts.port, path, { 'accept-encoding': 'gzip, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(plain.body.length);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const other = await get(ts.port, worldAssetPath('0123456789abcdef'));
    expect(other.status).not.toBe(200);
  });

  it('a client asking for debug verdicts on a server that does not allow them gets plain verdicts', async () => {
    const [c, d] = await joinPair(ts.url, { interpDelayMs: 100, debug: true });
    await c.until(() => c.welcome !== null, 3000, 'welcome');
    expect(c.welcome!.debug).toBe(false);
    const x = await shootAtZone(c, ts, d.slot, 1, HitZone.UPPER_TORSO);
    expect(x.rewound).toBeUndefined();
    await c.leave();
    await d.leave();
  });
});

describe('debug verdicts', () => {
  beforeAll(async () => {
    debugTs = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, webDir: false, debugVerdicts: true });
  });
  afterAll(async () => {
    await debugTs?.close();
  });

  it('carry every other player\'s rewound pose only when the server allows them and the client asks', async () => {
    // Server allows, shooter asks; target does not.
    const [a, b] = await joinPair(debugTs.url, { interpDelayMs: 100, debug: true }, { interpDelayMs: 100 });
    await a.until(() => a.welcome !== null && b.welcome !== null, 3000, 'welcome');
    expect(a.welcome!.debug).toBe(true);
    expect(b.welcome!.debug).toBe(false);
    const v = await shootAtZone(a, debugTs, b.slot, 1, HitZone.UPPER_TORSO);
    expect(v.reasonName).toBe('OK_HIT');
    expect(v.rewound).toBeDefined();
    const mine = v.rewound!.find((p) => p.slot === b.slot)!;
    // The pose the server rewound to, rebuilt from the snapshots the client received (they equal the
    // server's history bit for bit) with the same sampling: the same numbers.
    const room = debugTs.server.rooms.get(a.room.roomId)!;
    const history = new PlayerHistory(256);
    a.snapshots.forEach((s, i) => { const p = s.poses.get(b.slot); if (p) history.record(i, s.timeMs, p); });
    const pose = createPlayerPose();
    expect(history.sampleAt(pose, v.rewindTimeMs, room.match.scene.eyePolicy)).toBeLessThanOrEqual(1);
    expect([mine.x, mine.y, mine.z, mine.qx, mine.qy, mine.qz, mine.qw, mine.clip, mine.time]).toEqual([pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw, pose.clip, pose.time]);
    expect(v.rewound!.some((p) => p.slot === a.slot)).toBe(false);
    expect(room).toBeDefined();
    const w = await shootAtZone(b, debugTs, a.slot, 1, HitZone.UPPER_TORSO);
    expect(w.rewound).toBeUndefined();
    await a.leave();
    await b.leave();

  });
});
