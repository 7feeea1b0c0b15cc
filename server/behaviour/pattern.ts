/**
 * The pattern measure of a pull (a shotgun's pellets): where the pellets' centroid sits against the
 * aim and the target. An honest player's aim error and its pull's pattern are independent (the
 * pattern is drawn from the match's seed, the aim from the hand), so across a player's pulls the
 * centroid's lean from the aim does not go with the target's offset from the aim; a client that
 * predicts its pattern and moves its aim against the lean ("spread cancelling") puts the centroid
 * on the target, its aim off it by the lean: the two offsets go together, pull after pull (about a
 * constant offset: a point of the body other than the measured one). The target's point is its
 * rewound upper torso (the verdict's pose). Offsets are in the aim's own frame (right = aim x world up, up =
 * right x aim, as the pattern's: spread.ts pelletStops), as differences of unit directions (no trig).
 */
import type { PelletResults } from '../../shared/validate/pelletVerdict';
import { aimFrame } from '../../shared/validate/spread';

const frame = new Float64Array(6);

export interface PatternMeasure {
  /** The centroid's lean from the aim, right and up. */
  leanR: number; leanU: number;
  /** The target's offset from the aim, right and up. */
  offR: number; offU: number;
  /** Chord between the centroid's direction and the target's. */
  error: number;
}

export function createPatternMeasure(): PatternMeasure {
  return { leanR: NaN, leanU: NaN, offR: NaN, offU: NaN, error: NaN };
}

const TINY = 1e-9;

/**
 * Measures a pull of `pellets.count` pellets (their stops ex, ey, ez as the verdict rebuilt them)
 * from S, aimed along the unit direction (ux, uy, uz), at a target in direction (tx, ty, tz) (any
 * length). Into out; NaN for fewer than 2 pellets.
 */
export function patternMeasure(out: PatternMeasure, pellets: Readonly<PelletResults>, sx: number, sy: number, sz: number,
  ux: number, uy: number, uz: number, tx: number, ty: number, tz: number): PatternMeasure {
  out.leanR = NaN; out.leanU = NaN; out.offR = NaN; out.offU = NaN; out.error = NaN;
  const n = pellets.count;
  if (!(n > 1)) return out;
  let cx = 0, cy = 0, cz = 0;
  for (let k = 0; k < n; k++) {
    const dx = pellets.ex[k]! - sx, dy = pellets.ey[k]! - sy, dz = pellets.ez[k]! - sz;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > TINY)) return out;
    cx += dx / l; cy += dy / l; cz += dz / l;
  }
  const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (!(cl > TINY) || !(tl > TINY)) return out;
  cx /= cl; cy /= cl; cz /= cl;
  const vx = tx / tl, vy = ty / tl, vz = tz / tl;
  const ex = cx - vx, ey = cy - vy, ez = cz - vz;
  out.error = Math.sqrt(ex * ex + ey * ey + ez * ez);
  // The aim's frame, as the pattern was laid out in (spread.ts).
  const f = aimFrame(frame, ux, uy, uz);
  const rx = f[0]!, ry = f[1]!, rz = f[2]!, upx = f[3]!, upy = f[4]!, upz = f[5]!;
  const px = cx - ux, py = cy - uy, pz = cz - uz;
  const qx = vx - ux, qy = vy - uy, qz = vz - uz;
  out.leanR = px * rx + py * ry + pz * rz;
  out.leanU = px * upx + py * upy + pz * upz;
  out.offR = qx * rx + qy * ry + qz * rz;
  out.offU = qx * upx + qy * upy + qz * upz;
  return out;
}

/**
 * A player's pattern pulls summed (add), then read as one statistic: per axis of the aim's frame,
 * the correlation between the centroid's lean and the target's offset, both about the player's own
 * means (a player who aims at another point of the body than the measure's chest offsets every
 * pull alike). Across and up apart: across, where a running target's body leans ahead of its root,
 * the offset carries far more noise than up. Independent, each axis's r has mean 0 and variance
 * 1 / n, and z = (r_across + r_up) sqrt(n / 2) is about N(0, 1).
 */
export class PatternSums {
  n = 0;
  /** Pulls whose centroid sat nearer the target than the aim. */
  nearer = 0;
  // per axis (0 across, 1 up): sums of lean, offset, lean x offset, lean^2, offset^2
  private readonly sums = new Float64Array(10);

  add(m: Readonly<PatternMeasure>): void {
    if (!(m.leanR === m.leanR && m.leanU === m.leanU && m.offR === m.offR && m.offU === m.offU)) return;
    this.n++;
    this.axis(0, m.leanR, m.offR);
    this.axis(5, m.leanU, m.offU);
    // Nearer in the aim's plane: the centroid's offset from the target against the aim's.
    const cr = m.leanR - m.offR, cu = m.leanU - m.offU;
    if (cr * cr + cu * cu < m.offR * m.offR + m.offU * m.offU) this.nearer++;
  }

  private axis(o: number, p: number, q: number): void {
    const s = this.sums;
    s[o] += p; s[o + 1] += q; s[o + 2] += p * q; s[o + 3] += p * p; s[o + 4] += q * q;
  }

  /** The correlation across (axis 0) or up (1); NaN under 3 pulls. */
  correlation(axis: 0 | 1): number {
    const n = this.n;
    if (n < 3) return NaN;
    const s = this.sums, o = 5 * axis;
    const cov = s[o + 2]! - (s[o]! * s[o + 1]!) / n;
    const vp = s[o + 3]! - (s[o]! * s[o]!) / n;
    const vq = s[o + 4]! - (s[o + 1]! * s[o + 1]!) / n;
    return vp > 0 && vq > 0 ? cov / Math.sqrt(vp * vq) : NaN;
  }

  z(): number {
    return (this.correlation(0) + this.correlation(1)) * Math.sqrt(this.n / 2);
  }
}
