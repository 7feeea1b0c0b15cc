/**
 * Range extension at the edge: a segment just longer than the weapon reaches, rangeM * (1.001 +
 * 0.2 strength), through whatever is in the way. Expected: OUT_OF_RANGE.
 */
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function rangeExtensionProfile(strength = 0.5): Profile {
  const s = checkStrength('rangeExtension', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  return {
    name: 'rangeExtension', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!cadence.due(now) || !a.find(bot, now, true)) return false;
      const at = fireTime(bot, now);
      if (!(at === at)) return false;
      const length = bot.weapon.rangeM * (1.001 + 0.2 * s);
      bot.send(bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, length, a.t, at, a.target, false), Intent.INVALID, 'OUT_OF_RANGE');
      cadence.done(now);
      return true;
    },
  };
}
