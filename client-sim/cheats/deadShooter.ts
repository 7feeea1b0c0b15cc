/**
 * Shooting while dead: once the bot knows it was killed, it keeps firing at whoever it still
 * renders until it respawns (alive, it plays like anyone else). Expected: SHOOTER_DEAD. In a room
 * that trades (the rules' tradeSlackMs: the server judges what is stated up to half the round trip
 * plus that slack after the kill, as fired before its news could arrive) it fires only past that
 * window: the news cannot precede the kill, so the window ends at most that long after the bot
 * learnt of it, with the round trip the server last told it, plus PAST_TRADE_MS. Strength: shots
 * per second while dead (2 + 8 strength).
 */
import { HitZone } from '../../shared/rig/rig';
import { Intent, type Bot, type Profile } from '../bot';
import { Cadence, checkStrength } from './common';

/** How far past the trade window's latest end the bot starts, ms: the clock estimate's error and a told round trip that grew since. */
const PAST_TRADE_MS = 20;

export function deadShooterProfile(strength = 0.5): Profile {
  const s = checkStrength('deadShooter', strength);
  const cadence = new Cadence(1000 / (2 + 8 * s));
  const p = new Float64Array(3);
  return {
    name: 'deadShooter', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (bot.aliveKnown()) return false;
      const trade = bot.rules.tradeSlackMs;
      const holdMs = trade === undefined ? 0 : bot.clock.rttMs / 2 + trade + PAST_TRADE_MS;
      if (now - bot.deadSince < holdMs || !cadence.due(now)) return true;
      const eye = bot.eyeNow;
      const t = bot.renderTime(now);
      let target = -1;
      for (let k = 0; k < bot.view.maxPlayers && target < 0; k++) if (k !== bot.slot && bot.zonePoint(p, k, t, HitZone.UPPER_TORSO)) target = k;
      if (target < 0) {
        p[0] = eye[0]! + bot.aim.viewX * 10; p[1] = eye[1]! + bot.aim.viewY * 10; p[2] = eye[2]! + bot.aim.viewZ * 10;
      }
      bot.send(bot.fireMessage(eye, p[0]!, p[1]!, p[2]!, bot.shotLength(), t, bot.clock.stamp(now)), Intent.INVALID, 'SHOOTER_DEAD');
      cadence.done(now);
      return true;
    },
  };
}
