/**
 * Shared pieces of the cheat profiles: a cadence (a cheater cheats now and then and plays like
 * anyone else in between, so its valid shots keep the room's rules state realistic) and the aim
 * point of a visible target.
 */
import { HitZone } from '../../shared/rig/rig';
import type { Bot } from '../bot';

export class Cadence {
  private nextAt = 0;
  constructor(private readonly everyMs: number) {}

  due(now: number): boolean {
    return now >= this.nextAt;
  }

  done(now: number): void {
    this.nextAt = now + this.everyMs;
  }
}

/** Eye, render time and a target (visible or hidden) with its chest point; null when none. */
export function acquire(bot: Bot, now: number, visible: boolean, maxDist = 60, zone: number = HitZone.UPPER_TORSO): { eye: Float64Array; t: number; target: number; point: Float64Array } | null {
  const eye = bot.eye(new Float64Array(3));
  const t = bot.renderTime(now);
  const target = bot.findTarget(eye, t, visible, maxDist, false);
  if (target < 0) return null;
  const point = new Float64Array(3);
  if (!bot.zonePoint(point, target, t, zone)) return null;
  bot.lookAt(point[0]! - eye[0]!, point[1]! - eye[1]!, point[2]! - eye[2]!);
  return { eye, t, target, point };
}
