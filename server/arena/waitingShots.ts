/**
 * Weapon messages waiting for the movement inputs their client sent before them. A message's place
 * in its client's stream is the count of inputs queued so far (InputQueue.pushed); it is ready once
 * the player has taken that many out (stepped, or dropped by a death or a leave). Ready messages are
 * judged in arrival order across the room; each keeps its arrival time and its stream floor then.
 */
import type { ArenaPlayer } from './player';

interface Waiting {
  player: ArenaPlayer;
  bytes: unknown;
  receiveTimeMs: number;
  /** The player's stream floor when it arrived (match.streamFloor). */
  floorMs: number;
  /** InputQueue.pushed of the player when the message arrived. */
  after: number;
}

export class WaitingShots {
  private list: Waiting[] = [];

  get length(): number {
    return this.list.length;
  }

  /** Whether a message of `player` waits (a later one must wait behind it). */
  holds(player: ArenaPlayer): boolean {
    for (const w of this.list) if (w.player === player) return true;
    return false;
  }

  /** Keeps a message (a copy of its bytes: the socket's buffer is reused). */
  push(player: ArenaPlayer, bytes: unknown, receiveTimeMs: number, floorMs: number): void {
    this.list.push({ player, bytes: bytes instanceof Uint8Array ? bytes.slice() : bytes, receiveTimeMs, floorMs, after: player.inputs.pushed });
  }

  /**
   * Hands every ready message to `judge` and forgets it, in arrival order; with `only`, every
   * message of that player, ready or not (it is leaving). One client's messages stay in the order
   * sent: a later one waits for at least the inputs an earlier one waits for.
   */
  drain(only: ArenaPlayer | null, judge: (player: ArenaPlayer, bytes: unknown, receiveTimeMs: number, floorMs: number) => void): void {
    const ready = this.ready;
    const keep = this.keep;
    for (const w of this.list) {
      if (only !== null ? w.player === only : w.player.inputs.taken >= w.after) ready.push(w);
      else keep.push(w);
    }
    this.keep = this.list;
    this.keep.length = 0;
    this.list = keep;
    try {
      for (const w of ready) judge(w.player, w.bytes, w.receiveTimeMs, w.floorMs);
    } finally {
      ready.length = 0;
    }
  }

  private ready: Waiting[] = [];
  private keep: Waiting[] = [];
}
