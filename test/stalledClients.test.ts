/**
 * Clients that stop reading, over real sockets: beside two players who play and read, three clients
 * join the same room and pause their TCP reads (sending unasked pongs, so Colyseus's own ping check
 * leaves them be). Each is cut by the server's own rule (unsent data over stallMaxBytes for longer
 * than stallMaxMs): one `stalled_client` line each with its bytes and ms, counted in /metrics; the
 * players are not. A cut client that reads again in time gets CLOSE_STALLED; every cut client keeps
 * its slot, and one reconnects into it. With the default bound, a client that stops reading for a
 * couple of seconds under the same stream goes over the bytes but not for long enough, and stays.
 * Then StallWatch's rule alone, on a socket's two numbers.
 *
 * On loopback the kernel takes ~4 MB per connection before anything stays in the server process, and
 * the arena streams a player only 10-40 KB/s: the room therefore streams filler bytes to every client
 * (a few MB/s, as a heavier game's room could), which the players read and the stalled ones do not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { joinPair, sleep, startTestServer, TEST_SPAWNS, TestPlayer, buildTestWorld, waitFor, type TestServer } from './helpers/server';
import { StalledClient } from './helpers/stalledClient';
import { createLogger } from '../server/ops/log';
import { CLOSE_STALLED, DEFAULT_STALL_LIMITS, StallWatch, type StallCut, type StallSocket } from '../server/match/index';
import { HARD_FACTOR } from '../server/match/stalls';

const MAX_BYTES = 32 * 1024;
const MAX_MS = 300;
const FILLER = 'filler';

let ts: TestServer;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const sink = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>); cb(); } });
  ts = await startTestServer({
    level: buildTestWorld(), spawnPoints: TEST_SPAWNS, reconnectSeconds: 60,
    logger: createLogger({ format: 'json', level: 'warn', destination: sink }),
    limits: { stallMaxBytes: MAX_BYTES, stallMaxMs: MAX_MS, hostileLogPerMinute: 1000 },
  });
});
afterAll(async () => {
  await ts?.close();
});

const cutLine = (sessionId: string) => lines.find((l) => l.event === 'stalled_client' && l.sessionId === sessionId);

describe('clients that stop reading', () => {
  it('are cut with their own close code by the bound, keep their slots and reconnect into them; players who read stay', async () => {
    const [a, b] = await joinPair(ts.url);
    const read = new Map<TestPlayer, number>([[a, 0], [b, 0]]);
    for (const p of [a, b]) p.room.onMessage(FILLER, (bytes: Uint8Array) => read.set(p, read.get(p)! + bytes.length));
    const room = ts.server.rooms.get(a.room.roomId)!;
    const http = `http://127.0.0.1:${ts.port}`;
    const stalled: StalledClient[] = [];
    for (let i = 0; i < 3; i++) stalled.push(await StalledClient.join(http, room.roomId, { name: `stalled${i}` }));
    const slots = stalled.map((s) => room.slotOf(s.sessionId)!.index);
    expect(new Set([...slots, a.slot, b.slot]).size).toBe(5);

    const chunk = new Uint8Array(32 * 1024);
    const unsent = (s: StalledClient): number => (room.clients.find((x) => x.sessionId === s.sessionId)?.ref as unknown as { bufferedAmount: number } | undefined)?.bufferedAmount ?? 0;
    // Each connection is streamed to until it holds more than the bound: a stalled one then holds
    // between the bound and one chunk more (under HARD_FACTOR times it), and the held rule cuts it.
    const stream = setInterval(() => {
      if (stalled.every((s) => unsent(s) > MAX_BYTES)) clearInterval(stream);
      for (const c of room.clients) {
        if ((c.ref as unknown as { bufferedAmount: number }).bufferedAmount <= MAX_BYTES) c.sendBytes(FILLER, chunk);
      }
    }, 10);
    try {
      for (const s of stalled) s.stall(200);
      // The first to be cut reads again at once: it gets what was sent before the close, then the close.
      const [resumer, ...silent] = stalled as [StalledClient, ...StalledClient[]];
      await waitFor(() => cutLine(resumer.sessionId) !== undefined, 'the first stalled client cut', 30_000);
      resumer.resume();
      expect((await resumer.done).code).toBe(CLOSE_STALLED);
      for (const s of silent) await waitFor(() => cutLine(s.sessionId) !== undefined, `${s.sessionId} cut`, 30_000);
      // The server sees each drop once its socket is gone (reset after the close frame's grace).
      for (const s of stalled) await waitFor(() => room.state.players.get(s.sessionId)?.connected === false, `${s.sessionId} dropped`, 30_000);
    } finally {
      clearInterval(stream);
    }

    for (const s of stalled) {
      const line = cutLine(s.sessionId)!;
      expect(line).toMatchObject({ roomId: room.roomId, slot: room.slotOf(s.sessionId)!.index });
      expect(line.bytes as number).toBeGreaterThan(MAX_BYTES);
      expect(line.bytes as number).toBeLessThanOrEqual(HARD_FACTOR * MAX_BYTES);
      // Held past the bound; the line rounds the time to the ms (server/index.ts), so 300.3 ms reads 300.
      expect(line.ms as number).toBeGreaterThanOrEqual(MAX_MS);
      expect(line.rule).toBe('held');
    }
    expect(lines.filter((l) => l.event === 'stalled_client')).toHaveLength(3);
    expect(ts.server.stats.stalledCut).toBe(3);
    expect(await ts.server.metrics!.text()).toMatch(/^hitreg_stalled_clients_cut_total 3$/m);

    // The players read the same stream and stay, connected.
    for (const p of [a, b]) {
      expect(read.get(p)!).toBeGreaterThan(1024 * 1024);
      expect(room.state.players.get(p.room.sessionId)?.connected).toBe(true);
    }
    await a.snapshotsPass(3);

    // Every cut client kept its slot; one comes back into it.
    expect(stalled.map((s) => room.slotOf(s.sessionId)?.index)).toEqual(slots);
    const back = await TestPlayer.reconnect(ts.url, stalled[1]!.reconnectionToken);
    await back.until(() => back.clock.synced && back.snapshots.length > 2, 10_000, 'resynced');
    expect(back.room.sessionId).toBe(stalled[1]!.sessionId);
    expect(back.slot).toBe(slots[1]);
    expect(room.state.players.get(back.room.sessionId)?.connected).toBe(true);
    for (const s of stalled) s.terminate();
    await Promise.all([a.leave(), b.leave(), back.leave()]);
  });

  it('a connection whose unsent data passes HARD_FACTOR times the bound is cut at once', async () => {
    const a = await TestPlayer.create(ts.url, {});
    a.room.onMessage(FILLER, () => {});
    const room = ts.server.rooms.get(a.room.roomId)!;
    const c = await StalledClient.join(`http://127.0.0.1:${ts.port}`, room.roomId, { name: 'flooded' });
    const chunk = new Uint8Array(32 * 1024);
    const stream = setInterval(() => room.broadcastBytes(FILLER, chunk, {}), 10);
    try {
      c.stall(200);
      await waitFor(() => cutLine(c.sessionId) !== undefined, 'the flooded client cut', 30_000);
    } finally {
      clearInterval(stream);
    }
    const line = cutLine(c.sessionId)!;
    expect(line.rule).toBe('hard');
    expect(line.bytes as number).toBeGreaterThan(HARD_FACTOR * MAX_BYTES);
    // At most one tick's worth of chunks past the hard bound: what it costs stays bounded.
    expect(line.bytes as number).toBeLessThan(HARD_FACTOR * MAX_BYTES + 4 * chunk.length);
    c.terminate();
    await a.leave();
  });
});

describe('the default bound', () => {
  it('leaves a client alone that stops reading for a couple of seconds under a heavy stream, going over the bytes', async () => {
    const plain = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS });
    try {
      const a = await TestPlayer.create(plain.url, {});
      a.room.onMessage(FILLER, () => {});
      const room = plain.server.rooms.get(a.room.roomId)!;
      const c = await StalledClient.join(`http://127.0.0.1:${plain.port}`, room.roomId);
      const server = room.clients.find((x) => x.sessionId === c.sessionId)!.ref as unknown as { bufferedAmount: number; readyState: number };
      // Loopback's kernel buffers hold ~4 MB: a heavy stream fills them, then the stream drops to
      // 48 KB/s (a full room's rate, twice over) while the client stays stalled.
      const heavy = new Uint8Array(32 * 1024);
      const light = new Uint8Array(480);
      const limit = DEFAULT_STALL_LIMITS.maxBytes;
      const stream = setInterval(() => room.broadcastBytes(FILLER, server.bufferedAmount > limit ? light : heavy, {}), 10);
      try {
        c.stall();
        await waitFor(() => server.bufferedAmount > limit, 'unsent data over the default bound', 30_000);
        await sleep(1500); // a stall of a couple of seconds in all
        c.resume();
        await waitFor(() => server.bufferedAmount === 0 || server.readyState !== 1, 'the client to catch up', 30_000);
      } finally {
        clearInterval(stream);
      }
      expect(server.readyState).toBe(1);
      await a.snapshotsPass(3);
      expect(c.closed).toBeNull();
      expect(room.state.players.get(c.sessionId)?.connected).toBe(true);
      expect(plain.server.stats.stalledCut).toBe(0);
      c.terminate();
      await a.leave();
    } finally {
      await plain.close();
    }
  });
});

describe('StallWatch', () => {
  /** A socket as the watch reads it: its two numbers, and what was done to it. */
  function socket(bytes: number): StallSocket & { bufferedAmount: number; readyState: number; closedWith: number | null; terminated: boolean } {
    return {
      bufferedAmount: bytes, readyState: 1, closedWith: null, terminated: false,
      close(code?: number) { this.closedWith = code ?? null; this.readyState = 2; },
      terminate() { this.terminated = true; this.readyState = 3; },
    };
  }

  it('cuts a connection over maxBytes for longer than maxMs, once; one that drains below starts again', () => {
    const cuts: StallCut<string>[] = [];
    const w = new StallWatch<string>({ maxBytes: 1000, maxMs: 100, closeGraceMs: 0 }, (c) => cuts.push(c));
    const s = socket(1000);
    expect(w.check('a', s, 0)).toBe(false); // at the bound, not over
    s.bufferedAmount = 1001;
    expect(w.check('a', s, 10)).toBe(false);
    expect(w.over).toBe(1);
    expect(w.check('a', s, 110)).toBe(false); // over for exactly maxMs
    s.bufferedAmount = 10; // drained: the clock starts again
    expect(w.check('a', s, 111)).toBe(false);
    expect(w.over).toBe(0);
    s.bufferedAmount = 4000; // HARD_FACTOR times the bound: not yet cut at once
    expect(w.check('a', s, 200)).toBe(false);
    expect(w.check('a', s, 300)).toBe(false);
    expect(w.check('a', s, 301)).toBe(true);
    expect(cuts).toEqual([{ id: 'a', bytes: 4000, overMs: 101, rule: 'held' }]);
    expect(s.closedWith).toBe(CLOSE_STALLED);
    expect(s.terminated).toBe(true);
    // Closed: never cut again, nor counted.
    expect(w.check('a', s, 1000)).toBe(false);
    expect(w.cuts).toBe(1);
    expect(w.over).toBe(0);
    // Past HARD_FACTOR times the bound: cut on the spot, held or not.
    const t = socket(500);
    expect(w.check('b', t, 0)).toBe(false);
    t.bufferedAmount = 4001;
    expect(w.check('b', t, 1)).toBe(true);
    expect(cuts[1]).toEqual({ id: 'b', bytes: 4001, overMs: 0, rule: 'hard' });
  });

  it('a socket that is not open, or none, is left alone; forget drops what is known', () => {
    const w = new StallWatch<string>({ maxBytes: 10, maxMs: 0, closeGraceMs: 0 });
    const s = socket(30);
    s.readyState = 0;
    expect(w.check('a', s, 0)).toBe(false);
    expect(w.check('a', null, 0)).toBe(false);
    s.readyState = 1;
    expect(w.check('a', s, 0)).toBe(false);
    w.forget('a');
    expect(w.over).toBe(0);
    expect(() => new StallWatch({ maxMs: -1 })).toThrow(/maxMs = -1/);
  });
});
