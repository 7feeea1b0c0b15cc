/**
 * Explosions: who a blast (centre C, SplashSpec) damages on players posed at a server time, and by
 * how much. Candidates are the players whose hitboxes overlap the blast sphere
 * (VolumeRewinder.overlapSphere, with its nearest hitbox and nearest surface point). The level
 * shields: a player takes damage only through a point of its hitboxes the centre sees
 * (World.anyHit on the segment from C, pulled back LOS_SKIN_M from the point so a point lying on a
 * floor or wall is not shielded by that surface itself). Players' bodies do not shield.
 *
 * Line-of-sight rule, at most 1 + hitboxCount segments per player, in this order:
 * 1. the overlap's nearest surface point (distance: the overlap's, 0 when C is inside the hitbox);
 * 2. if blocked, the centres of the player's hitbox bounding spheres within the blast radius of C,
 *    nearest first (ties: lower hitbox index); the first one seen is the point (distance |C - it|).
 * Damage at distance d of the point seen: damageMax + (damageMin - damageMax) d / radius (linear).
 * A player no point of which sees C takes nothing (counted in `blocked`).
 *
 * Allocation-free per blast once the scratch fits the player count (it grows, once, for a larger
 * histories array or rig). Only + - * /, Math.sqrt and comparisons.
 */
import { BONE_STRIDE, type Rig } from '../rig/rig';
import { createPlayerPose } from '../lagcomp/pose';
import { type PlayerHistory, rewindStatusUsable } from '../lagcomp/history';
import { createVolumeOverlaps, type VolumeOverlaps } from '../lagcomp/volumeHits';
import type { VolumeRewinder } from '../lagcomp/rewindVolume';
import type { SplashSpec } from '../weapons';
import type { World } from '../world/world';

/** The sight segment ends this far short of the hitbox point, m. */
export const LOS_SKIN_M = 1e-3;

/** Which point of a victim saw the centre. */
export const SplashVia = { NEAREST: 0, HITBOX_CENTRE: 1 } as const;
export type SplashVia = (typeof SplashVia)[keyof typeof SplashVia];

/** Players one blast damages, in flat arrays, in the overlap's order (nearest hitbox distance, then slot). */
export interface SplashHits {
  readonly capacity: number;
  readonly player: Int32Array;
  /** HitZone and hitbox index of the point that saw the centre. */
  readonly zone: Uint8Array;
  readonly hitbox: Int32Array;
  /** Distance from the centre to that point, m (>= 0). */
  readonly distance: Float64Array;
  readonly damage: Float64Array;
  /** The point that saw the centre. */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  readonly via: Uint8Array;
  /** Entries stored. */
  count: number;
  /** Players damaged (more than count when the capacity overflowed: the first kept). */
  total: number;
  /** Players overlapped but shielded by the level from every point tried. */
  blocked: number;
}

export function createSplashHits(capacity = 64): SplashHits {
  if (!Number.isInteger(capacity) || capacity < 0 || capacity > 1 << 24) throw new RangeError(`createSplashHits: capacity must be an integer from 0 to 2^24 (got ${capacity}).`);
  const f = () => new Float64Array(capacity);
  return {
    capacity, player: new Int32Array(capacity), zone: new Uint8Array(capacity), hitbox: new Int32Array(capacity),
    distance: f(), damage: f(), x: f(), y: f(), z: f(), via: new Uint8Array(capacity), count: 0, total: 0, blocked: 0,
  };
}

/** Damage of `splash` at distance d (clamped to 0..radius), linear falloff. */
export function splashDamage(splash: SplashSpec, d: number): number {
  const R = splash.radius;
  const s = d > 0 ? (d < R ? d : R) : 0;
  return splash.damageMax + ((splash.damageMin - splash.damageMax) * s) / R;
}

// Scratch, grown on demand.
let overlaps: VolumeOverlaps = createVolumeOverlaps(64);
let bones = new Float64Array(0);
let centres = new Float64Array(0);
let tried = new Uint8Array(0);
const pose = createPlayerPose();
/** The chosen point: x, y, z, distance. */
const POINT = new Float64Array(4);
/** The blast's centre. (No double of our own crosses a call here: V8 boxes those it does not inline.) */
const CENTRE = new Float64Array(3);


/**
 * The blast of `splash` at (cx, cy, cz) on the players posed at timeMs (skipping excludePlayer; -1
 * for none: the shooter is hurt by its own blast), shielded by `world` (null: nothing shields).
 * Fills out and returns out.count. Non-finite input: 0.
 */
export function explode(
  out: SplashHits, world: World | null, vol: VolumeRewinder, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
  cx: number, cy: number, cz: number, splash: SplashSpec, excludePlayer: number,
): number {
  out.count = 0;
  out.total = 0;
  out.blocked = 0;
  const R = splash.radius;
  if (!(R > 0)) return 0;
  if (overlaps.capacity < histories.length) overlaps = createVolumeOverlaps(histories.length);
  const rig = vol.rig, H = rig.hitboxCount;
  if (bones.length < H * BONE_STRIDE) {
    bones = new Float64Array(H * BONE_STRIDE);
    centres = new Float64Array(H * 4);
    tried = new Uint8Array(H);
  }
  const ov = overlaps;
  CENTRE[0] = cx; CENTRE[1] = cy; CENTRE[2] = cz;
  const n = vol.overlapSphere(ov, histories, timeMs, cx, cy, cz, R, excludePlayer);
  for (let i = 0; i < n; i++) {
    const p = ov.player[i];
    let hitbox = ov.hitbox[i], via: SplashVia = SplashVia.NEAREST;
    const d0 = ov.distance[i];
    POINT[0] = ov.x[i]; POINT[1] = ov.y[i]; POINT[2] = ov.z[i]; POINT[3] = d0 > 0 ? d0 : 0;
    if (!sees(world)) {
      hitbox = seenCentre(world, vol, rig, histories[p]!, timeMs, splash);
      if (hitbox < 0) {
        out.blocked++;
        continue;
      }
      via = SplashVia.HITBOX_CENTRE;
    }
    out.total++;
    const k = out.count;
    if (k >= out.capacity) continue;
    out.player[k] = p;
    out.hitbox[k] = hitbox;
    out.zone[k] = rig.hitboxZone[hitbox];
    out.distance[k] = POINT[3];
    out.damage[k] = splashDamage(splash, POINT[3]);
    out.x[k] = POINT[0]; out.y[k] = POINT[1]; out.z[k] = POINT[2];
    out.via[k] = via;
    out.count = k + 1;
  }
  return out.count;
}

/** Whether CENTRE sees POINT: the segment between them, less LOS_SKIN_M at POINT, meets no triangle (World.anyHit). */
function sees(world: World | null): boolean {
  if (world === null) return true;
  const cx = CENTRE[0], cy = CENTRE[1], cz = CENTRE[2];
  const dx = POINT[0] - cx, dy = POINT[1] - cy, dz = POINT[2] - cz;
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(len > LOS_SKIN_M)) return true;
  const k = (len - LOS_SKIN_M) / len;
  return !world.anyHit(cx, cy, cz, cx + k * dx, cy + k * dy, cz + k * dz);
}

/**
 * The player (history h) posed at timeMs: its hitbox whose bounding-sphere centre within radius R
 * of C is nearest C among those the centre sees (writes POINT), or -1.
 */
function seenCentre(world: World | null, vol: VolumeRewinder, rig: Rig, h: PlayerHistory, timeMs: number, splash: SplashSpec): number {
  const cx = CENTRE[0], cy = CENTRE[1], cz = CENTRE[2], R = splash.radius;
  const rw = vol.rewinder;
  const status = h.sampleAt(pose, timeMs, rw.policy);
  if (!rewindStatusUsable(status) || !pose.alive) return -1;
  rw.poseBones(bones, pose);
  const H = rig.hitboxCount, s = rig.hitboxSpheres, b = bones;
  for (let i = 0; i < H; i++) {
    const o = i * BONE_STRIDE, s4 = i * 4;
    const qx = b[o + 3], qy = b[o + 4], qz = b[o + 5], qw = b[o + 6];
    const lx = s[s4], ly = s[s4 + 1], lz = s[s4 + 2];
    const ux = qy * lz - qz * ly, uy = qz * lx - qx * lz, uz = qx * ly - qy * lx;
    const x = b[o] + lx + 2 * (qw * ux + qy * uz - qz * uy);
    const y = b[o + 1] + ly + 2 * (qw * uy + qz * ux - qx * uz);
    const z = b[o + 2] + lz + 2 * (qw * uz + qx * uy - qy * ux);
    const dx = x - cx, dy = y - cy, dz = z - cz;
    centres[s4] = x; centres[s4 + 1] = y; centres[s4 + 2] = z;
    centres[s4 + 3] = Math.sqrt(dx * dx + dy * dy + dz * dz);
    tried[i] = centres[s4 + 3] <= R ? 0 : 1;
  }
  for (;;) {
    let best = -1;
    for (let i = 0; i < H; i++) if (tried[i] === 0 && (best < 0 || centres[i * 4 + 3] < centres[best * 4 + 3])) best = i;
    if (best < 0) return -1;
    tried[best] = 1;
    const o = best * 4;
    POINT[0] = centres[o]; POINT[1] = centres[o + 1]; POINT[2] = centres[o + 2]; POINT[3] = centres[o + 3];
    if (sees(world)) return best;
  }
}
