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
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FrameBuffer, GAP_FRAME_TYPE, GAP_PAYLOAD_BYTES, PREAMBLE_BYTES, writePreamble } from '../../shared/matchlog/frame';

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
  private readonly flushIntervalMs: number;
  private readonly syncIntervalMs: number;
  private readonly retryMs: number;
  private readonly maxPendingBytes: number;
  private readonly onError?: MatchLogWriterOptions['onError'];
  private readonly log: (line: string) => void;
  private readonly flags: 'wx' | 'w';
  readonly stats: MatchLogStats = {
    records: 0, bytesWritten: 0, bytesDurable: 0, bytesPending: 0, errors: 0, lastError: null,
    droppedRecords: 0, droppedBytes: 0, closed: false,
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
    try {
      if (this.handle && this.stats.bytesDurable < this.stats.bytesWritten) {
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
      this.log(`[match-log] ${this.path} closed with ${this.stats.bytesPending} bytes unwritten and ${this.stats.droppedRecords} records dropped (${this.stats.lastError ?? 'no error'})`);
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
