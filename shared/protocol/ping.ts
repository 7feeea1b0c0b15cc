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
 * Pings sent before the server had measured a round trip (rttMs = 0) say nothing about the one-way
 * delay, so they are used only until the first ping with a measured round trip arrives, which
 * replaces them. The next samples are averaged (the first 8), then the offset follows an
 * exponential average (1/8 per sample) so one delayed ping does not make the rendered time jump.
 */
export class ServerClockEstimate {
  offsetMs = 0;
  samples = 0;
  /** Samples taken from pings that carried a measured round trip. */
  measured = 0;

  onPing(ping: PingMessage, localNowMs: number): void {
    const known = ping.rttMs > 0;
    if (!known && this.measured > 0) return;
    const offset = ping.serverTimeMs + ping.rttMs / 2 - localNowMs;
    if (known) {
      this.measured++;
      if (this.measured === 1) this.offsetMs = offset;
      else if (this.measured <= 8) this.offsetMs += (offset - this.offsetMs) / this.measured;
      else this.offsetMs += (offset - this.offsetMs) / 8;
    } else {
      this.offsetMs = offset;
    }
    this.samples++;
  }

  /** True once the offset rests on a measured round trip. */
  get synced(): boolean {
    return this.measured > 0;
  }

  serverNow(localNowMs: number): number {
    return localNowMs + this.offsetMs;
  }
}
