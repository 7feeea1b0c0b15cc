/**
 * A bot's movement inputs on the wire: one per predicted movement step, stamped with the bot's
 * server clock, carrying the steering's wish (scaled by the speed cheat) and the aim's view; a
 * profile may hold inputs back, and held ones go out, in order, before the next input or weapon
 * message that is sent (the server steps inputs in order and judges a weapon message after the
 * inputs sent before it). Each input is handed to the own-movement prediction.
 */
import { createInputMessage, encodeInput, INPUT_BYTES, InputButton } from '../shared/protocol/input';
import type { Aim } from './aim';
import type { Connection } from './connection';
import type { OwnMovement } from './ownMovement';
import type { Steering } from './steering';

export class InputSender {
  /** Scale of the wish vector sent (1 honest; the speed cheat sends longer ones). */
  wishScale = 1;
  /** Seq of the newest input. */
  seq = 0;
  private readonly msg = createInputMessage();
  private readonly buf = new Uint8Array(INPUT_BYTES);
  private readonly held: Uint8Array[] = [];

  constructor(private readonly conn: Connection, private readonly steer: Steering, private readonly aim: Aim, private readonly move: OwnMovement) {}

  /** This step's input, stamped `timeMs` (0: unstamped); `hold` keeps it back instead of sending it. */
  step(timeMs: number, hold: boolean): void {
    const inp = this.msg, a = this.aim, steer = this.steer;
    inp.seq = ++this.seq;
    inp.timeMs = timeMs;
    inp.buttons = steer.jump ? InputButton.JUMP : 0;
    inp.wishX = steer.wishX * this.wishScale;
    inp.wishZ = steer.wishZ * this.wishScale;
    if (a.target < 0 && (steer.wishX !== 0 || steer.wishZ !== 0)) a.lookIdle(steer.wishX, steer.wishZ);
    inp.viewX = a.viewX; inp.viewY = a.viewY; inp.viewZ = a.viewZ;
    encodeInput(this.buf, inp);
    if (hold) this.held.push(this.buf.slice());
    else {
      this.flush();
      this.conn.sendInput(this.buf);
    }
    this.move.setInput(inp.seq, inp.wishX, inp.wishZ, inp.viewX, inp.viewY, inp.viewZ, steer.jump);
    steer.jump = false;
  }

  /** Sends the inputs held back, in order. */
  flush(): void {
    for (const h of this.held) this.conn.sendInput(h);
    this.held.length = 0;
  }

  /**
   * A point 10 m along the view of the last input sent, as the server reads it (the wire's float32
   * numbers, normalised): a shot through it goes where the server's view points.
   */
  viewPoint(out: Float64Array, eye: Float64Array): Float64Array {
    const i = this.msg;
    const x = Math.fround(i.viewX), y = Math.fround(i.viewY), z = Math.fround(i.viewZ);
    const l = Math.sqrt(x * x + y * y + z * z) || 1;
    out[0] = eye[0]! + (10 * x) / l; out[1] = eye[1]! + (10 * y) / l; out[2] = eye[2]! + (10 * z) / l;
    return out;
  }
}
