/**
 * The match logs of one server's rooms: a recorder per room (server/matchlog/recorder.ts, its file
 * opened at the room's first join), the bytes written so far over every room, closed ones included
 * (for /metrics and the stop line), and the finish of every log still open at shutdown. A log's end
 * is heard through the recorder's own `onClosed` hook.
 */
import { hostname } from 'node:os';
import { matchMaker } from '@colyseus/core';
import { MatchLogRecorder, type MatchRecorder } from '../match/index';

export class MatchLogs {
  private readonly live = new Set<MatchLogRecorder>();
  private closedBytes = 0;

  /** `dir`: where the files go (undefined: the recorder's default, MATCH_LOG_DIR or ./matches). */
  constructor(private readonly dir: string | undefined) {}

  /** The recorder of room `roomId` (a factory for ArenaConfig.recorder). */
  readonly recorderFor = (roomId: string): MatchRecorder => {
    const rec: MatchLogRecorder = new MatchLogRecorder({
      roomId, dir: this.dir, openAt: 'firstJoin', origin: `${hostname()}-${matchMaker.processId}`,
      onClosed: (s) => {
        if (this.live.delete(rec)) this.closedBytes += s.bytesWritten;
      },
    });
    this.live.add(rec);
    return rec;
  };

  /** Match log bytes written so far, every room included. */
  readonly bytes = (): number => {
    let n = this.closedBytes;
    for (const r of this.live) n += r.bytesWritten;
    return n;
  };

  /** Ends every log still open (rooms disposed just before a stop still get their end records). */
  async finishAll(): Promise<void> {
    await Promise.allSettled([...this.live].map((r) => r.finish()));
  }
}
