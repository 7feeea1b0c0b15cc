/**
 * Fire-rate hack at the edge: right behind an ordinary tap, a second shot claimed (0.05 + 0.45
 * strength) of a fire interval before the weapon may fire again (a fire rate 1.05x to 2x the
 * weapon's), sent the moment the bot's clock reaches that claim, so it is neither in the future nor
 * earlier than what its own stream has said. The fire clock is the bot's prediction of the tap
 * (weaponState.ts head). Expected: FIRE_RATE. One pair in flight at a time.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function fireRateProfile(strength = 0.5): Profile {
  const s = checkStrength('fireRate', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  // The claim of the cheat that follows the tap just sent (NaN: none pending), and the tap's weapon.
  let cheatAt = Number.NaN;
  let weapon = -1;
  return {
    name: 'fireRate', strength: s,
    frame(bot: Bot, now: number): boolean {
      const ws = bot.weapons;
      if (!bot.aliveKnown() || !a.find(bot, now, true)) return false;
      if (cheatAt === cheatAt) {
        if (bot.clock.stamp(now) < cheatAt) return true;
        const at = cheatAt;
        cheatAt = Number.NaN;
        if (bot.weapon.id !== weapon || ws.fireCheck(at) !== VerdictReason.FIRE_RATE) return true;
        const t = at - bot.opts.interpDelayMs;
        if (!bot.zonePoint(a.point, a.target, t, HitZone.UPPER_TORSO)) return true;
        const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), t, at, a.target);
        // A frame that came too late for the claim (its stream has moved on): no cheat this time.
        if (bot.predict(m, now).reason !== VerdictReason.FIRE_RATE) return true;
        bot.send(m, Intent.INVALID, 'FIRE_RATE');
        return true;
      }
      if (ws.inFlight > 0 || !cadence.due(now)) return true;
      // The tap the cheat is measured against.
      const tap = fireTime(bot, now);
      if (tap === tap) {
        bot.send(bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, tap, a.target), Intent.VALID);
        const w = bot.weapon;
        weapon = w.id;
        cheatAt = ws.head.nextFireMs - w.fireIntervalMs * (0.05 + 0.45 * s);
        cadence.done(now);
      }
      return true;
    },
  };
}
