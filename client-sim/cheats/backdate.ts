/**
 * Backdating: every shot claims an action time (300 + 400 strength) ms before the bot fires it --
 * inside the allowance the server keeps for shots a TCP stall held back -- and a render time its
 * interpolation delay before that, aimed at where the target was then: a backtrack through the
 * action clock, each claim within the rules. Its inputs keep their true stamps. Between reloads it
 * fires only backdated shots (an honest one in between would make the next claim out of order).
 * The audit must see shots claimed well before inputs the room had already stepped.
 */
import { HitZone } from '../../shared/rig/rig';
import { RULES_OK } from '../../shared/validate/weaponRules';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength } from './common';

export function backdateProfile(strength = 0.5): Profile {
  const s = checkStrength('backdate', strength);
  const backMs = 300 + 400 * s;
  const cadence = new Cadence(250);
  const a = new Acquired();
  const p = new Float64Array(3);
  // After the bot's own routine ran (a reload, stamped now), claims must wait until they are later.
  let pauseUntil = 0;
  return {
    name: 'backdate', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (now < pauseUntil || !bot.aliveKnown()) return true;
      const at = bot.serverNow(now) - backMs;
      const w = bot.weapons;
      if (w.ammoAt(w.equipped.id, at) <= 0 && !w.reloadingAt(w.equipped.id, at)) {
        pauseUntil = now + backMs + 50;
        return false;
      }
      if (!cadence.due(now) || w.fireCheck(at) !== RULES_OK || !a.find(bot, now, true)) return true;
      const render = at - bot.interpDelayMs;
      if (!bot.zonePoint(p, a.target, render, HitZone.UPPER_TORSO)) return true;
      bot.send(bot.fireMessage(bot.eyeNow, p[0]!, p[1]!, p[2]!, bot.shotLength(), render, at, a.target), Intent.INHUMAN);
      cadence.done(now);
      return true;
    },
  };
}
