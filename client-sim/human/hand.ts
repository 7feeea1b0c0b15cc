/**
 * The human model's hand and view: after the reaction the view flicks onto the target, overshooting
 * by a share of the angle, in a time that grows with the angle (a minimum-jerk profile), then
 * pursues it with a first-order lag (the player's pursuitTauMs); the hand wobbles all the while (an
 * Ornstein-Uhlenbeck process with the player's noiseRad as its spread, 120 ms time constant, 0.7 of
 * it in height). Without a target the view turns toward where the player walks at up to 150
 * degrees/s, a little below the horizon.
 */
import type { Rng } from '../rng';
import { DEG } from './traits';

/** Time constant of the hand's wobble, ms. */
export const HAND_DRIFT_MS = 120;
/** Vertical hand wobble relative to the horizontal one. */
export const PITCH_WOBBLE = 0.7;
/** Fastest view turn without a target (looking where one walks), radians per second. */
export const IDLE_TURN_RATE = 150 * DEG;

/** The wobble's random kick over `dtMs` for a spread of `sigma` (radians, or 1 for a unit process). */
export function wobbleKick(sigma: number, dtMs: number): number {
  return sigma * Math.sqrt((2 * dtMs) / HAND_DRIFT_MS);
}

/** One step of the hand's wobble `x` over `dtMs` with kick `kick` (wobbleKick): stationary spread sigma. */
export function wobbleStep(x: number, kick: number, dtMs: number, rng: Rng): number {
  return x + ((-x * dtMs) / HAND_DRIFT_MS + kick * rng.normal());
}

/** The flick's overshoot, as a share of its angle: N(7%, 5%). */
export function drawOvershoot(rng: Rng): number {
  return 0.07 + 0.05 * rng.normal();
}

/** How long a flick across `spanRad` takes, ms: (70 + 2 per degree) x U(0.85, 1.15). */
export function drawFlickMs(spanRad: number, rng: Rng): number {
  return (70 + (2 * spanRad) / DEG) * (0.85 + 0.3 * rng.next());
}

/** Minimum-jerk position profile, 0..1 over u in 0..1. */
export function minJerk(u: number): number {
  const x = Math.max(0, Math.min(1, u));
  return x * x * x * (10 - 15 * x + 6 * x * x);
}

/** Share of the way to the target the view pursues over `dtMs` with time constant `tauMs`. */
export function pursuitGain(dtMs: number, tauMs: number): number {
  return 1 - Math.exp(-dtMs / tauMs);
}

/** Where a player looks in height when it has no target, radians (1-6 degrees below the horizon). */
export function drawIdlePitch(rng: Rng): number {
  return -(1 + 5 * rng.next()) * DEG;
}
