/**
 * The append-only match log on disk. The room appends records (encoded straight into an in-memory
 * `FrameBuffer`, no I/O on the tick), and a timer flushes the finished frames every
 * `flushIntervalMs` with one asynchronous positional write in flight at a time; whatever is
 * appended meanwhile waits for the next write. Failures (full disk, I/O error, unwritable
 * directory) are counted, reported through `onError` and one console line, and the match goes on.
 *
 * Durability, exactly:
 * - A record is in the file (survives `kill -9` of this process, since the OS keeps written pages)
 *   once the write that carried it returned: `stats.bytesWritten` passes its end. The most a
 *   process crash can lose is what was appended since the last flush started plus the batch in
 *   flight: about one `flushIntervalMs` (default 50 ms) of records, and never part of a record
 *   that the reader would accept (a torn tail is detected by length and CRC and cut).
 * - A record survives an OS crash or power loss once an `fdatasync` that started after its write
 *   completed: `stats.bytesDurable` passes its end. Sync runs at most every `syncIntervalMs`
 *   (default 1000 ms; 0 syncs after every write), so a power cut loses at most about
 *   `syncIntervalMs + flushIntervalMs` of records.
 * - While writes fail, batches stay in memory (and are retried every `retryMs`) up to
 *   `maxPendingBytes`; records beyond that bound are dropped and counted, and once writing works
 *   again a gap frame (GAP_FRAME_TYPE) records how many were dropped, so an audit knows.
 * - A log closed while writes still fail ends with the writer's note (NOTE_FRAME_TYPE): how many
 *   records and bytes never reached the file, and the last error. The note is written over the
 *   record a failed write cut (the writer knows where each record it wrote begins), so it takes
 *   no space the file did not already hold when that record's piece is at least the note's size;
 *   when even the note cannot be written, the file ends inside the cut record (or between records)
 *   and an audit says so from the framing alone.
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendNote, FrameBuffer, FRAME_OVERHEAD, GAP_FRAME_TYPE, GAP_PAYLOAD_BYTES, PREAMBLE_BYTES, writePreamble } from '../../shared/matchlog/frame';

export interface MatchLogWriterOptions {
  /** How often finished records are handed to the OS. Default 50 ms. */
  flushIntervalMs?: number;
  /** Least time between fdatasync calls; 0 syncs after every write. Default 1000 ms. */
  syncIntervalMs?: number;
  /** After a failed open or write, wait this long before trying again. Default 1000 ms. */
  retryMs?: number;
  /** Bytes kept in memory while the disk fails; records beyond are dropped and counted. Default 64 MiB. */
  maxPendingBytes?: number;
  /** Called on every failed open/write/sync, with the error and the counters after it. */
  onError?: (error: Error, stats: Readonly<MatchLogStats>) => void;
  /**
   * open() flags. Default 'wx': create, and refuse to overwrite another match's log. 'w' lets a
   * test write to a device such as /dev/full.
   */
  flags?: 'wx' | 'w';
  /** Where the one-line failure and recovery notices go. Default console.error. */
  log?: (line: string) => void;
}

export interface MatchLogStats {
  /** Records accepted by append/end (dropped ones not included). */
  records: number;
  /** Bytes the OS accepted (survive a process crash). */
  bytesWritten: number;
  /** Bytes covered by a completed fdatasync (survive an OS crash). */
  bytesDurable: number;
  /** Bytes waiting in memory (queued batches + the open buffer). */
  bytesPending: number;
  /** Failed open/write/sync calls. */
  errors: number;
  /** The last failure's message, null when none. */
  lastError: string | null;
  /** Records dropped because the memory bound was reached while writes failed. */
  droppedRecords: number;
  droppedBytes: number;
  /**
   * The note a log closed with records unwritten ends with: 'written', 'failed' (the file then ends
   * inside the cut record or between records), null when none was needed. Its bytes are not in
   * bytesWritten: the file is its records up to the cut plus the note.
   */
  note: 'written' | 'failed' | null;
  closed: boolean;
}

/**
 * One match log file. Create it, append records, `close()` at the end of the match. The file and
 * its directory are created asynchronously; records appended before that are simply queued.
 */
export class MatchLogWriter {
  readonly path: string;
  private readonly frames = new FrameBuffer(64 * 1024);
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private handle: FileHandle | null = null;
  private opening: Promise<void> | null = null;
  private busy: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private position = 0;
  private lastSyncAt = 0;
  private nextTryAt = 0;
  private failing = false;
  private dropping = false;
  private gapRecords = 0;
  private gapBytes = 0;
  /** File offset where the last record written whole ends (the preamble counts as one). */
  private boundary = 0;
  /** File offset where the record being written ends (= boundary when none is cut). */
  private nextBoundary = PREAMBLE_BYTES;
  private readonly flushIntervalMs: number;
  private readonly syncIntervalMs: number;
  private readonly retryMs: number;
  private readonly maxPendingBytes: number;
  private readonly onError?: MatchLogWriterOptions['onError'];
  private readonly log: (line: string) => void;
  private readonly flags: 'wx' | 'w';
  readonly stats: MatchLogStats = {
    records: 0, bytesWritten: 0, bytesDurable: 0, bytesPending: 0, errors: 0, lastError: null,
    droppedRecords: 0, droppedBytes: 0, note: null, closed: false,
  };

  constructor(path: string, options: MatchLogWriterOptions = {}) {
    this.path = path;
    this.flushIntervalMs = clampMs(options.flushIntervalMs, 50, 1, 10_000);
    this.syncIntervalMs = clampMs(options.syncIntervalMs, 1000, 0, 600_000);
    this.retryMs = clampMs(options.retryMs, 1000, 1, 600_000);
    this.maxPendingBytes = Math.max(1024, Math.floor(options.maxPendingBytes ?? 64 * 1024 * 1024));
    this.onError = options.onError;
    this.log = options.log ?? ((line) => console.error(line));
    this.flags = options.flags ?? 'wx';
    const preamble = new Uint8Array(PREAMBLE_BYTES);
    writePreamble(preamble);
    this.frames.appendRaw(preamble);
    this.timer = setInterval(() => this.tick(), this.flushIntervalMs);
    // A log must never keep the process alive on its own.
    this.timer.unref?.();
  }

  /**
   * Starts a record of `type` with room for `maxPayload` bytes; write the payload through
   * `view`/`bytes` at the returned offset, then call `end(length)`. Synchronous, no I/O.
   */
  begin(type: number, maxPayload: number): number {
    if (this.stats.closed) throw new Error(`match log ${this.path} is closed; open a new MatchLogWriter`);
    const pending = this.queuedBytes + this.frames.length;
    if (pending + maxPayload > this.maxPendingBytes) {
      this.dropping = true;
    } else {
      this.dropping = false;
      if (this.gapRecords > 0) this.writeGap();
    }
    return this.frames.begin(type, maxPayload);
  }

  /** The buffer `begin` returned an offset into (valid until the next begin). */
  get view(): DataView {
    return this.frames.view;
  }
  get bytes(): Uint8Array {
    return this.frames.bytes;
  }

  /** Finishes the record begun last with `payloadLength` bytes. */
  end(payloadLength: number): void {
    if (this.dropping) {
      this.frames.cancel();
      this.stats.droppedRecords++;
      this.stats.droppedBytes += payloadLength + 9;
      this.gapRecords++;
      this.gapBytes += payloadLength + 9;
      this.dropping = false;
      return;
    }
    this.frames.end(payloadLength);
    this.stats.records++;
  }

  /** Appends a record whose payload is already encoded. */
  append(type: number, payload: Uint8Array): void {
    const at = this.begin(type, payload.length);
    this.frames.bytes.set(payload, at);
    this.end(payload.length);
  }

  /** Hands everything appended so far to the OS now; resolves when written (or failed). */
  async flush(): Promise<void> {
    while (this.busy) await this.busy;
    this.nextTryAt = 0;
    this.startWrite(true);
    while (this.busy) await this.busy;
  }

  /**
   * Writes what is left, syncs, closes the file. Resolves with the final counters; never throws
   * (failures are in the counters).
   */
  async close(): Promise<MatchLogStats> {
    if (this.stats.closed) return this.stats;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    if (this.handle && (this.queuedBytes > 0 || this.gapRecords > 0)) await this.writeNote(this.handle);
    try {
      if (this.handle && (this.stats.bytesDurable < this.stats.bytesWritten || this.stats.note === 'written')) {
        await this.handle.datasync();
        this.stats.bytesDurable = this.stats.bytesWritten;
      }
    } catch (error) {
      this.fail(error as Error, 'sync');
    }
    try {
      await this.handle?.close();
    } catch (error) {
      this.fail(error as Error, 'close');
    }
    this.handle = null;
    this.stats.closed = true;
    this.stats.bytesPending = this.queuedBytes + this.frames.length;
    if (this.stats.bytesPending > 0 || this.stats.droppedRecords > 0) {
      const note = this.stats.note === 'written' ? `; the log ends with a note saying so at byte ${this.boundary}` : this.stats.note === 'failed' ? '; the note saying so could not be written either' : '';
      this.log(`[match-log] ${this.path} closed with ${this.stats.bytesPending} bytes unwritten and ${this.stats.droppedRecords} records dropped (${this.stats.lastError ?? 'no error'})${note}`);
    }
    return this.stats;
  }

  private tick(): void {
    this.startWrite(false);
  }

  private writeGap(): void {
    const at = this.frames.begin(GAP_FRAME_TYPE, GAP_PAYLOAD_BYTES);
    this.frames.view.setUint32(at, this.gapRecords, true);
    this.frames.view.setFloat64(at + 4, this.gapBytes, true);
    this.frames.end(GAP_PAYLOAD_BYTES);
    this.gapRecords = 0;
    this.gapBytes = 0;
  }

  /** Moves finished frames to the queue and starts the one write in flight, if none is. */
  private startWrite(force: boolean): void {
    if (this.frames.length > 0) {
      const batch = this.frames.take();
      this.queue.push(batch);
      this.queuedBytes += batch.length;
    }
    this.stats.bytesPending = this.queuedBytes;
    if (this.busy) return;
    const needSync = this.handle !== null && this.stats.bytesDurable < this.stats.bytesWritten;
    if (this.queue.length === 0 && !needSync) return;
    if (!force && this.failing && Date.now() < this.nextTryAt) return;
    this.busy = this.drain(force).finally(() => {
      this.busy = null;
    });
  }

  private async drain(force: boolean): Promise<void> {
    try {
      if (!this.handle) {
        this.opening ??= this.openFile();
        await this.opening;
        this.opening = null;
      }
      const handle = this.handle!;
      // One write for everything queued: fewer syscalls, and the batches are whole frames.
      if (this.queue.length > 0) {
        const batch = this.queue.length === 1 ? this.queue[0] : concat(this.queue, this.queuedBytes);
        this.queue.length = 0;
        this.queue.push(batch);
        let done = 0;
        const batchAt = this.position;
        try {
          while (done < batch.length) {
            const { bytesWritten } = await handle.write(batch, done, batch.length - done, this.position);
            done += bytesWritten;
            this.position += bytesWritten;
            this.stats.bytesWritten = this.position;
          }
        } finally {
          // Keep only the unwritten rest (positional writes resume exactly where the file stops);
          // batches queued behind it while the write was in flight stay queued.
          this.passRecords(batch, batchAt);
          if (done === batch.length) this.queue.shift();
          else this.queue[0] = batch.subarray(done);
          this.queuedBytes -= done;
          this.stats.bytesPending = this.queuedBytes + this.frames.length;
        }
      }
      const now = Date.now();
      if ((force || now - this.lastSyncAt >= this.syncIntervalMs) && this.stats.bytesDurable < this.stats.bytesWritten) {
        const upTo = this.stats.bytesWritten;
        await handle.datasync();
        this.lastSyncAt = now;
        this.stats.bytesDurable = upTo;
      }
      if (this.failing) {
        this.failing = false;
        this.log(`[match-log] ${this.path}: writing again after ${this.stats.errors} failures; ${this.stats.droppedRecords} records dropped in all`);
      }
    } catch (error) {
      this.opening = null;
      this.fail(error as Error, this.handle ? 'write' : 'open');
    }
  }

  private async openFile(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    this.handle = await open(this.path, this.flags);
    this.position = 0;
  }

  /**
   * Moves `boundary` over the records of `batch` (written from file offset `at`) that the file now
   * holds whole. A batch is whole records (the first may be the rest of one a failed write cut), so
   * each record's length field is in the batch that starts it.
   */
  private passRecords(batch: Uint8Array, at: number): void {
    const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
    while (this.nextBoundary <= this.position) {
      this.boundary = this.nextBoundary;
      const i = this.nextBoundary - at;
      if (i + 4 > batch.length) break;
      this.nextBoundary += FRAME_OVERHEAD + view.getUint32(i, true);
    }
  }

  /** The records still queued (the one a failed write cut included) and their bytes. */
  private unwritten(): { records: number; bytes: number } {
    let records = 0, bytes = 0;
    if (this.position > this.boundary) {
      records++;
      bytes += this.nextBoundary - this.boundary;
    }
    // The cut record's rest leads the first queued batch; whole records follow.
    let skip = this.nextBoundary - this.position;
    for (const part of this.queue) {
      const view = new DataView(part.buffer, part.byteOffset, part.byteLength);
      for (let i = skip; i + 4 <= part.length; i += FRAME_OVERHEAD + view.getUint32(i, true)) {
        records++;
        bytes += FRAME_OVERHEAD + view.getUint32(i, true);
      }
      skip = 0;
    }
    return { records, bytes };
  }

  /**
   * Ends the file with the note (NOTE_FRAME_TYPE) where the last whole record ends, over the piece
   * of the record a failed write cut, and cuts the file after it. What of the note lies past the
   * file's end is written first: when that fails (the disk is still full) the file is cut back to
   * where it was, so it still ends inside the cut record, as the failed write left it. A failure is
   * counted like any other.
   */
  private async writeNote(handle: FileHandle): Promise<void> {
    // Without its preamble the file is no log a note could end.
    if (this.position < PREAMBLE_BYTES) return;
    const { records, bytes } = this.unwritten();
    const fb = new FrameBuffer(128);
    appendNote(fb, { unwrittenRecords: records, unwrittenBytes: bytes, droppedRecords: this.gapRecords, droppedBytes: this.gapBytes, reason: this.stats.lastError ?? 'unknown' });
    const note = fb.take();
    const at = this.boundary;
    const inPlace = Math.min(note.length, this.position - at);
    try {
      try {
        await writeAll(handle, note, inPlace, at + inPlace);
      } catch (error) {
        await handle.truncate(this.position).catch(() => {});
        throw error;
      }
      // Over bytes the file already holds: needs no space.
      await writeAll(handle, note.subarray(0, inPlace), 0, at);
      if (this.position > at + note.length) await handle.truncate(at + note.length);
      this.stats.note = 'written';
    } catch (error) {
      this.stats.note = 'failed';
      this.fail(error as Error, 'note');
    }
  }

  private fail(error: Error, what: string): void {
    this.stats.errors++;
    this.stats.lastError = `${what}: ${error.message}`;
    this.nextTryAt = Date.now() + this.retryMs;
    if (!this.failing) {
      this.failing = true;
      this.log(`[match-log] ${what} ${this.path} failed (${error.message}); keeping up to ${this.maxPendingBytes} bytes in memory and retrying every ${this.retryMs} ms, the match goes on`);
    }
    try {
      this.onError?.(error, this.stats);
    } catch {
      // A faulty callback must not take the writer down with it.
    }
  }
}

/** Writes bytes[from..] at file offset `at` on: all of it, or throws. */
async function writeAll(handle: FileHandle, bytes: Uint8Array, from: number, at: number): Promise<void> {
  for (let done = from; done < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, at + done - from);
    done += bytesWritten;
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function clampMs(value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  return Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : fallback;
}
