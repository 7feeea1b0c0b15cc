/**
 * The human model's trigger finger: taps beyond BURST_RANGE_M (a pause of 220-450 ms after each),
 * bursts of 3-5 shots at the weapon's full rate from SPRAY_RANGE_M to BURST_RANGE_M (200-400 ms
 * between bursts), sprays at the full rate closer.
 */
import type { Rng } from '../rng';

/** Closer than this a player sprays, metres. */
export const SPRAY_RANGE_M = 10;
/** Closer than this (and not spraying) it fires bursts, farther it taps, metres. */
export const BURST_RANGE_M = 25;

export const TriggerMode = { TAP: 0, BURST: 1, SPRAY: 2 } as const;
export type TriggerMode = (typeof TriggerMode)[keyof typeof TriggerMode];

/** How a player fires at a target `distM` away. */
export function triggerMode(distM: number): TriggerMode {
  if (distM > BURST_RANGE_M) return TriggerMode.TAP;
  if (distM > SPRAY_RANGE_M) return TriggerMode.BURST;
  return TriggerMode.SPRAY;
}

/** The pause after a tap, ms. */
export function drawTapGapMs(rng: Rng): number {
  return 220 + 230 * rng.next();
}

/** Shots of a burst after its first (2-4). */
export function drawBurstFollowUps(rng: Rng): number {
  return 2 + Math.floor(3 * rng.next());
}

/** The pause between two bursts, ms. */
export function drawBurstPauseMs(rng: Rng): number {
  return 200 + 200 * rng.next();
}
