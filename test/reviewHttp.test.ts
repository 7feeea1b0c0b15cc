/**
 * The review page's HTTP side on a real game server (createGameServer with `evidence` and
 * `monitor`) over a SQLite store filled by `npm run audit -- --store` (test/helpers/reviewStore.ts):
 * every path asks for the monitor's password (401 without it, a wrong one, or a malformed header);
 * the ranking is the store's; a player's matches come with their offending shots (the store's rows)
 * and the log's bytes (their SHA-256 is the log id; a file gone or changed is not served); hostile
 * label bodies get a 4xx with a reason and write nothing; a label is stored with who (the name
 * given, else the signed-in user) and when (the server's clock). Then the configuration
 * (EVIDENCE_STORE needs MONITOR_PASSWORD; the page is not public) and `npm run review` alone.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvidenceStore } from '../server/evidence/store';
import { crossOfMatches, rankByCrossMatch, type CrossRankedPlayer } from '../server/evidence/cross';
import { DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration } from '../server/behaviour/crossCalibration';
import { ConfigError, readServerEnv } from '../server/ops/env';
import type { ReviewStore } from './helpers/reviewStore';
import { startReviewFixture, type ReviewFixture } from './helpers/reviewServer';
import { startTestServer, type TestServer } from './helpers/server';
import { Proc, killAll } from './helpers/process';
import { waitFor } from './helpers/wait';

const PASSWORD = 'review-secret-0123';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const ALICE = { playerId: 'alice', verified: false };
const CAL = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
let fixture: ReviewFixture;
let dir: string;
let filled: ReviewStore;
let ts: TestServer;
let store: EvidenceStore;

beforeAll(async () => {
  fixture = await startReviewFixture('review-http-', PASSWORD);
  ({ dir, filled, ts, store } = fixture);
});

afterAll(async () => {
  killAll();
  await fixture?.close();
});

interface Reply { status: number; headers: Headers; body: Record<string, unknown> | null; bytes: Uint8Array }
async function call(path: string, init: RequestInit & { auth?: string | null } = {}, base = `http://127.0.0.1:${ts.port}`): Promise<Reply> {
  const headers = new Headers(init.headers);
  const auth = init.auth === undefined ? AUTH : init.auth;
  if (auth !== null) headers.set('authorization', auth);
  const r = await fetch(base + path, { ...init, headers, redirect: 'manual' });
  const bytes = new Uint8Array(await r.arrayBuffer());
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    body = null;
  }
  return { status: r.status, headers: r.headers, body, bytes };
}
const postLabel = (body: string, init: RequestInit & { auth?: string | null } = {}): Promise<Reply> =>
  call('/review/api/label', { method: 'POST', body, ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });
const aliceLabel = (extra: Record<string, unknown> = {}): string => JSON.stringify({ ...ALICE, label: 'cheater', ...extra });

describe('the review page on the game server', () => {
  it('asks for the monitor password on every path and method: 401 without it, with a wrong one or a malformed header', async () => {
    const logId = (await store.playerMatches(ALICE))[0]!.logId;
    const paths = ['/review', '/review/', '/review/api/players', '/review/api/player/alice?verified=false', `/review/log/${logId}.hrml`, '/review/nothing'];
    const wrong = [null, `Basic ${Buffer.from(`admin:${PASSWORD}x`).toString('base64')}`, `Basic ${Buffer.from(`root:${PASSWORD}`).toString('base64')}`,
      `Basic ${Buffer.from(PASSWORD).toString('base64')}`, 'Basic !!!', `Bearer ${PASSWORD}`, 'Basic'];
    for (const auth of wrong) {
      for (const path of paths) {
        const r = await call(path, { auth });
        expect([path, auth, r.status], 'GET').toEqual([path, auth, 401]);
        expect(r.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"/);
      }
      expect((await postLabel(aliceLabel(), { auth })).status).toBe(401);
    }
    expect((await store.counts()).labels).toBe(0);
    // The same user and password open the monitor.
    expect((await call('/colyseus/', { auth: null })).status).toBe(401);
    expect((await call('/colyseus/')).status).toBe(200);
    // With the password: the page, and /review sends there.
    const page = await call('/review/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(new TextDecoder().decode(page.bytes)).toContain('Evidence review');
    const moved = await call('/review');
    expect([moved.status, moved.headers.get('location')]).toEqual([301, '/review/']);
  });

  it('ranks by the score across matches (the same entries as the ranking computed here), with the score and threshold per player', async () => {
    const r = await call('/review/api/players');
    expect(r.status).toBe(200);
    expect(r.body!.players).toEqual(await rankByCrossMatch(store, CAL));
    expect(String(r.body!.ranking)).toMatch(/^by the score across each player's matches/);
    expect(String(r.body!.ranking)).not.toMatch(/placeholder/);
    expect(r.body!.calibration).toEqual({ source: CAL.source, fpTarget: CAL.fpTarget, horizon: CAL.thresholds.length, thresholds: CAL.thresholds });
    const top = (r.body!.players as CrossRankedPlayer[])[0]!;
    // The silent aimer of two copies, honest in the third: its three matches pooled.
    const direct = crossOfMatches(await store.playerMatches(ALICE), CAL);
    expect([top.playerId, top.verified, top.matches, top.scoredMatches, top.flaggedMatches, top.note]).toEqual(['alice', false, 3, 3, 2, null]);
    expect([top.score, top.threshold, top.flagged]).toEqual([direct.score, direct.threshold, direct.flagged]);
    expect(top.flagged).toBe(true);
    expect(((await call('/review/api/players?limit=1')).body!.players as unknown[]).length).toBe(1);
    for (const bad of ['0', '-1', 'abc', '1001', '1e3', '']) {
      const b = await call(`/review/api/players?limit=${bad}`);
      expect([bad, b.status]).toEqual([bad, 400]);
      expect(String(b.body!.error)).toMatch(/limit/);
    }
  });

  it("serves a player's matches with their offending shots (the store's rows), and each log's bytes by its id", async () => {
    const r = await call('/review/api/player/alice?verified=false');
    expect(r.status).toBe(200);
    const matches = r.body!.matches as { logId: string; slot: number; path: string; offendingShots: number; log: string | null; offending: { slot: number; shot: number; measure: string }[] }[];
    expect(matches.map((m) => m.logId)).toEqual((await store.playerMatches(ALICE)).map((m) => m.logId));
    // Its score across matches as computed here, and each match's share in it.
    const direct = crossOfMatches(await store.playerMatches(ALICE), CAL);
    expect(r.body!.cross).toMatchObject({ matches: direct.matches, score: direct.score, threshold: direct.threshold, flagged: direct.flagged, drivers: direct.drivers.map((d) => ({ measure: d.measure, score: d.score, z: d.z })) });
    expect((r.body!.matches as { cross: unknown }[]).map((m) => m.cross)).toEqual(matches.map((m) => ({ share: direct.byMatch.find((b) => b.match === m.logId)!.z })));
    const rows = await store.offendingShots(ALICE);
    expect(matches.flatMap((m) => m.offending.map((o) => [m.logId, o.slot, o.shot, o.measure]))).toEqual(rows.map((o) => [o.logId, o.slot, o.shot, o.measure]));
    for (const m of matches) expect(m.offending.length).toBe(m.offendingShots);
    expect(matches.filter((m) => m.offending.length > 0).length).toBe(2);
    for (const m of matches) {
      expect(m.log).toBe(`review/log/${m.logId}.hrml`);
      const log = await call(`/${m.log!}`);
      expect(log.status).toBe(200);
      expect(createHash('sha256').update(log.bytes).digest('hex')).toBe(m.logId);
      expect(Buffer.from(log.bytes).equals(readFileSync(m.path))).toBe(true);
    }
    // A log moved away is not linked and not served; one whose bytes changed is not served either.
    const m = matches[0]!;
    renameSync(m.path, `${m.path}.away`);
    try {
      expect(((await call('/review/api/player/alice?verified=false')).body!.matches as { log: string | null }[])[0]!.log).toBeNull();
      expect((await call(`/${m.log!}`)).status).toBe(404);
      writeFileSync(m.path, 'another file now');
      expect((await call(`/${m.log!}`)).status).toBe(409);
    } finally {
      renameSync(`${m.path}.away`, m.path);
    }
    expect((await call(`/review/log/${'0'.repeat(64)}.hrml`)).status).toBe(404);
    expect((await call('/review/log/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
    // Players that are not there, and keys that are not keys.
    expect((await call('/review/api/player/alice?verified=true')).status).toBe(404);
    expect((await call('/review/api/player/zelda?verified=false')).status).toBe(404);
    for (const bad of ['/review/api/player/alice', '/review/api/player/alice?verified=maybe', '/review/api/player/%E0%A4%A?verified=false',
      `/review/api/player/${'a'.repeat(129)}?verified=false`, '/review/api/player/a%00b?verified=false', '/review/api/player/%ED%A0%80?verified=false']) {
      const b = await call(bad);
      expect([bad, b.status]).toEqual([bad, 400]);
      expect(typeof b.body!.error).toBe('string');
    }
  });

  it('refuses hostile label requests with their reason and writes nothing', async () => {
    const cases: [string, RequestInit, number, RegExp][] = [
      ['a label that is none of the three', { body: aliceLabel({ label: 'guilty' }) }, 400, /label: give one of cheater, clean, unsure/],
      ['a huge note', { body: aliceLabel({ note: 'x'.repeat(2001) }) }, 400, /note: at most 2000/],
      ['a note with a control character', { body: aliceLabel({ note: 'a\u0000b' }) }, 400, /note/],
      ['a note that is not text', { body: aliceLabel({ note: 42 }) }, 400, /note/],
      ['not JSON', { body: 'playerId=alice&label=cheater' }, 400, /not JSON/],
      ['JSON that is not an object', { body: '["alice"]' }, 400, /not a JSON object/],
      ['null', { body: 'null' }, 400, /not a JSON object/],
      ['an empty body', { body: '' }, 400, /not JSON/],
      ['a field of its own', { body: aliceLabel({ at: '2000-01-01T00:00:00Z' }) }, 400, /unknown field "at"/],
      ['verified as text', { body: aliceLabel({ verified: 'false' }) }, 400, /verified/],
      ['no player id', { body: JSON.stringify({ verified: false, label: 'clean' }) }, 400, /playerId/],
      ['a player id too long', { body: aliceLabel({ playerId: 'a'.repeat(129) }) }, 400, /playerId/],
      ['a reviewer on two lines', { body: aliceLabel({ reviewer: 'rita\nadmin' }) }, 400, /reviewer/],
      ['a reviewer name too long', { body: aliceLabel({ reviewer: 'r'.repeat(65) }) }, 400, /reviewer/],
      ['a player not in the store', { body: aliceLabel({ playerId: 'zelda' }) }, 404, /no such player/],
      ['not sent as JSON', { body: aliceLabel(), headers: { 'content-type': 'text/plain' } }, 415, /application\/json/],
      ['from another site', { body: aliceLabel(), headers: { origin: 'http://evil.example' } }, 403, /evil\.example/],
      ['a cross-site fetch', { body: aliceLabel(), headers: { 'sec-fetch-site': 'cross-site' } }, 403, /cross-site/],
    ];
    for (const [what, init, status, reason] of cases) {
      const r = await postLabel(String(init.body), init);
      expect([what, r.status], JSON.stringify(r.body)).toEqual([what, status]);
      expect(String(r.body?.error), what).toMatch(reason);
    }
    // A body past the server's cap is refused before it is read.
    const big = await postLabel(aliceLabel({ note: 'x'.repeat(20_000) }));
    expect(big.status).toBe(413);
    expect((await call('/review/api/label')).status).toBe(405);
    expect((await call('/review/api/players', { method: 'DELETE' })).status).toBe(405);
    expect(await store.counts()).toMatchObject({ labels: 0, matches: 3 });
    expect((await call('/review/api/players')).status).toBe(200);
  });

  it('stores a label with who (the name given, else the signed-in user) and when (server time), and shows the history', async () => {
    const before = new Date().toISOString();
    const r = await postLabel(aliceLabel({ note: 'aims through smoke\nevery round', reviewer: '  Rita  ' }));
    const after = new Date().toISOString();
    expect(r.status).toBe(201);
    const saved = r.body!.label as { id: string; label: string; reviewer: string; at: string; note: string };
    expect([saved.label, saved.reviewer, saved.note]).toEqual(['cheater', 'Rita', 'aims through smoke\nevery round']);
    expect(saved.at >= before && saved.at <= after).toBe(true);
    expect(await store.labels(ALICE)).toEqual([{ ...ALICE, ...saved }]);
    const second = await postLabel(JSON.stringify({ ...ALICE, label: 'unsure', note: '' }));
    expect(second.status).toBe(201);
    expect((await store.labels(ALICE)).map((l) => [l.label, l.reviewer, l.note])).toEqual([['cheater', 'Rita', 'aims through smoke\nevery round'], ['unsure', 'admin', null]]);
    const p = await call('/review/api/player/alice?verified=false');
    expect((p.body!.labels as { label: string }[]).map((l) => l.label)).toEqual(['cheater', 'unsure']);
    expect(((await call('/review/api/players')).body!.players as { label: string | null }[])[0]!.label).toBe('unsure');
  });
});

describe('configuration', () => {
  it('a store needs the monitor password; EVIDENCE_STORE reads as the option; the page is not served without a store or in public', async () => {
    await expect(startTestServer({ evidence: { store: filled.store } })).rejects.toThrow(/monitor/);
    expect(() => readServerEnv({ EVIDENCE_STORE: filled.store, MATCH_LOG_DIR: 'off' })).toThrow(ConfigError);
    expect(() => readServerEnv({ EVIDENCE_STORE: filled.store, MATCH_LOG_DIR: 'off' })).toThrow(/MONITOR_PASSWORD/);
    const pw = { MONITOR_PASSWORD: PASSWORD, MATCH_LOG_DIR: 'off' };
    expect(readServerEnv({ ...pw, EVIDENCE_STORE: filled.store }).evidenceStore).toBe(filled.store);
    expect(readServerEnv({ ...pw, EVIDENCE_STORE: 'on', DATABASE_URL: 'postgres://u@db/evidence' }).evidenceStore).toBe('postgres://u@db/evidence');
    expect(readServerEnv({ ...pw, EVIDENCE_STORE: 'off' }).evidenceStore).toBeNull();
    expect(readServerEnv(pw).evidenceStore).toBeNull();
    expect(() => readServerEnv({ ...pw, EVIDENCE_STORE: dir })).toThrow(/directory/);
    expect(() => readServerEnv({ ...pw, EVIDENCE_STORE: 'redis://127.0.0.1:6379' })).toThrow(/EVIDENCE_STORE/);
    // Without a store there is no review page; with one, review.html is not served in public.
    const plain = await startTestServer({ monitor: { password: PASSWORD } });
    try {
      const r = await call('/review/api/players', {}, `http://127.0.0.1:${plain.port}`);
      expect(r.status).toBe(404);
    } finally {
      await plain.close();
    }
    const shell = await call('/review.html', { auth: null });
    expect(shell.status).toBe(404);
    expect((await call('/replay.html', { auth: null })).status).toBe(200);
  });
});

describe('npm run review', () => {
  it('serves the page alone over a store, prints its URL, asks for the password, and stops on SIGTERM', async () => {
    // The script npm runs, without npm in between (npm dies of the signal instead of passing on the exit code).
    const p = new Proc(process.execPath, ['--import', 'tsx', 'server/evidence/review/cli.ts', '--store', filled.store, '--port', '0', '--password', PASSWORD], {});
    await waitFor(() => p.stdout.some((l) => l.startsWith('review page ')) || p.exit !== null, 'the review page URL', 60_000);
    const line = p.stdout.find((l) => l.startsWith('review page '));
    expect(line, p.stderr).toMatch(/^review page http:\/\/127\.0\.0\.1:\d+\/review\/ \(user admin\) over \//);
    expect(line).not.toContain(PASSWORD);
    const url = /(http:\S+)/.exec(line!)![1]!;
    const base = url.replace(/\/review\/$/, '');
    expect((await call('/review/api/players', { auth: null }, base)).status).toBe(401);
    const r = await call('/review/api/players', {}, base);
    expect(r.status).toBe(200);
    expect(r.body!.players).toEqual(await rankByCrossMatch(store, CAL));
    // What the replay viewer needs: the page and the world it fetches by hash.
    expect((await call('/replay.html', { auth: null }, base)).status).toBe(200);
    expect((await call(`/assets/world/${ts.server.world.hash}.hrwb`, { auth: null }, base)).status).toBe(200);
    p.kill('SIGTERM');
    expect((await p.exitWithin(10_000)).code).toBe(0);
  });
});
