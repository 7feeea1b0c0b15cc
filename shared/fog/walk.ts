/**
 * Where a player's body can get to over a horizon, for fog of war's eye regions (./regions): a grid
 * over the level (cellM square in x and z) whose neighbouring cell centres are joined by an edge,
 * and per edge the heights at which the level blocks the horizontal segment between the two
 * centres (built once per level). A query floods the cells from the player's own, through edges not
 * blocked over a height band, within a disc, and answers the support of the cells reached along
 * eight directions k * 45 degrees (an 8-sided region cut by the walls the player cannot cross).
 *
 * Why it holds (every place the body can reach is inside the answer): the movement (../movement/step)
 * sweeps a sphere of `radius` at `probeHeight` above the feet and stops it at walls, so along any
 * path the body takes, that sphere is clear of the level (up to a contact it slides along). Where the
 * path crosses the side shared by two cells, each centre lies within half a cell's diagonal of the
 * crossing point, so the segment between the centres at any height within CLEAR_DY of the sphere's
 * centre stays inside the sphere (half-diagonal^2 + CLEAR_DY^2 < radius^2) and is clear: the edge is
 * not blocked over the band of sphere heights the feet allow ([lowest feet, highest feet] +
 * probeHeight). The flood therefore reaches every cell the path visits, all within the disc of the
 * path's reach plus half a diagonal. Heights merge across gaps under MERGE_GAP_M, far below the clear
 * span of 2 CLEAR_DY such a crossing leaves. A cell is counted whole (its square), so the answer
 * holds every point of every cell reached. Low walls the feet can get over, and doorways, leave the
 * band unblocked: the flood passes them.
 * Built with loops over the triangles (allocates); queries read typed arrays and a scratch queue.
 */
import type { World } from '../world/world';

/** Height span about the sphere's centre in which the crossing segment is clear (see the module comment), metres. */
const CLEAR_DY = 0.15;
/** Blocked heights closer than this are merged, metres (well under 2 CLEAR_DY). */
const MERGE_GAP_M = 0.05;
/** Cells a side of a block (WalkGrid.blockTall). */
const BLOCK = 8;
/** Most cells a grid may have (beyond it, no grid: regions are not cut). */
const MAX_CELLS = 4_000_000;
const S = 0.7071067811865476;

export interface WalkGrid {
  cellM: number;
  minX: number;
  minZ: number;
  nx: number;
  nz: number;
  /** The movement's wall probe this grid serves: the lowest sphere's height above the feet and its radius. */
  probeHeight: number;
  radius: number;
  /**
   * Blocked heights of the edge from cell c to c + 1 (x: e = 2c) and to c + nx (z: e = 2c + 1):
   * entries start[e] .. start[e + 1] of `spans`, two numbers each (bottom, top), sorted and merged.
   */
  start: Uint32Array;
  spans: Float64Array;
  /**
   * Per block of BLOCK x BLOCK cells (bx + bz * blocksX): the tallest blocked span of its edges
   * (top - bottom), so a query whose band is taller than every block it touches floods nothing.
   */
  blocksX: number;
  blockTall: Float64Array;
  /** Flood scratch: the generation each cell was last queued in, and the queue. */
  seen: Int32Array;
  queue: Int32Array;
  gen: number;
}

/**
 * The walk grid of a world for a movement whose lowest wall probe is a sphere of `radius` at
 * `probeHeight` above the feet. Null when the cells would need to be wider than the radius allows
 * (see the module comment) or the level is too large for the grid.
 */
export function buildWalkGrid(world: World, probeHeight: number, radius: number, cellM = 0.25): WalkGrid | null {
  const halfDiag = cellM * S;
  if (!(cellM > 0 && radius > 0 && halfDiag * halfDiag + CLEAR_DY * CLEAR_DY < radius * radius) || !(probeHeight >= 0)) return null;
  const b = world.bounds(new Float64Array(6));
  const minX = b[0] - cellM, minZ = b[2] - cellM;
  const nx = Math.floor((b[3] - minX) / cellM) + 2, nz = Math.floor((b[5] - minZ) / cellM) + 2;
  if (!(nx * nz <= MAX_CELLS)) return null;
  const cells = nx * nz;
  const lists = new Map<number, number[]>();
  const c = world.triangleCorners();
  for (let i = 0; i < c.length; i += 9) {
    const x0 = Math.min(c[i], c[i + 3], c[i + 6]), x1 = Math.max(c[i], c[i + 3], c[i + 6]);
    const z0 = Math.min(c[i + 2], c[i + 5], c[i + 8]), z1 = Math.max(c[i + 2], c[i + 5], c[i + 8]);
    // Edges along x at row j (z = centre j) from column a to a + 1; along z at column a from row j to j + 1.
    const ca0 = Math.max(0, Math.floor((x0 - minX) / cellM - 1.5)), ca1 = Math.min(nx - 1, Math.ceil((x1 - minX) / cellM));
    const cj0 = Math.max(0, Math.floor((z0 - minZ) / cellM - 1.5)), cj1 = Math.min(nz - 1, Math.ceil((z1 - minZ) / cellM));
    for (let j = cj0; j <= cj1; j++) {
      const zc = minZ + (j + 0.5) * cellM;
      for (let a = ca0; a <= ca1; a++) {
        const xc = minX + (a + 0.5) * cellM, cell = a + j * nx;
        if (a + 1 < nx) addSpan(lists, 2 * cell, c, i, xc, zc, xc + cellM, zc);
        if (j + 1 < nz) addSpan(lists, 2 * cell + 1, c, i, xc, zc, xc, zc + cellM);
      }
    }
  }
  const start = new Uint32Array(2 * cells + 1);
  const out: number[] = [];
  for (let e = 0; e < 2 * cells; e++) {
    start[e] = out.length / 2;
    const l = lists.get(e);
    if (l === undefined) continue;
    const idx = Array.from({ length: l.length / 2 }, (_, k) => k).sort((p, q) => l[2 * p]! - l[2 * q]!);
    let lo = Number.NaN, hi = Number.NaN;
    for (const k of idx) {
      const a = l[2 * k]!, bb = l[2 * k + 1]!;
      if (lo === lo && a <= hi + MERGE_GAP_M) { if (bb > hi) hi = bb; continue; }
      if (lo === lo) out.push(lo, hi);
      lo = a; hi = bb;
    }
    if (lo === lo) out.push(lo, hi);
  }
  start[2 * cells] = out.length / 2;
  const blocksX = Math.ceil(nx / BLOCK), blockTall = new Float64Array(blocksX * Math.ceil(nz / BLOCK));
  for (let c = 0; c < cells; c++) {
    const b = Math.floor((c % nx) / BLOCK) + Math.floor(Math.floor(c / nx) / BLOCK) * blocksX;
    for (let k = start[2 * c]!; k < start[2 * c + 2]!; k++) blockTall[b] = Math.max(blockTall[b]!, out[2 * k + 1]! - out[2 * k]!);
  }
  return {
    cellM, minX, minZ, nx, nz, probeHeight, radius, start, spans: Float64Array.from(out), blocksX, blockTall,
    seen: new Int32Array(cells), queue: new Int32Array(cells), gen: 0,
  };
}

/**
 * Adds to edge e the heights at which triangle i (corners c[i..i+8]) meets the horizontal segment
 * (ax, az) -> (bx, bz): the triangle cut by the segment's vertical plane is a segment in (along,
 * height); its part over the edge's span gives the heights. A triangle in the plane adds nothing.
 */
function addSpan(lists: Map<number, number[]>, e: number, c: ArrayLike<number>, i: number, ax: number, az: number, bx: number, bz: number): void {
  const dx = bx - ax, dz = bz - az, len2 = dx * dx + dz * dz;
  // Signed distance of each corner from the plane (normal (-dz, dx) in x-z), and its position along.
  const d = [0, 0, 0], t = [0, 0, 0], y = [0, 0, 0];
  for (let k = 0; k < 3; k++) {
    const px = c[i + 3 * k]! - ax, pz = c[i + 3 * k + 2]! - az;
    d[k] = -dz * px + dx * pz;
    t[k] = (dx * px + dz * pz) / len2;
    y[k] = c[i + 3 * k + 1]!;
  }
  if (d[0] === 0 && d[1] === 0 && d[2] === 0) return;
  // The cut: corners on the plane and the crossing points of edges whose ends lie on either side.
  const pts: number[] = [];
  for (let k = 0; k < 3; k++) {
    const m = (k + 1) % 3;
    if (d[k] === 0) pts.push(t[k]!, y[k]!);
    if ((d[k]! < 0 && d[m]! > 0) || (d[k]! > 0 && d[m]! < 0)) {
      const s = d[k]! / (d[k]! - d[m]!);
      pts.push(t[k]! + s * (t[m]! - t[k]!), y[k]! + s * (y[m]! - y[k]!));
    }
  }
  if (pts.length < 2) return;
  // The cut is the segment between its two farthest points P, Q; keep its part with t in [0, 1].
  let pi = 0, qi = 0, far = -1;
  for (let k = 0; k < pts.length; k += 2) {
    for (let m = k + 2; m < pts.length; m += 2) {
      const dt = pts[m]! - pts[k]!, dy = pts[m + 1]! - pts[k + 1]!, d2 = dt * dt + dy * dy;
      if (d2 > far) { far = d2; pi = k; qi = m; }
    }
  }
  const pt = pts[pi]!, py = pts[pi + 1]!, qt = far < 0 ? pt : pts[qi]!, qy = far < 0 ? py : pts[qi + 1]!;
  let s0 = 0, s1 = 1;
  if (qt === pt) {
    if (pt < 0 || pt > 1) return;
  } else {
    const u0 = (0 - pt) / (qt - pt), u1 = (1 - pt) / (qt - pt);
    s0 = Math.max(0, Math.min(u0, u1));
    s1 = Math.min(1, Math.max(u0, u1));
    if (s1 < s0) return;
  }
  const ya = py + s0 * (qy - py), yb = py + s1 * (qy - py);
  let l = lists.get(e);
  if (l === undefined) { l = []; lists.set(e, l); }
  l.push(ya < yb ? ya : yb, ya > yb ? ya : yb);
}

/** walkSupports' numbers in: the player's x, z; the disc's centre x, z and radius; its lowest and highest feet. */
export const W_X = 0, W_Z = 1, W_CX = 2, W_CZ = 3, W_REACH = 4, W_FEET_LO = 5, W_FEET_HI = 6;
export const WALK_QUERY = 7;

/**
 * Floods from the player's cell (q[W_X], q[W_Z]) through edges not blocked over the sphere heights
 * of feet in [q[W_FEET_LO], q[W_FEET_HI]], keeping to cells whose centres lie within q[W_REACH] plus
 * half a diagonal of the disc's centre (q[W_CX], q[W_CZ]), and writes into out[o + k] the support
 * of the cells reached along direction k (k * 45 degrees from +x toward +z: ./rays DIR_X, DIR_Z), relative to that centre. Returns false (out
 * untouched) when the player is off the grid, a number is not finite, or no edge was blocked (the
 * disc's own region is as good). The numbers come in an array: double arguments would be boxed.
 */
export function walkSupports(g: WalkGrid, q: Float64Array, out: Float64Array, o: number): boolean {
  const count = walkFlood(g, q);
  if (count === 0) return false;
  floodSupports(g, count, q, out, o);
  return true;
}

/**
 * walkSupports' flood alone: the cells reached are left in g.queue[0 .. the count returned), the
 * player's own first; 0 when walkSupports would answer false. Until the next flood on g (g.gen
 * changes), floodSupports answers for any disc inside this one (a smaller reach, its centre moved
 * no more than the reach shrank) with the cells reached here that lie in it: a superset of what
 * that disc's own flood reaches (its paths stay inside this disc too), so its supports are no tighter.
 */
export function walkFlood(g: WalkGrid, q: Float64Array): number {
  const cell = g.cellM, nx = g.nx, nz = g.nz, cx = q[W_CX]!, cz = q[W_CZ]!;
  const ax = Math.floor((q[W_X]! - g.minX) / cell), az = Math.floor((q[W_Z]! - g.minZ) / cell);
  if (!(ax >= 0 && ax < nx && az >= 0 && az < nz) || !(q[W_REACH]! >= 0 && q[W_REACH]! < Infinity) || !(q[W_FEET_HI]! >= q[W_FEET_LO]!) || !(cx - cx === 0 && cz - cz === 0)) return 0;
  const lim = q[W_REACH]! + cell * S, lim2 = lim * lim, lo = q[W_FEET_LO]! + g.probeHeight, hi = q[W_FEET_HI]! + g.probeHeight;
  const spans = g.spans, start = g.start;
  // No block the disc touches has a span as tall as the band: nothing can be blocked.
  const band = hi - lo, bx0 = Math.max(0, Math.floor((cx - lim - g.minX) / cell / BLOCK)), bx1 = Math.min(g.blocksX - 1, Math.floor((cx + lim - g.minX) / cell / BLOCK));
  const bz0 = Math.max(0, Math.floor((cz - lim - g.minZ) / cell / BLOCK)), bz1 = Math.min(Math.ceil(nz / BLOCK) - 1, Math.floor((cz + lim - g.minZ) / cell / BLOCK));
  let tall = false;
  for (let bz = bz0; bz <= bz1 && !tall; bz++) for (let bx = bx0; bx <= bx1; bx++) if (g.blockTall[bx + bz * g.blocksX]! >= band) { tall = true; break; }
  if (!tall) return 0;
  g.gen = g.gen === 0x7fffffff ? 1 : g.gen + 1;
  const gen = g.gen, seen = g.seen, queue = g.queue;
  let head = 0, tail = 0, cut = false;
  const s0 = ax + az * nx;
  seen[s0] = gen; queue[tail++] = s0;
  while (head < tail) {
    const k = queue[head++]!;
    const a = k % nx, j = (k - a) / nx;
    const px = g.minX + (a + 0.5) * cell - cx, pz = g.minZ + (j + 0.5) * cell - cz;
    // The four neighbours: +x, -x, +z, -z (edge 2c joins c and c + 1, edge 2c + 1 joins c and c + nx).
    for (let side = 0; side < 4; side++) {
      let n = 0, e = 0, qx = px, qz = pz;
      if (side === 0) { if (a + 1 >= nx) continue; n = k + 1; e = 2 * k; qx += cell; }
      else if (side === 1) { if (a === 0) continue; n = k - 1; e = 2 * n; qx -= cell; }
      else if (side === 2) { if (j + 1 >= nz) continue; n = k + nx; e = 2 * k + 1; qz += cell; }
      else { if (j === 0) continue; n = k - nx; e = 2 * n + 1; qz -= cell; }
      if (seen[n] === gen) continue;
      if (qx * qx + qz * qz > lim2) continue;
      // Blocked when one merged span holds [lo, hi] (spans sorted by their bottoms).
      let shut = false;
      for (let i = start[e]!, end = start[e + 1]!; i < end && spans[2 * i]! <= lo; i++) {
        if (spans[2 * i + 1]! >= hi) { shut = true; break; }
      }
      if (shut) { cut = true; continue; }
      seen[n] = gen;
      queue[tail++] = n;
    }
  }
  return cut ? tail : 0;
}

/**
 * Writes into out[o + k] the support along direction k, relative to the disc's centre (q[W_CX],
 * q[W_CZ]), of the flood's cells (g.queue[0 .. count): walkFlood) whose centres lie within
 * q[W_REACH] plus half a diagonal of it, the player's own cell always among them; each cell whole.
 */
export function floodSupports(g: WalkGrid, count: number, q: Float64Array, out: Float64Array, o: number): void {
  const cell = g.cellM, nx = g.nx, cx = q[W_CX]!, cz = q[W_CZ]!, queue = g.queue;
  const lim = q[W_REACH]! + cell * S, lim2 = lim * lim;
  let m0 = -Infinity, m1 = -Infinity, m2 = -Infinity, m3 = -Infinity, m4 = -Infinity, m5 = -Infinity, m6 = -Infinity, m7 = -Infinity;
  for (let i = 0; i < count; i++) {
    const k = queue[i]!;
    const a = k % nx, j = (k - a) / nx;
    const px = g.minX + (a + 0.5) * cell - cx, pz = g.minZ + (j + 0.5) * cell - cz;
    if (i > 0 && px * px + pz * pz > lim2) continue;
    if (px > m0) m0 = px;
    if (-px > m4) m4 = -px;
    if (pz > m2) m2 = pz;
    if (-pz > m6) m6 = -pz;
    const u = S * (px + pz), w = S * (pz - px);
    if (u > m1) m1 = u;
    if (-u > m5) m5 = -u;
    if (w > m3) m3 = w;
    if (-w > m7) m7 = -w;
  }
  // Each cell whole: its square's support along an axis is half a side, along a diagonal half a diagonal.
  const h = 0.5 * cell, hd = cell * S;
  out[o] = m0 + h; out[o + 1] = m1 + hd; out[o + 2] = m2 + h; out[o + 3] = m3 + hd;
  out[o + 4] = m4 + h; out[o + 5] = m5 + hd; out[o + 6] = m6 + h; out[o + 7] = m7 + hd;
}
