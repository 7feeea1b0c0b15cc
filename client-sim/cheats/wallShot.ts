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
      // This cheater only ever shoots through walls (it never takes an open shot), so it looks for a
      // hidden target every frame it may fire.
      if (!bot.aliveKnown()) return false;
      if (!cadence.due(now) || !bot.canFire(now)) return true;
      // Anyone behind geometry within the weapon's reach will do.
      const a = acquire(bot, now, false, bot.weapon().rangeM * 0.9);
      if (a === null) return true;
      const shot = bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, a.target, false);
      if (bot.predict(encodeShot(buf, shot), now).reason !== VerdictReason.OCCLUDED) {
        bot.seq--; // not sent: the number stays free
        return true;
      }
      bot.fire(shot, Intent.INVALID, 'OCCLUDED');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
