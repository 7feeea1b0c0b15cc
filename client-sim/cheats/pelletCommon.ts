/**
 * What the pellet and penetration cheats share: taking a weapon in hand (a switch sent as an
 * ordinary message, then the draw waited out) and the pattern of any pull, with any pellet count.
 */
import { ShotAction, type ShotMessage } from '../../shared/protocol/shot';
import { RULES_OK } from '../../shared/validate/weaponRules';
import { predictPellets } from '../../shared/validate/spread';
import { copyShooterState, createShooterState, type ShooterState } from '../../shared/validate/verdict';
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

const forged: ShooterState = createShooterState(-1, []);

/**
 * Fills `m`'s pellets with the pattern of pull `pull` (the count of pulls fired before it; the
 * bot's next by default) for `weapon` as if it fired `count` pellets (the first pellets of a larger
 * count are those of the spec's: a pattern's pellet k does not depend on the count), around m's
 * aim, with the bot's rules state otherwise; the message's own pellets from then on. Returns the count.
 */
export function patternPellets(bot: Bot, m: ShotMessage, weapon: WeaponSpec, pull = bot.weapons.head.pulls, count = weapon.pellets ?? 1): number {
  const spec: WeaponSpec = count === (weapon.pellets ?? 1) ? weapon : { ...weapon, pellets: count };
  const state = copyShooterState(forged, bot.weapons.head);
  state.pulls = pull;
  m.pelletCount = predictPellets(m.pellets, bot.rules.spreadSeed ?? 0, state, spec, m.timeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
  bot.customPellets();
  return m.pelletCount;
}
