/**
 * Weapon messages waiting for the movement inputs their client sent before them. A message's place
 * in its client's stream is the count of inputs queued so far (InputQueue.pushed); it is ready once
 * the slot has taken that many out (stepped, or dropped by a death or a leave). Ready messages are
 * judged in arrival order across the room; each keeps its arrival time.
 */
import type { Slot } from './slot';

interface Waiting {
  slot: Slot;
  bytes: unknown;
  receiveTimeMs: number;
  /** InputQueue.pushed of the slot when the message arrived. */
  after: number;
}

export class WaitingShots {
  private list: Waiting[] = [];

  get length(): number {
    return this.list.length;
  }

  /** Whether a message of `slot` waits (a later one must wait behind it). */
  holds(slot: Slot): boolean {
    for (const w of this.list) if (w.slot === slot) return true;
    return false;
  }

  /** Keeps a message (a copy of its bytes: the socket's buffer is reused). */
  push(slot: Slot, bytes: unknown, receiveTimeMs: number): void {
    this.list.push({ slot, bytes: bytes instanceof Uint8Array ? bytes.slice() : bytes, receiveTimeMs, after: slot.inputs.pushed });
  }

  /**
   * Hands every ready message to `judge` and forgets it, in arrival order; with `only`, every
   * message of that slot, ready or not (it is leaving). One client's messages stay in the order
   * sent: a later one waits for at least the inputs an earlier one waits for.
   */
  drain(only: Slot | null, judge: (slot: Slot, bytes: unknown, receiveTimeMs: number) => void): void {
    const ready = this.ready;
    const keep = this.keep;
    for (const w of this.list) {
      if (only !== null ? w.slot === only : w.slot.inputs.taken >= w.after) ready.push(w);
      else keep.push(w);
    }
    this.keep = this.list;
    this.keep.length = 0;
    this.list = keep;
    try {
      for (const w of ready) judge(w.slot, w.bytes, w.receiveTimeMs);
    } finally {
      ready.length = 0;
    }
  }

  private ready: Waiting[] = [];
  private keep: Waiting[] = [];
}
