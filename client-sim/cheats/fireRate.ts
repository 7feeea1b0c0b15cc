/**
 * Fire-rate hack: one ordinary shot, then three more in the same frame (the weapon allows one per
 * fireIntervalMs). The first is valid; the rest are expected FIRE_RATE.
 */
import { Intent, type Bot, type Profile } from '../bot';
import { acquire, Cadence } from './common';

export function fireRateProfile(): Profile {
  const cadence = new Cadence(400);
  return {
    name: 'fireRate',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !bot.canFire(now)) return false;
      const a = acquire(bot, now, true);
      if (a === null) return false;
      const range = bot.shotLength();
      bot.fire(bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, range, a.t), Intent.VALID);
      for (let k = 0; k < 3; k++) bot.fire(bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, range, a.t), Intent.INVALID, 'FIRE_RATE');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
