/**
 * Shared pieces of the cheat profiles: strength handling, a cadence (a cheater cheats now and then
 * and plays like anyone else in between, so its valid shots keep the room's rules state
 * realistic), the aim point of a visible or hidden target, and the rules question every cheat asks
 * before sending (the bot's mirrored rules state, weaponState.ts, says what the server will do).
 */
import { HitZone } from '../../shared/rig/rig';
import { RULES_OK } from '../../shared/validate/weaponRules';
import type { Bot } from '../bot';

/** A strength in [0, 1]; anything else is refused. */
export function checkStrength(name: string, s: number): number {
  if (!(s >= 0 && s <= 1)) throw new RangeError(`${name}: strength ${s} must be in [0, 1]`);
  return s;
}

export class Cadence {
  private nextAt = 0;
  constructor(private readonly everyMs: number) {}

  due(now: number): boolean {
    return now >= this.nextAt;
  }

  done(now: number, everyMs = this.everyMs): void {
    this.nextAt = now + everyMs;
  }
}

/** A target found in the rendered view: slot, render time, aim point, distance. */
export class Acquired {
  target = -1;
  t = 0;
  dist = 0;
  readonly point = new Float64Array(3);

  /**
   * The nearest player whose chest is visible (or hidden) within maxDist, its `zone` point at the
   * render time, and (with `look`) the view turned toward it. False when none (or nothing buffered
   * at t yet).
   */
  find(bot: Bot, now: number, visible: boolean, maxDist = 60, zone: number = HitZone.UPPER_TORSO, look = true): boolean {
    const eye = bot.eyeNow;
    this.t = bot.renderTime(now);
    if (this.t > bot.view.newestTimeMs) return false; // would have to extrapolate: the server's pose may differ
    this.target = bot.findTarget(eye, this.t, visible, maxDist, false);
    if (this.target < 0 || !bot.zonePoint(this.point, this.target, this.t, zone)) return false;
    const dx = this.point[0]! - eye[0]!, dy = this.point[1]! - eye[1]!, dz = this.point[2]! - eye[2]!;
    this.dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (look) bot.aim.lookAt(dx, dy, dz);
    return true;
  }
}

/** An action time now at which the bot's rules state lets its equipped weapon fire, or NaN. */
export function fireTime(bot: Bot, now: number): number {
  if (!bot.aliveKnown()) return Number.NaN;
  const at = bot.clock.stamp(now);
  return bot.weapons.fireCheck(at) === RULES_OK ? at : Number.NaN;
}
