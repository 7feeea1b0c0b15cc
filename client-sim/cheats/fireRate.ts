/**
 * Fire-rate hack at the edge: after a shot the server has confirmed (its verdict is back, so the
 * server's fire clock is known, not predicted), a shot claimed (0.05 + 0.45 strength) of a fire
 * interval too early: a fire rate 1.05x (at strength 0) to 2x the weapon's. Claimed times may lie
 * in the past (up to maxFireLagMs), so the cheat can wait for the verdict. Expected: FIRE_RATE. It
 * alternates with ordinary taps (what it cheats against), one message in flight at a time.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { HitZone } from '../../shared/rig/rig';
import { ShotAction } from '../../shared/protocol/shot';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

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
      if (!bot.aliveKnown() || !a.find(bot, now, true)) return false;
      // One message at a time: a tap, its verdict, the cheat against it, its verdict, a tap...
      if (ws.inFlight > 0 || !cadence.due(now)) return true;
      const last = bot.shots[bot.shots.length - 1];
      const confirmedShot = last !== undefined && last.action === ShotAction.FIRE && last.verdict !== null && last.timeMs === c.lastActionMs && last.weapon === c.equipped;
      const w = bot.weapon;
      const at = c.nextFireMs - w.fireIntervalMs * (0.05 + 0.45 * s);
      // Recent enough that the claim is far from too old (maxFireLagMs), and rendered as it was then.
      if (confirmedShot && c.lastSeq !== cheatedAfter && bot.serverNow(now) - at <= bot.opts.validation.maxFireLagMs / 2 && at >= c.lastActionMs && ws.fireCheck(at) === VerdictReason.FIRE_RATE) {
        const t = at - bot.opts.interpDelayMs;
        if (bot.zonePoint(a.point, a.target, t, HitZone.UPPER_TORSO)) {
          cheatedAfter = c.lastSeq;
          bot.send(bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), t, at, a.target), Intent.INVALID, 'FIRE_RATE');
          return true;
        }
      }
      // The tap the next cheat is measured against.
      const tap = fireTime(bot, now);
      if (tap === tap) {
        bot.send(bot.fireMessage(bot.eyeNow, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, tap, a.target), Intent.VALID);
        cadence.done(now);
      }
      return true;
    },
  };
}
