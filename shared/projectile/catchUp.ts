/**
 * Catch-up of a projectile fired in the past (the pure part of the server's spawn policy, see
 * ./flight): the shot is spawned at the shooter's eye at its rewound fire time; the server flies it
 * at once from that time to the present, each sub-step against the players rewound to the time the
 * sub-step starts, then steps it with its ticks against the present players. The span caught up is
 * capped (MAX_CATCH_UP_MS): an older shot starts its flight late by the excess, so a shooter's high
 * latency never lets its projectile act on the targets further in the past than the cap.
 */
import type { PlayerHistory } from '../lagcomp/history';
import type { VolumeRewinder } from '../lagcomp/rewindVolume';
import type { ProjectileSpec } from '../weapons';
import type { World } from '../world/world';
import { advanceProjectile, clearFlightEvent, FlightEventKind, type FlightEvent, type ProjectileState } from './flight';

/** Longest span of a flight caught up against rewound players, ms. */
export const MAX_CATCH_UP_MS = 100;

/**
 * Server time at which a projectile fired at fireTimeMs (the shooter's rewound time) starts its
 * flight when the server learns of it at nowMs: max(fireTimeMs, nowMs - maxCatchUpMs), never after
 * nowMs. NaN for non-finite input.
 */
export function catchUpStartMs(fireTimeMs: number, nowMs: number, maxCatchUpMs: number = MAX_CATCH_UP_MS): number {
  const check = fireTimeMs + nowMs + maxCatchUpMs;
  if (!(check - check === 0) || !(maxCatchUpMs >= 0)) return Number.NaN;
  const floor = nowMs - maxCatchUpMs;
  const start = fireTimeMs > floor ? fireTimeMs : floor;
  return start < nowMs ? start : nowMs;
}

/**
 * Flies `s` from server time fromTimeMs to toTimeMs in sub-steps of stepMs (the last one shorter),
 * each against the players posed at the sub-step's start time. Stops at the first event that ends
 * the flight. Writes `out` (cleared first; bounces and the first player touched accumulate over the
 * sub-steps) and returns out.kind. Nothing happens for toTimeMs <= fromTimeMs, stepMs <= 0 or NaN.
 */
export function catchUpProjectile(
  out: FlightEvent, s: ProjectileState, spec: ProjectileSpec, fromTimeMs: number, toTimeMs: number, stepMs: number,
  world: World | null, vol: VolumeRewinder | null, histories: ArrayLike<PlayerHistory | undefined>,
): FlightEventKind {
  clearFlightEvent(out);
  if (!(stepMs > 0) || !(toTimeMs - fromTimeMs > 0) || !(toTimeMs - fromTimeMs < Infinity)) return out.kind;
  // Sub-step k starts at from + k step (not a running sum), so its time has no accumulated rounding.
  for (let k = 0; s.alive; k++) {
    const t = fromTimeMs + k * stepMs;
    if (!(t < toTimeMs)) break;
    const next = t + stepMs;
    const dt = (next < toTimeMs ? next : toTimeMs) - t;
    if (advanceProjectile(out, s, spec, dt, world, vol, histories, t) !== FlightEventKind.NONE) break;
  }
  return out.kind;
}

/**
 * Whole sub-steps of stepMs from startMs that fit by timeMs (0 when none, or for NaN or stepMs <= 0).
 * A flight is flown on this grid: sub-step k covers startMs + k stepMs to startMs + (k + 1) stepMs.
 */
export function gridSteps(startMs: number, timeMs: number, stepMs: number): number {
  if (!(stepMs > 0)) return 0;
  const n = Math.floor((timeMs - startMs) / stepMs);
  return n > 0 ? n : 0;
}

/**
 * Flies `s` through grid sub-steps fromStep .. toStep - 1 of a flight that started at startMs, each
 * of exactly stepMs against the players posed at its start (startMs + k stepMs). The flight's path
 * then depends only on its launch and the grid, never on how the calls split the time, so a client
 * that flies its own launch frame by frame meets the level exactly where the server does. Stops at
 * the first event that ends the flight; writes `out` (cleared first) and returns out.kind.
 */
export function flyGridSteps(
  out: FlightEvent, s: ProjectileState, spec: ProjectileSpec, startMs: number, fromStep: number, toStep: number, stepMs: number,
  world: World | null, vol: VolumeRewinder | null, histories: ArrayLike<PlayerHistory | undefined>,
): FlightEventKind {
  clearFlightEvent(out);
  if (!(stepMs > 0)) return out.kind;
  for (let k = fromStep; k < toStep && s.alive; k++) {
    if (advanceProjectile(out, s, spec, stepMs, world, vol, histories, startMs + k * stepMs) !== FlightEventKind.NONE) break;
  }
  return out.kind;
}
