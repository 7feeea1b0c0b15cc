/**
 * Backtracking past the window: a render time just older than the oldest the server rewinds to
 * (action time - rewindWindowMs - oldSlackMs - (1 + 99 strength) ms), aimed at where the target
 * was then. Expected: TIME_TOO_OLD.
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function backtrackProfile(strength = 0.5): Profile {
  const s = checkStrength('backtrack', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  const p = new Float64Array(3);
  return {
    name: 'backtrack', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!cadence.due(now) || !a.find(bot, now, true)) return false;
      const at = fireTime(bot, now);
      if (!(at === at)) return false;
      const v = bot.opts.validation;
      const old = at - v.rewindWindowMs - v.oldSlackMs - (1 + 99 * s);
      if (!bot.zonePoint(p, a.target, old, HitZone.UPPER_TORSO)) return false;
      bot.send(bot.fireMessage(bot.eyeNow, p[0]!, p[1]!, p[2]!, bot.shotLength(), old, at, a.target), Intent.INVALID, 'TIME_TOO_OLD');
      cadence.done(now);
      return true;
    },
  };
}
