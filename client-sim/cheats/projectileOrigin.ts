/**
 * Projectile origin: a grenade launched from somewhere the thrower is not, by turns (1) sideways of
 * the way it moves (of the aim when standing), originToleranceM * (1.05 + 0.45 strength) away (expected ORIGIN_MISMATCH), and (2) when
 * a wall stands within the tolerance of the eye, just behind that wall (within the tolerance, but
 * the way from the eye to the start goes through the wall: expected START_BLOCKED), as if to throw
 * around or through cover. The server launches only from its own eye point nearest the start, and
 * refuses both. Each sent only when the bot's own prediction refuses it for that reason.
 */
import { VerdictReason, reasonName } from '../../shared/validate/verdict';
import { createWorldHit } from '../../shared/world/world';
import { WeaponId } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

/** Horizontal directions searched for a wall near the eye. */
const DIRECTIONS = 16;
/** How far along its motion a moving thrower's eye path is allowed to reach past the eye now, m. */
const MOTION_SLACK_M = 0.5;

export function projectileOriginProfile(strength = 0.5): Profile {
  const s = checkStrength('projectileOrigin', strength);
  const cadence = new Cadence(500);
  const a = new Acquired();
  const start = new Float64Array(3);
  const hit = createWorldHit();
  let turn = 0;

  /** A start just behind a wall within the tolerance of the eye, in `start`; false when no wall is that near. */
  function behindWall(bot: Bot, tol: number): boolean {
    const eye = bot.eyeNow;
    const reach = tol - 0.35;
    for (let k = 0; k < DIRECTIONS; k++) {
      const ang = (2 * Math.PI * (k + 0.5 * (turn & 1))) / DIRECTIONS;
      const dx = Math.cos(ang), dz = Math.sin(ang);
      if (!bot.opts.world.firstHit(hit, eye[0]!, eye[1]!, eye[2]!, eye[0]! + dx * reach, eye[1]!, eye[2]! + dz * reach)) continue;
      const d = hit.t * reach + 0.2;
      if (!(d < tol - 0.1)) continue;
      start[0] = eye[0]! + dx * d; start[1] = eye[1]!; start[2] = eye[2]! + dz * d;
      // A moving eye path may pass the wall's end: the wall must stand in the way from along it too.
      if (!blockedAlongMotion(bot)) continue;
      return true;
    }
    return false;
  }

  /** Whether the way to `start` is blocked from eye points MOTION_SLACK_M either way along the motion. */
  function blockedAlongMotion(bot: Bot): boolean {
    const eye = bot.eyeNow;
    const st = bot.move.state;
    const v = Math.sqrt(st.vx * st.vx + st.vz * st.vz);
    if (v < 0.1) return true;
    for (const sign of [-1, 1]) {
      const x = eye[0]! + (sign * st.vx * MOTION_SLACK_M) / v, z = eye[2]! + (sign * st.vz * MOTION_SLACK_M) / v;
      if (!bot.opts.world.anyHit(x, eye[1]!, z, start[0]!, start[1]!, start[2]!)) return false;
    }
    return true;
  }

  return {
    name: 'projectileOrigin', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now) || !a.find(bot, now, true, 40)) return false;
      if (!equip(bot, now, WeaponId.GRENADE)) return true;
      // While the link holds inputs back the server's eye path strays from the predicted one.
      const at = bot.linkStalled(now) ? Number.NaN : fireTime(bot, now);
      if (!(at === at)) return true;
      const eye = bot.eyeNow;
      const tol = bot.rules.originToleranceM;
      let expected: number = VerdictReason.START_BLOCKED;
      if (turn % 2 === 1 || !behindWall(bot, tol)) {
        expected = VerdictReason.ORIGIN_MISMATCH;
        const off = tol * (1.05 + 0.45 * s);
        // Sideways to the motion (or to the aim when standing): perpendicular to the eye path.
        const st = bot.move.state;
        let px = -st.vz, pz = st.vx;
        if (px * px + pz * pz < 0.01) {
          px = -(a.point[2]! - eye[2]!); pz = a.point[0]! - eye[0]!;
        }
        const l = Math.sqrt(px * px + pz * pz) || 1;
        const side = bot.rng.next() < 0.5 ? 1 : -1;
        px = (side * px) / l; pz = (side * pz) / l;
        start[0] = eye[0]! + px * off; start[1] = eye[1]!; start[2] = eye[2]! + pz * off;
      }
      const m = bot.fireMessage(start, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, -1, false);
      const p = bot.predict(m, now);
      if (p.reason !== expected) return true;
      // The start must stay that far from the whole eye path, not just the eye now.
      if (expected === VerdictReason.ORIGIN_MISMATCH && p.originOffsetM < tol * 1.15) return true;
      bot.send(m, Intent.INVALID, reasonName(expected));
      turn++;
      cadence.done(now);
      return true;
    },
  };
}
