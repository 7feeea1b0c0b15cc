/**
 * Backtracking: shoot where a target was well before the rewind window allows, claiming that old
 * render time (older than the window plus its slack). Expected: TIME_TOO_OLD.
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { Cadence } from './common';

export function backtrackProfile(): Profile {
  const cadence = new Cadence(300);
  const eye = new Float64Array(3);
  const p = new Float64Array(3);
  return {
    name: 'backtrack',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !bot.canFire(now)) return false;
      const v = bot.opts.validation;
      // Older than receive - window - slack even if the shot arrived at once.
      const old = bot.clock.serverNow(now) - (v.rewindWindowMs + v.oldSlackMs + bot.rng.uniform(80, 300));
      bot.eye(eye);
      const target = bot.findTarget(eye, bot.renderTime(now), true, 60, false);
      if (target < 0 || !bot.zonePoint(p, target, old, HitZone.UPPER_TORSO)) return false;
      bot.fire(bot.makeShot(eye, p[0]!, p[1]!, p[2]!, bot.shotLength(), old, target), Intent.INVALID, 'TIME_TOO_OLD');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
