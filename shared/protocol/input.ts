/**
 * The movement input message: what the player wants, never where the player is. The server runs
 * the movement step (shared/movement) on it, so a client can only ask to move, within the clamps.
 * No angles on the wire: the view is a direction vector, normalised by the server.
 *
 * Two ways to send, told apart by the stamp:
 * - Stamped (a client predicting itself): one input per tick it steps, stamped with its server-clock
 *   estimate (ServerClockEstimate.serverNow). Each is a command: the server steps it exactly once,
 *   in seq order, so its path is the client's, late by the network; a burst that TCP held back
 *   behind a lost segment is caught up over the next ticks.
 * - Unstamped (time 0): held keys. The newest input counts and is stepped every tick until the next
 *   one arrives (its jump once); a client may send only when its keys change.
 * Either way the server takes about one step per tick (server/arena/inputQueue.ts).
 *
 * Layout (version 2, 36 bytes, little-endian):
 *
 *   offset size type  field
 *   0      1    u8    version (= INPUT_VERSION)
 *   1      1    u8    buttons: bit 0 = jump (other bits must be 0)
 *   2      2    u16   reserved, 0
 *   4      4    u32   seq, per client, strictly increasing (older or repeated inputs are ignored)
 *   8      4    f32   wish x   (desired horizontal direction; clamped to unit length by the step)
 *   12     4    f32   wish z
 *   16     4    f32   view x   (view direction; normalised by the step, kept if degenerate)
 *   20     4    f32   view y
 *   24     4    f32   view z
 *   28     8    f64   time, server ms by the client's clock when it stepped this input; 0 = unstamped
 *
 * Version 1 (the first 28 bytes, no time) is still read, as unstamped.
 */
import { checkFrame, FrameStatus, viewOf } from './shot';

export const INPUT_VERSION = 2;
export const INPUT_BYTES = 36;
/** The unstamped first version of the message, still accepted. */
export const INPUT_V1_BYTES = 28;
export const InputButton = { JUMP: 1 } as const;
export type InputButton = (typeof InputButton)[keyof typeof InputButton];

export interface InputMessage {
  seq: number;
  buttons: number;
  wishX: number;
  wishZ: number;
  viewX: number;
  viewY: number;
  viewZ: number;
  /** Server ms by the client's clock when it stepped the input; 0 when not stamped. */
  timeMs: number;
}

export function createInputMessage(): InputMessage {
  return { seq: 0, buttons: 0, wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, timeMs: 0 };
}

/** Why an input is refused beyond the frame check: non-finite numbers or unknown button bits. */
export const InputStatus = { ...FrameStatus, NON_FINITE: 10, BAD_BUTTONS: 11 } as const;
export type InputStatus = (typeof InputStatus)[keyof typeof InputStatus];

/** Reads and checks an input; on anything but OK, `out` is left unchanged. */
export function decodeInput(out: InputMessage, bytes: unknown): InputStatus {
  const v1 = bytes instanceof Uint8Array && bytes.byteLength === INPUT_V1_BYTES && bytes[0] === 1;
  const status = v1 ? FrameStatus.OK : checkFrame(bytes, INPUT_BYTES, INPUT_VERSION);
  if (status !== FrameStatus.OK) return status;
  const v = viewOf(bytes as Uint8Array);
  const buttons = v.getUint8(1);
  if ((buttons & ~InputButton.JUMP) !== 0 || v.getUint16(2, true) !== 0) return InputStatus.BAD_BUTTONS;
  const wx = v.getFloat32(8, true);
  const wz = v.getFloat32(12, true);
  const vx = v.getFloat32(16, true);
  const vy = v.getFloat32(20, true);
  const vz = v.getFloat32(24, true);
  const t = v1 ? 0 : v.getFloat64(28, true);
  if (!Number.isFinite(wx) || !Number.isFinite(wz) || !Number.isFinite(vx) || !Number.isFinite(vy) || !Number.isFinite(vz) || !Number.isFinite(t)) {
    return InputStatus.NON_FINITE;
  }
  out.seq = v.getUint32(4, true);
  out.buttons = buttons;
  out.wishX = wx;
  out.wishZ = wz;
  out.viewX = vx;
  out.viewY = vy;
  out.viewZ = vz;
  out.timeMs = t;
  return InputStatus.OK;
}

export function encodeInput(out: Uint8Array, input: InputMessage, offset = 0): Uint8Array {
  const v = new DataView(out.buffer, out.byteOffset + offset, INPUT_BYTES);
  v.setUint8(0, INPUT_VERSION);
  v.setUint8(1, input.buttons);
  v.setUint16(2, 0, true);
  v.setUint32(4, input.seq, true);
  v.setFloat32(8, input.wishX, true);
  v.setFloat32(12, input.wishZ, true);
  v.setFloat32(16, input.viewX, true);
  v.setFloat32(20, input.viewY, true);
  v.setFloat32(24, input.viewZ, true);
  v.setFloat64(28, input.timeMs, true);
  return out;
}
