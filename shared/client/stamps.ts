/**
 * Stamps for a predicting client's movement inputs. A stamped input is a command for the tick at its
 * stamp, on the client's estimate of the server clock; a server that steps commands moves a player
 * only for commands at least half a tick apart (a burst claimed at one instant is one step), and
 * holds every message to what the same stream already stated (a ping it answered, an earlier
 * stamp). The client's clock estimate wobbles (it steps back a little when a ping comes late), and a
 * client that runs its ticks late (a busy event loop, a throttled tab) would stamp them before pings
 * it has answered since. InputStamper keeps the stamps honest under both: each the tick's own time,
 * but at least 0.6 ticks after the one before and never more than PING_MARGIN_MS before the newest
 * ping answered. It also keeps the client's stream floor: what its inputs, its ping answers and
 * the actions it reports with acted() have stated.
 */

/** How far before the send time of the newest ping it answered a client still stamps an input, ms. */
export const PING_MARGIN_MS = 50;
/** The least spacing between two input stamps, in ticks (the server merges those under half a tick). */
export const STAMP_SPACING_TICKS = 0.6;

export class InputStamper {
  /** The newest stamp given (NaN before the first). */
  newest = Number.NaN;
  /** The send time (server ms) of the newest ping the client answered, NaN before one. */
  answeredMs = Number.NaN;
  /** The newest claimed time of an action reported with acted(), NaN before one. */
  actedMs = Number.NaN;
  private readonly spacingMs: number;

  constructor(tickRate: number) {
    this.spacingMs = (STAMP_SPACING_TICKS * 1000) / tickRate;
  }

  /** The client answered a ping the server sent at server ms `sentMs` (the ping's serverTimeMs). */
  answered(sentMs: number): void {
    if (!(this.answeredMs >= sentMs)) this.answeredMs = sentMs;
  }

  /** An action claimed at `t` was sent, and the prediction carried it out. */
  acted(t: number): void {
    if (!(this.actedMs >= t)) this.actedMs = t;
  }

  /** The stamp for an input of the tick at server ms `t` (the client's clock at that tick). */
  stamp(t: number): number {
    let s = t;
    const spaced = this.newest + this.spacingMs;
    if (s < spaced) s = spaced;
    const pinged = this.answeredMs - PING_MARGIN_MS;
    if (s < pinged) s = pinged;
    this.newest = s;
    return s;
  }

  /** The newest time this client's inputs, ping answers and acted() actions stated (NaN: none): the server's floor for its actions. */
  get floor(): number {
    return later(later(this.newest, this.answeredMs), this.actedMs);
  }
}

/** The later of two times, NaN standing for none. */
export function later(a: number, b: number): number {
  return b > a || a !== a ? b : a;
}
