/**
 * The room's tick clock: the server time each fixed tick's snapshot is stamped with, and the ticks
 * per wall-clock second the room really achieves. Tick k is stamped anchor + k * dt, so snapshots
 * are exactly dt apart like the motion they record, and the anchor keeps the stamps on the room's
 * real clock:
 * - never ahead of it: a fixed-step loop can run several steps at one instant (the first frame's
 *   catch-up), and a stamp later than the real time would tell clients a state exists before the
 *   server had it; the anchor moves back so the stamp is the real time (time never runs backwards).
 * - not behind it for long: a stall longer than the loop's catch-up drops steps and leaves every
 *   later stamp behind by what was dropped, an extra delay on every client's view. A stamp more
 *   than STALL_TICKS behind moves the anchor to STALL_TICKS behind the real time at once (the rest
 *   of the catch-up burst, dt apart, then ends on the real time); a smaller lag that lasts a whole
 *   measuring period (its smallest value over the period) is taken out at the period's end.
 */

/** A stamp more than this many ticks behind the real time moves the anchor at once: Colyseus's fixed step catches up at most 5 steps in one frame. */
const STALL_TICKS = 4;
/** Ticks per second are measured over at least this much of the room's clock, ms. */
const PERIOD_MS = 1000;
/** A lag that never fell below this over a period is taken out, ms (the timer's own lateness stays). */
const KEEP_LAG_MS = 1;

export class TickClock {
  /** Ticks stamped so far. */
  count = 0;
  /** Ticks per wall-clock second over the last full measuring period (about 1 s); 0 before the first. */
  ticksPerSecond = 0;
  private anchorMs = 0;
  private lastMs = Number.NEGATIVE_INFINITY;
  private rateFromMs = Number.NaN;
  private rateFromTick = 0;
  /** Smallest real time - stamp over the current period, ms. */
  private minLagMs = Number.POSITIVE_INFINITY;

  /** The server time for tick `tick` of `dtMs`, given the room's real time now. */
  stamp(tick: number, dtMs: number, realMs: number): number {
    let t = this.anchorMs + tick * dtMs;
    if (t > realMs) {
      this.anchorMs -= t - realMs;
      t = realMs;
    } else if (realMs - t > STALL_TICKS * dtMs) {
      this.anchorMs += realMs - t - STALL_TICKS * dtMs;
      t = realMs - STALL_TICKS * dtMs;
    }
    if (!(t > this.lastMs)) t = this.lastMs + dtMs / 1000;
    this.lastMs = t;
    this.count++;
    if (realMs - t < this.minLagMs) this.minLagMs = realMs - t;
    this.measure(realMs);
    return t;
  }

  /** Ticks per wall-clock second, and the period's lasting lag taken out, once per period of the room's clock. */
  private measure(realMs: number): void {
    if (Number.isNaN(this.rateFromMs)) {
      this.rateFromMs = realMs;
      this.rateFromTick = this.count;
    } else if (realMs - this.rateFromMs >= PERIOD_MS) {
      this.ticksPerSecond = ((this.count - this.rateFromTick) * 1000) / (realMs - this.rateFromMs);
      this.rateFromMs = realMs;
      this.rateFromTick = this.count;
      if (this.minLagMs > KEEP_LAG_MS) this.anchorMs += this.minLagMs - KEEP_LAG_MS;
      this.minLagMs = Number.POSITIVE_INFINITY;
    }
  }
}
