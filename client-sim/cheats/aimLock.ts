/**
 * Aim lock: the view turns (1 + 19 strength) times faster than a person's and locks onto the
 * target's head, tracking it through its movement and the bot's own strafing, while it sprays at
 * the weapon's full rate (claimed times exactly one interval apart) with the hand noise scaled by
 * (1 - strength). Rule-abiding: accepted; the audit must flag it.
 */
import { HitZone } from '../../shared/rig/rig';
import { RULES_OK } from '../../shared/validate/weaponRules';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, checkStrength } from './common';

export function aimLockProfile(strength = 0.8): Profile {
  const s = checkStrength('aimLock', strength);
  const a = new Acquired();
  const q = new Float64Array(3);
  let engaged = -1;
  return {
    name: 'aimLock', strength: s,
    frame(bot: Bot, now: number): boolean {
      bot.aim.turnScale = 1 + 19 * s;
      if (!bot.aliveKnown() || !a.find(bot, now, true, 60, HitZone.HEAD)) {
        engaged = -1;
        return false;
      }
      const aim = bot.aim;
      if (a.target !== engaged) {
        engaged = a.target;
        aim.engage(a.target, now, 1 - 0.7 * s);
      }
      if (now < aim.readyAt || aim.error() > 0.02) return true;
      const head = bot.weapons.head;
      const server = bot.serverNow(now);
      const at = head.nextFireMs <= server && server - head.nextFireMs < 48 && head.nextFireMs >= head.lastActionMs ? head.nextFireMs : bot.clock.stamp(now);
      if (at > server || bot.weapons.fireCheck(at) !== RULES_OK) return true;
      aim.humanPoint(q, a.point, a.dist, aim.readyAt + 1e6, 1 - s);
      bot.send(bot.fireMessage(bot.eyeNow, q[0]!, q[1]!, q[2]!, bot.shotLength(), a.t, at, a.target), Intent.INHUMAN);
      return true;
    },
  };
}
