/**
 * The weapon-message pipeline: one pure function from a message as received (its bytes) plus plain
 * numbers (receive time, interpolation delay, the shooter's rules state, who is alive) and the
 * match's immutable data (world, rig, weapon table, snapshot histories) to a Verdict. No clock, no
 * I/O, no randomness: the audit replays it from the log and must get the same bits.
 *
 * Steps (each rejection names its own VerdictReason; steps 2 and 4 and the eye path's end in times.ts):
 * 1. Structure: frame (length, version, action), finite numbers, sane magnitudes, known weapon,
 *    valid claimed target, seq strictly increasing, not aimed at oneself. From here on the seq
 *    counts as used, so the same bytes replayed are refused.
 * 2. Action time: the client's claimed time of the action, bounded against arrival: no later than
 *    receive + futureSlackMs + rtt/2 (clock estimate error), no earlier than receive - maxFireLagMs (the one-way delay plus a lost
 *    segment and its lost retransmission on TCP; more at round trips above 100 ms: rules.ts
 *    fireLagLimitMs), never before the shooter's previous action.
 * 3. Shooter rules (weaponRules.ts), at the action time: alive (or, with honourShotsInFlight, dead
 *    since the action, or with tradeSlackMs since up to half a round trip plus that before it, and
 *    the message reached the server within a round trip of it); switch and reload are judged and
 *    carried out here (verdict ACTION); a shot needs the weapon carried, equipped, drawn, loaded,
 *    not reloading, and the fire clock. With weaponRules false the game keeps its own rules: a shot
 *    needs none of these, and a switch or reload is refused (RULES_OFF).
 * 4. Render time (Source-style): the shooter rendered others at action time - interpolation delay;
 *    the claimed render time is used when within claimToleranceMs of that estimate, the estimate
 *    otherwise, clamped to [action time - rewindWindowMs, min(action time, newest tick)]. A claim
 *    later than the action (beyond futureSlackMs) or older than the window plus oldSlackMs is rejected.
 * 5. Geometry of the claim (eyePath.ts): length within the weapon's range and non-zero; start within
 *    originToleranceM of the shooter's eye path between the rewound time and the newest tick (the
 *    eye at each end is the rewound root plus that snapshot's eye height, or the rules' one; the
 *    shooter's own client predicts itself ahead of the rewound time, so both ends are legitimate;
 *    across a respawn or teleport only the newest eye counts), and no world geometry between that
 *    eye point and the start. A melee weapon's swing (radius > 0) has the lesser meleeOriginToleranceM,
 *    so it reaches little beyond its range from the eye. Passing marks the shot as fired (a round
 *    and a fire interval are used; a melee weapon uses no round).
 * 5b. Pattern (spread.ts): a weapon with a spread pattern sends its aim as the segment and each
 *    pellet's stop; the server rebuilds the pull's pattern around the aim (spread seed, shooter,
 *    pulls fired before, spray heat) and refuses the whole pull when any claimed pellet strays (SPREAD_MISMATCH).
 *    The pellets judged are the server's rebuild.
 * 6. Replay, per pellet (pellets.ts; a single segment is one pellet): the world's first hit along the segment and the first hitbox hit of every other player
 *    alive now (or, with honourShotsInFlight, killed after the action time, or with tradeSlackMs after it less times.ts tradeGraceMs) whose current life began at or before the
 *    rewound time (so a respawned player is never hit in a pose from a previous life, and one dead at
 *    the rewound time not at all), who had not left the match by the action time, and who is not a
 *    teammate under friendly fire 'off' (targets.ts); the hitbox counts only before
 *    the world's hit. A hitbox behind the first world hit makes the shot OCCLUDED (a shot through a
 *    wall; the wall still gets the bullet hole). A hitbox hit whose point cannot be seen from the
 *    server's eye (the eye point nearest the start, or either end of the eye path) is NOT_VISIBLE:
 *    a start pushed past a corner within the origin tolerance does not reach around it.
 *    With penetration power a pellet passes walls it can pay for and players it hits (pellets.ts).
 *    A melee swing meets the players as a sphere of the weapon's radius swept along the segment and
 *    the world as a thin segment from the start to the contact (melee.ts).
 * 5c. A projectile weapon (weapon.projectile) is launched instead of replayed: verdict LAUNCH
 *    (OK_LAUNCH) with the eye point nearest the start and the claim's unit direction; the match
 *    flies it (shared/projectile) from the rewound time. Its claim needs only a length > 0 and
 *    within rangeM (step 5); no pattern, no pellets.
 * 7. Verdict: HIT (zone, damage = weapon damage x zone multiplier x the weapon's falloff at the hit's
 *    distance from the start, x the power left behind walls; 0 for a teammate under friendly fire
 *    'noDamage', OK_FRIENDLY), MISS, ACTION, or REJECTED. Each pellet's own end, hits and impacts
 *    are in verdict.pellets, hits and impacts; the top-level fields are the first hit's (or the
 *    first refusal's, or pellet 0's end).
 */
import { decodeShot, createShotMessage, FrameStatus, ShotAction, type ShotMessage } from '../protocol/shot';
import { hasPattern, isMelee, MAX_PELLETS, pelletsOf, weaponById, type WeaponSpec } from '../weapons';
import { copyShooterState, TimeSource, VerdictKind, VerdictReason, type ShooterState, type Verdict } from './verdict';
import { applyFire, applyReload, applySwitch, checkFire, RULES_OK } from './weaponRules';
import { createEyePath, judgeOrigin } from './eyePath';
import { maskTargets, releaseTargets } from './targets';
import { judgePellet, type PelletContext } from './pellets';
import { PATTERN_TOLERANCE, predictPellets } from './spread';
import { totalDamage } from './pelletVerdict';
import { cappedRtt, checkActionTime, eyeEnd, judgeRenderTime, tradeGraceMs } from './times';
import { MELEE_ORIGIN_TOLERANCE_M, type ShotScene, type ShotTargets, type ShotTiming, type ValidationConfig } from './rules';
export { VISIBILITY_BACKOFF_M } from './sight';
export { deadMovesUntilMs, tradeGraceMs } from './times';
export { defaultValidationConfig, EYE_STAMP_SLACK_MS, FIRE_LAG_BASE_RTT_MS, FIRE_LAG_PER_RTT, fireLagLimitMs, FRIENDLY_FIRE_POLICIES, MELEE_ORIGIN_TOLERANCE_M, ORIGIN_TOLERANCE_M, STREAM_SLACK_MS, TRADE_SLACK_MS, rewindReachMs, type FriendlyFire, type ShotScene, type ShotTargets, type ShotTiming, type ValidationConfig } from './rules';

// scratch (module level, reused by every call; the pipeline is synchronous and re-entrant-free)
const scratchShot = createShotMessage();
const eye = createEyePath();
/** The pellets' stop points as the server rebuilds them (3 per pellet). */
const rebuilt = new Float64Array(3 * MAX_PELLETS);
const pelletContext: PelletContext = {
  scene: undefined as unknown as ShotScene, config: undefined as unknown as ValidationConfig, targets: undefined as unknown as ShotTargets,
  weapon: undefined as unknown as WeaponSpec, shooter: -1, masked: [], whenMs: 0.5, eye, rank: 0, seg: new Float64Array(6),
};

function reject(out: Verdict, reason: number): Verdict {
  out.kind = VerdictKind.REJECTED;
  out.reason = reason as VerdictReason;
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
  out.pellets.count = 0;
  out.hits.count = 0;
  out.impacts.count = 0;
}

/**
 * Judges one shot. `bytes` is the payload exactly as received (anything: a hostile client may send
 * any type). `shooter` is read only; the state after the shot is written to out.after. Never throws
 * for any input; returns `out`. Each step below is one function; a step that refuses returns its
 * reason (RULES_OK when it passes), and the values later steps need travel in `out` and the decoded
 * message, so no step allocates.
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
  const weapon = checkStructure(out, shot, config, bytes, shooter);
  if (weapon === undefined) return out;

  // 2. Action time
  const timeRule = checkActionTime(scene, config, shot, shooter, timing);
  if (timeRule !== RULES_OK) return reject(out, timeRule);

  // 3. Shooter rules, on the state after (restored by `refuse` when the message is refused)
  if (shot.action === ShotAction.SWITCH || shot.action === ShotAction.RELOAD) return judgeAction(out, config, shot, shooter, weapon);
  const rules = config.weaponRules !== false;
  if (rules) {
    const rule = checkFire(out.after, weapon, shot.timeMs);
    if (rule !== RULES_OK) return refuse(out, shooter, rule);
  }

  // 4. Render time
  const renderRule = judgeRenderTime(out, config, timing, shot);
  if (renderRule !== RULES_OK) return refuse(out, shooter, renderRule);

  // 5. Geometry of the claim
  const claimRule = judgeClaim(out, scene, config, timing, shot, shooter, weapon);
  if (claimRule !== RULES_OK) return refuse(out, shooter, claimRule);

  // 5c. A projectile weapon: launched from the eye point nearest the start along the claim (no hit test)
  if (weapon.projectile !== undefined) return launch(out, shot, weapon, rules);

  // 5b. Pattern
  const pellets = pelletsFor(out, config, shot, shooter, weapon);
  if (pellets < 0) return refuse(out, shooter, VerdictReason.SPREAD_MISMATCH);

  // The shot is fired: use a round and a fire interval (the game's own rules count them when ours are off).
  out.fired = true;
  if (rules) applyFire(out.after, weapon, shot.timeMs);
  else {
    out.after.lastActionMs = shot.timeMs;
    out.after.pulls++;
  }

  // 6 and 7. Replay and verdict, pellet by pellet
  return judgePull(out, scene, config, targets, shot, shooter, weapon, pellets, shot.timeMs - tradeGraceMs(config, cappedRtt(config, timing)));
}

/**
 * Step 5c: a projectile weapon's shot is fired (a round and the fire interval used) and launched:
 * verdict LAUNCH, OK_LAUNCH; x, y, z the server's eye point nearest the claimed start (eyePath.ts),
 * nx, ny, nz the claim's unit direction. The claim's length only had to be > 0 and within rangeM.
 */
function launch(out: Verdict, shot: ShotMessage, weapon: WeaponSpec, rules: boolean): Verdict {
  out.fired = true;
  if (rules) applyFire(out.after, weapon, shot.timeMs);
  else {
    out.after.lastActionMs = shot.timeMs;
    out.after.pulls++;
  }
  const len = Math.sqrt(claimLength2(shot));
  out.kind = VerdictKind.LAUNCH;
  out.reason = VerdictReason.OK_LAUNCH;
  out.x = eye.cx; out.y = eye.cy; out.z = eye.cz;
  out.nx = (shot.ex - shot.sx) / len; out.ny = (shot.ey - shot.sy) / len; out.nz = (shot.ez - shot.sz) / len;
  return out;
}

/**
 * Step 1: decodes the frame into `shot` and checks what needs no match state: finite and sane
 * numbers, a known weapon, a valid claimed target, a new seq (used from here on, whatever the
 * outcome), not aimed at oneself. Returns the weapon, or undefined when `out` is a rejection.
 */
function checkStructure(out: Verdict, shot: ShotMessage, config: ValidationConfig, bytes: unknown, shooter: ShooterState): WeaponSpec | undefined {
  const frame = decodeShot(shot, bytes);
  out.seq = shot.seq;
  if (frame === FrameStatus.OVERSIZED) return void reject(out, VerdictReason.OVERSIZED);
  if (frame !== FrameStatus.OK) return void reject(out, VerdictReason.MALFORMED);
  out.weapon = shot.weapon;
  const fire = shot.action === ShotAction.FIRE;
  if (!finite(shot.timeMs) || (fire && (!finite(shot.renderTimeMs) || !finite(shot.sx) || !finite(shot.sy) || !finite(shot.sz) || !finite(shot.ex) || !finite(shot.ey) || !finite(shot.ez)))) {
    return void reject(out, VerdictReason.NON_FINITE);
  }
  const mc = config.maxCoordinate;
  if (Math.abs(shot.timeMs) > config.maxTimeMs || (fire && (Math.abs(shot.sx) > mc || Math.abs(shot.sy) > mc || Math.abs(shot.sz) > mc || Math.abs(shot.ex) > mc || Math.abs(shot.ey) > mc || Math.abs(shot.ez) > mc || Math.abs(shot.renderTimeMs) > config.maxTimeMs))) {
    return void reject(out, VerdictReason.OUT_OF_BOUNDS);
  }
  for (let i = 0; i < 3 * shot.pelletCount; i++) {
    const c = shot.pellets[i]!;
    if (!finite(c)) return void reject(out, VerdictReason.NON_FINITE);
    if (Math.abs(c) > mc) return void reject(out, VerdictReason.OUT_OF_BOUNDS);
  }
  const weapon = weaponById(config.weapons, shot.weapon);
  if (weapon === undefined) return void reject(out, VerdictReason.UNKNOWN_WEAPON);
  if (fire && (shot.claimedTarget < -1 || shot.claimedTarget >= config.maxPlayers)) return void reject(out, VerdictReason.BAD_TARGET);
  if (shooter.slot < 0 || shooter.slot >= config.maxPlayers) return void reject(out, VerdictReason.NO_SHOOTER);
  if (shot.seq <= shooter.lastSeq) return void reject(out, VerdictReason.SEQ_REPLAYED);
  out.after.lastSeq = shot.seq; // the seq is used from here on, whatever the outcome
  if (fire && shot.claimedTarget === shooter.slot) return void reject(out, VerdictReason.SELF_TARGET);
  if (fire && shot.pelletCount !== (hasPattern(weapon) ? pelletsOf(weapon) : 0)) return void reject(out, VerdictReason.PELLET_COUNT);
  return weapon;
}

/** The claim's squared length (steps 5 and 7 compute it alike: the same bits). */
function claimLength2(shot: ShotMessage): number {
  const dx = shot.ex - shot.sx;
  const dy = shot.ey - shot.sy;
  const dz = shot.ez - shot.sz;
  return dx * dx + dy * dy + dz * dz;
}

/** Step 3 for a switch or a reload: judged and carried out on out.after (verdict ACTION), or refused. */
function judgeAction(out: Verdict, config: ValidationConfig, shot: ShotMessage, shooter: ShooterState, weapon: WeaponSpec): Verdict {
  if (config.weaponRules === false) return refuse(out, shooter, VerdictReason.RULES_OFF);
  const switching = shot.action === ShotAction.SWITCH;
  const at = shot.timeMs;
  const r = switching ? applySwitch(out.after, config.weapons, weapon, at) : applyReload(out.after, weapon, at);
  if (r !== RULES_OK) return refuse(out, shooter, r);
  out.kind = VerdictKind.ACTION;
  out.reason = switching ? VerdictReason.OK_SWITCH : VerdictReason.OK_RELOAD;
  out.fired = true;
  return out;
}

/**
 * Step 5: the claim's length (non-zero, within the weapon's range) and its start against the
 * shooter's eye path at the rewound time (eyePath.ts, which fills the module's `eye`). Returns
 * RULES_OK or the reason.
 */
function judgeClaim(out: Verdict, scene: ShotScene, config: ValidationConfig, timing: ShotTiming, shot: ShotMessage, shooter: ShooterState, weapon: WeaponSpec): number {
  const len2 = claimLength2(shot);
  if (!(len2 > 1e-12)) return VerdictReason.DEGENERATE;
  if (len2 > weapon.rangeM * weapon.rangeM) return VerdictReason.OUT_OF_RANGE;
  const history = scene.histories[shooter.slot]!; // step 2 refused a shooter without one
  const when = out.rewindTimeMs;
  const end = eyeEnd(history, config, timing, when, shot.timeMs, cappedRtt(config, timing));
  const tolerance = isMelee(weapon) ? Math.min(config.originToleranceM, config.meleeOriginToleranceM ?? MELEE_ORIGIN_TOLERANCE_M) : config.originToleranceM;
  return judgeOrigin(eye, out, scene, config, history, when, end, shot.sx, shot.sy, shot.sz, tolerance);
}

/**
 * Step 5b: the pellets to judge, as stop points in `rebuilt`: the aim's stop for a weapon without
 * a pattern; else the pull's pattern rebuilt around the aim, each claimed pellet checked against
 * it (out.pellets says which strayed). Returns the pellet count, or -1 when a pellet strayed.
 */
function pelletsFor(out: Verdict, config: ValidationConfig, shot: ShotMessage, shooter: ShooterState, weapon: WeaponSpec): number {
  if (!hasPattern(weapon)) {
    rebuilt[0] = shot.ex; rebuilt[1] = shot.ey; rebuilt[2] = shot.ez;
    return 1;
  }
  const n = predictPellets(rebuilt, config.spreadSeed ?? 0, shooter, weapon, shot.timeMs, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez);
  const tol = PATTERN_TOLERANCE * Math.sqrt(claimLength2(shot)) + 1e-6;
  const p = out.pellets;
  p.count = n;
  let strayed = false;
  for (let k = 0; k < n; k++) {
    const dx = shot.pellets[3 * k]! - rebuilt[3 * k]!, dy = shot.pellets[3 * k + 1]! - rebuilt[3 * k + 1]!, dz = shot.pellets[3 * k + 2]! - rebuilt[3 * k + 2]!;
    const off = dx * dx + dy * dy + dz * dz > tol * tol;
    p.reason[k] = off ? VerdictReason.SPREAD_MISMATCH : -1;
    p.ex[k] = rebuilt[3 * k]!; p.ey[k] = rebuilt[3 * k + 1]!; p.ez[k] = rebuilt[3 * k + 2]!;
    p.stopT[k] = -1; p.target[k] = -1; p.walls[k] = 0;
    p.px[k] = Number.NaN; p.py[k] = Number.NaN; p.pz[k] = Number.NaN;
    if (off) strayed = true;
  }
  return strayed ? -1 : n;
}

/**
 * Steps 6 and 7 for each pellet (pellets.ts), among the players that may be hit at the rewound
 * time (targets.ts). The top-level fields take the first hit, else the first refusal, else pellet
 * 0's end; damage is the sum of the hits'.
 */
function judgePull(
  out: Verdict, scene: ShotScene, config: ValidationConfig, targets: ShotTargets, shot: ShotMessage,
  shooter: ShooterState, weapon: WeaponSpec, pellets: number, aliveByMs: number,
): Verdict {
  const when = out.rewindTimeMs;
  const c = pelletContext;
  c.scene = scene; c.config = config; c.targets = targets; c.weapon = weapon; c.shooter = shooter.slot;
  c.masked = maskTargets(scene, config, targets, shooter.slot, when, shot.timeMs, config.honourShotsInFlight === true, aliveByMs);
  c.whenMs = when;
  c.rank = 0;
  out.pellets.count = pellets;
  const g = c.seg;
  g[0] = shot.sx; g[1] = shot.sy; g[2] = shot.sz;
  for (let k = 0; k < pellets; k++) {
    g[3] = rebuilt[3 * k]!; g[4] = rebuilt[3 * k + 1]!; g[5] = rebuilt[3 * k + 2]!;
    judgePellet(out, c, k);
  }
  releaseTargets(c.masked);
  out.damage = totalDamage(out.hits);
  return out;
}
