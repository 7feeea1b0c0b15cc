/**
 * The state of one player at one instant, as the history stores it and rewind rebuilds it: root
 * transform (position and unit orientation), animation state (clip index into the rig, clip time in
 * seconds), alive, and an epoch that bumps on every teleport or respawn so history never
 * interpolates across one.
 *
 * The eye height (metres above the root) is per snapshot so a crouching or prone player's eye goes
 * down with its hitboxes; NaN means "the match's rules' eye height" (ValidationConfig.eyeHeightM).
 *
 * Animation time is the caller's running clip time (it may grow past the clip's length: the rig
 * wraps it). Keep it monotonic while the clip stays the same, so rewinding between two ticks
 * interpolates it correctly across the loop point.
 */
export interface PlayerPose {
  x: number;
  y: number;
  z: number;
  qx: number;
  qy: number;
  qz: number;
  qw: number;
  clip: number;
  time: number;
  alive: boolean;
  /** Bumps on teleport or respawn. */
  epoch: number;
  /** Eye above the root, metres; NaN: the rules' eye height. */
  eyeHeight: number;
  /**
   * The client's stamp (its estimate of the server clock, ms) of the newest input this pose has
   * stepped; NaN when the game does not stamp its inputs. Where the shooter's eye path ends.
   */
  stampMs: number;
}

export function createPlayerPose(): PlayerPose {
  return { x: 0, y: 0, z: 0, qx: 0, qy: 0, qz: 0, qw: 1, clip: 0, time: 0, alive: true, epoch: 0, eyeHeight: Number.NaN, stampMs: Number.NaN };
}

/** Copies every field of src into out and returns out. */
export function copyPlayerPose(out: PlayerPose, src: PlayerPose): PlayerPose {
  out.x = src.x; out.y = src.y; out.z = src.z;
  out.qx = src.qx; out.qy = src.qy; out.qz = src.qz; out.qw = src.qw;
  out.clip = src.clip; out.time = src.time; out.alive = src.alive; out.epoch = src.epoch; out.eyeHeight = src.eyeHeight; out.stampMs = src.stampMs;
  return out;
}

/**
 * Sets the root orientation to a rotation about +Y (yaw) given as its half-angle cosine and sine,
 * so callers that hold a facing as a unit 2D vector need no trigonometry here. Returns out.
 */
export function setYawHalf(out: PlayerPose, cosHalf: number, sinHalf: number): PlayerPose {
  out.qx = 0; out.qy = sinHalf; out.qz = 0; out.qw = cosHalf;
  return out;
}

/**
 * Sets the root orientation to the yaw that faces the horizontal part of the direction (dx, dz)
 * (+Z turned about +Y), with no trigonometry: with f the horizontal unit direction, cos(yaw) = f.z
 * and sin(yaw) = f.x, so q = (0, sign(f.x) sqrt((1 - f.z) / 2), 0, sqrt((1 + f.z) / 2)). Returns false
 * and leaves `out` as it was when the direction has no horizontal part (straight up or down) or is
 * not finite.
 */
export function setYawFromDirection(out: { qx: number; qy: number; qz: number; qw: number }, dx: number, dz: number): boolean {
  const h2 = dx * dx + dz * dz;
  if (!(h2 > 1e-12) || !(h2 < 1e30)) return false;
  const hinv = 1 / Math.sqrt(h2);
  const fx = dx * hinv;
  const fz = Math.max(-1, Math.min(1, dz * hinv));
  const sinHalf = Math.sqrt(Math.max(0, (1 - fz) / 2));
  out.qx = 0;
  out.qy = fx < 0 ? -sinHalf : sinHalf;
  out.qz = 0;
  out.qw = Math.sqrt(Math.max(0, (1 + fz) / 2));
  return true;
}
