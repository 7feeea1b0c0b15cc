/**
 * Aim snapping: the instant a target is visible the aim jumps to the centre of its head and fires,
 * with no reaction time and no noise. The geometry is valid, so the server accepts these shots; they
 * are counted apart and left to the audit's statistics (reaction time, accuracy), not rejected.
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { acquire } from './common';

export function aimSnapProfile(): Profile {
  return {
    name: 'aimSnap',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) return false;
      const a = acquire(bot, now, true, 60, HitZone.HEAD);
      if (a === null) return false;
      if (!bot.canFire(now)) return true;
      bot.fire(bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, a.target), Intent.AIM_SNAP);
      bot.bookShot(now, bot.weapon().fireIntervalMs + 2 * bot.opts.net.jitterMs + 10);
      return true;
    },
  };
}
