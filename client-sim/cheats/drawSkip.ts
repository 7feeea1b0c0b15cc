/**
 * Firing without the draw time: switch weapons and fire before the new weapon is drawn, at
 * drawMs * (0.95 - 0.9 strength) after the switch. Expected: WEAPON_DRAWING. (The bot switches
 * between the rifle and the pistol and plays ordinarily in between.)
 */
import { ShotAction } from '../../shared/protocol/shot';
import { RULES_OK } from '../../shared/validate/weaponRules';
import { VerdictReason } from '../../shared/validate/verdict';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength } from './common';

export function drawSkipProfile(strength = 0.5): Profile {
  const s = checkStrength('drawSkip', strength);
  const cadence = new Cadence(900);
  const a = new Acquired();
  let switchedAt = Number.NaN;
  return {
    name: 'drawSkip', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) {
        switchedAt = Number.NaN;
        return false;
      }
      if (switchedAt === switchedAt) {
        // Fire early into the draw.
        const w = bot.weapon;
        const at = switchedAt + w.drawMs * (0.95 - 0.9 * s);
        if (bot.serverNow(now) < at) return true;
        switchedAt = Number.NaN;
        if (!a.find(bot, now, true) || bot.weapons.fireCheck(at) !== VerdictReason.WEAPON_DRAWING) return true;
        bot.send(bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target), Intent.INVALID, 'WEAPON_DRAWING');
        cadence.done(now);
        return true;
      }
      if (!cadence.due(now) || !a.find(bot, now, true)) return false;
      const at = bot.clock.stamp(now);
      const to = bot.weapons.head.equipped === WeaponId.RIFLE ? WeaponId.PISTOL : WeaponId.RIFLE;
      if (bot.weapons.switchCheck(at, to) !== RULES_OK) return false;
      bot.send(bot.actionMessage(ShotAction.SWITCH, to, at), Intent.VALID);
      switchedAt = at;
      return true;
    },
  };
}
