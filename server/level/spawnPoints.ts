/**
 * Spawn points for a level that names none: near its centre, spread over its floor, or (for a level
 * whose centre is not walkable) the second when the first finds nothing. World queries only.
 */
import type { World } from '../../shared/world/world';
import type { SpawnPoint } from '../arena/config';

/**
 * Spawn points on the level's floor: a ring of candidates around the level's centre at floor height,
 * kept where a downward probe finds ground within 1.5 m below the probe start and no wall within
 * 0.6 m around at chest height: everyone starts within a few metres and in sight of the others,
 * which makes quick matches and tests busy. `spreadSpawnPoints` spreads them over the level.
 */
export function findSpawnPoints(world: World, count: number): SpawnPoint[] {
  const b = world.bounds(new Float64Array(6));
  const cx0 = 0, cz0 = 0;
  const top = b[4]! + 1;
  const floorY = world.groundHeight(cx0, top, cz0, top - b[1]! + 1);
  const refY = Number.isFinite(floorY) ? floorY : b[1]!;
  const out: SpawnPoint[] = [];
  const hit = { hit: false, t: 0, x: 0, y: 0, z: 0, u: 0, v: 0, nx: 0, ny: 0, nz: 0, front: false, triangle: -1, surface: -1 };
  const dirs = [[1, 0], [0, 1], [-1, 0], [0, -1], [0.7071, 0.7071], [-0.7071, 0.7071], [0.7071, -0.7071], [-0.7071, -0.7071]] as const;
  for (let ring = 1; ring <= 12 && out.length < count; ring++) {
    for (const [ux, uz] of dirs) {
      if (out.length >= count) break;
      const x = cx0 + ux * ring * 1.5;
      const z = cz0 + uz * ring * 1.5;
      const gy = world.groundHeight(x, refY + 1.5, z, 3);
      if (!Number.isFinite(gy)) continue;
      let blocked = false;
      for (const [wx, wz] of dirs) {
        if (world.firstHit(hit, x, gy + 1.2, z, x + wx * 0.6, gy + 1.2, z + wz * 0.6)) blocked = true;
      }
      if (blocked || world.anyHit(x, gy + 0.1, z, x, gy + 2.0, z)) continue;
      out.push({ x, y: gy, z, dirX: -ux, dirZ: -uz });
    }
  }
  if (out.length === 0) throw new Error('findSpawnPoints: no open floor found near the level centre; pass spawnPoints (SPAWN_POINTS for npm start) or use spreadSpawnPoints.');
  return out;
}

/**
 * Spawn points spread over the level's main floor. Candidates lie on a 1 m grid over the level's
 * bounds, where a downward probe from 1.5 m above the floor under the level's centre finds ground
 * within 0.5 m of that floor's height, with 2 m of headroom and no wall within 0.6 m at chest
 * height. From the candidate nearest the centre, each next point is the candidate farthest from
 * those already chosen (farthest-point sampling), so players start apart and mostly out of each
 * other's sight (on collision-world, 98 of the 120 pairs of 16 points have no line of sight). Deterministic: the same world gives the same points.
 */
export function spreadSpawnPoints(world: World, count: number): SpawnPoint[] {
  const b = world.bounds(new Float64Array(6));
  const top = b[4]! + 1;
  const floorY = world.groundHeight(0, top, 0, top - b[1]! + 1);
  const refY = Number.isFinite(floorY) ? floorY : b[1]!;
  const hit = { hit: false, t: 0, x: 0, y: 0, z: 0, u: 0, v: 0, nx: 0, ny: 0, nz: 0, front: false, triangle: -1, surface: -1 };
  const dirs = [[1, 0], [0, 1], [-1, 0], [0, -1], [0.7071, 0.7071], [-0.7071, 0.7071], [0.7071, -0.7071], [-0.7071, -0.7071]] as const;
  const cand: number[] = [];
  for (let x = Math.ceil(b[0]!); x <= b[3]!; x += 1) {
    for (let z = Math.ceil(b[2]!); z <= b[5]!; z += 1) {
      const gy = world.groundHeight(x, refY + 1.5, z, 3);
      if (!Number.isFinite(gy) || Math.abs(gy - refY) > 0.5) continue;
      let blocked = world.anyHit(x, gy + 0.1, z, x, gy + 2.0, z);
      for (let d = 0; d < dirs.length && !blocked; d++) {
        if (world.firstHit(hit, x, gy + 1.2, z, x + dirs[d]![0] * 0.6, gy + 1.2, z + dirs[d]![1] * 0.6)) blocked = true;
      }
      if (!blocked) cand.push(x, gy, z);
    }
  }
  const n = cand.length / 3;
  if (n === 0) throw new Error('spreadSpawnPoints: no open floor found on the level; pass spawnPoints (SPAWN_POINTS for npm start).');
  // Squared distance from each candidate to the nearest chosen point.
  const near = new Float64Array(n).fill(Infinity);
  let next = 0;
  const centreDist = (i: number): number => cand[3 * i]! * cand[3 * i]! + cand[3 * i + 2]! * cand[3 * i + 2]!;
  for (let i = 1; i < n; i++) if (centreDist(i) < centreDist(next)) next = i;
  const out: SpawnPoint[] = [];
  while (out.length < Math.min(count, n)) {
    const x = cand[3 * next]!, y = cand[3 * next + 1]!, z = cand[3 * next + 2]!;
    // Face the level's centre (a view direction, never an angle).
    const l = Math.sqrt(x * x + z * z);
    out.push({ x, y, z, dirX: l > 1e-9 ? -x / l : 1, dirZ: l > 1e-9 ? -z / l : 0 });
    let far = -1;
    for (let i = 0; i < n; i++) {
      const dx = cand[3 * i]! - x, dz = cand[3 * i + 2]! - z;
      const d = dx * dx + dz * dz;
      if (d < near[i]!) near[i] = d;
      if (far < 0 || near[i]! > near[far]!) far = i;
    }
    next = far;
  }
  return out;
}

/**
 * Spawn points for a level nobody gave any for: near the centre (findSpawnPoints), else spread over
 * the whole floor (spreadSpawnPoints, for levels whose centre is not walkable), else an error that
 * says how to give them.
 */
export function autoSpawnPoints(world: World, count: number, levelPath: string): SpawnPoint[] {
  try {
    return findSpawnPoints(world, count);
  } catch {
    try {
      return spreadSpawnPoints(world, count);
    } catch {
      throw new Error(`level ${levelPath} has no open floor where spawn points can be found (a downward probe must meet ground with 2 m of headroom and no wall within 0.6 m); give them: SPAWN_POINTS="x,y,z;x,y,z" for npm start, or the spawnPoints option`);
    }
  }
}
