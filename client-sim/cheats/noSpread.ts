/**
 * No spread: every pellet of a shotgun pull stacked on the aim point (a pattern of radius 0, all
 * the damage where the crosshair is), at a visible player within 8 + 20 strength metres. Sent only
 * when the bot's own prediction refuses it for that. Expected: SPREAD_MISMATCH.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { pelletsOf, WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

export function noSpreadProfile(strength = 0.5): Profile {
  const s = checkStrength('noSpread', strength);
  const cadence = new Cadence(1000);
  const a = new Acquired();
  return {
    name: 'noSpread', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !a.find(bot, now, true, 8 + 20 * s)) return false;
      if (!equip(bot, now, WeaponId.SHOTGUN)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target, false);
      const n = pelletsOf(bot.weapon);
      for (let k = 0; k < n; k++) {
        m.pellets[3 * k] = m.ex; m.pellets[3 * k + 1] = m.ey; m.pellets[3 * k + 2] = m.ez;
      }
      m.pelletCount = n;
      bot.customPellets();
      if (bot.predict(m, now).reason !== VerdictReason.SPREAD_MISMATCH) return true;
      bot.send(m, Intent.INVALID, 'SPREAD_MISMATCH');
      cadence.done(now);
      return true;
    },
  };
}
