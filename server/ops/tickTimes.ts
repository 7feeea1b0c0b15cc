/**
 * The wall time of every room tick of one process, kept exactly (not bucketed) in a fixed ring of
 * float32 milliseconds, so a load test can read the true percentiles of a window: `take()` returns
 * the ticks since the previous take (the newest `capacity` of them when more were run). Recording
 * is one store and allocates nothing.
 */
export class TickTimes {
  private readonly ring: Float32Array;
  private written = 0;
  private taken = 0;

  constructor(readonly capacity = 1 << 18) {
    this.ring = new Float32Array(capacity);
  }

  record(ms: number): void {
    this.ring[this.written % this.capacity] = ms;
    this.written++;
  }

  /** Ticks recorded so far. */
  get count(): number {
    return this.written;
  }

  /** The tick times since the last take, oldest first (at most `capacity`; `lost` says how many fell out). */
  take(): { ms: Float32Array; lost: number } {
    const n = this.written - this.taken;
    const keep = Math.min(n, this.capacity);
    const out = new Float32Array(keep);
    for (let i = 0; i < keep; i++) out[i] = this.ring[(this.written - keep + i) % this.capacity]!;
    this.taken = this.written;
    return { ms: out, lost: n - keep };
  }
}
