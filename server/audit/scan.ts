/**
 * Quick passes over a framed match log that need no replay: shots per shooter (to balance shards),
 * join and death events in log order, who joined on each slot, the tick records' span (the match's own tick rate) and the
 * end record.
 */
import type { FrameReadResult, FrameRef } from '../../shared/matchlog/frame';
import { RecordType, readEnd, readEvent, TICK_TIME_AT, type EndData } from '../../shared/matchlog/records';
import { SHOT_SHOOTER_AT } from '../../shared/matchlog/shotRecord';
import { readIdentity, type IdentityData } from '../../shared/matchlog/identityRecord';

export interface SlotEvent { offset: number; slot: number; timeMs: number }

const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Join or death events in log order (a join restarts a slot's shooter state; deaths explain races). */
export function slotEvents(bytes: Uint8Array, frames: FrameReadResult, kind: 'join' | 'death'): SlotEvent[] {
  const view = viewOf(bytes);
  const out: SlotEvent[] = [];
  for (const f of frames.frames) {
    if (f.type !== RecordType.EVENT) continue;
    const e = readEvent(view, f.payloadOffset, f.payloadLength);
    if (e !== null && e.kind === kind) out.push({ offset: f.offset, slot: e.slot, timeMs: e.timeMs });
  }
  return out;
}

/** Who joined on each slot (identity records, log format 12 on), in log order; malformed ones skipped. */
export function slotIdentities(bytes: Uint8Array, frames: FrameReadResult): Map<number, IdentityData[]> {
  const view = viewOf(bytes);
  const out = new Map<number, IdentityData[]>();
  for (const f of frames.frames) {
    if (f.type !== RecordType.IDENTITY) continue;
    const i = readIdentity(view, f.payloadOffset, f.payloadLength);
    if (i === null) continue;
    const list = out.get(i.slot) ?? [];
    list.push(i);
    out.set(i.slot, list);
  }
  return out;
}

/** Shots per shooter, read straight from the shot frames. */
export function shotsByShooter(bytes: Uint8Array, frames: FrameReadResult): Map<number, number> {
  const view = viewOf(bytes);
  const counts = new Map<number, number>();
  for (const f of frames.frames) {
    if (f.type !== RecordType.SHOT || f.payloadLength < SHOT_SHOOTER_AT + 2) continue;
    const s = view.getUint16(f.payloadOffset + SHOT_SHOOTER_AT, true);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return counts;
}

/**
 * Tick records and ticks per second of the match's own clock: (tick records - 1) over the span of
 * their times. The room stamps ticks from its monotonic clock (re-anchored after a stall), so a room
 * that ticked slowly shows here below the header's nominal rate. NaN with fewer than two ticks.
 */
export function tickSpan(bytes: Uint8Array, frames: FrameReadResult): { ticks: number; ticksPerSecond: number } {
  const view = viewOf(bytes);
  let ticks = 0, firstMs = Number.NaN, lastMs = Number.NaN;
  for (const f of frames.frames) {
    if (f.type !== RecordType.TICK || f.payloadLength < TICK_TIME_AT + 8) continue;
    const t = view.getFloat64(f.payloadOffset + TICK_TIME_AT, true);
    if (ticks === 0) firstMs = t;
    lastMs = t;
    ticks++;
  }
  return { ticks, ticksPerSecond: ticks >= 2 && lastMs > firstMs ? ((ticks - 1) * 1000) / (lastMs - firstMs) : Number.NaN };
}

/** The log's last end record, read from the framing (null: none, or of the wrong size). */
export function endRecord(bytes: Uint8Array, frames: FrameReadResult): EndData | null {
  let endFrame: FrameRef | undefined;
  for (const f of frames.frames) if (f.type === RecordType.END) endFrame = f;
  return endFrame ? readEnd(viewOf(bytes), endFrame.payloadOffset, endFrame.payloadLength) : null;
}
