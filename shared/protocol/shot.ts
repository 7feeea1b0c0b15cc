/**
 * The weapon message: everything a client does with its weapons, as one fixed 80-byte
 * little-endian binary record read with a DataView: fire a segment, switch to a carried weapon, or
 * reload. One ordered stream (one seq space, one clock of claimed action times) lets the server judge
 * the fire clock, draw and reload times against each other, and lets the audit replay them in order.
 * Fixed length means a single exact length check rejects truncated, padded and wrong-type payloads
 * before any field is read, and a version byte lets the layout evolve.
 *
 * Layout (version 2, 80 bytes, little-endian):
 *
 *   offset size type  field
 *   0      1    u8    version (= SHOT_VERSION)
 *   1      1    u8    action: 0 fire, 1 switch (to `weapon`), 2 reload (`weapon`, the equipped one)
 *   2      1    u8    weapon id (shared/weapons.ts)
 *   3      1    u8    pellet count n (0..MAX_PELLETS): the pellets the client predicted for a
 *                     weapon with a spread pattern (fire only; 0 for every other message)
 *   4      4    u32   seq, per client, strictly increasing over all actions
 *   8      4    i32   claimed target slot, -1 = none (audits and self-hit rejection only: the
 *                     server decides hits on its own); 0 for switch and reload
 *   12     4    u32   reserved, 0
 *   16     8    f64   action time, ms on the server clock: when the client pulled the trigger,
 *                     switched or began the reload (ServerClockEstimate.serverNow() at that moment).
 *                     Claimed times order the actions and drive the fire clock; the server bounds
 *                     each against the message's arrival.
 *   24     8    f64   claimed render time, ms on the server clock: the server time of the
 *                     interpolated snapshots the client was drawing when it fired, i.e. the action
 *                     time minus the interpolation delay it declared at join (fire only)
 *   32     8    f64   start x   (segment start S, metres, world space; fire only)
 *   40     8    f64   start y
 *   48     8    f64   start z
 *   56     8    f64   stop x    (segment stop E)
 *   64     8    f64   stop y
 *   72     8    f64   stop z
 *   80     24n  f64   each pellet's stop point x, y, z (the segment above is then the aim; every
 *                     pellet starts at its start)
 *
 * Decoding only checks the frame (length, version, action, reserved bytes); the numbers are judged
 * by the validation pipeline (shared/validate), so that a NaN or a huge coordinate gets its own
 * verdict reason. Switch and reload read only action, weapon, seq and action time.
 */

import { MAX_PELLETS } from '../weapons';

export const SHOT_VERSION = 2;
/** Bytes of a message without pellets; each pellet adds SHOT_PELLET_BYTES. */
export const SHOT_BYTES = 80;
export const SHOT_PELLET_BYTES = 24;
/** The longest weapon message: MAX_PELLETS pellets. */
export const SHOT_MAX_BYTES = SHOT_BYTES + SHOT_PELLET_BYTES * MAX_PELLETS;

/** Bytes of a weapon message claiming `pellets` pellets. */
export function shotBytes(pellets: number): number {
  return SHOT_BYTES + SHOT_PELLET_BYTES * pellets;
}
/** Byte offsets of the fields other readers take straight from a checked message (the layout above). */
export const ShotAt = { CLAIMED_TARGET: 8, TIME: 16, RENDER_TIME: 24, START: 32, STOP: 56 } as const;

/** What a weapon message asks for. */
export const ShotAction = {
  FIRE: 0,
  SWITCH: 1,
  RELOAD: 2,
} as const;
export type ShotAction = (typeof ShotAction)[keyof typeof ShotAction];

export interface ShotMessage {
  version: number;
  action: number;
  weapon: number;
  claimedTarget: number;
  seq: number;
  /** Claimed action time (fire, switch or reload), server ms. */
  timeMs: number;
  renderTimeMs: number;
  sx: number;
  sy: number;
  sz: number;
  ex: number;
  ey: number;
  ez: number;
  /** Pellets claimed (0..MAX_PELLETS) and their stop points, x y z each (the first 3 x pelletCount numbers count). */
  pelletCount: number;
  pellets: Float64Array;
}

export function createShotMessage(): ShotMessage {
  return {
    version: SHOT_VERSION, action: ShotAction.FIRE, weapon: 0, claimedTarget: -1, seq: 0, timeMs: 0, renderTimeMs: 0,
    sx: 0, sy: 0, sz: 0, ex: 0, ey: 0, ez: 0, pelletCount: 0, pellets: new Float64Array(3 * MAX_PELLETS),
  };
}

/** Why a byte payload is not a shot at all (before any field is judged). */
export const FrameStatus = {
  OK: 0,
  NOT_BYTES: 1,
  WRONG_LENGTH: 2,
  WRONG_VERSION: 3,
  OVERSIZED: 4,
  /** An unknown action code or a reserved byte that is not 0. */
  BAD_FIELD: 5,
} as const;
export type FrameStatus = (typeof FrameStatus)[keyof typeof FrameStatus];

/** Upper bound for any client message of this protocol; larger payloads are refused unread. */
export const MAX_CLIENT_MESSAGE_BYTES = 512;

/**
 * The DataView over exactly the payload's bytes: byte messages arrive as Uint8Arrays at arbitrary
 * (unaligned) offsets inside a larger buffer, so the view must start at byteOffset.
 */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Common frame check for every client payload: a Uint8Array, not oversized, exact length. */
export function checkFrame(bytes: unknown, expectedLength: number, version: number): FrameStatus {
  if (!(bytes instanceof Uint8Array)) return FrameStatus.NOT_BYTES;
  if (bytes.byteLength > MAX_CLIENT_MESSAGE_BYTES) return FrameStatus.OVERSIZED;
  if (bytes.byteLength !== expectedLength) return FrameStatus.WRONG_LENGTH;
  if (bytes[0] !== version) return FrameStatus.WRONG_VERSION;
  return FrameStatus.OK;
}

/**
 * Reads a weapon message into `out`. Returns FrameStatus.OK and fills every field, or another
 * status and leaves `out` untouched except `seq`, which is set when at least the first 8 bytes are
 * present (so the rejection can name the message the client sent), else -1. The length must be
 * exactly that of the pellet count in byte 3; pellets ride only on a fire.
 */
export function decodeShot(out: ShotMessage, bytes: unknown): FrameStatus {
  let status: FrameStatus = FrameStatus.OK;
  if (!(bytes instanceof Uint8Array)) status = FrameStatus.NOT_BYTES;
  else if (bytes.byteLength > MAX_CLIENT_MESSAGE_BYTES) status = FrameStatus.OVERSIZED;
  else if (bytes.byteLength < SHOT_BYTES) status = FrameStatus.WRONG_LENGTH;
  else if (bytes[0] !== SHOT_VERSION) status = FrameStatus.WRONG_VERSION;
  else {
    const v = viewOf(bytes);
    const n = v.getUint8(3);
    if (v.getUint8(1) > ShotAction.RELOAD || v.getUint32(12, true) !== 0 || n > MAX_PELLETS || (n > 0 && v.getUint8(1) !== ShotAction.FIRE)) status = FrameStatus.BAD_FIELD;
    else if (bytes.byteLength !== shotBytes(n)) status = FrameStatus.WRONG_LENGTH;
  }
  if (status !== FrameStatus.OK) {
    out.seq = bytes instanceof Uint8Array && bytes.byteLength >= 8 && bytes.byteLength <= MAX_CLIENT_MESSAGE_BYTES
      ? viewOf(bytes).getUint32(4, true)
      : -1;
    return status;
  }
  const v = viewOf(bytes as Uint8Array);
  out.version = v.getUint8(0);
  out.action = v.getUint8(1);
  out.weapon = v.getUint8(2);
  out.seq = v.getUint32(4, true);
  out.claimedTarget = v.getInt32(8, true);
  out.timeMs = v.getFloat64(16, true);
  out.renderTimeMs = v.getFloat64(24, true);
  out.sx = v.getFloat64(32, true);
  out.sy = v.getFloat64(40, true);
  out.sz = v.getFloat64(48, true);
  out.ex = v.getFloat64(56, true);
  out.ey = v.getFloat64(64, true);
  out.ez = v.getFloat64(72, true);
  const n = v.getUint8(3);
  out.pelletCount = n;
  for (let i = 0; i < 3 * n; i++) out.pellets[i] = v.getFloat64(SHOT_BYTES + 8 * i, true);
  return FrameStatus.OK;
}

/**
 * Writes a weapon message into `out` (shotBytes(shot.pelletCount) bytes from `offset`) and returns
 * `out`. Used by clients and tests.
 */
export function encodeShot(out: Uint8Array, shot: ShotMessage, offset = 0): Uint8Array {
  const n = shot.pelletCount > 0 ? shot.pelletCount : 0;
  const v = new DataView(out.buffer, out.byteOffset + offset, shotBytes(n));
  v.setUint8(0, shot.version);
  v.setUint8(1, shot.action);
  v.setUint8(2, shot.weapon);
  v.setUint8(3, n);
  v.setUint32(4, shot.seq, true);
  v.setInt32(8, shot.claimedTarget, true);
  v.setUint32(12, 0, true);
  v.setFloat64(16, shot.timeMs, true);
  v.setFloat64(24, shot.renderTimeMs, true);
  v.setFloat64(32, shot.sx, true);
  v.setFloat64(40, shot.sy, true);
  v.setFloat64(48, shot.sz, true);
  v.setFloat64(56, shot.ex, true);
  v.setFloat64(64, shot.ey, true);
  v.setFloat64(72, shot.ez, true);
  for (let i = 0; i < 3 * n; i++) v.setFloat64(SHOT_BYTES + 8 * i, shot.pellets[i]!, true);
  return out;
}

/** The bytes of `shot` as a new array of exactly its length (clients sending one message). */
export function shotFrame(shot: ShotMessage): Uint8Array {
  return encodeShot(new Uint8Array(shotBytes(shot.pelletCount)), shot);
}
