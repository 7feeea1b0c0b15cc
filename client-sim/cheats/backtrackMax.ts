/**
 * Backtracking at the edge of the rules: a render time as old as the server still believes
 * (its estimate minus the claim tolerance, never older than the rewind window), aimed at where the
 * target was then, on a share `strength` of its shots (the rest are ordinary). Every such claim is
 * accepted; the audit must see the hits bunched at the window's edge.
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function backtrackMaxProfile(strength = 0.8): Profile {
  const s = checkStrength('backtrackMax', strength);
  const cadence = new Cadence(250);
  const a = new Acquired();
  const p = new Float64Array(3);
  return {
    name: 'backtrackMax', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!cadence.due(now) || bot.rng.next() >= s || !a.find(bot, now, true)) return false;
      const at = fireTime(bot, now);
      if (!(at === at)) return false;
      const v = bot.opts.validation;
      const old = Math.max(at - v.rewindWindowMs, at - bot.opts.interpDelayMs - v.claimToleranceMs) + 0.5;
      if (!bot.zonePoint(p, a.target, old, HitZone.UPPER_TORSO)) return false;
      bot.send(bot.fireMessage(bot.eyeNow, p[0]!, p[1]!, p[2]!, bot.shotLength(), old, at, a.target), Intent.INHUMAN);
      cadence.done(now);
      return true;
    },
  };
}
