/**
 * The visibility check of the weapon-message pipeline (shot.ts): whether a hit point can be seen
 * from the server's eye path, so a start pushed past a corner does not reach around it.
 */
import type { World } from '../world/world';

/**
 * Can the point P be seen from the server's eye: from C (the eye point nearest the shot's start) or
 * from either end of the eye path (A, B)? The sight line stops VISIBILITY_BACKOFF_M short of P, so
 * world surfaces touching the hitbox right at P do not count as blocking.
 */
export function visibleFromEye(
  world: World, px: number, py: number, pz: number,
  cx: number, cy: number, cz: number, ax: number, ay: number, az: number, bx: number, by: number, bz: number,
): boolean {
  return sightClear(world, cx, cy, cz, px, py, pz) || sightClear(world, bx, by, bz, px, py, pz) || sightClear(world, ax, ay, az, px, py, pz);
}

/** Margin by which a sight line stops short of the point it looks at, metres. */
export const VISIBILITY_BACKOFF_M = 0.01;

function sightClear(world: World, ex: number, ey: number, ez: number, px: number, py: number, pz: number): boolean {
  const dx = px - ex, dy = py - ey, dz = pz - ez;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(l > VISIBILITY_BACKOFF_M)) return true;
  const k = (l - VISIBILITY_BACKOFF_M) / l;
  return !world.anyHit(ex, ey, ez, ex + dx * k, ey + dy * k, ez + dz * k);
}
