/**
 * Grazing shots through thin walls, wall edges and seams, at a player hidden behind them: of a
 * few dozen lines from the eye to points inside the hidden player's hitboxes, it takes two that
 * the world stops on different triangles (a seam between two triangles or two wall meshes) or one
 * it stops and one it does not (a wall's edge), and bisects between them until the line passes
 * within 2^-(10 + 30 strength) of the line's spacing from the seam or edge, on the occluded side.
 * Sent only when its prediction finds the hitbox behind the wall. Expected: OCCLUDED (a leak in
 * the verdict kernel at a shared edge would show up as an accepted cheat).
 */
import { VerdictReason } from '../../shared/validate/verdict';
import { createWorldHit } from '../../shared/world/world';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

const SAMPLES = 24;

export function wallGrazeProfile(strength = 0.5): Profile {
  const s = checkStrength('wallGraze', strength);
  const cadence = new Cadence(300);
  const a = new Acquired();
  const hit = createWorldHit();
  const pts = new Float64Array(SAMPLES * 3);
  const tri = new Int32Array(SAMPLES);
  const lo = new Float64Array(3), hi = new Float64Array(3), mid = new Float64Array(3);
  /** Triangle the world stops eye -> p on, -1 when clear. */
  const stop = (bot: Bot, p: Float64Array, o = 0): number => {
    const e = bot.eyeNow;
    return bot.opts.world.firstHit(hit, e[0]!, e[1]!, e[2]!, p[o]!, p[o + 1]!, p[o + 2]!) ? hit.triangle : -1;
  };
  let seams = 0, edges = 0;
  return {
    name: 'wallGraze', strength: s,
    stats: () => ({ seamShots: seams, edgeShots: edges }),
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown()) return false;
      if (!cadence.due(now) || !a.find(bot, now, false, 40)) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const hitboxes = bot.opts.rig.hitboxCount;
      let n = 0;
      for (let k = 0; k < SAMPLES; k++) {
        const h = bot.rng.int(0, hitboxes);
        mid.fill(0);
        if (!bot.sight.hitboxPoint(mid, a.target, a.t, h, 0.03 * bot.rng.normal(), 0.03 * bot.rng.normal(), 0.03 * bot.rng.normal())) continue;
        pts[n * 3] = mid[0]!; pts[n * 3 + 1] = mid[1]!; pts[n * 3 + 2] = mid[2]!;
        tri[n] = stop(bot, pts, n * 3);
        n++;
      }
      // A pair: both stopped on different triangles (seam), or one stopped and one clear (edge).
      let i = -1, j = -1;
      for (let x = 0; x < n && i < 0; x++) {
        if (tri[x]! < 0) continue;
        for (let y = 0; y < n; y++) {
          if (y !== x && tri[y] !== tri[x]) {
            i = x; j = y;
            break;
          }
        }
      }
      if (i < 0) {
        cadence.done(now, 100);
        return true;
      }
      const seam = tri[j]! >= 0;
      lo.set(pts.subarray(i * 3, i * 3 + 3)); hi.set(pts.subarray(j * 3, j * 3 + 3));
      const triLo = tri[i]!;
      const steps = Math.round(10 + 30 * s);
      for (let k = 0; k < steps; k++) {
        mid[0] = (lo[0]! + hi[0]!) / 2; mid[1] = (lo[1]! + hi[1]!) / 2; mid[2] = (lo[2]! + hi[2]!) / 2;
        const tm = stop(bot, mid);
        if (tm === triLo) lo.set(mid);
        else if (tm < 0 && seam) {
          hi.set(mid); // the line slipped past an edge between the two: graze that edge instead
        } else hi.set(mid);
      }
      // The occluded side, extended to the weapon's range.
      const m = bot.fireMessage(bot.eyeNow, lo[0]!, lo[1]!, lo[2]!, bot.shotLength(), a.t, at, a.target, false);
      if (bot.predict(m, now).reason !== VerdictReason.OCCLUDED) {
        cadence.done(now, 100);
        return true;
      }
      if (seam) seams++;
      else edges++;
      bot.send(m, Intent.INVALID, 'OCCLUDED');
      cadence.done(now);
      return true;
    },
  };
}
