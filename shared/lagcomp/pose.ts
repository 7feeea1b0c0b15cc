/**
 * The state of one player at one instant, as the history stores it and rewind rebuilds it: root
 * transform (position and unit orientation), animation state (clip index into the rig, clip time in
 * seconds), alive, and an epoch that bumps on every teleport or respawn so history never
 * interpolates across one.
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
}

export function createPlayerPose(): PlayerPose {
  return { x: 0, y: 0, z: 0, qx: 0, qy: 0, qz: 0, qw: 1, clip: 0, time: 0, alive: true, epoch: 0 };
}

/** Copies every field of src into out and returns out. */
export function copyPlayerPose(out: PlayerPose, src: PlayerPose): PlayerPose {
  out.x = src.x; out.y = src.y; out.z = src.z;
  out.qx = src.qx; out.qy = src.qy; out.qz = src.qz; out.qw = src.qw;
  out.clip = src.clip; out.time = src.time; out.alive = src.alive; out.epoch = src.epoch;
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
