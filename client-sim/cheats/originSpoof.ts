/**
 * Origin spoofing: the segment starts a metre in front of the target instead of at the shooter's
 * eye (a "shoot from anywhere" hack), at least 2.5 m from the eye; with nobody in sight, 4 m ahead
 * along the view. Expected: ORIGIN_MISMATCH.
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
      const eye = a?.eye ?? bot.eye(new Float64Array(3));
      // With a target: from a metre in front of it. Without: from 4 m ahead along the view.
      let px = eye[0]! + bot.viewX * 5, py = eye[1]! + bot.viewY * 5, pz = eye[2]! + bot.viewZ * 5;
      if (a !== null) {
        px = a.point[0]!; py = a.point[1]!; pz = a.point[2]!;
      }
      const dx = px - eye[0]!, dy = py - eye[1]!, dz = pz - eye[2]!;
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (l < 3.5) return false; // the start must lie well outside the 1 m origin tolerance
      const ux = dx / l, uy = dy / l, uz = dz / l;
      const shot = createShotMessage();
      shot.weapon = WeaponId.RIFLE;
      shot.seq = ++bot.seq;
      shot.claimedTarget = a?.target ?? -1;
      shot.timeMs = bot.clock.stamp(now);
      shot.renderTimeMs = a?.t ?? bot.renderTime(now);
      shot.sx = px - ux; shot.sy = py - uy; shot.sz = pz - uz;
      shot.ex = px + ux * 5; shot.ey = py + uy * 5; shot.ez = pz + uz * 5;
      bot.fire(shot, Intent.INVALID, 'ORIGIN_MISMATCH');
      bot.bookShot(now);
      cadence.done(now);
      return true;
    },
  };
}
