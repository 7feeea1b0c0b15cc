/**
 * Render-time skew: a claimed render time just outside the claim tolerance of the server's
 * estimate (estimate - claimToleranceMs * (1.1 + strength)), still inside the rewind window, aimed
 * at where the target was then. The server does not believe it: it rewinds to its estimate, where
 * the target is no longer on the segment. Sent only when the bot's own prediction says so (a target
 * standing still is hit either way: no cheat). Expected: OVERRULED (estimated time, no hit).
 */
import { HitZone } from '../../shared/rig/rig';
import { VerdictKind } from '../../shared/validate/verdict';
import { Intent, OVERRULED, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

const ZONES = [HitZone.UPPER_TORSO, HitZone.HEAD, HitZone.LOWER_TORSO];

export function renderSkewProfile(strength = 0.5): Profile {
  const s = checkStrength('renderSkew', strength);
  const cadence = new Cadence(250);
  const a = new Acquired();
  const p = new Float64Array(3);
  return {
    name: 'renderSkew', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!cadence.due(now) || !a.find(bot, now, true)) return false;
      const at = fireTime(bot, now);
      if (!(at === at)) return false;
      const v = bot.opts.validation;
      const claimed = at - bot.opts.interpDelayMs - v.claimToleranceMs * (1.1 + s);
      if (claimed < at - v.rewindWindowMs) return false;
      // A hit zone that moved off the segment between the claimed time and the estimate.
      for (const zone of ZONES) {
        if (!bot.zonePoint(p, a.target, claimed, zone)) return false;
        const m = bot.fireMessage(bot.eyeNow, p[0]!, p[1]!, p[2]!, bot.shotLength(), claimed, at, a.target);
        // Only a predicted miss says the estimate takes the target off the segment: a predicted
        // rejection (the bot's own position off, say after a respawn) says nothing of it.
        if (bot.predict(m, now).kind !== VerdictKind.MISS) continue;
        bot.send(m, Intent.INVALID, OVERRULED);
        cadence.done(now);
        return true;
      }
      return false;
    },
  };
}
