/**
 * A player's movement inputs as commands, one per client tick, stepped in the order sent.
 *
 * A client sends one input per movement step it predicts. Over TCP a lost segment holds back
 * everything behind it, then delivers it in a burst; stepping only the newest input of a burst would
 * drop the steps in between, and the server's path would leave the one the client predicted (and
 * fired from). So inputs wait here in order and each is stepped once, as the client stepped it:
 *
 * - Each tick earns one step of credit and a 1024th (CREDIT_PER_TICK: a client whose clock runs up
 *   to 0.1% fast never builds a backlog), banked up to `maxCredit` (one second of ticks). A tick
 *   steps queued inputs while credit lasts, at most `maxPerTick` of them: after a stall the backlog
 *   is caught up within a few ticks, and no client moves more than 0.1% faster than the clock on
 *   average (inputs sent faster only wait, then overflow the queue and are refused).
 * - A tick with nothing queued holds the player where it is (the late inputs will step it), until
 *   a full second of credit is banked: then the client has stopped steering, and the tick steps with
 *   no wish (the view kept) so gravity and friction go on.
 *
 * The ring is flat (Float64Array, one row per input); nothing is allocated per input or per tick.
 */
import type { InputMessage } from '../../shared/protocol/input';

const SEQ = 0, BUTTONS = 1, WX = 2, WZ = 3, VX = 4, VY = 5, VZ = 6;
const STRIDE = 7;
/** Step credit earned per tick. */
export const CREDIT_PER_TICK = 1 + 1 / 1024;

export class InputQueue {
  readonly capacity: number;
  /** Steps a tick may take from the queue (catching up after a stall). */
  readonly maxPerTick: number;
  /** Most credit banked, in ticks. */
  readonly maxCredit: number;
  private readonly ring: Float64Array;
  private head = 0;
  private size = 0;
  /** Unused step credit, in ticks. */
  credit = 0;
  /** Inputs ever queued, and ever taken out (stepped or dropped): a shot waits for its inputs. */
  pushed = 0;
  taken = 0;

  constructor(tickRate: number, maxPerTick = 8) {
    this.maxCredit = Math.max(1, Math.round(tickRate));
    this.capacity = 2 * this.maxCredit;
    this.maxPerTick = maxPerTick;
    this.ring = new Float64Array(this.capacity * STRIDE);
  }

  get length(): number {
    return this.size;
  }

  /** Queues an input; false (nothing changes) when the queue is full. */
  push(inp: InputMessage): boolean {
    if (this.size === this.capacity) return false;
    const o = ((this.head + this.size) % this.capacity) * STRIDE;
    const r = this.ring;
    r[o + SEQ] = inp.seq; r[o + BUTTONS] = inp.buttons;
    r[o + WX] = inp.wishX; r[o + WZ] = inp.wishZ;
    r[o + VX] = inp.viewX; r[o + VY] = inp.viewY; r[o + VZ] = inp.viewZ;
    this.size++;
    this.pushed++;
    return true;
  }

  /** Takes the oldest input into `out`; false when empty. */
  shift(out: InputMessage): boolean {
    if (this.size === 0) return false;
    const o = this.head * STRIDE;
    const r = this.ring;
    out.seq = r[o + SEQ]!; out.buttons = r[o + BUTTONS]!;
    out.wishX = r[o + WX]!; out.wishZ = r[o + WZ]!;
    out.viewX = r[o + VX]!; out.viewY = r[o + VY]!; out.viewZ = r[o + VZ]!;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
    this.taken++;
    return true;
  }

  /** Drops every queued input (a death, a respawn, a new occupant) and the banked credit. */
  clear(): void {
    this.taken += this.size;
    this.head = 0;
    this.size = 0;
    this.credit = 0;
  }

  /**
   * This tick's steps: earns the tick's credit and returns how many queued inputs to step now
   * (0 when none are queued). `idleStep()` then tells whether a tick that took none steps anyway.
   */
  stepsThisTick(): number {
    this.credit = Math.min(this.credit + CREDIT_PER_TICK, this.maxCredit);
    const n = Math.min(this.size, this.maxPerTick, Math.floor(this.credit));
    this.credit -= n;
    return n;
  }

  /** After a tick that took no input: true when a full second of credit is banked (step with no wish). */
  idleStep(): boolean {
    if (this.credit < this.maxCredit) return false;
    this.credit -= 1;
    return true;
  }
}
