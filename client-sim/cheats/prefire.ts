/**
 * Prefiring with wallhack knowledge: the view follows players hidden behind cover, and the bot
 * fires at where they are (the segment stops in the wall: an ordinary miss) on a share `strength`
 * of its chances; the moment one comes into sight it is shot at once, with no reaction time.
 * Rule-abiding: accepted; the audit must flag the aim at hidden players and the reaction.
 */
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function prefireProfile(strength = 0.8): Profile {
  const s = checkStrength('prefire', strength);
  const cadence = new Cadence(350);
  const hidden = new Acquired();
  const open = new Acquired();
  let tracked = -1;
  return {
    name: 'prefire', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) return false;
      if (open.find(bot, now, true, 40)) {
        if (open.target === tracked) {
          // It was followed through the wall: no reaction time.
          const at = fireTime(bot, now);
          if (at === at) bot.send(bot.fireMessage(bot.eyeNow, open.point[0]!, open.point[1]!, open.point[2]!, bot.shotLength(), open.t, at, open.target), Intent.INHUMAN);
          return true;
        }
        return false;
      }
      if (!hidden.find(bot, now, false, 30)) {
        tracked = -1;
        return false;
      }
      tracked = hidden.target;
      if (!cadence.due(now) || bot.rng.next() >= s) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      bot.send(bot.fireMessage(bot.eyeNow, hidden.point[0]!, hidden.point[1]!, hidden.point[2]!, bot.shotLength(), hidden.t, at, hidden.target), Intent.INHUMAN);
      cadence.done(now);
      return true;
    },
  };
}
