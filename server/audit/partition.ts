/**
 * How the audit splits a log's shots between replay threads: contiguous shot ranges, each starting
 * its tick records early enough to rebuild what a serial replay holds there, or sets of shooters
 * balanced by their shot counts. Both give the same rows bit for bit.
 */
import { RecordType, TICK_TIME_AT } from '../../shared/matchlog/records';
import type { Shard } from './jobs';

/** Greedy balance: the shooter with most shots goes to the shard with fewest so far. */
export function partitionShooters(counts: Map<number, number>, shards: number): number[][] {
  const out: number[][] = Array.from({ length: shards }, () => []);
  const load = new Array<number>(shards).fill(0);
  for (const [shooter, n] of [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
    let best = 0;
    for (let i = 1; i < shards; i++) if (load[i]! < load[best]!) best = i;
    out[best]!.push(shooter);
    load[best]! += n;
  }
  return out;
}

/**
 * Contiguous shot ranges of about equal size. Each shard starts applying ticks early enough that
 * every history holds what it holds in a serial replay when its first shot is judged: at least
 * `capacityTicks` ticks and `warmMs` of match time before the range's first shot.
 */
export function partitionRanges(bytes: Uint8Array, frames: { frames: { type: number; payloadOffset: number }[] }, shards: number, capacityTicks: number, warmMs: number): Shard[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const list = frames.frames;
  const shotAt: number[] = [];
  for (let i = 0; i < list.length; i++) if (list[i]!.type === RecordType.SHOT) shotAt.push(i);
  const out: Shard[] = [];
  for (let s = 0; s < shards; s++) {
    const a = Math.floor((s * shotAt.length) / shards);
    const b = Math.floor(((s + 1) * shotAt.length) / shards);
    if (a === b) continue;
    const shotsFrom = s === 0 ? 0 : shotAt[a]!;
    const shotsTo = s === shards - 1 ? list.length : shotAt[b]!;
    let applyFrom = shotsFrom;
    let ticks = 0;
    let newest = Number.NaN;
    while (applyFrom > 0) {
      const f = list[applyFrom - 1]!;
      if (f.type === RecordType.TICK) {
        const t = view.getFloat64(f.payloadOffset + TICK_TIME_AT, true);
        if (newest !== newest) newest = t;
        ticks++;
        if (ticks >= capacityTicks + 2 && newest - t >= warmMs) break;
      }
      applyFrom--;
    }
    out.push({ shooters: null, applyFrom: Math.max(0, applyFrom - 1), shotsFrom, shotsTo, shotIndexBase: 0 });
  }
  // Shot ordinals: shots before each shard's applyFrom.
  for (const sh of out) {
    let n = 0;
    for (let i = 0; i < sh.applyFrom; i++) if (list[i]!.type === RecordType.SHOT) n++;
    sh.shotIndexBase = n;
  }
  return out;
}
