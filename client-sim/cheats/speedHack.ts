/**
 * Speed and teleport attempts through the movement input: wish vectors (1.5 + 8.5 strength) times
 * too long, and now and then one a million times too long (a teleport's worth in one tick). Inputs
 * carry no position, and the movement step clamps the wish to unit length, so the server moves the
 * player no faster than anyone: the bot measures its own speed in the snapshots (Bot.maxSnapSpeed)
 * and the report shows it beside the movement's maxSpeed. It plays ordinarily otherwise.
 */
import type { Bot, Profile } from '../bot';
import { checkStrength } from './common';

export function speedHackProfile(strength = 0.5): Profile {
  const s = checkStrength('speedHack', strength);
  let n = 0;
  return {
    name: 'speedHack', strength: s,
    frame(): boolean {
      return false;
    },
    input(bot: Bot): boolean {
      bot.steer.still = false; // this cheat is about moving
      bot.inputs.wishScale = ++n % 64 === 0 ? 1e6 : 1.5 + 8.5 * s;
      return true;
    },
  };
}
