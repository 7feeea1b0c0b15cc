/**
 * Render-time skew: a claimed render time just outside the claim tolerance of the server's
 * estimate (estimate - claimToleranceMs * (1.1 + strength)), still inside the rewind window, aimed
 * at where a target that moved in between was then. The server does not believe it: it rewinds to
 * its estimate, where the target is no longer on the segment. Sent only when the bot's own
 * prediction says so (a target standing still is hit either way: no cheat). It plays the rifle
 * (a shotgun's pellets may hit around the miss): it never takes the shotgun in its ordinary play,
 * and puts a pattern weapon away before it cheats. Expected: OVERRULED (estimated time, no hit).
 */
import { HitZone } from '../../shared/rig/rig';
import { VerdictKind } from '../../shared/validate/verdict';
import { hasPattern, WeaponId } from '../../shared/weapons';
import { Intent, OVERRULED, type Bot, type Profile } from '../bot';
import { Cadence, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

const ZONES = [HitZone.UPPER_TORSO, HitZone.HEAD, HitZone.LOWER_TORSO];
/** How far a target must have moved between the claimed time and the estimate, metres. */
const MOVED_M = 0.25;

export function renderSkewProfile(strength = 0.5): Profile {
  const s = checkStrength('renderSkew', strength);
  const cadence = new Cadence(250);
  const p = new Float64Array(3);
  const q = new Float64Array(3);
  let bot: Bot | null = null;
  let claimed = 0, estimate = 0;
  // A player that moved between the claimed time and the estimate (one that stands still is hit
  // either way: no cheat).
  const moved = (slot: number): boolean => bot!.zonePoint(p, slot, claimed, HitZone.UPPER_TORSO) && bot!.zonePoint(q, slot, estimate, HitZone.UPPER_TORSO)
    && dist2(p, q) > MOVED_M * MOVED_M;
  return {
    name: 'renderSkew', strength: s,
    frame(b: Bot, now: number): boolean {
      bot = b;
      b.honest.shotgunFan = false;
      if (!cadence.due(now)) return false;
      const at = fireTime(b, now);
      if (!(at === at)) return false;
      const v = b.opts.validation;
      estimate = at - b.opts.interpDelayMs;
      claimed = estimate - v.claimToleranceMs * (1.1 + s);
      if (claimed < at - v.rewindWindowMs) return false;
      const eye = b.eyeNow;
      const t = b.renderTime(now);
      if (t > b.view.newestTimeMs) return false; // would have to extrapolate
      // The nearest visible player that moved.
      const target = b.findTarget(eye, t, true, 60, false, moved);
      if (target < 0) return false;
      if (hasPattern(b.weapon) && !equip(b, now, WeaponId.RIFLE)) return true;
      // A hit zone that moved off the segment between the claimed time and the estimate.
      for (const zone of ZONES) {
        if (!b.zonePoint(p, target, claimed, zone)) return false;
        b.aim.lookAt(p[0]! - eye[0]!, p[1]! - eye[1]!, p[2]! - eye[2]!);
        const m = b.fireMessage(eye, p[0]!, p[1]!, p[2]!, b.shotLength(), claimed, at, target);
        // Only a predicted miss says the estimate takes the target off the segment: a predicted
        // rejection (the bot's own position off, say after a respawn) says nothing of it.
        if (b.predict(m, now).kind !== VerdictKind.MISS) continue;
        b.send(m, Intent.INVALID, OVERRULED);
        cadence.done(now);
        return true;
      }
      return false;
    },
  };
}

function dist2(a: Float64Array, b: Float64Array): number {
  const dx = a[0]! - b[0]!, dy = a[1]! - b[1]!, dz = a[2]! - b[2]!;
  return dx * dx + dy * dy + dz * dz;
}
