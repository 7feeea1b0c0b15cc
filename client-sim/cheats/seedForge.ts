/**
 * Forged patterns: a shotgun pull whose pellets come from another pull's pattern, the tightest of
 * the next 2 + 30 strength pulls (the pellets nearest the aim: the most on the target), as a client
 * shopping command numbers would. Each pellet is a true pattern pellet, of the wrong pull.
 * Expected: SPREAD_MISMATCH.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { patternOffsets } from '../../shared/validate/spread';
import { MAX_PELLETS, pelletsOf, WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip, patternPellets } from './pelletCommon';

export function seedForgeProfile(strength = 0.5): Profile {
  const s = checkStrength('seedForge', strength);
  const cadence = new Cadence(1000);
  const a = new Acquired();
  const offsets = new Float64Array(2 * MAX_PELLETS);
  let shifted = 0;
  return {
    name: 'seedForge', strength: s,
    stats: () => ({ lastPullShift: shifted }),
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !a.find(bot, now, true, 20)) return false;
      if (!equip(bot, now, WeaponId.SHOTGUN)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const w = bot.weapon;
      const n = pelletsOf(w);
      const seq = bot.seq + 1;
      const seed = bot.rules.spreadSeed ?? 0;
      const pull = bot.weapons.head.pulls;
      // The tightest pattern among the next pulls' (squared offsets summed over the unit disc).
      let best = pull + 1, bestSpread = Infinity;
      const tries = Math.round(2 + 30 * s);
      for (let q = pull + 1; q <= pull + tries; q++) {
        patternOffsets(offsets, seed, bot.slot, q, n);
        let sum = 0;
        for (let k = 0; k < n; k++) sum += offsets[2 * k]! * offsets[2 * k]! + offsets[2 * k + 1]! * offsets[2 * k + 1]!;
        if (sum < bestSpread) {
          bestSpread = sum;
          best = q;
        }
      }
      const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target, false);
      m.seq = seq;
      patternPellets(bot, m, w, best);
      if (bot.predict(m, now).reason !== VerdictReason.SPREAD_MISMATCH) return true;
      bot.send(m, Intent.INVALID, 'SPREAD_MISMATCH');
      shifted = best - pull;
      cadence.done(now);
      return true;
    },
  };
}
