/**
 * Backfill: the server -> client message that hands a viewer an enemy's recent poses at the moment
 * fog of war starts sending that enemy again. A client renders others an interpolation delay behind
 * its clock, so without them it could draw a newly sent enemy only once its render time reached the
 * first snapshot that carried it; with them it draws the enemy as soon as the message lands, and the
 * server's fog may decide later (its eye horizon drops the interpolation delay for a one-way trip:
 * server/match/fogFeed.ts). The poses are the server's history as recorded (what the patches of
 * those ticks would have carried), of the enemy's current life only, oldest first, all older than
 * the snapshot that follows the message on the same connection.
 *
 * Layout (version 1, little-endian): 0 u8 version, 1 u8 slot, 2 u16 count, then count samples of
 * BACKFILL_SAMPLE_BYTES: f64 time ms, f64 tick, f64 x y z, f64 qx qy qz qw, f64 animation time,
 * f64 eye height (NaN: the rules'), u32 epoch, u8 clip, u8 alive (1 or 0), 2 bytes zero.
 */
import type { PlayerHistory } from '../lagcomp/history';
import type { PlayerPose } from '../lagcomp/pose';
import { viewOf } from './shot';

export const BACKFILL_VERSION = 1;
export const BACKFILL_HEADER_BYTES = 4;
export const BACKFILL_SAMPLE_BYTES = 96;
/** Most samples one message carries (a 250 ms delay at 64 Hz needs 17). */
export const BACKFILL_MAX_SAMPLES = 64;

/** Numbers per decoded sample (Backfill.samples). */
export const BF_STRIDE = 14;
export const Bf = { TIME: 0, TICK: 1, X: 2, Y: 3, Z: 4, QX: 5, QY: 6, QZ: 7, QW: 8, ANIM: 9, EYE: 10, EPOCH: 11, CLIP: 12, ALIVE: 13 } as const;

/** A decoded backfill: the enemy's slot and `count` samples of BF_STRIDE numbers, oldest first. */
export interface Backfill {
  slot: number;
  count: number;
  samples: Float64Array;
}

export function createBackfill(): Backfill {
  return { slot: -1, count: 0, samples: new Float64Array(BACKFILL_MAX_SAMPLES * BF_STRIDE) };
}

/** Bytes of a message with `count` samples. */
export function backfillBytes(count: number): number {
  return BACKFILL_HEADER_BYTES + count * BACKFILL_SAMPLE_BYTES;
}

/**
 * Writes slot's history samples of epoch `epoch` with times in [fromMs, beforeMs) (at most
 * BACKFILL_MAX_SAMPLES, the newest kept) into `out` (backfillBytes(BACKFILL_MAX_SAMPLES) bytes)
 * and returns the message: a view of `out`, or null when there is no such sample. `pose` is scratch.
 */
export function encodeBackfill(out: Uint8Array, slot: number, h: PlayerHistory, epoch: number, fromMs: number, beforeMs: number, pose: PlayerPose): Uint8Array | null {
  let last = h.size();
  while (last > 0 && !(h.snapshot(pose, last - 1) < beforeMs)) last--;
  // Back from the newest sample before beforeMs to the first out of range or of another life.
  let first = last;
  while (first > 0 && last - first < BACKFILL_MAX_SAMPLES) {
    const t = h.snapshot(pose, first - 1);
    if (!(t >= fromMs) || pose.epoch !== epoch) break;
    first--;
  }
  const count = last - first;
  if (count <= 0) return null;
  const v = new DataView(out.buffer, out.byteOffset, backfillBytes(count));
  v.setUint8(0, BACKFILL_VERSION);
  v.setUint8(1, slot);
  v.setUint16(2, count, true);
  for (let k = first, o = BACKFILL_HEADER_BYTES; k < last; k++, o += BACKFILL_SAMPLE_BYTES) {
    v.setFloat64(o, h.snapshot(pose, k), true);
    v.setFloat64(o + 8, h.tickOf(k), true);
    v.setFloat64(o + 16, pose.x, true); v.setFloat64(o + 24, pose.y, true); v.setFloat64(o + 32, pose.z, true);
    v.setFloat64(o + 40, pose.qx, true); v.setFloat64(o + 48, pose.qy, true); v.setFloat64(o + 56, pose.qz, true); v.setFloat64(o + 64, pose.qw, true);
    v.setFloat64(o + 72, pose.time, true);
    v.setFloat64(o + 80, pose.eyeHeight, true);
    v.setUint32(o + 88, pose.epoch >>> 0, true);
    v.setUint8(o + 92, pose.clip);
    v.setUint8(o + 93, pose.alive ? 1 : 0);
    v.setUint16(o + 94, 0, true);
  }
  return out.subarray(0, backfillBytes(count));
}

/**
 * Reads a backfill into `out`. False (out.count 0) when the bytes are not one: not a Uint8Array,
 * another version, a length that does not match the count, more than BACKFILL_MAX_SAMPLES samples.
 */
export function decodeBackfill(out: Backfill, bytes: unknown): boolean {
  out.count = 0;
  out.slot = -1;
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < BACKFILL_HEADER_BYTES) return false;
  const v = viewOf(bytes);
  const count = v.getUint16(2, true);
  if (v.getUint8(0) !== BACKFILL_VERSION || count > BACKFILL_MAX_SAMPLES || bytes.byteLength !== backfillBytes(count)) return false;
  const s = out.samples;
  for (let k = 0, o = BACKFILL_HEADER_BYTES; k < count; k++, o += BACKFILL_SAMPLE_BYTES) {
    const q = k * BF_STRIDE;
    for (let i = 0; i < 11; i++) s[q + i] = v.getFloat64(o + 8 * i, true);
    s[q + Bf.EPOCH] = v.getUint32(o + 88, true);
    s[q + Bf.CLIP] = v.getUint8(o + 92);
    s[q + Bf.ALIVE] = v.getUint8(o + 93);
  }
  out.slot = v.getUint8(1);
  out.count = count;
  return true;
}
