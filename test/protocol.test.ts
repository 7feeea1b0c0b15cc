/**
 * The binary messages: shot, input and ping/pong encode/decode round trips (seeded property tests),
 * exact lengths, version bytes, unaligned payload offsets (how byte messages arrive), hostile
 * frames, and the client's server-clock estimate.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createShotMessage, decodeShot, encodeShot, FrameStatus, MAX_CLIENT_MESSAGE_BYTES, SHOT_BYTES, SHOT_VERSION } from '../shared/protocol/shot';
import { createInputMessage, decodeInput, encodeInput, INPUT_BYTES, InputStatus } from '../shared/protocol/input';
import { createPingMessage, decodePing, encodePing, PING_BYTES, ServerClockEstimate } from '../shared/protocol/ping';
import { InputStamper, PING_MARGIN_MS } from '../shared/client/stamps';
import { STREAM_SLACK_MS } from '../shared/validate/rules';
import { mulberry32 } from '../shared/util/prng';

const f64 = fc.double({ noDefaultInfinity: false });

describe('shot message', () => {
  it('round-trips every field bit for bit, at any byte offset inside a larger buffer', () => {
    fc.assert(
      fc.property(
        fc.record({
          weapon: fc.integer({ min: 0, max: 255 }),
          claimedTarget: fc.integer({ min: -32768, max: 32767 }),
          seq: fc.integer({ min: 0, max: 0xffffffff }),
          renderTimeMs: f64, sx: f64, sy: f64, sz: f64, ex: f64, ey: f64, ez: f64,
        }),
        fc.integer({ min: 0, max: 13 }),
        (fields, offset) => {
          const shot = { ...createShotMessage(), ...fields };
          const big = new Uint8Array(SHOT_BYTES + offset + 5);
          encodeShot(big, shot, offset);
          const view = big.subarray(offset, offset + SHOT_BYTES); // unaligned Uint8Array, as Colyseus delivers it
          const out = createShotMessage();
          expect(decodeShot(out, view)).toBe(FrameStatus.OK);
          for (const k of Object.keys(shot) as (keyof typeof shot)[]) if (k !== 'pellets') expect(Object.is(out[k], shot[k]), k).toBe(true);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('refuses anything but an exact 64-byte version-1 frame, reading the seq when it can', () => {
    const good = encodeShot(new Uint8Array(SHOT_BYTES), { ...createShotMessage(), seq: 77 });
    const out = createShotMessage();
    expect(decodeShot(out, good.subarray(0, 63))).toBe(FrameStatus.WRONG_LENGTH);
    expect(out.seq).toBe(77);
    expect(decodeShot(out, new Uint8Array([...good, 0]))).toBe(FrameStatus.WRONG_LENGTH);
    expect(decodeShot(out, good.subarray(0, 4))).toBe(FrameStatus.WRONG_LENGTH);
    expect(out.seq).toBe(-1);
    const v2 = good.slice();
    v2[0] = SHOT_VERSION + 1;
    expect(decodeShot(out, v2)).toBe(FrameStatus.WRONG_VERSION);
    expect(decodeShot(out, new Uint8Array(MAX_CLIENT_MESSAGE_BYTES + 1))).toBe(FrameStatus.OVERSIZED);
    for (const bad of [null, undefined, 'x', 1, {}, [1, 2], good.buffer, new Uint16Array(32)]) expect(decodeShot(out, bad)).toBe(FrameStatus.NOT_BYTES);
  });
});

describe('input message', () => {
  it('round-trips (as float32) and refuses NaN, Infinity, unknown buttons and bad frames', () => {
    fc.assert(
      fc.property(
        fc.record({
          seq: fc.integer({ min: 0, max: 0xffffffff }),
          buttons: fc.constantFrom(0, 1),
          wishX: fc.float({ noNaN: true, noDefaultInfinity: true }), wishZ: fc.float({ noNaN: true, noDefaultInfinity: true }),
          viewX: fc.float({ noNaN: true, noDefaultInfinity: true }), viewY: fc.float({ noNaN: true, noDefaultInfinity: true }), viewZ: fc.float({ noNaN: true, noDefaultInfinity: true }),
        }),
        (fields) => {
          const bytes = encodeInput(new Uint8Array(INPUT_BYTES), { ...createInputMessage(), ...fields });
          const out = createInputMessage();
          expect(decodeInput(out, bytes)).toBe(InputStatus.OK);
          expect(out.seq).toBe(fields.seq);
          expect(out.buttons).toBe(fields.buttons);
          for (const k of ['wishX', 'wishZ', 'viewX', 'viewY', 'viewZ'] as const) expect(Object.is(out[k], Math.fround(fields[k])), k).toBe(true);
        },
      ),
      { seed: 8, numRuns: 200 },
    );
    const out = createInputMessage();
    const before = { ...out };
    const nan = encodeInput(new Uint8Array(INPUT_BYTES), { ...createInputMessage(), viewY: Number.NaN });
    expect(decodeInput(out, nan)).toBe(InputStatus.NON_FINITE);
    const inf = encodeInput(new Uint8Array(INPUT_BYTES), { ...createInputMessage(), wishX: 1e39 }); // overflows float32 to Infinity
    expect(decodeInput(out, inf)).toBe(InputStatus.NON_FINITE);
    const buttons = encodeInput(new Uint8Array(INPUT_BYTES), { ...createInputMessage(), buttons: 2 });
    expect(decodeInput(out, buttons)).toBe(InputStatus.BAD_BUTTONS);
    expect(decodeInput(out, nan.subarray(1))).toBe(InputStatus.WRONG_LENGTH);
    const badTime = encodeInput(new Uint8Array(INPUT_BYTES), { ...createInputMessage(), timeMs: Number.POSITIVE_INFINITY });
    expect(decodeInput(out, badTime)).toBe(InputStatus.NON_FINITE);
    expect(out).toEqual(before);
    // The stamp round-trips; version 1 (28 bytes, no stamp) is still read, as unstamped.
    const stamped = encodeInput(new Uint8Array(INPUT_BYTES), { ...createInputMessage(), seq: 9, wishX: 1, timeMs: 12345.678 });
    expect(decodeInput(out, stamped)).toBe(InputStatus.OK);
    expect(out.timeMs).toBe(12345.678);
    const v1 = stamped.slice(0, 28);
    v1[0] = 1;
    expect(decodeInput(out, v1)).toBe(InputStatus.OK);
    expect([out.seq, out.wishX, out.timeMs]).toEqual([9, 1, 0]);
    const v1Padded = stamped.slice();
    v1Padded[0] = 1;
    expect(decodeInput(createInputMessage(), v1Padded)).toBe(InputStatus.WRONG_VERSION);
    Object.assign(out, before);
    expect(decodeInput(out, 'input')).toBe(InputStatus.NOT_BYTES);
    expect(out).toEqual(before); // refused inputs leave out untouched
  });
});

describe('ping and the client clock', () => {
  it('ping round-trips; pong has the same layout', () => {
    const b = encodePing(new Uint8Array(PING_BYTES), 0xfffffffe, 1234.5678, 87.25);
    const p = createPingMessage();
    expect(decodePing(p, b)).toBe(FrameStatus.OK);
    expect(p).toEqual({ id: 0xfffffffe, serverTimeMs: 1234.5678, rttMs: 87.25 });
    expect(decodePing(p, b.subarray(0, 23))).toBe(FrameStatus.WRONG_LENGTH);
  });

  it('the estimate converges to the server clock from pings with a measured round trip, ignoring unmeasured ones afterwards', () => {
    // Simulated: server clock = local + 5000; one-way delay 40 ms (rtt 80), +-10 ms jitter (seeded).
    const c = new ServerClockEstimate();
    let local = 0;
    let seed = 1;
    const jitter = () => {
      seed = (seed * 16807) % 2147483647;
      return ((seed / 2147483647) * 2 - 1) * 10;
    };
    // The first ping carries no round trip yet: a rough offset.
    c.onPing({ id: 1, serverTimeMs: 5000 + local - 40, rttMs: 0 }, local);
    expect(c.synced).toBe(false);
    for (let i = 0; i < 40; i++) {
      local += 250;
      const oneWay = 40 + jitter();
      c.onPing({ id: i + 2, serverTimeMs: 5000 + local - oneWay, rttMs: 80 }, local);
    }
    expect(c.synced).toBe(true);
    expect(Math.abs(c.serverNow(local) - (5000 + local))).toBeLessThan(6);
    // A round trip that was measured too large early (a busy server) stops counting at once.
    const d = new ServerClockEstimate();
    d.onPing({ id: 1, serverTimeMs: 5000 - 40, rttMs: 400 }, 0);
    expect(d.serverNow(0) - 5000).toBeGreaterThan(150); // ahead: the one sample said one-way 200 ms
    d.onPing({ id: 2, serverTimeMs: 5000 + 250 - 40, rttMs: 80 }, 250);
    expect(Math.abs(d.serverNow(250) - 5250)).toBeLessThan(1);
    const before = c.offsetMs;
    c.onPing({ id: 99, serverTimeMs: 0, rttMs: 0 }, local); // unmeasured after measured: ignored
    expect(c.offsetMs).toBe(before);
  });

  it('pings a TCP stall held back do not put the clock behind (the median, not the mean)', () => {
    // Server clock = local + 5000, one-way 40 ms; every 2.5 s a 600 ms stall holds the pings sent
    // in it (250 ms apart) until it ends: late by 600, 350 and 100 ms.
    const c = new ServerClockEstimate();
    let worst = 0;
    for (let i = 0; i < 80; i++) {
      const sent = i * 250;
      const inStall = sent % 2500 < 600;
      const arrive = (inStall ? sent - (sent % 2500) + 600 : sent) + 40;
      c.onPing({ id: i + 1, serverTimeMs: 5000 + sent - 40, rttMs: 80 }, arrive - 40);
      if (i >= 16) worst = Math.max(worst, Math.abs(c.serverNow(arrive) - (5000 + arrive)));
    }
    // The mean of the window (16 pings, 4 s: 1.6 stalls of 600 + 350 + 100 ms) sits about 100 ms
    // behind; the median stays on time.
    expect(worst).toBeLessThan(1);
  });

  it('a client that reads its messages late never claims an action behind a ping it answered (the server would refuse it BACKDATED)', () => {
    // Server clock = local + 1000, one-way 20 ms. A page drawing slow frames handles each ping up to
    // 250 ms late (handling delays drawn per ping), answers it at once, and fires just after; the
    // ping it last answered was handled at once. Its estimate (the median) sits behind that ping.
    const rand = mulberry32(4);
    for (let trial = 0; trial < 200; trial++) {
      const held = new ServerClockEstimate();
      const free = new ServerClockEstimate();
      const stamper = new InputStamper(64);
      let sent = 0;
      let handled = 0;
      for (let i = 0; i < 12; i++) {
        sent = 1000 + i * 250 + rand() * 20;
        const late = i === 11 ? 0 : 150 + rand() * 100;
        handled = sent - 1000 + 20 + late;
        const ping = { id: i + 1, serverTimeMs: sent, rttMs: 40 + late };
        held.onPing(ping, handled);
        free.onPing(ping, handled);
        stamper.answered(sent);
      }
      const fireAt = handled + 1;
      const claim = held.stamp(fireAt, stamper.floor - PING_MARGIN_MS);
      // The server's floor is the answered ping's send time; its slack STREAM_SLACK_MS.
      expect(claim).toBeGreaterThanOrEqual(sent - STREAM_SLACK_MS);
      // And never ahead of the server's own clock when it was sent.
      expect(claim).toBeLessThanOrEqual(fireAt + 1000);
      // Without the floor the same client would have claimed behind it.
      if (trial === 0) expect(free.stamp(fireAt)).toBeLessThan(sent - STREAM_SLACK_MS);
    }
  });
});
