/**
 * Where and why a match log ends, from its framing alone: closed by its end record; ended by the
 * writer's note (records it could not write, and the error); cut inside a record (a write that
 * stopped partway, as on a full disk, or a process that died during a write); a last record whose
 * bytes are all there but wrong (a torn page, or an edited tail); or cut cleanly between records
 * with no end record (the process stopped: killed or crashed, or its writer never wrote again).
 * Every complete record before the end is audited as usual whatever the reason. Pure: the audit,
 * verifyMatchLog and the browser read it alike.
 */
import { FRAME_HEAD_BYTES, FRAME_OVERHEAD, NOTE_FRAME_TYPE, readNote, TruncationKind, type FrameReadResult, type WriterNote } from '../matchlog/frame';
import { RecordType, TICK_TIME_AT } from '../matchlog/records';

export const EndWhy = {
  /** The end record is there: the room closed its log; nothing is missing. */
  CLOSED: 'closed',
  /** The writer's note ends the log: records it held never reached the file (the note says how many and why). */
  WRITER_NOTE: 'writer-note',
  /** The file stops inside a record: a write stopped partway (a full disk) or the process died during one. */
  PARTIAL_RECORD: 'partial-record',
  /** The last record's bytes are there but wrong (a bad CRC or a length no record has): a torn page or an edited tail. */
  DAMAGED_RECORD: 'damaged-record',
  /** The file stops between records without an end record: the process stopped (killed, crashed) or its writer did. */
  NO_END_RECORD: 'no-end-record',
} as const;
export type EndWhy = (typeof EndWhy)[keyof typeof EndWhy];

export interface LogEnd {
  /** True when the end record closes the log (why = closed). */
  complete: boolean;
  why: EndWhy;
  /** Byte offset where the match's records stop: after the last complete record (where the note stands, when there is one). */
  atByte: number;
  /** The file's length in bytes. */
  fileBytes: number;
  /** Complete records before atByte (a note not counted). */
  records: number;
  /** Time of the last tick record before atByte, server ms (NaN when there is none). */
  lastTimeMs: number;
  /** The cut record: the bytes the file holds of it and the bytes its length field promises (NaN when its head is cut). */
  cut: { bytes: number; promised: number } | null;
  /** What the writer's note says (why = writer-note). */
  note: WriterNote | null;
  /** One sentence for a reviewer: where, why, and what was audited. */
  detail: string;
}

const ms = (t: number): string => (Number.isFinite(t) ? `${Math.round(t * 10) / 10} ms` : 'none');

/** How the log in `bytes`, framed as `frames`, ends. */
export function describeLogEnd(bytes: Uint8Array, frames: FrameReadResult): LogEnd {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const list = frames.frames;
  const last = list.at(-1);
  const note = !frames.truncated && last !== undefined && last.type === NOTE_FRAME_TYPE ? readNote(view, last.payloadOffset, last.payloadLength) : null;
  const records = note !== null ? list.length - 1 : list.length;
  let lastTimeMs = Number.NaN;
  let closed = false;
  for (let i = 0; i < records; i++) {
    const f = list[i]!;
    if (f.type === RecordType.TICK && f.payloadLength >= TICK_TIME_AT + 8) lastTimeMs = view.getFloat64(f.payloadOffset + TICK_TIME_AT, true);
    else if (f.type === RecordType.END) closed = true;
  }
  const atByte = note !== null ? last!.offset : frames.truncatedAt;
  const out: LogEnd = { complete: false, why: EndWhy.NO_END_RECORD, atByte, fileBytes: bytes.length, records, lastTimeMs, cut: null, note, detail: '' };
  const before = `the ${records} complete records before it (last tick at ${ms(lastTimeMs)}) are audited`;
  if (frames.truncated) {
    const held = bytes.length - atByte;
    const promised = held >= FRAME_HEAD_BYTES ? FRAME_OVERHEAD + view.getUint32(atByte, true) : Number.NaN;
    out.cut = { bytes: held, promised };
    const partial = frames.truncation === TruncationKind.ShortHeader || frames.truncation === TruncationKind.ShortPayload;
    out.why = partial ? EndWhy.PARTIAL_RECORD : EndWhy.DAMAGED_RECORD;
    out.detail = partial
      ? `ends inside a record at byte ${atByte}: the file holds ${held} of its ${Number.isFinite(promised) ? `${promised} bytes` : 'bytes (not even its 5-byte head)'}: a write stopped partway (a full disk) or the process died during one; ${before}`
      : `ends with a damaged record at byte ${atByte} (${frames.truncation}: ${held} bytes that are no record): a page torn by a crash or an edited tail; ${before}`;
  } else if (note !== null) {
    out.why = EndWhy.WRITER_NOTE;
    const dropped = note.droppedRecords > 0 ? `, and had dropped ${note.droppedRecords} more (${note.droppedBytes} bytes) over its memory bound` : '';
    out.detail = `ends at byte ${atByte} with the writer's note: it could not write the last ${note.unwrittenRecords} records (${note.unwrittenBytes} bytes)${dropped}: ${note.reason}; ${before}`;
  } else if (closed) {
    out.complete = true;
    out.why = EndWhy.CLOSED;
    out.detail = `closed by its end record: ${records} records, last tick at ${ms(lastTimeMs)}`;
  } else {
    out.detail = `ends between records at byte ${atByte} with no end record: the process stopped (killed, crashed) or its writer did; ${before}`;
  }
  return out;
}
