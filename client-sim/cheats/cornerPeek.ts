/**
 * Corner peeks: the segment starts up to originToleranceM * (0.5 + 0.45 strength) from the eye,
 * pushed sideways or up past a corner, with no wall between the eye and the start, so that a
 * player hidden from the eye is in sight from the start. The start passes the origin checks; the
 * hit does not count because its point cannot be seen from the server's eye path. Sent only when
 * its prediction says so. Expected: NOT_VISIBLE.
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

function blockedAround(world: { anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean }, eye: Float64Array, s: Float64Array, r: number): boolean {
  for (let k = 0; k < 5; k++) {
    const ox = k === 1 ? r : k === 2 ? -r : 0, oz = k === 3 ? r : k === 4 ? -r : 0;
    if (world.anyHit(eye[0]! + ox, eye[1]!, eye[2]! + oz, s[0]!, s[1]!, s[2]!)) return true;
  }
  return false;
}

/** The point p is out of sight from the eye and from points r around it (sight lines stop 1 cm short). */
function hiddenAround(world: { anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean }, eye: Float64Array, p: Float64Array, r: number): boolean {
  for (let k = 0; k < 7; k++) {
    const ox = k === 1 ? r : k === 2 ? -r : 0, oz = k === 3 ? r : k === 4 ? -r : 0, oy = k === 5 ? r : k === 6 ? -r : 0;
    const sx = eye[0]! + ox, sy = eye[1]! + oy, sz = eye[2]! + oz;
    const dx = p[0]! - sx, dy = p[1]! - sy, dz = p[2]! - sz;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const f = l > 0.01 ? (l - 0.01) / l : 0;
    if (!world.anyHit(sx, sy, sz, sx + dx * f, sy + dy * f, sz + dz * f)) return false;
  }
  return true;
}

export function cornerPeekProfile(strength = 0.5): Profile {
  const s = checkStrength('cornerPeek', strength);
  const cadence = new Cadence(250);
  const a = new Acquired();
  const start = new Float64Array(3);
  const hit = new Float64Array(3);
  return {
    name: 'cornerPeek', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) return false;
      if (!cadence.due(now) || !a.find(bot, now, false, 30)) return false;
      const at = fireTime(bot, now);
      if (!(at === at)) return false;
      const world = bot.opts.world;
      const eye = bot.eyeNow;
      const p = a.point;
      const dx = p[0]! - eye[0]!, dz = p[2]! - eye[2]!;
      const h = Math.sqrt(dx * dx + dz * dz) || 1;
      const off = bot.opts.validation.originToleranceM * (0.5 + 0.45 * s);
      // Sideways (left, right) and up: the ways one leans past a corner or over a box.
      for (let k = 0; k < 3; k++) {
        const sx = k === 2 ? 0 : ((k === 0 ? 1 : -1) * -dz) / h, sz = k === 2 ? 0 : ((k === 0 ? 1 : -1) * dx) / h, sy = k === 2 ? 1 : 0;
        start[0] = eye[0]! + sx * off; start[1] = eye[1]! + sy * off; start[2] = eye[2]! + sz * off;
        // Clear from the eye and from points around it: the server's record of the eye differs
        // from the prediction by centimetres, and a start that only just clears the corner would be
        // START_BLOCKED there rather than reach the visibility check this cheat is about.
        if (blockedAround(world, eye, start, 0.25)) continue;
        if (world.anyHit(start[0]!, start[1]!, start[2]!, p[0]!, p[1]!, p[2]!)) continue;
        const m = bot.fireMessage(start, p[0]!, p[1]!, p[2]!, bot.shotLength(), a.t, at, a.target);
        const v = bot.predict(m, now);
        if (v.reason !== VerdictReason.NOT_VISIBLE) continue;
        // Hidden from around the eye too (the server's record of the eye differs by centimetres).
        hit[0] = v.x; hit[1] = v.y; hit[2] = v.z;
        if (!hiddenAround(world, eye, hit, 0.25)) continue;
        bot.send(m, Intent.INVALID, 'NOT_VISIBLE');
        cadence.done(now);
        return true;
      }
      cadence.done(now, 100);
      return false;
    },
  };
}
