/**
 * A client's budget of refused messages: a token bucket that every refused message (a rejected
 * weapon message, a refused input or pong, an unknown message type) draws from. An honest client
 * never empties it; a flooding one does, and from then on its messages are dropped unjudged (they
 * change nothing, so the match log, which records only judged messages, stays replayable) and
 * counted, until the bucket refills. A client that does not let the bucket refill to half within
 * `disconnectAfterMs` of first running dry is disconnected with CLOSE_OVER_BUDGET.
 */

export interface RejectBudgetConfig {
  /** Refused messages a client may send per second, sustained. */
  perSecond: number;
  /** Refused messages a client may send at once. */
  burst: number;
  /** Disconnect a client that stays over budget this long, ms. */
  disconnectAfterMs: number;
}

export const DEFAULT_REJECT_BUDGET: Readonly<RejectBudgetConfig> = Object.freeze({ perSecond: 20, burst: 60, disconnectAfterMs: 3000 });

/** WebSocket close code for a client disconnected for flooding refused messages. */
export const CLOSE_OVER_BUDGET = 4429;

export class RejectBudget {
  private tokens: number;
  private lastMs = Number.NaN;
  /** Since when the client is over budget (NaN when it is not). */
  overSinceMs = Number.NaN;
  /** Messages dropped unjudged and not yet written to the log. */
  dropped = 0;
  /** All messages dropped unjudged. */
  droppedTotal = 0;

  constructor(private readonly cfg: RejectBudgetConfig) {
    this.tokens = cfg.burst;
  }

  private refill(nowMs: number): void {
    if (this.lastMs === this.lastMs) this.tokens = Math.min(this.cfg.burst, this.tokens + ((nowMs - this.lastMs) * this.cfg.perSecond) / 1000);
    this.lastMs = nowMs;
  }

  /** May a message be judged now? False: drop it unjudged (it is counted). */
  admit(nowMs: number): boolean {
    this.refill(nowMs);
    // Over budget until the bucket is half full again: a flood that the refill lets a message
    // through now and then stays over budget.
    if (this.tokens >= this.cfg.burst / 2) this.overSinceMs = Number.NaN;
    if (this.tokens >= 1) return true;
    if (!(this.overSinceMs === this.overSinceMs)) this.overSinceMs = nowMs;
    this.dropped++;
    this.droppedTotal++;
    return false;
  }

  /** A judged message was refused: it costs a token. */
  charge(nowMs: number): void {
    this.refill(nowMs);
    this.tokens -= 1;
  }

  /** Over budget for longer than allowed: time to disconnect. */
  exhausted(nowMs: number): boolean {
    return this.overSinceMs === this.overSinceMs && nowMs - this.overSinceMs >= this.cfg.disconnectAfterMs;
  }
}
