/** Range extension: a segment longer than the weapon reaches (1.2x to 3x). Expected: OUT_OF_RANGE. */
import { Intent, type Bot, type Profile } from '../bot';
import { acquire, Cadence } from './common';

export function rangeExtensionProfile(): Profile {
  const cadence = new Cadence(300);
  return {
    name: 'rangeExtension',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !bot.canFire(now)) return false;
      const a = acquire(bot, now, true);
      if (a === null) return false;
      const length = bot.weapon().rangeM * bot.rng.uniform(1.2, 3);
      bot.fire(bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, length, a.t, a.target, false), Intent.INVALID, 'OUT_OF_RANGE');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
