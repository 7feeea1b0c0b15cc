/**
 * The time series measures of the audit's behaviour ring (measures.ts): how the view moved against
 * a target before a shot (time on the body, tracking wobble and lag, the sweep as it fired), how it
 * moved against a hidden target's bearing before the target came into sight, and how evenly a
 * player's inputs arrived. They read the ring's flat layout (R_* offsets per tick and slot) and
 * allocate nothing. Angles are chords or sines of small angles; no trigonometry.
 */

/** Ticks in the ring (measures.ts REPLAY_RING_TICKS). */
const RING = 256;
/**
 * Ring layout per tick and slot: presence, root position, unit view, life, inputs taken, and the
 * running sums since the replay's first tick of the ticks with an input count, the counts and
 * their squares (a window's sums are two differences: exact, integers in f64).
 */
export const R_PRESENT = 0, R_X = 1, R_Y = 2, R_Z = 3, R_VX = 4, R_VY = 5, R_VZ = 6, R_ALIVE = 7, R_EPOCH = 8, R_INPUTS = 9;
export const R_SUM_N = 10, R_SUM_C = 11, R_SUM_C2 = 12;
/** Movement steps the shooter's tick took (1 when the log does not say). */
export const R_STEPS = 13;
export const R_STRIDE = 14;
/**
 * The target must cross the view at this root-mean-square angular speed (10 degrees per second, in
 * radians per ms) for a regression on its motion (tracking lag, hidden following) to mean anything.
 */
export const MIN_TARGET_RATE = (20 * Math.PI) / 180 / 1000;
/**
 * Tracking lag and wobble are read only while the view stays within this of the target (sine,
 * about 11.5 degrees): a window that still holds the end of a flick, or a view that lost the target, says
 * nothing of how it follows.
 */
export const MAX_TRACK_OFFSET = 0.2;
/** A body's column reaches this far above the eye height, m. */
const HEAD_TOP_M = 0.15;

/** Offset of (tick j, slot) in the ring. */
export function ringSlot(j: number, slots: number, slot: number): number {
  return ((j % RING) * slots + slot) * R_STRIDE;
}

/** Chord between the unit vector f and the direction d (any length > 0): 2 sin(angle / 2). */
export function chord(fx: number, fy: number, fz: number, dx: number, dy: number, dz: number): number {
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(l > 1e-9)) return NaN;
  const ax = fx - dx / l, ay = fy - dy / l, az = fz - dz / l;
  return Math.sqrt(ax * ax + ay * ay + az * az);
}

const inRing = (j: number, serial: number) => j >= 0 && serial - j <= RING;

// Sums of one least-squares line (offset o against velocity r): n, o, o^2, r, r^2, o r.
const residual = new Float64Array(6), residual2 = new Float64Array(6);
function addPoint(s: Float64Array, o: number, r: number): void {
  s[0]! += 1; s[1]! += o; s[2]! += o * o; s[3]! += r; s[4]! += r * r; s[5]! += o * r;
}
/** Variance of the offsets the line through them leaves unexplained (their variance when the velocity did not vary). */
function residualVariance(s: Float64Array): number {
  const n = s[0]!;
  const mo = s[1]! / n, mr = s[3]! / n;
  const vo = Math.max(0, s[2]! / n - mo * mo), vr = s[4]! / n - mr * mr, c = s[5]! / n - mo * mr;
  return Math.max(0, vr > 1e-18 ? vo - (c * c) / vr : vo);
}

export interface TrackOut {
  onTargetMs: number;
  trackError: number;
  trackLag: number;
}

/**
 * Walking back from tick k: how long the view ray has been on the target's body (the target as at
 * tick j - lag against the shooter's eye and view at tick j), and over the lag window the lag
 * regressed from the offset between view and chest (across: sine of the horizontal angle; in
 * height: the difference of the elevations' sines) at tick j against the chest's angular velocity
 * from j - 1 to j, and over the wobble window the wobble that velocity leaves unexplained.
 */
export function trackStats(out: TrackOut, ring: Float64Array, time: Float64Array, slots: number, serial: number, shooter: number, target: number,
  k: number, lag: number, eye: number, chest: number, flat: boolean, w: { wobbleMs: number; lagMs: number; onTargetCapMs: number; bodyHalfWidthM: number }): void {
  const tk = time[k % RING]!;
  const fy = flat ? 0 : 1;
  let onSince = NaN;
  let onTarget = true;
  // Regression sums over consecutive tick pairs: offset o (across and in height) against the chest's angular velocity r.
  let sxy = 0, sxx = 0, m = 0, maxOff = 0, trackOff = 0;
  const h = residual, v = residual2;
  h.fill(0); v.fill(0);
  // The later tick's offsets and chest direction (horizontal unit bearing, elevation sine) and time.
  let pSide = 0, pUp = 0, pBx = 0, pBz = 0, pEl = 0, pT = NaN;
  const epoch = inRing(k - lag, serial) ? ring[ringSlot(k - lag, slots, target) + R_EPOCH]! : NaN;
  for (let j = k; inRing(j - lag, serial); j--) {
    const tj = time[j % RING]!;
    const age = tk - tj;
    if ((!onTarget || age > w.onTargetCapMs) && age > w.wobbleMs && age > w.lagMs) break;
    const so = ringSlot(j, slots, shooter), to = ringSlot(j - lag, slots, target);
    if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) break;
    const ex = ring[so + R_X]!, ey = ring[so + R_Y]! + eye, ez = ring[so + R_Z]!;
    const px = ring[to + R_X]! - ex, py = (ring[to + R_Y]! + chest - ey) * fy, pz = ring[to + R_Z]! - ez;
    const vx = ring[so + R_VX]!, vy = ring[so + R_VY]!, vz = ring[so + R_VZ]!;
    const hd = Math.sqrt(px * px + pz * pz), vh = Math.sqrt(vx * vx + vz * vz);
    if (!(hd > 1e-6) || !(vh > 1e-6)) break;
    const bx = px / hd, bz = pz / hd;
    const el = py / Math.sqrt(hd * hd + py * py);
    const side = (vx * bz - vz * bx) / vh;
    const up = el - vy;
    if (age <= w.wobbleMs || age <= w.lagMs) {
      const dt = pT - tj;
      if (dt > 0) {
        const rh = (bx * pBz - bz * pBx) / dt, rv = (pEl - el) / dt;
        if (age <= w.wobbleMs) { addPoint(h, pSide, rh); addPoint(v, pUp, rv); trackOff = Math.max(trackOff, Math.abs(pSide), Math.abs(pUp)); }
        if (age <= w.lagMs) { sxy += pSide * rh + pUp * rv; sxx += rh * rh + rv * rv; m++; maxOff = Math.max(maxOff, Math.abs(pSide), Math.abs(pUp)); }
      }
      pSide = side; pUp = up; pBx = bx; pBz = bz; pEl = el; pT = tj;
    }
    if (onTarget && age <= w.onTargetCapMs) {
      const cx = vx / vh - bx, cz = vz / vh - bz;
      let on = Math.sqrt(cx * cx + cz * cz) <= Math.min(0.5, w.bodyHalfWidthM / hd);
      if (on && !flat) {
        // The ray's height where it passes the target: within the body's column.
        const rayY = ey + (vy / vh) * hd, root = ring[to + R_Y]!;
        on = rayY >= root && rayY <= root + eye + HEAD_TOP_M;
      }
      if (on) onSince = tj;
      else onTarget = false;
    }
  }
  out.onTargetMs = onSince === onSince ? Math.min(w.onTargetCapMs, tk - onSince) : 0;
  // Lag: offset = lag x velocity (through the origin). Wobble: what of the offset the target's
  // motion does not explain (the residual of the same regression with an intercept), across and in
  // height together (two values per pair).
  out.trackLag = m >= 5 && maxOff <= MAX_TRACK_OFFSET && sxx / m >= MIN_TARGET_RATE * MIN_TARGET_RATE ? sxy / sxx : NaN;
  out.trackError = h[0]! >= 3 && trackOff <= MAX_TRACK_OFFSET ? Math.sqrt(residualVariance(h) + residualVariance(v)) : NaN;
}

/**
 * How fast the view moved against the direction to the target's chest from tick k - 1 to tick k
 * (the last step before the shot), chord per ms; NaN when either tick lacks them.
 */
export function crossSweep(ring: Float64Array, time: Float64Array, slots: number, serial: number, shooter: number, target: number,
  k: number, lag: number, eye: number, chest: number, flat: boolean): number {
  if (!inRing(k - 1 - lag, serial)) return NaN;
  const dt = time[k % RING]! - time[(k - 1) % RING]!;
  if (!(dt > 0)) return NaN;
  // A tick that caught up several inputs at once moved the view by all of them: no crossing speed.
  if (ring[ringSlot(k, slots, shooter) + R_STEPS] !== 1) return NaN;
  const fy = flat ? 0 : 1;
  let rx = 0, ry = 0, rz = 0;
  for (let i = 0; i < 2; i++) {
    const j = k - i;
    const so = ringSlot(j, slots, shooter), to = ringSlot(j - lag, slots, target);
    if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1) return NaN;
    const px = ring[to + R_X]! - ring[so + R_X]!, py = (ring[to + R_Y]! + chest - ring[so + R_Y]! - eye) * fy, pz = ring[to + R_Z]! - ring[so + R_Z]!;
    const l = Math.sqrt(px * px + py * py + pz * pz);
    if (!(l > 1e-6)) return NaN;
    // (view - direction) at k minus the same at k - 1.
    const sgn = i === 0 ? 1 : -1;
    rx += sgn * (ring[so + R_VX]! - px / l); ry += sgn * (ring[so + R_VY]! - py / l); rz += sgn * (ring[so + R_VZ]! - pz / l);
  }
  if (ring[ringSlot(k - lag, slots, target) + R_EPOCH] !== ring[ringSlot(k - 1 - lag, slots, target) + R_EPOCH]) return NaN;
  return Math.sqrt(rx * rx + ry * ry + rz * rz) / dt;
}

/**
 * Over the `windowMs` before the sighting began at tick `first`: the regression gain of the view's
 * horizontal turning (shooter at j + lag) on the target's bearing motion (target at j) -- 1 when
 * the view turns with a player it cannot see, about 0 when it ignores it. NaN when the bearing
 * moved too little.
 */
export function hiddenFollow(ring: Float64Array, time: Float64Array, slots: number, serial: number, shooter: number, target: number,
  first: number, lag: number, epoch: number, windowMs: number): number {
  const start = time[first % RING]!;
  let sxy = 0, sxx = 0, m = 0;
  let pHx = 0, pHz = 0, pBx = 0, pBz = 0, pT = NaN;
  for (let j = first - 1; inRing(j, serial); j--) {
    const tj = time[j % RING]!;
    if (start - tj > windowMs) break;
    const so = ringSlot(j + lag, slots, shooter), to = ringSlot(j, slots, target);
    if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) break;
    const vx = ring[so + R_VX]!, vz = ring[so + R_VZ]!;
    const px = ring[to + R_X]! - ring[so + R_X]!, pz = ring[to + R_Z]! - ring[so + R_Z]!;
    const vh = Math.sqrt(vx * vx + vz * vz), hd = Math.sqrt(px * px + pz * pz);
    if (!(vh > 1e-6) || !(hd > 1e-6)) break;
    const hx = vx / vh, hz = vz / vh, bx = px / hd, bz = pz / hd;
    const dt = pT - tj;
    if (dt > 0) {
      const rv = (hx * pHz - hz * pHx) / dt, rb = (bx * pBz - bz * pBx) / dt;
      sxy += rv * rb; sxx += rb * rb; m++;
    }
    pHx = hx; pHz = hz; pBx = bx; pBz = bz; pT = tj;
  }
  return m >= 5 && sxx / m >= MIN_TARGET_RATE * MIN_TARGET_RATE ? sxy / sxx : NaN;
}

/**
 * Variance over mean of the inputs the shooter's client got in per tick, over its ticks in the
 * `windowMs` up to tick k (index of dispersion: evenly spaced inputs give well under 1, inputs held
 * and released together give about the size of a release). NaN without input counts (a version 3
 * log) or with fewer than 32 ticks. From the running sums: the window's first tick by bisection.
 */
export function inputSpread(ring: Float64Array, time: Float64Array, slots: number, shooter: number, k: number, serial: number, windowMs: number): number {
  const tk = time[k % RING]!;
  // The oldest tick in the ring within the window (times never decrease).
  let lo = Math.max(0, serial - RING), hi = k;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tk - time[mid % RING]! < windowMs) hi = mid;
    else lo = mid + 1;
  }
  const a = ringSlot(k, slots, shooter), b = ringSlot(lo, slots, shooter);
  // Sums over (lo, k] plus tick lo's own counts.
  const c0 = ring[b + R_PRESENT] === 1 && ring[b + R_INPUTS]! >= 0 ? ring[b + R_INPUTS]! : -1;
  const n = ring[a + R_SUM_N]! - ring[b + R_SUM_N]! + (c0 >= 0 ? 1 : 0);
  const s = ring[a + R_SUM_C]! - ring[b + R_SUM_C]! + (c0 >= 0 ? c0 : 0);
  const s2 = ring[a + R_SUM_C2]! - ring[b + R_SUM_C2]! + (c0 >= 0 ? c0 * c0 : 0);
  if (n < 32 || !(s > 0)) return NaN;
  const mean = s / n;
  return Math.max(0, s2 / n - mean * mean) / mean;
}
