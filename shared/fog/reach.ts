/**
 * How far a player can move within a time horizon, for fog of war (./fog): the horizon a viewer's
 * timing gives, and bounds on the horizontal and vertical displacement of a player's feet over it
 * under the movement rules (../movement/step). Each bound is an upper bound, never an estimate:
 * fog of war stays conservative only if no honest player can get farther.
 *
 * - Horizontal: speed never exceeds MoveConfig.maxSpeed (acceleration steers the velocity toward
 *   wish * maxSpeed, on the ground and in the air); a player measured faster (a caller's own
 *   movement rules) is bounded by its measured speed. And it grows by at most accel * tick per tick
 *   (step.ts changes the velocity by at most accel dt toward a target inside the maxSpeed disk,
 *   less in the air; a wall only takes speed away: the velocity becomes the move made): k ticks
 *   after a speed s0 the speed is at most min(s0 + k accel tick, cap), cap = max(s0, maxSpeed), and
 *   the reach is the sum of those over the ticks in the horizon. A player standing still is
 *   bounded by 0.75 m over 200 ms instead of 1.2 m. Without `accel` (a caller's own movement
 *   rules) reach = cap * horizon.
 * - Up: a jump (vertical speed max(jumpSpeed, vy) under gravity: the apex if reached within the
 *   horizon, else the height at the horizon) plus walking up: slope metres per metre walked and one
 *   stepHeight snap (step.ts snaps up steps no higher than stepHeight). The slope and whether a step
 *   is near come from the level (./climb) or, without a climb map, from climbSlope and stepHeight
 *   level-wide: a level with climbable ground steeper than climbSlope needs a larger one.
 * - Down: a fall from the current downward speed under gravity, capped at maxFallSpeed, plus the
 *   same walking term (ramps and stairs down).
 * Players move in whole ticks: a window of h seconds holds up to h / tick + 1 ticks, so the caller
 * (./fog setTiming) adds one tickS to every horizon.
 * Arithmetic only (+ - * /, Math.sqrt, min/max): the same numbers on every engine.
 */

/** Movement bounds fog of war needs (from a MoveConfig, see fogMotionOf). */
export interface FogMotion {
  maxSpeed: number;
  jumpSpeed: number;
  gravity: number;
  maxFallSpeed: number;
  stepHeight: number;
  /** Metres climbed (or descended) per metre walked at most: ramps and stairs; 1 = 45 degrees. */
  climbSlope: number;
  /** The movement's tick, seconds: players move in whole ticks (see the module comment). */
  tickS: number;
  /**
   * Horizontal acceleration bound, m/s^2 (MoveConfig.accel; undefined or not finite: none, the
   * speed may jump to the cap at once). Only valid for a movement whose speed changes by at most
   * accel * tickS per tick.
   */
  accel?: number;
}

/** The movement bounds of a MoveConfig moved every tickS seconds, with climbSlope 1 unless given. */
export function fogMotionOf(move: { maxSpeed: number; jumpSpeed: number; gravity: number; maxFallSpeed: number; stepHeight: number; accel?: number }, tickS: number, climbSlope = 1): FogMotion {
  return {
    accel: move.accel,
    tickS: tickS > 0 && tickS <= 1 ? tickS : 1,
    maxSpeed: move.maxSpeed,
    jumpSpeed: move.jumpSpeed,
    gravity: move.gravity,
    maxFallSpeed: move.maxFallSpeed,
    stepHeight: move.stepHeight,
    climbSlope: climbSlope >= 0 && climbSlope < Infinity ? climbSlope : 1,
  };
}

/** Longest horizon accepted, seconds: what a missing or hostile timing value becomes. */
export const MAX_HORIZON_S = 1;
/** Most seconds an upstream stall adds to a viewer's eye horizon (FogOfWar.stall). */
export const MAX_STALL_S = 1.5;

/**
 * The horizon of a viewer, seconds: one-way delay + interpolation delay + patch interval + safety
 * margin (ms each; see ./fog for why these four). A part that is negative, NaN or infinite makes the
 * whole horizon MAX_HORIZON_S (the conservative side); the sum is capped there too.
 */
export function horizonSeconds(oneWayMs: number, interpMs: number, patchMs: number, safetyMs: number): number {
  if (!(oneWayMs >= 0 && interpMs >= 0 && patchMs >= 0 && safetyMs >= 0)) return MAX_HORIZON_S;
  const s = (oneWayMs + interpMs + patchMs + safetyMs) / 1000;
  return s < MAX_HORIZON_S ? s : MAX_HORIZON_S;
}

/** Horizontal reach over h seconds of a player whose horizontal velocity is (vx, vz). */
export function horizontalReach(m: FogMotion, vx: number, vz: number, h: number): number {
  return reachFromSpeed(m, Math.sqrt(vx * vx + vz * vz), h);
}

/**
 * Horizontal reach over h seconds (one tick already added by the caller, see the module comment:
 * the window then holds at most floor(h / tickS) moves) from horizontal speed s0.
 */
export function reachFromSpeed(m: FogMotion, s0: number, h: number): number {
  const rr = REACH_SCRATCH;
  rr[0] = h;
  rr[1] = s0;
  reachInto(m, rr, 2);
  return rr[2];
}

const REACH_SCRATCH = new Float64Array(3);

/**
 * reachFromSpeed with the horizon in rr[0] and the speed in rr[1], the reach written to rr[out]:
 * for hot loops (./fog), where a double argument or result would be boxed per call.
 */
export function reachInto(m: FogMotion, rr: Float64Array, out: number): void {
  const h = rr[0]!, s0 = rr[1]!;
  const cap = s0 > m.maxSpeed ? s0 : m.maxSpeed;
  const a = m.accel, dt = m.tickS;
  if (!(a !== undefined && a > 0 && a < Infinity) || !(h >= 0 && h < Infinity) || !(s0 >= 0)) {
    rr[out] = cap * h;
    return;
  }
  const n = Math.floor(h / dt + 1e-9);
  // Ticks 1..k1 still accelerating (s0 + k a dt below the cap), the rest at the cap.
  const dv = a * dt;
  const kCap = Math.floor((cap - s0) / dv);
  const k1 = kCap < n ? kCap : n;
  const r = dt * (k1 * s0 + (dv * k1 * (k1 + 1)) / 2 + (n - k1) * cap);
  rr[out] = r < cap * h ? r : cap * h;
}

/** How far a jump lifts the feet within h seconds from vertical speed vy (max(jumpSpeed, vy) under gravity). */
export function jumpRise(m: FogMotion, vy: number, h: number): number {
  const v0 = vy > m.jumpSpeed ? vy : m.jumpSpeed;
  const g = m.gravity;
  if (!(g > 0)) return v0 * h;
  if (v0 <= g * h) return (v0 * v0) / (2 * g);
  return v0 * h - 0.5 * g * h * h;
}

/**
 * How far a fall lowers the feet within h seconds from vertical speed vy (gravity, capped at
 * maxFallSpeed). The step updates the speed before moving, so k ticks of dt fall g dt^2 k (k + 1) / 2,
 * half a tick's worth more than the parabola: hence h (h + tickS).
 */
export function fallDrop(m: FogMotion, vy: number, h: number): number {
  const down = vy < 0 ? -vy : 0;
  const g = m.gravity > 0 ? m.gravity : 0;
  const fall = down * h + 0.5 * g * h * (h + m.tickS);
  const cap = (down > m.maxFallSpeed ? down : m.maxFallSpeed) * h;
  return fall < cap ? fall : cap;
}

/**
 * How far walking moves the feet up (or down) over a horizontal reach: `slope` metres per metre
 * walked plus one step of stepHeight when `step` (slope and step from ./climb at the player's place,
 * or the motion's level-wide climbSlope and stepHeight).
 */
export function walkRise(m: FogMotion, reach: number, slope: number, step: boolean): number {
  return slope * reach + (step ? m.stepHeight : 0);
}

/** verticalInto's numbers: in the horizon s, vertical speed, horizontal reach, slope, step (1: one); out rise, drop, walk. */
export const V_H = 0, V_VY = 1, V_REACH = 2, V_SLOPE = 3, V_STEP = 4, V_RISE = 5, V_DROP = 6, V_WALK = 7;
export const VERTICAL_STRIDE = 8;

/**
 * jumpRise, fallDrop and walkRise at once, for hot loops (./fog), where a double argument or result
 * would be boxed per call: reads v[V_H .. V_STEP], writes v[V_WALK] = walkRise, v[V_RISE] = jumpRise +
 * walk and v[V_DROP] = fallDrop + walk (the same formulas as those three).
 */
export function verticalInto(m: FogMotion, v: Float64Array): void {
  const h = v[V_H]!, vy = v[V_VY]!;
  const walk = v[V_SLOPE]! * v[V_REACH]! + (v[V_STEP] === 1 ? m.stepHeight : 0);
  const v0 = vy > m.jumpSpeed ? vy : m.jumpSpeed, g = m.gravity;
  const jump = !(g > 0) ? v0 * h : v0 <= g * h ? (v0 * v0) / (2 * g) : v0 * h - 0.5 * g * h * h;
  const down = vy < 0 ? -vy : 0, gf = g > 0 ? g : 0;
  const fall = down * h + 0.5 * gf * h * (h + m.tickS);
  const cap = (down > m.maxFallSpeed ? down : m.maxFallSpeed) * h;
  v[V_WALK] = walk;
  v[V_RISE] = jump + walk;
  v[V_DROP] = (fall < cap ? fall : cap) + walk;
}
