// The simulator's network model (client-sim/net.ts): a TCP stream each way. Order is kept, a lost
// transmission costs a retransmission timeout that doubles on each repeat and holds back everything
// sent behind it, losses follow a Gilbert–Elliott chain whose statistics match its parameters,
// a bandwidth cap spaces messages by size, and the same seed gives the same deliveries.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MESSAGE_BYTES, GilbertElliott, Link, TcpStream, WIRE_OVERHEAD_BYTES, type Delivery, type NetConditions, type RandomSource } from '../client-sim/net';
import { Rng } from '../client-sim/rng';
import { scriptedLoss } from './helpers/scriptedLoss';

const fixed = (v: number): RandomSource => ({ next: () => v });

describe('TCP stream model', () => {
  it('delivers in send order, with jitter and bursts of loss, at no less than the one-way delay', () => {
    const c: NetConditions = { rttMs: 80, jitterMs: 30, loss: 0.05, burst: 3 };
    const s = new TcpStream(c, new Rng(1), GilbertElliott.fromLossAndBurst(c.loss, c.burst, new Rng(2)));
    let prev = -Infinity;
    let reordersWithoutTcp = 0;
    let lastArrived = -Infinity;
    let outOfOrder = 0, early = 0;
    const all: Delivery[] = [];
    for (let i = 0; i < 20_000; i++) all.push(s.push(i * 5));
    s.advance(Infinity);
    for (const d of all) {
      if (d.deliveredAt < prev) outOfOrder++;
      if (d.deliveredAt < d.sentAt + c.rttMs / 2 - c.jitterMs / 2) early++;
      if (d.arrivedAt < lastArrived) reordersWithoutTcp++;
      lastArrived = d.arrivedAt;
      prev = d.deliveredAt;
    }
    expect(outOfOrder).toBe(0);
    expect(early).toBe(0);
    expect(s.retransmitted).toBeGreaterThan(100);
    // The jitter alone would reorder messages 5 ms apart; the stream never does.
    expect(reordersWithoutTcp).toBeGreaterThan(1000);
  });

  it('a lost message waits at least the RTO and holds back every later message until it is delivered', () => {
    const c: NetConditions = { rttMs: 60, jitterMs: 0, loss: 0 };
    const s = new TcpStream(c, fixed(0.5), scriptedLoss([3]));
    expect(s.rtoMs).toBe(200); // max(200, 60 + 4 x 0)
    const d: Delivery[] = [];
    for (let i = 0; i < 40; i++) d.push(s.push(i * 10));
    s.advance(Infinity);
    const lost = d[3]!;
    expect(lost.attempts).toBe(2);
    expect(lost.deliveredAt - lost.sentAt).toBeGreaterThanOrEqual(s.rtoMs + c.rttMs / 2);
    expect(lost.deliveredAt).toBe(30 + 200 + 30);
    for (let i = 0; i < 3; i++) expect(d[i]!.deliveredAt).toBe(i * 10 + 30);
    // Everything sent before the retransmission landed is delivered with it, in one bunch.
    for (let i = 4; i < 40; i++) {
      expect(d[i]!.attempts).toBe(1);
      expect(d[i]!.deliveredAt).toBe(Math.max(lost.deliveredAt, i * 10 + 30));
    }
    expect(d.filter((x) => x.deliveredAt === lost.deliveredAt)).toHaveLength(1 + 20); // messages 3..23
    expect(s.lost).toBe(1);
    expect(s.retransmitted).toBe(1);
  });

  it('the loss chain runs over the transmissions in the order they go on the wire', () => {
    // Message 0 is lost (transmission 0); messages 1..19 go out every 10 ms (transmissions 1..19);
    // its retransmission at 200 ms is transmission 20 (after message 19's at 190 ms, before 20's at 200 ms by push order).
    const s = new TcpStream({ rttMs: 40, jitterMs: 0, loss: 0 }, fixed(0.5), scriptedLoss([0, 20]));
    const d: Delivery[] = [];
    for (let i = 0; i < 30; i++) d.push(s.push(i * 10));
    s.advance(Infinity);
    expect(d[0]!.attempts).toBe(3); // lost at 0 and again at 200: delivered after 200 + 400
    expect(d[0]!.deliveredAt).toBe(600 + 20);
    expect(d.slice(1).every((x) => x.attempts === 1)).toBe(true);
    // Settling step by step gives the same schedule as settling at the end.
    const t = new TcpStream({ rttMs: 40, jitterMs: 0, loss: 0 }, fixed(0.5), scriptedLoss([0, 20]));
    const e: Delivery[] = [];
    for (let i = 0; i < 30; i++) { e.push(t.push(i * 10)); t.advance(i * 10 + 3); }
    t.advance(Infinity);
    expect(e).toEqual(d);
  });

  it('the RTO doubles each time the same segment is lost again, and is at least 200 ms', () => {
    const c: NetConditions = { rttMs: 100, jitterMs: 40, loss: 0 };
    const s = new TcpStream(c, fixed(0.5), scriptedLoss([0, 1, 2]));
    expect(s.rtoMs).toBe(260); // rtt + 4 x jitter > 200
    const d = s.push(0);
    s.advance(Infinity);
    expect(d.attempts).toBe(4);
    expect(d.deliveredAt).toBe(260 + 520 + 1040 + 50);
    expect(s.maxRetransmitDelayMs).toBe(260 + 520 + 1040);
    const low = new TcpStream({ rttMs: 20, jitterMs: 5, loss: 0 }, fixed(0.5), scriptedLoss([]));
    expect(low.rtoMs).toBe(200);
    expect(new TcpStream({ rttMs: 20, jitterMs: 5, loss: 0, minRtoMs: 1000 }, fixed(0.5), scriptedLoss([])).rtoMs).toBe(1000);
  });

  it('loss rate, burst lengths and gaps match the Gilbert–Elliott parameters over a seeded run', () => {
    for (const [loss, burst] of [[0.02, 1 / 0.98], [0.05, 4], [0.2, 2.5]] as const) {
      const ge = GilbertElliott.fromLossAndBurst(loss, burst, new Rng(42));
      expect(ge.stationaryLoss).toBeCloseTo(loss, 12);
      expect(ge.meanBadRun).toBeCloseTo(burst, 12);
      const n = 400_000;
      let lost = 0, bursts = 0, run = 0, ones = 0, afterLoss = 0, lossAfterLoss = 0, prev = false;
      for (let i = 0; i < n; i++) {
        const l = ge.lose();
        if (prev) { afterLoss++; if (l) lossAfterLoss++; }
        if (l) { lost++; run++; } else if (run > 0) { bursts++; if (run === 1) ones++; run = 0; }
        prev = l;
      }
      const rate = lost / n;
      const meanBurst = lost / bursts;
      // 5% relative on the rate, 6% on the mean burst; bursts are geometric: P(length 1) = 1 / burst.
      expect(Math.abs(rate - loss) / loss, `loss ${loss} burst ${burst}: rate ${rate}`).toBeLessThan(0.05);
      expect(Math.abs(meanBurst - burst) / burst, `mean burst ${meanBurst}`).toBeLessThan(0.06);
      expect(Math.abs(ones / bursts - 1 / burst), `share of single losses ${ones / bursts}`).toBeLessThan(0.03);
      // P(loss | the previous was lost) = 1 - 1/burst; for independent losses that is the loss rate.
      expect(Math.abs(lossAfterLoss / afterLoss - (1 - 1 / burst))).toBeLessThan(0.03);
    }
    expect(() => GilbertElliott.fromLossAndBurst(0.5, 0.9, new Rng(1))).toThrow(/burst/);
    expect(() => GilbertElliott.fromLossAndBurst(1, 2, new Rng(1))).toThrow(/loss/);
  });

  it('scripted stalls: every period the first message sent waits 200 or 600 ms (the RTO and its doubling), and what queued behind it arrives at once', () => {
    for (const forMs of [200, 600]) {
      const s = new TcpStream({ rttMs: 60, jitterMs: 0, loss: 0, stalls: { everyMs: 1000, forMs, phaseMs: 95 } }, fixed(0.5), scriptedLoss([]));
      const d: Delivery[] = [];
      for (let i = 0; i < 300; i++) d.push(s.push(i * 10));
      s.advance(Infinity);
      expect(s.stalls).toBe(3);
      for (const k of [0, 1, 2]) {
        const first = d.findIndex((x) => x.sentAt >= 95 + 1000 * k);
        const held = d[first]!;
        expect(held.deliveredAt).toBe(held.sentAt + forMs + 30);
        // Everything sent during the stall is delivered with it; the one before it was not held.
        const behind = d.filter((x) => x.sentAt >= held.sentAt && x.sentAt + 30 <= held.deliveredAt);
        expect(behind.length).toBe(forMs / 10 + 1);
        for (const x of behind) expect(x.deliveredAt).toBe(held.deliveredAt);
        expect(d[first - 1]!.deliveredAt).toBe(d[first - 1]!.sentAt + 30);
      }
    }
    expect(() => new TcpStream({ rttMs: 60, jitterMs: 0, loss: 0, stalls: { everyMs: 100, forMs: 100 } }, fixed(0.5), scriptedLoss([]))).toThrow(RangeError);
  });

  it('a bandwidth cap puts messages on the wire one after another, each for its size over the rate', () => {
    const bw = 16_000; // bytes/s: 16 bytes per ms
    const s = new TcpStream({ rttMs: 40, jitterMs: 0, loss: 0, bandwidthBytesPerS: bw }, fixed(0.5), scriptedLoss([]));
    const sizes = [100, 1000, 28, 64, 500];
    const d = sizes.map((b) => s.push(0, b));
    s.advance(Infinity);
    let t = 0;
    for (let i = 0; i < sizes.length; i++) {
      t += ((sizes[i]! + WIRE_OVERHEAD_BYTES) / bw) * 1000;
      expect(d[i]!.onWireAt).toBeCloseTo(t, 9);
      expect(d[i]!.deliveredAt).toBeCloseTo(t + 20, 9);
    }
    // An idle link sends at once; without a cap nothing queues.
    expect(s.push(10_000).onWireAt).toBeCloseTo(10_000 + ((DEFAULT_MESSAGE_BYTES + WIRE_OVERHEAD_BYTES) / bw) * 1000, 9);
    const free = new TcpStream({ rttMs: 40, jitterMs: 0, loss: 0 }, fixed(0.5), scriptedLoss([]));
    const fd = sizes.map((b) => free.push(0, b));
    free.advance(Infinity);
    expect(fd.map((x) => x.deliveredAt)).toEqual(sizes.map(() => 20));
  });
});

describe('Link (timers)', () => {
  afterEach(() => { vi.useRealTimers(); });

  /** Sends a message every 7 ms for a second each way and returns when each was delivered. */
  function run(seed: number, c: NetConditions): { up: number[]; down: number[]; link: Link } {
    vi.useFakeTimers();
    const now = () => Date.now();
    const link = new Link(c, new Rng(seed), now);
    const up: number[] = [], down: number[] = [];
    const t0 = Date.now();
    for (let i = 0; i < 150; i++) {
      link.send(() => up.push(Date.now() - t0), 28);
      link.receive(() => down.push(Date.now() - t0), 200);
      vi.advanceTimersByTime(7);
    }
    vi.advanceTimersByTime(60_000);
    link.close();
    return { up, down, link };
  }

  it('delivers every message once, in order, and the same seed gives the same run', () => {
    const c: NetConditions = { rttMs: 100, jitterMs: 20, loss: 0.05, burst: 3, bandwidthBytesPerS: 64_000 };
    const a = run(7, c);
    expect(a.up).toHaveLength(150);
    expect(a.down).toHaveLength(150);
    for (const xs of [a.up, a.down]) for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThanOrEqual(xs[i - 1]!);
    expect(a.link.upstream.retransmitted + a.link.downstream.retransmitted).toBeGreaterThan(0);
    expect(a.link.dropped).toBe(0);
    const b = run(7, c);
    expect(b.up).toEqual(a.up);
    expect(b.down).toEqual(a.down);
    const other = run(8, c);
    expect(other.up).not.toEqual(a.up);
  });

  it('a closed link delivers nothing more and counts what it dropped', () => {
    vi.useFakeTimers();
    const link = new Link({ rttMs: 100, jitterMs: 0, loss: 0 }, new Rng(1), () => Date.now());
    let got = 0;
    for (let i = 0; i < 5; i++) expect(link.send(() => got++)).toBe(true);
    link.close();
    vi.advanceTimersByTime(1000);
    expect(got).toBe(0);
    expect(link.dropped).toBe(5);
    expect(link.send(() => got++)).toBe(false);
  });
});
