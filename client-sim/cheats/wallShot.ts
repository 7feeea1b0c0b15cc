/**
 * Wall shots: fire at a player the bot cannot see, straight through the geometry between. Only
 * shots whose own prediction finds a hitbox behind the world's first hit are sent (a shot that
 * stops in the wall with nobody behind it is a miss, not a wall hack). Expected: OCCLUDED.
 * Strength: the largest distance it shoots through walls at, 20 + 60 strength metres.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function wallShotProfile(strength = 0.5): Profile {
  const s = checkStrength('wallShot', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  return {
    name: 'wallShot', strength: s,
    frame(bot: Bot, now: number): boolean {
      // This cheater only ever shoots through walls (it never takes an open shot).
      if (!bot.aliveKnown()) return false;
      if (!cadence.due(now) || !a.find(bot, now, false, 20 + 60 * s)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target, false);
      if (bot.predict(m, now).reason !== VerdictReason.OCCLUDED) return true;
      bot.send(m, Intent.INVALID, 'OCCLUDED');
      cadence.done(now);
      return true;
    },
  };
}
