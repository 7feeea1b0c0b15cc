/**
 * Projectile speed: a rocket launched from a start pushed along the aim ahead of the eye, as if it
 * had already flown part of the way (a head start the flight would otherwise have to earn), by
 * originToleranceM + 0.5 + 3 strength metres (2 to 5 m at the default tolerance). The server
 * spawns a projectile only at its own eye point nearest the claimed start, and a start that far
 * from the eye path is refused. Sent only when the bot's own prediction refuses it for that.
 * Expected: ORIGIN_MISMATCH.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

export function projectileSpeedProfile(strength = 0.5): Profile {
  const s = checkStrength('projectileSpeed', strength);
  const cadence = new Cadence(500);
  const a = new Acquired();
  const start = new Float64Array(3);
  const ahead = new Float64Array(3);
  return {
    name: 'projectileSpeed', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !a.find(bot, now, true, 40)) return false;
      if (!equip(bot, now, WeaponId.ROCKET)) return true;
      // While the link holds inputs back the server's eye path strays from the predicted one.
      const at = bot.linkStalled(now) ? Number.NaN : fireTime(bot, now);
      if (!(at === at)) return true;
      const push = bot.rules.originToleranceM + 0.5 + 3 * s;
      if (!(a.dist > 0.5)) return true;
      // Along the aim from the eye (past the target too when it is nearer than the push).
      const eye = bot.eyeNow;
      for (let i = 0; i < 3; i++) {
        const u = (a.point[i]! - eye[i]!) / a.dist;
        start[i] = eye[i]! + u * push;
        ahead[i] = start[i]! + u;
      }
      const m = bot.fireMessage(start, ahead[0]!, ahead[1]!, ahead[2]!, bot.shotLength(), a.t, at, -1, false);
      const p = bot.predict(m, now);
      if (p.reason !== VerdictReason.ORIGIN_MISMATCH || p.originOffsetM < bot.rules.originToleranceM + 0.3) return true;
      bot.send(m, Intent.INVALID, 'ORIGIN_MISMATCH');
      cadence.done(now);
      return true;
    },
  };
}
