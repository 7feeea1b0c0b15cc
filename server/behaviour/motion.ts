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
/** When the tick's view was aimed, on the client's estimate of the server clock, ms (NaN unknown). */
export const R_VIEW_T = 14;
export const R_STRIDE = 15;
/**
 * A view time further than this from its tick's time is not believed (a client's clock estimate is
 * off by a few ms, a TCP stall holds a view back by up to a second or two): the view is then taken
 * as aimed a fixed lag before its tick, as for a log without view times.
 */
export const VIEW_TIME_SLACK_MS = 3000;
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
export const HEAD_TOP_M = 0.15;

/**
 * Whether a view ray from the eye (ex, ey, ez) along (vx, vy, vz) (any length, not vertical) passes
 * over a body standing at (rx, ry, rz): within `halfWidth` m of the root's vertical axis across the
 * view (as a chord of the horizontal bearing, at most 0.5) and, unless `flat`, between the root and
 * `eye` + HEAD_TOP_M above it where it passes. The audit's time on the body reads it; the synthetic
 * players confirm against the same body.
 */
export function viewOnBody(ex: number, ey: number, ez: number, vx: number, vy: number, vz: number,
  rx: number, ry: number, rz: number, eye: number, halfWidth: number, flat: boolean): boolean {
  const px = rx - ex, pz = rz - ez;
  const hd = Math.sqrt(px * px + pz * pz), vh = Math.sqrt(vx * vx + vz * vz);
  if (!(hd > 1e-6) || !(vh > 1e-6)) return false;
  const cx = vx / vh - px / hd, cz = vz / vh - pz / hd;
  if (!(Math.sqrt(cx * cx + cz * cz) <= Math.min(0.5, halfWidth / hd))) return false;
  if (flat) return true;
  const rayY = ey + (vy / vh) * hd;
  return rayY >= ry && rayY <= ry + eye + HEAD_TOP_M;
}

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

/** Whether the slot at ring offset o is present and alive, in life `epoch` (any when NaN). */
function live(ring: Float64Array, o: number, epoch: number): boolean {
  return ring[o + R_PRESENT] === 1 && ring[o + R_ALIVE] === 1 && (epoch !== epoch || ring[o + R_EPOCH] === epoch);
}

// The target's root where targetFor found it (x, y, z), the time it stands for and its life.
const tgt = new Float64Array(5);

/**
 * Where `target` stood as the shooter's client showed it when it aimed the view recorded at tick
 * j: at the view's time less the client's render delay `delayMs` (the shot's action time less its
 * render time), linear between the two ticks around that time; or, when the log has no view time,
 * the delay is unknown or the view time is implausible, at tick j - lag. Writes x y z, the time and
 * the epoch into tgt. False when the target is absent, dead, or (epoch not NaN) in another life.
 */
function targetFor(ring: Float64Array, time: Float64Array, slots: number, serial: number, shooter: number, target: number,
  j: number, lag: number, delayMs: number, epoch: number): boolean {
  const vt = ring[ringSlot(j, slots, shooter) + R_VIEW_T]!;
  if (delayMs === delayMs && vt === vt && Math.abs(vt - time[j % RING]!) <= VIEW_TIME_SLACK_MS) {
    const t = vt - delayMs;
    const newest = serial - 1;
    // The newest tick at or before t, searched from the fixed-lag guess.
    let a = Math.min(newest, Math.max(j - lag, serial - RING, 0));
    while (inRing(a - 1, serial) && time[a % RING]! > t) a--;
    while (a < newest && time[(a + 1) % RING]! <= t) a++;
    if (!inRing(a, serial) || time[a % RING]! > t) return false;
    const oa = ringSlot(a, slots, target);
    if (!live(ring, oa, epoch)) return false;
    const ta = time[a % RING]!;
    let f = 0, ob = oa;
    if (a < newest) {
      const b = ringSlot(a + 1, slots, target), tb = time[(a + 1) % RING]!;
      if (live(ring, b, ring[oa + R_EPOCH]!) && tb > ta) { ob = b; f = Math.min(1, (t - ta) / (tb - ta)); }
    }
    tgt[0] = ring[oa + R_X]! + (ring[ob + R_X]! - ring[oa + R_X]!) * f;
    tgt[1] = ring[oa + R_Y]! + (ring[ob + R_Y]! - ring[oa + R_Y]!) * f;
    tgt[2] = ring[oa + R_Z]! + (ring[ob + R_Z]! - ring[oa + R_Z]!) * f;
    tgt[3] = t;
    tgt[4] = ring[oa + R_EPOCH]!;
    return true;
  }
  if (!inRing(j - lag, serial)) return false;
  const o = ringSlot(j - lag, slots, target);
  if (!live(ring, o, epoch)) return false;
  tgt[0] = ring[o + R_X]!; tgt[1] = ring[o + R_Y]!; tgt[2] = ring[o + R_Z]!;
  tgt[3] = time[(j - lag) % RING]!;
  tgt[4] = ring[o + R_EPOCH]!;
  return true;
}

/**
 * Walking back from tick k: how long the view ray has been on the target's body (the target as the
 * client showed it when it aimed the view of tick j, see targetFor, against the shooter's eye and
 * view at tick j), and over the lag window the lag
 * regressed from the offset between view and chest (across: sine of the horizontal angle; in
 * height: the difference of the elevations' sines) at tick j against the chest's angular velocity
 * from j - 1 to j, and over the wobble window the wobble that velocity leaves unexplained.
 */
export function trackStats(out: TrackOut, ring: Float64Array, time: Float64Array, slots: number, serial: number, shooter: number, target: number,
  k: number, lag: number, delayMs: number, eye: number, chest: number, flat: boolean,
  w: { wobbleMs: number; lagMs: number; onTargetCapMs: number; bodyHalfWidthM: number }): void {
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
  let epoch = NaN;
  for (let j = k; inRing(j, serial); j--) {
    const tj = time[j % RING]!;
    const age = tk - tj;
    if ((!onTarget || age > w.onTargetCapMs) && age > w.wobbleMs && age > w.lagMs) break;
    const so = ringSlot(j, slots, shooter);
    if (ring[so + R_PRESENT] !== 1 || !targetFor(ring, time, slots, serial, shooter, target, j, lag, delayMs, epoch)) break;
    epoch = tgt[4]!;
    // The target's time: consecutive ticks that hold one view (no input stepped) stand for one instant.
    const tt = tgt[3]!;
    const ex = ring[so + R_X]!, ey = ring[so + R_Y]! + eye, ez = ring[so + R_Z]!;
    const px = tgt[0]! - ex, py = (tgt[1]! + chest - ey) * fy, pz = tgt[2]! - ez;
    const vx = ring[so + R_VX]!, vy = ring[so + R_VY]!, vz = ring[so + R_VZ]!;
    const hd = Math.sqrt(px * px + pz * pz), vh = Math.sqrt(vx * vx + vz * vz);
    if (!(hd > 1e-6) || !(vh > 1e-6)) break;
    const bx = px / hd, bz = pz / hd;
    const el = py / Math.sqrt(hd * hd + py * py);
    const side = (vx * bz - vz * bx) / vh;
    const up = el - vy;
    if (age <= w.wobbleMs || age <= w.lagMs) {
      const dt = pT - tt;
      if (dt > 0) {
        const rh = (bx * pBz - bz * pBx) / dt, rv = (pEl - el) / dt;
        if (age <= w.wobbleMs) { addPoint(h, pSide, rh); addPoint(v, pUp, rv); trackOff = Math.max(trackOff, Math.abs(pSide), Math.abs(pUp)); }
        if (age <= w.lagMs) { sxy += pSide * rh + pUp * rv; sxx += rh * rh + rv * rv; m++; maxOff = Math.max(maxOff, Math.abs(pSide), Math.abs(pUp)); }
      }
      if (!(dt <= 0)) { pSide = side; pUp = up; pBx = bx; pBz = bz; pEl = el; pT = tt; }
    }
    if (onTarget && age <= w.onTargetCapMs) {
      if (viewOnBody(ex, ey, ez, vx, vy, vz, tgt[0]!, tgt[1]!, tgt[2]!, eye, w.bodyHalfWidthM, flat)) onSince = tj;
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
 * How fast the view moved against the direction to the target's chest over the last step before
 * the shot, chord per ms: from the newest earlier view aimed before the view of tick k (a tick that
 * stepped no input holds its view) to that view, each against the target as the client showed it
 * then (targetFor). NaN when the ticks lack them; without view times, from tick k - 1 to tick k, and
 * NaN when tick k caught up several inputs at once (it moved the view by all of them).
 */
export function crossSweep(ring: Float64Array, time: Float64Array, slots: number, serial: number, shooter: number, target: number,
  k: number, lag: number, delayMs: number, eye: number, chest: number, flat: boolean): number {
  const fy = flat ? 0 : 1;
  const vk = ring[ringSlot(k, slots, shooter) + R_VIEW_T]!;
  const timed = delayMs === delayMs && vk === vk;
  if (!timed && ring[ringSlot(k, slots, shooter) + R_STEPS] !== 1) return NaN;
  let j1 = k - 1;
  if (timed) {
    // The newest earlier tick whose view was aimed before tick k's (a few ticks back at most).
    while (inRing(j1, serial) && k - j1 <= 8 && !(ring[ringSlot(j1, slots, shooter) + R_VIEW_T]! < vk)) j1--;
    if (!inRing(j1, serial) || k - j1 > 8) return NaN;
  }
  let rx = 0, ry = 0, rz = 0, t0 = NaN, epoch = NaN;
  for (let i = 0; i < 2; i++) {
    const j = i === 0 ? k : j1;
    const so = ringSlot(j, slots, shooter);
    if (ring[so + R_PRESENT] !== 1 || !targetFor(ring, time, slots, serial, shooter, target, j, lag, delayMs, epoch)) return NaN;
    epoch = tgt[4]!;
    const px = tgt[0]! - ring[so + R_X]!, py = (tgt[1]! + chest - ring[so + R_Y]! - eye) * fy, pz = tgt[2]! - ring[so + R_Z]!;
    const l = Math.sqrt(px * px + py * py + pz * pz);
    if (!(l > 1e-6)) return NaN;
    // (view - direction) at k minus the same at the earlier view.
    const sgn = i === 0 ? 1 : -1;
    rx += sgn * (ring[so + R_VX]! - px / l); ry += sgn * (ring[so + R_VY]! - py / l); rz += sgn * (ring[so + R_VZ]! - pz / l);
    t0 = i === 0 ? tgt[3]! : t0 - tgt[3]!;
  }
  return t0 > 0 ? Math.sqrt(rx * rx + ry * ry + rz * rz) / t0 : NaN;
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

/** The oldest tick in the ring within windowMs before tick k (times never decrease), by bisection. */
export function windowStart(time: Float64Array, serial: number, k: number, windowMs: number): number {
  const tk = time[k % RING]!;
  let lo = Math.max(0, serial - RING), hi = k;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tk - time[mid % RING]! < windowMs) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// windowInputs' answer: ticks with input counts, inputs, inputs squared.
const sums = new Float64Array(3);

/** Into sums: over the shooter's ticks lo..k that carry input counts, their number, the inputs and the inputs squared (from the ring's running sums). */
function windowInputs(ring: Float64Array, slots: number, shooter: number, lo: number, k: number): void {
  const a = ringSlot(k, slots, shooter), b = ringSlot(lo, slots, shooter);
  // Sums over (lo, k] plus tick lo's own counts.
  const c0 = ring[b + R_PRESENT] === 1 && ring[b + R_INPUTS]! >= 0 ? ring[b + R_INPUTS]! : -1;
  sums[0] = ring[a + R_SUM_N]! - ring[b + R_SUM_N]! + (c0 >= 0 ? 1 : 0);
  sums[1] = ring[a + R_SUM_C]! - ring[b + R_SUM_C]! + (c0 >= 0 ? c0 : 0);
  sums[2] = ring[a + R_SUM_C2]! - ring[b + R_SUM_C2]! + (c0 >= 0 ? c0 * c0 : 0);
}

/**
 * Variance over mean of the inputs the shooter's client got in per tick, over its ticks lo..k (the
 * input window, windowStart; index of dispersion: evenly spaced inputs give well under 1, inputs
 * held and released together give about the size of a release). NaN without input counts (a
 * version 3 log) or with fewer than 32 ticks. From the running sums.
 */
export function inputSpread(ring: Float64Array, slots: number, shooter: number, lo: number, k: number): number {
  windowInputs(ring, slots, shooter, lo, k);
  const n = sums[0]!, s = sums[1]!, s2 = sums[2]!;
  if (n < 32 || !(s > 0)) return NaN;
  const mean = s / n;
  return Math.max(0, s2 / n - mean * mean) / mean;
}

/** A hold of the input stream counts from this long (ms), and from 2.5 of the client's frame intervals. */
export const SHORT_HOLD_MIN_MS = 50;
/** ... up to under this (ms): TCP's least retransmission timeout, so no lost segment makes one. */
export const SHORT_HOLD_MAX_MS = 200;

/**
 * Holds of the shooter's input stream over its ticks lo..k (the windowMs before tick k,
 * windowStart), per second: gaps between
 * ticks that took its inputs of at least SHORT_HOLD_MIN_MS and 2.5 of its frame intervals (its
 * inputs per ms over the window) and under SHORT_HOLD_MAX_MS, ended by a tick that took two or more
 * (what was held arrives together). A lost segment stalls the stream for a retransmission timeout,
 * 200 ms or more; a slow frame rate leaves gaps but no bunch; a client hitch now and then leaves
 * one. A client that chokes its own stream (fake lag) leaves them over and over. The gap is held
 * against the client only over ticks the server ran on time: each tick interval counts up to the
 * window's mean, so a server that stalled (a long tick, a busy event loop) and then took what
 * arrived meanwhile makes no hold. NaN without input counts or with under half a window of ticks;
 * gaps across a death are not counted.
 */
export function shortHolds(ring: Float64Array, time: Float64Array, slots: number, shooter: number, lo: number, k: number, windowMs: number): number {
  const tk = time[k % RING]!;
  windowInputs(ring, slots, shooter, lo, k);
  const ticks = sums[0]!, inputs = sums[1]!;
  const spanMs = tk - time[lo % RING]!;
  if (ticks < 32 || !(spanMs >= windowMs / 2) || !(inputs > 0)) return NaN;
  const minMs = Math.max(SHORT_HOLD_MIN_MS, (2.5 * spanMs) / inputs);
  // The window's mean tick interval: what one tick of a server on time takes.
  const tickMs = spanMs / (k - lo);
  let holds = 0;
  // Since the last tick that took inputs: the time, and the part of it the server ran on time.
  let lastTaken = NaN, held = NaN;
  for (let j = lo; j <= k; j++) {
    const so = ringSlot(j, slots, shooter);
    if (ring[so + R_PRESENT] !== 1 || ring[so + R_ALIVE] !== 1) { lastTaken = NaN; held = NaN; continue; }
    if (j > lo) held += Math.min(time[j % RING]! - time[(j - 1) % RING]!, tickMs);
    const c = ring[so + R_INPUTS]!;
    if (!(c > 0)) continue;
    const gap = time[j % RING]! - lastTaken;
    if (c >= 2 && held >= minMs && gap < SHORT_HOLD_MAX_MS) holds++;
    lastTaken = time[j % RING]!;
    held = 0;
  }
  return (holds * 1000) / spanMs;
}
