/**
 * Brute-force potential visibility for the fog-of-war tests (test/fogVisibility.test.ts): every eye
 * position on a dense grid of the viewer's reach (rings of the reach disc at several heights between
 * the lowest and highest eye), against the enemy's real body (the rig posed in a seeded clip, time
 * and yaw, its extreme corners plus random points inside its triangles) at feet positions spread
 * over the enemy's reach, each line tested with World.anyHit. Visible when any line is clear.
 * Only places a player can walk to count (straight or with one turn, within its reach, clear of the
 * level at chest height): not the far side of a wall it stands next to.
 *
 * Feet never go below the level's floor (floorY: the test levels are a flat floor with boxes on it).
 * The reach (horizontal radius, rise, drop) is the one shared/fog/reach.ts states for the horizon
 * (the viewer's eye over its whole horizon, the enemy's body over patch + safety), without the fog's
 * extra margin: the rule is checked here for what it samples; the reach bounds
 * themselves are checked against the movement step in the same test file.
 */
import type { Rig } from '../../shared/rig/rig';
import { composeRoot, sampleClipBones, transformPoint } from '../../shared/rig/posing';
import { climbCell, type ClimbMap } from '../../shared/fog/climb';
import { fallDrop, horizontalReach, jumpRise, walkRise, type FogMotion } from '../../shared/fog/reach';
import type { World } from '../../shared/world/world';

export interface BrutePlayer {
  x: number; y: number; z: number;
  vx: number; vy: number; vz: number;
  eye: number;
}

export interface BruteOptions {
  /** Rings of the eye disc (radius fractions 1/rings .. 1, plus the centre) and points per ring. */
  eyeRings: number;
  eyeAngles: number;
  /** Eye heights between the lowest and highest (inclusive), plus the eye itself. */
  eyeHeights: number;
  /** Enemy feet positions over its reach (the centre plus random ones, rim-heavy) and body points per pose. */
  feet: number;
  bodyPoints: number;
  /** Top of the level's floor: no feet go below it (eyes stay an eye height above it). */
  floorY: number;
}

export const DEFAULT_BRUTE: BruteOptions = { eyeRings: 3, eyeAngles: 16, eyeHeights: 4, feet: 12, bodyPoints: 48, floorY: 0 };

interface Reach { r: number; up: number; down: number }

function reachOf(m: FogMotion, climb: ClimbMap | undefined, p: BrutePlayer, h: number): Reach {
  const r = horizontalReach(m, p.vx, p.vz, h);
  let slope = m.climbSlope, step = m.stepHeight > 0;
  if (climb) {
    const c = climbCell(climb, p.x, p.z, r);
    slope = c >= 0 ? climb.slope[c] : climb.maxSlope;
    step = c >= 0 ? climb.step[c] === 1 : climb.anyStep;
  }
  const walk = walkRise(m, r, slope, step);
  return { r, up: jumpRise(m, p.vy, h) + walk, down: fallDrop(m, p.vy, h) + walk };
}

/** The eye positions tested (x y z triples): the reach disc's rings at each height, where reachable. */
export function eyeSamples(world: World, m: FogMotion, climb: ClimbMap | undefined, v: BrutePlayer, h: number, o: BruteOptions): number[] {
  const { r, up } = reachOf(m, climb, v, h);
  const eyeY = v.y + v.eye;
  const down = Math.min(reachOf(m, climb, v, h).down, v.y - o.floorY);
  const ys: number[] = [eyeY];
  for (let i = 0; i < o.eyeHeights; i++) ys.push(eyeY - down + ((up + down) * i) / Math.max(1, o.eyeHeights - 1));
  const spots: number[] = [v.x, v.z];
  for (let ring = 1; ring <= o.eyeRings; ring++) {
    const rr = (r * ring) / o.eyeRings;
    const n = Math.max(4, Math.round((o.eyeAngles * ring) / o.eyeRings));
    for (let k = 0; k < n; k++) {
      const a = (2 * Math.PI * (k + 0.5 * (ring & 1))) / n;
      spots.push(v.x + rr * Math.cos(a), v.z + rr * Math.sin(a));
    }
  }
  const ok = reachableSpots(world, v.x, v.y + PROBE, v.z, spots, r);
  const out: number[] = [];
  for (const y of ys) for (let i = 0; i < spots.length; i += 2) if (ok[i >> 1]) out.push(spots[i], y, spots[i + 1]);
  return out;
}

/**
 * Camera positions off each eye (x y z triples): a boom of length `boom` and half that toward 26
 * directions (the cube's faces, edges and corners), kept where the segment from the eye is clear
 * (a client pulls its camera in front of walls: every such camera is one a client may draw from).
 */
export function cameraSamples(world: World, eyes: number[], boom: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < eyes.length; i += 3) {
    const ex = eyes[i], ey = eyes[i + 1], ez = eyes[i + 2];
    for (let a = -1; a <= 1; a++) for (let b = -1; b <= 1; b++) for (let c = -1; c <= 1; c++) {
      if (a === 0 && b === 0 && c === 0) continue;
      const l = Math.hypot(a, b, c);
      for (const d of [boom, boom / 2]) {
        const cx = ex + (a / l) * d, cy = ey + (b / l) * d, cz = ez + (c / l) * d;
        if (!world.anyHit(ex, ey, ez, cx, cy, cz)) out.push(cx, cy, cz);
      }
    }
  }
  return out;
}

/** Height above the feet at which paths are checked (the movement's upper wall probe). */
const PROBE = 1.3;

/**
 * Which of the spots (x z pairs) a player at (x, y, z) can walk to within reach r: straight, or
 * through one other spot reached straight (|a| + |b| <= r), each leg clear of the level at that
 * height. A superset of what the movement allows (it ignores the player's radius), so the brute
 * force asks at least as much of the fog as the game does.
 */
function reachableSpots(world: World, x: number, y: number, z: number, spots: number[], r: number): boolean[] {
  const n = spots.length / 2;
  const direct = new Array<boolean>(n).fill(false);
  const dist = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const dx = spots[2 * i] - x, dz = spots[2 * i + 1] - z;
    dist[i] = Math.hypot(dx, dz);
    direct[i] = dist[i] <= r + 1e-9 && !world.anyHit(x, y, z, spots[2 * i], y, spots[2 * i + 1]);
  }
  const ok = direct.slice();
  for (let j = 0; j < n; j++) {
    if (ok[j]) continue;
    for (let i = 0; i < n && !ok[j]; i++) {
      if (!direct[i]) continue;
      const leg = Math.hypot(spots[2 * j] - spots[2 * i], spots[2 * j + 1] - spots[2 * i + 1]);
      if (dist[i] + leg <= r + 1e-9 && !world.anyHit(spots[2 * i], y, spots[2 * i + 1], spots[2 * j], y, spots[2 * j + 1])) ok[j] = true;
    }
  }
  return ok;
}

/** Body points of the enemy over its reach in h seconds: posed rigs at seeded feet positions, clips, times and yaws. */
export function bodySamples(world: World, m: FogMotion, climb: ClimbMap | undefined, rig: Rig, e: BrutePlayer, h: number, o: BruteOptions, rnd: () => number): number[] {
  const { r, up } = reachOf(m, climb, e, h);
  const down = Math.min(reachOf(m, climb, e, h).down, e.y - o.floorY);
  const H = rig.hitboxCount;
  const bones = new Float64Array(H * 7);
  const p = new Float64Array(3);
  const out: number[] = [];
  // Feet: the centre first, then points biased to the rim (where the reach is largest), where reachable.
  const spots: number[] = [];
  for (let f = 0; f < o.feet; f++) {
    const rr = f === 0 ? 0 : r * Math.sqrt(Math.sqrt(rnd()));
    const a = 2 * Math.PI * rnd();
    spots.push(e.x + rr * Math.cos(a), e.z + rr * Math.sin(a));
  }
  const ok = reachableSpots(world, e.x, e.y + PROBE, e.z, spots, r);
  for (let f = 0; f < o.feet; f++) {
    if (!ok[f]) continue;
    const fy = e.y + (f === 0 ? 0 : -down + (up + down) * rnd());
    const fx = spots[2 * f], fz = spots[2 * f + 1];
    const clip = Math.floor(rnd() * rig.clips.length);
    sampleClipBones(bones, rig, clip, rnd() * rig.clips[clip].duration);
    const yaw = 2 * Math.PI * rnd();
    composeRoot(bones, bones, H, fx, fy, fz, 0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2));
    // Every hitbox's corners are many; take random triangles' corners and interior points, and the
    // extremes along 8 horizontal directions and up/down (what peeks first).
    const ext = new Float64Array(10).fill(-Infinity);
    const extP = new Float64Array(30);
    const dirs = [[1, 0], [0.7071, 0.7071], [0, 1], [-0.7071, 0.7071], [-1, 0], [-0.7071, -0.7071], [0, -1], [0.7071, -0.7071]];
    for (let hb = 0; hb < H; hb++) {
      for (let t = rig.triStart[hb] * 9; t < rig.triStart[hb + 1] * 9; t += 3) {
        transformPoint(p, 0, bones, hb * 7, rig.triangles[t], rig.triangles[t + 1], rig.triangles[t + 2]);
        for (let d = 0; d < 10; d++) {
          const s = d < 8 ? (p[0] - fx) * dirs[d][0] + (p[2] - fz) * dirs[d][1] : d === 8 ? p[1] : -p[1];
          if (s > ext[d]) { ext[d] = s; extP[3 * d] = p[0]; extP[3 * d + 1] = p[1]; extP[3 * d + 2] = p[2]; }
        }
      }
    }
    for (let i = 0; i < 30; i++) out.push(extP[i]);
    for (let i = 0; i < o.bodyPoints; i++) {
      const hb = Math.floor(rnd() * H);
      const t = rig.triStart[hb] + Math.floor(rnd() * (rig.triStart[hb + 1] - rig.triStart[hb]));
      let u = rnd(), w = rnd();
      if (u + w > 1) { u = 1 - u; w = 1 - w; }
      const T = rig.triangles, k = t * 9;
      const lx = T[k] + u * (T[k + 3] - T[k]) + w * (T[k + 6] - T[k]);
      const ly = T[k + 1] + u * (T[k + 4] - T[k + 1]) + w * (T[k + 7] - T[k + 1]);
      const lz = T[k + 2] + u * (T[k + 5] - T[k + 2]) + w * (T[k + 8] - T[k + 2]);
      transformPoint(p, 0, bones, hb * 7, lx, ly, lz);
      out.push(p[0], p[1], p[2]);
    }
  }
  return out;
}

/**
 * Brute-force visibility: any clear line from an eye sample to a body sample. With half-size c > 0 a
 * line counts only when 8 lines beside it are clear too, moved across it to the corners and edge
 * middles of a square of side 2c (one side horizontal): a line of sight through an opening that
 * holds such a square as seen along the line. Returns rays cast too.
 */
export function bruteVisible(world: World, eyes: number[], body: number[], clearance = 0): { visible: boolean; rays: number } {
  let rays = 0;
  for (let i = 0; i < eyes.length; i += 3) {
    for (let j = 0; j < body.length; j += 3) {
      const ax = eyes[i], ay = eyes[i + 1], az = eyes[i + 2], bx = body[j], by = body[j + 1], bz = body[j + 2];
      rays++;
      if (world.anyHit(ax, ay, az, bx, by, bz)) continue;
      if (clearance > 0 && !squareClear(world, ax, ay, az, bx, by, bz, clearance)) continue;
      return { visible: true, rays };
    }
  }
  return { visible: false, rays };
}

const SQUARE = [[1, 1], [1, 0], [1, -1], [0, 1], [0, -1], [-1, 1], [-1, 0], [-1, -1]];

/** The 8 lines beside a -> b at the corners and edge middles of a square of half-size c across it are clear. */
function squareClear(world: World, ax: number, ay: number, az: number, bx: number, by: number, bz: number, c: number): boolean {
  const dx = bx - ax, dy = by - ay, dz = bz - az;
  // Across the line: u horizontal, v across both.
  let ux = -dz, uz = dx;
  const l = Math.hypot(ux, uz);
  if (l < 1e-9) { ux = 1; uz = 0; } else { ux /= l; uz /= l; }
  let vx = dy * uz, vy = dz * ux - dx * uz, vz = -dy * ux;
  const lv = Math.hypot(vx, vy, vz);
  vx /= lv; vy /= lv; vz /= lv;
  for (const [p, q] of SQUARE) {
    const ox = (ux * p + vx * q) * c, oy = vy * q * c, oz = (uz * p + vz * q) * c;
    if (world.anyHit(ax + ox, ay + oy, az + oz, bx + ox, by + oy, bz + oz)) return false;
  }
  return true;
}
