/**
 * Fire-rate hack at the edge: sprays whose claimed action times are (1 - (0.05 + 0.45 strength))
 * fire intervals apart, a fire rate 1.05x (at strength 0) to 2x the weapon's. A shot the server's
 * fire clock refuses (the bot's mirrored rules state says which) is labelled FIRE_RATE; the ones
 * that come due again are ordinary shots.
 */
import { RULES_OK } from '../../shared/validate/weaponRules';
import { VerdictReason } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength } from './common';

export function fireRateProfile(strength = 0.5): Profile {
  const s = checkStrength('fireRate', strength);
  const cadence = new Cadence(400);
  const a = new Acquired();
  let last = Number.NEGATIVE_INFINITY;
  let left = 0;
  return {
    name: 'fireRate', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) {
        left = 0;
        return false;
      }
      if (left === 0) {
        if (!cadence.due(now) || !a.find(bot, now, true)) return false;
        left = 6;
        last = Number.NEGATIVE_INFINITY;
      } else if (!a.find(bot, now, true)) {
        left = 0;
        cadence.done(now);
        return false;
      }
      const w = bot.weapon;
      const server = bot.serverNow(now);
      const gap = w.fireIntervalMs * (1 - (0.05 + 0.45 * s));
      const at = last === Number.NEGATIVE_INFINITY ? bot.clock.stamp(now) : last + gap;
      if (at > server) return true; // not due yet
      const rule = bot.weapons.fireCheck(at);
      if (rule !== RULES_OK && rule !== VerdictReason.FIRE_RATE) {
        left = 0;
        return false;
      }
      const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target);
      if (rule === VerdictReason.FIRE_RATE) bot.send(m, Intent.INVALID, 'FIRE_RATE');
      else bot.send(m, Intent.VALID);
      last = at;
      if (--left === 0) cadence.done(now);
      return true;
    },
  };
}
