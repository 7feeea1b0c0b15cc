/**
 * What the pellet and penetration cheats share: taking a weapon in hand (a switch sent as an
 * ordinary message, then the draw waited out) and a pull's pattern for any seq and pellet count.
 */
import { ShotAction, type ShotMessage } from '../../shared/protocol/shot';
import { RULES_OK } from '../../shared/validate/weaponRules';
import { predictPellets } from '../../shared/validate/spread';
import type { WeaponSpec } from '../../shared/weapons';
import { Intent, type Bot } from '../bot';

/**
 * Whether weapon `id` is in hand and drawn at an action time now; when it is not in hand, a switch
 * to it is sent (when the rules allow one). False while switching or drawing.
 */
export function equip(bot: Bot, now: number, id: number): boolean {
  if (!bot.carries(id)) return false;
  const at = bot.clock.stamp(now);
  if (bot.weapons.head.equipped === id) return at >= bot.weapons.head.drawEndMs;
  if (bot.weapons.switchCheck(at, id) === RULES_OK) bot.send(bot.actionMessage(ShotAction.SWITCH, id, at), Intent.VALID);
  return false;
}

/**
 * Fills `m`'s pellets with the pattern of seq `seq` for `weapon` as if it fired `count` pellets (the
 * first pellets of a larger count are those of the spec's: a pattern's pellet k does not depend on
 * the count), around m's aim, with the bot's rules state; the message's own pellets from then on.
 * Returns the count.
 */
export function patternPellets(bot: Bot, m: ShotMessage, weapon: WeaponSpec, seq: number, count = weapon.pellets ?? 1): number {
  const spec: WeaponSpec = count === (weapon.pellets ?? 1) ? weapon : { ...weapon, pellets: count };
  m.pelletCount = predictPellets(m.pellets, bot.rules.spreadSeed ?? 0, bot.slot, seq, spec, bot.weapons.head, m.timeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
  bot.customPellets();
  return m.pelletCount;
}
