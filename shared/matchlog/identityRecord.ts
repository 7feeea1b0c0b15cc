/**
 * The identity record (log format 12 on): who joined on a slot, so evidence can follow a player
 * across matches. Written right after the slot's join event. Layout (little-endian): slot u16,
 * flags u8 (bit 0: verified, the id is the subject of a token the server checked; otherwise the
 * client named itself), length u8, then the player id's UTF-8 bytes (1..MAX_PLAYER_ID_BYTES).
 */

/** Longest player id the log keeps, in UTF-8 bytes. */
export const MAX_PLAYER_ID_BYTES = 128;
/** Bytes of an identity record before the id. */
export const IDENTITY_HEAD_BYTES = 4;

export interface IdentityData {
  slot: number;
  playerId: string;
  verified: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The id's UTF-8 bytes when it can be logged (a string of 1..MAX_PLAYER_ID_BYTES bytes, no control characters), else null. */
export function playerIdBytes(id: unknown): Uint8Array | null {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_PLAYER_ID_BYTES) return null;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return null;
  }
  const b = encoder.encode(id);
  return b.length <= MAX_PLAYER_ID_BYTES ? b : null;
}

/** Bytes of the record for an id of `idBytes` UTF-8 bytes. */
export function identityRecordBytes(idBytes: number): number {
  return IDENTITY_HEAD_BYTES + idBytes;
}

/** Writes the record at `at`; returns its length. `id` from playerIdBytes. */
export function writeIdentity(view: DataView, at: number, slot: number, verified: boolean, id: Uint8Array): number {
  view.setUint16(at, slot & 0xffff, true);
  view.setUint8(at + 2, verified ? 1 : 0);
  view.setUint8(at + 3, id.length);
  new Uint8Array(view.buffer, view.byteOffset + at + IDENTITY_HEAD_BYTES, id.length).set(id);
  return IDENTITY_HEAD_BYTES + id.length;
}

/** The record at `at` of `length` bytes, or null when it is malformed. */
export function readIdentity(view: DataView, at: number, length: number): IdentityData | null {
  if (length < IDENTITY_HEAD_BYTES + 1) return null;
  const n = view.getUint8(at + 3);
  const flags = view.getUint8(at + 2);
  if (length !== IDENTITY_HEAD_BYTES + n || (flags & ~1) !== 0) return null;
  try {
    const playerId = decoder.decode(new Uint8Array(view.buffer, view.byteOffset + at + IDENTITY_HEAD_BYTES, n));
    return { slot: view.getUint16(at, true), playerId, verified: (flags & 1) === 1 };
  } catch {
    return null;
  }
}
