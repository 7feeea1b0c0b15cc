/**
 * A bot's clocks: the server clock from the room's pings (shared/protocol/ping.ts
 * ServerClockEstimate: ping time plus half the smallest round trip the server reported), the
 * server's round-trip estimate for this bot, and the tick rate the bot observes (state.tick over
 * its own wall clock, beside the room's nominal rate). Answering pings is the transport's job
 * (connection.ts); this only keeps the numbers.
 */
import { createPingMessage, decodePing, ServerClockEstimate } from '../shared/protocol/ping';

/** Ticks per second are measured over at least this much wall-clock time, ms. */
const RATE_PERIOD_MS = 1000;

export class BotClock {
  readonly estimate = new ServerClockEstimate();
  /** The server's round-trip estimate for this bot (carried by its pings), ms; 0 before the first. */
  rttMs = 0;
  /** Ticks per wall-clock second seen in the state patches over the last full period; 0 before. */
  ticksPerSecond = 0;
  private readonly ping = createPingMessage();
  private rateFromMs = Number.NaN;
  private rateFromTick = 0;
  private lastTick = -1;
  /** Sum of ticks and ms over every full measuring period (the run's mean). */
  ticksMeasured = 0;
  msMeasured = 0;

  /** A ping delivered at local time `now`. Returns false when the bytes are not a ping. */
  onPing(bytes: Uint8Array, now: number): boolean {
    if (decodePing(this.ping, bytes) !== 0) return false;
    this.estimate.onPing(this.ping, now);
    if (this.ping.rttMs > 0) this.rttMs = this.ping.rttMs;
    return true;
  }

  /** A state patch for server tick `tick`, delivered at local time `now`. */
  onTick(tick: number, now: number): void {
    if (tick <= this.lastTick) return;
    this.lastTick = tick;
    if (Number.isNaN(this.rateFromMs)) {
      this.rateFromMs = now;
      this.rateFromTick = tick;
    } else if (now - this.rateFromMs >= RATE_PERIOD_MS) {
      const ticks = tick - this.rateFromTick, ms = now - this.rateFromMs;
      this.ticksPerSecond = (ticks * 1000) / ms;
      this.ticksMeasured += ticks;
      this.msMeasured += ms;
      this.rateFromMs = now;
      this.rateFromTick = tick;
    }
  }

  /** Enough pings to trust the clock. */
  get synced(): boolean {
    return this.estimate.measured >= 3 && this.rttMs > 0;
  }

  serverNow(now: number): number {
    return this.estimate.serverNow(now);
  }

  /** An action time (never earlier than the previous one nor than `floorMs`): ServerClockEstimate.stamp. */
  stamp(now: number, floorMs = Number.NEGATIVE_INFINITY): number {
    return this.estimate.stamp(now, floorMs);
  }
}
