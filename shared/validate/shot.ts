/**
 * The shot validation pipeline: one pure function from a shot as received (its bytes) plus plain
 * numbers (receive time, round trip, interpolation delay, the shooter's rules state, who is alive)
 * and the match's immutable data (world, rig, weapon table, snapshot histories) to a Verdict. No
 * clock, no I/O, no randomness: the audit replays it from the log and must get the same bits.
 *
 * Steps (each rejection names its own VerdictReason):
 * 1. Structure: frame (length, version), finite numbers, sane magnitudes, known weapon, valid
 *    claimed target, seq strictly increasing, not aimed at oneself. From here on the seq counts as
 *    used, so the same bytes replayed are refused.
 * 2. Shooter: present, alive, fire interval and magazine respected (receive times; see fire clock).
 * 3. Time (Source-style): estimate = receive - rtt/2 - interpolation delay. A claimed render time in
 *    the future (beyond futureSlackMs) or older than the window (plus oldSlackMs) is rejected; else
 *    the claim is used when within claimToleranceMs of the estimate, the estimate otherwise, then the
 *    result is clamped to [receive - rewindWindowMs, newest tick]. The source goes into the verdict.
 * 4. Geometry of the claim: length within the weapon's range and non-zero; start within
 *    originToleranceM of the shooter's eye path between the rewound time and the newest tick (the
 *    shooter's own client predicts itself ahead of the rewound time, so both ends are legitimate;
 *    across a respawn or teleport only the newest eye counts), and
 *    no world geometry between that eye point and the start.
 * 5. Replay: the world's first hit along the segment and the first hitbox hit of every other player
 *    alive now whose current life began at or before the rewound time (so a respawned player is never
 *    hit in a pose from a previous life, and a dead one not at all); the hitbox counts only before
 *    the world's hit. A hitbox behind the first world hit makes the shot OCCLUDED (a shot through a
 *    wall; the wall still gets the bullet hole).
 * 6. Verdict: HIT (zone, damage = weapon damage x zone multiplier), MISS, or REJECTED; passing steps
 *    1-4 marks the shot as fired (a round and a fire interval are used), whatever step 5 finds.
 */
import { decodeShot, createShotMessage, FrameStatus } from '../protocol/shot';
import { weaponById, type WeaponSpec } from '../weapons';
import { copyShooterState, TimeSource, VerdictKind, VerdictReason, type ShooterState, type Verdict } from './verdict';
import { rewindStatusUsable, type PlayerHistory, type RewindPolicy } from '../lagcomp/history';
import { createPlayerPose } from '../lagcomp/pose';
import { createHitboxHit, type Rewinder } from '../lagcomp/rewind';
import { createWorldHit, type World } from '../world/world';

/** The rules of a match: fixed for its duration, written once into the audit log header. */
export interface ValidationConfig {
  weapons: readonly WeaponSpec[];
  /** Default damage multipliers by HitZone (a weapon's own table wins when it has one). */
  zoneMultipliers: ArrayLike<number>;
  /** Number of player slots; claimed targets must be -1 or in [0, maxPlayers). */
  maxPlayers: number;
  /** How far back targets may be rewound, ms. */
  rewindWindowMs: number;
  /** A claimed render time within this of the server's estimate is believed, ms. */
  claimToleranceMs: number;
  /** A claimed render time up to this much after the receive time is not "future" (clock estimate error), ms. */
  futureSlackMs: number;
  /** A claimed render time up to this much older than the window is clamped, not rejected, ms. */
  oldSlackMs: number;
  /** Early arrival allowed by the fire clock (network jitter), ms. */
  fireJitterMs: number;
  /** Distance the segment start may lie from the shooter's eye path, metres. */
  originToleranceM: number;
  /** Eye height above the pose origin (the feet), metres. */
  eyeHeightM: number;
  /** Coordinates beyond +-this are OUT_OF_BOUNDS, metres. */
  maxCoordinate: number;
  /** A render time beyond +-this is OUT_OF_BOUNDS, ms. */
  maxTimeMs: number;
}

/** Conservative defaults: 250 ms window (the lag-comp default), Source-like tolerances. */
export function defaultValidationConfig(weapons: readonly WeaponSpec[], zoneMultipliers: ArrayLike<number>, eyeHeightM: number, maxPlayers = 16): ValidationConfig {
  return {
    weapons, zoneMultipliers, maxPlayers, eyeHeightM,
    rewindWindowMs: 250,
    claimToleranceMs: 60,
    futureSlackMs: 30,
    oldSlackMs: 100,
    fireJitterMs: 20,
    originToleranceM: 1.0,
    maxCoordinate: 1e5,
    maxTimeMs: 1e12,
  };
}

/** Everything about the moment the shot arrived: plain numbers the room measured, all logged. */
export interface ShotTiming {
  /** Server ms when the message was handled. */
  receiveTimeMs: number;
  /** The room's round-trip estimate for the shooter, ms. */
  rttMs: number;
  /**
   * The shooter's interpolation delay (declared at join as `interpDelayMs`, clamped by the room), ms:
   * how far behind its estimate of the server's current clock (ping time + rtt/2, see
   * shared/protocol/ping.ts ServerClockEstimate) the client renders other players. Snapshots reach
   * the client rtt/2 late, so a client needs interpDelay >= rtt/2 + its interpolation buffer (two or
   * three patch intervals); it claims renderTime = serverNow - interpDelay, and the server's estimate
   * receive - rtt/2 - interpDelay then matches the claim.
   */
  interpDelayMs: number;
  /** Server ms of the newest recorded tick (the latest time a pose exists for). */
  newestTickMs: number;
}

/** The players as they are now (indexed by slot): who can be hit, and since when. */
export interface ShotTargets {
  alive: ArrayLike<boolean>;
  /** Server ms at which each player's current life (join or respawn) began. */
  lifeStartMs: ArrayLike<number>;
}

/** The match's data the replay reads: world, rewinder and the histories by slot. */
export interface ShotScene {
  world: World;
  rewinder: Rewinder;
  histories: ArrayLike<PlayerHistory | undefined>;
  /** The sampling policy for the shooter's eye (clamp inside the window). */
  eyePolicy: RewindPolicy;
}

// scratch (module level, reused by every call; the pipeline is synchronous and re-entrant-free)
const scratchShot = createShotMessage();
const scratchPose = createPlayerPose();
const scratchWorldHit = createWorldHit();
const scratchBoxHit = createHitboxHit();
const scratchMasked: (PlayerHistory | undefined)[] = [];

function reject(out: Verdict, reason: VerdictReason): Verdict {
  out.kind = VerdictKind.REJECTED;
  out.reason = reason;
  return out;
}

function finite(v: number): boolean {
  return v - v === 0; // false for NaN and +-Infinity, no allocation, engine-independent
}

function resetVerdict(out: Verdict, shooter: ShooterState): void {
  out.kind = VerdictKind.REJECTED;
  out.reason = VerdictReason.MALFORMED;
  out.seq = -1;
  out.shooter = shooter.slot;
  out.weapon = -1;
  out.target = -1;
  out.zone = -1;
  out.bone = -1;
  out.hitbox = -1;
  out.t = -1;
  out.x = 0; out.y = 0; out.z = 0;
  out.nx = 0; out.ny = 0; out.nz = 0;
  out.worldHit = false;
  out.worldT = -1;
  out.surface = -1;
  out.damage = 0;
  out.targetRewindStatus = -1;
  out.rewindTimeMs = Number.NaN;
  out.estimateMs = Number.NaN;
  out.timeSource = TimeSource.NONE;
  out.fired = false;
  copyShooterState(out.after, shooter);
}

/**
 * Judges one shot. `bytes` is the payload exactly as received (anything: a hostile client may send
 * any type). `shooter` is read only; the state after the shot is written to out.after. Never throws
 * for any input; returns `out`.
 */
export function validateShot(
  out: Verdict,
  scene: ShotScene,
  config: ValidationConfig,
  bytes: unknown,
  shooter: ShooterState,
  timing: ShotTiming,
  targets: ShotTargets,
): Verdict {
  resetVerdict(out, shooter);
  const shot = scratchShot;

  // 1. Structure
  const frame = decodeShot(shot, bytes);
  out.seq = shot.seq;
  if (frame === FrameStatus.OVERSIZED) return reject(out, VerdictReason.OVERSIZED);
  if (frame !== FrameStatus.OK) return reject(out, VerdictReason.MALFORMED);
  out.weapon = shot.weapon;
  if (!finite(shot.renderTimeMs) || !finite(shot.sx) || !finite(shot.sy) || !finite(shot.sz) || !finite(shot.ex) || !finite(shot.ey) || !finite(shot.ez)) {
    return reject(out, VerdictReason.NON_FINITE);
  }
  const mc = config.maxCoordinate;
  if (Math.abs(shot.sx) > mc || Math.abs(shot.sy) > mc || Math.abs(shot.sz) > mc || Math.abs(shot.ex) > mc || Math.abs(shot.ey) > mc || Math.abs(shot.ez) > mc || Math.abs(shot.renderTimeMs) > config.maxTimeMs) {
    return reject(out, VerdictReason.OUT_OF_BOUNDS);
  }
  const weapon = weaponById(config.weapons, shot.weapon);
  if (weapon === undefined) return reject(out, VerdictReason.UNKNOWN_WEAPON);
  if (shot.claimedTarget < -1 || shot.claimedTarget >= config.maxPlayers) return reject(out, VerdictReason.BAD_TARGET);
  if (shooter.slot < 0 || shooter.slot >= config.maxPlayers) return reject(out, VerdictReason.NO_SHOOTER);
  if (shot.seq <= shooter.lastSeq) return reject(out, VerdictReason.SEQ_REPLAYED);
  out.after.lastSeq = shot.seq; // the seq is used from here on, whatever the outcome
  if (shot.claimedTarget === shooter.slot) return reject(out, VerdictReason.SELF_TARGET);

  // 2. Shooter
  const history = scene.histories[shooter.slot];
  if (!shooter.alive) return reject(out, VerdictReason.SHOOTER_DEAD);
  if (history === undefined) return reject(out, VerdictReason.NO_SHOOTER);
  const now = timing.receiveTimeMs;
  if (now < shooter.nextFireMs - config.fireJitterMs) return reject(out, VerdictReason.FIRE_RATE);
  const w = weapon.id;
  let ammo = shooter.ammo[w] ?? 0;
  let reloadEnd = shooter.reloadEndMs[w] ?? 0;
  if (reloadEnd > 0 && now >= reloadEnd) {
    ammo = weapon.magazine;
    reloadEnd = 0;
  }
  if (ammo <= 0) return reject(out, VerdictReason.NO_AMMO);

  // 3. Time
  const claimed = shot.renderTimeMs;
  if (claimed > now + config.futureSlackMs) return reject(out, VerdictReason.TIME_FUTURE);
  const oldest = now - config.rewindWindowMs;
  if (claimed < oldest - config.oldSlackMs) return reject(out, VerdictReason.TIME_TOO_OLD);
  const estimate = now - timing.rttMs / 2 - timing.interpDelayMs;
  out.estimateMs = estimate;
  let when: number;
  let source: TimeSource;
  if (Math.abs(claimed - estimate) <= config.claimToleranceMs) {
    when = claimed;
    source = TimeSource.CLAIMED;
  } else {
    when = estimate;
    source = TimeSource.ESTIMATED;
  }
  const newest = Math.min(now, timing.newestTickMs);
  const lo = Math.min(oldest, newest);
  if (when < lo) {
    when = lo;
    source = TimeSource.CLAMPED;
  } else if (when > newest) {
    when = newest;
    source = TimeSource.CLAMPED;
  }
  out.rewindTimeMs = when;
  out.timeSource = source;

  // 4. Geometry of the claim
  const dx = shot.ex - shot.sx;
  const dy = shot.ey - shot.sy;
  const dz = shot.ez - shot.sz;
  const len2 = dx * dx + dy * dy + dz * dz;
  if (!(len2 > 1e-12)) return reject(out, VerdictReason.DEGENERATE);
  if (len2 > weapon.rangeM * weapon.rangeM) return reject(out, VerdictReason.OUT_OF_RANGE);
  // Eye path: eye at the rewound time (A) to eye at the newest tick (B).
  if (!rewindStatusUsable(history.sampleAt(scratchPose, when, scene.eyePolicy))) return reject(out, VerdictReason.NO_SHOOTER);
  let ax = scratchPose.x, ay = scratchPose.y + config.eyeHeightM, az = scratchPose.z;
  const epochA = scratchPose.epoch;
  if (!rewindStatusUsable(history.sampleAt(scratchPose, newest, scene.eyePolicy))) return reject(out, VerdictReason.NO_SHOOTER);
  const bx = scratchPose.x, by = scratchPose.y + config.eyeHeightM, bz = scratchPose.z;
  // A respawn or teleport in between: the straight line from the old eye to the new one is no path
  // the shooter ever took (it can cross the whole level), so only the current life's eye counts.
  if (scratchPose.epoch !== epochA) {
    ax = bx; ay = by; az = bz;
  }
  // Closest point C on segment AB to the start S.
  const abx = bx - ax, aby = by - ay, abz = bz - az;
  const ab2 = abx * abx + aby * aby + abz * abz;
  let u = 0;
  if (ab2 > 1e-12) {
    u = ((shot.sx - ax) * abx + (shot.sy - ay) * aby + (shot.sz - az) * abz) / ab2;
    u = Math.max(0, Math.min(1, u));
  }
  const cx = ax + u * abx, cy = ay + u * aby, cz = az + u * abz;
  const ox = shot.sx - cx, oy = shot.sy - cy, oz = shot.sz - cz;
  const off2 = ox * ox + oy * oy + oz * oz;
  if (off2 > config.originToleranceM * config.originToleranceM) return reject(out, VerdictReason.ORIGIN_MISMATCH);
  if (off2 > 1e-12 && scene.world.anyHit(cx, cy, cz, shot.sx, shot.sy, shot.sz)) return reject(out, VerdictReason.START_BLOCKED);

  // The shot is fired: use a round and a fire interval.
  out.fired = true;
  ammo -= 1;
  if (ammo === 0) reloadEnd = now + weapon.reloadMs;
  out.after.ammo[w] = ammo;
  out.after.reloadEndMs[w] = reloadEnd;
  out.after.nextFireMs = Math.max(shooter.nextFireMs, now - config.fireJitterMs) + weapon.fireIntervalMs;

  // 5. Replay
  const wh = scratchWorldHit;
  const worldHit = scene.world.firstHit(wh, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez);
  if (worldHit) {
    out.worldHit = true;
    out.worldT = wh.t;
    out.surface = wh.surface;
  }
  const n = Math.min(config.maxPlayers, scene.histories.length);
  scratchMasked.length = n;
  for (let i = 0; i < n; i++) {
    const live = targets.alive[i] === true && i !== shooter.slot && (targets.lifeStartMs[i] ?? Infinity) <= when;
    scratchMasked[i] = live ? scene.histories[i] : undefined;
  }
  const bh = scratchBoxHit;
  const boxHit = scene.rewinder.firstHit(bh, scratchMasked, when, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez, shooter.slot, 1);
  for (let i = 0; i < n; i++) scratchMasked[i] = undefined; // drop references between calls

  // 6. Verdict
  if (boxHit && (!worldHit || bh.t < wh.t)) {
    out.kind = VerdictKind.HIT;
    out.reason = VerdictReason.OK_HIT;
    out.target = bh.player;
    out.zone = bh.zone;
    out.bone = bh.bone;
    out.hitbox = bh.hitbox;
    out.targetRewindStatus = bh.status;
    out.t = bh.t;
    out.x = bh.x; out.y = bh.y; out.z = bh.z;
    out.nx = bh.nx; out.ny = bh.ny; out.nz = bh.nz;
    const table = weapon.zoneMultipliers ?? config.zoneMultipliers;
    out.damage = weapon.damage * (table[bh.zone] ?? 1);
    return out;
  }
  if (worldHit) {
    out.t = wh.t;
    out.x = wh.x; out.y = wh.y; out.z = wh.z;
    out.nx = wh.nx; out.ny = wh.ny; out.nz = wh.nz;
  }
  if (boxHit) {
    // A hitbox lies behind the world's first hit: the shot went through a wall.
    out.kind = VerdictKind.REJECTED;
    out.reason = VerdictReason.OCCLUDED;
    out.target = bh.player;
    out.zone = bh.zone;
    out.targetRewindStatus = bh.status;
    return out;
  }
  out.kind = VerdictKind.MISS;
  out.reason = VerdictReason.OK_MISS;
  return out;
}
