/**
 * The record of Rewinder.allHits (every player a shot passes through, for penetration): one entry
 * per player hit, that player's first hitbox hit, in flat typed arrays the caller allocates once
 * (createHitboxHits) and reuses, and the sorted insertion that fills them without allocating.
 */
import type { SegmentHit } from '../kernels/hit';

/**
 * Players one segment meets, one entry per player in flat arrays of `capacity` entries: entries
 * 0 .. count - 1 are sorted by t ascending; equal t by player slot, highest slot first (the player
 * Rewinder.firstHit keeps on an exact tie), so entry 0 is firstHit's answer.
 */
export interface HitboxHits {
  /** Entries the arrays hold. */
  readonly capacity: number;
  /** Fraction along the segment of the player's first hitbox hit, 0..tMax. */
  readonly t: Float64Array;
  /** The hit point, S + t (E - S). */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  /** Unit world normal of the hitbox triangle hit, toward the segment's start. */
  readonly nx: Float64Array;
  readonly ny: Float64Array;
  readonly nz: Float64Array;
  /** 1 when the hitbox triangle's front face was met (from outside the hitbox), else 0. */
  readonly front: Uint8Array;
  /** Player slot (index into the histories array). */
  readonly player: Int32Array;
  /** HitZone of the hitbox. */
  readonly zone: Uint8Array;
  /** Joint index in the source skeleton of the hitbox's bone. */
  readonly bone: Int32Array;
  /** Hitbox index in the rig. */
  readonly hitbox: Int32Array;
  /** RewindStatus of the player's history sample. */
  readonly status: Uint8Array;
  /** Entries stored (at most capacity). */
  count: number;
  /** Players hit; more than count when the capacity overflowed (the nearest were kept). */
  total: number;
}

/** Hit arrays for Rewinder.allHits holding `capacity` entries (an integer, 0 .. 2^24). */
export function createHitboxHits(capacity = 64): HitboxHits {
  if (!Number.isInteger(capacity) || capacity < 0 || capacity > 1 << 24) {
    throw new RangeError(`createHitboxHits: capacity must be an integer from 0 to 2^24 (got ${capacity}).`);
  }
  return {
    capacity,
    t: new Float64Array(capacity),
    x: new Float64Array(capacity),
    y: new Float64Array(capacity),
    z: new Float64Array(capacity),
    nx: new Float64Array(capacity),
    ny: new Float64Array(capacity),
    nz: new Float64Array(capacity),
    front: new Uint8Array(capacity),
    player: new Int32Array(capacity),
    zone: new Uint8Array(capacity),
    bone: new Int32Array(capacity),
    hitbox: new Int32Array(capacity),
    status: new Uint8Array(capacity),
    count: 0,
    total: 0,
  };
}

/** The one-player hit Rewinder's narrow phase writes (a HitboxHit). */
export interface PlayerHitboxHit extends SegmentHit {
  zone: number;
  bone: number;
  hitbox: number;
}

/**
 * Internal (Rewinder.allHits): inserts player `player`'s hit h, sampled with `status`, into the
 * sorted entries of out (key: t ascending, then slot descending). A full out drops its farthest
 * entry, or the new hit when that is the farthest; total counts every call.
 */
export function insertHitboxHit(out: HitboxHits, h: PlayerHitboxHit, player: number, status: number): void {
  out.total++;
  const cap = out.capacity;
  const n = out.count;
  const t = h.t;
  const Tt = out.t, P = out.player;
  let i = n;
  while (i > 0 && (Tt[i - 1] > t || (Tt[i - 1] === t && P[i - 1] < player))) i--;
  if (i >= cap) return;
  const X = out.x, Y = out.y, Z = out.z, NX = out.nx, NY = out.ny, NZ = out.nz, Fr = out.front;
  const Zn = out.zone, B = out.bone, H = out.hitbox, S = out.status;
  for (let j = n < cap ? n : cap - 1; j > i; j--) {
    Tt[j] = Tt[j - 1]; P[j] = P[j - 1];
    X[j] = X[j - 1]; Y[j] = Y[j - 1]; Z[j] = Z[j - 1];
    NX[j] = NX[j - 1]; NY[j] = NY[j - 1]; NZ[j] = NZ[j - 1];
    Fr[j] = Fr[j - 1]; Zn[j] = Zn[j - 1]; B[j] = B[j - 1]; H[j] = H[j - 1]; S[j] = S[j - 1];
  }
  Tt[i] = t; P[i] = player;
  X[i] = h.x; Y[i] = h.y; Z[i] = h.z;
  NX[i] = h.nx; NY[i] = h.ny; NZ[i] = h.nz;
  Fr[i] = h.front ? 1 : 0;
  Zn[i] = h.zone; B[i] = h.bone; H[i] = h.hitbox; S[i] = status;
  if (n < cap) out.count = n + 1;
}
