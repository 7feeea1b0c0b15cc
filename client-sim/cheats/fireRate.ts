/**
 * Fire-rate hack at the edge: after a shot the server has confirmed (its verdict is back, so the
 * server's fire clock is known, not predicted), a shot claimed (0.05 + 0.45 strength) of a fire
 * interval too early: a fire rate 1.05x (at strength 0) to 2x the weapon's. Claimed times may lie
 * in the past (up to maxFireLagMs), so the cheat can wait for the verdict. Expected: FIRE_RATE. In
 * between it plays ordinarily (its valid shots are what it cheats against).
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { HitZone } from '../../shared/rig/rig';
import { ShotAction } from '../../shared/protocol/shot';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength } from './common';

export function fireRateProfile(strength = 0.5): Profile {
  const s = checkStrength('fireRate', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  let cheatedAfter = -1;
  return {
    name: 'fireRate', strength: s,
    frame(bot: Bot, now: number): boolean {
      const ws = bot.weapons;
      const c = ws.confirmed;
      // Only against a confirmed shot: nothing in flight, the last action a fired shot of the weapon in hand.
      if (!bot.aliveKnown() || ws.inFlight > 0 || !cadence.due(now) || c.lastSeq === cheatedAfter) return false;
      const last = bot.shots[bot.shots.length - 1];
      if (last === undefined || last.action !== ShotAction.FIRE || last.verdict === null || last.timeMs !== c.lastActionMs || last.weapon !== c.equipped) return false;
      if (!a.find(bot, now, true)) return false;
      const w = bot.weapon;
      const at = c.nextFireMs - w.fireIntervalMs * (0.05 + 0.45 * s);
      // Recent enough that the claim is far from too old (maxFireLagMs), and rendered as it was then.
      if (bot.serverNow(now) - at > bot.opts.validation.maxFireLagMs / 2 || at < c.lastActionMs || ws.fireCheck(at) !== VerdictReason.FIRE_RATE) return false;
      const t = at - bot.opts.interpDelayMs;
      if (!bot.zonePoint(a.point, a.target, t, HitZone.UPPER_TORSO)) return false;
      cheatedAfter = c.lastSeq;
      bot.send(bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), t, at, a.target), Intent.INVALID, 'FIRE_RATE');
      cadence.done(now);
      return true;
    },
  };
}
