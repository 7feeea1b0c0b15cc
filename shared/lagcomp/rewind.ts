/**
 * Rewind and test: poses every candidate player at a past server time from its history and returns
 * the first hitbox the segment meets (firstHit), or each player's first hitbox along it (allHits).
 *
 * Broadphase, per player, cheapest first: (1) the history's swept bound (a sphere around the newest
 * root holding every stored root) grown by the rig's reach, without touching the ring; (2) the
 * rewound root position in a rotation-free sphere of radius bound radius + |bound center|; (3) the
 * full rewound pose and the rig's bound sphere carried by the root transform. Only then are the
 * bones posed (clip frames lerped/nlerped, composed with the root).
 *
 * Narrow phase, per hitbox: its bone-local sphere tested in world space; then the segment's two
 * ends moved into the bone's local frame with the inverse of the bone's rigid world transform (the
 * triangles never move, and t is unchanged by a rigid transform); then a plane clip of the segment
 * against the convex hull (prunes misses and picks the entry face); then the watertight kernel on
 * the candidate triangles, which alone decides every hit. Any doubt falls back to all triangles.
 *
 * Allocation-free after construction: module-level and per-instance scratch only; results go into
 * the caller's HitboxHit. Deterministic: + - * /, Math.sqrt, comparisons, Math.floor.
 */
import { clearSegmentHit, createSegmentHit, type SegmentHit } from '../kernels/hit';
import { createPreparedSegment, intersectPreparedAt, prepareSegment } from '../kernels/watertight';
import { BONE_STRIDE, HitZone, type Rig } from '../rig/rig';
import { composeRootOf, sampleClipBonesOf } from '../rig/posing';
import { createRewindPolicy, PlayerHistory, RewindStatus, rewindStatusUsable, type RewindPolicy } from './history';
import { createPlayerPose, type PlayerPose } from './pose';
import { insertHitboxHit, type HitboxHits } from './rewindAll';

export { createHitboxHits, type HitboxHits } from './rewindAll';

export interface HitboxHit extends SegmentHit {
  /** Player slot that was hit (index into the histories array), -1 on a miss. */
  player: number;
  zone: HitZone;
  /** Joint index in the source skeleton of the hitbox's bone. */
  bone: number;
  /** Hitbox index in the rig. */
  hitbox: number;
  /** Status of the hit player's history sample (e.g. CLAMPED_OLD), so the audit can record it; EMPTY on a miss. */
  status: RewindStatus;
}

export function createHitboxHit(): HitboxHit {
  return { ...createSegmentHit(), player: -1, zone: HitZone.HEAD, bone: -1, hitbox: -1, status: RewindStatus.EMPTY };
}

export interface RewinderOptions {
  /** Rewind window and out-of-window policy; default 250 ms, clamp. */
  policy?: RewindPolicy;
  /**
   * Cull back faces of hitbox triangles (default false). Hulls are closed and convex, so a segment
   * from outside meets a front face first either way; keeping back faces means a shot whose start
   * lies inside a hitbox (point-blank, overlapping players) still hits it, at its exit face.
   */
  cullBack?: boolean;
}

/** Clip margin in t: far above the rounding of t = -dist / denom, far below any real gap. */
const CLIP_EPS = 1e-7;
/** A plane whose normal . direction is below this fraction of |direction| is treated as parallel. */
const PARALLEL_EPS = 1e-9;

// Module scratch (shared by every Rewinder; no call here re-enters another).
const scratchPose: PlayerPose = createPlayerPose();
/** Root position and alive flag from PlayerHistory.sampleRootAt. */
const scratchRoot = new Float64Array(4);
const scratchHit: SegmentHit = createSegmentHit();
const scratchSeg = createPreparedSegment();
/** One player's first hit, for allHits. */
const scratchPlayerHit: HitboxHit = createHitboxHit();

export class Rewinder {
  readonly rig: Rig;
  readonly policy: RewindPolicy;
  readonly cullBack: boolean;
  /** Scratch: world bone transforms of the player being tested (per instance: sized by the rig). */
  private readonly bones: Float64Array;
  /** Scratch: entry t of each triangle plane of the hitbox being clipped (-Infinity when not entering). */
  private readonly entryT: Float64Array;
  /** The bone array the narrow phase is reading (set per call, read by takeHit). */
  private curBones: Float64Array;
  /** Radius of the rotation-free coarse sphere around the root: bound radius + |bound center|. */
  private readonly coarseRadius: number;
  /** Players whose bound the last firstHit segment touched (broadphase survivors), for benchmarks and tests. */
  lastCandidates = 0;

  constructor(rig: Rig, options: RewinderOptions = {}) {
    this.rig = rig;
    const p = options.policy;
    this.policy = p ? createRewindPolicy(p.windowMs, p.outside) : createRewindPolicy();
    this.cullBack = options.cullBack === true;
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    this.curBones = this.bones;
    const c2 = rig.boundCenterX * rig.boundCenterX + rig.boundCenterY * rig.boundCenterY + rig.boundCenterZ * rig.boundCenterZ;
    // Tiny relative pad so rounding in the rotated center can never put the fine sphere outside.
    this.coarseRadius = (rig.boundRadius + Math.sqrt(c2)) * (1 + 1e-9);
    let most = 0;
    for (let h = 0; h < rig.hitboxCount; h++) most = Math.max(most, rig.triStart[h + 1] - rig.triStart[h]);
    this.entryT = new Float64Array(most);
  }

  /**
   * World bone transforms (BONE_STRIDE per hitbox) of a player at `pose`: the clip sampled at the
   * pose's time, composed with the root. Returns out. An unknown clip or non-finite time poses the
   * bind pose (the history refuses such snapshots, so only direct callers can hit this).
   */
  poseBones(out: Float64Array, pose: PlayerPose): Float64Array {
    sampleClipBonesOf(out, this.rig, pose);
    return composeRootOf(out, out, this.rig.hitboxCount, pose);
  }

  /**
   * Poses every candidate player (broadphase first) at timeMs and returns the first hitbox hit along
   * the segment S -> E (0 <= t <= tMax), skipping excludePlayer, players without history, dead
   * players and histories whose sample the policy refuses. Non-finite input is a miss.
   */
  firstHit(
    out: HitboxHit,
    histories: ArrayLike<PlayerHistory | undefined>,
    timeMs: number,
    sx: number, sy: number, sz: number,
    ex: number, ey: number, ez: number,
    excludePlayer: number,
    tMax = 1,
  ): boolean {
    clearSegmentHit(out);
    out.player = -1;
    out.hitbox = -1;
    out.bone = -1;
    out.status = RewindStatus.EMPTY;
    this.lastCandidates = 0;
    if (!(tMax > 0)) return false; // also NaN
    let best = tMax < 1 ? tMax : 1;
    if (!(Number.isFinite(sx) && Number.isFinite(sy) && Number.isFinite(sz) && Number.isFinite(ex) && Number.isFinite(ey) && Number.isFinite(ez))) {
      return false;
    }
    const rig = this.rig;
    const dx = ex - sx, dy = ey - sy, dz = ez - sz;
    const dd = dx * dx + dy * dy + dz * dz;
    if (!(dd > 0)) return false;
    const r = rig.boundRadius;
    const n = histories.length;
    for (let p = 0; p < n; p++) {
      if (p === excludePlayer) continue;
      const h = histories[p];
      if (h === undefined || h === null) continue;
      // Coarsest: the history's swept bound (every stored root) grown by the rig's reach, tested
      // without touching the ring.
      if (!(h.sweepR >= 0)) continue; // empty
      if (!segmentEntersSphere(sx, sy, sz, dx, dy, dz, dd, h.sweepX, h.sweepY, h.sweepZ, h.sweepR + this.coarseRadius, best)) continue;
      // Coarse: the rewound root position alone (no rotation, no full sample), in a sphere that holds
      // the rig's bound under any orientation.
      const rs = h.sampleRootAt(scratchRoot, timeMs, this.policy);
      if (!rewindStatusUsable(rs) || scratchRoot[3] !== 1) continue;
      if (!segmentEntersSphere(sx, sy, sz, dx, dy, dz, dd, scratchRoot[0], scratchRoot[1], scratchRoot[2], this.coarseRadius, best)) continue;
      const status = h.sampleAt(scratchPose, timeMs, this.policy);
      if (!rewindStatusUsable(status) || !scratchPose.alive) continue;
      // Broadphase: the bound's center is a model-space point, carried by the root transform.
      const pose = scratchPose;
      const qx = pose.qx, qy = pose.qy, qz = pose.qz, qw = pose.qw;
      const bx = rig.boundCenterX, by = rig.boundCenterY, bz = rig.boundCenterZ;
      const cx0 = qy * bz - qz * by, cy0 = qz * bx - qx * bz, cz0 = qx * by - qy * bx;
      const cx = pose.x + bx + 2 * (qw * cx0 + qy * cz0 - qz * cy0);
      const cy = pose.y + by + 2 * (qw * cy0 + qz * cx0 - qx * cz0);
      const cz = pose.z + bz + 2 * (qw * cz0 + qx * cy0 - qy * cx0);
      if (!segmentEntersSphere(sx, sy, sz, dx, dy, dz, dd, cx, cy, cz, r, best)) continue;
      this.lastCandidates++;
      this.poseBones(this.bones, pose);
      if (this.intersectBonesInto(out, this.bones, sx, sy, sz, ex, ey, ez, best)) {
        best = out.t;
        out.player = p;
        out.status = status;
      }
    }
    return out.hit;
  }

  /**
   * Every player the segment S -> E meets (0 <= t <= tMax), for shots that pass through players:
   * one entry per player, that player's first hitbox hit (what intersectBones gives for that player
   * alone with the same tMax), sorted by t ascending, equal t by slot, highest first (the player
   * firstHit keeps on a tie), so entry 0 is firstHit's answer. Skips, broadphase and lastCandidates as
   * firstHit, with the bound held at tMax (a nearer player hides no one). Fills out (see HitboxHits:
   * the nearest out.capacity kept, out.total counts all) and returns out.count. Non-finite input: 0.
   */
  allHits(
    out: HitboxHits,
    histories: ArrayLike<PlayerHistory | undefined>,
    timeMs: number,
    sx: number, sy: number, sz: number,
    ex: number, ey: number, ez: number,
    excludePlayer: number,
    tMax = 1,
  ): number {
    out.count = 0;
    out.total = 0;
    this.lastCandidates = 0;
    if (!(tMax > 0)) return 0; // also NaN
    const lim = tMax < 1 ? tMax : 1;
    if (!(Number.isFinite(sx) && Number.isFinite(sy) && Number.isFinite(sz) && Number.isFinite(ex) && Number.isFinite(ey) && Number.isFinite(ez))) {
      return 0;
    }
    const rig = this.rig;
    const dx = ex - sx, dy = ey - sy, dz = ez - sz;
    const dd = dx * dx + dy * dy + dz * dz;
    if (!(dd > 0)) return 0;
    const r = rig.boundRadius;
    const hit = scratchPlayerHit;
    for (let p = 0, n = histories.length; p < n; p++) {
      if (p === excludePlayer) continue;
      const h = histories[p];
      if (h === undefined || h === null) continue;
      // The same three bounds as firstHit, in the same order.
      if (!(h.sweepR >= 0)) continue;
      if (!segmentEntersSphere(sx, sy, sz, dx, dy, dz, dd, h.sweepX, h.sweepY, h.sweepZ, h.sweepR + this.coarseRadius, lim)) continue;
      const rs = h.sampleRootAt(scratchRoot, timeMs, this.policy);
      if (!rewindStatusUsable(rs) || scratchRoot[3] !== 1) continue;
      if (!segmentEntersSphere(sx, sy, sz, dx, dy, dz, dd, scratchRoot[0], scratchRoot[1], scratchRoot[2], this.coarseRadius, lim)) continue;
      const status = h.sampleAt(scratchPose, timeMs, this.policy);
      if (!rewindStatusUsable(status) || !scratchPose.alive) continue;
      const pose = scratchPose;
      const qx = pose.qx, qy = pose.qy, qz = pose.qz, qw = pose.qw;
      const bx = rig.boundCenterX, by = rig.boundCenterY, bz = rig.boundCenterZ;
      const cx0 = qy * bz - qz * by, cy0 = qz * bx - qx * bz, cz0 = qx * by - qy * bx;
      const cx = pose.x + bx + 2 * (qw * cx0 + qy * cz0 - qz * cy0);
      const cy = pose.y + by + 2 * (qw * cy0 + qz * cx0 - qx * cz0);
      const cz = pose.z + bz + 2 * (qw * cz0 + qx * cy0 - qy * cx0);
      if (!segmentEntersSphere(sx, sy, sz, dx, dy, dz, dd, cx, cy, cz, r, lim)) continue;
      this.lastCandidates++;
      this.poseBones(this.bones, pose);
      clearSegmentHit(hit);
      if (this.intersectBonesInto(hit, this.bones, sx, sy, sz, ex, ey, ez, lim)) insertHitboxHit(out, hit, p, status);
    }
    return out.count;
  }

  /**
   * Tests the segment against one player's hitboxes placed by explicit world bone transforms
   * (BONE_STRIDE per hitbox, e.g. from poseBones, or the rig's bind pose composed with a root).
   * Writes the nearest hit with t <= tMax into out (player = -1) and returns whether there was one.
   */
  intersectBones(out: HitboxHit, bones: Float64Array, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, tMax = 1): boolean {
    clearSegmentHit(out);
    out.player = -1;
    out.hitbox = -1;
    out.bone = -1;
    if (!(tMax > 0)) return false;
    if (!(Number.isFinite(sx) && Number.isFinite(sy) && Number.isFinite(sz) && Number.isFinite(ex) && Number.isFinite(ey) && Number.isFinite(ez))) {
      return false;
    }
    return this.intersectBonesInto(out, bones, sx, sy, sz, ex, ey, ez, tMax < 1 ? tMax : 1);
  }

  /** Core of the narrow phase: updates out only when a hit nearer than tMax is found. */
  private intersectBonesInto(
    out: HitboxHit, bones: Float64Array,
    sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, tMax: number,
  ): boolean {
    const rig = this.rig;
    const tris = rig.triangles;
    const spheres = rig.hitboxSpheres;
    const planes = rig.trianglePlanes;
    const entryT = this.entryT;
    const cull = this.cullBack;
    let best = tMax;
    let found = false;
    this.curBones = bones;
    const wdx = ex - sx, wdy = ey - sy, wdz = ez - sz;
    const wdd = wdx * wdx + wdy * wdy + wdz * wdz;
    for (let h = 0; h < rig.hitboxCount; h++) {
      const o = h * BONE_STRIDE;
      const tx = bones[o], ty = bones[o + 1], tz = bones[o + 2];
      // The hitbox's sphere in world space first (one point transformed instead of two).
      const s4 = h * 4;
      {
        const bqx = bones[o + 3], bqy = bones[o + 4], bqz = bones[o + 5], bqw = bones[o + 6];
        const lx = spheres[s4], ly = spheres[s4 + 1], lz = spheres[s4 + 2];
        const ux = bqy * lz - bqz * ly, uy = bqz * lx - bqx * lz, uz = bqx * ly - bqy * lx;
        const wx = tx + lx + 2 * (bqw * ux + bqy * uz - bqz * uy);
        const wy = ty + ly + 2 * (bqw * uy + bqz * ux - bqx * uz);
        const wz = tz + lz + 2 * (bqw * uz + bqx * uy - bqy * ux);
        // Pad: the rotated center carries rounding the bone-local test would not have.
        if (!segmentEntersSphere(sx, sy, sz, wdx, wdy, wdz, wdd, wx, wy, wz, spheres[s4 + 3] * (1 + 1e-9) + 1e-9, best)) continue;
      }
      // Inverse rotation: the conjugate.
      const qx = -bones[o + 3], qy = -bones[o + 4], qz = -bones[o + 5], qw = bones[o + 6];
      // Start into the bone frame: R^T (S - T).
      let px = sx - tx, py = sy - ty, pz = sz - tz;
      let cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
      const lsx = px + 2 * (qw * cx + qy * cz - qz * cy);
      const lsy = py + 2 * (qw * cy + qz * cx - qx * cz);
      const lsz = pz + 2 * (qw * cz + qx * cy - qy * cx);
      px = ex - tx; py = ey - ty; pz = ez - tz;
      cx = qy * pz - qz * py; cy = qz * px - qx * pz; cz = qx * py - qy * px;
      const lex = px + 2 * (qw * cx + qy * cz - qz * cy);
      const ley = py + 2 * (qw * cy + qz * cx - qx * cz);
      const lez = pz + 2 * (qw * cz + qx * cy - qy * cx);
      const ldx = lex - lsx, ldy = ley - lsy, ldz = lez - lsz;
      // Clip the segment against the hull's planes (Cyrus-Beck). A convex hull entered from
      // outside is first met on the plane of largest entry t, so only the triangles on that plane
      // need the kernel; a clear miss skips the hull. The clip only prunes and orders (with a
      // margin, never deciding a hit): every hit still comes from the watertight kernel, and any
      // doubt (start inside, no candidate hit) falls back to testing every triangle.
      const i0 = rig.triStart[h], i1 = rig.triStart[h + 1];
      const dLen = Math.sqrt(ldx * ldx + ldy * ldy + ldz * ldz);
      const parallel = PARALLEL_EPS * dLen;
      let tIn = -Infinity, tOut = Infinity;
      // Clipped away once the interval is empty, or starts beyond the best hit so far, or ends
      // before the start: stop reading planes then (entryT is only read when the hull survives).
      const tLimit = best + CLIP_EPS;
      let clipped = false;
      for (let i = i0; i < i1; i++) {
        const p = i * 4;
        const denom = planes[p] * ldx + planes[p + 1] * ldy + planes[p + 2] * ldz;
        const dist = planes[p] * lsx + planes[p + 1] * lsy + planes[p + 2] * lsz - planes[p + 3];
        let te = -Infinity;
        if (denom < -parallel) {
          te = -dist / denom;
          if (te > tIn) tIn = te;
        } else if (denom > parallel) {
          const tx = -dist / denom;
          if (tx < tOut) tOut = tx;
        } // nearly parallel planes constrain nothing here (conservative)
        entryT[i - i0] = te;
        if (tIn > tOut + CLIP_EPS || tIn > tLimit || tOut < -CLIP_EPS) {
          clipped = true;
          break;
        }
      }
      if (clipped) continue;
      prepareSegment(scratchSeg, lsx, lsy, lsz, lex, ley, lez);
      // Pass 0: only the triangles on the entry plane(s); pass 1 (fallback, or start inside): all.
      let hullHit = false;
      for (let pass = tIn >= 0 ? 0 : 1; pass < 2 && !hullHit; pass++) {
        for (let i = i0; i < i1; i++) {
          if (pass === 0 && entryT[i - i0] < tIn - CLIP_EPS) continue;
          const o9 = i * 9;
          // The offset form reads the vertices itself: no nine boxed double arguments per call.
          if (!intersectPreparedAt(scratchHit, scratchSeg, tris, o9, cull, best)) continue;
          if (found && !(scratchHit.t < best)) continue; // ties keep the first hit found
          found = true;
          hullHit = true;
          best = scratchHit.t;
          this.takeHit(out, h);
        }
      }
    }
    if (found) {
      // The world point from the world segment (t is the same in every rigid frame).
      out.x = sx + out.t * (ex - sx);
      out.y = sy + out.t * (ey - sy);
      out.z = sz + out.t * (ez - sz);
    }
    return found;
  }

  /**
   * Copies the kernel's hit (scratchHit, bone-local) into out for hitbox h, rotating the normal back
   * to world with the hitbox's bone rotation (this.curBones). Integer arguments only, so the call
   * boxes no doubles.
   */
  private takeHit(out: HitboxHit, h: number): void {
    out.hit = true;
    out.t = scratchHit.t;
    out.u = scratchHit.u;
    out.v = scratchHit.v;
    out.front = scratchHit.front;
    // Normal back to world: rotate by the bone's rotation.
    const b = this.curBones, o = h * BONE_STRIDE;
    const qx = b[o + 3], qy = b[o + 4], qz = b[o + 5], qw = b[o + 6];
    const nx = scratchHit.nx, ny = scratchHit.ny, nz = scratchHit.nz;
    const ux = qy * nz - qz * ny, uy = qz * nx - qx * nz, uz = qx * ny - qy * nx;
    out.nx = nx + 2 * (qw * ux + qy * uz - qz * uy);
    out.ny = ny + 2 * (qw * uy + qz * ux - qx * uz);
    out.nz = nz + 2 * (qw * uz + qx * uy - qy * ux);
    out.hitbox = h;
    out.bone = this.rig.hitboxJoint[h];
    out.zone = this.rig.hitboxZone[h] as HitZone;
  }

  /**
   * World-space triangles of one player's hitboxes at a pose (debugging, audits, tests): 9 numbers
   * per triangle in rig order (hitbox h owns rig.triStart[h] .. rig.triStart[h + 1] - 1). Returns
   * the count written. Throws when out is shorter than rig.triangleCount * 9.
   */
  hitboxTriangles(out: Float64Array, pose: PlayerPose): number {
    return this.hitboxTrianglesFromBones(out, this.poseBones(this.bones, pose));
  }

  /**
   * Triangle snapshot at a rewound time: samples `history` at timeMs under this rewinder's policy and
   * writes that pose's world triangles as hitboxTriangles does. Returns the count, or 0 (out
   * untouched) when the sample is refused (empty history, out of window under REJECT, non-finite).
   * Dead players still have triangles (the audit may want them).
   */
  trianglesAt(out: Float64Array, history: PlayerHistory, timeMs: number): number {
    const status = history.sampleAt(scratchPose, timeMs, this.policy);
    if (!rewindStatusUsable(status)) return 0;
    return this.hitboxTriangles(out, scratchPose);
  }

  /** As hitboxTriangles, from explicit world bone transforms. */
  hitboxTrianglesFromBones(out: Float64Array, bones: Float64Array): number {
    const rig = this.rig;
    if (out.length < rig.triangleCount * 9) {
      throw new RangeError(`hitboxTriangles: out holds ${out.length} numbers, needs rig.triangleCount * 9 = ${rig.triangleCount * 9}`);
    }
    const tris = rig.triangles;
    for (let h = 0; h < rig.hitboxCount; h++) {
      const o = h * BONE_STRIDE;
      const tx = bones[o], ty = bones[o + 1], tz = bones[o + 2];
      const qx = bones[o + 3], qy = bones[o + 4], qz = bones[o + 5], qw = bones[o + 6];
      const end = rig.triStart[h + 1] * 9;
      for (let i = rig.triStart[h] * 9; i < end; i += 3) {
        const px = tris[i], py = tris[i + 1], pz = tris[i + 2];
        const cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
        out[i] = tx + px + 2 * (qw * cx + qy * cz - qz * cy);
        out[i + 1] = ty + py + 2 * (qw * cy + qz * cx - qx * cz);
        out[i + 2] = tz + pz + 2 * (qw * cz + qx * cy - qy * cx);
      }
    }
    return rig.triangleCount;
  }
}

/**
 * Whether the segment S + t D (t in [0, tMax]) meets the sphere (c, r): true when S is inside, or the
 * entry point lies at t <= tMax. dd = D . D > 0.
 */
export function segmentEntersSphere(
  sx: number, sy: number, sz: number, dx: number, dy: number, dz: number, dd: number,
  cx: number, cy: number, cz: number, r: number, tMax: number,
): boolean {
  const mx = sx - cx, my = sy - cy, mz = sz - cz;
  const c = mx * mx + my * my + mz * mz - r * r;
  if (c <= 0) return true;
  const b = mx * dx + my * dy + mz * dz;
  if (b >= 0) return false; // outside and moving away
  const disc = b * b - dd * c;
  if (disc < 0) return false;
  // Entry t = (-b - sqrt(disc)) / dd <= tMax, without dividing.
  return -b - Math.sqrt(disc) <= tMax * dd;
}
