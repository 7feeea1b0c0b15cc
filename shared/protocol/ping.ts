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
 */
export class ServerClockEstimate {
  offsetMs = 0;
  samples = 0;

  /**
   * A ping arrived at local time `localNowMs`. It left the server about rtt/2 ago. The offset
   * moves by 1/8 of the difference per sample after the first, so one delayed ping does not make
   * the rendered time jump.
   */
  onPing(ping: PingMessage, localNowMs: number): void {
    const offset = ping.serverTimeMs + ping.rttMs / 2 - localNowMs;
    this.offsetMs = this.samples === 0 ? offset : this.offsetMs + (offset - this.offsetMs) / 8;
    this.samples++;
  }

  serverNow(localNowMs: number): number {
    return localNowMs + this.offsetMs;
  }
}
