/**
 * Pellet stacking: a shotgun pull with more pellets than the weapon fires, every one of them drawn
 * from the pull's own pattern (the first ones exactly what the server rebuilds, the extra ones
 * where the pattern would put them): round(pellets x (1.25 + 0.75 strength)), at most MAX_PELLETS.
 * Expected: PELLET_COUNT.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { MAX_PELLETS, pelletsOf, WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip, patternPellets } from './pelletCommon';

export function pelletStackProfile(strength = 0.5): Profile {
  const s = checkStrength('pelletStack', strength);
  const cadence = new Cadence(1000);
  const a = new Acquired();
  return {
    name: 'pelletStack', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !a.find(bot, now, true, 20)) return false;
      if (!equip(bot, now, WeaponId.SHOTGUN)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const w = bot.weapon;
      const count = Math.min(MAX_PELLETS, Math.max(pelletsOf(w) + 1, Math.round(pelletsOf(w) * (1.25 + 0.75 * s))));
      const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target, false);
      m.seq = bot.seq + 1;
      patternPellets(bot, m, w, bot.weapons.head.pulls, count);
      if (bot.predict(m, now).reason !== VerdictReason.PELLET_COUNT) return true;
      bot.send(m, Intent.INVALID, 'PELLET_COUNT');
      cadence.done(now);
      return true;
    },
  };
}
