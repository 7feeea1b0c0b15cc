/**
 * Volume queries on rewound players: a sphere swept from A to B (also the capsule cast), and the
 * overlap of a sphere, a capsule or an oriented box, against every candidate player posed at a past
 * server time exactly as Rewinder.firstHit poses them (same history sampling, policy, skipping rules
 * and bone posing: the VolumeRewinder is composed from a Rewinder and calls its poseBones).
 *
 * Broadphase, per player, as firstHit's three bounds (history swept bound grown by the rig's reach,
 * rewound root sphere, rig bound sphere carried by the root), each grown by the volume: the radius
 * for spheres and capsules (segment-sphere entry for the sweep, point or segment distance for the
 * overlaps), the point-to-box distance for the box. Then per hitbox its bone-local sphere, tested
 * in world space the same way. Narrow phase in the bone frame (./hulls): the query is moved there
 * with the inverse rigid transform (t and distances are unchanged) and answered exactly.
 *
 * Definitions:
 * - Sweep: first contact t in [0, tMax]; a sphere that already overlaps a hitbox at A is a contact
 *   at t = 0 (embedded). With radius 0 it is the segment test of firstHit (same t, hitbox and normal
 *   up to rounding) for a segment starting outside every hitbox; a start inside one is t = 0 here,
 *   where firstHit reports the exit face. A = B is the static sphere: t = 0 when it overlaps.
 * - Overlaps report per player the hitbox nearest the volume's core and that signed distance:
 *   sphere and box: the centre; capsule: its segment (the least distance of any of its points).
 *   Distance > 0: the core is outside the hitbox by that much; <= 0: the core reaches inside, and
 *   minus the value is the depth below the hitbox's nearest face (of the centre; for the capsule of
 *   its deepest point). A sphere or capsule overlaps a hitbox when that distance is <= radius; a box
 *   when the separating-axis test (./hullBox) finds no separating axis, touching included;
 *   its nearest zone is then the overlapping hitbox whose distance to the box's centre is least.
 *   Ties keep the lower hitbox index.
 *
 * Allocation-free per query (scratch allocated at construction; the answers go into the caller's
 * records). Deterministic: + - * /, Math.sqrt, Math.abs, comparisons.
 */
import { HitZone, type Rig } from '../rig/rig';
import { type PlayerHistory, RewindStatus } from './history';
import { boxOverlapsHull } from './hullBox';
import { RigHulls, Q_A, Q_AXES, Q_B, Q_EXTENTS, Q_LIMIT, Q_R, R_EMBEDDED, R_FEATURE, R_FEATURE_INDEX, R_HULL, R_NORMAL, R_S, R_TRIANGLE, R_VALUE } from './hulls';
import type { Rewinder } from './rewind';
import {
  createSphereCastHit, insertSphereCastHit, insertVolumeOverlap, OV_CORE, OV_DISTANCE, OV_NORMAL, OV_SURFACE,
  type SphereCastHit, type SphereCastHits, type VolumeOverlaps,
} from './volumeHits';
import type { SweepFeature } from '../kernels/sweptSphere';
import { BOX, CAPSULE, SPHERE, SWEEP, VolumeQuery, W_A, W_AXES, W_B, W_C, W_CR, W_DD, W_E, W_LIM, W_R } from './volumeQuery';

export * from './volumeHits';

/** Axes within this of orthonormal are accepted. */
const AXIS_TOLERANCE = 1e-6;

export class VolumeRewinder {
  readonly rewinder: Rewinder;
  readonly rig: Rig;
  /** The rig's hulls with their precomputed frames, vertices and edges. */
  readonly hulls: RigHulls;
  /** The query's volume, bounds and posed player. */
  private readonly vq: VolumeQuery;
  /** The player's nearest hitbox so far (OV_* layout, world space). */
  private readonly ov = new Float64Array(10);
  private readonly playerHit: SphereCastHit = createSphereCastHit();
  private bestHitbox = -1;
  private bestTriangle = -1;

  constructor(rewinder: Rewinder) {
    this.rewinder = rewinder;
    const rig = (this.rig = rewinder.rig);
    this.hulls = new RigHulls(rig);
    this.vq = new VolumeQuery(rewinder, this.hulls.q, this.hulls.res);
  }

  /** Players whose bound the last query's volume touched (broadphase survivors, posed), for benchmarks and tests. */
  get lastCandidates(): number {
    return this.vq.candidates;
  }

  /**
   * First contact of a sphere of `radius` moving A -> B (t in [0, tMax]) with any rewound hitbox at
   * timeMs, skipping excludePlayer, players without history, dead players and refused samples (as
   * firstHit). On an exact tie between players the higher slot is kept (as firstHit). Writes out and
   * returns out.hit. Non-finite input, a negative radius or tMax <= 0: a miss.
   */
  sphereCast(
    out: SphereCastHit, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
    ax: number, ay: number, az: number, bx: number, by: number, bz: number, radius: number,
    excludePlayer: number, tMax = 1,
  ): boolean {
    clearSphereCastHit(out);
    this.vq.candidates = 0;
    if (!this.setSweep(ax, ay, az, bx, by, bz, radius, tMax)) return false;
    const w = this.vq.w;
    for (let p = 0, n = histories.length; p < n; p++) {
      const h = histories[p];
      if (p === excludePlayer || h === undefined || h === null) continue;
      const status = this.vq.admit(h, timeMs);
      if (status < 0) continue;
      if (this.sweepPlayer(out)) {
        w[W_LIM] = out.t;
        out.player = p;
        out.status = status as RewindStatus;
      }
    }
    return out.hit;
  }

  /**
   * Every player the swept sphere touches (t in [0, tMax]): one entry per player, its first contact
   * (what sphereCast gives for that player alone), sorted by t, equal t by slot, highest first, so
   * entry 0 is sphereCast's answer. Fills out (the nearest out.capacity kept, out.total counts all)
   * and returns out.count. Skips and bad input as sphereCast.
   */
  sphereCastAll(
    out: SphereCastHits, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
    ax: number, ay: number, az: number, bx: number, by: number, bz: number, radius: number,
    excludePlayer: number, tMax = 1,
  ): number {
    out.count = 0;
    out.total = 0;
    this.vq.candidates = 0;
    if (!this.setSweep(ax, ay, az, bx, by, bz, radius, tMax)) return 0;
    const w = this.vq.w, hit = this.playerHit, lim = w[W_LIM];
    for (let p = 0, n = histories.length; p < n; p++) {
      const h = histories[p];
      if (p === excludePlayer || h === undefined || h === null) continue;
      w[W_LIM] = lim;
      const status = this.vq.admit(h, timeMs);
      if (status < 0) continue;
      clearSphereCastHit(hit);
      if (!this.sweepPlayer(hit)) continue;
      hit.player = p;
      hit.status = status as RewindStatus;
      insertSphereCastHit(out, hit);
    }
    return out.count;
  }

  /**
   * Every player a sphere (centre C, radius >= 0) overlaps at timeMs, with its hitbox nearest C and
   * C's signed distance to it (<= radius). Fills out (sorted by distance, the nearest out.capacity
   * kept) and returns out.count. Skips as sphereCast; non-finite input or a negative radius: 0.
   */
  overlapSphere(
    out: VolumeOverlaps, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
    cx: number, cy: number, cz: number, radius: number, excludePlayer: number,
  ): number {
    return this.overlapCapsule(out, histories, timeMs, cx, cy, cz, cx, cy, cz, radius, excludePlayer);
  }

  /**
   * Every player a capsule (segment A -> B grown by radius >= 0) overlaps at timeMs, with its hitbox
   * nearest the segment and the segment's signed distance to it (<= radius). A = B is overlapSphere.
   * Fills out as overlapSphere and returns out.count; non-finite input or a negative radius: 0.
   */
  overlapCapsule(
    out: VolumeOverlaps, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
    ax: number, ay: number, az: number, bx: number, by: number, bz: number, radius: number, excludePlayer: number,
  ): number {
    out.count = 0;
    out.total = 0;
    this.vq.candidates = 0;
    const check = ax + ay + az + bx + by + bz + radius;
    if (!(check - check === 0) || !(radius >= 0)) return 0;
    const w = this.vq.w;
    w[W_A] = ax; w[W_A + 1] = ay; w[W_A + 2] = az;
    w[W_B] = bx; w[W_B + 1] = by; w[W_B + 2] = bz;
    w[W_R] = radius;
    const dx = bx - ax, dy = by - ay, dz = bz - az;
    w[W_DD] = dx * dx + dy * dy + dz * dz;
    this.vq.kind = w[W_DD] > 0 ? CAPSULE : SPHERE;
    return this.overlapAll(out, histories, timeMs, excludePlayer);
  }

  /**
   * Every player an oriented box overlaps at timeMs (centre C, half extents >= 0, `axes`: 9 numbers,
   * the box's unit x, y and z axes in world space, orthonormal within 1e-6), with its overlapping
   * hitbox nearest C and C's signed distance to it. Fills out as overlapSphere and returns
   * out.count; non-finite input, negative extents or axes that are not orthonormal: 0.
   */
  overlapBox(
    out: VolumeOverlaps, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number,
    cx: number, cy: number, cz: number, hx: number, hy: number, hz: number, axes: ArrayLike<number>, excludePlayer: number,
  ): number {
    out.count = 0;
    out.total = 0;
    this.vq.candidates = 0;
    const check = cx + cy + cz + hx + hy + hz;
    if (!(check - check === 0) || !(hx >= 0 && hy >= 0 && hz >= 0) || axes.length < 9) return 0;
    const w = this.vq.w;
    // One loop per kind of array, so each reads its elements unboxed (a load site that has seen both
    // would box every double it reads from a Float64Array).
    if (axes instanceof Float64Array) for (let k = 0; k < 9; k++) w[W_AXES + k] = axes[k];
    else for (let k = 0; k < 9; k++) w[W_AXES + k] = axes[k];
    for (let i = 0; i < 3; i++) {
      for (let j = i; j < 3; j++) {
        const d = w[W_AXES + 3 * i] * w[W_AXES + 3 * j] + w[W_AXES + 3 * i + 1] * w[W_AXES + 3 * j + 1] + w[W_AXES + 3 * i + 2] * w[W_AXES + 3 * j + 2];
        if (!(Math.abs(d - (i === j ? 1 : 0)) <= AXIS_TOLERANCE)) return 0; // also NaN
      }
    }
    w[W_A] = cx; w[W_A + 1] = cy; w[W_A + 2] = cz;
    w[W_E] = hx; w[W_E + 1] = hy; w[W_E + 2] = hz;
    this.vq.kind = BOX;
    return this.overlapAll(out, histories, timeMs, excludePlayer);
  }

  /** Stores a sweep query in w; false for bad input. */
  private setSweep(ax: number, ay: number, az: number, bx: number, by: number, bz: number, radius: number, tMax: number): boolean {
    const check = ax + ay + az + bx + by + bz + radius;
    if (!(check - check === 0) || !(radius >= 0) || !(tMax > 0)) return false;
    const w = this.vq.w;
    w[W_A] = ax; w[W_A + 1] = ay; w[W_A + 2] = az;
    w[W_B] = bx; w[W_B + 1] = by; w[W_B + 2] = bz;
    w[W_R] = radius;
    const dx = bx - ax, dy = by - ay, dz = bz - az;
    w[W_DD] = dx * dx + dy * dy + dz * dz;
    w[W_LIM] = tMax < 1 ? tMax : 1;
    this.vq.kind = SWEEP;
    return true;
  }

  /** The overlap query stored in w against every player. */
  private overlapAll(out: VolumeOverlaps, histories: ArrayLike<PlayerHistory | undefined>, timeMs: number, excludePlayer: number): number {
    const rig = this.rig;
    for (let p = 0, n = histories.length; p < n; p++) {
      const h = histories[p];
      if (p === excludePlayer || h === undefined || h === null) continue;
      const status = this.vq.admit(h, timeMs);
      if (status < 0) continue;
      if (!this.overlapPlayer()) continue;
      const b = this.bestHitbox;
      insertVolumeOverlap(out, this.ov, p, status, b, rig.hitboxZone[b], rig.hitboxJoint[b], this.bestTriangle);
    }
    return out.count;
  }

  /**
   * The posed player's first contact with the sweep in w at t <= w[W_LIM] (first hitbox inclusive,
   * then strictly nearer): writes out (world space) and returns whether there was one.
   */
  private sweepPlayer(out: SphereCastHit): boolean {
    const rig = this.rig, vq = this.vq, w = vq.w, hulls = this.hulls, q = hulls.q, res = hulls.res;
    let found = false;
    for (let h = 0; h < rig.hitboxCount; h++) {
      vq.hitboxSphere(h);
      if (!vq.reaches()) continue;
      vq.toLocal(h, W_A, Q_A, true);
      vq.toLocal(h, W_B, Q_B, true);
      q[Q_R] = w[W_R];
      q[Q_LIMIT] = w[W_LIM];
      if (!hulls.sweepSphere(h, !found)) continue;
      found = true;
      const t = res[R_VALUE];
      w[W_LIM] = t;
      out.hit = true;
      out.t = t;
      out.embedded = res[R_EMBEDDED] === 1;
      out.feature = (res[R_FEATURE] | 0) as SweepFeature; // integers as such: a field stays a small integer
      out.featureIndex = res[R_FEATURE_INDEX] | 0;
      const v = vq.tmp;
      vq.toWorld(h, R_HULL, true);
      out.x = v[0]; out.y = v[1]; out.z = v[2];
      vq.toWorld(h, R_NORMAL, false);
      out.nx = v[0]; out.ny = v[1]; out.nz = v[2];
      out.cx = w[W_A] + t * (w[W_B] - w[W_A]);
      out.cy = w[W_A + 1] + t * (w[W_B + 1] - w[W_A + 1]);
      out.cz = w[W_A + 2] + t * (w[W_B + 2] - w[W_A + 2]);
      out.hitbox = h;
      out.bone = rig.hitboxJoint[h];
      out.zone = rig.hitboxZone[h] as HitZone;
      out.triangle = res[R_TRIANGLE] | 0;
    }
    return found;
  }

  /**
   * The posed player's hitbox nearest the core of the overlap volume in w among those it overlaps:
   * writes this.ov (OV_* layout, world space), bestHitbox and bestTriangle; false when none overlaps.
   */
  private overlapPlayer(): boolean {
    const rig = this.rig, vq = this.vq, w = vq.w, hulls = this.hulls, q = hulls.q, res = hulls.res, ov = this.ov;
    const kind = vq.kind;
    // The first bound: a sphere or capsule overlaps within its radius; a box overlapping a hull
    // holds a point of it, so its centre is within the half diagonal.
    const first = kind === BOX ? Math.sqrt(w[W_E] * w[W_E] + w[W_E + 1] * w[W_E + 1] + w[W_E + 2] * w[W_E + 2]) : w[W_R];
    let best = first;
    this.bestHitbox = -1;
    for (let h = 0; h < rig.hitboxCount; h++) {
      vq.hitboxSphere(h);
      if (kind === BOX) {
        if (!vq.reaches()) continue; // the box misses the hitbox's sphere
        const r = w[W_CR];
        const dx = w[W_C] - w[W_A], dy = w[W_C + 1] - w[W_A + 1], dz = w[W_C + 2] - w[W_A + 2];
        if (r + best < 0 || dx * dx + dy * dy + dz * dz > (r + best) * (r + best)) continue; // centre too far to beat best
      } else {
        // The core within the hitbox's sphere grown by best (reaches() adds the radius, best <= radius).
        const reach = w[W_CR] + best;
        if (reach < 0) continue;
        w[W_CR] = reach - w[W_R];
        if (!vq.reaches()) continue;
      }
      vq.toLocal(h, W_A, Q_A, true);
      q[Q_LIMIT] = best;
      let hit: boolean;
      if (kind === CAPSULE) {
        vq.toLocal(h, W_B, Q_B, true);
        hit = hulls.segmentDistance(h);
      } else {
        hit = hulls.pointDistance(h);
        if (hit && kind === BOX && res[R_VALUE] > 0) {
          q[Q_EXTENTS] = w[W_E]; q[Q_EXTENTS + 1] = w[W_E + 1]; q[Q_EXTENTS + 2] = w[W_E + 2];
          vq.toLocal(h, W_AXES, Q_AXES, false);
          vq.toLocal(h, W_AXES + 3, Q_AXES + 3, false);
          vq.toLocal(h, W_AXES + 6, Q_AXES + 6, false);
          hit = boxOverlapsHull(hulls, h);
        }
      }
      if (!hit) continue;
      const d = res[R_VALUE];
      if (!(d < best || (this.bestHitbox < 0 && d <= best))) continue;
      best = d;
      this.bestHitbox = h;
      this.bestTriangle = res[R_TRIANGLE] | 0;
      const v = vq.tmp;
      ov[OV_DISTANCE] = d;
      vq.toWorld(h, R_HULL, true);
      ov[OV_SURFACE] = v[0]; ov[OV_SURFACE + 1] = v[1]; ov[OV_SURFACE + 2] = v[2];
      // The core point from the world query itself: the centre, or the segment's point at s.
      const s = kind === CAPSULE ? res[R_S] : 0;
      ov[OV_CORE] = w[W_A] + s * (w[W_B] - w[W_A]);
      ov[OV_CORE + 1] = w[W_A + 1] + s * (w[W_B + 1] - w[W_A + 1]);
      ov[OV_CORE + 2] = w[W_A + 2] + s * (w[W_B + 2] - w[W_A + 2]);
      vq.toWorld(h, R_NORMAL, false);
      ov[OV_NORMAL] = v[0]; ov[OV_NORMAL + 1] = v[1]; ov[OV_NORMAL + 2] = v[2];
    }
    return this.bestHitbox >= 0;
  }

}

/** Marks a SphereCastHit as a miss (player, hitbox, bone, triangle -1, status EMPTY). */
export function clearSphereCastHit(out: SphereCastHit): void {
  out.hit = false;
  out.player = -1;
  out.hitbox = -1;
  out.bone = -1;
  out.triangle = -1;
  out.status = RewindStatus.EMPTY;
}
