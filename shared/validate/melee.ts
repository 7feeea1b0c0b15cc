/**
 * The replay of a melee swing (a weapon whose trace has a radius, shared/weapons.ts): the players
 * are met by a sphere of that radius swept along the claimed segment (VolumeRewinder.sphereCast,
 * the capsule's first contact), and the level by a thin segment from the swing's start to that
 * contact point. So a swing reaches a body within the radius of its line, never through a wall (the
 * thin segment to the body must be clear), and does not snag on the floor or a wall beside it (the
 * thick trace is never tested against the level). Without a contact the thin segment along the
 * swing gives the world's first hit (where the blade strikes the level).
 *
 * The answers go into the pellet walk's records (pellets.ts) as a single segment's do: at most one
 * world hit and one player. A wall on the thin segment to the contact is placed along the swing at
 * the same fraction of the contact's t, so the walk meets it first and the swing is OCCLUDED.
 * Allocation-free after the scene's VolumeRewinder exists; deterministic (+ - * /, Math.sqrt).
 */
import { createWorldHit, type WorldHits } from '../world/world';
import type { HitboxHits, Rewinder } from '../lagcomp/rewind';
import type { PlayerHistory } from '../lagcomp/history';
import { createSphereCastHit, VolumeRewinder } from '../lagcomp/rewindVolume';
import { VISIBILITY_BACKOFF_M } from './sight';
import type { ShotScene } from './rules';

const cast = createSphereCastHit();
const worldHit = createWorldHit();
/** VolumeRewinders built for scenes that carry none, one per rewinder. */
const built = new WeakMap<Rewinder, VolumeRewinder>();

/** The scene's VolumeRewinder: its own, else one built once for its rewinder. */
export function sceneVolumes(scene: ShotScene): VolumeRewinder {
  const own = scene.volumes;
  if (own !== undefined) return own;
  let v = built.get(scene.rewinder);
  if (v === undefined) {
    v = new VolumeRewinder(scene.rewinder);
    built.set(scene.rewinder, v);
  }
  return v;
}

/** Copies the module's world hit into W's entry 0 at fraction t of the swing. */
function keepWorldHit(W: WorldHits, t: number): void {
  const h = worldHit;
  W.count = 1;
  W.t[0] = t; W.x[0] = h.x; W.y[0] = h.y; W.z[0] = h.z; W.nx[0] = h.nx; W.ny[0] = h.ny; W.nz[0] = h.nz;
  W.front[0] = h.front ? 1 : 0; W.triangle[0] = h.triangle; W.surface[0] = h.surface;
}

/**
 * Fills W and P (count 0 or 1 each) for a swing of `radius` along `seg` (sx sy sz ex ey ez) among
 * the `masked` histories at `whenMs`, the shooter's slot skipped.
 */
export function replaySwing(
  W: WorldHits, P: HitboxHits, scene: ShotScene, masked: ArrayLike<PlayerHistory | undefined>, whenMs: number,
  shooter: number, seg: Float64Array, radius: number,
): void {
  const sx = seg[0]!, sy = seg[1]!, sz = seg[2]!, ex = seg[3]!, ey = seg[4]!, ez = seg[5]!;
  const world = scene.world;
  W.count = 0;
  P.count = 0;
  if (sceneVolumes(scene).sphereCast(cast, masked, whenMs, sx, sy, sz, ex, ey, ez, radius, shooter, 1)) {
    const h = cast;
    P.count = 1;
    P.t[0] = h.t; P.x[0] = h.x; P.y[0] = h.y; P.z[0] = h.z; P.nx[0] = h.nx; P.ny[0] = h.ny; P.nz[0] = h.nz;
    P.player[0] = h.player; P.zone[0] = h.zone; P.bone[0] = h.bone; P.hitbox[0] = h.hitbox; P.status[0] = h.status;
    // The thin segment to the contact, stopped short of it as a sight line is (a wall the hitbox
    // touches right at the contact does not count).
    const dx = h.x - sx, dy = h.y - sy, dz = h.z - sz;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (l > VISIBILITY_BACKOFF_M) {
      const k = (l - VISIBILITY_BACKOFF_M) / l;
      if (world.firstHit(worldHit, sx, sy, sz, sx + dx * k, sy + dy * k, sz + dz * k)) keepWorldHit(W, worldHit.t * k * h.t);
    }
  } else if (world.firstHit(worldHit, sx, sy, sz, ex, ey, ez)) {
    keepWorldHit(W, worldHit.t);
  }
  W.total = W.count;
}
