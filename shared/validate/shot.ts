/**
 * The weapon-message pipeline: one pure function from a message as received (its bytes) plus plain
 * numbers (receive time, interpolation delay, the shooter's rules state, who is alive) and the
 * match's immutable data (world, rig, weapon table, snapshot histories) to a Verdict. No clock, no
 * I/O, no randomness: the audit replays it from the log and must get the same bits.
 *
 * Steps (each rejection names its own VerdictReason):
 * 1. Structure: frame (length, version, action), finite numbers, sane magnitudes, known weapon,
 *    valid claimed target, seq strictly increasing, not aimed at oneself. From here on the seq
 *    counts as used, so the same bytes replayed are refused.
 * 2. Action time: the client's claimed time of the action, bounded against arrival: no later than
 *    receive + futureSlackMs + rtt/2 (clock estimate error), no earlier than receive - maxFireLagMs (the one-way delay plus a lost
 *    segment and its lost retransmission on TCP), never before the shooter's previous action.
 * 3. Shooter rules (weaponRules.ts), at the action time: alive (or, with honourShotsInFlight, dead
 *    since the action, which reached the server within a round trip of it); switch and reload are judged and
 *    carried out here (verdict ACTION); a shot needs the weapon carried, equipped, drawn, loaded,
 *    not reloading, and the fire clock.
 * 4. Render time (Source-style): the shooter rendered others at action time - interpolation delay;
 *    the claimed render time is used when within claimToleranceMs of that estimate, the estimate
 *    otherwise, clamped to [action time - rewindWindowMs, min(action time, newest tick)]. A claim
 *    later than the action (beyond futureSlackMs) or older than the window plus oldSlackMs is rejected.
 * 5. Geometry of the claim: length within the weapon's range and non-zero; start within
 *    originToleranceM of the shooter's eye path between the rewound time and the newest tick (the
 *    shooter's own client predicts itself ahead of the rewound time, so both ends are legitimate;
 *    across a respawn or teleport only the newest eye counts), and no world geometry between that
 *    eye point and the start. Passing marks the shot as fired (a round and a fire interval are used).
 * 6. Replay: the world's first hit along the segment and the first hitbox hit of every other player
 *    alive now (or, with honourShotsInFlight, killed after the action time) whose current life began at or before the
 *    rewound time (so a respawned player is never hit in a pose from a previous life, and one dead at
 *    the rewound time not at all); the hitbox counts only before
 *    the world's hit. A hitbox behind the first world hit makes the shot OCCLUDED (a shot through a
 *    wall; the wall still gets the bullet hole). A hitbox hit whose point cannot be seen from the
 *    server's eye (the eye point nearest the start, or either end of the eye path) is NOT_VISIBLE:
 *    a start pushed past a corner within the origin tolerance does not reach around it.
 * 7. Verdict: HIT (zone, damage = weapon damage x zone multiplier), MISS, ACTION, or REJECTED.
 */
import { decodeShot, createShotMessage, FrameStatus, ShotAction } from '../protocol/shot';
import { weaponById } from '../weapons';
import { copyShooterState, TimeSource, VerdictKind, VerdictReason, type ShooterState, type Verdict } from './verdict';
import { applyFire, applyReload, applySwitch, checkFire, RULES_OK } from './weaponRules';
import { rewindStatusUsable, type PlayerHistory, type RewindPolicy } from '../lagcomp/history';
import { createPlayerPose } from '../lagcomp/pose';
import { createHitboxHit } from '../lagcomp/rewind';
import { createWorldHit } from '../world/world';
import { visibleFromEye } from './sight';
import type { ShotScene, ShotTargets, ShotTiming, ValidationConfig } from './rules';
export { VISIBILITY_BACKOFF_M } from './sight';
export { defaultValidationConfig, ORIGIN_TOLERANCE_M, rewindReachMs, type ShotScene, type ShotTargets, type ShotTiming, type ValidationConfig } from './rules';

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

/** A rejection after the seq was used: the rules state after is the state before with the new seq. */
function refuse(out: Verdict, shooter: ShooterState, reason: number): Verdict {
  const seq = out.after.lastSeq;
  copyShooterState(out.after, shooter);
  out.after.lastSeq = seq;
  out.kind = VerdictKind.REJECTED;
  out.reason = reason as VerdictReason;
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
  out.originOffsetM = Number.NaN;
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
  const fire = shot.action === ShotAction.FIRE;
  if (!finite(shot.timeMs) || (fire && (!finite(shot.renderTimeMs) || !finite(shot.sx) || !finite(shot.sy) || !finite(shot.sz) || !finite(shot.ex) || !finite(shot.ey) || !finite(shot.ez)))) {
    return reject(out, VerdictReason.NON_FINITE);
  }
  const mc = config.maxCoordinate;
  if (Math.abs(shot.timeMs) > config.maxTimeMs || (fire && (Math.abs(shot.sx) > mc || Math.abs(shot.sy) > mc || Math.abs(shot.sz) > mc || Math.abs(shot.ex) > mc || Math.abs(shot.ey) > mc || Math.abs(shot.ez) > mc || Math.abs(shot.renderTimeMs) > config.maxTimeMs))) {
    return reject(out, VerdictReason.OUT_OF_BOUNDS);
  }
  const weapon = weaponById(config.weapons, shot.weapon);
  if (weapon === undefined) return reject(out, VerdictReason.UNKNOWN_WEAPON);
  if (fire && (shot.claimedTarget < -1 || shot.claimedTarget >= config.maxPlayers)) return reject(out, VerdictReason.BAD_TARGET);
  if (shooter.slot < 0 || shooter.slot >= config.maxPlayers) return reject(out, VerdictReason.NO_SHOOTER);
  if (shot.seq <= shooter.lastSeq) return reject(out, VerdictReason.SEQ_REPLAYED);
  out.after.lastSeq = shot.seq; // the seq is used from here on, whatever the outcome
  if (fire && shot.claimedTarget === shooter.slot) return reject(out, VerdictReason.SELF_TARGET);

  // 2. Action time
  const history = scene.histories[shooter.slot];
  const inFlight = config.honourShotsInFlight === true;
  if (!shooter.alive && !inFlight) return reject(out, VerdictReason.SHOOTER_DEAD);
  if (history === undefined) return reject(out, VerdictReason.NO_SHOOTER);
  const now = timing.receiveTimeMs;
  const at = shot.timeMs;
  const rtt = Math.min(timing.rttMs, config.maxRttMs);
  if (at > now + config.futureSlackMs + rtt / 2) return reject(out, VerdictReason.TIME_FUTURE);
  if (at < now - config.maxFireLagMs) return reject(out, VerdictReason.TIME_TOO_OLD);
  if (!shooter.alive && !firedAlive(at, now, rtt, timing.shooterDiedMs, config)) return reject(out, VerdictReason.SHOOTER_DEAD);
  if (at < shooter.lastActionMs) return reject(out, VerdictReason.ACTION_ORDER);

  // 3. Shooter rules, on the state after (restored by `refuse` when the message is refused)
  const after = out.after;
  if (shot.action === ShotAction.SWITCH || shot.action === ShotAction.RELOAD) {
    const switching = shot.action === ShotAction.SWITCH;
    const r = switching ? applySwitch(after, config.weapons, weapon, at) : applyReload(after, weapon, at);
    if (r !== RULES_OK) return refuse(out, shooter, r);
    out.kind = VerdictKind.ACTION;
    out.reason = switching ? VerdictReason.OK_SWITCH : VerdictReason.OK_RELOAD;
    out.fired = true;
    return out;
  }
  const rule = checkFire(after, weapon, at);
  if (rule !== RULES_OK) return refuse(out, shooter, rule);

  // 4. Render time
  const claimed = shot.renderTimeMs;
  if (claimed > at + config.futureSlackMs) return refuse(out, shooter, VerdictReason.TIME_FUTURE);
  if (claimed < at - config.rewindWindowMs - config.oldSlackMs) return refuse(out, shooter, VerdictReason.TIME_TOO_OLD);
  const estimate = at - timing.interpDelayMs;
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
  const newest = Math.min(at, timing.newestTickMs);
  const lo = Math.min(at - config.rewindWindowMs, newest);
  if (when < lo) {
    when = lo;
    source = TimeSource.CLAMPED;
  } else if (when > newest) {
    when = newest;
    source = TimeSource.CLAMPED;
  }
  out.rewindTimeMs = when;
  out.timeSource = source;

  // 5. Geometry of the claim
  const dx = shot.ex - shot.sx;
  const dy = shot.ey - shot.sy;
  const dz = shot.ez - shot.sz;
  const len2 = dx * dx + dy * dy + dz * dz;
  if (!(len2 > 1e-12)) return refuse(out, shooter, VerdictReason.DEGENERATE);
  if (len2 > weapon.rangeM * weapon.rangeM) return refuse(out, shooter, VerdictReason.OUT_OF_RANGE);
  // Eye path: eye at the rewound time (A) to eye at the newest tick (B).
  if (!rewindStatusUsable(history.sampleAt(scratchPose, when, scene.eyePolicy))) return refuse(out, shooter, VerdictReason.NO_SHOOTER);
  let ax = scratchPose.x, ay = scratchPose.y + config.eyeHeightM, az = scratchPose.z;
  const epochA = scratchPose.epoch;
  const newestEye = Math.max(when, timing.newestTickMs);
  if (!rewindStatusUsable(history.sampleAt(scratchPose, newestEye, scene.eyePolicy))) return refuse(out, shooter, VerdictReason.NO_SHOOTER);
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
  out.originOffsetM = Math.sqrt(off2);
  if (off2 > config.originToleranceM * config.originToleranceM) return refuse(out, shooter, VerdictReason.ORIGIN_MISMATCH);
  if (off2 > 1e-12 && scene.world.anyHit(cx, cy, cz, shot.sx, shot.sy, shot.sz)) return refuse(out, shooter, VerdictReason.START_BLOCKED);

  // The shot is fired: use a round and a fire interval.
  out.fired = true;
  applyFire(after, weapon, at);

  // 6. Replay
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
    // With shots in flight honoured, a player killed after the shot was fired (alive in its history
    // at the action time) still stands where the shooter saw it (the rewinder skips whoever was
    // dead at the rewound time); the room applies no damage. One already dead when it was fired is not.
    let live = i !== shooter.slot && (targets.lifeStartMs[i] ?? Infinity) <= when;
    if (live && targets.alive[i] !== true) live = inFlight && aliveAt(scene.histories[i], at, scene.eyePolicy);
    scratchMasked[i] = live ? scene.histories[i] : undefined;
  }
  const bh = scratchBoxHit;
  const boxHit = scene.rewinder.firstHit(bh, scratchMasked, when, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez, shooter.slot, 1);
  for (let i = 0; i < n; i++) scratchMasked[i] = undefined; // drop references between calls

  // 7. Verdict
  if (boxHit && (!worldHit || bh.t < wh.t)) {
    out.target = bh.player;
    out.zone = bh.zone;
    out.targetRewindStatus = bh.status;
    out.t = bh.t;
    out.x = bh.x; out.y = bh.y; out.z = bh.z;
    out.nx = bh.nx; out.ny = bh.ny; out.nz = bh.nz;
    if (!visibleFromEye(scene.world, bh.x, bh.y, bh.z, cx, cy, cz, ax, ay, az, bx, by, bz)) {
      out.kind = VerdictKind.REJECTED;
      out.reason = VerdictReason.NOT_VISIBLE;
      return out;
    }
    out.kind = VerdictKind.HIT;
    out.reason = VerdictReason.OK_HIT;
    out.bone = bh.bone;
    out.hitbox = bh.hitbox;
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

const scratchRoot = new Float64Array(4);

/** Whether the history has its player alive at `timeMs` (its newest snapshot for later times). */
function aliveAt(history: PlayerHistory | undefined, timeMs: number, policy: RewindPolicy): boolean {
  return history !== undefined && rewindStatusUsable(history.sampleRootAt(scratchRoot, timeMs, policy)) && scratchRoot[3] === 1;
}

/**
 * A dead shooter's message was sent before the death reached it: its action time is no later than
 * the kill, and it arrived no later after that time than the clock estimate's error plus a one-way
 * trip allow (futureSlackMs + a round trip). A client that backdates its action gains at most a
 * round trip of shots it could have fired alive.
 */
function firedAlive(at: number, now: number, rtt: number, diedMs: number | undefined, config: ValidationConfig): boolean {
  return diedMs !== undefined && at <= diedMs && now - at <= config.futureSlackMs + rtt;
}
