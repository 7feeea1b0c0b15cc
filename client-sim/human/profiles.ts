/**
 * The rule-abiding inhuman profiles of the human model: each changes one part of the human (see
 * traits.ts, hand.ts, trigger.ts) by a strength in [0, 1] (0 = the human, 1 = blatant). The
 * synthetic players play every one (server/behaviour/synth/synthPlayers.ts); the simulator's bots play those
 * a client can (client-sim/cheats/index.ts INHUMAN_CHEATS, under their command-line names).
 */

export const Behaviour = {
  HONEST: 'honest',
  /** The shot's direction is pulled from the view toward the aim point; the reaction shortened. */
  SILENT_AIM: 'silentAim',
  /** Reaction toward 35 ms, flick toward one tick, no overshoot, no confirmation delay. */
  FLICK: 'flick',
  /** The view stays human; the trigger fires the instant the view is on the body. */
  TRIGGERBOT: 'triggerbot',
  /** Pursuit lag and hand wobble scaled down: the view sits on the target through movement. */
  AIM_LOCK: 'aimLock',
  /** Render times claimed toward the rewind window's edge (inside the claim tolerance). */
  EDGE_BACKTRACK: 'edgeBacktrack',
  /** Pongs and inputs held back: the server's round-trip estimate inflated. */
  FAKE_LAG: 'fakeLag',
  /** Knows where hidden players are: the view leans toward them and fires as they appear. */
  PREFIRE: 'prefire',
} as const;
export type Behaviour = (typeof Behaviour)[keyof typeof Behaviour];

/** The inhuman profiles, in report order. */
export const INHUMAN_PROFILES: readonly Behaviour[] = [
  Behaviour.SILENT_AIM, Behaviour.FLICK, Behaviour.TRIGGERBOT, Behaviour.AIM_LOCK, Behaviour.EDGE_BACKTRACK, Behaviour.FAKE_LAG, Behaviour.PREFIRE,
];
