/**
 * Behaviour measures of the audit replay: what the per-player flags read besides the verdicts.
 * `BehaviourRing` keeps the last REPLAY_RING_TICKS ticks of every slot (presence, position, facing,
 * life) as the replay applies tick records, and measures each shot against them (ShotMeasures):
 * which player it was aimed at, how long that player had been in sight (reaction), how the view
 * moved before the shot (turn speed, time on target, tracking error, where it pointed while the
 * target was hidden) and how the shot's direction sat against the view and the target.
 *
 * What the log gives: every tick, each player's root position and body yaw (the view's heading;
 * the log keeps no pitch). So every angle here is horizontal, measured as the chord between unit
 * heading vectors (2 sin(angle / 2)): no trigonometry in shared/, equal to the angle in radians for
 * small angles and within 10% of it up to 90 degrees; the server converts to degrees.
 * In sight = in the field of view (heading within `fovHalfDeg` of the direction to the target) and
 * in line of sight from the eye to the target's head or chest. Pure: no clock, no Node module;
 * world queries go through ReplayWorld.
 */

/** The world query reaction time needs (World.anyHit). */
export interface ReplayWorld {
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
}

/** The pose fields the ring keeps of a tick record's slot. */
export interface RingPose {
  x: number; y: number; z: number; qy: number; qw: number; alive: boolean; epoch: number;
}

/**
 * Per-slot ring of the last RING ticks: presence, position, facing, epoch. Feeds the reaction and
 * snap measures (the histories' own rings are sized for the rewind window only).
 */
export const REPLAY_RING_TICKS = 256;
const RING = REPLAY_RING_TICKS;
const R_PRESENT = 0, R_X = 1, R_Y = 2, R_Z = 3, R_FX = 4, R_FZ = 5, R_ALIVE = 6, R_EPOCH = 7;
const R_STRIDE = 8;

/** Windows and limits of the measures (ReplayOptions carries them). */
export interface MeasureWindows {
  /** How far back a sighting is followed, ms; a target in sight longer than this gives no reaction. */
  lookbackMs: number;
  /** The view-change window before a shot that the aim-snap measure reads, ms. */
  snapWindowMs: number;
  /** Half the horizontal field of view, degrees, as a cosine (cos 50 degrees: a 100-degree view). */
  fovHalfCos: number;
  /** Window before a sighting over which pre-aim is averaged, ms. */
  preAimMs: number;
  /** Window before a shot over which tracking error is averaged, ms. */
  trackMs: number;
  /** Longest time on target reported, ms. */
  onTargetCapMs: number;
  /** A miss is measured against the player nearest its direction within this chord (10 degrees). */
  missTargetChord: number;
  /** Half-width of a body for the on-target test, m. */
  bodyHalfWidthM: number;
}

export const DEFAULT_MEASURE_WINDOWS: Readonly<MeasureWindows> = Object.freeze({
  lookbackMs: 1500, snapWindowMs: 50, fovHalfCos: 0.6427876096865394, preAimMs: 400, trackMs: 300, onTargetCapMs: 1000,
  missTargetChord: 0.17431148549531633, bodyHalfWidthM: 0.35,
});

/** What BehaviourRing.measureShot writes: NaN where unknown. Angles are chords (see above). */
export interface ShotMeasures {
  /** The player the shot was aimed at: the one hit, or for a miss the nearest to its direction; -1 none. */
  target: number;
  /** Cosine of the sharpest per-tick turn over the snap window, the shot's own direction included. */
  snapCos: number;
  /** Tick time the current sighting of the target began (NaN: not in sight at the rewound time, or longer than the lookback). */
  sightStartMs: number;
  /** Rewound time minus sightStartMs, ms. */
  reactionMs: number;
  /** Fastest view turn between consecutive ticks from the sighting's start (or the track window) to the shot, chord per ms. */
  peakTurn: number;
  /** The shot's direction against the view at the tick it arrived in. */
  viewOffset: number;
  /** The shot's direction against the direction to the target (rewound). */
  shotError: number;
  /** Horizontal distance from the shot's start to the target (rewound), m. */
  distance: number;
  /**
   * The longest gap between consecutive recorded ticks over the 500 ms before the shot arrived, ms:
   * a server that stalled (the room's tick clock jumps after a stall of over four ticks) received
   * the shot late, and its timing checks read that lateness as the client's.
   */
  serverGapMs: number;
  /** How long the view had been on the target's body before the shot, ms (0: not on it). */
  onTargetMs: number;
  /**
   * Tracking jitter: standard deviation over the track window of the signed offset between the
   * view and the target (cross product of the unit heading and the unit direction to the target).
   * A constant offset (the aim point is not the root the log records) does not count; a view locked
   * onto the target leaves almost none.
   */
  trackError: number;
  /** Mean chord between the view and the target over the preAimMs before the sighting began. */
  preAim: number;
}

export function createShotMeasures(): ShotMeasures {
  return { target: -1, snapCos: NaN, sightStartMs: NaN, reactionMs: NaN, peakTurn: NaN, viewOffset: NaN, shotError: NaN, distance: NaN, serverGapMs: NaN, onTargetMs: NaN, trackError: NaN, preAim: NaN };
}

/** Chord between the unit heading (fx, fz) and the direction (dx, dz) (any length > 0): 2 sin(angle / 2). */
function chord(fx: number, fz: number, dx: number, dz: number): number {
  const l = Math.sqrt(dx * dx + dz * dz);
  if (!(l > 1e-9)) return NaN;
  const ax = fx - dx / l, az = fz - dz / l;
  return Math.sqrt(ax * ax + az * az);
}


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

  constructor(slots: number, readonly world: ReplayWorld, readonly eye: number) {
    this.slots = slots;
    this.pairs = slots * slots;
    this.ring = new Float64Array(RING * slots * R_STRIDE);
    this.memo = new Int32Array(RING * this.pairs);
  }

  /** Starts the next tick: every slot absent until put. Returns the tick's base for putSlot. */
  beginTick(): number {
    const slots = this.slots;
    const ring = this.ring;
    const r = (this.serial % RING) * slots * R_STRIDE;
    for (let s = 0; s < slots; s++) ring[r + s * R_STRIDE + R_PRESENT] = 0;
    return r;
  }

  /** One present slot of the tick begun at base `r` (slot < slots). */
  putSlot(r: number, slot: number, p: RingPose): void {
    const ring = this.ring;
    const o = r + slot * R_STRIDE;
    ring[o + R_PRESENT] = 1;
    ring[o + R_X] = p.x; ring[o + R_Y] = p.y; ring[o + R_Z] = p.z;
    // Facing: +Z turned by the yaw quaternion (0, qy, 0, qw): (2 qy qw, 1 - 2 qy^2) in x, z.
    ring[o + R_FX] = 2 * p.qy * p.qw; ring[o + R_FZ] = 1 - 2 * p.qy * p.qy;
    ring[o + R_ALIVE] = p.alive ? 1 : 0; ring[o + R_EPOCH] = p.epoch;
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
    return ((j % RING) * this.slots + slot) * R_STRIDE;
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
   * Measures one shot by `shooter` (< slots): `hitTarget` is the player hit (-1 for a miss), the
   * segment's horizontal start and stop, its receive and rewound times. Into out.
   */
  measureShot(out: ShotMeasures, shooter: number, hitTarget: number, receiveMs: number, rewindMs: number,
    sx: number, sz: number, ex: number, ez: number, w: MeasureWindows): ShotMeasures {
    out.target = -1; out.snapCos = NaN; out.sightStartMs = NaN; out.reactionMs = NaN; out.peakTurn = NaN;
    out.viewOffset = NaN; out.shotError = NaN; out.distance = NaN; out.serverGapMs = NaN; out.onTargetMs = NaN; out.trackError = NaN; out.preAim = NaN;
    const ring = this.ring;
    const time = this.ringTime;
    const k = this.tickAt(receiveMs);
    if (k < 0) return out;
    let gap = 0;
    for (let j = k; this.inRing(j - 1) && receiveMs - time[j % RING]! <= 500; j--) gap = Math.max(gap, time[j % RING]! - time[(j - 1) % RING]!);
    out.serverGapMs = Math.max(gap, receiveMs - time[k % RING]!);
    const so = this.at(k, shooter);
    if (ring[so + R_PRESENT] !== 1) return out;
    const dx = ex - sx, dz = ez - sz;
    const dl = Math.sqrt(dx * dx + dz * dz);
    if (!(dl > 1e-9)) return out;
    const ux = dx / dl, uz = dz / dl;
    out.snapCos = snapMeasure(ring, time, this.slots, shooter, k, this.serial, sx, sz, ex, ez, receiveMs - w.snapWindowMs);
    out.viewOffset = chord(ring[so + R_FX]!, ring[so + R_FZ]!, ux, uz);
    // The rewound tick: where the shooter saw its target.
    const kw = rewindMs === rewindMs ? this.tickAt(rewindMs) : k;
    if (kw < 0) return out;
    let target = hitTarget >= 0 && hitTarget < this.slots && hitTarget !== shooter ? hitTarget : -1;
    if (target < 0) {
      let best = w.missTargetChord;
      for (let t = 0; t < this.slots; t++) {
        if (t === shooter) continue;
        const to = this.at(kw, t);
        if (ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1) continue;
        const c = chord(ux, uz, ring[to + R_X]! - sx, ring[to + R_Z]! - sz);
        if (c < best) { best = c; target = t; }
      }
    }
    if (target < 0) return out;
    out.target = target;
    const tw = this.at(kw, target);
    const tx = ring[tw + R_X]! - sx, tz = ring[tw + R_Z]! - sz;
    out.shotError = chord(ux, uz, tx, tz);
    out.distance = Math.sqrt(tx * tx + tz * tz);
    // The view at tick j against the target as the shooter saw it then: `lag` ticks earlier.
    const lag = k - kw;
    this.viewMeasures(out, shooter, target, k, lag, w);
    this.sighting(out, shooter, target, kw, k, lag, rewindMs, w);
    return out;
  }

  /** Time on target and tracking error, walking back from tick k. */
  private viewMeasures(out: ShotMeasures, shooter: number, target: number, k: number, lag: number, w: MeasureWindows): void {
    const ring = this.ring;
    const time = this.ringTime;
    const tk = time[k % RING]!;
    let onSince = NaN;
    let onTarget = true;
    let sum = 0, sum2 = 0, n = 0;
    const epoch = ring[this.at(k - lag, target) + R_EPOCH]!;
    for (let j = k; this.inRing(j - lag); j--) {
      const tj = time[j % RING]!;
      const age = tk - tj;
      if ((!onTarget || age > w.onTargetCapMs) && age > w.trackMs) break;
      const so = this.at(j, shooter), to = this.at(j - lag, target);
      if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) break;
      const px = ring[to + R_X]! - ring[so + R_X]!, pz = ring[to + R_Z]! - ring[so + R_Z]!;
      const fx = ring[so + R_FX]!, fz = ring[so + R_FZ]!;
      const c = chord(fx, fz, px, pz);
      if (!(c === c)) break;
      if (age <= w.trackMs) {
        const side = (fx * pz - fz * px) / Math.sqrt(px * px + pz * pz);
        sum += side; sum2 += side * side; n++;
      }
      if (onTarget && age <= w.onTargetCapMs) {
        const dist = Math.sqrt(px * px + pz * pz);
        if (c <= Math.min(0.5, w.bodyHalfWidthM / dist)) onSince = tj;
        else onTarget = false;
      }
    }
    out.onTargetMs = onSince === onSince ? Math.min(w.onTargetCapMs, tk - onSince) : 0;
    if (n >= 3) out.trackError = Math.sqrt(Math.max(0, sum2 / n - (sum / n) * (sum / n)));
  }

  /**
   * The sighting the rewound tick kw belongs to: walks back while the target stays in sight (same
   * life, in the field of view, in line of sight), then reads the turn speed from there to the
   * shot and the pre-aim before it. The target at tick j is what the shooter saw `lag` ticks later
   * (its render delay), so it is judged against the shooter's heading and eye at tick j + lag.
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
      const ax = ring[a + R_FX]! - ring[b + R_FX]!, az = ring[a + R_FZ]! - ring[b + R_FZ]!;
      const v = Math.sqrt(ax * ax + az * az) / dt;
      if (!(v <= peak)) peak = v;
    }
    out.peakTurn = peak;
    if (first < 0 || capped) return;
    const start = time[first % RING]!;
    out.sightStartMs = start;
    out.reactionMs = rewindMs - start;
    // Where the view pointed in the moments before the target came into sight.
    let sum = 0, n = 0;
    for (let j = first - 1; this.inRing(j); j--) {
      if (start - time[j % RING]! > w.preAimMs) break;
      const so = this.at(j + lag, shooter), to = this.at(j, target);
      if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) break;
      const c = chord(ring[so + R_FX]!, ring[so + R_FZ]!, ring[to + R_X]! - ring[so + R_X]!, ring[to + R_Z]! - ring[so + R_Z]!);
      if (c === c) { sum += c; n++; }
    }
    if (n > 0) out.preAim = sum / n;
  }

  /**
   * The target as at tick j in the shooter's sight as at tick j + lag: same life, in the field of
   * view, in line of sight.
   */
  private inSight(j: number, lag: number, shooter: number, target: number, epoch: number, fovHalfCos: number): boolean {
    const ring = this.ring;
    const so = this.at(j + lag, shooter), to = this.at(j, target);
    if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1 || ring[to + R_EPOCH] !== epoch) return false;
    const px = ring[to + R_X]! - ring[so + R_X]!, pz = ring[to + R_Z]! - ring[so + R_Z]!;
    const l = Math.sqrt(px * px + pz * pz);
    if (l > 1e-9 && (ring[so + R_FX]! * px + ring[so + R_FZ]! * pz) / l < fovHalfCos) return false;
    return lineOfSight(ring, (j % RING) * this.pairs + shooter * this.slots + target, lag, so, to, this.world, this.eye, this.memo);
  }
}

/**
 * The sharpest turn per tick over the window before the shot: the smallest cosine between the
 * shooter's facings at consecutive ticks from `fromMs` up to tick k, and between the facing at
 * tick k and the shot's own horizontal direction (where the view was when it fired). 1 = no turn;
 * the flags turn it into degrees per second with the tick rate.
 */
function snapMeasure(ring: Float64Array, ringTime: Float64Array, slots: number, shooter: number, k: number, serial: number,
  sx: number, sz: number, ex: number, ez: number, fromMs: number): number {
  const dx = ex - sx, dz = ez - sz;
  const len = Math.sqrt(dx * dx + dz * dz);
  if (!(len > 1e-9)) return NaN;
  let px = dx / len, pz = dz / len;
  let minCos = NaN;
  for (let j = k; j >= 0 && serial - j <= RING; j--) {
    const o = ((j % RING) * slots + shooter) * R_STRIDE;
    if (ring[o + R_PRESENT] !== 1) break;
    const fx = ring[o + R_FX]!, fz = ring[o + R_FZ]!;
    const c = fx * px + fz * pz;
    if (!(c >= minCos)) minCos = c;
    px = fx;
    pz = fz;
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
