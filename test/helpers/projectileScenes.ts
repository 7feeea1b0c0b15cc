/**
 * Test helper for projectiles and explosions (test/projectile.test.ts, test/explosion.test.ts):
 * levels built from boxes (faces wound outward), a brute-force flight (exact parabola in tiny
 * fixed sub-steps, the swept-sphere kernel over every triangle, no BVH) and a brute-force line of
 * sight (Moller-Trumbore written here over every triangle).
 */
import { buildSweepFrames, createSweepHit, sweepSphereTriangle } from '../../shared/kernels/sweptSphere';
import { World } from '../../shared/world/world';

/** Triangles of axis-aligned boxes, each face wound so its front looks out of the box. */
export function boxes(list: number[][]): { positions: Float32Array; indices: Uint32Array } {
  const pos: number[] = [];
  const idx: number[] = [];
  for (const [x0, y0, z0, x1, y1, z1] of list) {
    const c = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2];
    const v = (i: number) => [i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0];
    const faces = [[0, 2, 6, 4], [1, 3, 7, 5], [0, 1, 5, 4], [2, 3, 7, 6], [0, 1, 3, 2], [4, 5, 7, 6]];
    for (const f of faces) {
      const q = f.map(v);
      for (const [a, b, d] of [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]) {
        const n = cross(sub(b, a), sub(d, a));
        const m = [(a[0] + b[0] + d[0]) / 3 - c[0], (a[1] + b[1] + d[1]) / 3 - c[1], (a[2] + b[2] + d[2]) / 3 - c[2]];
        const out = dot(n, m) > 0;
        const base = pos.length / 3;
        pos.push(...a, ...(out ? b : d), ...(out ? d : b));
        idx.push(base, base + 1, base + 2);
      }
    }
  }
  return { positions: Float32Array.from(pos), indices: Uint32Array.from(idx) };
}

export function worldOf(list: number[][]): World {
  const m = boxes(list);
  return World.fromTriangles(m.positions, m.indices);
}

export const sub = (a: number[], b: number[]) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: number[], b: number[]) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

export interface BruteImpact {
  /** Age at contact, ms; the centre and normal at contact. */
  ageMs: number;
  c: number[];
  n: number[];
  /** Velocity at contact. */
  v: number[];
}

/**
 * The first contact of a sphere of radius r launched at p0 with velocity v0 under gravity g (-y)
 * within lifetimeMs: the exact parabola sampled every subMs, each chord swept against every
 * triangle of the world with the kernel. Null when nothing is touched.
 */
export function bruteImpact(world: World, p0: number[], v0: number[], g: number, r: number, lifetimeMs: number, subMs = 0.25): BruteImpact | null {
  const frames = buildSweepFrames(world.triangleCorners(), null);
  const n = world.triangleCount;
  const hit = createSweepHit();
  const at = (ms: number) => {
    const t = ms / 1000;
    return [p0[0] + v0[0] * t, p0[1] + v0[1] * t - 0.5 * g * t * t, p0[2] + v0[2] * t];
  };
  for (let k = 0; k * subMs < lifetimeMs; k++) {
    const a = at(k * subMs), b = at((k + 1) * subMs);
    let best: BruteImpact | null = null, bestT = Infinity;
    for (let i = 0; i < n; i++) {
      if (!sweepSphereTriangle(hit, frames, i, a[0], a[1], a[2], b[0], b[1], b[2], r)) continue;
      if (hit.t < bestT) {
        bestT = hit.t;
        const ms = (k + hit.t) * subMs;
        best = { ageMs: ms, c: [hit.cx, hit.cy, hit.cz], n: [hit.nx, hit.ny, hit.nz], v: [v0[0], v0[1] - (g * ms) / 1000, v0[2]] };
      }
    }
    if (best) return best;
  }
  return null;
}

/** Whether segment A -> B meets any triangle of the world (Moller-Trumbore, both faces, 0 <= t <= 1). */
export function bruteBlocked(world: World, A: number[], B: number[]): boolean {
  const T = world.triangleCorners();
  const d = sub(B, A);
  for (let i = 0; i < world.triangleCount; i++) {
    const o = i * 9;
    const a = [T[o], T[o + 1], T[o + 2]], b = [T[o + 3], T[o + 4], T[o + 5]], c = [T[o + 6], T[o + 7], T[o + 8]];
    const e1 = sub(b, a), e2 = sub(c, a);
    const p = cross(d, e2);
    const det = dot(e1, p);
    if (Math.abs(det) < 1e-15) continue;
    const s = sub(A, a);
    const u = dot(s, p) / det;
    if (u < 0 || u > 1) continue;
    const q = cross(s, e1);
    const v = dot(d, q) / det;
    if (v < 0 || u + v > 1) continue;
    const t = dot(e2, q) / det;
    if (t >= 0 && t <= 1) return true;
  }
  return false;
}
