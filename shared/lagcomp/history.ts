/**
 * Per-player snapshot history for lag compensation: a ring of one snapshot per server tick over
 * flat typed arrays, and rewinding it to any server time inside the rewind window.
 *
 * Memory layout (per snapshot slot): `num` holds NUM_STRIDE doubles (timeMs, tick, x, y, z, qx, qy,
 * qz, qw, anim time, eye height, input stamp), `clip` one byte, `alive` one byte, `epoch` one uint32:
 * 102 bytes. Capacity is
 * fixed at construction (size it with capacityFor(tickHz, windowMs)); recording into a full ring
 * overwrites the oldest slot. record() also refreshes a swept bound of the stored roots (one pass
 * over the ring, O(capacity)) that broadphases read as sweepX/Y/Z/R.
 *
 * Rewind rules:
 * - inside the window and between two snapshots: position and animation time lerped, orientation
 *   nlerped (sign fix, normalised with Math.sqrt), the eye height lerped when it changed (an equal
 *   or unknown (NaN) one is taken as it is); exactly at a snapshot's time: that snapshot, bit
 *   for bit (EXACT);
 * - across an epoch change (teleport, respawn): never interpolated; the snapshot nearer in time is
 *   taken whole (SNAPPED_EPOCH; ties go to the newer one);
 * - clip or alive differing between the two snapshots, or the clip time going backwards (a caller
 *   that wraps it): the root is still interpolated, the animation state and alive flag come from
 *   the nearer snapshot (a clip change is not a teleport);
 * - outside the window, the policy decides: clamp to the window's edge (CLAMPED_*) or refuse
 *   (REJECTED_*). "Old" means older than max(newest - windowMs, oldest recorded); "new" means later
 *   than the newest snapshot. Non-finite times are INVALID; an empty history is EMPTY. A refused
 *   sample leaves `out` untouched.
 * Time is server milliseconds passed in by the caller; nothing here reads a clock.
 */
import type { PlayerPose } from './pose';

export const RewindStatus = {
  EXACT: 0,
  INTERPOLATED: 1,
  CLAMPED_OLD: 2,
  CLAMPED_NEW: 3,
  REJECTED_OLD: 4,
  REJECTED_NEW: 5,
  EMPTY: 6,
  /** The two snapshots around the time differ in epoch; the nearer one was taken whole. */
  SNAPPED_EPOCH: 7,
  /** The requested time is not a finite number. */
  INVALID: 8,
} as const;
export type RewindStatus = (typeof RewindStatus)[keyof typeof RewindStatus];

/** True when a sampleAt status wrote a pose (the caller may use `out`). */
export function rewindStatusUsable(s: RewindStatus): boolean {
  return s <= RewindStatus.CLAMPED_NEW || s === RewindStatus.SNAPPED_EPOCH;
}

export const OutOfWindow = { CLAMP: 0, REJECT: 1 } as const;
export type OutOfWindow = (typeof OutOfWindow)[keyof typeof OutOfWindow];

export const DEFAULT_REWIND_WINDOW_MS = 250;
export const MAX_REWIND_WINDOW_MS = 2000;

export interface RewindPolicy {
  /** How far back from the newest snapshot a rewind may go, ms, 0..MAX_REWIND_WINDOW_MS. */
  windowMs: number;
  /** What to do with a time outside the window. */
  outside: OutOfWindow;
}

/** A policy with the window clamped into [0, MAX_REWIND_WINDOW_MS] (non-finite -> default). */
export function createRewindPolicy(windowMs: number = DEFAULT_REWIND_WINDOW_MS, outside: OutOfWindow = OutOfWindow.CLAMP): RewindPolicy {
  const w = typeof windowMs === 'number' && Number.isFinite(windowMs) ? Math.min(MAX_REWIND_WINDOW_MS, Math.max(0, windowMs)) : DEFAULT_REWIND_WINDOW_MS;
  return { windowMs: w, outside: outside === OutOfWindow.REJECT ? OutOfWindow.REJECT : OutOfWindow.CLAMP };
}

/** Doubles per slot in PlayerHistory's `num` array, and their offsets. */
export const NUM_STRIDE = 12;
/** Numbers PlayerHistory.feetInto writes: time, x, y, z, eye height, epoch, alive, input stamp. */
export const SNAPSHOT_FEET = 8;
const T_MS = 0, TICK = 1, X = 2, Y = 3, Z = 4, QX = 5, QY = 6, QZ = 7, QW = 8, ANIM = 9, EYE = 10, STAMP = 11;

/** Why record() refused a snapshot (RecordResult.OK when it was stored). */
export const RecordResult = { OK: 0, NOT_FINITE: 1, NOT_INCREASING: 2, BAD_ROTATION: 3, BAD_CLIP: 4 } as const;
export type RecordResult = (typeof RecordResult)[keyof typeof RecordResult];

/** Largest ring PlayerHistory accepts (1000 ms at 4 kHz): plenty for any real tick rate. */
export const MAX_CAPACITY = 4096;

export class PlayerHistory {
  readonly capacity: number;
  /** Slot data, NUM_STRIDE doubles per slot (see the module comment). */
  readonly num: Float64Array;
  readonly clip: Uint8Array;
  readonly alive: Uint8Array;
  readonly epoch: Uint32Array;
  /** Next slot to write. */
  private head = 0;
  private count = 0;
  /**
   * Swept bound of every stored root position: a sphere centred on the newest root that holds all
   * of them (so any rewound root, a blend of two stored ones, lies inside too). Kept up to date by
   * record(); lets a broadphase reject a far-away player without touching the ring. Read-only for
   * callers; NaN when empty.
   */
  sweepX = NaN;
  sweepY = NaN;
  sweepZ = NaN;
  sweepR = NaN;
  /** Result of the last locate(): slots A and B (-1: A alone) and the fraction from A to B. */
  private locA = 0;
  private locB = -1;
  private locF = 0;

  /** Ring capacity (snapshots) for a tick rate and window: every tick of the window plus both ends. */
  static capacityFor(tickHz: number, windowMs: number = DEFAULT_REWIND_WINDOW_MS): number {
    return Math.ceil((windowMs * tickHz) / 1000) + 2;
  }

  constructor(capacityTicks: number) {
    // Upper bound: record() walks the ring once for the swept bound, so keep rings window-sized.
    if (!(Number.isInteger(capacityTicks) && capacityTicks >= 2 && capacityTicks <= MAX_CAPACITY)) {
      throw new Error(`PlayerHistory: capacity ${capacityTicks} must be an integer in [2, ${MAX_CAPACITY}]; use PlayerHistory.capacityFor(tickHz, windowMs)`);
    }
    this.capacity = capacityTicks;
    this.num = new Float64Array(capacityTicks * NUM_STRIDE);
    this.clip = new Uint8Array(capacityTicks);
    this.alive = new Uint8Array(capacityTicks);
    this.epoch = new Uint32Array(capacityTicks);
  }

  /** Bytes held by the ring's typed arrays. */
  byteLength(): number {
    return this.num.byteLength + this.clip.byteLength + this.alive.byteLength + this.epoch.byteLength;
  }

  size(): number {
    return this.count;
  }

  clear(): void {
    this.head = 0;
    this.count = 0;
    this.sweepX = this.sweepY = this.sweepZ = this.sweepR = NaN;
  }

  /**
   * Stores one snapshot and returns why when it refuses. Refuses (and changes nothing) when a number
   * is not finite (the eye height and the input stamp may be NaN: unknown), the tick or time
   * does not increase over the newest snapshot, the rotation is not close to unit length (it is
   * renormalised when it is, unless `normalized`: a pose read from another history, kept bit for
   * bit), or the clip is not an integer 0..255. Returns why.
   */
  record(tick: number, timeMs: number, pose: PlayerPose, normalized = false): RecordResult {
    const { x, y, z, qx, qy, qz, qw, time, clip } = pose;
    if (!(Number.isFinite(tick) && Number.isFinite(timeMs) && Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)
      && Number.isFinite(qx) && Number.isFinite(qy) && Number.isFinite(qz) && Number.isFinite(qw) && Number.isFinite(time)
      && Number.isFinite(pose.epoch) && !(pose.eyeHeight === Infinity || pose.eyeHeight === -Infinity)
      && !(pose.stampMs === Infinity || pose.stampMs === -Infinity))) {
      return RecordResult.NOT_FINITE;
    }
    if (!(Number.isInteger(clip) && clip >= 0 && clip <= 255)) return RecordResult.BAD_CLIP;
    const n2 = qx * qx + qy * qy + qz * qz + qw * qw;
    if (!(n2 > 0.81 && n2 < 1.21)) return RecordResult.BAD_ROTATION;
    if (this.count > 0) {
      const newest = ((this.head - 1 + this.capacity) % this.capacity) * NUM_STRIDE;
      if (!(tick > this.num[newest + TICK] && timeMs > this.num[newest + T_MS])) return RecordResult.NOT_INCREASING;
    }
    const inv = normalized ? 1 : 1 / Math.sqrt(n2);
    const o = this.head * NUM_STRIDE;
    const a = this.num;
    a[o + T_MS] = timeMs; a[o + TICK] = tick;
    a[o + X] = x; a[o + Y] = y; a[o + Z] = z;
    a[o + QX] = qx * inv; a[o + QY] = qy * inv; a[o + QZ] = qz * inv; a[o + QW] = qw * inv;
    a[o + ANIM] = time;
    a[o + EYE] = pose.eyeHeight;
    a[o + STAMP] = pose.stampMs;
    this.clip[this.head] = clip;
    this.alive[this.head] = pose.alive ? 1 : 0;
    this.epoch[this.head] = pose.epoch >>> 0;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    // Swept bound around the new root: one pass over the stored slots (capacity is a window's
    // ticks). They are the `count` slots before head, cyclically: one run, or two when they wrap.
    const first = this.head - this.count;
    const r2 = first >= 0
      ? this.farthest2(first, this.head, x, y, z, 0)
      : this.farthest2(0, this.head, x, y, z, this.farthest2(first + this.capacity, this.capacity, x, y, z, 0));
    this.sweepX = x; this.sweepY = y; this.sweepZ = z;
    // Padded so rounding in an interpolated root can never step outside.
    this.sweepR = Math.sqrt(r2) * (1 + 1e-12) + 1e-9;
    return RecordResult.OK;
  }

  /** The largest of r2 and the squared distances from (x, y, z) to the roots in slots [from, to). */
  private farthest2(from: number, to: number, x: number, y: number, z: number, r2: number): number {
    const a = this.num;
    for (let q = from * NUM_STRIDE, e = to * NUM_STRIDE; q < e; q += NUM_STRIDE) {
      const ddx = a[q + X] - x, ddy = a[q + Y] - y, ddz = a[q + Z] - z;
      const d2 = ddx * ddx + ddy * ddy + ddz * ddz;
      if (d2 > r2) r2 = d2;
    }
    return r2;
  }

  /** Slot of the k-th stored snapshot, 0 = oldest. */
  private slot(k: number): number {
    return (this.head - this.count + k + this.capacity) % this.capacity;
  }

  /** Server time of the oldest stored snapshot, NaN when empty. */
  oldestTimeMs(): number {
    return this.count === 0 ? NaN : this.num[this.slot(0) * NUM_STRIDE + T_MS];
  }

  /** Server time of the newest stored snapshot, NaN when empty. */
  newestTimeMs(): number {
    return this.count === 0 ? NaN : this.num[this.slot(this.count - 1) * NUM_STRIDE + T_MS];
  }

  /** Tick of the newest stored snapshot, NaN when empty. */
  newestTick(): number {
    return this.count === 0 ? NaN : this.num[this.slot(this.count - 1) * NUM_STRIDE + TICK];
  }

  /** Tick of the k-th stored snapshot (0 = oldest), NaN when k is out of range. */
  tickOf(k: number): number {
    return k >= 0 && k < this.count && Number.isInteger(k) ? this.num[this.slot(k) * NUM_STRIDE + TICK] : NaN;
  }

  /** Copies the k-th stored snapshot (0 = oldest) into out; returns its time, NaN when k is out of range. */
  snapshot(out: PlayerPose, k: number): number {
    if (!(k >= 0 && k < this.count && Number.isInteger(k))) return NaN;
    this.readSlot(out, this.slot(k));
    return this.num[this.slot(k) * NUM_STRIDE + T_MS];
  }

  /**
   * Writes the k-th stored snapshot's (0 = oldest) time, feet x y z, eye height, epoch and alive (1
   * or 0) into out[o..o + 6] (SNAPSHOT_FEET numbers); NaN in each when k is out of range. Numbers into
   * a typed array only: no double crosses the call (V8 boxes those it does not inline) and no pose
   * object's fields are written.
   */
  feetInto(out: Float64Array, o: number, k: number): void {
    if (!(k >= 0 && k < this.count && Number.isInteger(k))) {
      for (let i = 0; i < SNAPSHOT_FEET; i++) out[o + i] = NaN;
      return;
    }
    const s = this.slot(k), a = this.num, b = s * NUM_STRIDE;
    out[o] = a[b + T_MS]; out[o + 1] = a[b + X]; out[o + 2] = a[b + Y]; out[o + 3] = a[b + Z];
    out[o + 4] = a[b + EYE]; out[o + 5] = this.epoch[s]; out[o + 6] = this.alive[s]; out[o + 7] = a[b + STAMP];
  }

  private readSlot(out: PlayerPose, s: number): void {
    const o = s * NUM_STRIDE;
    const a = this.num;
    out.x = a[o + X]; out.y = a[o + Y]; out.z = a[o + Z];
    out.qx = a[o + QX]; out.qy = a[o + QY]; out.qz = a[o + QZ]; out.qw = a[o + QW];
    out.time = a[o + ANIM];
    out.eyeHeight = a[o + EYE];
    out.stampMs = a[o + STAMP];
    out.clip = this.clip[s];
    out.alive = this.alive[s] === 1;
    out.epoch = this.epoch[s];
  }

  /**
   * Where `timeMs` falls under `policy`: sets locA (slot), locB (slot, or -1 when a single snapshot
   * is taken whole) and locF (fraction from A to B), and returns the status. Shared by sampleAt and
   * sampleRootAt so the two always agree.
   */
  private locate(timeMs: number, policy: RewindPolicy): RewindStatus {
    const count = this.count;
    if (count === 0) return RewindStatus.EMPTY;
    if (!Number.isFinite(timeMs)) return RewindStatus.INVALID;
    const a = this.num;
    const cap = this.capacity;
    // Physical slot of the oldest snapshot; logical k lives at first + k, minus cap past the end.
    let first = this.head - count;
    if (first < 0) first += cap;
    let newestSlot = first + count - 1;
    if (newestSlot >= cap) newestSlot -= cap;
    const newest = a[newestSlot * NUM_STRIDE + T_MS];
    this.locB = -1;
    this.locF = 0;
    if (timeMs > newest) {
      if (policy.outside === OutOfWindow.REJECT) return RewindStatus.REJECTED_NEW;
      this.locA = newestSlot;
      return RewindStatus.CLAMPED_NEW;
    }
    const windowMs = policy.windowMs >= 0 && policy.windowMs <= MAX_REWIND_WINDOW_MS ? policy.windowMs : DEFAULT_REWIND_WINDOW_MS;
    const oldest = a[first * NUM_STRIDE + T_MS];
    const edge = Math.max(newest - windowMs, oldest);
    let status: RewindStatus = RewindStatus.INTERPOLATED;
    let t = timeMs;
    if (t < edge) {
      if (policy.outside === OutOfWindow.REJECT) return RewindStatus.REJECTED_OLD;
      t = edge;
      status = RewindStatus.CLAMPED_OLD;
    }
    // Find the last k with time(k) <= t (it exists: oldest <= t <= newest). Snapshots are one per
    // tick, so times are close to evenly spaced: guess k from the time, then walk (usually 0-1 steps).
    let lo = 0;
    let s0 = first;
    if (count > 1 && newest > oldest) {
      lo = Math.floor(((t - oldest) / (newest - oldest)) * (count - 1));
      if (!(lo >= 0)) lo = 0;
      if (lo > count - 1) lo = count - 1;
      s0 = first + lo;
      if (s0 >= cap) s0 -= cap;
      while (lo > 0 && a[s0 * NUM_STRIDE + T_MS] > t) {
        lo--;
        s0 = s0 === 0 ? cap - 1 : s0 - 1;
      }
      let next = s0 + 1 === cap ? 0 : s0 + 1;
      while (lo < count - 1 && a[next * NUM_STRIDE + T_MS] <= t) {
        lo++;
        s0 = next;
        next = next + 1 === cap ? 0 : next + 1;
      }
    }
    this.locA = s0;
    const t0 = a[s0 * NUM_STRIDE + T_MS];
    if (t0 === t || lo === count - 1) {
      return status === RewindStatus.INTERPOLATED ? RewindStatus.EXACT : status;
    }
    const s1 = s0 + 1 === cap ? 0 : s0 + 1;
    const f = (t - t0) / (a[s1 * NUM_STRIDE + T_MS] - t0);
    if (this.epoch[s0] !== this.epoch[s1]) {
      // Never across a teleport or respawn: the nearer snapshot whole (ties to the newer).
      this.locA = f < 0.5 ? s0 : s1;
      return status === RewindStatus.INTERPOLATED ? RewindStatus.SNAPPED_EPOCH : status;
    }
    this.locB = s1;
    this.locF = f;
    return status;
  }

  /** Rewinds to `timeMs` under `policy`, writing the pose into out; see the module comment. */
  sampleAt(out: PlayerPose, timeMs: number, policy: RewindPolicy): RewindStatus {
    const status = this.locate(timeMs, policy);
    if (!rewindStatusUsable(status)) return status;
    const s0 = this.locA, s1 = this.locB;
    if (s1 < 0) {
      this.readSlot(out, s0);
      return status;
    }
    const a = this.num;
    const o0 = s0 * NUM_STRIDE, o1 = s1 * NUM_STRIDE;
    const f = this.locF;
    const g = 1 - f;
    out.x = a[o0 + X] * g + a[o1 + X] * f;
    out.y = a[o0 + Y] * g + a[o1 + Y] * f;
    out.z = a[o0 + Z] * g + a[o1 + Z] * f;
    let qx = a[o1 + QX], qy = a[o1 + QY], qz = a[o1 + QZ], qw = a[o1 + QW];
    const px = a[o0 + QX], py = a[o0 + QY], pz = a[o0 + QZ], pw = a[o0 + QW];
    if (px * qx + py * qy + pz * qz + pw * qw < 0) {
      qx = -qx; qy = -qy; qz = -qz; qw = -qw;
    }
    const rx = px * g + qx * f, ry = py * g + qy * f, rz = pz * g + qz * f, rw = pw * g + qw * f;
    const inv = 1 / Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
    out.qx = rx * inv; out.qy = ry * inv; out.qz = rz * inv; out.qw = rw * inv;
    out.epoch = this.epoch[s0];
    const e0 = a[o0 + EYE], e1 = a[o1 + EYE];
    out.eyeHeight = e0 === e1 ? e0 : e0 * g + e1 * f;
    // Nearer snapshot (ties to the newer): the source of what is not interpolated.
    const near = f < 0.5 ? s0 : s1;
    if (this.clip[s0] === this.clip[s1] && a[o1 + ANIM] >= a[o0 + ANIM]) {
      out.clip = this.clip[s0];
      out.time = a[o0 + ANIM] * g + a[o1 + ANIM] * f;
    } else {
      // Clip changed, or the caller wrapped the clip time (it went backwards): lerping would sweep
      // back through the clip, so take the nearer snapshot's animation state instead.
      out.clip = this.clip[near];
      out.time = a[near * NUM_STRIDE + ANIM];
    }
    out.alive = this.alive[near] === 1;
    // The input stamp is a fact of one snapshot, not a quantity to blend: the nearer one's.
    out.stampMs = a[near * NUM_STRIDE + STAMP];
    return status;
  }

  /**
   * Server time of the newest snapshot whose input stamp is at most `limitMs`: walking back from
   * the newest, the first with a stamp at or below it. NaN when the walk meets a snapshot without a
   * stamp first (the game does not stamp its inputs, or not then) or the history is empty;
   * -Infinity when every stored snapshot is stamped later than the limit.
   */
  stampedAtOrBefore(limitMs: number): number {
    const a = this.num;
    const cap = this.capacity;
    for (let k = 0, s = this.head - 1; k < this.count; k++, s--) {
      if (s < 0) s += cap;
      const stamp = a[s * NUM_STRIDE + STAMP];
      if (!(stamp === stamp)) return NaN;
      if (stamp <= limitMs) return a[s * NUM_STRIDE + T_MS];
    }
    return this.count > 0 ? -Infinity : NaN;
  }

  /**
   * The cheap part of sampleAt for broadphases: root position into out[0..2] and alive (1 or 0)
   * into out[3], exactly as sampleAt would give them; same status. Leaves out untouched when refused.
   */
  sampleRootAt(out: Float64Array, timeMs: number, policy: RewindPolicy): RewindStatus {
    const status = this.locate(timeMs, policy);
    if (!rewindStatusUsable(status)) return status;
    const a = this.num;
    const s0 = this.locA, s1 = this.locB;
    const o0 = s0 * NUM_STRIDE;
    if (s1 < 0) {
      out[0] = a[o0 + X]; out[1] = a[o0 + Y]; out[2] = a[o0 + Z];
      out[3] = this.alive[s0];
      return status;
    }
    const o1 = s1 * NUM_STRIDE;
    const f = this.locF;
    const g = 1 - f;
    out[0] = a[o0 + X] * g + a[o1 + X] * f;
    out[1] = a[o0 + Y] * g + a[o1 + Y] * f;
    out[2] = a[o0 + Z] * g + a[o1 + Z] * f;
    out[3] = this.alive[f < 0.5 ? s0 : s1];
    return status;
  }
}

