/**
 * The human model's person: what differs from player to player (drawn once per player) and what
 * each engagement draws from it: the reaction time, the confirmation delay before the trigger, the
 * head-or-chest choice, and how far a player notices targets. Every function draws from the
 * player's seeded stream (../rng.ts) in a fixed order, so a seed gives the same player everywhere.
 * The numbers are the ones the audit's detection is calibrated on (server/audit/calibration.ts).
 */
import type { Rng } from '../rng';

export const DEG = Math.PI / 180;
/** Half the horizontal field of view a player notices targets in, radians. */
export const FOV_HALF = 50 * DEG;
/** Targets farther than this are not noticed, metres. */
export const NOTICE_RANGE_M = 60;
/** A target out of sight this long is given up, ms. */
export const LOSE_AFTER_MS = 400;

/** One player's human make-up. */
export interface HumanTraits {
  /** Median reaction time, ms (215-275). */
  reactionMedianMs: number;
  /** Time constant of the view's pursuit of a target, ms (80-130). */
  pursuitTauMs: number;
  /** Spread of the hand's wobble, radians (0.8-1.5 degrees). */
  noiseRad: number;
  /** Share of shots (or fights) aimed at the head (0.08-0.18). */
  headAimP: number;
  /** How much the server's round-trip estimate of this player wanders, ms (its connection's quality; 2-40, most under 12). */
  rttNoiseMs: number;
}

/** A player's make-up: five uniform draws, in this order. */
export function drawTraits(rng: Rng): HumanTraits {
  return {
    reactionMedianMs: 215 + 60 * rng.next(),
    pursuitTauMs: 80 + 50 * rng.next(),
    noiseRad: (0.8 + 0.7 * rng.next()) * DEG,
    headAimP: 0.08 + 0.1 * rng.next(),
    rttNoiseMs: 2 + 38 * rng.next() ** 2,
  };
}

/** A reaction time, ms: 140 plus a lognormal part (spread 0.45) whose median puts the whole at the player's median. */
export function drawReaction(t: HumanTraits, rng: Rng): number {
  return 140 + (t.reactionMedianMs - 140) * Math.exp(0.45 * rng.normal());
}

/** Time the view rests on the target's body before the first trigger pull, ms: 60 + lognormal (median 130, spread 0.5). */
export function drawConfirm(rng: Rng): number {
  return 60 + 70 * Math.exp(0.5 * rng.normal());
}

/** Whether this shot (or fight) aims at the head rather than the upper torso. */
export function drawHeadAim(t: HumanTraits, rng: Rng): boolean {
  return rng.next() < t.headAimP;
}
