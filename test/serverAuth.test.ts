/**
 * Player authentication against a real server and the real SDK: a valid signed token (HS256 or
 * EdDSA) joins and its subject reaches the room as client.auth; a missing, expired, wrongly signed,
 * wrong-issuer or unsigned ("alg":"none") token is refused at matchmaking with code 525
 * (AUTH_FAILED) and a message saying why, and no room is created for it. Without a verifier the
 * server is open.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { Client } from '@colyseus/sdk';
import { startTestServer, type TestServer } from './helpers/server';
import { jwtVerifier } from '../server/index';
import { ROOM_NAME } from '../shared/protocol/messages';

const SECRET = 'a-test-secret-of-at-least-32-bytes-long!';
let ts: TestServer | null = null;
afterEach(async () => {
  await ts?.close();
  ts = null;
});

async function hs256(claims: Record<string, unknown>, expiresIn: string | number = '10m', secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(String(claims.sub ?? 'player-1')).setIssuer('hitreg-test').setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(secret));
}

async function joinWith(url: string, token: string | undefined): Promise<{ ok: true; room: Awaited<ReturnType<Client['create']>> } | { ok: false; code: number; message: string }> {
  const c = new Client(url);
  if (token !== undefined) c.auth.token = token;
  try {
    return { ok: true, room: await c.create(ROOM_NAME, {}) };
  } catch (e) {
    const err = e as { code?: number; message?: string };
    return { ok: false, code: Number(err.code), message: String(err.message) };
  }
}

describe('auth with an HS256 verifier', () => {
  it('a valid token joins and its subject reaches the room; bad tokens are refused with code 525 and a reason', async () => {
    ts = await startTestServer({ auth: jwtVerifier({ secret: SECRET, issuer: 'hitreg-test' }) });
    const ok = await joinWith(ts.url, await hs256({ sub: 'alice', name: 'Alice' }));
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    const room = ts.server.rooms.get(ok.room.roomId)!;
    const client = [...room.clients].find((c) => c.sessionId === ok.room.sessionId)!;
    expect((client.auth as { id: string; name: string }).id).toBe('alice');
    expect((client.auth as { id: string; name: string }).name).toBe('Alice');
    await ok.room.leave(true);

    const roomsBefore = ts.server.rooms.size;
    const cases: [string | undefined, RegExp][] = [
      [undefined, /token missing/],
      [await hs256({ sub: 'bob' }, Math.floor(Date.now() / 1000) - 60), /token expired/],
      [await hs256({ sub: 'eve' }, '10m', 'another-secret-of-at-least-32-bytes!!'), /token signature invalid/],
      [await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('mallory').setIssuer('someone-else').setExpirationTime('10m').sign(new TextEncoder().encode(SECRET)), /token refused: unexpected "iss"/],
      [new UnsecuredJWT({ sub: 'x' }).setIssuer('hitreg-test').setExpirationTime('10m').encode(), /token (malformed|algorithm not accepted)/],
      ['not.a.jwt', /token malformed/],
    ];
    for (const [token, why] of cases) {
      const r = await joinWith(ts.url, token);
      expect(r.ok, String(why)).toBe(false);
      if (r.ok) continue;
      expect(r.code, String(why)).toBe(525);
      expect(r.message, String(why)).toMatch(why);
    }
    expect(ts.server.rooms.size).toBeLessThanOrEqual(roomsBefore);
    expect(ts.server.hostile.counts.get('auth_refused')).toBe(cases.length);
  });

  it('EdDSA: a token signed by the private key joins; one signed by another key is refused', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    ts = await startTestServer({ auth: jwtVerifier({ publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }) });
    const sign = (key: typeof privateKey) => new SignJWT({}).setProtectedHeader({ alg: 'EdDSA' }).setSubject('carol').setExpirationTime('5m').sign(key);
    const ok = await joinWith(ts.url, await sign(privateKey));
    expect(ok.ok).toBe(true);
    if (ok.ok) await ok.room.leave(true);
    const bad = await joinWith(ts.url, await sign(other.privateKey));
    expect(bad).toMatchObject({ ok: false, code: 525, message: 'token signature invalid' });
    // An HS256 token is not accepted by an EdDSA verifier.
    const hs = await joinWith(ts.url, await hs256({ sub: 'x' }));
    expect(hs).toMatchObject({ ok: false, code: 525 });
  });
});

describe('without a verifier', () => {
  it('anyone joins (local play)', async () => {
    ts = await startTestServer();
    const r = await joinWith(ts.url, undefined);
    expect(r.ok).toBe(true);
    if (r.ok) await r.room.leave(true);
  });
});
