// Overlaps of rewound players (VolumeRewinder.overlapSphere, overlapCapsule, overlapBox) against
// brute force with no broadphase, every player posed at the sub-tick query time: the exact signed
// distance to every posed hull (point-triangle distance written in the helper), golden section of
// it along capsules, and for boxes vertex containment plus edge-face crossings with the watertight
// kernel. Also the closest-point kernels against the same references.
import { describe, expect, it } from 'vitest';
import { closestPointTriangle, closestSegmentTriangle, createClosestPair } from '../shared/kernels/closestPoint';
import { createSegmentHit } from '../shared/kernels/hit';
import { intersectWatertight } from '../shared/kernels/watertight';
import { createVolumeOverlaps, VolumeRewinder, type VolumeOverlaps } from '../shared/lagcomp/rewindVolume';
import { mulberry32 } from '../shared/util/prng';
import {
  goldenMin, H, insideHitbox, lerp, makeHistories, nearBody, nearest, pointTriangle2, posePlayers, queryTime, randomDir, randomUnitQuat, rewinder, rig, rotate, sd,
} from './helpers/volumeBrute';

const vol = new VolumeRewinder(rewinder);
/** The brute force is slow (seconds unloaded, over a minute on a loaded 2-core machine): its own time limit. */
const HEAVY_MS = 240_000;

describe('closest-point kernels', () => {
  it('point-triangle equals projection-and-edges; segment-triangle equals golden section over the segment', () => {
    const rnd = mulberry32(0x5e1);
    const pair = createClosestPair();
    const tri = new Float64Array(9);
    let crossings = 0;
    for (let k = 0; k < 3000; k++) {
      for (let i = 0; i < 9; i++) tri[i] = (rnd() - 0.5) * 2;
      const p = [(rnd() - 0.5) * 3, (rnd() - 0.5) * 3, (rnd() - 0.5) * 3];
      closestPointTriangle(pair, p[0], p[1], p[2], tri[0], tri[1], tri[2], tri[3], tri[4], tri[5], tri[6], tri[7], tri[8]);
      const d2 = pair.d2;
      expect(Math.abs(d2 - pointTriangle2(tri, 0, p))).toBeLessThan(1e-12);
      // The reported point is on the triangle's plane and realises the distance.
      expect(Math.abs(Math.hypot(p[0] - pair.qx, p[1] - pair.qy, p[2] - pair.qz) ** 2 - d2)).toBeLessThan(1e-12);
      const q = [(rnd() - 0.5) * 3, (rnd() - 0.5) * 3, (rnd() - 0.5) * 3];
      closestSegmentTriangle(pair, p[0], p[1], p[2], q[0], q[1], q[2], tri[0], tri[1], tri[2], tri[3], tri[4], tri[5], tri[6], tri[7], tri[8]);
      const s2 = pair.d2;
      const ref = goldenMin((s) => Math.sqrt(pointTriangle2(tri, 0, lerp(p, q, s))), 0, 1, 80);
      expect(Math.abs(Math.sqrt(s2) - ref.v)).toBeLessThan(1e-9);
      expect(Math.abs(Math.sqrt(pointTriangle2(tri, 0, [pair.px, pair.py, pair.pz])) - Math.sqrt(s2))).toBeLessThan(1e-9);
      if (s2 === 0) crossings++;
    }
    expect(crossings).toBeGreaterThan(100);
  });
});

/** Compares an overlap record with the brute force per player ({ p, h, d, all }) allowing rounding at the boundary and near-ties. */
function compareOverlaps(out: VolumeOverlaps, want: { p: number; h: number; d: number; all: number[]; boundary: boolean }[], note: string): void {
  const got = new Map<number, number>();
  for (let i = 0; i < out.count; i++) got.set(out.player[i], i);
  for (const w of want) {
    const i = got.get(w.p);
    if (i === undefined) {
      expect(w.boundary, `${note}: player ${w.p} missing (d ${w.d})`).toBe(true);
      continue;
    }
    got.delete(w.p);
    expect(Math.abs(out.distance[i] - w.d), `${note}: player ${w.p} distance`).toBeLessThan(1e-9);
    if (out.hitbox[i] !== w.h) expect(Math.abs(w.all[out.hitbox[i]] - w.d), `${note}: player ${w.p} hitbox ${out.hitbox[i]} vs ${w.h}`).toBeLessThan(1e-9);
    expect(out.zone[i]).toBe(rig.hitboxZone[out.hitbox[i]]);
  }
  expect([...got.keys()], `${note}: extra players`).toEqual([]);
  expect(out.total).toBe(out.count);
  for (let i = 1; i < out.count; i++) {
    expect(out.distance[i - 1] < out.distance[i] || (out.distance[i - 1] === out.distance[i] && out.player[i - 1] < out.player[i])).toBe(true);
  }
}

describe('VolumeRewinder overlaps', () => {
  it('overlapSphere equals brute force (exact distance to every posed triangle; 2,000 spheres, centres inside and out)', () => {
    const rnd = mulberry32(0x5c05);
    const histories = makeHistories(rnd, 12, 3);
    histories[2] = undefined;
    const out = createVolumeOverlaps(64);
    let entries = 0, insideCores = 0;
    for (let k = 0; k < 2000; k++) {
      const time = queryTime(rnd), exclude = Math.floor(rnd() * 13) - 1;
      const posed = posePlayers(histories, time, exclude);
      const c = rnd() < 0.15 ? insideHitbox(rnd, posed) : nearBody(rnd, posed, 1.1), r = rnd() < 0.1 ? 0 : rnd() * 0.5;
      vol.overlapSphere(out, histories, time, c[0], c[1], c[2], r, exclude);
      const want = [];
      for (const P of posed) {
        const all: number[] = [];
        let min = Infinity;
        for (let h = 0; h < H; h++) { all.push(sd(P, h, c)); min = Math.min(min, all[h]); }
        const n = nearest((h) => all[h], (_h, d) => d <= r);
        if (n) want.push({ p: P.p, h: n.h, d: n.d, all, boundary: Math.abs(n.d - r) < 1e-9 });
        else if (Math.abs(min - r) < 1e-9) want.push({ p: P.p, h: -1, d: min, all, boundary: true });
      }
      compareOverlaps(out, want.filter((w) => w.h >= 0 || out.player.subarray(0, out.count).includes(w.p)), `sphere ${k}`);
      for (let i = 0; i < out.count; i++) {
        entries++;
        if (out.distance[i] <= 0) insideCores++;
        // The surface point is on the hull, the normal unit, and the core is the centre.
        const P = posed.find((x) => x.p === out.player[i])!;
        expect(Math.abs(sd(P, out.hitbox[i], [out.x[i], out.y[i], out.z[i]]))).toBeLessThan(1e-9);
        expect(Math.hypot(out.nx[i], out.ny[i], out.nz[i])).toBeCloseTo(1, 9);
        expect([out.px[i], out.py[i], out.pz[i]]).toEqual(c);
        expect(Math.abs(Math.hypot(c[0] - out.x[i], c[1] - out.y[i], c[2] - out.z[i]) - Math.abs(out.distance[i]))).toBeLessThan(1e-9);
      }
    }
    expect(entries).toBeGreaterThan(700);
    expect(insideCores).toBeGreaterThan(200);
  }, HEAVY_MS);

  it('overlapCapsule equals brute force (golden section of the signed distance along the segment; 300 capsules); degenerate capsules are spheres', () => {
    const rnd = mulberry32(0x5c06);
    const histories = makeHistories(rnd, 5, 2);
    const out = createVolumeOverlaps(8), sph = createVolumeOverlaps(8);
    let entries = 0, crossing = 0;
    for (let k = 0; k < 300; k++) {
      const time = queryTime(rnd);
      const posed = posePlayers(histories, time, -1);
      const c = rnd() < 0.2 ? insideHitbox(rnd, posed) : nearBody(rnd, posed, 0.8), dir = randomDir(rnd), len = rnd() * 1.2;
      const A = [c[0] + dir[0] * len / 2, c[1] + dir[1] * len / 2, c[2] + dir[2] * len / 2];
      const B = [c[0] - dir[0] * len / 2, c[1] - dir[1] * len / 2, c[2] - dir[2] * len / 2];
      const r = rnd() * 0.3;
      vol.overlapCapsule(out, histories, time, A[0], A[1], A[2], B[0], B[1], B[2], r, -1);
      const want = [];
      for (const P of posed) {
        const all: number[] = [];
        for (let h = 0; h < H; h++) all.push(goldenMin((s) => sd(P, h, lerp(A, B, s)), 0, 1, 50).v);
        const n = nearest((h) => all[h], (_h, d) => d <= r);
        const min = Math.min(...all);
        if (n) want.push({ p: P.p, h: n.h, d: n.d, all, boundary: Math.abs(n.d - r) < 1e-9 });
        else if (Math.abs(min - r) < 1e-9) want.push({ p: P.p, h: -1, d: min, all, boundary: true });
      }
      compareOverlaps(out, want.filter((w) => w.h >= 0 || out.player.subarray(0, out.count).includes(w.p)), `capsule ${k}`);
      for (let i = 0; i < out.count; i++) {
        entries++;
        if (out.distance[i] < 0) crossing++;
        const P = posed.find((x) => x.p === out.player[i])!;
        // The core point is on the segment and realises the distance.
        const core = [out.px[i], out.py[i], out.pz[i]];
        expect(Math.abs(sd(P, out.hitbox[i], core) - out.distance[i])).toBeLessThan(1e-9);
        const ab = [B[0] - A[0], B[1] - A[1], B[2] - A[2]];
        const s = len > 0 ? ((core[0] - A[0]) * ab[0] + (core[1] - A[1]) * ab[1] + (core[2] - A[2]) * ab[2]) / (len * len) : 0;
        expect(Math.hypot(...lerp(A, B, s).map((v, j) => v - core[j]))).toBeLessThan(1e-9);
      }
      // A zero-length capsule is the sphere, bit for bit; one a nanometre long agrees to rounding.
      vol.overlapCapsule(out, histories, time, c[0], c[1], c[2], c[0], c[1], c[2], r, -1);
      vol.overlapSphere(sph, histories, time, c[0], c[1], c[2], r, -1);
      expect(out.count).toBe(sph.count);
      for (let i = 0; i < out.count; i++) expect([out.player[i], out.hitbox[i], out.distance[i]]).toEqual([sph.player[i], sph.hitbox[i], sph.distance[i]]);
      vol.overlapCapsule(out, histories, time, c[0], c[1], c[2], c[0] + dir[0] * 1e-9, c[1] + dir[1] * 1e-9, c[2] + dir[2] * 1e-9, r, -1);
      for (let i = 0; i < Math.min(out.count, sph.count); i++) {
        expect(out.player[i]).toBe(sph.player[i]);
        expect(Math.abs(out.distance[i] - sph.distance[i])).toBeLessThan(2e-9);
      }
    }
    expect(entries).toBeGreaterThan(150);
    expect(crossing).toBeGreaterThan(60);
  }, HEAVY_MS);

  it('overlapBox equals brute force (vertex containment and edge-face crossings; 2,000 boxes rotated arbitrarily)', () => {
    const rnd = mulberry32(0x5c07);
    const histories = makeHistories(rnd, 6, 2);
    const out = createVolumeOverlaps(8);
    const axes = new Float64Array(9);
    const seg = createSegmentHit();
    let entries = 0, centreOutside = 0;
    for (let k = 0; k < 2000; k++) {
      const time = queryTime(rnd);
      const posed = posePlayers(histories, time, -1);
      const c = rnd() < 0.1 ? insideHitbox(rnd, posed) : nearBody(rnd, posed, 1.2);
      const q = randomUnitQuat(rnd);
      const ax = [rotate(q, [1, 0, 0]), rotate(q, [0, 1, 0]), rotate(q, [0, 0, 1])];
      axes.set([...ax[0], ...ax[1], ...ax[2]]);
      const e = [rnd() * 0.4, rnd() * 0.4, rnd() < 0.1 ? 0 : rnd() * 0.4];
      vol.overlapBox(out, histories, time, c[0], c[1], c[2], e[0], e[1], e[2], axes, -1);
      // The box as 8 corners, 12 edges, 12 triangles.
      const corner = (i: number) => [0, 1, 2].map((j) => c[j] + ((i & 1) ? 1 : -1) * e[0] * ax[0][j] + ((i & 2) ? 1 : -1) * e[1] * ax[1][j] + ((i & 4) ? 1 : -1) * e[2] * ax[2][j]);
      const corners = Array.from({ length: 8 }, (_, i) => corner(i));
      const edges: [number, number][] = [];
      for (let i = 0; i < 8; i++) for (const b of [1, 2, 4]) if (!(i & b)) edges.push([i, i | b]);
      const faces = [[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], [2, 3, 7, 6], [0, 2, 6, 4], [1, 3, 7, 5]];
      const inBox = (p: number[]) => [0, 1, 2].every((k2) => Math.abs((p[0] - c[0]) * ax[k2][0] + (p[1] - c[1]) * ax[k2][1] + (p[2] - c[2]) * ax[k2][2]) <= e[k2]);
      const crossesBox = (a: number[], b: number[]) => faces.some((f) => [[f[0], f[1], f[2]], [f[0], f[2], f[3]]].some(([i, j, l]) =>
        intersectWatertight(seg, a[0], a[1], a[2], b[0], b[1], b[2], ...corners[i] as [number, number, number], ...corners[j] as [number, number, number], ...corners[l] as [number, number, number])));
      const boxLo = [0, 1, 2].map((k) => Math.min(...corners.map((p) => p[k])));
      const boxHi = [0, 1, 2].map((k) => Math.max(...corners.map((p) => p[k])));
      const want = [];
      for (const P of posed) {
        const overlaps = (h: number): boolean => {
          const i0 = rig.triStart[h], i1 = rig.triStart[h + 1], T = P.tris;
          const v = (i: number, j: number) => [T[i * 9 + j * 3], T[i * 9 + j * 3 + 1], T[i * 9 + j * 3 + 2]];
          // Disjoint axis-aligned bounds cannot overlap (exact, and cheap).
          for (let k = 0; k < 3; k++) {
            let lo = Infinity, hi = -Infinity;
            for (let i = i0 * 9 + k; i < i1 * 9; i += 3) { lo = Math.min(lo, T[i]); hi = Math.max(hi, T[i]); }
            if (lo > boxHi[k] || hi < boxLo[k]) return false;
          }
          for (let i = i0; i < i1; i++) if (inBox(v(i, 0))) return true;
          for (const p of corners) if (sd(P, h, p) <= 0) return true;
          for (let i = i0; i < i1; i++) {
            for (const [a, b] of edges) if (intersectWatertight(seg, ...corners[a] as [number, number, number], ...corners[b] as [number, number, number], T[i * 9], T[i * 9 + 1], T[i * 9 + 2], T[i * 9 + 3], T[i * 9 + 4], T[i * 9 + 5], T[i * 9 + 6], T[i * 9 + 7], T[i * 9 + 8])) return true;
            for (let j = 0; j < 3; j++) if (crossesBox(v(i, j), v(i, (j + 1) % 3))) return true;
          }
          return false;
        };
        const all: number[] = [];
        for (let h = 0; h < H; h++) all.push(sd(P, h, c));
        const n = nearest((h) => all[h], (h) => overlaps(h));
        if (n) want.push({ p: P.p, h: n.h, d: n.d, all, boundary: false });
      }
      compareOverlaps(out, want, `box ${k}`);
      for (let i = 0; i < out.count; i++) {
        entries++;
        if (out.distance[i] > 0) centreOutside++;
      }
    }
    expect(entries).toBeGreaterThan(1000);
    expect(centreOutside).toBeGreaterThan(700);
    expect(entries - centreOutside).toBeGreaterThan(100);
  }, HEAVY_MS);
});
