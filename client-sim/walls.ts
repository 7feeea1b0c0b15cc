/**
 * The walls along a segment as a bullet's penetration sees them (shared/validate/pellets.ts): each
 * from its entry face to the exit face behind it (0.05 m for a face without one), its cost its
 * thickness times its material's resistance under the match's rules. What a player weighs before a
 * wall-bang and what the wall-bang cheat checks it is over the limit.
 */
import { surfaceResistance } from '../shared/validate/pellets';
import { createWorldHits } from '../shared/world/world';
import type { ShotScene, ValidationConfig } from '../shared/validate/rules';

const hits = createWorldHits(64);

/** [summed thickness, summed cost] of the walls from `a` to `b` into `out`. */
export function wallsBetween(out: Float64Array, scene: ShotScene, rules: ValidationConfig, a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const w = scene.world;
  w.allHits(hits, a[0]!, a[1]!, a[2]!, b[0]!, b[1]!, b[2]!);
  const dx = b[0]! - a[0]!, dy = b[1]! - a[1]!, dz = b[2]! - a[2]!;
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  let thick = 0, cost = 0;
  for (let i = 0; i < hits.count; i++) {
    if (hits.front[i] !== 1) continue;
    let exit = -1;
    for (let j = i + 1; j < hits.count; j++) {
      if (hits.front[j] === 0) {
        exit = j;
        break;
      }
    }
    const th = exit >= 0 ? (hits.t[exit]! - hits.t[i]!) * len : 0.05;
    thick += th;
    cost += th * surfaceResistance(scene, rules, hits.surface[i]!);
    if (exit < 0) break;
    i = exit;
  }
  out[0] = thick;
  out[1] = cost;
  return out;
}
