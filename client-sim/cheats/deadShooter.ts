/**
 * Shooting while dead: once the bot knows it was killed, it keeps firing at whoever it still
 * renders until it respawns (alive, it plays like anyone else). Expected: SHOOTER_DEAD.
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { Cadence } from './common';

export function deadShooterProfile(): Profile {
  const cadence = new Cadence(250);
  const eye = new Float64Array(3);
  const p = new Float64Array(3);
  return {
    name: 'deadShooter',
    frame(bot: Bot, now: number): boolean {
      if (bot.aliveKnown()) return false;
      if (!cadence.due(now)) return true;
      bot.eye(eye);
      const t = bot.renderTime(now);
      let target = -1;
      for (let s = 0; s < bot.view.maxPlayers && target < 0; s++) if (s !== bot.slot && bot.zonePoint(p, s, t, HitZone.UPPER_TORSO)) target = s;
      if (target < 0) {
        // Nobody rendered: shoot straight ahead.
        p[0] = eye[0]! + bot.viewX * 10; p[1] = eye[1]! + bot.viewY * 10; p[2] = eye[2]! + bot.viewZ * 10;
      }
      bot.fire(bot.makeShot(eye, p[0]!, p[1]!, p[2]!, bot.shotLength(), t), Intent.INVALID, 'SHOOTER_DEAD');
      cadence.done(now);
      return true;
    },
  };
}
