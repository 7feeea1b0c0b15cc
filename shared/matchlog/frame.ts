/**
 * The match log's framing: a fixed preamble (magic + format version) and then records framed as
 *
 *   [u32 length][u8 type][payload: length bytes][u32 CRC-32 of type + payload]   (little-endian)
 *
 * `FrameBuffer` assembles frames in memory without I/O (the server's writer flushes it to disk);
 * `readFrames` walks a byte array and tells a torn tail (the file simply stops: short header,
 * short payload, or a bad CRC on the last record) from corruption in the middle (a bad CRC
 * followed by intact records: a flipped byte or a hand-edited log). The writer's own frames, the
 * gap (records dropped) and the note (records it could not write at all), are defined here too.
 * Pure (DataView, TextEncoder) so a browser tool can read logs too.
 */
import { crc32 } from './crc32';

/** "HRML": hitreg match log. */
export const LOG_MAGIC = 0x4c4d5248;
/**
 * Bump when a record layout changes; the reader refuses versions outside
 * [LOG_FORMAT_MIN_VERSION, LOG_FORMAT_VERSION].
 * 2: the verdict gained targetRewindStatus.
 * 3: weapon messages (fire, switch, reload) with claimed action times; the verdict gained
 *    originOffsetM; the shooter state gained
 *    lastActionMs, equipped, drawEndMs and carried.
 * 4: every tick slot carries the view direction and the input messages that arrived (records.ts).
 * 5: a shot record carries the time a dead shooter was killed (shotRecord.ts).
 * 6: every tick slot carries the time its view was aimed (the input's stamp; records.ts).
 * 7: every tick slot carries the eye height and marks unknown input counts; a shot record carries
 *    each target's team and leave time (shotRecord.ts).
 * 8: the shooter state carries the spray heat and its time; the verdict carries each pellet's
 *    result, every hit and every impact; a shot record carries each hit's health after and kill
 *    (shotRecord.ts, pelletRecord.ts).
 * 9: a log the writer could not finish may end with its note (NOTE_FRAME_TYPE): the records it
 *    could not write and why. Records unchanged: a version 8 log reads as a version 9 one.
 * 10: projectile records (spawn, flight end, blast: projectileRecord.ts); the other records
 *    unchanged, so a version 9 log reads as a version 10 one without projectiles.
 * 11: projectiles fly on the spawn's sub-step grid (shared/projectile/flights.ts); the header names
 *    maxProjectiles. Records unchanged: a version 10 log is audited with the version 10 flight policy.
 * 12: identity records (who joined on a slot: identityRecord.ts); the other records unchanged.
 * 13: fog records (which enemies a server-side fog of war sent to whom: fogRecord.ts); the header
 *    may name the fog mode; the other records unchanged.
 * 14: fog flights records (which projectiles a fog of war newly sent to whom: fogFlightRecord.ts);
 *    the other records unchanged, so a version 13 log reads as a version 14 one without them.
 * 15: fog ends records (who was told each projectile's end, and how: fogEndRecord.ts); the other
 *    records unchanged, so a version 14 log reads as a version 15 one without them.
 * 16: fog backfills records (an enemy's poses handed a viewer with its send: fogBackfillRecord.ts);
 *    the other records unchanged, so a version 15 log reads as a version 16 one without them.
 */
export const LOG_FORMAT_VERSION = 16;
/** The first version whose logs may carry fog backfills records. */
export const LOG_VERSION_WITH_FOG_BACKFILLS = 16;
/** The first version whose logs may carry fog ends records. */
export const LOG_VERSION_WITH_FOG_ENDS = 15;
/** The first version whose logs may carry fog flights records. */
export const LOG_VERSION_WITH_FOG_FLIGHTS = 14;
/** The first version whose logs may carry fog records. */
export const LOG_VERSION_WITH_FOG = 13;
/** The first version whose logs say who joined on each slot. */
export const LOG_VERSION_WITH_IDENTITY = 12;
/** The first version whose projectiles fly on their sub-step grid. */
export const LOG_VERSION_WITH_GRID_FLIGHTS = 11;
/** The first version whose logs carry projectile records (and account for every death: the audit's cause check). */
export const LOG_VERSION_WITH_PROJECTILES = 10;
/** The first version whose writer may leave a note frame. */
export const LOG_VERSION_WITH_NOTE = 9;
/** The oldest version this reader reads (a version 3 tick slot has no view: its measures fall back to the body's heading). */
export const LOG_FORMAT_MIN_VERSION = 3;
/**
 * Frame type the writer uses to mark records it had to drop (disk failing for longer than its
 * memory bound): payload u32 dropped records, f64 dropped bytes. Content record types are < 254 (NOTE_FRAME_TYPE is the writer's other frame).
 */
export const GAP_FRAME_TYPE = 255;
export const GAP_PAYLOAD_BYTES = 12;
/**
 * Frame type of the note the writer leaves as the log's last frame when it closes with records it
 * could not write (the disk stayed full or failing to the end), in place of the record cut there:
 * NOTE layout: u32 records not written (the cut one included), f64 their bytes (framing included),
 * u32 records dropped over the memory bound that no gap frame marks, f64 their bytes, u16 n, then n
 * bytes of UTF-8: the writer's last error (e.g. "write: ENOSPC: no space left on device, write").
 */
export const NOTE_FRAME_TYPE = 254;
export const NOTE_HEAD_BYTES = 26;
/** Longest reason a note keeps, bytes (a longer one is cut at a character boundary). */
export const NOTE_REASON_MAX_BYTES = 240;
/** Bytes before the first record: u32 magic, u32 version. */
export const PREAMBLE_BYTES = 8;
/** u32 length + u8 type before the payload. */
export const FRAME_HEAD_BYTES = 5;
/** u32 CRC after the payload. */
export const FRAME_TAIL_BYTES = 4;
export const FRAME_OVERHEAD = FRAME_HEAD_BYTES + FRAME_TAIL_BYTES;
/**
 * Largest payload the format allows. A length above it can only be garbage (a torn or corrupted
 * length field), so the reader stops there instead of trusting it.
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/** Writes the 8-byte preamble into `out` at `offset`; returns the bytes written. */
export function writePreamble(out: Uint8Array, offset = 0, version = LOG_FORMAT_VERSION): number {
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  v.setUint32(offset, LOG_MAGIC, true);
  v.setUint32(offset + 4, version, true);
  return PREAMBLE_BYTES;
}

/** What a writer's note says (NOTE_FRAME_TYPE). */
export interface WriterNote {
  /** Records the writer could not write, the one cut where the note stands included. */
  unwrittenRecords: number;
  unwrittenBytes: number;
  /** Records dropped over the writer's memory bound that no gap frame marks. */
  droppedRecords: number;
  droppedBytes: number;
  /** The writer's last error. */
  reason: string;
}

const noteEncoder = new TextEncoder();
const noteDecoder = new TextDecoder('utf-8', { fatal: false });

/** Appends the note frame to `out`. */
export function appendNote(out: FrameBuffer, note: WriterNote): void {
  let reason = noteEncoder.encode(note.reason);
  if (reason.length > NOTE_REASON_MAX_BYTES) {
    let n = NOTE_REASON_MAX_BYTES;
    // Back off to the start of a character (no UTF-8 continuation byte first).
    while (n > 0 && (reason[n]! & 0xc0) === 0x80) n--;
    reason = reason.subarray(0, n);
  }
  const at = out.begin(NOTE_FRAME_TYPE, NOTE_HEAD_BYTES + reason.length);
  const v = out.view;
  v.setUint32(at, note.unwrittenRecords, true);
  v.setFloat64(at + 4, note.unwrittenBytes, true);
  v.setUint32(at + 12, note.droppedRecords, true);
  v.setFloat64(at + 16, note.droppedBytes, true);
  v.setUint16(at + 24, reason.length, true);
  out.bytes.set(reason, at + NOTE_HEAD_BYTES);
  out.end(NOTE_HEAD_BYTES + reason.length);
}

/** The note whose payload is `length` bytes at `at`; null when the sizes do not add up. */
export function readNote(view: DataView, at: number, length: number): WriterNote | null {
  if (length < NOTE_HEAD_BYTES) return null;
  const n = view.getUint16(at + 24, true);
  if (length !== NOTE_HEAD_BYTES + n) return null;
  return {
    unwrittenRecords: view.getUint32(at, true), unwrittenBytes: view.getFloat64(at + 4, true),
    droppedRecords: view.getUint32(at + 12, true), droppedBytes: view.getFloat64(at + 16, true),
    // A copy: a browser's TextDecoder refuses views of shared memory (the audit reads logs into it).
    reason: noteDecoder.decode(new Uint8Array(view.buffer, view.byteOffset + at + NOTE_HEAD_BYTES, n).slice()),
  };
}

/**
 * An append-only, growable byte buffer of whole frames. Encoders call `begin(type, maxPayload)`,
 * write the payload through `view` at the returned offset, then `end(payloadLength)`, which fills
 * in the length and CRC. `take()` hands the finished bytes to the caller (for a disk write) and
 * starts a fresh buffer; a frame is never split between two `take()`s.
 */
export class FrameBuffer {
  bytes: Uint8Array;
  view: DataView;
  /** Bytes of finished frames. */
  length = 0;
  /** Frames finished since the last take(). */
  frames = 0;
  private open = -1;
  private openType = 0;
  private openMax = 0;

  constructor(initialCapacity = 64 * 1024) {
    this.bytes = new Uint8Array(Math.max(64, initialCapacity));
    this.view = new DataView(this.bytes.buffer);
  }

  /** Starts a frame; returns the offset in `view`/`bytes` where the payload goes. */
  begin(type: number, maxPayload: number): number {
    if (this.open >= 0) throw new Error('FrameBuffer.begin: the previous frame is still open; call end() first');
    if (!(type >= 0 && type <= 255 && Number.isInteger(type))) throw new Error(`FrameBuffer.begin: type ${type} is not a byte`);
    if (!(maxPayload >= 0 && maxPayload <= MAX_PAYLOAD_BYTES)) {
      throw new Error(`FrameBuffer.begin: payload of ${maxPayload} bytes exceeds ${MAX_PAYLOAD_BYTES}; split the record`);
    }
    this.ensure(this.length + FRAME_OVERHEAD + maxPayload);
    this.open = this.length;
    this.openType = type;
    this.openMax = maxPayload;
    this.bytes[this.length + 4] = type;
    return this.length + FRAME_HEAD_BYTES;
  }

  /** Finishes the open frame with `payloadLength` bytes (at most the `maxPayload` given to begin). */
  end(payloadLength: number): void {
    const at = this.open;
    if (at < 0) throw new Error('FrameBuffer.end: no open frame; call begin() first');
    if (!(payloadLength >= 0 && payloadLength <= this.openMax)) {
      throw new Error(`FrameBuffer.end: ${payloadLength} bytes written but begin() reserved ${this.openMax}`);
    }
    this.view.setUint32(at, payloadLength, true);
    this.bytes[at + 4] = this.openType;
    const crcEnd = at + FRAME_HEAD_BYTES + payloadLength;
    this.view.setUint32(crcEnd, crc32(this.bytes, at + 4, crcEnd), true);
    this.length = crcEnd + FRAME_TAIL_BYTES;
    this.frames++;
    this.open = -1;
  }

  /** Abandons the open frame (e.g. an encoder found the record invalid). */
  cancel(): void {
    this.open = -1;
  }

  /** Appends a whole frame with an already-encoded payload. */
  append(type: number, payload: Uint8Array): void {
    const at = this.begin(type, payload.length);
    this.bytes.set(payload, at);
    this.end(payload.length);
  }

  /** Appends raw bytes that are not a frame (the preamble). Only valid with no frame open. */
  appendRaw(raw: Uint8Array): void {
    if (this.open >= 0) throw new Error('FrameBuffer.appendRaw: a frame is open; call end() first');
    this.ensure(this.length + raw.length);
    this.bytes.set(raw, this.length);
    this.length += raw.length;
  }

  /**
   * Returns the finished bytes (a view that the caller now owns) and resets the buffer. The next
   * frames go into a new allocation, so the returned bytes stay valid while a write is in flight.
   */
  take(): Uint8Array {
    if (this.open >= 0) throw new Error('FrameBuffer.take: a frame is open; call end() first');
    const out = this.bytes.subarray(0, this.length);
    const capacity = this.bytes.length;
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
    this.length = 0;
    this.frames = 0;
    return out;
  }

  private ensure(capacity: number): void {
    if (capacity <= this.bytes.length) return;
    let next = this.bytes.length * 2;
    while (next < capacity) next *= 2;
    const grown = new Uint8Array(next);
    // Only called with no frame open, so the finished frames are everything worth keeping.
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }
}

/** One intact record found by the reader: where its payload lies in the byte array. */
export interface FrameRef {
  type: number;
  /** Offset of the frame (its length field) in the file. */
  offset: number;
  /** Offset of the payload. */
  payloadOffset: number;
  payloadLength: number;
}

/** Why bytes in the middle of a log could not be trusted. */
export const CorruptionKind = {
  /** The record's bytes are all there but its CRC does not match, and intact records follow. */
  BadCrc: 'bad-crc',
} as const;
export type CorruptionKind = (typeof CorruptionKind)[keyof typeof CorruptionKind];

export interface Corruption {
  kind: CorruptionKind;
  /** Offset of the damaged frame. */
  offset: number;
  /** The type byte as stored (it may itself be the damaged byte). */
  type: number;
  payloadLength: number;
}

/** Why the log ended before its last byte. */
export const TruncationKind = {
  /** Fewer than 5 bytes where a frame head should be. */
  ShortHeader: 'short-header',
  /** The length field promises more bytes than the file has. */
  ShortPayload: 'short-payload',
  /** The length field is above MAX_PAYLOAD_BYTES: garbage, nothing after it can be framed. */
  BadLength: 'bad-length',
  /** The last record is complete in size but its CRC fails (a write torn inside the page). */
  BadCrc: 'bad-crc',
} as const;
export type TruncationKind = (typeof TruncationKind)[keyof typeof TruncationKind];

export interface FrameReadResult {
  version: number;
  frames: FrameRef[];
  /** True when a torn tail was cut: records from `truncatedAt` on are lost. */
  truncated: boolean;
  /** Offset of the first byte not read as an intact record (= file length when not truncated). */
  truncatedAt: number;
  truncation: TruncationKind | null;
  /** Damaged records in the middle (skipped: their framing was intact). */
  corrupt: Corruption[];
}

/** Thrown when the bytes are not a match log at all, or one of a format version we cannot read. */
export class LogFormatError extends Error {
  override name = 'LogFormatError';
}

/**
 * Frames every intact record of a match log. Never throws on damage past the preamble: a torn
 * tail is cut and reported (`truncated`, `truncatedAt`, `truncation`); a record whose CRC fails
 * while intact records follow it is reported in `corrupt` and skipped. Throws `LogFormatError`
 * when the preamble is missing, wrong or of another version.
 */
export function readFrames(bytes: Uint8Array): FrameReadResult {
  if (bytes.length < PREAMBLE_BYTES) {
    throw new LogFormatError(`not a match log: ${bytes.length} bytes, shorter than the ${PREAMBLE_BYTES}-byte preamble (was the file created but never written?)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== LOG_MAGIC) {
    throw new LogFormatError(`not a match log: magic 0x${magic.toString(16)} instead of 0x${LOG_MAGIC.toString(16)} ("HRML")`);
  }
  const version = view.getUint32(4, true);
  if (!(version >= LOG_FORMAT_MIN_VERSION && version <= LOG_FORMAT_VERSION)) {
    throw new LogFormatError(`match log format version ${version}; this reader reads versions ${LOG_FORMAT_MIN_VERSION} to ${LOG_FORMAT_VERSION}: use the audit tool of the release that wrote the log`);
  }
  const frames: FrameRef[] = [];
  const corrupt: Corruption[] = [];
  const end = bytes.length;
  let at = PREAMBLE_BYTES;
  let truncation: TruncationKind | null = null;
  while (at < end) {
    const state = frameAt(bytes, view, at);
    if (state === FRAME_OK) {
      const len = view.getUint32(at, true);
      frames.push({ type: bytes[at + 4], offset: at, payloadOffset: at + FRAME_HEAD_BYTES, payloadLength: len });
      at += FRAME_OVERHEAD + len;
      continue;
    }
    if (state === TruncationKind.BadCrc) {
      // Sized right but the checksum fails: torn if nothing intact follows, corruption otherwise.
      const len = view.getUint32(at, true);
      const next = at + FRAME_OVERHEAD + len;
      if (next < end && frameAt(bytes, view, next) === FRAME_OK) {
        corrupt.push({ kind: CorruptionKind.BadCrc, offset: at, type: bytes[at + 4], payloadLength: len });
        at = next;
        continue;
      }
    }
    truncation = state;
    break;
  }
  return { version, frames, truncated: truncation !== null, truncatedAt: at, truncation, corrupt };
}

const FRAME_OK = 'ok' as const;

/** Checks the frame at `at`: FRAME_OK or why it is not an intact frame. */
function frameAt(bytes: Uint8Array, view: DataView, at: number): typeof FRAME_OK | TruncationKind {
  if (bytes.length - at < FRAME_HEAD_BYTES) return TruncationKind.ShortHeader;
  const len = view.getUint32(at, true);
  if (len > MAX_PAYLOAD_BYTES) return TruncationKind.BadLength;
  const crcAt = at + FRAME_HEAD_BYTES + len;
  if (crcAt + FRAME_TAIL_BYTES > bytes.length) return TruncationKind.ShortPayload;
  return crc32(bytes, at + 4, crcAt) === view.getUint32(crcAt, true) ? FRAME_OK : TruncationKind.BadCrc;
}
