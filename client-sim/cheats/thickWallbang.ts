/**
 * Wall-bangs through more wall than the round can pay for: the sniper rifle at a hidden player
 * behind at least 1 + strength metres of wall (the rifle's power passes about 0.6 m at
 * resistance 1), sent when its own prediction finds the player behind the wall that stops the
 * round. Expected: OCCLUDED.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';
import { wallsBetween } from '../walls';

export function thickWallbangProfile(strength = 0.5): Profile {
  const s = checkStrength('thickWallbang', strength);
  const cadence = new Cadence(1300);
  const a = new Acquired();
  const walls = new Float64Array(2);
  let thickest = 0, thinnest = Infinity;
  return {
    name: 'thickWallbang', strength: s,
    stats: () => ({ thinnestWallM: Number.isFinite(thinnest) ? thinnest : 0, thickestWallM: thickest }),
    frame(bot: Bot, now: number): boolean {
      // This cheater only ever shoots through walls (it never takes an open shot).
      if (!bot.aliveKnown()) return false;
      if (!cadence.due(now) || !a.find(bot, now, false, 80)) return true;
      const minWall = 1 + s;
      if (wallsBetween(walls, bot.view, bot.rules, bot.eyeNow, a.point)[0]! < minWall) {
        cadence.done(now, 100);
        return true;
      }
      if (!equip(bot, now, WeaponId.SNIPER)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const m = bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target, false);
      if (bot.predict(m, now).reason !== VerdictReason.OCCLUDED) {
        cadence.done(now, 100);
        return true;
      }
      bot.send(m, Intent.INVALID, 'OCCLUDED');
      thickest = Math.max(thickest, walls[0]!);
      thinnest = Math.min(thinnest, walls[0]!);
      cadence.done(now);
      return true;
    },
  };
}
