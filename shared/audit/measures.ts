/**
 * Behaviour measures of the audit replay: what the per-player flags read besides the verdicts.
 * `BehaviourRing` keeps the last REPLAY_RING_TICKS ticks of every slot (presence, position, facing,
 * life) as the replay applies tick records, and measures a hit against it: reaction time (line of
 * sight through the world from the shooter's eye to the target, walked back at REACTION_STEP_TICKS
 * resolution) and aim snap (the shooter's facing over the moments before the shot against the
 * shot's direction). Pure: no clock, no Node module; world queries go through ReplayWorld.
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

/**
 * Line-of-sight resolution of the reaction measure, in ticks: the walk back tests the shot's own
 * tick and every tick whose number is a multiple of this (plus any tick this far below the last
 * test, should tick numbers skip); below a hidden test it goes back up tick by tick to the last
 * visible test, so where a sighting starts is found to the tick. An occlusion shorter than this
 * that falls between two tests goes unseen (4 ticks = 62.5 ms at 64 Hz: a reflex takes longer).
 * Tests are keyed by absolute tick number, so every shard tests the same ticks.
 */
export const REACTION_STEP_TICKS = 4;

/** What BehaviourRing.measureHit writes. */
export interface HitMeasures {
  /** How long the target had been visible when the shooter saw it, ms (NaN unknown). */
  reactionMs: number;
  /** Cosine of the sharpest per-tick turn before the shot (NaN unknown). */
  snapCos: number;
}

export function createHitMeasures(): HitMeasures {
  return { reactionMs: NaN, snapCos: NaN };
}

/** The measures' tick ring and line-of-sight memo of one replay. */
export class BehaviourRing {
  readonly slots: number;
  readonly pairs: number;
  readonly ring: Float64Array;
  readonly ringTime = new Float64Array(RING);
  /** 1 where the ring tick's number is one the reaction walk tests line of sight at (REACTION_STEP_TICKS). */
  readonly ringTest = new Uint8Array(RING);
  /** Line-of-sight memo per (ring tick, shooter, target): 0 unknown, 1 visible, 2 hidden. */
  readonly memo: Uint8Array;
  /** Ticks seen; ring index = serial % RING. */
  serial = 0;

  constructor(slots: number, readonly world: ReplayWorld, readonly eye: number) {
    this.slots = slots;
    this.pairs = slots * slots;
    this.ring = new Float64Array(RING * slots * R_STRIDE);
    this.memo = new Uint8Array(RING * this.pairs);
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
  endTick(tickNo: number, tickMs: number): void {
    const ri = this.serial % RING;
    this.ringTime[ri] = tickMs;
    this.ringTest[ri] = tickNo % REACTION_STEP_TICKS === 0 ? 1 : 0;
    this.memo.fill(0, ri * this.pairs, (ri + 1) * this.pairs);
    this.serial++;
  }

  /**
   * Reaction and snap of a hit by `shooter` on `target` (both < slots) received at `receiveMs` and
   * rewound to `rewindMs`, with the shot's segment (horizontal parts): into out (NaN where unknown).
   */
  measureHit(out: HitMeasures, shooter: number, target: number, receiveMs: number, rewindMs: number,
    sx: number, sz: number, ex: number, ez: number, lookbackMs: number, snapWindowMs: number): HitMeasures {
    out.reactionMs = NaN;
    out.snapCos = NaN;
    const serial = this.serial;
    const ringTime = this.ringTime;
    if (serial === 0) return out;
    // Ticks at or before the receive time (the shooter's inputs arrive with its shots).
    let k = serial - 1;
    while (k >= 0 && serial - k <= RING && ringTime[k % RING]! > receiveMs) k--;
    if (k >= 0 && serial - k <= RING) {
      out.snapCos = snapMeasure(this.ring, ringTime, this.slots, shooter, k, serial, sx, sz, ex, ez, receiveMs - snapWindowMs);
      // The rewound time is when the shooter saw the target; walk from the tick at it.
      let kw = k;
      while (kw >= 0 && serial - kw <= RING && ringTime[kw % RING]! > rewindMs) kw--;
      if (kw >= 0 && serial - kw <= RING) {
        out.reactionMs = reactionMeasure(this.ring, ringTime, this.ringTest, this.slots, shooter, target, kw, serial, this.world, this.eye, rewindMs, lookbackMs, this.memo);
      }
    }
    return out;
  }
}

/**
 * The sharpest turn per tick over the window before the shot: the smallest cosine between the
 * shooter's facings at consecutive ticks from `fromMs` up to tick k, and between the facing at
 * tick k and the shot's own horizontal direction (where the view was when it fired). 1 = no turn;
 * the flags turn it into degrees per second with the tick rate. Yaw only: the history keeps the
 * body's yaw, not the view's pitch.
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

/**
 * How long the target had been visible from the shooter's eye at tick k (line of sight to the
 * target's head or chest height unblocked by the world), in ms up to `rewindMs`; `lookbackMs` when
 * visible for the whole lookback; NaN when not visible at k (e.g. a shot through a wall). Presence,
 * life and respawns are read at every tick; line of sight at the ticks REACTION_STEP_TICKS names.
 * Each line-of-sight answer is memoised per (ring tick, shooter, target) in `memo` (0 unknown,
 * 1 visible, 2 hidden; the tick loop clears a ring tick's entries when it overwrites it), so a
 * burst of shots at one target tests each tick once. The memo only stores what world.anyHit
 * answers, so the result is the one an unmemoised walk gives (shards agree with a serial replay).
 */
function reactionMeasure(ring: Float64Array, ringTime: Float64Array, ringTest: Uint8Array, slots: number, shooter: number, target: number, k: number, serial: number,
  world: ReplayWorld, eye: number, rewindMs: number, lookbackMs: number, memo: Uint8Array): number {
  const limitMs = rewindMs - lookbackMs;
  const pair = shooter * slots + target;
  const pairs = slots * slots;
  let first = -1;
  let tested = -1; // the lowest tick whose line of sight was tested (visible)
  let epoch = NaN;
  for (let j = k; j >= 0 && serial - j <= RING; j--) {
    const ri = j % RING;
    if (ringTime[ri]! < limitMs) return first < 0 ? NaN : lookbackMs;
    const so = (ri * slots + shooter) * R_STRIDE;
    const to = (ri * slots + target) * R_STRIDE;
    if (ring[so + R_PRESENT] !== 1 || ring[to + R_PRESENT] !== 1 || ring[to + R_ALIVE] !== 1) break;
    if (epoch === epoch && ring[to + R_EPOCH] !== epoch) break; // a respawn: a new life, newly visible
    epoch = ring[to + R_EPOCH]!;
    if (j === k || ringTest[ri] === 1 || tested - j >= REACTION_STEP_TICKS) {
      if (!lineOfSight(ring, slots, ri * pairs + pair, so, to, world, eye, memo)) {
        // Hidden here, visible at `tested`: the sighting starts at the lowest tick of the visible
        // run down from `tested` (the ticks between passed the presence and life checks above).
        if (tested < 0) return NaN;
        first = tested;
        for (let i = tested - 1; i > j; i--) {
          const ii = i % RING;
          if (!lineOfSight(ring, slots, ii * pairs + pair, (ii * slots + shooter) * R_STRIDE, (ii * slots + target) * R_STRIDE, world, eye, memo)) break;
          first = i;
        }
        break;
      }
      tested = j;
    }
    first = j;
  }
  if (first < 0) return NaN;
  return Math.min(lookbackMs, rewindMs - ringTime[first % RING]!);
}

/** Line of sight from the shooter's eye to the target's head or chest at one ring tick, memoised. */
function lineOfSight(ring: Float64Array, slots: number, m: number, so: number, to: number, world: ReplayWorld, eye: number, memo: Uint8Array): boolean {
  const known = memo[m]!;
  if (known !== 0) return known === 1;
  const ex = ring[so + R_X]!, ey = ring[so + R_Y]! + eye, ez = ring[so + R_Z]!;
  const tx = ring[to + R_X]!, ty = ring[to + R_Y]!, tz = ring[to + R_Z]!;
  const visible = !world.anyHit(ex, ey, ez, tx, ty + eye, tz) || !world.anyHit(ex, ey, ez, tx, ty + 0.6 * eye, tz);
  memo[m] = visible ? 1 : 2;
  return visible;
}
