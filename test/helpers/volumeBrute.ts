/**
 * Test helper for the rewound volume queries (test/rewindVolume.test.ts, test/rewindOverlap.test.ts):
 * seeded player histories on the mannequin rig, every player posed for brute force at a query time
 * (world triangles, unit planes, sweep frames), and brute-force references written here,
 * independent of the code under test: point-triangle distance by projection and edges, the signed
 * distance to a hull, golden-section minimisation, the swept-sphere kernel over every triangle.
 */
import { buildSweepFrames, createSweepHit, sweepSphereTriangle } from '../../shared/kernels/sweptSphere';
import { PlayerHistory, rewindStatusUsable, type RewindStatus } from '../../shared/lagcomp/history';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { Rewinder } from '../../shared/lagcomp/rewind';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import type { Uniform } from '../../shared/util/prng';

export const rig = MANNEQUIN_RIG;
export const rewinder = new Rewinder(rig);
export const HZ = 64, DT = 1000 / HZ, TICKS = 40, NEWEST = (TICKS - 1) * DT;
export const H = rig.hitboxCount;

/** Histories of n players in a square of `size` metres, 40 ticks; random full rotations for odd slots, slot p % 7 === 3 dead. */
export function makeHistories(rnd: Uniform, n: number, size: number): (PlayerHistory | undefined)[] {
  const histories: (PlayerHistory | undefined)[] = [];
  const pose = createPlayerPose();
  for (let p = 0; p < n; p++) {
    const h = new PlayerHistory(PlayerHistory.capacityFor(HZ, 1000));
    histories.push(h);
    const x = (rnd() - 0.5) * size, z = (rnd() - 0.5) * size, vx = (rnd() - 0.5) * 6, vz = (rnd() - 0.5) * 6;
    const q = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() + 0.1];
    const ql = Math.hypot(...q);
    const yaw = rnd() * 6, clip = Math.floor(rnd() * 4);
    for (let tick = 0; tick < TICKS; tick++) {
      const s = tick / HZ;
      pose.x = x + vx * s; pose.y = 0; pose.z = z + vz * s;
      if (p % 2 === 1) {
        pose.qx = q[0] / ql; pose.qy = q[1] / ql; pose.qz = q[2] / ql; pose.qw = q[3] / ql;
      } else {
        const half = (yaw + s) / 2;
        pose.qx = 0; pose.qy = Math.sin(half); pose.qz = 0; pose.qw = Math.cos(half);
      }
      pose.clip = clip; pose.time = s; pose.alive = p % 7 !== 3;
      h.record(tick, tick * DT, pose);
    }
  }
  return histories;
}

/** One player posed for brute force: world triangles, their unit planes, sweep frames, the rig bound's centre. */
export interface Posed { p: number; status: RewindStatus; tris: Float64Array; planes: Float64Array; frames: Float64Array; center: number[] }

export function posePlayers(histories: (PlayerHistory | undefined)[], timeMs: number, exclude: number, policy = rewinder.policy): Posed[] {
  const out: Posed[] = [];
  const pose = createPlayerPose();
  for (let p = 0; p < histories.length; p++) {
    const h = histories[p];
    if (!h || p === exclude) continue;
    const status = h.sampleAt(pose, timeMs, policy);
    if (!rewindStatusUsable(status) || !pose.alive) continue;
    const tris = new Float64Array(rig.triangleCount * 9);
    rewinder.hitboxTriangles(tris, pose);
    const planes = new Float64Array(rig.triangleCount * 4);
    for (let i = 0; i < rig.triangleCount; i++) {
      const o = i * 9;
      const e1 = [tris[o + 3] - tris[o], tris[o + 4] - tris[o + 1], tris[o + 5] - tris[o + 2]];
      const e2 = [tris[o + 6] - tris[o], tris[o + 7] - tris[o + 1], tris[o + 8] - tris[o + 2]];
      const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
      const l = Math.hypot(...n);
      planes.set([n[0] / l, n[1] / l, n[2] / l, (n[0] * tris[o] + n[1] * tris[o + 1] + n[2] * tris[o + 2]) / l], i * 4);
    }
    const b = [rig.boundCenterX, rig.boundCenterY, rig.boundCenterZ];
    const c = rotate([pose.qx, pose.qy, pose.qz, pose.qw], b);
    out.push({ p, status, tris, planes, frames: buildSweepFrames(tris, null), center: [pose.x + c[0], pose.y + c[1], pose.z + c[2]] });
  }
  return out;
}

export function rotate(q: number[], v: number[]): number[] {
  const [x, y, z, w] = q;
  const c = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  return [v[0] + 2 * (w * c[0] + y * c[2] - z * c[1]), v[1] + 2 * (w * c[1] + z * c[0] - x * c[2]), v[2] + 2 * (w * c[2] + x * c[1] - y * c[0])];
}

export function randomUnitQuat(rnd: Uniform): number[] {
  const q = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
  const l = Math.hypot(...q) || 1;
  return q.map((v) => v / l);
}

// --- Brute force written here, independent of the code under test ---

/** Squared distance from p to triangle o of tris: projection inside, else the nearest edge. */
export function pointTriangle2(tris: Float64Array, o: number, p: number[]): number {
  const a = [tris[o], tris[o + 1], tris[o + 2]], b = [tris[o + 3], tris[o + 4], tris[o + 5]], c = [tris[o + 6], tris[o + 7], tris[o + 8]];
  const sub = (u: number[], v: number[]) => [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
  const dot = (u: number[], v: number[]) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const cross = (u: number[], v: number[]) => [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const n = cross(sub(b, a), sub(c, a));
  const nn = dot(n, n);
  const h = dot(sub(p, a), n) / nn;
  const x = [p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]];
  if (dot(cross(sub(b, a), sub(x, a)), n) >= 0 && dot(cross(sub(c, b), sub(x, b)), n) >= 0 && dot(cross(sub(a, c), sub(x, c)), n) >= 0) return h * h * nn;
  let best = Infinity;
  for (const [u, v] of [[a, b], [b, c], [c, a]]) {
    const e = sub(v, u);
    const s = Math.max(0, Math.min(1, dot(sub(p, u), e) / dot(e, e)));
    const d = sub(p, [u[0] + s * e[0], u[1] + s * e[1], u[2] + s * e[2]]);
    best = Math.min(best, dot(d, d));
  }
  return best;
}

/** Signed distance of p to hitbox h of a posed player: minus the depth when inside (largest plane distance), else the nearest triangle. */
export function sd(P: Posed, h: number, p: number[]): number {
  let m = -Infinity;
  for (let i = rig.triStart[h]; i < rig.triStart[h + 1]; i++) {
    m = Math.max(m, P.planes[i * 4] * p[0] + P.planes[i * 4 + 1] * p[1] + P.planes[i * 4 + 2] * p[2] - P.planes[i * 4 + 3]);
  }
  if (m <= 0) return m;
  let best = Infinity;
  for (let i = rig.triStart[h]; i < rig.triStart[h + 1]; i++) best = Math.min(best, pointTriangle2(P.tris, i * 9, p));
  return Math.sqrt(best);
}

export const lerp = (a: number[], b: number[], s: number) => [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2])];

/** Minimum over s in [lo, hi] of a convex f: golden section; { s, v }. */
export function goldenMin(f: (s: number) => number, lo = 0, hi = 1, iterations = 56): { s: number; v: number } {
  const g = (Math.sqrt(5) - 1) / 2;
  let a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a), fc = f(c), fd = f(d);
  for (let i = 0; i < iterations; i++) {
    if (fc <= fd) { b = d; d = c; fd = fc; c = b - g * (b - a); fc = f(c); } else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = f(d); }
  }
  let best = { s: (a + b) / 2, v: f((a + b) / 2) };
  for (const s of [lo, hi]) { const v = f(s); if (v < best.v) best = { s, v }; }
  return best;
}

/** Per posed player: the nearest hitbox (lowest index on ties) by dist(h) among those with accept(h), or null. */
export function nearest(dist: (h: number) => number, accept: (h: number, d: number) => boolean): { h: number; d: number; all: number[] } | null {
  let best: { h: number; d: number } | null = null;
  const all: number[] = [];
  for (let h = 0; h < H; h++) {
    const d = dist(h);
    all.push(d);
    if (!accept(h, d)) continue;
    if (!best || d < best.d) best = { h, d };
  }
  return best ? { ...best, all } : null;
}

const sweepHit = createSweepHit();

/** Brute sweep of one posed player: per hitbox t = 0 when the start overlaps, else the kernel over its triangles; first hitbox on ties. */
export function bruteSweep(P: Posed, A: number[], B: number[], r: number, lim: number): { t: number; h: number } | null {
  let best: { t: number; h: number } | null = null;
  for (let h = 0; h < H; h++) {
    let t = Infinity;
    if (sd(P, h, A) <= r) t = 0;
    else {
      for (let i = rig.triStart[h]; i < rig.triStart[h + 1]; i++) {
        if (sweepSphereTriangle(sweepHit, P.frames, i, A[0], A[1], A[2], B[0], B[1], B[2], r) && sweepHit.t < t) t = sweepHit.t;
      }
    }
    if (t <= lim && (!best || t < best.t)) best = { t, h };
  }
  return best;
}

/** A point near a random posed player's body (its rig bound, shrunk). */
export function nearBody(rnd: Uniform, posed: Posed[], spread = 0.9): number[] {
  const P = posed[Math.floor(rnd() * posed.length)];
  return [P.center[0] + (rnd() - 0.5) * 2 * spread * 0.6, P.center[1] + (rnd() - 0.5) * 2 * spread, P.center[2] + (rnd() - 0.5) * 2 * spread * 0.6];
}

/** A point inside a random hitbox of a random posed player: a random blend of two of its vertices and its centroid. */
export function insideHitbox(rnd: Uniform, posed: Posed[]): number[] {
  const P = posed[Math.floor(rnd() * posed.length)], h = Math.floor(rnd() * H);
  const i0 = rig.triStart[h], i1 = rig.triStart[h + 1], n = (i1 - i0) * 3;
  const c = [0, 0, 0];
  for (let i = i0 * 9; i < i1 * 9; i += 3) for (let k = 0; k < 3; k++) c[k] += P.tris[i + k] / n;
  const a = i0 * 9 + Math.floor(rnd() * n) * 3, w = rnd() * 0.9;
  return [0, 1, 2].map((k) => c[k] * (1 - w) + P.tris[a + k] * w);
}

export function randomDir(rnd: Uniform): number[] {
  const d = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
  const l = Math.hypot(...d) || 1;
  return d.map((v) => v / l);
}

/** A query time in the window, between ticks. */
export const queryTime = (rnd: Uniform) => NEWEST - rnd() * 240;
