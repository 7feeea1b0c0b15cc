/**
 * Spread cancelling: at a visible player within 12 m the shotgun is taken, the next pull's pattern
 * is predicted (the match's spread seed, the bot's rules state) once the view has turned onto the
 * target at a person's rate, and the shot's aim is moved off the view against the
 * pattern's lean, so that the pellets' centroid lands on the target's upper torso: the aim goes
 * `strength` of the way from the target to where the centroid would sit on it. The pull is an
 * honest one (its pellets are the pattern around the aim it sends): accepted; the audit's pattern
 * measure (the centroid nearer the target than the aim, pull after pull) must see it.
 */
import { predictPellets } from '../../shared/validate/spread';
import { copyShooterState, createShooterState, VerdictKind, type ShooterState } from '../../shared/validate/verdict';
import { MAX_PELLETS, WeaponId, type WeaponSpec } from '../../shared/weapons';
import { Intent, type Bot, type Profile } from '../bot';
import { Acquired, checkStrength, fireTime } from './common';
import { equip } from './pelletCommon';

/** Nearer than this (m) the profile takes the shotgun and cancels its spread. */
export const SPREAD_CANCEL_RANGE_M = 12;
/** The view within this of the target (radians) before a pull: no shot far off the view. */
const ON_TARGET_RAD = 0.03;

/**
 * The unit direction of the centroid of the pellets' directions (3 numbers per pellet in `stops`,
 * `count` of them) from (sx, sy, sz), into out. False for no pellet.
 */
export function patternCentroid(out: Float64Array, stops: Float64Array, count: number, sx: number, sy: number, sz: number): boolean {
  let cx = 0, cy = 0, cz = 0;
  for (let k = 0; k < count; k++) {
    const dx = stops[3 * k]! - sx, dy = stops[3 * k + 1]! - sy, dz = stops[3 * k + 2]! - sz;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 0)) continue;
    cx += dx / l; cy += dy / l; cz += dz / l;
  }
  const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  if (!(cl > 0)) return false;
  out[0] = cx / cl; out[1] = cy / cl; out[2] = cz / cl;
  return true;
}

/**
 * The aim direction (unit, into out) from the eye whose pattern's centroid points along the unit
 * direction (tx, ty, tz): fixed-point steps (the pattern's frame turns with the aim, by a little).
 * `stops` is scratch (3 x MAX_PELLETS). False for a zero-length aim.
 */
export function cancellingAim(out: Float64Array, stops: Float64Array, seed: number, state: ShooterState, w: WeaponSpec, timeMs: number,
  eye: Float64Array, tx: number, ty: number, tz: number): boolean {
  const c = scratchC;
  let ax = tx, ay = ty, az = tz;
  for (let it = 0; it < 3; it++) {
    const n = predictPellets(stops, seed, state, w, timeMs, eye[0]!, eye[1]!, eye[2]!, eye[0]! + ax, eye[1]! + ay, eye[2]! + az);
    if (n === 0 || !patternCentroid(c, stops, n, eye[0]!, eye[1]!, eye[2]!)) return false;
    ax += tx - c[0]!; ay += ty - c[1]!; az += tz - c[2]!;
    const l = Math.sqrt(ax * ax + ay * ay + az * az);
    ax /= l; ay /= l; az /= l;
  }
  out[0] = ax; out[1] = ay; out[2] = az;
  return true;
}
const scratchC = new Float64Array(3);

export function spreadCancelProfile(strength = 0.8): Profile {
  const s = checkStrength('spreadCancel', strength);
  const a = new Acquired();
  const state: ShooterState = createShooterState(-1, []);
  const stops = new Float64Array(3 * MAX_PELLETS);
  const aim = new Float64Array(3);
  let pulls = 0;
  let residual = 0;
  let engaged = -1;
  return {
    name: 'spreadCancel', strength: s,
    stats: () => ({ cancelledPulls: pulls, meanCentroidOffTargetM: pulls > 0 ? residual / pulls : 0 }),
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !a.find(bot, now, true, SPREAD_CANCEL_RANGE_M)) {
        engaged = -1;
        return false;
      }
      // The view turns onto the target at a person's rate; the pull waits for it.
      if (a.target !== engaged) {
        engaged = a.target;
        bot.aim.engage(a.target, now);
      }
      if (!equip(bot, now, WeaponId.SHOTGUN) || now < bot.aim.readyAt || bot.aim.error() > ON_TARGET_RAD) return true;
      const at = fireTime(bot, now);
      if (!(at === at)) return true;
      const eye = bot.eyeNow;
      const dx = a.point[0]! - eye[0]!, dy = a.point[1]! - eye[1]!, dz = a.point[2]! - eye[2]!;
      const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(dl > 0)) return true;
      const tx = dx / dl, ty = dy / dl, tz = dz / dl;
      copyShooterState(state, bot.weapons.head);
      state.slot = bot.slot;
      if (!cancellingAim(aim, stops, bot.rules.spreadSeed ?? 0, state, bot.weapon, at, eye, tx, ty, tz)) return true;
      // strength of the way from the target to the cancelling aim
      let ux = tx + s * (aim[0]! - tx), uy = ty + s * (aim[1]! - ty), uz = tz + s * (aim[2]! - tz);
      const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
      ux /= ul; uy /= ul; uz /= ul;
      const m = bot.fireMessage(eye, eye[0]! + ux * dl, eye[1]! + uy * dl, eye[2]! + uz * dl, bot.shotLength(), a.t, at, a.target, false);
      if (bot.predict(m, now).kind === VerdictKind.REJECTED) return true;
      // Where the framed pellets' centroid lands against the target (the pattern the server rebuilds).
      const n = bot.fillPattern(m);
      if (!patternCentroid(scratchC, m.pellets, n, m.sx, m.sy, m.sz)) return true;
      bot.send(m, Intent.INHUMAN);
      pulls++;
      const ox = scratchC[0]! - tx, oy = scratchC[1]! - ty, oz = scratchC[2]! - tz;
      residual += dl * Math.sqrt(ox * ox + oy * oy + oz * oz);
      return true;
    },
  };
}
