/**
 * Test helper: seeded scenes and segments for checking BVH queries against brute force (procedural
 * meshes, random rigid transforms, segments of every awkward kind), and an exact candidate filter
 * that makes brute force affordable on big levels.
 */
import type { Uniform } from '../../shared/util/prng';
import { meshBounds as bounds, type MeshArrays } from './glb';

type Mesh = MeshArrays;

/** A point on triangle t at barycentrics (u, v). */
export function onTri(m: Mesh, t: number, u: number, v: number, out: number[], o: number): void {
  const p = m.positions;
  const a = m.indices[3 * t] * 3, b = m.indices[3 * t + 1] * 3, c = m.indices[3 * t + 2] * 3;
  for (let k = 0; k < 3; k++) out[o + k] = p[a + k] + u * (p[b + k] - p[a + k]) + v * (p[c + k] - p[a + k]);
}

/** Seeded segments of every kind listed in the header. */
export function segments(m: Mesh, rng: Uniform, count: number): number[][] {
  const b = bounds(m);
  const ext = [b[3] - b[0], b[4] - b[1], b[5] - b[2]];
  const tris = m.indices.length / 3;
  const verts = m.positions.length / 3;
  const out: number[][] = [];
  const pick = (n: number) => Math.min(n - 1, Math.floor(rng() * n));
  for (let i = 0; i < count; i++) {
    const s = [0, 0, 0, 0, 0, 0];
    const kind = i % 8;
    if (kind <= 1) {
      // Incoherent: from around the bounds to inside them.
      for (let k = 0; k < 3; k++) {
        s[k] = b[k] - 0.5 * ext[k] + rng() * 2 * ext[k];
        s[3 + k] = b[k] + rng() * ext[k];
      }
    } else if (kind === 2) {
      // Starts exactly on a triangle (t = 0 hit), ends anywhere in the bounds.
      onTri(m, pick(tris), rng() * 0.5, rng() * 0.5, s, 0);
      for (let k = 0; k < 3; k++) s[3 + k] = b[k] + rng() * ext[k];
    } else if (kind === 3) {
      // Ends exactly on a triangle (t = 1 hit possible), starts outside.
      onTri(m, pick(tris), rng() * 0.5, rng() * 0.5, s, 3);
      for (let k = 0; k < 3; k++) s[k] = b[k] - 0.5 * ext[k] + rng() * 2 * ext[k];
    } else if (kind === 4) {
      // Short segment starting inside the geometry's volume, near a surface.
      onTri(m, pick(tris), rng() * 0.5, rng() * 0.5, s, 0);
      for (let k = 0; k < 3; k++) {
        s[k] += (rng() - 0.5) * 0.05 * ext[k];
        s[3 + k] = s[k] + (rng() - 0.5) * 0.2 * ext[k];
      }
    } else if (kind === 5 || kind === 6) {
      // Along an axis through a vertex's other two coordinates: these are exactly the coordinates
      // the boxes are made of, so such segments graze box faces and run along triangle edges.
      const v = pick(verts) * 3;
      const axis = pick(3);
      for (let k = 0; k < 3; k++) s[k] = s[3 + k] = m.positions[v + k];
      const dir = rng() < 0.5 ? 1 : -1;
      s[axis] = b[axis] - dir * 0.25 * ext[axis] - (dir < 0 ? -ext[axis] : 0);
      s[3 + axis] = s[axis] + dir * 1.5 * ext[axis];
      if (kind === 6) {
        // Same, but in a plane of a box face: keep one coordinate on a vertex, move in two.
        const other = (axis + 1) % 3;
        s[3 + other] = b[other] + rng() * ext[other];
      }
    } else {
      // Between two points on two triangles (hits at both ends possible).
      onTri(m, pick(tris), rng() * 0.5, rng() * 0.5, s, 0);
      onTri(m, pick(tris), rng() * 0.5, rng() * 0.5, s, 3);
    }
    out.push(s);
  }
  return out;
}

/** Random rigid transform + scale + offset (test code may use trigonometry; shared/ may not). */
export function transform(m: Mesh, rng: Uniform, offset: number): Mesh {
  const ax = rng() * 2 - 1, ay = rng() * 2 - 1, az = rng() * 2 - 1;
  const al = Math.sqrt(ax * ax + ay * ay + az * az) || 1;
  const x = ax / al, y = ay / al, z = az / al;
  const ang = rng() * Math.PI * 2;
  const c = Math.cos(ang), s = Math.sin(ang), C = 1 - c;
  const R = [x * x * C + c, x * y * C - z * s, x * z * C + y * s, y * x * C + z * s, y * y * C + c, y * z * C - x * s, z * x * C - y * s, z * y * C + x * s, z * z * C + c];
  const scale = 0.1 + rng() * 20;
  const tx = (rng() * 2 - 1) * offset, ty = (rng() * 2 - 1) * offset, tz = (rng() * 2 - 1) * offset;
  const p = m.positions;
  const q = new Float64Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    q[i] = scale * (R[0] * p[i] + R[1] * p[i + 1] + R[2] * p[i + 2]) + tx;
    q[i + 1] = scale * (R[3] * p[i] + R[4] * p[i + 1] + R[5] * p[i + 2]) + ty;
    q[i + 2] = scale * (R[6] * p[i] + R[7] * p[i + 1] + R[8] * p[i + 2]) + tz;
  }
  return { positions: q, indices: m.indices };
}

export function randomSoup(rng: Uniform, n: number): Mesh {
  const p = new Float64Array(n * 9);
  for (let t = 0; t < n; t++) {
    const cx = rng() * 10, cy = rng() * 10, cz = rng() * 10;
    const size = rng() < 0.1 ? 5 : 0.8;
    for (let k = 0; k < 9; k++) p[t * 9 + k] = (k % 3 === 0 ? cx : k % 3 === 1 ? cy : cz) + (rng() - 0.5) * size;
  }
  const idx = new Uint32Array(n * 3);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  return { positions: p, indices: idx };
}

export function terrain(rng: Uniform, n: number): Mesh {
  const p: number[] = [];
  const idx: number[] = [];
  for (let j = 0; j <= n; j++) for (let i = 0; i <= n; i++) p.push(i, rng() * 0.8 + (i === j ? 2 : 0), j);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      idx.push(a, c, b, b, c, d);
    }
  }
  return { positions: new Float64Array(p), indices: new Uint32Array(idx) };
}

/**
 * Candidate triangles for big levels, an exact filter for brute force: triangles in file order, in
 * chunks of `size`, each with a double-precision box; a segment is tested against a chunk's box grown
 * by a generous margin (comparisons only, NaN-safe), and every triangle of every chunk it touches is a
 * candidate. Conservative boxes: brute force over the candidates with the kernel gives the same hits
 * as brute force over every triangle. The returned function fills `list` and returns its length.
 */
export function chunkCandidates(m: MeshArrays, size: number): { list: Int32Array; fill: (s: ArrayLike<number>) => number } {
  const n = m.indices.length / 3;
  const chunks = Math.ceil(n / size);
  const box = new Float64Array(chunks * 6);
  const p = m.positions;
  for (let c = 0; c < chunks; c++) {
    const b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
    for (let t = c * size; t < Math.min(n, (c + 1) * size); t++) {
      for (let j = 0; j < 3; j++) {
        const v = m.indices[3 * t + j] * 3;
        for (let k = 0; k < 3; k++) {
          b[k] = Math.min(b[k], p[v + k]);
          b[k + 3] = Math.max(b[k + 3], p[v + k]);
        }
      }
    }
    for (let k = 0; k < 3; k++) {
      const margin = 1e-6 * (1 + Math.abs(b[k]) + Math.abs(b[k + 3]));
      box[c * 6 + k] = b[k] - margin;
      box[c * 6 + 3 + k] = b[k + 3] + margin;
    }
  }
  const list = new Int32Array(n);
  const fill = (s: ArrayLike<number>): number => {
    let len = 0;
    for (let c = 0; c < chunks; c++) {
      let lo = 0, hi = 1;
      let ok = true;
      for (let k = 0; k < 3 && ok; k++) {
        const d = s[3 + k] - s[k];
        const a = box[c * 6 + k], b = box[c * 6 + 3 + k];
        if (d === 0) {
          if (s[k] < a || s[k] > b) ok = false;
        } else {
          let t0 = (a - s[k]) / d, t1 = (b - s[k]) / d;
          if (t0 > t1) { const x = t0; t0 = t1; t1 = x; }
          // Generous slack on the parametric interval too.
          t0 -= 1e-9; t1 += 1e-9;
          if (t0 > lo) lo = t0;
          if (t1 < hi) hi = t1;
          if (lo > hi) ok = false;
        }
      }
      if (!ok) continue;
      for (let t = c * size; t < Math.min(n, (c + 1) * size); t++) list[len++] = t;
    }
    return len;
  };
  return { list, fill };
}

