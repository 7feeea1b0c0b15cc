/**
 * The shot pipeline's times (./shot runs them): the action time against arrival and the shooter
 * (step 2), the rewound render time every target is posed at (step 4), and where the shooter's
 * eye path ends (step 5). Each refusing check returns its VerdictReason or RULES_OK; results the
 * later steps need are written into the verdict. No clock: every time comes in the arguments.
 */
import type { PlayerHistory } from '../lagcomp/history';
import type { ShotMessage } from '../protocol/shot';
import { fireLagLimitMs, type ShotScene, type ShotTiming, type ValidationConfig } from './rules';
import { TimeSource, VerdictReason, type ShooterState, type Verdict } from './verdict';
import { RULES_OK } from './weaponRules';

/** The round trip as the pipeline counts it, capped at maxRttMs (steps 2 and 5 compute it alike: the same bits). */
export function cappedRtt(config: ValidationConfig, timing: ShotTiming): number {
  return Math.min(timing.rttMs, config.maxRttMs);
}

/**
 * Step 2: the action time against arrival and the shooter: alive (or dead since the action, with
 * honourShotsInFlight), known, not stated in the future or too long ago, after its previous action
 * and not behind its own input stream. Returns RULES_OK or the reason.
 */
export function checkActionTime(scene: ShotScene, config: ValidationConfig, shot: ShotMessage, shooter: ShooterState, timing: ShotTiming): number {
  const inFlight = config.honourShotsInFlight === true;
  if (!shooter.alive && !inFlight) return VerdictReason.SHOOTER_DEAD;
  if (scene.histories[shooter.slot] === undefined) return VerdictReason.NO_SHOOTER;
  const now = timing.receiveTimeMs;
  const at = shot.timeMs;
  const rtt = cappedRtt(config, timing);
  if (at > now + config.futureSlackMs + rtt / 2) return VerdictReason.TIME_FUTURE;
  if (at < now - fireLagLimitMs(config, rtt)) return VerdictReason.TIME_TOO_OLD;
  if (!shooter.alive && !firedAlive(at, now, rtt, timing.shooterDiedMs, timing.streamFloorMs, config)) return VerdictReason.SHOOTER_DEAD;
  if (at < shooter.lastActionMs) return VerdictReason.ACTION_ORDER;
  const floor = timing.streamFloorMs;
  if (config.streamSlackMs !== undefined && floor !== undefined && at < floor - config.streamSlackMs) return VerdictReason.BACKDATED;
  return RULES_OK;
}

/**
 * A dead shooter's message was sent before the death reached it: its action time is no later than
 * the kill, or, with tradeSlackMs, than the kill plus half the round trip plus that slack (the
 * news of the kill takes a one-way trip to reach the client, it waits for the next patch, and the
 * client's clock and the trip wobble: until then the client plays on alive, and what it fires is a
 * trade). And either it arrived no later after that time than the clock estimate's error plus a
 * one-way trip allow (futureSlackMs + a round trip), or (with the stream rule, streamSlackMs) the
 * stream held it back: nothing its client stated later than that limit (plus futureSlackMs, the
 * clock estimate's error) arrived before it, so nothing was sent after the client could have learnt
 * of it. A client that backdates its action gains at most a round trip of shots it could have fired
 * alive, or, by falling silent from its death on, one claimed before the limit and sent within
 * its fire lag bound (fireLagLimitMs) of it; one that fires on after the news reached it gains at most tradeSlackMs less
 * the patch's wait and the trip's wobble.
 */
function firedAlive(at: number, now: number, rtt: number, diedMs: number | undefined, floorMs: number | undefined, config: ValidationConfig): boolean {
  if (diedMs === undefined) return false;
  const last = diedMs + tradeGraceMs(config, rtt);
  if (!(at <= last)) return false;
  if (now - at <= config.futureSlackMs + rtt) return true;
  return config.streamSlackMs !== undefined && floorMs !== undefined && floorMs <= last + config.futureSlackMs;
}

/**
 * How long after a death its news may still be on the way to a client with this (capped) round
 * trip, ms: half the round trip plus tradeSlackMs, or 0 without the trade rule (honourShotsInFlight
 * off, or tradeSlackMs absent). A shooter killed within it before its action is judged; a target
 * killed within it before the action still stands where the shooter saw it (./targets).
 */
export function tradeGraceMs(config: ValidationConfig, rtt: number): number {
  const slack = config.tradeSlackMs;
  return config.honourShotsInFlight === true && slack !== undefined && slack >= 0 ? rtt / 2 + slack : 0;
}

/**
 * The latest stamp of a killed player's moves the game must still step when they arrive after the
 * kill at `diedMs` (a stall held them): its client made them before it could know of the death, and
 * a shot it stated by then (honourShotsInFlight, within the trade window with tradeSlackMs) is
 * judged over an eye path that must hold them. The window is taken at the largest round trip the
 * rules count, whatever the player's own: a corpse's moves give nothing. -Infinity without
 * honourShotsInFlight.
 */
export function deadMovesUntilMs(config: ValidationConfig, diedMs: number): number {
  return config.honourShotsInFlight === true ? diedMs + tradeGraceMs(config, config.maxRttMs) : Number.NEGATIVE_INFINITY;
}

/**
 * Step 4: refuses a claimed render time later than the action (beyond futureSlackMs) or older than
 * the window plus oldSlackMs, then resolves the rewound time into out.rewindTimeMs
 * (resolveRenderTime). Returns RULES_OK or the reason.
 */
export function judgeRenderTime(out: Verdict, config: ValidationConfig, timing: ShotTiming, shot: ShotMessage): number {
  const at = shot.timeMs;
  const claimed = shot.renderTimeMs;
  if (claimed > at + config.futureSlackMs) return VerdictReason.TIME_FUTURE;
  if (claimed < at - config.rewindWindowMs - config.oldSlackMs) return VerdictReason.TIME_TOO_OLD;
  resolveRenderTime(out, config, timing, at, claimed);
  return RULES_OK;
}

/**
 * Step 4's rewound time, the time every target is posed at (Source-style): the claimed render time
 * when within claimToleranceMs of the estimate (action time - interpolation delay), else the
 * estimate; clamped to [action time - window, min(action time, newest tick)]. Writes estimateMs, rewindTimeMs (the
 * time) and timeSource into `out`.
 */
function resolveRenderTime(out: Verdict, config: ValidationConfig, timing: ShotTiming, at: number, claimed: number): void {
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
}

/**
 * Where the shooter's eye path ends, server ms: its newest snapshot whose input stamp is at most
 * the action time plus eyeStampSlackMs (the position after the moves its client made before it
 * fired, however late they arrived), or without stamps the action time plus half the round trip
 * plus futureSlackMs; never later than the newest tick, never before the rewound time. Before the
 * rule (eyeStampSlackMs absent) the newest tick.
 */
export function eyeEnd(history: PlayerHistory, config: ValidationConfig, timing: ShotTiming, when: number, at: number, rtt: number): number {
  const newest = timing.newestTickMs;
  const slack = config.eyeStampSlackMs;
  if (slack === undefined) return Math.max(when, newest);
  let end = history.stampedAtOrBefore(at + slack);
  if (!(end === end)) end = at + rtt / 2 + config.futureSlackMs;
  return Math.max(when, Math.min(end, newest));
}
