/**
 * The human model's feet in a fight: in six fights of ten a player side-steps across its view,
 * switching side every 0.3-1 s; it jumps at 0.5 a second in a fight and 0.1 out of one, at least
 * 300 ms apart.
 */
import type { Rng } from '../rng';

/** Share of fights a player side-steps in. */
export const STRAFE_P = 0.6;
/** Least and most time between two side switches, ms. */
export const SIDE_MIN_MS = 300;
export const SIDE_MAX_MS = 1000;
/** Jumps per second in a fight and out of one; least time between two jumps, ms. */
export const JUMPS_FIGHTING = 0.5;
export const JUMPS_WANDERING = 0.1;
export const JUMP_GAP_MS = 300;

/** Whether the player side-steps in the fight just begun. */
export function drawStrafes(rng: Rng): boolean {
  return rng.next() < STRAFE_P;
}

/** When the player switches side next, after one at `t` (ms). */
export function nextSideAt(t: number, rng: Rng): number {
  return t + SIDE_MIN_MS + (SIDE_MAX_MS - SIDE_MIN_MS) * rng.next();
}

/** When the player jumps next, after one (or the start) at `t` (ms): 300 ms plus an exponential gap. */
export function nextJumpAt(t: number, fighting: boolean, rng: Rng): number {
  const rate = fighting ? JUMPS_FIGHTING : JUMPS_WANDERING;
  return t + JUMP_GAP_MS - Math.log(1 - rng.next()) * (1000 / rate);
}
