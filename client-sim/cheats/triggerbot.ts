/**
 * Triggerbot: the player aims like a person (the view turns at a human rate toward the target,
 * with the human aim error), and the trigger is pulled by software the first frame the crosshair,
 * the view direction itself, lies on a hitbox: no reaction time, and no shot ever fired off
 * target. With probability (1 - strength) a pull waits a human reaction instead. Valid geometry:
 * accepted; the audit must flag it.
 */
import { VerdictKind } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, checkStrength, fireTime } from './common';

export function triggerbotProfile(strength = 0.8): Profile {
  const s = checkStrength('triggerbot', strength);
  const a = new Acquired();
  const q = new Float64Array(3);
  let engaged = -1;
  let human = false;
  return {
    name: 'triggerbot', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !a.find(bot, now, true)) {
        engaged = -1;
        return false;
      }
      const aim = bot.aim;
      if (a.target !== engaged) {
        engaged = a.target;
        aim.engage(a.target, now);
        human = bot.rng.next() >= s;
      }
      if (human && now < aim.readyAt) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const eye = bot.eyeNow;
      q[0] = eye[0]! + aim.viewX * 10; q[1] = eye[1]! + aim.viewY * 10; q[2] = eye[2]! + aim.viewZ * 10;
      const m = bot.fireMessage(eye, q[0]!, q[1]!, q[2]!, bot.shotLength(), a.t, at, a.target);
      const p = bot.predict(m, now);
      if (p.kind !== VerdictKind.HIT || p.target !== a.target) return true;
      bot.send(m, Intent.INHUMAN);
      return true;
    },
  };
}
