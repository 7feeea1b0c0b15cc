/**
 * Clock sync and round-trip measurement. The server sends `ping` every few hundred ms carrying an
 * id, its clock and its current round-trip estimate for this client; the client answers at once
 * with `pong`, echoing the same bytes. The server measures the round trip against its own send time
 * (it never trusts a time the client reports), and the client learns the server clock as the ping's
 * time plus half the round trip the server announced (ServerClockEstimate). Both ends therefore use
 * the same round trip, the one the shot-time estimate on the server is built from.
 *
 * Layout (version 1, 24 bytes, little-endian):
 *   0 u8 version, 1..3 zero, 4 u32 id, 8 f64 server time ms, 16 f64 server's RTT estimate ms (0 = none yet)
 */
import { checkFrame, FrameStatus, viewOf } from './shot';

export const PING_VERSION = 1;
export const PING_BYTES = 24;

export interface PingMessage {
  id: number;
  serverTimeMs: number;
  rttMs: number;
}

export function createPingMessage(): PingMessage {
  return { id: 0, serverTimeMs: 0, rttMs: 0 };
}

export function encodePing(out: Uint8Array, id: number, serverTimeMs: number, rttMs: number): Uint8Array {
  const v = new DataView(out.buffer, out.byteOffset, PING_BYTES);
  v.setUint8(0, PING_VERSION);
  v.setUint8(1, 0);
  v.setUint16(2, 0, true);
  v.setUint32(4, id >>> 0, true);
  v.setFloat64(8, serverTimeMs, true);
  v.setFloat64(16, rttMs, true);
  return out;
}

/** Reads a ping or a pong (same layout). Returns FrameStatus.OK or the reason it is not one. */
export function decodePing(out: PingMessage, bytes: unknown): FrameStatus {
  const status = checkFrame(bytes, PING_BYTES, PING_VERSION);
  if (status !== FrameStatus.OK) return status;
  const v = viewOf(bytes as Uint8Array);
  out.id = v.getUint32(4, true);
  out.serverTimeMs = v.getFloat64(8, true);
  out.rttMs = v.getFloat64(16, true);
  return FrameStatus.OK;
}

/**
 * Client side: the server clock from pings. The caller passes its own monotonic local time
 * (shared/ reads no clock). serverNow(local) = local + offsetMs.
 *
 * Each ping gives d = serverTime - localArrival, the true offset minus that ping's one-way delay.
 * The estimate is the median d of the last CLOCK_WINDOW pings plus half the smallest round trip the
 * server reported in them. A round trip measured while the connection was young or the server busy
 * is too large and would put the clock ahead of the server's (its shots would claim future times);
 * the minimum forgets it as soon as a normal sample arrives. Pings a TCP stall held back (their d
 * low by the stall) do not move the median while they are under half the window, so the clock
 * does not fall behind after a stall either: a server that holds claims to what the client's own
 * stream already said (an answered ping, an input stamp) refuses claims that fall behind it. Pings
 * sent before the server had measured a round trip (rttMs = 0) are used only until the first ping
 * with a measured round trip arrives.
 */
export const CLOCK_WINDOW = 16;

export class ServerClockEstimate {
  offsetMs = 0;
  samples = 0;
  /** Samples taken from pings that carried a measured round trip. */
  measured = 0;
  private readonly d = new Float64Array(CLOCK_WINDOW);
  private readonly rtt = new Float64Array(CLOCK_WINDOW);
  private readonly sorted = new Float64Array(CLOCK_WINDOW);

  onPing(ping: PingMessage, localNowMs: number): void {
    const known = ping.rttMs > 0;
    if (!known && this.measured > 0) return;
    this.samples++;
    if (!known) {
      this.offsetMs = ping.serverTimeMs - localNowMs;
      return;
    }
    const k = this.measured % CLOCK_WINDOW;
    this.d[k] = ping.serverTimeMs - localNowMs;
    this.rtt[k] = ping.rttMs;
    this.measured++;
    const n = Math.min(this.measured, CLOCK_WINDOW);
    let rMin = Number.POSITIVE_INFINITY;
    const sorted = this.sorted;
    for (let i = 0; i < n; i++) {
      // Insertion into the sorted prefix (n <= CLOCK_WINDOW: a handful of moves, no allocation).
      const v = this.d[i]!;
      let j = i - 1;
      while (j >= 0 && sorted[j]! > v) { sorted[j + 1] = sorted[j]!; j--; }
      sorted[j + 1] = v;
      if (this.rtt[i]! < rMin) rMin = this.rtt[i]!;
    }
    const median = (n & 1) === 1 ? sorted[n >> 1]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
    this.offsetMs = median + rMin / 2;
  }

  /** True once the offset rests on a measured round trip. */
  get synced(): boolean {
    return this.measured > 0;
  }

  serverNow(localNowMs: number): number {
    return localNowMs + this.offsetMs;
  }

  /**
   * The time to stamp an action with (shared/protocol/shot.ts): serverNow, never earlier than the
   * last stamp nor than `floorMs`. The offset moves with every ping, so serverNow alone can step
   * back a little, and the server refuses an action claimed before the previous one. A client that
   * handles its messages late (a slow frame, a busy event loop) reads every ping late, so its
   * estimate can sit behind a ping it has just answered; the server holds actions to the pings
   * answered (BACKDATED), so a predicting client passes its stream floor less PING_MARGIN_MS
   * (client/stamps.ts) as `floorMs`.
   */
  stamp(localNowMs: number, floorMs = Number.NEGATIVE_INFINITY): number {
    let t = this.serverNow(localNowMs);
    if (t < this.lastStamp) t = this.lastStamp;
    if (t < floorMs) t = floorMs;
    this.lastStamp = t;
    return t;
  }
  private lastStamp = Number.NEGATIVE_INFINITY;
}
