/**
 * Spread patterns: where each pellet of a trigger pull goes, from values the client can compute but
 * cannot choose. A pull's pattern is drawn from the match's spread seed (sent at join, in the log
 * header), the shooter's slot and the number of pulls it fired before (its rules state: a seq it
 * could skip ahead to shop for a tight pattern, as Source's command numbers allow; a pull it must
 * fire) through a fixed integer hash, so the shooting client predicts its pellets exactly and the
 * server rebuilds them around the aim; a pull with pellets of another pattern (no spread, another
 * pull's, more pellets) is refused (SPREAD_MISMATCH). The spray radius grows with the shots of a burst (spreadPerShot) and
 * recovers with time, on the shooter's rules state. Integer hashing and + - * /, Math.sqrt only:
 * the same bits in every engine.
 */
import { MAX_PELLETS, type WeaponSpec } from '../weapons';
import type { ShooterState } from './verdict';

/** Draws of the rejection sampler per pellet before it settles on the centre (p < 5e-6 per pellet). */
export const MAX_PATTERN_TRIES = 8;

/**
 * How far a claimed pellet's stop may lie from the rebuilt one: 1e-5 of the aim's length plus a
 * micrometre (a client computing in float32 still agrees; no pellet can be steered by it).
 */
export const PATTERN_TOLERANCE = 1e-5;

/** The default spray recovery, ms per shot forgotten. */
export const DEFAULT_SPREAD_RECOVER_MS = 1000;

/**
 * murmur3's finaliser: a fixed bijection on 32-bit integers with full avalanche. Kept as a signed
 * int32 (a small integer to the engine: no boxed number per call); read the bits with >>>.
 */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** One 32-bit draw for (seed, slot, pull, pellet, try, axis), as a signed int32 (its bits are the draw). */
export function patternHash(seed: number, slot: number, pull: number, pellet: number, attempt: number, axis: number): number {
  let h = fmix32((seed | 0) ^ 0x2545f491);
  h = fmix32(h ^ Math.imul((slot | 0) + 1, 0x9e3779b1));
  h = fmix32(h ^ Math.imul(pull | 0, 0x85ebca77));
  h = fmix32(h ^ Math.imul(((pellet * MAX_PATTERN_TRIES + attempt) * 2 + axis) + 1, 0xc2b2ae3d));
  return h;
}

/** A draw as a number in [-1, 1) with 24 bits (exact in doubles and float32). */
function signedUnit(h: number): number {
  return (h >>> 8) / 8388608 - 1;
}

/**
 * Fills out[2k], out[2k + 1] with pellet k's offset in the unit disc (k < count), uniform over the
 * disc by rejection from the square. Returns out.
 */
export function patternOffsets(out: Float64Array, seed: number, slot: number, pull: number, count: number): Float64Array {
  const n = count < MAX_PELLETS ? count : MAX_PELLETS;
  for (let k = 0; k < n; k++) {
    let u = 0;
    let v = 0;
    for (let a = 0; a < MAX_PATTERN_TRIES; a++) {
      const cu = signedUnit(patternHash(seed, slot, pull, k, a, 0));
      const cv = signedUnit(patternHash(seed, slot, pull, k, a, 1));
      if (cu * cu + cv * cv <= 1) {
        u = cu;
        v = cv;
        break;
      }
    }
    out[2 * k] = u;
    out[2 * k + 1] = v;
  }
  return out;
}

/** Spray heat at `timeMs`: the shots of the burst not yet forgotten (never below 0). */
export function sprayHeatAt(state: ShooterState, weapon: WeaponSpec, timeMs: number): number {
  const recover = weapon.spreadRecoverMs ?? DEFAULT_SPREAD_RECOVER_MS;
  const heat = state.sprayHeat - (timeMs - state.sprayAtMs) / recover;
  return heat > 0 ? heat : 0;
}

/** The pattern's radius one metre out for a shot fired at `heat`. */
export function spreadRadius(weapon: WeaponSpec, heat: number): number {
  const base = weapon.spread ?? 0;
  const per = weapon.spreadPerShot ?? 0;
  const r = base + per * heat;
  const max = weapon.spreadMax ?? 1;
  return r < max ? r : max;
}

/** Records a shot fired at `timeMs` in the spray heat (after the fire rules passed). */
export function applySprayHeat(state: ShooterState, weapon: WeaponSpec, timeMs: number): void {
  state.sprayHeat = sprayHeatAt(state, weapon, timeMs) + 1;
  state.sprayAtMs = timeMs;
}

const scratchFrame = new Float64Array(6);

/**
 * The aim's own frame for a unit direction d, into out: right (out[0..2]) = d x world up, or d x
 * world x within ~26 degrees of the vertical, normalised; up (out[3..5]) = right x d. The frame a
 * pattern's offsets are laid out in (and the audit reads them back in).
 */
export function aimFrame(out: Float64Array, dx: number, dy: number, dz: number): Float64Array {
  let rx: number, ry: number, rz: number;
  if (Math.abs(dy) < 0.9) {
    rx = -dz; ry = 0; rz = dx;
  } else {
    rx = 0; ry = dz; rz = -dy;
  }
  const rl = Math.sqrt(rx * rx + ry * ry + rz * rz);
  rx /= rl; ry /= rl; rz /= rl;
  out[0] = rx; out[1] = ry; out[2] = rz;
  out[3] = ry * dz - rz * dy; out[4] = rz * dx - rx * dz; out[5] = rx * dy - ry * dx;
  return out;
}

/**
 * The stop points of `count` pellets around the aim S -> E with pattern offsets `offsets` and
 * radius `radius` (per metre), three numbers per pellet into `out`: each pellet leaves S along the
 * aim's direction tilted by radius x (u right + v up) and is as long as the aim. Right and up are
 * the aim's own frame (right = aim x world up, or x world x when the aim is within ~26 degrees of
 * vertical). Returns false (out untouched) for a zero-length aim.
 */
export function pelletStops(
  out: Float64Array, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number,
  radius: number, offsets: Float64Array, count: number,
): boolean {
  const ax = ex - sx, ay = ey - sy, az = ez - sz;
  const len2 = ax * ax + ay * ay + az * az;
  if (!(len2 > 0)) return false;
  const len = Math.sqrt(len2);
  const dx = ax / len, dy = ay / len, dz = az / len;
  const f = aimFrame(scratchFrame, dx, dy, dz);
  const rx = f[0]!, ry = f[1]!, rz = f[2]!, ux = f[3]!, uy = f[4]!, uz = f[5]!;
  for (let k = 0; k < count; k++) {
    const ou = radius * offsets[2 * k]!, ov = radius * offsets[2 * k + 1]!;
    const px = dx + ou * rx + ov * ux, py = dy + ou * ry + ov * uy, pz = dz + ou * rz + ov * uz;
    const s = len / Math.sqrt(px * px + py * py + pz * pz);
    out[3 * k] = sx + px * s;
    out[3 * k + 1] = sy + py * s;
    out[3 * k + 2] = sz + pz * s;
  }
  return true;
}

/** Scratch for predictPellets. */
const scratchOffsets = new Float64Array(2 * MAX_PELLETS);

/**
 * The pellets a pull of `weapon` fires at `timeMs` by the shooter in rules state `state` (its slot,
 * the pulls it fired before, its spray heat: the state before the pull), spread seed `seed`, along
 * the aim S -> E, as stop points into `out` (3 per pellet). What the server rebuilds and what a
 * predicting client sends. Returns the pellet count, 0 for a zero-length aim.
 */
export function predictPellets(
  out: Float64Array, seed: number, state: ShooterState, weapon: WeaponSpec, timeMs: number,
  sx: number, sy: number, sz: number, ex: number, ey: number, ez: number,
): number {
  const n = weapon.pellets ?? 1;
  const radius = spreadRadius(weapon, sprayHeatAt(state, weapon, timeMs));
  patternOffsets(scratchOffsets, seed, state.slot, state.pulls, n);
  return pelletStops(out, sx, sy, sz, ex, ey, ez, radius, scratchOffsets, n) ? n : 0;
}
