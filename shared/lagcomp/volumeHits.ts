/**
 * The records of the rewound volume queries (./rewindVolume): the first contact of a swept sphere
 * (SphereCastHit), every player's first contact (SphereCastHits) and every player a volume overlaps
 * with its nearest hitbox (VolumeOverlaps). The caller allocates them once and reuses them; the
 * sorted insertions that fill the flat arrays allocate nothing.
 */
import { SweepFeature, type SweepHit } from '../kernels/sweptSphere';
import { HitZone } from '../rig/rig';
import { RewindStatus } from './history';

/** First contact of a swept sphere with a rewound hitbox: the kernel's SweepHit (world space) plus who and where. */
export interface SphereCastHit extends SweepHit {
  /** Player slot touched (index into the histories array), -1 on a miss. */
  player: number;
  zone: HitZone;
  /** Joint index in the source skeleton of the hitbox's bone. */
  bone: number;
  /** Hitbox index in the rig. */
  hitbox: number;
  /** Rig triangle index (rig.triangles) of the contact. */
  triangle: number;
  /** Status of the player's history sample; EMPTY on a miss. */
  status: RewindStatus;
}

/**
 * A miss, with every number field that holds fractions already a (NaN) double: the fields keep one
 * representation from the start, so optimised code reading or writing the record is not thrown away
 * when the first real value arrives.
 */
export function createSphereCastHit(): SphereCastHit {
  const nan = Number.NaN;
  return {
    hit: false, t: nan, feature: SweepFeature.FACE, featureIndex: 0, embedded: false,
    x: nan, y: nan, z: nan, nx: nan, ny: nan, nz: nan, cx: nan, cy: nan, cz: nan,
    player: -1, zone: HitZone.HEAD, bone: -1, hitbox: -1, triangle: -1, status: RewindStatus.EMPTY,
  };
}

/**
 * Players one swept sphere touches, one entry per player (its first contact) in flat arrays of
 * `capacity` entries, sorted by t ascending; equal t by player slot, highest first (the player
 * VolumeRewinder.sphereCast keeps on an exact tie), so entry 0 is sphereCast's answer.
 */
export interface SphereCastHits {
  readonly capacity: number;
  /** Fraction of the path A -> B travelled at contact, 0..tMax (0 when the sphere started overlapping). */
  readonly t: Float64Array;
  /** Contact point on the hitbox. */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  /** Unit normal from the contact point toward the sphere's centre (the push-out direction). */
  readonly nx: Float64Array;
  readonly ny: Float64Array;
  readonly nz: Float64Array;
  /** The sphere's centre at contact, A + t (B - A). */
  readonly cx: Float64Array;
  readonly cy: Float64Array;
  readonly cz: Float64Array;
  /** 1 when the sphere already overlapped the hitbox at the start. */
  readonly embedded: Uint8Array;
  /** SweepFeature and its index of the contact. */
  readonly feature: Uint8Array;
  readonly featureIndex: Uint8Array;
  readonly player: Int32Array;
  readonly zone: Uint8Array;
  readonly bone: Int32Array;
  readonly hitbox: Int32Array;
  readonly triangle: Int32Array;
  readonly status: Uint8Array;
  /** Entries stored (at most capacity). */
  count: number;
  /** Players touched; more than count when the capacity overflowed (the nearest were kept). */
  total: number;
}

function checkCapacity(name: string, capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 0 || capacity > 1 << 24) {
    throw new RangeError(`${name}: capacity must be an integer from 0 to 2^24 (got ${capacity}).`);
  }
}

/** Arrays for VolumeRewinder.sphereCastAll holding `capacity` entries (an integer, 0 .. 2^24). */
export function createSphereCastHits(capacity = 64): SphereCastHits {
  checkCapacity('createSphereCastHits', capacity);
  const f = () => new Float64Array(capacity);
  return {
    capacity, t: f(), x: f(), y: f(), z: f(), nx: f(), ny: f(), nz: f(), cx: f(), cy: f(), cz: f(),
    embedded: new Uint8Array(capacity), feature: new Uint8Array(capacity), featureIndex: new Uint8Array(capacity),
    player: new Int32Array(capacity), zone: new Uint8Array(capacity), bone: new Int32Array(capacity),
    hitbox: new Int32Array(capacity), triangle: new Int32Array(capacity), status: new Uint8Array(capacity),
    count: 0, total: 0,
  };
}

/**
 * Inserts one player's contact h (its player and status set) into the sorted entries of out (key: t
 * ascending, then slot descending). A full out drops its farthest entry, or h when that is the
 * farthest; total counts every call.
 */
export function insertSphereCastHit(out: SphereCastHits, h: SphereCastHit): void {
  out.total++;
  const cap = out.capacity, n = out.count, t = h.t, player = h.player;
  const T = out.t, P = out.player;
  let i = n;
  while (i > 0 && (T[i - 1] > t || (T[i - 1] === t && P[i - 1] < player))) i--;
  if (i >= cap) return;
  const X = out.x, Y = out.y, Z = out.z, NX = out.nx, NY = out.ny, NZ = out.nz, CX = out.cx, CY = out.cy, CZ = out.cz;
  const E = out.embedded, F = out.feature, FI = out.featureIndex, Zn = out.zone, B = out.bone, H = out.hitbox, Tr = out.triangle, S = out.status;
  for (let j = n < cap ? n : cap - 1; j > i; j--) {
    T[j] = T[j - 1]; P[j] = P[j - 1];
    X[j] = X[j - 1]; Y[j] = Y[j - 1]; Z[j] = Z[j - 1];
    NX[j] = NX[j - 1]; NY[j] = NY[j - 1]; NZ[j] = NZ[j - 1];
    CX[j] = CX[j - 1]; CY[j] = CY[j - 1]; CZ[j] = CZ[j - 1];
    E[j] = E[j - 1]; F[j] = F[j - 1]; FI[j] = FI[j - 1];
    Zn[j] = Zn[j - 1]; B[j] = B[j - 1]; H[j] = H[j - 1]; Tr[j] = Tr[j - 1]; S[j] = S[j - 1];
  }
  T[i] = t; P[i] = player;
  X[i] = h.x; Y[i] = h.y; Z[i] = h.z;
  NX[i] = h.nx; NY[i] = h.ny; NZ[i] = h.nz;
  CX[i] = h.cx; CY[i] = h.cy; CZ[i] = h.cz;
  E[i] = h.embedded ? 1 : 0; F[i] = h.feature; FI[i] = h.featureIndex;
  Zn[i] = h.zone; B[i] = h.bone; H[i] = h.hitbox; Tr[i] = h.triangle; S[i] = h.status;
  if (n < cap) out.count = n + 1;
}

/**
 * Players a volume (sphere, capsule or box) overlaps, one entry per player: its hitbox nearest the
 * volume's core, in flat arrays of `capacity` entries sorted by distance ascending, equal distances
 * by player slot ascending. See ./rewindVolume for what the distance is for each volume.
 */
export interface VolumeOverlaps {
  readonly capacity: number;
  /** Signed distance from the volume's core to the hitbox: > 0 outside, <= 0 when the core reaches inside (minus its depth). */
  readonly distance: Float64Array;
  /** The hitbox's surface point nearest the core point. */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  /** The core's point that realises the distance (sphere and box: the centre; capsule: a point of its segment). */
  readonly px: Float64Array;
  readonly py: Float64Array;
  readonly pz: Float64Array;
  /** Unit normal at the surface point, from the hitbox toward the core point (the outward face normal when inside). */
  readonly nx: Float64Array;
  readonly ny: Float64Array;
  readonly nz: Float64Array;
  readonly player: Int32Array;
  readonly zone: Uint8Array;
  readonly bone: Int32Array;
  readonly hitbox: Int32Array;
  /** Rig triangle index of the surface point. */
  readonly triangle: Int32Array;
  readonly status: Uint8Array;
  count: number;
  /** Players overlapped; more than count when the capacity overflowed (the nearest were kept). */
  total: number;
}

/** Arrays for the VolumeRewinder overlap queries holding `capacity` entries (an integer, 0 .. 2^24). */
export function createVolumeOverlaps(capacity = 64): VolumeOverlaps {
  checkCapacity('createVolumeOverlaps', capacity);
  const f = () => new Float64Array(capacity);
  return {
    capacity, distance: f(), x: f(), y: f(), z: f(), px: f(), py: f(), pz: f(), nx: f(), ny: f(), nz: f(),
    player: new Int32Array(capacity), zone: new Uint8Array(capacity), bone: new Int32Array(capacity),
    hitbox: new Int32Array(capacity), triangle: new Int32Array(capacity), status: new Uint8Array(capacity),
    count: 0, total: 0,
  };
}

/** Layout of the world-space values insertVolumeOverlap reads: distance, surface point, core point, normal. */
export const OV_DISTANCE = 0;
export const OV_SURFACE = 1;
export const OV_CORE = 4;
export const OV_NORMAL = 7;

/**
 * Inserts player `player`'s nearest hitbox (values v laid out by OV_*) into the sorted entries of
 * out (key: distance ascending, then slot ascending). Full: as insertSphereCastHit.
 */
export function insertVolumeOverlap(
  out: VolumeOverlaps, v: Float64Array, player: number, status: number, hitbox: number, zone: number, bone: number, triangle: number,
): void {
  out.total++;
  const cap = out.capacity, n = out.count, d = v[OV_DISTANCE];
  const D = out.distance, P = out.player;
  let i = n;
  while (i > 0 && D[i - 1] > d) i--;
  if (i >= cap) return;
  const X = out.x, Y = out.y, Z = out.z, PX = out.px, PY = out.py, PZ = out.pz, NX = out.nx, NY = out.ny, NZ = out.nz;
  const Zn = out.zone, B = out.bone, H = out.hitbox, Tr = out.triangle, S = out.status;
  for (let j = n < cap ? n : cap - 1; j > i; j--) {
    D[j] = D[j - 1]; P[j] = P[j - 1];
    X[j] = X[j - 1]; Y[j] = Y[j - 1]; Z[j] = Z[j - 1];
    PX[j] = PX[j - 1]; PY[j] = PY[j - 1]; PZ[j] = PZ[j - 1];
    NX[j] = NX[j - 1]; NY[j] = NY[j - 1]; NZ[j] = NZ[j - 1];
    Zn[j] = Zn[j - 1]; B[j] = B[j - 1]; H[j] = H[j - 1]; Tr[j] = Tr[j - 1]; S[j] = S[j - 1];
  }
  D[i] = d; P[i] = player;
  X[i] = v[OV_SURFACE]; Y[i] = v[OV_SURFACE + 1]; Z[i] = v[OV_SURFACE + 2];
  PX[i] = v[OV_CORE]; PY[i] = v[OV_CORE + 1]; PZ[i] = v[OV_CORE + 2];
  NX[i] = v[OV_NORMAL]; NY[i] = v[OV_NORMAL + 1]; NZ[i] = v[OV_NORMAL + 2];
  Zn[i] = zone; B[i] = bone; H[i] = hitbox; Tr[i] = triangle; S[i] = status;
  if (n < cap) out.count = n + 1;
}
