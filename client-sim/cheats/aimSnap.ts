/**
 * Silent aim and flicks: the instant a target is visible the shot goes to the centre of its head
 * (the view still turns at a human rate: the aim is silent), with the reaction time scaled by
 * (1 - strength) and the hand noise by (1 - strength). Fires only when its own prediction says the
 * shot hits, as an aimbot's visibility check does. Valid geometry: accepted; the audit must flag it.
 */
import { HitZone } from '../../shared/rig/rig';
import { VerdictKind } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, checkStrength, fireTime } from './common';

export function aimSnapProfile(strength = 0.8): Profile {
  const s = checkStrength('aimSnap', strength);
  const a = new Acquired();
  const q = new Float64Array(3);
  let engaged = -1;
  return {
    name: 'aimSnap', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !a.find(bot, now, true, 60, HitZone.HEAD)) {
        engaged = -1;
        return false;
      }
      if (a.target !== engaged) {
        engaged = a.target;
        bot.aim.engage(a.target, now, 1 - s);
      }
      if (now < bot.aim.readyAt) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      bot.aim.humanPoint(q, a.point, a.dist, bot.aim.readyAt + 1e6, 1 - s);
      const m = bot.fireMessage(bot.eyeNow, q[0]!, q[1]!, q[2]!, bot.shotLength(), a.t, at, a.target);
      if (bot.predict(m, now).kind !== VerdictKind.HIT) return true;
      bot.send(m, Intent.INHUMAN);
      // Taps at twice the fire interval: fast, but no spray.
      bot.aim.readyAt = now + 2 * bot.weapon.fireIntervalMs;
      return true;
    },
  };
}
