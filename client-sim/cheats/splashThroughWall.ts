/**
 * Splash through a wall: a rocket at a player hidden behind cover, claimed to start on the far side
 * of the wall, 0.6 + 1.4 (1 - strength) metres short of the player (well inside the blast's
 * radius), so its blast would reach the player where no rocket from the eye could. An explosion
 * is never claimed: the server flies the projectile from its own eye point nearest the start and
 * computes the blast itself (shared/projectile/explosion.ts, line of sight from the centre), so
 * the only claim the cheat can forge is the start, and that is refused: farther than
 * originToleranceM from the eye path (ORIGIN_MISMATCH) or, within it, behind the wall
 * (START_BLOCKED). Sent only when a wall stands between the eye and the start and the bot's own
 * prediction refuses the start for one of those reasons.
 */
import { VerdictReason, reasonName } from '../../shared/validate/verdict';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

export function splashThroughWallProfile(strength = 0.5): Profile {
  const s = checkStrength('splashThroughWall', strength);
  const cadence = new Cadence(500);
  const a = new Acquired();
  const start = new Float64Array(3);
  return {
    name: 'splashThroughWall', strength: s,
    frame(bot: Bot, now: number): boolean {
      // This cheater's rocket only ever goes at players it cannot see.
      if (!bot.aliveKnown()) return false;
      if (!cadence.due(now) || !a.find(bot, now, false, 40)) return true;
      if (!equip(bot, now, WeaponId.ROCKET)) return true;
      // While the link holds inputs back the server's eye path strays from the predicted one.
      const at = bot.linkStalled(now) ? Number.NaN : fireTime(bot, now);
      if (!(at === at)) return true;
      const eye = bot.eyeNow;
      const short = 0.6 + 1.4 * (1 - s);
      if (!(a.dist > short + 0.5)) return true;
      const k = 1 - short / a.dist;
      for (let i = 0; i < 3; i++) start[i] = eye[i]! + (a.point[i]! - eye[i]!) * k;
      // The start is on the far side of the cover: a wall between the eye and it.
      if (!bot.opts.world.anyHit(eye[0]!, eye[1]!, eye[2]!, start[0]!, start[1]!, start[2]!)) return true;
      const m = bot.fireMessage(start, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, -1, false);
      const p = bot.predict(m, now);
      const tol = bot.rules.originToleranceM;
      if (p.reason === VerdictReason.ORIGIN_MISMATCH ? p.originOffsetM < tol * 1.15 : p.reason !== VerdictReason.START_BLOCKED) return true;
      bot.send(m, Intent.INVALID, reasonName(p.reason));
      cadence.done(now);
      return true;
    },
  };
}
