/**
 * Origin spoofing: the segment starts a metre in front of the target instead of at the shooter's
 * eye (a "shoot from anywhere" hack), at least 3 m from the eye. Expected: ORIGIN_MISMATCH.
 */
import { createShotMessage } from '../../shared/protocol/shot';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { acquire, Cadence } from './common';

export function originSpoofProfile(): Profile {
  const cadence = new Cadence(300);
  return {
    name: 'originSpoof',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !bot.canFire(now)) return false;
      const a = acquire(bot, now, true);
      if (a === null) return false;
      const [ex, ey, ez] = [a.eye[0]!, a.eye[1]!, a.eye[2]!];
      const dx = a.point[0]! - ex, dy = a.point[1]! - ey, dz = a.point[2]! - ez;
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (l < 3.5) return false; // the start must lie well outside the 1 m origin tolerance
      const ux = dx / l, uy = dy / l, uz = dz / l;
      const shot = createShotMessage();
      shot.weapon = WeaponId.RIFLE;
      shot.seq = ++bot.seq;
      shot.claimedTarget = a.target;
      shot.renderTimeMs = a.t;
      shot.sx = a.point[0]! - ux; shot.sy = a.point[1]! - uy; shot.sz = a.point[2]! - uz;
      shot.ex = a.point[0]! + ux * 5; shot.ey = a.point[1]! + uy * 5; shot.ez = a.point[2]! + uz * 5;
      bot.fire(shot, Intent.INVALID, 'ORIGIN_MISMATCH');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
