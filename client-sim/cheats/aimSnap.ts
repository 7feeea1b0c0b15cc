/**
 * Aim snapping: the instant a target is visible the aim jumps to the centre of its head and fires,
 * with no reaction time and no noise. The geometry is valid, so the server accepts these shots; they
 * are counted apart and left to the audit's statistics (reaction time, accuracy), not rejected.
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { acquire } from './common';
import { encodeShot, SHOT_BYTES } from '../../shared/protocol/shot';
import { VerdictKind } from '../../shared/validate/verdict';

const buf = new Uint8Array(SHOT_BYTES);

export function aimSnapProfile(): Profile {
  return {
    name: 'aimSnap',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) return false;
      const a = acquire(bot, now, true, 60, HitZone.HEAD);
      if (a === null) return false;
      if (!bot.canFire(now)) return true;
      // Like an aimbot's visibility check on the aimed bone: fire only when the shot would hit.
      const shot = bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, a.target);
      if (bot.predict(encodeShot(buf, shot), now).kind !== VerdictKind.HIT) {
        bot.seq--; // not sent: the number stays free
        return false;
      }
      bot.fire(shot, Intent.AIM_SNAP);
      bot.bookShot(now, bot.weapon().fireIntervalMs + 2 * bot.opts.net.jitterMs + 10);
      return true;
    },
  };
}
