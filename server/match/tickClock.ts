/**
 * The room's tick clock: the server time each fixed tick's snapshot is stamped with, and the ticks
 * per wall-clock second the room really achieves. Tick k is stamped anchor + k * dt, so snapshots
 * are exactly dt apart like the motion they record; when the process stalls longer than a few ticks
 * the anchor jumps forward to the real time (time never runs backwards).
 */
export class TickClock {
  /** Ticks stamped so far. */
  count = 0;
  /** Ticks per wall-clock second over the last full measuring period (about 1 s); 0 before the first. */
  ticksPerSecond = 0;
  private anchorMs = 0;
  private lastMs = Number.NEGATIVE_INFINITY;
  private rateFromMs = Number.NaN;
  private rateFromTick = 0;

  /** The server time for tick `tick` of `dtMs`, given the room's real time now. */
  stamp(tick: number, dtMs: number, realMs: number): number {
    let t = this.anchorMs + tick * dtMs;
    if (realMs - t > 4 * dtMs) {
      this.anchorMs += realMs - t;
      t = realMs;
    }
    if (!(t > this.lastMs)) t = this.lastMs + dtMs / 1000;
    this.lastMs = t;
    this.count++;
    this.measure(realMs);
    return t;
  }

  /** Ticks per wall-clock second, over periods of at least a second of the room's clock. */
  private measure(realMs: number): void {
    if (Number.isNaN(this.rateFromMs)) {
      this.rateFromMs = realMs;
      this.rateFromTick = this.count;
    } else if (realMs - this.rateFromMs >= 1000) {
      this.ticksPerSecond = ((this.count - this.rateFromTick) * 1000) / (realMs - this.rateFromMs);
      this.rateFromMs = realMs;
      this.rateFromTick = this.count;
    }
  }
}
