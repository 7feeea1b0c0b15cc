/**
 * Per-bot network conditions in the client's own paths: every message a bot sends or receives goes
 * through a Link that holds it for half the round trip plus seeded jitter, keeping order (a WebSocket
 * is one ordered TCP stream, so a late message also holds back the ones behind it), and drops sent
 * messages with the loss probability (a lost shot never reaches the server and gets no verdict).
 * Colyseus's simulateLatency is process-wide, so it cannot give bots different conditions; this can.
 */
import { Rng } from './rng';

export interface NetConditions {
  /** Round trip added by the link, ms (half each way). */
  rttMs: number;
  /** Each message's one-way delay varies uniformly by +-jitterMs/2 per direction (the round trip by up to +-jitter). */
  jitterMs: number;
  /** Probability that a message the client sends is dropped, 0..1. */
  loss: number;
}

/** One direction of a bot's connection: ordered, delayed delivery. */
class Lane {
  private lastDue = 0;
  private readonly queue: { due: number; fn: () => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(private readonly now: () => number) {}

  push(delayMs: number, fn: () => void): void {
    if (this.closed) return;
    // In order: never before the message ahead of it.
    const due = Math.max(this.now() + delayMs, this.lastDue);
    this.lastDue = due;
    this.queue.push({ due, fn });
    this.arm();
  }

  private arm(): void {
    if (this.timer !== null || this.queue.length === 0) return;
    const wait = Math.max(0, this.queue[0]!.due - this.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = null;
    const t = this.now();
    while (this.queue.length > 0 && this.queue[0]!.due <= t + 0.5) {
      const m = this.queue.shift()!;
      if (!this.closed) m.fn();
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

export class Link {
  readonly conditions: NetConditions;
  private readonly up: Lane;
  private readonly down: Lane;
  sent = 0;
  dropped = 0;

  constructor(conditions: NetConditions, private readonly rng: Rng, now: () => number = () => performance.now()) {
    this.conditions = conditions;
    this.up = new Lane(now);
    this.down = new Lane(now);
  }

  private delay(): number {
    const c = this.conditions;
    return Math.max(0, c.rttMs / 2 + (this.rng.next() - 0.5) * c.jitterMs);
  }

  /** Client -> server. Returns false when the message was dropped. */
  send(fn: () => void): boolean {
    this.sent++;
    if (this.conditions.loss > 0 && this.rng.next() < this.conditions.loss) {
      this.dropped++;
      return false;
    }
    this.up.push(this.delay(), fn);
    return true;
  }

  /** Server -> client: deliver after the downstream delay, in order. */
  receive(fn: () => void): void {
    this.down.push(this.delay(), fn);
  }

  close(): void {
    this.up.close();
    this.down.close();
  }
}
