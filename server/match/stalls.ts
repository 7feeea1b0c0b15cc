/**
 * Clients that stop reading. A peer that pauses its TCP reads (a hostile client holding slots, or
 * one whose link died without a FIN) makes every write to it pile up: first in the kernel's socket
 * buffers (on loopback ~4 MB, over the internet typically some hundred KB), then in the server
 * process, as the WebSocket's `bufferedAmount` (Node's socket buffer plus the ws sender's queue).
 * Nothing bounds that growth but a rule like this one: a connection whose `bufferedAmount` stays
 * above `maxBytes` for longer than `maxMs`, or passes HARD_FACTOR × `maxBytes`, is cut. Colyseus's own WebSocket ping check does end a
 * peer that stops answering pings, but unasked pongs (which any client can send without reading a
 * byte) keep it content for ever.
 *
 * A cut queues a close frame with CLOSE_STALLED (a peer that reads again within `closeGraceMs` gets
 * the code), then resets the socket (RST: the kernel drops what it still holds for that peer at
 * once). The room sees the connection close as it sees any lost one (Colyseus: onDrop, not a
 * consented leave), so the player's slot is kept for reconnection as usual.
 *
 *   const stalls = new StallWatch({ maxBytes: 64 * 1024, maxMs: 5000 }, (cut) => log(cut));
 *   each tick:  for (const c of room.clients) stalls.check(c.sessionId, stallSocketOf(c.ref), nowMs);
 *   onLeave / onDrop:  stalls.forget(client.sessionId);
 *
 * A check reads two numbers of the socket and allocates nothing; a connection over `maxBytes` takes
 * one map entry until it drains below it or is cut. No Colyseus import: any `ws`-like socket fits
 * (with @colyseus/ws-transport, a client's `ref` is its `ws` WebSocket).
 */
import { CLOSE_STALLED } from '../../shared/protocol/messages';

export { CLOSE_STALLED } from '../../shared/protocol/messages';

export interface StallLimits {
  /** Unsent bytes a connection may hold for as long as it likes. */
  maxBytes: number;
  /** How long it may hold more than maxBytes before it is cut, ms. */
  maxMs: number;
  /** From the close frame queued to the socket reset, ms; 0 = reset at once. */
  closeGraceMs: number;
}

/**
 * 64 KiB over 5 s. The process holds anything for a connection only once the kernel's buffers for it
 * are full (some hundred KB over the internet), and the arena streams a player 12 KB/s in a room of
 * 6, 24 KB/s in a full room of 16 moving players: an honest connection through a network stall of a
 * few seconds (and the retransmission backoff after it) rarely leaves anything in the process, and
 * would have to stay over 64 KiB (seconds of play behind already) for 5 s more to be cut. One that
 * stalls for longer than about 10 s has been ended by Colyseus's ping check first unless it fakes
 * pongs. A stalled connection costs the process at most 4 × maxBytes (256 KiB) before it goes, and
 * Node's record of each queued write beside it (a few hundred bytes a message).
 */
export const DEFAULT_STALL_LIMITS: Readonly<StallLimits> = Object.freeze({ maxBytes: 64 * 1024, maxMs: 5000, closeGraceMs: 1000 });

/** The connection as the watch reads it; a `ws` WebSocket fits (readyState 1 = open). */
export interface StallSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  close(code?: number, reason?: string): void;
  terminate(): void;
}

/** One cut connection. */
export interface StallCut<Id> {
  id: Id;
  /** Unsent bytes when it was cut. */
  bytes: number;
  /** How long it had been over maxBytes, ms. */
  overMs: number;
  /** `held`: over maxBytes for longer than maxMs; `hard`: over HARD_FACTOR × maxBytes. */
  rule: 'held' | 'hard';
}

const OPEN = 1;
/** A connection holding more than this many times maxBytes is cut at once, however briefly it has held it. */
export const HARD_FACTOR = 4;

/** The `ws` WebSocket behind a transport's client reference (Colyseus's `client.ref`), or null for anything else. */
export function stallSocketOf(ref: unknown): StallSocket | null {
  const s = ref as Partial<StallSocket> | null | undefined;
  return s !== null && typeof s === 'object' && typeof s.bufferedAmount === 'number' && typeof s.readyState === 'number'
    && typeof s.close === 'function' && typeof s.terminate === 'function' ? s as StallSocket : null;
}

/** Checks limits (programming errors throw, saying what to pass). */
export function resolveStallLimits(o: Partial<StallLimits> = {}): StallLimits {
  const r = { ...DEFAULT_STALL_LIMITS, ...o };
  for (const k of ['maxBytes', 'maxMs', 'closeGraceMs'] as const) {
    if (!(Number.isFinite(r[k]) && r[k] >= 0)) throw new Error(`stall limits: ${k} = ${r[k]}: give a finite number >= 0`);
  }
  return r;
}

export class StallWatch<Id = string> {
  readonly limits: StallLimits;
  /** Since when each connection over maxBytes has been over (ms of the caller's clock). */
  private readonly overSince = new Map<Id, number>();
  /** Connections cut so far. */
  cuts = 0;

  constructor(limits: Partial<StallLimits> = {}, private readonly onCut?: (cut: StallCut<Id>) => void) {
    this.limits = resolveStallLimits(limits);
  }

  /**
   * Checks connection `id` at `nowMs` (any monotonic ms clock, the same for every call) and cuts it
   * when it has held more than maxBytes for longer than maxMs, or more than HARD_FACTOR × maxBytes
   * at all (what a stalled connection costs the process stays bounded whatever its stream's rate). A socket that is not open (closing,
   * or cut already) is left alone. True when this call cut it.
   */
  check(id: Id, socket: StallSocket | null, nowMs: number): boolean {
    if (socket === null || socket.readyState !== OPEN) return false;
    const bytes = socket.bufferedAmount;
    if (bytes <= this.limits.maxBytes) {
      if (this.overSince.size > 0) this.overSince.delete(id);
      return false;
    }
    let since = this.overSince.get(id);
    if (since === undefined) {
      since = nowMs;
      this.overSince.set(id, nowMs);
    }
    const hard = bytes > HARD_FACTOR * this.limits.maxBytes;
    if (nowMs - since <= this.limits.maxMs && !hard) return false;
    this.overSince.delete(id);
    this.cuts++;
    cutSocket(socket, this.limits.closeGraceMs);
    try {
      this.onCut?.({ id, bytes, overMs: nowMs - since, rule: hard ? 'hard' : 'held' });
    } catch {
      // a reporting hook must not break the caller's loop
    }
    return true;
  }

  /** Drops what is known of `id` (its connection closed). */
  forget(id: Id): void {
    this.overSince.delete(id);
  }

  /** Connections over maxBytes now (as of their last check). */
  get over(): number {
    return this.overSince.size;
  }
}

/**
 * Queues the close frame and resets the socket after `graceMs`. The reset goes through the TCP
 * socket under a `ws` WebSocket when there is one (resetAndDestroy: RST, so the kernel frees the
 * send queue at once instead of keeping an orphan that probes a zero window); else terminate().
 */
function cutSocket(socket: StallSocket, graceMs: number): void {
  try {
    socket.close(CLOSE_STALLED, 'not reading: unsent data over the bound');
  } catch {
    // closing already
  }
  const reset = (): void => {
    const raw = (socket as { _socket?: { resetAndDestroy?: () => void; destroyed?: boolean } | null })._socket;
    try {
      if (raw != null && typeof raw.resetAndDestroy === 'function') {
        if (raw.destroyed !== true) raw.resetAndDestroy();
      } else {
        socket.terminate();
      }
    } catch {
      socket.terminate();
    }
  };
  if (graceMs <= 0) reset();
  else setTimeout(reset, graceMs).unref();
}
