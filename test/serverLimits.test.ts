/**
 * The server's limits against a real server, each crossed on purpose: request bodies over the cap
 * (declared and chunked) get 413 without being buffered; room creation past the per-address budget
 * gets 429 while another address still creates; `create` past the room cap gets 503; rooms whose
 * seats expire without a connection are disposed and leave no match log; oversized WebSocket
 * frames and invalid UTF-8 message types become rate-limited one-line events (no stack), counted
 * in full. Then the building blocks alone: token buckets, the hostile log's minute, text logs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { startTestServer, TestPlayer, waitFor, type TestServer } from './helpers/server';
import { createLogger, HostileLog, classifyLibraryError } from '../server/ops/log';
import { TokenBuckets } from '../server/ops/limits';

let ts: TestServer | null = null;
afterEach(async () => {
  await ts?.close();
  ts = null;
});

interface HttpReply { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** One HTTP request over loopback; `from` picks the source address (127.0.0.x are all this machine). */
function http(port: number, method: string, path: string, body: string | Buffer | null, opts: { from?: string; headers?: Record<string, string>; chunked?: boolean } = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', ...opts.headers };
    if (body !== null && !opts.chunked) headers['content-length'] = Buffer.byteLength(body);
    const req = request({ host: '127.0.0.1', port, method, path, headers, localAddress: opts.from, agent: false }, (res) => {
      let data = '';
      res.setEncoding('utf8').on('data', (d: string) => { data += d; }).on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    if (body !== null) req.end(body);
    else req.end();
  });
}

/** A logger whose lines land in `lines` (JSON objects). */
function captureLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); cb(); } });
  return createLogger({ format: 'json', level: 'info', destination: sink });
}

describe('request bodies', () => {
  it('a body over the cap is refused with 413, declared or chunked; a normal one creates a room', async () => {
    ts = await startTestServer({ limits: { maxBodyBytes: 1024 } });
    const ok = await http(ts.port, 'POST', '/matchmake/create/arena', '{}');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).roomId).toBeTypeOf('string');

    const big = await http(ts.port, 'POST', '/matchmake/create/arena', JSON.stringify({ pad: 'x'.repeat(5000) }));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error).toMatch(/over 1024 bytes/);

    const chunked = await http(ts.port, 'POST', '/matchmake/create/arena', JSON.stringify({ pad: 'x'.repeat(5000) }), { chunked: true });
    expect(chunked.status).toBe(413);

    // A 256 MiB declared body is refused from its header alone: nothing is read or buffered.
    const rss0 = process.memoryUsage.rss();
    const huge = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: ts!.port, method: 'POST', path: '/matchmake/create/arena', headers: { 'content-type': 'application/json', 'content-length': 256 * 1024 * 1024 }, agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.write('{"a":"');
    });
    expect(huge).toBe(413);
    expect(process.memoryUsage.rss() - rss0).toBeLessThan(64 * 1024 * 1024);
    expect(ts.server.hostile.counts.get('http_body_too_large')).toBe(3);
    expect(ts.server.rooms.size).toBe(1);
  });
});

describe('rooms', () => {
  it('room creation past the per-address budget gets 429 with Retry-After; another address still creates', async () => {
    ts = await startTestServer({ limits: { roomCreateBurst: 3, roomCreatePerMinute: 6, seatReservationSeconds: 30 } });
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await http(ts.port, 'POST', '/matchmake/create/arena', '{}')).status);
    expect(codes).toEqual([200, 200, 200, 429, 429, 429]);
    // Joining a known room is not creating one.
    const roomId = [...ts.server.rooms.keys()][0]!;
    expect((await http(ts.port, 'POST', `/matchmake/joinById/${roomId}`, '{}')).status).toBe(200);
    // A joinOrCreate that would join a room with free seats costs nothing...
    expect((await http(ts.port, 'POST', '/matchmake/joinOrCreate/arena', '{}')).status).toBe(200);
    // ...one that would create a room is refused like create.
    await Promise.all([...ts.server.rooms.values()].map((r) => r.lock()));
    const refused = await http(ts.port, 'POST', '/matchmake/joinOrCreate/arena', '{}');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(10);
    const other = await http(ts.port, 'POST', '/matchmake/create/arena', '{}', { from: '127.0.0.2' });
    expect(other.status).toBe(200);
    expect(ts.server.rooms.size).toBe(4);
    expect(ts.server.hostile.counts.get('room_create_rate')).toBe(4);
  });

  it('create past the room cap gets 503; a joinOrCreate that would create past it is refused by the room', async () => {
    ts = await startTestServer({ limits: { maxRooms: 2, seatReservationSeconds: 30 } });
    expect((await http(ts.port, 'POST', '/matchmake/create/arena', '{}')).status).toBe(200);
    expect((await http(ts.port, 'POST', '/matchmake/create/arena', '{}')).status).toBe(200);
    const full = await http(ts.port, 'POST', '/matchmake/create/arena', '{}');
    expect(full.status).toBe(503);
    expect(JSON.parse(full.body).error).toMatch(/server full: 2 rooms/);
    // Both rooms have free seats: joinOrCreate joins one.
    expect((await http(ts.port, 'POST', '/matchmake/joinOrCreate/arena', '{}')).status).toBe(200);
    expect(ts.server.rooms.size).toBe(2);
    // Fill both rooms' seats, then joinOrCreate must create: the room refuses past the cap.
    await Promise.all([...ts.server.rooms.values()].map((r) => r.lock()));
    const over = await http(ts.port, 'POST', '/matchmake/joinOrCreate/arena', '{}');
    expect(over.status).not.toBe(200);
    expect(over.body).toMatch(/server full/);
    expect(ts.server.rooms.size).toBe(2);
  });

  it('rooms whose seats expire without a connection are disposed and leave no match log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hitreg-seat-'));
    try {
      ts = await startTestServer({ matchLogDir: dir, limits: { seatReservationSeconds: 1 } });
      for (let i = 0; i < 5; i++) expect((await http(ts.port, 'POST', '/matchmake/create/arena', '{}')).status).toBe(200);
      expect(ts.server.rooms.size).toBe(5);
      // And one room a player really joins.
      const p = await TestPlayer.create(ts.url);
      await p.until(() => p.snapshots.length > 3, 5000, 'snapshots');
      const server = ts.server;
      await waitFor(() => server.rooms.size <= 1, 'the unjoined rooms disposed');
      expect(ts.server.rooms.size).toBe(1);
      expect(readdirSync(dir).filter((f) => f.endsWith('.hrml'))).toHaveLength(1);
      await p.leave();
      await ts.close();
      ts = null;
      expect(readdirSync(dir).filter((f) => f.endsWith('.hrml'))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hostile events in the log', () => {
  it('oversized frames: one line each up to the rate, no stack, every one counted', async () => {
    const lines: Record<string, unknown>[] = [];
    ts = await startTestServer({ logger: captureLogger(lines), limits: { hostileLogPerMinute: 5 } });
    const N = 30;
    await Promise.all(Array.from({ length: N }, () => new Promise<void>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${ts!.port}/`);
      ws.on('open', () => ws.send(Buffer.alloc(8192, 1)));
      ws.on('close', () => resolve());
      ws.on('error', () => {});
    })));
    const hostile = ts.server.hostile;
    await waitFor(() => (hostile.counts.get('ws_frame_too_large') ?? 0) >= N, 'every oversized frame counted');
    expect(ts.server.hostile.counts.get('ws_frame_too_large')).toBe(N);
    const printed = lines.filter((l) => l.event === 'ws_frame_too_large');
    expect(printed).toHaveLength(5);
    for (const l of printed) {
      expect(JSON.stringify(l)).not.toMatch(/\n|    at /);
      expect(l.level).toBe(40);
    }
    // The server still serves.
    expect((await http(ts.port, 'POST', '/matchmake/create/arena', '{}')).status).toBe(200);
    const metrics = await http(ts.port, 'GET', '/metrics', null);
    expect(metrics.body).toMatch(new RegExp(`hitreg_hostile_events_total\\{kind="ws_frame_too_large"\\} ${N}`));
  });

  it('message types that are not UTF-8: no console line per message, rate-limited events instead', async () => {
    const lines: Record<string, unknown>[] = [];
    // Installed before the server starts, so the server's console router passes other lines to it.
    const consoleLines: unknown[][] = [];
    const original = console.error;
    console.error = (...a: unknown[]) => { consoleLines.push(a); };
    try {
      ts = await startTestServer({ logger: captureLogger(lines), limits: { hostileLogPerMinute: 3 } });
      const p = await TestPlayer.create(ts.url);
      await p.until(() => p.snapshots.length > 3, 5000, 'snapshots');
      const N = 40;
      // ROOM_DATA (13), then a msgpack fixstr of 3 bytes that are not UTF-8.
      for (let i = 0; i < N; i++) (p.room.connection as unknown as { send(d: Uint8Array): void }).send(new Uint8Array([13, 0xa3, 0xff, 0xfe, 0xfd]));
      const hostile = ts.server.hostile;
      await waitFor(() => (hostile.counts.get('ws_invalid_utf8') ?? 0) >= N, 'every invalid message counted');
      expect(ts.server.hostile.counts.get('ws_invalid_utf8')).toBe(N);
      expect(lines.filter((l) => l.event === 'ws_invalid_utf8')).toHaveLength(3);
      // Other console.error lines still get through the router.
      console.error('unrelated line');
      expect(consoleLines).toEqual([['unrelated line']]);
      await p.leave();
      await ts.close();
      ts = null;
    } finally {
      console.error = original;
    }
  });
});

describe('building blocks', () => {
  it('TokenBuckets: a burst, then the refill rate; addresses apart; a bounded number of addresses', () => {
    let now = 0;
    const b = new TokenBuckets(3, 60, () => now, 4);
    expect([b.take('a'), b.take('a'), b.take('a'), b.take('a')]).toEqual([true, true, true, false]);
    expect(b.retryAfterSeconds('a')).toBe(1);
    expect(b.take('b')).toBe(true);
    now += 999;
    expect(b.take('a')).toBe(false);
    now += 1;
    expect(b.take('a')).toBe(true);
    now += 10_000; // 10 tokens' worth, capped at the burst of 3
    expect([b.take('a'), b.take('a'), b.take('a'), b.take('a')]).toEqual([true, true, true, false]);
    for (const k of ['c', 'd', 'e', 'f', 'g']) b.take(k);
    expect(b.size).toBeLessThanOrEqual(4);
    expect(new TokenBuckets(1, 0, () => now).retryAfterSeconds('x')).toBe(0);
    const none = new TokenBuckets(1, 0, () => now);
    none.take('x');
    expect(none.retryAfterSeconds('x')).toBe(Number.POSITIVE_INFINITY);
  });

  it('HostileLog: per kind per minute, then one line counting the rest; every event counted', () => {
    let now = 0;
    const lines: Record<string, unknown>[] = [];
    const seen: string[] = [];
    const h = new HostileLog(captureLogger(lines), { perMinute: 2, now: () => now, onEvent: (k) => seen.push(k) });
    for (let i = 0; i < 5; i++) h.report('a', { i });
    h.report('b');
    expect(lines.map((l) => [l.event, l.i])).toEqual([['a', 0], ['a', 1], ['b', undefined]]);
    now = 60_000;
    h.report('a', { i: 5 });
    expect(lines.slice(3).map((l) => [l.event, l.suppressed ?? l.i])).toEqual([['a', 3], ['a', 5]]);
    expect(h.counts.get('a')).toBe(6);
    expect(seen).toHaveLength(7);
  });

  it('text logs: the status line as itself, other records as message and fields', () => {
    let out = '';
    const log = createLogger({ format: 'text', destination: { write: (s: string) => { out += s; return true; } } });
    log.info({ text: '[arena] rooms 1 players 2' }, 'status');
    log.warn({ event: 'room_cap', rooms: 3 }, 'room refused');
    expect(out).toBe('[arena] rooms 1 players 2\nwarn: room refused event=room_cap rooms=3\n');
  });

  it('library errors a client can cause are classified; others are not', () => {
    expect(classifyLibraryError('RangeError: Max payload size exceeded\n    at Receiver')).toBe('ws_frame_too_large');
    expect(classifyLibraryError('decode.utf8Read(): Invalid byte 255 at offset 3.')).toBe('ws_invalid_utf8');
    expect(classifyLibraryError('Error: Invalid WebSocket frame: RSV1 must be clear')).toBe('ws_bad_frame');
    expect(classifyLibraryError('TypeError: cannot read x of undefined')).toBeNull();
  });
});
