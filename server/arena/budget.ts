/**
 * A client's budget of refused messages: a token bucket that every refused message (a rejected
 * weapon message, a refused input or pong, an unknown message type) draws from. An honest client
 * never empties it; a flooding one does, and from then on its messages are dropped unjudged (they
 * change nothing, so the match log, which records only judged messages, stays replayable) and
 * counted, until the bucket refills. A client that does not let the bucket refill to half within
 * `disconnectAfterMs` of first running dry is disconnected with CLOSE_OVER_BUDGET.
 */
import { CLOSE_OVER_BUDGET } from '../../shared/index';

/** A structured line about a hostile client (rate-limited by the room). */
export interface HostileEvent {
  event: 'refused' | 'throttled' | 'disconnected';
  roomId: string;
  sessionId: string;
  slot: number;
  /** Refused (or dropped) messages since the last event of this client. */
  count: number;
  /** The last reason a message was refused for. */
  reason: string;
}

export interface RejectBudgetConfig {
  /** Refused messages a client may send per second, sustained. */
  perSecond: number;
  /** Refused messages a client may send at once. */
  burst: number;
  /** Disconnect a client that stays over budget this long, ms. */
  disconnectAfterMs: number;
}

export const DEFAULT_REJECT_BUDGET: Readonly<RejectBudgetConfig> = Object.freeze({ perSecond: 20, burst: 60, disconnectAfterMs: 3000 });

/** WebSocket close code for a client disconnected for flooding refused messages (shared/protocol/messages.ts). */
export { CLOSE_OVER_BUDGET };

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

/** The player data the policing reads and writes (player.ts ArenaPlayer). */
interface PolicedSlot {
  readonly index: number;
  client: { leave(code?: number, data?: string): void } | null;
  sessionId: string;
  connected: boolean;
  kicked: boolean;
  budget: RejectBudget;
  refusedSinceReport: number;
  lastReportMs: number;
  lastRefusal: string;
}

/** A judged message of this client was refused for `reason` at `nowMs`: it costs a token. */
export function chargeRefusal(slot: PolicedSlot, reason: string, nowMs: number): void {
  slot.budget.charge(nowMs);
  slot.refusedSinceReport++;
  slot.lastRefusal = reason;
}

/**
 * Once per tick: throttled clients get a compact count in the match log and a hostile-event line
 * (at most one per client per second), and a client over budget for too long is disconnected.
 */
export function policeBudgets(
  slots: readonly (PolicedSlot | null)[], t: number, roomId: string,
  record: (e: { kind: 'throttled'; slot: number; timeMs: number; other: number }) => void,
  onHostile: ((e: HostileEvent) => void) | undefined,
): void {
  const report = (slot: PolicedSlot, event: HostileEvent['event'], count: number): void => {
    slot.lastReportMs = t;
    slot.refusedSinceReport = 0;
    try {
      onHostile?.({ event, roomId, sessionId: slot.sessionId, slot: slot.index, count, reason: slot.lastRefusal });
    } catch {
      // a logging hook must not break the tick
    }
  };
  for (const slot of slots) {
    if (slot === null || slot.client === null || t - slot.lastReportMs < 1000) continue;
    const b = slot.budget;
    if (b.dropped > 0) {
      record({ kind: 'throttled', slot: slot.index, timeMs: t, other: b.dropped });
      report(slot, 'throttled', b.dropped);
      b.dropped = 0;
    } else if (slot.refusedSinceReport > 0) {
      report(slot, 'refused', slot.refusedSinceReport);
    }
    if (b.exhausted(t) && slot.connected) {
      report(slot, 'disconnected', b.droppedTotal);
      slot.kicked = true;
      slot.client.leave(CLOSE_OVER_BUDGET, 'too many refused messages');
    }
  }
}
