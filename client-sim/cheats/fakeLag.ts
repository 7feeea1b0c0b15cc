/**
 * Fake lag: pongs held back (50 + 250 strength) ms, so the server believes a longer round trip
 * (more slack for future-claimed times, a larger rewind), and inputs held back and released in
 * bunches every (1 + 5 strength) steps (the server steps a bunch at once, so the player moves in
 * jerks others find hard to hit). Shots are ordinary (held inputs go out before them). Its clock
 * runs ahead by half the hold (the server tells it the round trip it measured), so it declares an
 * interpolation delay half the hold longer and renders (and so rewinds) that much deeper.
 * Rule-abiding: the audit must flag it.
 */
import type { Bot, Profile } from '../bot';
import { checkStrength } from './common';

export function fakeLagProfile(strength = 0.8): Profile {
  const s = checkStrength('fakeLag', strength);
  const holdMs = 50 + 250 * s;
  const every = Math.max(1, Math.round(1 + 5 * s));
  let frame = 0;
  let held = 0;
  return {
    name: 'fakeLag', strength: s, extraInterpDelayMs: holdMs / 2 + 10,
    stats: () => ({ heldPongs: held }),
    frame(): boolean {
      return false;
    },
    ping(bot: Bot, bytes: Uint8Array): boolean {
      const copy = bytes.slice();
      held++;
      setTimeout(() => bot.conn.sendPong(copy), holdMs).unref?.();
      return false;
    },
    input(): boolean {
      return ++frame % every === 0;
    },
  };
}
