/**
 * Round-trip estimation for one player: the room's own ping/pong (shared/protocol/ping.ts),
 * measured against the room's send times, never a client-reported clock. The estimate is the median
 * of the last RTT_WINDOW samples: robust to one slow pong (around the join, a GC pause, a TCP
 * retransmission), which an exponential average would carry for many samples. Each ping id counts
 * once, so a replayed pong changes nothing.
 */
import { encodePing, type PingMessage } from '../../shared/protocol/ping';

/** Round-trip samples kept per player (the estimate is their median). */
export const RTT_WINDOW = 9;
/** How often the room pings each player by default, ms (createGameServer's pingIntervalMs): the median spans 2.25 s. */
export const DEFAULT_PING_INTERVAL_MS = 250;
/** Pings awaiting their pong per player; older ones are forgotten. */
const IN_FLIGHT = 8;
/** A sample longer than this is not a round trip (a client that held the pong), ms. */
const MAX_SAMPLE_MS = 5000;

/** What a pong was: its round trip counted, too late or odd to count, or no ping of ours. */
export const PongResult = { COUNTED: 0, IGNORED: 1, UNKNOWN_ID: 2 } as const;
export type PongResult = (typeof PongResult)[keyof typeof PongResult];

export class RoundTrip {
  /** The current estimate, ms (0 before the first sample). */
  rttMs = 0;
  /** Round trips this room told the client in its last pings (ServerClockEstimate reads them). */
  private readonly told = new Float64Array(IN_FLIGHT);
  samples = 0;
  /** When the ping the last taken pong answered was sent, room ms (NaN before one): the client acted after it. */
  answeredSentMs = Number.NaN;
  private readonly buf = new Float64Array(RTT_WINDOW);
  private readonly sort = new Float64Array(RTT_WINDOW);
  private readonly ids = new Uint32Array(IN_FLIGHT);
  private readonly sent = new Float64Array(IN_FLIGHT).fill(-1);
  private next = 0;

  reset(): void {
    this.rttMs = 0;
    this.samples = 0;
    this.answeredSentMs = Number.NaN;
    this.sent.fill(-1);
    this.told.fill(0);
  }

  /**
   * The largest round trip told to the client in its last pings, ms: a client's server clock
   * (ping time + told rtt / 2) runs ahead of the server's by at most half of it, so this bounds how
   * far in the future its claimed action times may honestly lie, even while the estimate falls.
   */
  toldMaxMs(): number {
    let m = this.rttMs;
    for (let k = 0; k < IN_FLIGHT; k++) if (this.told[k]! > m) m = this.told[k]!;
    return m;
  }

  /** Encodes a ping with id `id` sent at `nowMs` into `out` (PING_BYTES) and remembers it. */
  ping(out: Uint8Array, id: number, nowMs: number): Uint8Array {
    const k = this.next;
    this.next = (k + 1) % IN_FLIGHT;
    this.ids[k] = id;
    this.sent[k] = nowMs;
    this.told[k] = this.rttMs;
    return encodePing(out, id, nowMs, this.rttMs);
  }

  /** A decoded pong arriving at `nowMs`. */
  pong(p: PingMessage, nowMs: number): PongResult {
    for (let k = 0; k < IN_FLIGHT; k++) {
      if (this.ids[k] === p.id && this.sent[k]! >= 0) {
        const sample = nowMs - this.sent[k]!;
        this.answeredSentMs = this.sent[k]!;
        this.sent[k] = -1; // each ping counts once
        if (!(sample >= 0 && sample < MAX_SAMPLE_MS)) return PongResult.IGNORED;
        this.buf[this.samples % RTT_WINDOW] = sample;
        this.samples++;
        this.rttMs = median(this.buf, Math.min(this.samples, RTT_WINDOW), this.sort);
        return PongResult.COUNTED;
      }
    }
    return PongResult.UNKNOWN_ID;
  }
}

/** Median of the first n values of buf, using `sort` (length >= n) as scratch. */
function median(buf: Float64Array, n: number, sort: Float64Array): number {
  for (let i = 0; i < n; i++) {
    const v = buf[i]!;
    let j = i - 1;
    while (j >= 0 && sort[j]! > v) {
      sort[j + 1] = sort[j]!;
      j--;
    }
    sort[j + 1] = v;
  }
  return n % 2 === 1 ? sort[(n - 1) >> 1]! : (sort[n / 2 - 1]! + sort[n / 2]!) / 2;
}
