/**
 * Backdating: every shot claims an action time streamSlackMs + (25 + 575 strength) ms before the
 * bot fires it -- inside the allowance for shots a TCP stall held back (maxFireLagMs), but earlier
 * than the stamps of the inputs it sent before it -- and a render time its interpolation delay before
 * that, aimed at where the target was then: a backtrack through the action clock. Its inputs keep
 * their true stamps. Expected: BACKDATED. A claim is never earlier than the bot's own last action
 * carried out (that would be ACTION_ORDER), so the bot waits when its routine has just acted.
 */
import { HitZone } from '../../shared/rig/rig';
import { STREAM_SLACK_MS } from '../../shared/validate/rules';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength } from './common';

export function backdateProfile(strength = 0.5): Profile {
  const s = checkStrength('backdate', strength);
  const cadence = new Cadence(250);
  const a = new Acquired();
  const p = new Float64Array(3);
  return {
    name: 'backdate', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) return true;
      const backMs = (bot.opts.validation.streamSlackMs ?? STREAM_SLACK_MS) + 25 + 575 * s;
      const at = bot.serverNow(now) - backMs;
      if (at < bot.weapons.head.lastActionMs) return true;
      if (!cadence.due(now) || !a.find(bot, now, true)) return true;
      const render = at - bot.interpDelayMs;
      if (!bot.zonePoint(p, a.target, render, HitZone.UPPER_TORSO)) return true;
      bot.send(bot.fireMessage(bot.eyeNow, p[0]!, p[1]!, p[2]!, bot.shotLength(), render, at, a.target), Intent.INVALID, 'BACKDATED');
      cadence.done(now);
      return true;
    },
  };
}
