/**
 * Silent aim: the shots go to the centre of a visible target's head while the view does not move
 * toward it at all (the crosshair stays wherever the player was walking), after a reaction time
 * scaled by (1 - strength) and with the hand noise scaled by (1 - strength); on a share
 * (1 - strength) of engagements the view flicks onto the target instead, the moment it fires.
 * Fires only when its own prediction says the shot hits, as an aimbot's visibility check does.
 * Valid geometry: accepted; the audit must flag it (every hit's direction is far from the facing
 * the server recorded a tick before).
 */
import { HitZone } from '../../shared/rig/rig';
import { VerdictKind } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, checkStrength, fireTime } from './common';

export function aimSnapProfile(strength = 0.8): Profile {
  const s = checkStrength('aimSnap', strength);
  const a = new Acquired();
  const q = new Float64Array(3);
  let engaged = -1;
  let readyAt = 0;
  let flick = false;
  return {
    name: 'aimSnap', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !a.find(bot, now, true, 60, HitZone.HEAD, false)) {
        engaged = -1;
        return false;
      }
      if (a.target !== engaged) {
        engaged = a.target;
        readyAt = now + (1 - s) * (230 + 50 * Math.abs(bot.rng.normal()));
        flick = bot.rng.next() >= s;
      }
      if (now < readyAt) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const eye = bot.eyeNow;
      const sigma = (0.1 + 0.01 * a.dist) * (1 - s);
      q[0] = a.point[0]! + sigma * bot.rng.normal(); q[1] = a.point[1]! + sigma * bot.rng.normal(); q[2] = a.point[2]! + sigma * bot.rng.normal();
      const m = bot.fireMessage(eye, q[0]!, q[1]!, q[2]!, bot.shotLength(), a.t, at, a.target);
      if (bot.predict(m, now).kind !== VerdictKind.HIT) return true;
      bot.send(m, Intent.INHUMAN);
      if (flick) {
        bot.aim.lookAt(q[0]! - eye[0]!, q[1]! - eye[1]!, q[2]! - eye[2]!);
        bot.aim.snap();
      }
      // Taps at twice the fire interval: fast, but no spray.
      readyAt = now + 2 * bot.weapon.fireIntervalMs;
      return true;
    },
  };
}
