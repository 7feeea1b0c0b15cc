/**
 * Wall shots: fire at a player the bot cannot see, straight through the geometry between. Only
 * shots whose own prediction finds a hitbox behind the world's first hit are sent (a shot that
 * stops in the wall without anyone behind it is not a wall hack, just a miss). Expected: OCCLUDED.
 */
import { encodeShot, SHOT_BYTES } from '../../shared/protocol/shot';
import { VerdictReason } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { acquire, Cadence } from './common';

export function wallShotProfile(): Profile {
  const cadence = new Cadence(300);
  const buf = new Uint8Array(SHOT_BYTES);
  return {
    name: 'wallShot',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !bot.canFire(now)) return false;
      const a = acquire(bot, now, false);
      if (a === null) return false;
      const shot = bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, a.target);
      if (bot.predict(encodeShot(buf, shot), now).reason !== VerdictReason.OCCLUDED) return false;
      bot.fire(shot, Intent.INVALID, 'OCCLUDED');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
