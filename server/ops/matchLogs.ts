/**
 * The match logs of one server's rooms: a recorder per room (server/matchlog/recorder.ts, its file
 * opened at the room's first join), their counters summed over every room, closed ones included
 * (for /metrics and the stop line): bytes written, bytes waiting in memory for the disk, bytes given
 * up, failed writes and dropped records; and the finish of every log still open at shutdown. A log's
 * end is heard through the recorder's own `onClosed` hook, and told on (`onLogClosed`: the audit
 * queue, server/ops/auditQueue.ts) when the log was opened.
 */
import { hostname } from 'node:os';
import { matchMaker } from '@colyseus/core';
import { MatchLogRecorder, type MatchRecorder } from '../match/index';
import type { MatchLogStats } from '../matchlog/writer';

/** The match logs' counters over every room of the server. */
export interface MatchLogTotals {
  /** Bytes written to disk, closed logs included. */
  bytes: number;
  /** Bytes the open logs hold in memory, not yet written (a batch in flight; grows while writes fail). */
  pendingBytes: number;
  /**
   * Bytes given up: left unwritten when their log closed (the disk still failing), or dropped over
   * a writer's memory bound. Only grows.
   */
  unwrittenBytes: number;
  /** Failed open, write, sync and close calls, closed logs included. */
  writeFailures: number;
  /** Records dropped over a writer's memory bound, closed logs included. */
  droppedRecords: number;
}

export class MatchLogs {
  private readonly live = new Set<MatchLogRecorder>();
  /** The counters of the logs already closed. */
  private readonly closed = { bytes: 0, unwrittenBytes: 0, writeFailures: 0, droppedRecords: 0 };

  /**
   * `dir`: where the files go (undefined: the recorder's default, MATCH_LOG_DIR or ./matches).
   * `onLogClosed`: called with a log's path once it is closed, when it was opened (bytes written).
   */
  constructor(private readonly dir: string | undefined, private readonly onLogClosed?: (path: string) => void) {}

  /** The recorder of room `roomId` (a factory for ArenaConfig.recorder). */
  readonly recorderFor = (roomId: string): MatchRecorder => {
    const rec: MatchLogRecorder = new MatchLogRecorder({
      roomId, dir: this.dir, openAt: 'firstJoin', origin: `${hostname()}-${matchMaker.processId}`,
      onClosed: (s) => {
        if (!this.live.delete(rec)) return;
        const c = this.closed;
        c.bytes += s.bytesWritten;
        c.unwrittenBytes += s.bytesPending + s.droppedBytes;
        c.writeFailures += s.errors;
        c.droppedRecords += s.droppedRecords;
        if (s.bytesWritten > 0) this.onLogClosed?.(rec.path);
      },
    });
    this.live.add(rec);
    return rec;
  };

  /** Match log bytes written so far, every room included. */
  readonly bytes = (): number => {
    let n = this.closed.bytes;
    for (const r of this.live) n += r.bytesWritten;
    return n;
  };

  /** Every counter, every room included. */
  readonly totals = (): MatchLogTotals => {
    const t: MatchLogTotals = { ...this.closed, pendingBytes: 0 };
    for (const r of this.live) {
      const s: MatchLogStats | undefined = r.writer?.stats;
      if (s === undefined) continue;
      t.bytes += s.bytesWritten;
      t.unwrittenBytes += s.droppedBytes;
      t.writeFailures += s.errors;
      t.droppedRecords += s.droppedRecords;
      // A closed writer's pending bytes are given up (counted above once its recorder reports it).
      if (s.closed) t.unwrittenBytes += s.bytesPending;
      else t.pendingBytes += s.bytesPending;
    }
    return t;
  };

  /** Ends every log still open (rooms disposed just before a stop still get their end records). */
  async finishAll(): Promise<void> {
    await Promise.allSettled([...this.live].map((r) => r.finish()));
  }
}
