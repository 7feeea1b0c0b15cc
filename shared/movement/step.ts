/**
 * The movement step: server-authoritative character motion from an input (wish direction, view
 * direction, jump), run identically by the server each tick and by a client predicting itself.
 * Pure: the caller passes the world, the input, dt; the step writes the new state in place.
 * No trigonometry: the yaw quaternion comes from the view direction with half-angle square roots.
 *
 * Model: horizontal velocity accelerates toward wish * maxSpeed (wish clamped to unit length), with
 * less control in the air; gravity when airborne; the ground from world.groundHeight (snapping up
 * steps no higher than stepHeight and down onto ground within stepHeight while walking); walls by
 * sweeping spheres of `radius` along the horizontal move at the probe heights (the lowest above
 * the step height, so steps and the floor do not stop it), stopping at the first contact and
 * sliding the rest along the contact's horizontal normal (up to three passes). A sphere that starts
 * touching a wall may move away from it or along it, never into it.
 */
import type { SegmentHit } from '../kernels/hit';
import { createSweepHit, type SweepHit } from '../kernels/sweptSphere';
import { setYawFromDirection } from '../lagcomp/pose';

/** World queries the step needs (shared/world/world.ts World satisfies this). */
export interface MoveWorld {
  firstHit(out: SegmentHit, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
  groundHeight(x: number, y: number, z: number, maxDrop: number): number;
  sweepSphere(out: SweepHit, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, radius: number): boolean;
}

export interface MoveState {
  /** Feet position, metres. */
  x: number;
  y: number;
  z: number;
  vx: number;
  vy: number;
  vz: number;
  onGround: boolean;
  /** Unit view direction (any pitch). */
  viewX: number;
  viewY: number;
  viewZ: number;
  /** Body orientation: yaw only, a unit quaternion about +Y turning +Z (model forward) toward the view. */
  qx: number;
  qy: number;
  qz: number;
  qw: number;
  /** Animation clip index (MoveConfig.clipIdle etc.) and time in it, seconds (reset on a clip change, wrapped into the clip's period). */
  clip: number;
  animTime: number;
}

export interface MoveInputLike {
  wishX: number;
  wishZ: number;
  viewX: number;
  viewY: number;
  viewZ: number;
  jump: boolean;
}

/** How far below a ceiling a rising head stops, metres. */
const CEILING_GAP = 0.05;

export interface MoveConfig {
  maxSpeed: number;
  /** Horizontal acceleration on the ground, m/s^2 (also braking). */
  accel: number;
  /** Fraction of `accel` available in the air. */
  airControl: number;
  gravity: number;
  jumpSpeed: number;
  /** Largest |vertical speed|, m/s (falls are capped so a tick never skips through a floor). */
  maxFallSpeed: number;
  radius: number;
  stepHeight: number;
  /** Heights above the feet of the wall-sweep sphere centres, metres (the lowest > stepHeight + radius). */
  probeHeights: readonly number[];
  /**
   * Top of the head above the feet, metres (above the eye): a jump stops this far below a ceiling,
   * so the eye, where shots start, never rises into or above the level's geometry.
   */
  headHeight: number;
  /** Clip indices into the rig's clips. */
  clipIdle: number;
  clipJog: number;
  clipRun: number;
  clipFall: number;
  /** Horizontal speeds at which the clip changes from idle to jog and from jog to run, m/s. */
  jogSpeed: number;
  runSpeed: number;
  /**
   * Loop length of each clip by index, seconds (the rig's clip durations): the clip time wraps into
   * [0, period), so it keeps its precision however long a clip plays. 0 or missing: never wrapped.
   */
  clipPeriods: readonly number[];
}

export function defaultMoveConfig(clips: { idle: number; jog: number; run: number; fall: number }, clipPeriods: readonly number[] = []): MoveConfig {
  return {
    maxSpeed: 6,
    accel: 40,
    airControl: 0.25,
    gravity: 20,
    jumpSpeed: 6.5,
    maxFallSpeed: 40,
    radius: 0.35,
    stepHeight: 0.4,
    probeHeights: [0.8, 1.3],
    headHeight: 1.8,
    clipIdle: clips.idle,
    clipJog: clips.jog,
    clipRun: clips.run,
    clipFall: clips.fall,
    jogSpeed: 0.5,
    runSpeed: 4,
    clipPeriods: clipPeriods.slice(),
  };
}

export function createMoveState(x: number, y: number, z: number, viewX = 0, viewZ = 1): MoveState {
  const s: MoveState = { x, y, z, vx: 0, vy: 0, vz: 0, onGround: false, viewX: 0, viewY: 0, viewZ: 1, qx: 0, qy: 0, qz: 0, qw: 1, clip: 0, animTime: 0 };
  setView(s, viewX, 0, viewZ);
  return s;
}

/**
 * Sets the view direction (normalised; ignored when degenerate or non-finite) and the yaw
 * quaternion from its horizontal part (setYawFromDirection).
 */
export function setView(s: MoveState, vx: number, vy: number, vz: number): void {
  const l2 = vx * vx + vy * vy + vz * vz;
  if (!(l2 > 1e-12) || !(l2 < 1e30)) return;
  const inv = 1 / Math.sqrt(l2);
  s.viewX = vx * inv;
  s.viewY = vy * inv;
  s.viewZ = vz * inv;
  setYawFromDirection(s, s.viewX, s.viewZ); // looking straight up or down keeps the body's yaw
}

// scratch (module level; the step is synchronous)
const scratchHit: SegmentHit = { hit: false, t: 0, x: 0, y: 0, z: 0, u: 0, v: 0, nx: 0, ny: 0, nz: 0, front: false };
const scratchSweep: SweepHit = createSweepHit();

function finiteOr(v: number, fallback: number): number {
  return v - v === 0 ? v : fallback;
}

/**
 * Moves (dx, dz) horizontally from the state's position, stopping at walls and sliding along them.
 * Writes the new x, z into the state.
 */
function moveHorizontal(s: MoveState, world: MoveWorld, c: MoveConfig, dx: number, dz: number): void {
  for (let pass = 0; pass < 3; pass++) {
    const d2 = dx * dx + dz * dz;
    if (!(d2 > 1e-14)) return;
    let bestT = 2;
    let bnx = 0;
    let bnz = 0;
    for (let i = 0; i < c.probeHeights.length; i++) {
      const py = s.y + c.probeHeights[i]!;
      if (!world.sweepSphere(scratchSweep, s.x, py, s.z, s.x + dx, py, s.z + dz, c.radius)) continue;
      const nx = scratchSweep.nx, nz = scratchSweep.nz;
      // A contact the motion leaves or runs along (already touching) does not stop it.
      if (scratchSweep.embedded && nx * dx + nz * dz >= 0) continue;
      if (scratchSweep.t < bestT) {
        bestT = scratchSweep.t;
        bnx = nx;
        bnz = nz;
      }
    }
    if (bestT > 1) {
      s.x += dx;
      s.z += dz;
      return;
    }
    // Advance to the contact (backed off a hair so the next sweep does not start embedded), then
    // slide the remainder along the contact's horizontal normal.
    const go = Math.max(0, bestT - 1e-6);
    s.x += dx * go;
    s.z += dz * go;
    let rx = dx * (1 - go);
    let rz = dz * (1 - go);
    const n2 = bnx * bnx + bnz * bnz;
    if (!(n2 > 1e-12)) return; // a horizontal surface at sphere height: stop
    const ninv = 1 / Math.sqrt(n2);
    const nx = bnx * ninv;
    const nz = bnz * ninv;
    const into = rx * nx + rz * nz;
    if (into < 0) {
      rx -= into * nx;
      rz -= into * nz;
    }
    dx = rx;
    dz = rz;
  }
}

/** Advances the state by dt seconds under the input. Non-finite input numbers are treated as 0 / ignored. */
export function stepMovement(s: MoveState, input: MoveInputLike, world: MoveWorld, c: MoveConfig, dt: number): MoveState {
  setView(s, finiteOr(input.viewX, 0), finiteOr(input.viewY, 0), finiteOr(input.viewZ, 0));

  // Wish direction, clamped to unit length.
  let wx = finiteOr(input.wishX, 0);
  let wz = finiteOr(input.wishZ, 0);
  const w2 = wx * wx + wz * wz;
  if (w2 > 1) {
    const inv = 1 / Math.sqrt(w2);
    wx *= inv;
    wz *= inv;
  }
  // Accelerate the horizontal velocity toward the target velocity, by at most accel * dt.
  const tvx = wx * c.maxSpeed;
  const tvz = wz * c.maxSpeed;
  let ddx = tvx - s.vx;
  let ddz = tvz - s.vz;
  const maxDv = c.accel * (s.onGround ? 1 : c.airControl) * dt;
  const dd2 = ddx * ddx + ddz * ddz;
  if (dd2 > maxDv * maxDv) {
    const k = maxDv / Math.sqrt(dd2);
    ddx *= k;
    ddz *= k;
  }
  s.vx += ddx;
  s.vz += ddz;

  if (s.onGround && input.jump) {
    s.vy = c.jumpSpeed;
    s.onGround = false;
  }
  if (!s.onGround) s.vy = Math.max(-c.maxFallSpeed, s.vy - c.gravity * dt);

  // Horizontal move with walls.
  const x0 = s.x;
  const z0 = s.z;
  moveHorizontal(s, world, c, s.vx * dt, s.vz * dt);
  // Velocity follows what actually happened (a wall stops it).
  if (dt > 0) {
    s.vx = (s.x - x0) / dt;
    s.vz = (s.z - z0) / dt;
  }

  // Vertical: ceiling, then ground.
  let dy = s.vy * dt;
  if (dy > 0) {
    // From the top probe (inside the body, clear of the level) up past the head: the head stops
    // CEILING_GAP below whatever it would reach.
    const top = s.y + c.probeHeights[c.probeHeights.length - 1]!;
    const head = s.y + Math.max(c.headHeight, top - s.y);
    if (world.firstHit(scratchHit, s.x, top, s.z, s.x, head + dy + CEILING_GAP, s.z)) {
      dy = Math.max(0, Math.min(dy, scratchHit.y - CEILING_GAP - head));
      s.vy = 0;
    }
  }
  const probeTop = s.y + c.stepHeight;
  const drop = c.stepHeight + Math.max(0, -dy) + (s.onGround ? c.stepHeight : 0.01);
  const g = world.groundHeight(s.x, probeTop, s.z, drop);
  const newY = s.y + dy;
  if (s.vy <= 0 && g === g && (newY <= g || s.onGround)) {
    s.y = g;
    s.vy = 0;
    s.onGround = true;
  } else {
    s.y = newY;
    s.onGround = false;
  }

  // Animation: clip from horizontal speed (fall while airborne), time advances and loops.
  const speed = Math.sqrt(s.vx * s.vx + s.vz * s.vz);
  const clip = !s.onGround ? c.clipFall : speed < c.jogSpeed ? c.clipIdle : speed < c.runSpeed ? c.clipJog : c.clipRun;
  if (clip !== s.clip) {
    s.clip = clip;
    s.animTime = 0;
  }
  // Wrapped into the loop: a clip time that grew without end would lose float32 precision on the
  // wire. Across a wrap the history takes the nearer snapshot's clip time instead of interpolating.
  s.animTime += dt;
  const period = c.clipPeriods[clip] ?? 0;
  if (period > 0 && s.animTime >= period) s.animTime -= Math.floor(s.animTime / period) * period;
  return s;
}
