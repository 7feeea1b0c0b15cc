/**
 * Behaviour measures of the audit replay: what the per-player flags read besides the verdicts.
 * `BehaviourRing` keeps the last REPLAY_RING_TICKS ticks of every slot (presence, position, view,
 * life, input arrivals) as the replay applies tick records, and measures each shot against them
 * (ShotMeasures): which player it was aimed at, how long that player had been in sight (reaction),
 * how the view moved before the shot (turn speed, time on the body, how fast the crosshair swept
 * across the target as it fired, tracking wobble and lag, where it pointed and whom it followed
 * while the target was hidden), how the shot's direction sat against the view and the target, and
 * how evenly the shooter's inputs arrived.
 *
 * What the log gives: every tick, each player's root position and the view direction the room
 * applied (a unit 3D vector; format 4 on). Angles are chords between unit vectors (2 sin(angle/2)):
 * no trigonometry in shared/, equal to the angle in radians for small angles and within 10% of it
 * up to 90 degrees; the server converts to degrees. A version 3 log has no view, only the body's
 * heading: its ring is `flat`, every direction horizontal, and the input measure is unknown.
 * The target is looked at at its chest (CHEST_OF_EYE of the eye height above its root); its body
 * is a vertical column of half-width bodyHalfWidthM from its root to just above its eye.
 * In sight = in the field of view (horizontal heading within `fovHalfCos` of the direction to the
 * target) and in line of sight from the eye to the target's head or chest. Pure: no clock, no Node
 * module; world queries go through ReplayWorld. The time series measures are in ./motion.
 */
import {
  chord, crossSweep, hiddenFollow, inputSpread, ringSlot, shortHolds, trackStats, windowStart, R_ALIVE, R_EPOCH, R_INPUTS, R_PRESENT, R_STEPS, R_STRIDE, R_SUM_C, R_VIEW_T, R_SUM_C2, R_SUM_N, R_VX, R_VY, R_VZ, R_X, R_Y, R_Z,
  type TrackOut,
} from './motion';
import { clearShotMeasures, type MeasureWindows, type ShotMeasures } from './shotMeasures';
import { createPatternMeasure, patternMeasure } from './pattern';
import type { PelletResults } from '../../shared/validate/pelletVerdict';
import type { ObservedShot } from '../../shared/audit/observer';
import { HitZone } from '../../shared/rig/rig';

export { clearShotMeasures, createShotMeasures, DEFAULT_MEASURE_WINDOWS, type MeasureWindows, type ShotMeasures } from './shotMeasures';

/** The world query reaction time needs (World.anyHit). */
export interface ReplayWorld {
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
}

/**
 * The pose fields the ring keeps of a tick record's slot: the view (vx, vy, vz; NaN in a version 3
 * log, where the heading comes from the yaw quaternion qy, qw), the inputs taken (NaN unknown) and
 * the movement steps the tick took (NaN unknown: taken as 1).
 */
export interface RingPose {
  x: number; y: number; z: number; qy: number; qw: number; alive: boolean; epoch: number;
  vx: number; vy: number; vz: number; inputs: number; steps: number;
  /** When the view was aimed, on the client's clock, ms (NaN unknown: before format 6, or unstamped inputs). */
  viewTimeMs: number;
}

/**
 * Per-slot ring of the last RING ticks. Feeds the reaction, snap and tracking measures (the
 * histories' own rings are sized for the rewind window only).
 */
export const REPLAY_RING_TICKS = 256;
const RING = REPLAY_RING_TICKS;
/** Ticks between the client rendering what it aimed at and the room applying that input's view (see measureShot). */
export const VIEW_INPUT_TICKS = 1;
/** fovState's answers. */
const FOV_ABSENT = 0, FOV_OUTSIDE = 1, FOV_INSIDE = 2, FOV_ON_TOP = 3;
/** The chest, where the measures look at a target: this share of the eye height above its root. */
export const CHEST_OF_EYE = 0.775;

const track: TrackOut = { onTargetMs: 0, trackError: NaN, trackLag: NaN };
const pattern = createPatternMeasure();
const bodyPt = new Float64Array(3);

/** The measures' tick ring and line-of-sight memo of one replay. */
export class BehaviourRing {
  readonly slots: number;
  readonly pairs: number;
  readonly ring: Float64Array;
  readonly ringTime = new Float64Array(RING);
  /**
   * Line-of-sight memo per (ring tick of the target, shooter, target): 0 unknown, else
   * 1 + 2 x lag + visible, for the shooter's eye `lag` ticks later. Answers depend only on the ticks,
   * so replays and shards in any order agree.
   */
  readonly memo: Int32Array;
  /** Ticks seen; ring index = serial % RING. */
  serial = 0;
  /** The chest above the root, m. */
  readonly chest: number;

  /** `flat`: the log has no view (version 3): every direction is taken horizontally. */
  constructor(slots: number, readonly world: ReplayWorld, readonly eye: number, readonly flat = false) {
    this.slots = slots;
    this.pairs = slots * slots;
    this.ring = new Float64Array(RING * slots * R_STRIDE);
    this.memo = new Int32Array(RING * this.pairs);
    this.chest = CHEST_OF_EYE * eye;
  }

  /** Starts the next tick: every slot absent until put (its input sums carried on). Returns the tick's base for putSlot. */
  beginTick(): number {
    const slots = this.slots;
    const ring = this.ring;
    const r = (this.serial % RING) * slots * R_STRIDE;
    const p = ((this.serial + RING - 1) % RING) * slots * R_STRIDE;
    const first = this.serial === 0;
    for (let s = 0, o = r, q = p; s < slots; s++, o += R_STRIDE, q += R_STRIDE) {
      ring[o + R_PRESENT] = 0;
      ring[o + R_SUM_N] = first ? 0 : ring[q + R_SUM_N]!;
      ring[o + R_SUM_C] = first ? 0 : ring[q + R_SUM_C]!;
      ring[o + R_SUM_C2] = first ? 0 : ring[q + R_SUM_C2]!;
    }
    return r;
  }

  /** One present slot of the tick begun at base `r` (slot < slots). */
  putSlot(r: number, slot: number, p: RingPose): void {
    const ring = this.ring;
    const o = r + slot * R_STRIDE;
    ring[o + R_PRESENT] = 1;
    ring[o + R_X] = p.x; ring[o + R_Y] = p.y; ring[o + R_Z] = p.z;
    const l2 = p.vx * p.vx + p.vy * p.vy + p.vz * p.vz;
    if (!this.flat && l2 > 0.5 && l2 < 2) {
      const inv = 1 / Math.sqrt(l2);
      ring[o + R_VX] = p.vx * inv; ring[o + R_VY] = p.vy * inv; ring[o + R_VZ] = p.vz * inv;
    } else if (!this.flat && !(l2 === l2)) {
      // A game that does not say where its players look (format 7): no view, and no measure that
      // reads one, rather than the body's heading standing in for it.
      ring[o + R_VX] = NaN; ring[o + R_VY] = NaN; ring[o + R_VZ] = NaN;
    } else {
      // The heading: +Z turned by the yaw quaternion (0, qy, 0, qw): (2 qy qw, 1 - 2 qy^2) in x, z.
      ring[o + R_VX] = 2 * p.qy * p.qw; ring[o + R_VY] = 0; ring[o + R_VZ] = 1 - 2 * p.qy * p.qy;
    }
    ring[o + R_ALIVE] = p.alive ? 1 : 0; ring[o + R_EPOCH] = p.epoch;
    const c = this.flat ? NaN : p.inputs;
    ring[o + R_INPUTS] = c;
    // A tick that stepped several inputs (catching up what TCP held back) turned the view by as many
    // steps: turn speeds are read per step.
    ring[o + R_STEPS] = p.steps > 1 ? p.steps : 1;
    ring[o + R_VIEW_T] = p.viewTimeMs;
    if (c >= 0) { ring[o + R_SUM_N]! += 1; ring[o + R_SUM_C]! += c; ring[o + R_SUM_C2]! += c * c; }
  }

  /** Closes the tick begun last. */
  endTick(tickMs: number): void {
    const ri = this.serial % RING;
    this.ringTime[ri] = tickMs;
    this.memo.fill(0, ri * this.pairs, (ri + 1) * this.pairs);
    this.serial++;
  }

  /** Offset of (tick j, slot) in the ring. */
  private at(j: number, slot: number): number {
    return ringSlot(j, this.slots, slot);
  }

  /** The newest tick at or before `ms` (-1 when none is in the ring). */
  private tickAt(ms: number): number {
    const serial = this.serial;
    let k = serial - 1;
    while (k >= 0 && serial - k <= RING && this.ringTime[k % RING]! > ms) k--;
    return k >= 0 && serial - k <= RING ? k : -1;
  }

  private inRing(j: number): boolean {
    return j >= 0 && this.serial - j <= RING;
  }

  /**
   * Measures one shot by `shooter` (< slots): `hitTarget` is the player hit (-1 for a miss),
   * `claimedTarget` the one the message names (-1 none), the segment's start and stop, its receive,
   * action (claimed; NaN unknown) and rewound times. Into out.
   */
  measureShot(out: ShotMeasures, shooter: number, hitTarget: number, claimedTarget: number, receiveMs: number, actionMs: number, rewindMs: number,
    sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, w: MeasureWindows, pellets: Readonly<PelletResults> | null = null, body: ObservedShot['body'] = null): ShotMeasures {
    clearShotMeasures(out);
    const ring = this.ring;
    const time = this.ringTime;
    // The shot's tick: the newest recorded before it was judged. A room judges a message once the
    // inputs sent before it are stepped, so this tick's view is the one it was fired along.
    const k = this.serial - 1;
    if (k < 0) return out;
    let gap = 0;
    for (let j = k; this.inRing(j - 1) && receiveMs - time[j % RING]! <= 500; j--) gap = Math.max(gap, time[j % RING]! - time[(j - 1) % RING]!);
    out.serverGapMs = Math.max(gap, receiveMs - time[k % RING]!);
    const lo = windowStart(time, this.serial, k, w.inputWindowMs);
    out.inputSpread = inputSpread(ring, this.slots, shooter, lo, k);
    out.shortHolds = shortHolds(ring, time, this.slots, shooter, lo, k, w.inputWindowMs);
    const so = this.at(k, shooter);
    if (ring[so + R_PRESENT] !== 1) return out;
    out.inputAheadMs = ring[so + R_VIEW_T]! - actionMs;
    const fy = this.flat ? 0 : 1;
    const dx = ex - sx, dy = (ey - sy) * fy, dz = ez - sz;
    const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(dl > 1e-9)) return out;
    const ux = dx / dl, uy = dy / dl, uz = dz / dl;
    out.snapCos = snapMeasure(ring, time, this.slots, shooter, k, this.serial, ux, uy, uz, receiveMs - w.snapWindowMs);
    out.viewOffset = chord(ring[so + R_VX]!, ring[so + R_VY]!, ring[so + R_VZ]!, ux, uy, uz);
    // The rewound tick: where the shooter saw its target.
    const kw = rewindMs === rewindMs ? this.tickAt(rewindMs) : k;
    if (kw < 0) return out;
    const chest = this.chest;
    // The player the client says it aimed at, when the shot went near it; else the one it hit.
    let target = -1;
    if (claimedTarget >= 0 && claimedTarget < this.slots && claimedTarget !== shooter) {
      if (this.missBy(kw, claimedTarget, sx, sy, sz, ux, uy, uz, w.missTargetChord) < Infinity) target = claimedTarget;
    }
    if (target < 0 && hitTarget >= 0 && hitTarget < this.slots && hitTarget !== shooter) target = hitTarget;
    if (target < 0) {
      // The player the ray passed closest to, in metres at that player, among those within the chord.
      let best = Infinity;
      for (let t = 0; t < this.slots; t++) {
        if (t === shooter) continue;
        const miss = this.missBy(kw, t, sx, sy, sz, ux, uy, uz, w.missTargetChord);
        if (miss < best) { best = miss; target = t; }
      }
    }
    if (target < 0) return out;
    out.target = target;
    const tw = this.at(kw, target);
    const tx = ring[tw + R_X]! - sx, tz = ring[tw + R_Z]! - sz;
    out.shotError = chord(ux, uy, uz, tx, (ring[tw + R_Y]! + chest - sy) * fy, tz);
    out.distance = Math.sqrt(tx * tx + tz * tz);
    if (pellets !== null && !this.flat) {
      // The target's upper torso as the verdict posed it (the animated body: its torso leans some
      // 10 cm off the root as it runs, as much as a pattern's lean); without one, its chest at the
      // rewound time itself (between the ticks around it).
      let px = tx, py = ring[tw + R_Y]! + chest - sy, pz = tz;
      const t0 = time[kw % RING]!;
      if (body !== null && body.at(bodyPt, target, rewindMs, HitZone.UPPER_TORSO)) {
        px = bodyPt[0]! - sx; py = bodyPt[1]! - sy; pz = bodyPt[2]! - sz;
      } else if (kw + 1 <= k && rewindMs > t0) {
        const tn = this.at(kw + 1, target);
        const f = (rewindMs - t0) / (time[(kw + 1) % RING]! - t0);
        if (ring[tn + R_PRESENT] === 1 && f > 0 && f < 1) {
          px += f * (ring[tn + R_X]! - ring[tw + R_X]!); py += f * (ring[tn + R_Y]! - ring[tw + R_Y]!); pz += f * (ring[tn + R_Z]! - ring[tw + R_Z]!);
        }
      }
      patternMeasure(pattern, pellets, sx, sy, sz, ux, uy, uz, px, py, pz);
      out.patternLeanR = pattern.leanR; out.patternLeanU = pattern.leanU;
      out.patternOffR = pattern.offR; out.patternOffU = pattern.offU;
      out.patternError = pattern.error;
    }
    // The view at tick j against the target as the shooter saw it then: `lag` ticks earlier.
    const lag = k - kw;
    // The view a tick records is the input that arrived before it: sent about a tick earlier,
    // against the target as rendered then.
    const viewLag = lag + VIEW_INPUT_TICKS;
    // With view times (format 6), each view is held against the target as the client showed it when
    // it aimed that view: its time less the client's render delay (the action time less the render
    // time), whatever the network and the input queue did in between.
    const delay = actionMs - rewindMs;
    trackStats(track, ring, time, this.slots, this.serial, shooter, target, k, viewLag, delay, this.eye, chest, this.flat, w);
    out.onTargetMs = track.onTargetMs;
    out.trackError = track.trackError;
    out.trackLag = track.trackLag;
    out.sweep = crossSweep(ring, time, this.slots, this.serial, shooter, target, k, viewLag, delay, this.eye, chest, this.flat);
    this.sighting(out, shooter, target, kw, k, lag, rewindMs, w);
    return out;
  }

  /**
   * How far (m, at the player) the ray from s along u passed the chest of player t at tick kw;
   * Infinity when t is absent, dead or more than `maxChord` off the ray's direction.
   */
  private missBy(kw: number, t: number, sx: number, sy: number, sz: number, ux: number, uy: number, uz: number, maxChord: number): number {
    const ring = this.ring;
    const to = this.at(kw, t);
    if (ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1) return Infinity;
    const px = ring[to + R_X]! - sx, py = (ring[to + R_Y]! + this.chest - sy) * (this.flat ? 0 : 1), pz = ring[to + R_Z]! - sz;
    const c = chord(ux, uy, uz, px, py, pz);
    return c < maxChord ? c * Math.sqrt(px * px + py * py + pz * pz) : Infinity;
  }

  /**
   * The sighting the rewound tick kw belongs to: walks back while the target stays in sight (same
   * life, in the field of view, in line of sight), then reads the turn speed from there to the
   * shot and the pre-aim before it. The target at tick j is what the shooter saw `lag` ticks later
   * (its render delay), so it is judged against the shooter's view and eye at tick j + lag.
   */
  private sighting(out: ShotMeasures, shooter: number, target: number, kw: number, k: number, lag: number, rewindMs: number, w: MeasureWindows): void {
    const ring = this.ring;
    const time = this.ringTime;
    const limitMs = rewindMs - w.lookbackMs;
    const epoch = ring[this.at(kw, target) + R_EPOCH]!;
    let first = -1;
    let capped = false;
    for (let j = kw; ; j--) {
      if (!this.inRing(j) || time[j % RING]! < limitMs) { capped = true; break; }
      if (!this.inSight(j, lag, shooter, target, epoch, w.fovHalfCos)) break;
      first = j;
    }
    // Turn speed from the sighting's start (or over the track window) to the shot's tick.
    const tk = time[k % RING]!;
    let peak = NaN;
    for (let j = k; this.inRing(j - 1); j--) {
      const tj = time[j % RING]!;
      if (first >= 0 && !capped ? j <= first : tk - tj > w.trackMs) break;
      const a = this.at(j, shooter), b = this.at(j - 1, shooter);
      if (ring[a + R_PRESENT] !== 1 || ring[b + R_PRESENT] !== 1) break;
      const dt = tj - time[(j - 1) % RING]!;
      if (!(dt > 0)) continue;
      const ax = ring[a + R_VX]! - ring[b + R_VX]!, ay = ring[a + R_VY]! - ring[b + R_VY]!, az = ring[a + R_VZ]! - ring[b + R_VZ]!;
      const v = Math.sqrt(ax * ax + ay * ay + az * az) / dt / ring[a + R_STEPS]!;
      if (!(v <= peak)) peak = v;
    }
    out.peakTurn = peak;
    if (first < 0 || capped) return;
    const start = time[first % RING]!;
    out.sightStartMs = start;
    out.reactionMs = rewindMs - start;
    // Where the view pointed, and whom it followed, while the target was behind cover just before
    // it came into sight (a sighting that began at the edge of the view says nothing of that).
    if (!this.behindCover(first - 1, lag, shooter, target, epoch, w.fovHalfCos)) return;
    const fy = this.flat ? 0 : 1;
    let sum = 0, n = 0;
    for (let j = first - 1; this.inRing(j); j--) {
      if (start - time[j % RING]! > w.preAimMs) break;
      const so = this.at(j + lag, shooter), to = this.at(j, target);
      if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) break;
      const c = chord(ring[so + R_VX]!, ring[so + R_VY]!, ring[so + R_VZ]!, ring[to + R_X]! - ring[so + R_X]!,
        (ring[to + R_Y]! + this.chest - ring[so + R_Y]! - this.eye) * fy, ring[to + R_Z]! - ring[so + R_Z]!);
      if (c === c) { sum += c; n++; }
    }
    if (n > 0) out.preAim = sum / n;
    out.hiddenFollow = hiddenFollow(ring, time, this.slots, this.serial, shooter, target, first, lag, epoch, w.hiddenMs);
  }

  /**
   * The target as at tick j against the shooter as at tick j + lag: FOV_ABSENT when either is
   * absent, the target dead or in another life; FOV_OUTSIDE when out of the field of view;
   * FOV_INSIDE when in it; FOV_ON_TOP when the two stand too close (or the view is too steep) to
   * tell a direction.
   */
  private fovState(j: number, lag: number, shooter: number, target: number, epoch: number, fovHalfCos: number): number {
    const ring = this.ring;
    const so = this.at(j + lag, shooter), to = this.at(j, target);
    if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) return FOV_ABSENT;
    const px = ring[to + R_X]! - ring[so + R_X]!, pz = ring[to + R_Z]! - ring[so + R_Z]!;
    const fx = ring[so + R_VX]!, fz = ring[so + R_VZ]!;
    const l = Math.sqrt((px * px + pz * pz) * (fx * fx + fz * fz));
    if (!(l > 1e-9)) return FOV_ON_TOP;
    return (fx * px + fz * pz) / l < fovHalfCos ? FOV_OUTSIDE : FOV_INSIDE;
  }

  /** Whether the shooter's line of sight as at tick j + lag reaches the target as at tick j. */
  private seen(j: number, lag: number, shooter: number, target: number): boolean {
    return lineOfSight(this.ring, (j % RING) * this.pairs + shooter * this.slots + target, lag, this.at(j + lag, shooter), this.at(j, target), this.world, this.eye, this.memo);
  }

  /** The target as at tick j in the shooter's field of view as at tick j + lag (same life) but out of its line of sight. */
  private behindCover(j: number, lag: number, shooter: number, target: number, epoch: number, fovHalfCos: number): boolean {
    return this.inRing(j) && this.fovState(j, lag, shooter, target, epoch, fovHalfCos) === FOV_INSIDE && !this.seen(j, lag, shooter, target);
  }

  /**
   * The target as at tick j in the shooter's sight as at tick j + lag: same life, in the field of
   * view, in line of sight.
   */
  private inSight(j: number, lag: number, shooter: number, target: number, epoch: number, fovHalfCos: number): boolean {
    const f = this.fovState(j, lag, shooter, target, epoch, fovHalfCos);
    return (f === FOV_INSIDE || f === FOV_ON_TOP) && this.seen(j, lag, shooter, target);
  }
}

/**
 * The sharpest turn per tick over the window before the shot: the smallest cosine between the
 * shooter's views at consecutive ticks from `fromMs` up to tick k, and between the view at tick k
 * and the shot's own direction u (where the view was when it fired). 1 = no turn; the flags turn
 * it into degrees per second with the tick rate.
 */
function snapMeasure(ring: Float64Array, ringTime: Float64Array, slots: number, shooter: number, k: number, serial: number,
  ux: number, uy: number, uz: number, fromMs: number): number {
  let px = ux, py = uy, pz = uz;
  let minCos = NaN;
  for (let j = k; j >= 0 && serial - j <= RING; j--) {
    const o = ringSlot(j, slots, shooter);
    if (ring[o + R_PRESENT] !== 1) break;
    const fx = ring[o + R_VX]!, fy = ring[o + R_VY]!, fz = ring[o + R_VZ]!;
    const c = fx * px + fy * py + fz * pz;
    if (!(c >= minCos)) minCos = c;
    px = fx; py = fy; pz = fz;
    if (ringTime[j % RING]! < fromMs) break;
  }
  return minCos;
}

/** Line of sight from the shooter's eye (ring offset so) to the target's head or chest (to), memoised at m for this lag. */
function lineOfSight(ring: Float64Array, m: number, lag: number, so: number, to: number, world: ReplayWorld, eye: number, memo: Int32Array): boolean {
  const known = memo[m]!;
  if (known !== 0 && (known - 1) >> 1 === lag) return ((known - 1) & 1) === 1;
  const ex = ring[so + R_X]!, ey = ring[so + R_Y]! + eye, ez = ring[so + R_Z]!;
  const tx = ring[to + R_X]!, ty = ring[to + R_Y]!, tz = ring[to + R_Z]!;
  const visible = !world.anyHit(ex, ey, ez, tx, ty + eye, tz) || !world.anyHit(ex, ey, ez, tx, ty + 0.6 * eye, tz);
  memo[m] = 1 + 2 * lag + (visible ? 1 : 0);
  return visible;
}
