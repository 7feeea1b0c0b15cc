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
      let leaderLost = bot.fire(bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, range, a.t), Intent.VALID).dropped;
      for (let k = 0; k < 3; k++) {
        // If the link lost the burst's first shot, the next one to arrive is within the fire rate:
        // label it valid (the bot does not know; the label is the report's ground truth).
        const log = bot.fire(bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, range, a.t), leaderLost ? Intent.VALID : Intent.INVALID, leaderLost ? null : 'FIRE_RATE');
        if (leaderLost && !log.dropped) leaderLost = false;
      }
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
