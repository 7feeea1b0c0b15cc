/**
 * Origin spoofing at the edge: the segment starts just outside the origin tolerance from the eye,
 * sideways to the way the bot moves (so the distance to the server's eye path is the offset
 * itself), at originToleranceM * (1.05 + 0.45 strength). Sent only when the bot's own prediction
 * (its eye path from its predicted poses) puts the start that far from the whole path too. Expected:
 * ORIGIN_MISMATCH.
 */
import { Intent, type Bot, type Profile } from '../bot';
import { VerdictReason } from '../../shared/validate/verdict';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function originSpoofProfile(strength = 0.5): Profile {
  const s = checkStrength('originSpoof', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  const start = new Float64Array(3);
  return {
    name: 'originSpoof', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!cadence.due(now) || !a.find(bot, now, true)) return false;
      const at = fireTime(bot, now);
      if (!(at === at)) return false;
      const eye = bot.eyeNow;
      const off = bot.opts.validation.originToleranceM * (1.05 + 0.45 * s);
      // Sideways to the motion (or to the aim when standing): perpendicular to the eye path.
      const st = bot.move.state;
      let px = -st.vz, pz = st.vx;
      if (px * px + pz * pz < 0.01) {
        px = -(a.point[2]! - eye[2]!); pz = a.point[0]! - eye[0]!;
      }
      const l = Math.sqrt(px * px + pz * pz) || 1;
      const side = bot.rng.next() < 0.5 ? 1 : -1;
      start[0] = eye[0]! + (side * px * off) / l; start[1] = eye[1]!; start[2] = eye[2]! + (side * pz * off) / l;
      const m = bot.fireMessage(start, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t, at, a.target);
      // The eye path runs back to the render time: the start must be that far from all of it, not
      // just from the eye now (a prediction error of a few centimetres must not bring it inside).
      const p = bot.predict(m, now);
      if (p.reason !== VerdictReason.ORIGIN_MISMATCH || p.originOffsetM < off * 0.98) return false;
      bot.send(m, Intent.INVALID, 'ORIGIN_MISMATCH');
      cadence.done(now);
      return true;
    },
  };
}
