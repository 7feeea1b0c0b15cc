/**
 * Hands out fog of war's precise mode (FogSlots.precise, ./fog) to viewers within a time budget:
 * the caller times one update in TIME_EVERY (timing() says which) and writes the time into `ms`
 * (shared code reads no clock; reading it where it is not inlined boxes a number, so not every
 * update). A precise viewer's pairs are decided on their plain regions where the grown ones show a
 * line, and a verdict found only from the regions' edges is re-tested every update: what the caches
 * give up of what is withheld, bought back with rays. On a walled level that costs little and the
 * budget takes every viewer; on open ground, or in a crowd, the cached verdicts already fill it and
 * none is made precise.
 *
 * The rule, after each timed update: the time is smoothed (a quarter of each new one); over the
 * budget, the viewer made precise last loses it; under GRANT_SHARE of the budget, the next present
 * viewer (round the slots) gains it, up to GRANT_MANY of them under GRANT_MANY_SHARE; then it waits
 * SETTLE_UPDATES timed updates for the smoothed time to show the change. Every ROTATE_UPDATES timed
 * updates while only some present viewers are precise, the one precise longest hands it to the
 * next, so no viewer keeps it or goes without for long. A time that is not finite or negative
 * changes nothing. Allocates nothing.
 */
import type { FogSlots } from './slots';

/** Share of the budget under which one more viewer is made precise. */
const GRANT_SHARE = 0.85;
/** One update in this many is timed. */
export const TIME_EVERY = 8;
/** Timed updates to wait after a change before the next. */
const SETTLE_UPDATES = 2;
/** Timed updates between hand-overs when only some viewers are precise (about a second at 64 Hz). */
const ROTATE_UPDATES = 8;
/** Under this share of the budget, GRANT_MANY viewers are made precise at once (a room filling up). */
const GRANT_MANY_SHARE = 0.5;
const GRANT_MANY = 4;

export class FogPrecision {
  /**
   * Times, ms, in an array (a double argument or field would be boxed per call): [0] a timed
   * update's start and [1] its end, written by the caller before adjust() (which clears [1]); [2] the
   * smoothed duration (NaN before the first); [3] this update's duration when it was timed (NaN when not).
   */
  readonly ms = new Float64Array([Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
  /** Precise viewers, in the order they became so (the first is the longest). */
  private readonly order: Int32Array;
  private count = 0;
  private next = 0;
  private wait = 0;
  private sinceRotate = 0;
  private updates = 0;

  /** budgetMs: the update time precision may fill (0: none is made precise). */
  constructor(capacity: number, readonly budgetMs: number) {
    this.order = new Int32Array(capacity);
  }

  /** How many viewers are precise. */
  get preciseCount(): number {
    return this.count;
  }

  /** Whether to time the coming update (one in TIME_EVERY); call once per update, before it. */
  timing(): boolean {
    this.updates = this.updates === TIME_EVERY - 1 ? 0 : this.updates + 1;
    this.ms[3] = Number.NaN;
    return this.updates === 0;
  }

  /** The smoothed update time, ms (NaN before the first). */
  get smoothedMs(): number {
    return this.ms[2]!;
  }

  /** This update's time, ms, when timing() said to time it and the time was valid; else NaN. */
  get lastTimedMs(): number {
    return this.ms[3]!;
  }

  /** After each update of `slots`: when it was timed (ms[0], ms[1]), grants, revokes or hands over one viewer's precision. */
  adjust(slots: FogSlots): void {
    this.prune(slots);
    const m = this.ms, d = m[1]! - m[0]!;
    m[1] = Number.NaN;
    if (!(d >= 0 && d < Infinity)) return;
    m[2] = m[2] === m[2] ? m[2]! + 0.25 * (d - m[2]!) : d;
    m[3] = d;
    if (!(this.budgetMs > 0)) return;
    if (this.wait > 0) {
      this.wait--;
      return;
    }
    if (m[2]! > this.budgetMs) {
      if (this.count > 0) {
        this.revokeLast(slots);
        this.wait = SETTLE_UPDATES;
      }
      return;
    }
    const free = this.nextFree(slots);
    if (free < 0) return;
    if (m[2]! < GRANT_SHARE * this.budgetMs) {
      this.grant(slots, free);
      for (let k = 1; k < GRANT_MANY && m[2]! < GRANT_MANY_SHARE * this.budgetMs; k++) {
        const more = this.nextFree(slots);
        if (more < 0) break;
        this.grant(slots, more);
      }
      this.wait = SETTLE_UPDATES;
    } else if (this.count > 0 && ++this.sinceRotate >= ROTATE_UPDATES) {
      // Hand over: the longest precise viewer to the next without it.
      slots.precise[this.order[0]!] = 0;
      this.order.copyWithin(0, 1, this.count);
      this.count--;
      this.grant(slots, free);
    }
  }

  /** Drops viewers no longer present (their slot's flag was cleared by removePlayer, or the slot left). */
  private prune(slots: FogSlots): void {
    let k = 0;
    for (let i = 0; i < this.count; i++) {
      const s = this.order[i]!;
      if (slots.present[s] === 1 && slots.precise[s] === 1) this.order[k++] = s;
      else slots.precise[s] = 0;
    }
    this.count = k;
  }

  /** The next present viewer without precision, from where the last grant left off (-1: none). */
  private nextFree(slots: FogSlots): number {
    const n = slots.capacity;
    for (let k = 0; k < n; k++) {
      const s = (this.next + k) % n;
      if (slots.present[s] === 1 && slots.precise[s] === 0) return s;
    }
    return -1;
  }

  private grant(slots: FogSlots, s: number): void {
    slots.precise[s] = 1;
    this.order[this.count++] = s;
    this.next = (s + 1) % slots.capacity;
    this.sinceRotate = 0;
  }

  private revokeLast(slots: FogSlots): void {
    this.count--;
    slots.precise[this.order[this.count]!] = 0;
  }
}
