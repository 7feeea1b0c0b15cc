/**
 * Steps 6 and 7 of the pipeline for every pellet of a pull: the pellet's segment replayed against
 * the world and the rewound players, walked in order along it.
 * - A player met first is hit (damage by zone, falloff and the power left); with penetration the
 *   pellet passes it for playerPenetrationCost.
 * - A wall met first stops the pellet unless the weapon's penetration power pays for it: thickness
 *   (from the entry face to the first exit face behind it, SHEET_THICKNESS_M for a face with none)
 *   x the material's resistance. Paid for, the pellet leaves an entry and an exit hole and flies on
 *   with less power; a wall that takes all of it holds the pellet, and a player behind is OCCLUDED.
 * - A player hit before any wall must be visible from the server's eye (NOT_VISIBLE); behind a wall
 *   the penetration explains the hit, provided the eye sees where the pellet enters its first wall.
 * A weapon without penetration reads only the first world and the first hitbox hit, as a single
 * segment always has; a melee weapon's swing fills the same two from its thick trace (melee.ts). Allocation-free after the first call at a player count; deterministic
 * (+ - * /, Math.sqrt).
 */
import { createWorldHit, createWorldHits, type WorldHits } from '../world/world';
import { createHitboxHit, createHitboxHits, type HitboxHits } from '../lagcomp/rewind';
import type { PlayerHistory } from '../lagcomp/history';
import type { WeaponSpec } from '../weapons';
import { MAX_HITS_PER_PELLET, MAX_WALLS_PER_PELLET } from './pelletVerdict';
import { VerdictKind, VerdictReason, type Verdict } from './verdict';
import { visibleFromEye } from './sight';
import { replaySwing } from './melee';
import { hitDamage, teammates } from './targets';
import type { EyePath } from './eyePath';
import type { ShotScene, ShotTargets, ValidationConfig } from './rules';

/** Thickness charged for a face with no exit face behind it (a one-sided sheet), metres. */
export const SHEET_THICKNESS_M = 0.05;
/** Resistance of a material the table does not name (ValidationConfig.defaultResistance absent). */
export const DEFAULT_RESISTANCE = 1;
/** Power a pellet spends passing through a player (ValidationConfig.playerPenetrationCost absent). */
export const DEFAULT_PLAYER_COST = 0.2;

/** What decides a verdict's top-level fields, best first (the first pellet of the best class wins). */
const RANK_HIT = 4, RANK_FRIENDLY = 3, RANK_REFUSED = 2, RANK_MISS = 1;

const W: WorldHits = createWorldHits(64);
let P: HitboxHits = createHitboxHits(64);
const firstWorld = createWorldHit();
const firstBox = createHitboxHit();

/** The resistance of world surface `s` under the match's material table. */
export function surfaceResistance(scene: ShotScene, config: ValidationConfig, s: number): number {
  const fallback = config.defaultResistance ?? DEFAULT_RESISTANCE;
  const table = config.materials;
  if (table === undefined || s < 0) return fallback;
  const surface = scene.world.surfaces[s];
  const r = surface === undefined ? undefined : table[surface.material];
  return typeof r === 'number' ? r : fallback;
}

/** Everything one pellet's walk reads besides its segment. */
export interface PelletContext {
  scene: ShotScene;
  config: ValidationConfig;
  targets: ShotTargets;
  weapon: WeaponSpec;
  shooter: number;
  masked: (PlayerHistory | undefined)[];
  whenMs: number;
  eye: EyePath;
  /** Rank of what the top-level fields hold so far (0: nothing yet). */
  rank: number;
  /**
   * The pellet's segment, sx sy sz ex ey ez: in an array, not as six arguments, because a call the
   * JIT does not inline passes doubles boxed (see ../bvh/traverse).
   */
  seg: Float64Array;
}

/**
 * Fills W and P for the segment: every hit with penetration, the first of each without, a melee
 * swing's contact and the wall before it for a weapon with a radius (melee.ts).
 */
function replay(c: PelletContext): void {
  const world = c.scene.world;
  const g = c.seg;
  const sx = g[0]!, sy = g[1]!, sz = g[2]!, ex = g[3]!, ey = g[4]!, ez = g[5]!;
  const radius = c.weapon.radius ?? 0;
  if (radius > 0) {
    replaySwing(W, P, c.scene, c.masked, c.whenMs, c.shooter, g, radius);
    return;
  }
  if ((c.weapon.penetration ?? 0) > 0) {
    if (P.t.length < c.masked.length) P = createHitboxHits(c.masked.length);
    world.allHits(W, sx, sy, sz, ex, ey, ez);
    c.scene.rewinder.allHits(P, c.masked, c.whenMs, sx, sy, sz, ex, ey, ez, c.shooter, 1);
    return;
  }
  W.count = 0;
  if (world.firstHit(firstWorld, sx, sy, sz, ex, ey, ez)) {
    const h = firstWorld;
    W.count = 1;
    W.t[0] = h.t; W.x[0] = h.x; W.y[0] = h.y; W.z[0] = h.z; W.nx[0] = h.nx; W.ny[0] = h.ny; W.nz[0] = h.nz;
    W.front[0] = h.front ? 1 : 0; W.triangle[0] = h.triangle; W.surface[0] = h.surface;
  }
  W.total = W.count;
  P.count = 0;
  if (c.scene.rewinder.firstHit(firstBox, c.masked, c.whenMs, sx, sy, sz, ex, ey, ez, c.shooter, 1)) {
    const h = firstBox;
    P.count = 1;
    P.t[0] = h.t; P.x[0] = h.x; P.y[0] = h.y; P.z[0] = h.z; P.nx[0] = h.nx; P.ny[0] = h.ny; P.nz[0] = h.nz;
    P.player[0] = h.player; P.zone[0] = h.zone; P.bone[0] = h.bone; P.hitbox[0] = h.hitbox; P.status[0] = h.status;
  }
}

function pushImpact(out: Verdict, k: number, i: number, exit: number): void {
  const m = out.impacts;
  const n = m.count++;
  m.pellet[n] = k; m.surface[n] = W.surface[i]!; m.exit[n] = exit; m.t[n] = W.t[i]!;
  m.x[n] = W.x[i]!; m.y[n] = W.y[i]!; m.z[n] = W.z[i]!; m.nx[n] = W.nx[i]!; m.ny[n] = W.ny[i]!; m.nz[n] = W.nz[i]!;
}

/** Appends player j as a hit of pellet k; returns its index (the caller writes its damage). */
function pushHit(out: Verdict, k: number, j: number, reason: number, walls: number): number {
  const h = out.hits;
  const n = h.count++;
  h.pellet[n] = k; h.target[n] = P.player[j]!; h.zone[n] = P.zone[j]!; h.bone[n] = P.bone[j]!; h.hitbox[n] = P.hitbox[j]!;
  h.status[n] = P.status[j]!; h.reason[n] = reason; h.walls[n] = walls; h.t[n] = P.t[j]!;
  h.x[n] = P.x[j]!; h.y[n] = P.y[j]!; h.z[n] = P.z[j]!; h.nx[n] = P.nx[j]!; h.ny[n] = P.ny[j]!; h.nz[n] = P.nz[j]!;
  h.damage[n] = 0;
  return n;
}

/** Top-level fields from player j (a hit, or a refusal at a hitbox) when `rank` beats what they hold. */
function decideAtPlayer(out: Verdict, c: PelletContext, rank: number, j: number, kind: number, reason: number): void {
  if (rank <= c.rank) return;
  c.rank = rank;
  out.kind = kind as VerdictKind;
  out.reason = reason as VerdictReason;
  out.target = P.player[j]!;
  out.zone = P.zone[j]!;
  out.targetRewindStatus = P.status[j]!;
  out.t = P.t[j]!;
  out.x = P.x[j]!; out.y = P.y[j]!; out.z = P.z[j]!;
  out.nx = P.nx[j]!; out.ny = P.ny[j]!; out.nz = P.nz[j]!;
  if (kind === VerdictKind.HIT) {
    out.bone = P.bone[j]!;
    out.hitbox = P.hitbox[j]!;
  }
}

/** Top-level fields for a pellet that ended at wall i (a miss, or OCCLUDED with player j behind). */
function decideAtWall(out: Verdict, c: PelletContext, i: number, j: number): void {
  const rank = j >= 0 ? RANK_REFUSED : RANK_MISS;
  if (rank <= c.rank) return;
  c.rank = rank;
  out.kind = j >= 0 ? VerdictKind.REJECTED : VerdictKind.MISS;
  out.reason = j >= 0 ? VerdictReason.OCCLUDED : VerdictReason.OK_MISS;
  if (i >= 0) {
    out.t = W.t[i]!;
    out.x = W.x[i]!; out.y = W.y[i]!; out.z = W.z[i]!;
    out.nx = W.nx[i]!; out.ny = W.ny[i]!; out.nz = W.nz[i]!;
  }
  if (j >= 0) {
    out.target = P.player[j]!;
    out.zone = P.zone[j]!;
    out.targetRewindStatus = P.status[j]!;
  }
}

/** Where a pellet's walk stands (module scratch: one walk at a time). */
interface Walk {
  /** Penetration power at the muzzle and left now. */
  power0: number;
  power: number;
  walls: number;
  hits: number;
  /** Next world hit (W) and next player (P). */
  i: number;
  j: number;
  stopT: number;
  first: number;
  reason: number;
  len: number;
  len2: number;
}
const walk: Walk = { power0: 0.5, power: 0.5, walls: 0, hits: 0, i: 0, j: 0, stopT: 0.5, first: -1, reason: 0, len: 0.5, len2: 0.5 };

/**
 * Judges pellet k along its segment (c.seg) into out.pellets, out.hits and out.impacts, and the
 * verdict's top-level fields when this pellet ranks above what they hold (c.rank). Pellet 0 also
 * sets the world fields (worldHit, worldT, surface: the first world hit along it, the bullet hole
 * of a single segment).
 */
export function judgePellet(out: Verdict, c: PelletContext, k: number): void {
  replay(c);
  const g = c.seg;
  const sx = g[0]!, sy = g[1]!, sz = g[2]!, dx = g[3]! - sx, dy = g[4]! - sy, dz = g[5]! - sz;
  if (k === 0 && W.count > 0) {
    out.worldHit = true;
    out.worldT = W.t[0]!;
    out.surface = W.surface[0]!;
  }
  const w = walk;
  w.len2 = dx * dx + dy * dy + dz * dz;
  w.len = Math.sqrt(w.len2);
  w.power0 = c.weapon.penetration ?? 0;
  w.power = w.power0;
  w.walls = 0; w.hits = 0; w.i = 0; w.j = 0; w.stopT = 1; w.first = -1;
  w.reason = VerdictReason.OK_MISS;
  for (;;) {
    const tw = w.i < W.count ? W.t[w.i]! : Infinity;
    const tp = w.j < P.count ? P.t[w.j]! : Infinity;
    if (tw === Infinity && tp === Infinity) {
      if (w.hits === 0) decideAtWall(out, c, -1, -1);
      break;
    }
    if (!(tp < tw ? atPlayer(out, c, k, w) : atWall(out, c, k, w))) break;
  }
  const p = out.pellets;
  p.ex[k] = g[3]!; p.ey[k] = g[4]!; p.ez[k] = g[5]!;
  p.reason[k] = w.reason;
  p.stopT[k] = w.stopT;
  p.px[k] = sx + w.stopT * dx;
  p.py[k] = sy + w.stopT * dy;
  p.pz[k] = sz + w.stopT * dz;
  p.target[k] = w.first;
  p.walls[k] = w.walls;
}

/** Player w.j, met before the next wall: refused unseen, a teammate, or hit. Returns whether the pellet flies on. */
function atPlayer(out: Verdict, c: PelletContext, k: number, w: Walk): boolean {
  const j = w.j, tp = P.t[j]!, eye = c.eye;
  if (w.first < 0) w.first = P.player[j]!;
  w.stopT = tp;
  if (w.walls === 0 && !visibleFromEye(c.scene.world, P.x[j]!, P.y[j]!, P.z[j]!, eye.cx, eye.cy, eye.cz, eye.ax, eye.ay, eye.az, eye.bx, eye.by, eye.bz)) {
    if (w.hits === 0) w.reason = VerdictReason.NOT_VISIBLE;
    decideAtPlayer(out, c, RANK_REFUSED, j, VerdictKind.REJECTED, VerdictReason.NOT_VISIBLE);
    return false;
  }
  if (c.config.friendlyFire === 'noDamage' && teammates(c.targets, c.shooter, P.player[j]!)) {
    pushHit(out, k, j, VerdictReason.OK_FRIENDLY, w.walls);
    if (w.hits === 0) w.reason = VerdictReason.OK_FRIENDLY;
    decideAtPlayer(out, c, RANK_FRIENDLY, j, VerdictKind.HIT, VerdictReason.OK_FRIENDLY);
    return false;
  }
  const n = pushHit(out, k, j, VerdictReason.OK_HIT, w.walls);
  out.hits.damage[n] = hitDamage(c.weapon, c.config, P.zone[j]!, tp, w.len2) * (w.power0 > 0 ? w.power / w.power0 : 1);
  w.hits++;
  w.reason = VerdictReason.OK_HIT;
  decideAtPlayer(out, c, RANK_HIT, j, VerdictKind.HIT, VerdictReason.OK_HIT);
  w.power -= c.config.playerPenetrationCost ?? DEFAULT_PLAYER_COST;
  if (!(w.power0 > 0) || !(w.power > 0) || w.hits >= MAX_HITS_PER_PELLET) return false;
  w.j = j + 1;
  w.stopT = 1;
  return true;
}

/**
 * World hit w.i, met before the next player: a wall whose thickness runs from this face to the
 * first exit face behind it (a sheet's without one). Paid for and passed (an entry and an exit
 * impact), or the pellet stops there. Returns whether it flies on.
 */
function atWall(out: Verdict, c: PelletContext, k: number, w: Walk): boolean {
  const i = w.i, tw = W.t[i]!, eye = c.eye;
  let exit = -1;
  if (W.front[i] === 1) {
    for (let m = i + 1; m < W.count; m++) {
      if (W.front[m] === 0) {
        exit = m;
        break;
      }
    }
  }
  const thickness = exit >= 0 ? (W.t[exit]! - tw) * w.len : SHEET_THICKNESS_M;
  const cost = thickness * surfaceResistance(c.scene, c.config, W.surface[i]!);
  pushImpact(out, k, i, 0);
  w.stopT = tw;
  // Hits past the stored ones are unknown: the pellet stops at the last wall it can account for.
  const unknownBeyond = exit < 0 && W.total > W.count && i === W.count - 1;
  // Where the first wall is entered must be in the eye's sight, as a hit before any wall must:
  // a start pushed around a corner does not reach through walls the eye cannot see either.
  const unseen = w.power0 > 0 && w.walls === 0 && cost < w.power &&
    !visibleFromEye(c.scene.world, W.x[i]!, W.y[i]!, W.z[i]!, eye.cx, eye.cy, eye.cz, eye.ax, eye.ay, eye.az, eye.bx, eye.by, eye.bz);
  const behind = w.j < P.count ? w.j : -1;
  if (unseen && w.hits === 0 && behind >= 0) {
    if (w.first < 0) w.first = P.player[behind]!;
    w.reason = VerdictReason.NOT_VISIBLE;
    decideAtPlayer(out, c, RANK_REFUSED, behind, VerdictKind.REJECTED, VerdictReason.NOT_VISIBLE);
    return false;
  }
  if (!(w.power0 > 0) || cost >= w.power || w.walls >= MAX_WALLS_PER_PELLET || unknownBeyond || unseen) {
    if (w.hits === 0 && behind >= 0) {
      w.reason = VerdictReason.OCCLUDED;
      if (w.first < 0) w.first = P.player[behind]!;
    }
    if (w.hits === 0) decideAtWall(out, c, i, behind);
    return false;
  }
  w.power -= cost;
  w.walls++;
  const tEnd = exit >= 0 ? W.t[exit]! : tw;
  if (exit >= 0) pushImpact(out, k, exit, 1);
  let next = (exit >= 0 ? exit : i) + 1;
  while (next < W.count && W.t[next]! <= tEnd) next++;
  w.i = next;
  w.stopT = 1;
  return true;
}
