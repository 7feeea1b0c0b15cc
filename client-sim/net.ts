/**
 * Per-bot network conditions in the client's own paths, modelled on what a WebSocket is: one TCP
 * stream each way. Every message a bot sends or receives goes through its Link, which works out
 * when the message reaches the other end and holds it until then:
 *
 * - Nothing is lost for good. A lost transmission is sent again after the retransmission timeout
 *   (RTO: the RFC 6298 estimate rtt + 4 x jitter, at least `minRtoMs`, 200 ms by default as in
 *   Linux), and the timeout doubles each time the same segment is lost again (exponential backoff).
 * - In order: a message is handed over no earlier than the one sent before it, so a segment
 *   waiting for its retransmission holds back everything sent behind it (head-of-line blocking),
 *   and what queued behind it arrives in one bunch.
 * - Losses come in bursts: a Gilbert–Elliott chain (GilbertElliott below) decides each
 *   transmission on the stream, first and repeated alike, in the order they go on the wire.
 *   `loss` is the long-run share of transmissions lost; `burst` the mean number of consecutive
 *   transmissions lost (1 / (1 - loss), the default, is independent losses).
 * - Jitter varies each message's one-way delay around half the round trip and never reorders.
 * - An optional bandwidth cap puts messages on the wire one after another, each taking its size
 *   (plus TCP/IP and WebSocket framing) over the rate.
 *
 * Each direction draws its delays and losses from its own seeded streams: the same seed and the
 * same sending times give the same deliveries. Colyseus's simulateLatency is process-wide, so it
 * cannot give bots different conditions; this can. Fast retransmit (three duplicate ACKs) is not
 * modelled: every loss waits for the timeout, the thin-stream worst case a game's traffic meets.
 */
import type { Rng } from './rng';

/** A uniform [0, 1) source (the simulator's Rng; tests may script one). */
export interface RandomSource {
  next(): number;
}

export interface NetConditions {
  /** Round trip added by the link, ms (half each way). */
  rttMs: number;
  /** Each message's one-way delay varies uniformly by +-jitterMs/2 per direction (the round trip by up to +-jitter). */
  jitterMs: number;
  /** Per-message loss probability, 0..1: the long-run share of transmissions lost, each way. */
  loss: number;
  /**
   * Mean length of a loss burst, in consecutive lost transmissions (>= 1). Default 1 / (1 - loss):
   * each transmission lost independently.
   */
  burst?: number;
  /** Bandwidth cap per direction, bytes per second (0 or absent: none). */
  bandwidthBytesPerS?: number;
  /** Floor of the retransmission timeout, ms (default 200). */
  minRtoMs?: number;
  /**
   * Scripted stalls: from `phaseMs` on, every `everyMs` the first message sent is lost until
   * `forMs` have passed (its retransmissions go out at the RTO's doubling steps: 200 ms, then 600,
   * 1400), so everything sent behind it is held back and arrives at once when it does.
   */
  stalls?: { everyMs: number; forMs: number; phaseMs?: number };
}

/** Bytes of framing added to each message on the wire: IPv4 20 + TCP 20 + options 12 + WebSocket 6. */
export const WIRE_OVERHEAD_BYTES = 58;
/** Message size assumed when the caller does not say (a shot is 64 bytes, an input 28, a ping 24). */
export const DEFAULT_MESSAGE_BYTES = 64;
/** RTO ceiling (RFC 6298 allows capping at 60 s or more). */
export const MAX_RTO_MS = 60_000;

/**
 * The Gilbert–Elliott two-state loss model: a Markov chain over Good and Bad, stepped once per
 * transmission (move first, then lose with the state's probability). Parameters: `pGoodToBad` (p),
 * `pBadToGood` (r), loss probability in Good (`lossGood`, k) and in Bad (`lossBad`, h). Long-run loss
 * = (r k + p h) / (p + r); with k = 0 and h = 1 (the Gilbert model, what fromLossAndBurst builds)
 * losses come in runs of mean length 1 / r separated by runs of mean length 1 / p.
 */
export class GilbertElliott {
  /** The chain's state: true = Bad. Starts Good. */
  bad = false;

  constructor(
    readonly pGoodToBad: number,
    readonly pBadToGood: number,
    readonly lossGood: number,
    readonly lossBad: number,
    private readonly rng: RandomSource,
  ) {
    for (const [name, v] of [['pGoodToBad', pGoodToBad], ['pBadToGood', pBadToGood], ['lossGood', lossGood], ['lossBad', lossBad]] as const) {
      if (!(v >= 0 && v <= 1)) throw new RangeError(`GilbertElliott: ${name} must be in [0, 1], got ${v}`);
    }
  }

  /**
   * The Gilbert chain with long-run loss `loss` and mean burst length `burst` transmissions:
   * r = 1 / burst, p = loss r / (1 - loss), k = 0, h = 1. Needs loss in [0, 1) and
   * burst >= max(1, loss / (1 - loss)); burst = 1 / (1 - loss) gives independent losses.
   */
  static fromLossAndBurst(loss: number, burst: number | undefined, rng: RandomSource): GilbertElliott {
    if (!(loss >= 0 && loss < 1)) throw new RangeError(`loss must be in [0, 1), got ${loss}`);
    if (loss === 0) return new GilbertElliott(0, 1, 0, 1, rng);
    const b = burst ?? 1 / (1 - loss);
    const r = 1 / b;
    const p = (loss * r) / (1 - loss);
    if (!(b >= 1) || !(p <= 1)) throw new RangeError(`burst must be >= 1 and >= loss / (1 - loss) (${(loss / (1 - loss)).toFixed(3)}), got ${burst}`);
    return new GilbertElliott(p, r, 0, 1, rng);
  }

  /** Long-run share of transmissions lost. */
  get stationaryLoss(): number {
    const p = this.pGoodToBad, r = this.pBadToGood;
    return p + r === 0 ? this.lossGood : (r * this.lossGood + p * this.lossBad) / (p + r);
  }

  /** Mean run of consecutive Bad steps (= mean loss burst when lossBad = 1 and lossGood = 0). */
  get meanBadRun(): number {
    return 1 / this.pBadToGood;
  }

  /** One transmission: steps the chain and tells whether it is lost. */
  lose(): boolean {
    const u = this.rng.next();
    if (this.bad) { if (u < this.pBadToGood) this.bad = false; } else if (u < this.pGoodToBad) this.bad = true;
    const h = this.bad ? this.lossBad : this.lossGood;
    return h >= 1 || (h > 0 && this.rng.next() < h);
  }
}

/** When one message reaches the other end (TcpStream.push). All times in the caller's ms. */
export interface Delivery {
  /** Handed to the stream. */
  sentAt: number;
  /** Its last byte left the sender the first time (after any bandwidth queue). */
  onWireAt: number;
  /** Transmissions so far (1 = not lost). */
  attempts: number;
  /** The successful transmission reached the receiver (NaN until resolved). */
  arrivedAt: number;
  /** Handed to the application: in order, after everything sent before it (NaN until known). */
  deliveredAt: number;
}

interface Segment {
  d: Delivery;
  /** When its next transmission goes out, and the timeout that follows a loss of it. */
  nextAt: number;
  rto: number;
  /** One-way delay of its successful transmission (drawn at push, so draws follow push order). */
  oneWay: number;
  /** Push ordinal: breaks ties between transmissions at the same time. */
  seq: number;
}

/**
 * One direction of a TCP connection as a schedule: push() hands a message over at a time, and
 * advance(t) settles every transmission at or before t in time order (each one step of the loss
 * chain), so the chain runs over the stream's transmissions as they go on the wire: a retransmission
 * an RTO later meets the chain as the transmissions sent meanwhile left it. The outcome depends only
 * on the push times, never on when advance is called. Push times must not go backwards. No timers:
 * Link (below) runs the schedule against a clock; tests read it directly.
 */
export class TcpStream {
  readonly rtoMs: number;
  private readonly bytesPerMs: number;
  private busyUntil = -Infinity;
  /** Transmissions waiting to go out, sorted by (nextAt, seq). */
  private readonly waiting: Segment[] = [];
  /** Pushed messages not yet given a delivery time, in push order. */
  private readonly unsettled: Delivery[] = [];
  private unsettledHead = 0;
  private lastDelivered = -Infinity;
  private pushes = 0;
  /** Transmissions lost, messages that needed a retransmission, the longest a message waited for one (ms). */
  lost = 0;
  retransmitted = 0;
  maxRetransmitDelayMs = 0;
  /** Scripted stalls so far, and the segment holding the current one (held until stallUntil). */
  stalls = 0;
  private nextStallAt = Infinity;
  private stalled: Segment | null = null;
  private stallUntil = -Infinity;

  constructor(readonly conditions: NetConditions, private readonly jitterRng: RandomSource, readonly chain: GilbertElliott) {
    const c = conditions;
    this.rtoMs = Math.max(c.minRtoMs ?? 200, c.rttMs + 4 * c.jitterMs);
    const bw = c.bandwidthBytesPerS ?? 0;
    this.bytesPerMs = bw > 0 ? bw / 1000 : Infinity;
    const st = c.stalls;
    if (st !== undefined) {
      if (!(st.everyMs > 0 && st.forMs >= 0 && st.forMs < st.everyMs && (st.phaseMs ?? 0) >= 0)) throw new RangeError('stalls: everyMs > forMs >= 0 and phaseMs >= 0');
      this.nextStallAt = st.phaseMs ?? 0;
    }
  }

  /** Hands over a message of `bytes` payload bytes at `nowMs`; its Delivery fills in as advance() settles it. */
  push(nowMs: number, bytes: number = DEFAULT_MESSAGE_BYTES): Delivery {
    const c = this.conditions;
    this.advance(nowMs);
    const start = Math.max(nowMs, this.busyUntil);
    const onWire = start + (this.bytesPerMs === Infinity ? 0 : (bytes + WIRE_OVERHEAD_BYTES) / this.bytesPerMs);
    this.busyUntil = onWire;
    const d: Delivery = { sentAt: nowMs, onWireAt: onWire, attempts: 0, arrivedAt: NaN, deliveredAt: NaN };
    const oneWay = Math.max(0, c.rttMs / 2 + (this.jitterRng.next() - 0.5) * c.jitterMs);
    this.schedule({ d, nextAt: onWire, rto: this.rtoMs, oneWay, seq: this.pushes++ });
    this.unsettled.push(d);
    this.advance(nowMs);
    return d;
  }

  /** The time of the next transmission still to go out (Infinity when none). */
  get nextTransmissionAt(): number {
    return this.waiting.length > 0 ? this.waiting[0]!.nextAt : Infinity;
  }

  /** Settles every transmission at or before `nowMs`, in time order, and the delivery times that follow. */
  advance(nowMs: number): void {
    const w = this.waiting;
    while (w.length > 0 && w[0]!.nextAt <= nowMs) {
      const s = w.shift()!;
      s.d.attempts++;
      const lose = this.chain.lose();
      if (s.d.attempts === 1 && s.nextAt >= this.nextStallAt) {
        const st = this.conditions.stalls!;
        this.stalled = s;
        this.stallUntil = s.nextAt + st.forMs;
        this.stalls++;
        while (this.nextStallAt <= s.nextAt) this.nextStallAt += st.everyMs;
      }
      if (lose || (s === this.stalled && s.nextAt < this.stallUntil)) {
        this.lost++;
        s.nextAt += s.rto;
        s.rto = Math.min(2 * s.rto, MAX_RTO_MS);
        this.schedule(s);
        continue;
      }
      s.d.arrivedAt = s.nextAt + s.oneWay;
      if (s.d.attempts > 1) {
        this.retransmitted++;
        this.maxRetransmitDelayMs = Math.max(this.maxRetransmitDelayMs, s.nextAt - s.d.onWireAt);
      }
    }
    // In order: a message is delivered once it and everything before it has arrived.
    const u = this.unsettled;
    while (this.unsettledHead < u.length) {
      const d = u[this.unsettledHead]!;
      if (d.arrivedAt !== d.arrivedAt) break;
      d.deliveredAt = Math.max(d.arrivedAt, this.lastDelivered);
      this.lastDelivered = d.deliveredAt;
      this.unsettledHead++;
    }
    if (this.unsettledHead > 1024 && this.unsettledHead * 2 > u.length) {
      u.splice(0, this.unsettledHead);
      this.unsettledHead = 0;
    }
  }

  private schedule(s: Segment): void {
    const w = this.waiting;
    let i = w.length;
    while (i > 0 && (w[i - 1]!.nextAt > s.nextAt || (w[i - 1]!.nextAt === s.nextAt && w[i - 1]!.seq > s.seq))) i--;
    w.splice(i, 0, s);
  }
}

/** One direction of a bot's connection: a TcpStream run against the clock with a timer. */
class Lane {
  private readonly queue: { d: Delivery; fn: () => void }[] = [];
  private head = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = Infinity;
  private closed = false;

  constructor(readonly stream: TcpStream, private readonly now: () => number) {}

  push(bytes: number, fn: () => void): boolean {
    if (this.closed) return false;
    this.queue.push({ d: this.stream.push(this.now(), bytes), fn });
    this.arm();
    return true;
  }

  /** Messages handed over and not yet delivered. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Wakes at the next delivery or, while the next one is unknown, the next transmission. */
  private arm(): void {
    if (this.head >= this.queue.length) return;
    const next = this.queue[this.head]!.d.deliveredAt;
    const at = next === next ? next : this.stream.nextTransmissionAt;
    if (this.timer !== null && this.timerAt <= at) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - this.now()));
  }

  private flush(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const t = this.now();
    this.stream.advance(t);
    // Everything due is delivered in one go: a bunch released by a retransmission arrives together.
    while (this.head < this.queue.length && this.queue[this.head]!.d.deliveredAt <= t + 0.5) {
      const m = this.queue[this.head++]!;
      if (!this.closed) m.fn();
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.arm();
  }

  /** Stops delivering; returns how many messages were still on their way. */
  close(): number {
    const left = this.pending;
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    return left;
  }
}

/** Both directions of one bot's connection. */
export class Link {
  readonly conditions: NetConditions;
  private readonly up: Lane;
  private readonly down: Lane;
  /** Messages handed to send() and receive(). */
  sent = 0;
  received = 0;
  /** Sent messages never delivered: the link closed while they were on their way. */
  dropped = 0;

  constructor(conditions: NetConditions, rng: Rng, now: () => number = () => performance.now()) {
    this.conditions = conditions;
    const c = conditions;
    if (!(c.rttMs >= 0 && c.jitterMs >= 0 && (c.bandwidthBytesPerS ?? 0) >= 0)) throw new RangeError('rttMs, jitterMs and bandwidthBytesPerS must be >= 0');
    // Four streams, one per purpose and direction, so one never shifts another's draws.
    const upJitter = rng.fork(1), upLoss = rng.fork(2), downJitter = rng.fork(3), downLoss = rng.fork(4);
    this.up = new Lane(new TcpStream(c, upJitter, GilbertElliott.fromLossAndBurst(c.loss, c.burst, upLoss)), now);
    this.down = new Lane(new TcpStream(c, downJitter, GilbertElliott.fromLossAndBurst(c.loss, c.burst, downLoss)), now);
  }

  /** Client -> server. False only when the link is closed (TCP loses nothing; it delays). */
  send(fn: () => void, bytes: number = DEFAULT_MESSAGE_BYTES): boolean {
    this.sent++;
    return this.up.push(bytes, fn);
  }

  /** Server -> client: delivered after the downstream delay, in order. */
  receive(fn: () => void, bytes: number = DEFAULT_MESSAGE_BYTES): void {
    this.received++;
    this.down.push(bytes, fn);
  }

  /** The two streams' schedules and counters (lost transmissions, retransmissions, RTO). */
  get upstream(): TcpStream {
    return this.up.stream;
  }

  get downstream(): TcpStream {
    return this.down.stream;
  }

  close(): void {
    this.dropped += this.up.close();
    this.down.close();
  }
}
