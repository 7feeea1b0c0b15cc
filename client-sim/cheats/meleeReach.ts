/**
 * Melee reach: knife swings at a visible player beyond the knife's reach, by turns a swing longer
 * than its range, rangeM * (1.05 + 0.5 strength), from the eye (expected OUT_OF_RANGE), and a swing
 * of the knife's length started ahead of the eye toward the target, past the melee origin
 * tolerance by 0.1 + 0.5 strength metres (expected ORIGIN_MISMATCH). Each sent only when the bot's
 * own prediction refuses it for that.
 */
import { VerdictReason, reasonName } from '../../shared/validate/verdict';
import { MELEE_ORIGIN_TOLERANCE_M } from '../../shared/validate/shot';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

export function meleeReachProfile(strength = 0.5): Profile {
  const s = checkStrength('meleeReach', strength);
  const cadence = new Cadence(500);
  const a = new Acquired();
  const start = new Float64Array(3);
  let turn = 0;
  return {
    name: 'meleeReach', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !a.find(bot, now, true, 8)) return false;
      if (!equip(bot, now, WeaponId.KNIFE)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const knife = bot.weapon;
      const eye = bot.eyeNow;
      const long = turn % 2 === 0;
      const push = Math.min(bot.rules.originToleranceM, bot.rules.meleeOriginToleranceM ?? MELEE_ORIGIN_TOLERANCE_M) + 0.1 + 0.5 * s;
      // The target must lie beyond the knife's reach from the eye, and beyond the pushed start.
      if (!(a.dist > knife.rangeM + 0.3) || (!long && !(a.dist > push + 0.5))) return true;
      const k = long ? 0 : push / a.dist;
      start[0] = eye[0]! + (a.point[0]! - eye[0]!) * k;
      start[1] = eye[1]! + (a.point[1]! - eye[1]!) * k;
      start[2] = eye[2]! + (a.point[2]! - eye[2]!) * k;
      const length = long ? knife.rangeM * (1.05 + 0.5 * s) : bot.shotLength(knife);
      const m = bot.fireMessage(start, a.point[0]!, a.point[1]!, a.point[2]!, length, a.t, at, a.target, false);
      const expected = long ? VerdictReason.OUT_OF_RANGE : VerdictReason.ORIGIN_MISMATCH;
      if (bot.predict(m, now).reason !== expected) return true;
      bot.send(m, Intent.INVALID, reasonName(expected));
      turn++;
      cadence.done(now);
      return true;
    },
  };
}
