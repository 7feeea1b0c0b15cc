/**
 * Deterministic projectile flight (rockets, grenades): a sphere launched along the aim, flown in
 * steps against the level (World.sweepSphere) and the players posed at a caller-given server time
 * (VolumeRewinder.sphereCast). The state is flat numbers the caller owns; a step writes what
 * happened into a caller-owned FlightEvent and allocates nothing.
 *
 * Policies:
 * - Integration: exact for constant gravity (-y). Over a sub-step of tau seconds the centre moves
 *   by v tau + g tau^2 / 2 and the velocity by g tau, so a flight stepped 1 x 50 ms or 5 x 10 ms
 *   reaches the same state up to rounding when nothing is touched.
 * - Collision path: each sub-step's path is the chord between its two ends, swept as a segment.
 *   The parabola is at most g tau^2 / 8 from its chord, so sub-steps last at most
 *   1000 sqrt(8 CHORD_TOLERANCE_M / g) ms (64 ms at 9.81 m/s^2): every contact is found on a path
 *   within CHORD_TOLERANCE_M of the true one. The contact time is the chord fraction times tau.
 *   Without gravity a step is one segment (the chord is the path).
 * - Contacts: the earlier of the level and the players; a player at the same fraction wins. A
 *   player counts only when the sphere moves toward it (v . n < 0): a projectile at rest that a
 *   player walks into is not a touch. An impact weapon (fuseMs 0) ends on any contact (PLAYER or
 *   LEVEL, explode where the centre touched). A fused one bounces (bounce > 0: the normal
 *   component of v reversed and scaled by the restitution, the tangential one kept, the rest of the
 *   step continued from the contact, SKIN_M off the surface) or sticks (bounce 0), and the first
 *   player it touched during the call is reported (ProjectileFlights applies direct damage only to a flight that ends on a player).
 * - Rolling: a bounce off a floor (normal y >= FLOOR_NY) leaving less than the speed gravity gives in
 *   REST_MS ends the bouncing: the normal component is dropped and the projectile slides along the
 *   floor with its tangential velocity, without gravity, until a support probe (a sweep
 *   SUPPORT_PROBE_M down) finds no floor, when it flies again.
 * - At most MAX_CONTACTS contacts per call: past them the projectile waits where it is for the
 *   rest of the call (age, fuse and lifetime still run), so a wedged sphere costs a bounded time.
 * - Shooter: excluded from the player sweep while the flight's age is below shooterGraceMs
 *   (default DEFAULT_SHOOTER_GRACE_MS), then a target like any other (a grenade bouncing back).
 * - Deadlines: the fuse (fuseMs > 0) explodes where the projectile is (FUSE), the lifetime ends it
 *   without explosion (EXPIRED); whichever comes first, at exactly that age.
 *
 * Catch-up (the server's use; ./catchUp is the pure part): a shot is spawned at the
 * shooter's eye at its rewound fire time, and the first min(now - fire time, MAX_CATCH_UP_MS) of
 * flight is simulated at once against players rewound to each sub-step's start time; the flight
 * then steps with the room's ticks against the present players. A shot older than the cap starts
 * late by the excess (high latency costs the shooter, not the targets).
 *
 * Only + - * /, Math.sqrt and comparisons: the same bits in every engine.
 */
import { createSweepHit } from '../kernels/sweptSphere';
import { createSphereCastHit } from '../lagcomp/volumeHits';
import type { PlayerHistory } from '../lagcomp/history';
import type { VolumeRewinder } from '../lagcomp/rewindVolume';
import type { World } from '../world/world';
import { DEFAULT_SHOOTER_GRACE_MS, type ProjectileSpec } from '../weapons';

/** Largest distance between a sub-step's chord and the parabola it stands for, m. */
export const CHORD_TOLERANCE_M = 0.005;
/** A bounce or contact leaves the centre this far off the surface along the contact normal, m. */
export const SKIN_M = 1e-4;
/** Contact normals with y at least this are floors (45 degrees). */
export const FLOOR_NY = 0.7071;
/** A floor bounce leaving less than gravity x REST_MS of normal speed starts rolling. */
export const REST_MS = 50;
/** The rolling projectile's support probe: a sweep this far straight down, m. */
export const SUPPORT_PROBE_M = 0.02;
/** Contacts handled per call at most. */
export const MAX_CONTACTS = 8;

/** What a call ended with. */
export const FlightEventKind = {
  /** Still flying (a bounce or touch may have happened: see bounces and player). */
  NONE: 0,
  /** Impact on a player: explode at (x, y, z). */
  PLAYER: 1,
  /** Impact on the level: explode at (x, y, z). */
  LEVEL: 2,
  /** The fuse ran out: explode at (x, y, z). */
  FUSE: 3,
  /** The lifetime ran out: the projectile vanishes, no explosion. */
  EXPIRED: 4,
} as const;
export type FlightEventKind = (typeof FlightEventKind)[keyof typeof FlightEventKind];

/** How the projectile moves: flying (gravity), rolling on a floor, stuck in place. */
export const FlightMode = { FLYING: 0, ROLLING: 1, STUCK: 2 } as const;
export type FlightMode = (typeof FlightMode)[keyof typeof FlightMode];

/** One projectile in flat numbers. The caller owns it; steps update it in place. */
export interface ProjectileState {
  x: number; y: number; z: number;
  vx: number; vy: number; vz: number;
  /** Time since launch, ms. */
  ageMs: number;
  /** Bounces so far. */
  bounces: number;
  alive: boolean;
  mode: FlightMode;
  /** Slot of the shooter (excluded during the grace time), -1 for none. */
  shooter: number;
}

export function createProjectileState(): ProjectileState {
  return { x: 0, y: 0, z: 0, vx: 0, vy: 0, vz: 0, ageMs: 0, bounces: 0, alive: false, mode: FlightMode.FLYING, shooter: -1 };
}

/** What one call did. Cleared at the start of each call. */
export interface FlightEvent {
  kind: FlightEventKind;
  /** Centre when the call ended the flight (the explosion's centre, or where it vanished). */
  x: number; y: number; z: number;
  /** Contact normal of an impact (toward the projectile); 0 otherwise. */
  nx: number; ny: number; nz: number;
  /** Age when the flight ended, ms (NaN while it flies on). */
  ageMs: number;
  /** The first player touched during the call (impact or bounce), -1 for none; its zone and hitbox. */
  player: number;
  zone: number;
  hitbox: number;
  /** Bounces during the call. */
  bounces: number;
}

export function createFlightEvent(): FlightEvent {
  const nan = Number.NaN;
  return { kind: FlightEventKind.NONE, x: nan, y: nan, z: nan, nx: 0, ny: 0, nz: 0, ageMs: nan, player: -1, zone: 0, hitbox: -1, bounces: 0 };
}

export function clearFlightEvent(out: FlightEvent): void {
  out.kind = FlightEventKind.NONE;
  out.x = out.y = out.z = out.ageMs = Number.NaN;
  out.nx = out.ny = out.nz = 0;
  out.player = -1;
  out.zone = 0;
  out.hitbox = -1;
  out.bounces = 0;
}

/**
 * Starts a flight in `s`: at (x, y, z), along (dx, dy, dz) (any length > 0) at spec.speed, age 0.
 * False (and s not alive) for a zero or non-finite direction or position.
 */
export function launchProjectile(
  s: ProjectileState, spec: ProjectileSpec, shooter: number, x: number, y: number, z: number, dx: number, dy: number, dz: number,
): boolean {
  s.alive = false;
  const check = x + y + z + dx + dy + dz;
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(check - check === 0) || !(len > 0) || !(len < Infinity)) return false;
  const k = spec.speed / len;
  s.x = x; s.y = y; s.z = z;
  s.vx = dx * k; s.vy = dy * k; s.vz = dz * k;
  s.ageMs = 0;
  s.bounces = 0;
  s.mode = FlightMode.FLYING;
  s.shooter = shooter;
  s.alive = true;
  return true;
}

/** Longest sub-step whose chord stays within CHORD_TOLERANCE_M of the parabola, ms (Infinity without gravity). */
export function maxSubStepMs(gravity: number): number {
  return gravity > 0 ? 1000 * Math.sqrt((8 * CHORD_TOLERANCE_M) / gravity) : Infinity;
}

// Scratch (no step re-enters another).
const LEVEL = createSweepHit();
const BODY = createSphereCastHit();
/** The contact normal being handled. */
const NORMAL = new Float64Array(3);

/**
 * Advances `s` by dtMs against the level and the players posed at timeMs (world and vol may be
 * null: nothing of that kind is in the way). Writes `out` (cleared first) and returns out.kind;
 * a flight that ends leaves s.alive false. Nothing happens to a dead state or for dtMs <= 0/NaN.
 */
export function stepProjectile(
  out: FlightEvent, s: ProjectileState, spec: ProjectileSpec, dtMs: number,
  world: World | null, vol: VolumeRewinder | null, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
): FlightEventKind {
  clearFlightEvent(out);
  return advanceProjectile(out, s, spec, dtMs, world, vol, histories, timeMs);
}

/** stepProjectile without clearing `out` (catch-up accumulates several steps into one event). */
export function advanceProjectile(
  out: FlightEvent, s: ProjectileState, spec: ProjectileSpec, dtMs: number,
  world: World | null, vol: VolumeRewinder | null, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
): FlightEventKind {
  if (!s.alive || !(dtMs > 0)) return out.kind;
  const g = spec.gravity, r = spec.radius, fuse = spec.fuseMs, life = spec.lifetimeMs;
  const end = fuse > 0 && fuse < life ? fuse : life;
  const grace = spec.shooterGraceMs ?? DEFAULT_SHOOTER_GRACE_MS;
  const segMax = g > 0 ? 1000 * Math.sqrt((8 * CHORD_TOLERANCE_M) / g) : Infinity; // maxSubStepMs, inline
  let left = dtMs;
  let contacts = 0;
  while (left > 0) {
    const toEnd = end - s.ageMs;
    if (!(toEnd > 0)) return finish(out, s, fuse > 0 && end === fuse);
    let seg = left < toEnd ? left : toEnd;
    let deadline = !(left < toEnd);
    const moving = s.mode !== FlightMode.STUCK && contacts < MAX_CONTACTS && (s.vx !== 0 || s.vy !== 0 || s.vz !== 0 || s.mode === FlightMode.FLYING);
    if (!moving) {
      s.ageMs += seg;
      left -= seg;
      if (deadline) return finish(out, s, fuse > 0 && end === fuse);
      continue;
    }
    const flying = s.mode === FlightMode.FLYING;
    if (flying && seg > segMax) {
      seg = segMax;
      deadline = false;
    }
    const tau = seg / 1000, gy = flying ? g : 0;
    const ax = s.x, ay = s.y, az = s.z;
    const bx = ax + s.vx * tau, by = ay + s.vy * tau - 0.5 * gy * tau * tau, bz = az + s.vz * tau;
    let tw = 2;
    if (world !== null && world.sweepSphere(LEVEL, ax, ay, az, bx, by, bz, r)) tw = LEVEL.t;
    let tp = 2;
    if (vol !== null) {
      const exclude = s.ageMs < grace ? s.shooter : -1;
      if (vol.sphereCast(BODY, histories, timeMs, ax, ay, az, bx, by, bz, r, exclude, tw <= 1 ? tw : 1)) {
        // A touch needs the sphere moving toward the body (the velocity at the contact).
        const tc = BODY.t * tau;
        const vn = BODY.nx * s.vx + BODY.ny * (s.vy - gy * tc) + BODY.nz * s.vz;
        if (vn < 0) tp = BODY.t;
      }
    }
    if (!(tp <= 1 || tw <= 1)) {
      s.x = bx; s.y = by; s.z = bz;
      s.vy -= gy * tau;
      s.ageMs += seg;
      left -= seg;
      if (s.mode === FlightMode.ROLLING && world !== null) keepSupport(s, world, spec);
      if (deadline) {
        s.ageMs = end;
        return finish(out, s, fuse > 0 && end === fuse);
      }
      continue;
    }
    const onPlayer = tp <= tw;
    const t = onPlayer ? tp : tw;
    const tc = t * tau;
    const c = onPlayer ? BODY : LEVEL;
    s.x = c.cx; s.y = c.cy; s.z = c.cz;
    s.vy -= gy * tc;
    s.ageMs += t * seg;
    left -= t * seg;
    const N = NORMAL;
    N[0] = c.nx; N[1] = c.ny; N[2] = c.nz;
    if (onPlayer && out.player < 0) {
      out.player = BODY.player;
      out.zone = BODY.zone;
      out.hitbox = BODY.hitbox;
    }
    if (fuse === 0) {
      out.nx = N[0]; out.ny = N[1]; out.nz = N[2];
      return finishAt(out, s, onPlayer ? FlightEventKind.PLAYER : FlightEventKind.LEVEL);
    }
    contacts++;
    bounce(s, spec, !onPlayer && g > 0);
    if (s.mode !== FlightMode.STUCK) out.bounces++;
  }
  return out.kind;
}

/**
 * Reflects (or sticks) s at a contact of normal NORMAL and moves it SKIN_M off; a slow floor bounce
 * starts rolling. (No double crosses a call here: V8 boxes those it does not inline.)
 */
function bounce(s: ProjectileState, spec: ProjectileSpec, mayRoll: boolean): void {
  const e = spec.bounce, g = spec.gravity, nx = NORMAL[0], ny = NORMAL[1], nz = NORMAL[2];
  if (e === 0) {
    s.vx = s.vy = s.vz = 0;
    s.mode = FlightMode.STUCK;
    return;
  }
  s.bounces++;
  const vn = s.vx * nx + s.vy * ny + s.vz * nz;
  if (vn < 0) {
    const k = (1 + e) * vn;
    s.vx -= k * nx; s.vy -= k * ny; s.vz -= k * nz;
  }
  s.x += SKIN_M * nx; s.y += SKIN_M * ny; s.z += SKIN_M * nz;
  const away = s.vx * nx + s.vy * ny + s.vz * nz;
  if (mayRoll && ny >= FLOOR_NY && away < (g * REST_MS) / 1000) {
    s.vx -= away * nx; s.vy -= away * ny; s.vz -= away * nz;
    s.mode = FlightMode.ROLLING;
  } else {
    s.mode = FlightMode.FLYING; // a rolling projectile off a wall or a player flies until it lands again
  }
}

/** A rolling projectile with no floor within SUPPORT_PROBE_M below flies again. */
function keepSupport(s: ProjectileState, world: World, spec: ProjectileSpec): void {
  if (world.sweepSphere(LEVEL, s.x, s.y, s.z, s.x, s.y - SUPPORT_PROBE_M, s.z, spec.radius) && LEVEL.ny >= FLOOR_NY) return;
  s.mode = FlightMode.FLYING;
}

/** Ends the flight at a deadline: FUSE (explodes) or EXPIRED. */
function finish(out: FlightEvent, s: ProjectileState, fuse: boolean): FlightEventKind {
  return finishAt(out, s, fuse ? FlightEventKind.FUSE : FlightEventKind.EXPIRED);
}

function finishAt(out: FlightEvent, s: ProjectileState, kind: FlightEventKind): FlightEventKind {
  s.alive = false;
  out.kind = kind;
  out.x = s.x; out.y = s.y; out.z = s.z;
  out.ageMs = s.ageMs;
  return kind;
}
