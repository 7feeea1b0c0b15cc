/**
 * A player's movement inputs, stepped in the order sent, one per tick.
 *
 * Two kinds of client, told apart by the input's stamp (shared/protocol/input.ts):
 * - Stamped inputs are commands, one per tick the client predicted. Each is stepped exactly once,
 *   in order, so the server's path is the client's path, late by the network. A tick no command
 *   reaches holds the player (its commands are late, not missing); over TCP a lost segment holds
 *   back everything behind it and then delivers it in a burst, which the following ticks catch up
 *   at up to `maxPerTick` a tick. After a whole second with none, the last input is held (below).
 * - Unstamped inputs are held keys: the newest one counts (a later one replaces one still waiting,
 *   its jump kept), and a tick with none waiting steps the last one again (its jump not repeated).
 *   A client that sends only when its keys change walks on.
 * Credit keeps either kind to the clock: each tick earns one step and a 1024th (CREDIT_PER_TICK: a
 * client whose clock runs up to 0.1% fast never builds a backlog), banked up to one second of ticks;
 * every step, held or commanded, spends one. A stamped command moves the player only when its stamp
 * is at least half a tick after the last command's that did: commands stamped together (a burst
 * claimed at one instant, not a stall's backlog, whose stamps keep their spacing) are one step, the
 * newest view and keys winning. No way of sending moves anyone faster. A queue holds two seconds;
 * past that its oldest input is dropped.
 *
 * The ring is flat (Float64Array, one row per input); nothing is allocated per input or per tick.
 */
import { createInputMessage, InputButton, setView, stepMovement, type InputMessage, type MoveConfig, type MoveInputLike, type MoveState, type MoveWorld } from '../../shared/index';

/** STAMP: the input's stamp, NaN for an unstamped (held-keys) input. */
const SEQ = 0, BUTTONS = 1, WX = 2, WZ = 3, VX = 4, VY = 5, VZ = 6, STAMP = 7;
const STRIDE = 8;
/** Step credit earned per tick. */
export const CREDIT_PER_TICK = 1 + 1 / 1024;

export class InputQueue {
  readonly capacity: number;
  /** Most credit banked, in ticks. */
  readonly maxCredit: number;
  private readonly ring: Float64Array;
  private head = 0;
  private size = 0;
  /** Unused step credit, in ticks. */
  credit = 0;
  /** The last input stepped: what a held step repeats. */
  readonly last: InputMessage = createInputMessage();
  /** Inputs ever queued, and ever taken out (stepped, merged or dropped): a shot waits for its inputs. */
  pushed = 0;
  taken = 0;
  /** Inputs dropped from a full queue. */
  dropped = 0;
  /** Movement steps the last tick took (commanded and held). */
  lastSteps = 0;
  /**
   * The stamp of the newest input taken (the client's server clock, ms): where a shot's eye path
   * ends, and when the view was aimed. NaN for an unstamped input or a view set by hold(); a held
   * step keeps it (the view is that old).
   */
  stampMs = NaN;
  /**
   * The client sends commands: the newest input taken was stamped. A spawn (hold()) keeps it: a
   * commanding client's new life waits for its commands, banking credit, rather than spending it on
   * held steps while the first of them are on their way (a stall then could never be caught up).
   */
  private commands = false;
  /** Stamp of the newest command that moved the player (commands stamped within half a tick of it do not). */
  private movedStampMs = Number.NEGATIVE_INFINITY;
  /** Half a tick, ms. */
  private readonly halfTickMs: number;
  private readonly stepInput: MoveInputLike = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };

  constructor(tickRate: number, readonly maxPerTick = 8) {
    this.maxCredit = Math.max(1, Math.round(tickRate));
    this.halfTickMs = 500 / tickRate;
    this.capacity = 2 * this.maxCredit;
    this.ring = new Float64Array(this.capacity * STRIDE);
  }

  get length(): number {
    return this.size;
  }

  /** Queues an input: a held-keys input replaces one still waiting at the tail; a full queue drops its oldest. */
  push(inp: InputMessage): void {
    const stamped = inp.timeMs > 0;
    const r = this.ring;
    let o: number;
    if (!stamped && this.size > 0 && Number.isNaN(r[((this.head + this.size - 1) % this.capacity) * STRIDE + STAMP])) {
      o = ((this.head + this.size - 1) % this.capacity) * STRIDE;
      r[o + BUTTONS] = (r[o + BUTTONS]! | inp.buttons) & InputButton.JUMP;
      this.taken++;
    } else {
      if (this.size === this.capacity) {
        this.head = (this.head + 1) % this.capacity;
        this.size--;
        this.taken++;
        this.dropped++;
      }
      o = ((this.head + this.size) % this.capacity) * STRIDE;
      r[o + BUTTONS] = inp.buttons;
      this.size++;
    }
    r[o + SEQ] = inp.seq;
    r[o + WX] = inp.wishX; r[o + WZ] = inp.wishZ;
    r[o + VX] = inp.viewX; r[o + VY] = inp.viewY; r[o + VZ] = inp.viewZ;
    r[o + STAMP] = stamped ? inp.timeMs : NaN;
    this.pushed++;
  }

  /** Drops every queued input and the banked credit (a death, a drop, a new occupant); `last` stays. */
  clear(): void {
    this.taken += this.size;
    this.head = 0;
    this.size = 0;
    this.credit = 0;
  }

  /**
   * Drops the queued inputs stamped after `limitMs`, and every unstamped one (a death: the moves its
   * client made before it could know of it are kept to be stepped; held keys are not). Inputs are
   * queued in stamp order (the match refuses a stamp behind its stream), so they go from the tail.
   */
  dropAfter(limitMs: number): void {
    while (this.size > 0) {
      const stamp = this.ring[((this.head + this.size - 1) % this.capacity) * STRIDE + STAMP]!;
      if (stamp === stamp && stamp <= limitMs) break;
      this.size--;
      this.taken++;
    }
    if (this.size === 0) this.credit = 0;
  }

  /** From now on a held step holds still (a spawn: the new life's view, no wish). */
  hold(viewX: number, viewY: number, viewZ: number): void {
    const l = this.last;
    l.buttons = 0; l.wishX = 0; l.wishZ = 0;
    l.viewX = viewX; l.viewY = viewY; l.viewZ = viewZ;
    this.stampMs = NaN;
  }

  /**
   * One tick of movement for `move`: the waiting inputs the credit allows, in order, else (with
   * `held`, not for the dead) a held step when the client holds keys (or its commands stopped a
   * second ago). Returns the seq of the newest input stepped, or -1.
   */
  tick(move: MoveState, world: MoveWorld, cfg: MoveConfig, dt: number, held = true): number {
    this.credit = Math.min(this.credit + CREDIT_PER_TICK, this.maxCredit);
    let newest = -1, steps = 0;
    while (steps < this.maxPerTick && this.size > 0 && this.credit >= 1) {
      const moved = this.stepNext(move, world, cfg, dt);
      newest = this.last.seq;
      if (!moved) continue; // stamped with the command before it: no step of its own
      this.credit -= 1;
      steps++;
    }
    if (held && newest < 0 && this.credit >= 1 && (!this.commands || this.credit >= this.maxCredit)) {
      this.step(move, world, cfg, dt, false);
      this.credit -= 1;
      steps = 1;
    }
    this.lastSteps = steps;
    return newest;
  }

  /** Takes the next queued input; returns whether it moved the player (false: merged into the last step). */
  private stepNext(move: MoveState, world: MoveWorld, cfg: MoveConfig, dt: number): boolean {
    const o = this.head * STRIDE;
    const r = this.ring;
    const l = this.last;
    l.seq = r[o + SEQ]!; l.buttons = r[o + BUTTONS]!;
    l.wishX = r[o + WX]!; l.wishZ = r[o + WZ]!;
    l.viewX = r[o + VX]!; l.viewY = r[o + VY]!; l.viewZ = r[o + VZ]!;
    const stamp = r[o + STAMP]!;
    this.stampMs = stamp;
    this.commands = stamp === stamp;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
    this.taken++;
    if (stamp === stamp) {
      if (stamp < this.movedStampMs + this.halfTickMs) {
        setView(move, l.viewX, l.viewY, l.viewZ); // the newer view, no step
        return false;
      }
      this.movedStampMs = stamp;
    }
    this.step(move, world, cfg, dt, (l.buttons & InputButton.JUMP) !== 0);
    return true;
  }

  private step(move: MoveState, world: MoveWorld, cfg: MoveConfig, dt: number, jump: boolean): void {
    const l = this.last, s = this.stepInput;
    s.wishX = l.wishX; s.wishZ = l.wishZ;
    s.viewX = l.viewX; s.viewY = l.viewY; s.viewZ = l.viewZ;
    s.jump = jump;
    stepMovement(move, s, world, cfg, dt);
  }
}
