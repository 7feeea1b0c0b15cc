/**
 * FogFilter's backfills (./fogFilter setBackfill, backfillFor): which viewers take them, the
 * message for a viewer newly sent an enemy (shared/protocol/backfill.ts: the enemy's history of its
 * current life over the viewer's interpolation delay plus a tick, the newest tick excluded), and
 * their log: those handed out during an update's onChange calls go to one fog backfills record
 * after that update's fog record; one asked for at another time is written at once.
 */
import { backfillBytes, BACKFILL_HEADER_BYTES, BACKFILL_MAX_SAMPLES, encodeBackfill } from '../../shared/protocol/backfill';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import type { PlayerHistory } from '../../shared/lagcomp/history';
import type { MatchRecorder } from './recorder';

export class FogBackfills {
  /** Per viewer slot: its client takes backfills. */
  readonly on: Uint8Array;
  private readonly out = new Uint8Array(backfillBytes(BACKFILL_MAX_SAMPLES));
  private readonly view = new DataView(this.out.buffer);
  private readonly pose = createPlayerPose();
  /** The backfills listed since begin() (a fog backfills record's numbers). */
  private readonly record: { timeMs: number; count: number; viewer: Uint16Array; enemy: Uint16Array; fromMs: Float64Array };
  private listing = false;

  constructor(capacity: number, private readonly onProblem: (message: string, error: unknown) => void) {
    this.on = new Uint8Array(capacity);
    const n = capacity * capacity;
    this.record = { timeMs: 0, count: 0, viewer: new Uint16Array(n), enemy: new Uint16Array(n), fromMs: new Float64Array(n) };
  }

  /**
   * The message for the viewer in `viewerSlot` (its delay `interpMs`) newly sent `enemySlot` (its
   * history `h`), logged; a view of a buffer the next call reuses. Null when it takes none or there
   * is no pose to send.
   */
  encode(viewerSlot: number, enemySlot: number, interpMs: number, h: PlayerHistory, tickMs: number, rec: MatchRecorder | null, nowMs: number): Uint8Array | null {
    if (this.on[viewerSlot] !== 1 || h.size() === 0) return null;
    const newest = h.newestTimeMs(), pose = this.pose;
    h.snapshot(pose, h.size() - 1);
    const bytes = encodeBackfill(this.out, enemySlot, h, pose.epoch, newest - interpMs - tickMs, newest, pose);
    if (bytes === null || rec === null || rec.fogBackfills === undefined) return bytes;
    const r = this.record;
    if (!this.listing) r.count = 0;
    else if (r.count >= r.viewer.length) this.flush(rec, nowMs);
    r.viewer[r.count] = viewerSlot; r.enemy[r.count] = enemySlot; r.fromMs[r.count] = this.view.getFloat64(BACKFILL_HEADER_BYTES, true);
    r.count++;
    if (!this.listing) this.flush(rec, nowMs);
    return bytes;
  }

  /** From here to end(), backfills handed out are listed for one record (an update's onChange calls). */
  begin(): void {
    this.record.count = 0;
    this.listing = true;
  }

  end(): void {
    this.listing = false;
  }

  /** Writes the listed backfills as a fog backfills record at `timeMs` and empties the list. */
  flush(rec: MatchRecorder | null, timeMs: number): void {
    const r = this.record;
    if (r.count > 0 && rec !== null && rec.fogBackfills !== undefined) {
      r.timeMs = timeMs;
      try {
        rec.fogBackfills(r);
      } catch (e) {
        this.onProblem('the recorder failed on a fog backfills record (the match goes on)', e);
      }
    }
    r.count = 0;
  }
}
