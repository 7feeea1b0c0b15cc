/**
 * Casting a pair's lines for fog of war (./fog): the first clear line between two regions (./rays),
 * with the hints that make a hidden pair cheap and the shortcut that skips lines a convex piece of
 * the level is known to block.
 *
 * Hints (none changes a verdict): each ray tries a few triangles before the BVH (bvhAnyHitCached):
 * the one that blocked the same line of the pair at its last test (./lineMemory), the four that
 * blocked the latest rays, and the triangles across the edges of the remembered one.
 *
 * Shortcut (exact): the lines come in families whose extreme lines bound them (./rays): the 16
 * matched corners bound every segment between the two regions, the matched grid's four corner lines
 * bound the grid, and the crossing lines' two outer lines (both chords' left ends, both right ends)
 * bound the crossing lines. When every extreme line of a family meets one convex piece (a triangle, or
 * a convex coplanar quad of two: ./pieces), the separating-plane argument of ./rays says every line
 * of the family meets it, so the rest are not cast; the 16 corners on one piece decide the pair
 * hidden. A line tested against the piece alone counts as a ray. Which piece is tried comes from
 * the hints, so the ray count may depend on them; the verdict does not.
 */
import { bvhAnyHitCached, bvhHintHit, type BvhArrays } from '../bvh/traverse';
import { edgeNeighbours, LineMemory } from './lineMemory';
import { convexPartners } from './pieces';
import { FIXED_RAYS, G_CROSS, G_CROSS_LAT, G_LAT, G_PARTS, G_VERT, rayCount, rayEnds } from './rays';

/**
 * The world query fog of war needs: is the segment blocked? shared/world/world.ts World has it, and
 * its BVH arrays, which are then queried directly with the segment in an array (the same query
 * World.anyHit makes, without six double arguments V8 would box on every call).
 */
export interface FogWorld {
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
  arrays?(): BvhArrays;
}

/** Triangles kept as likely occluders. */
const OCCLUDERS = 4;
/** Most lines of a pair whose blocking triangles are remembered (./lineMemory), and records per player slot. */
const LINE_MEMORY_WIDTH = 256, LINE_MEMORY_PER_SLOT = 8;

export class FogLines {
  /** Rays cast since the caller last set it to 0. */
  rays = 0;
  private readonly seg = new Float64Array(7);
  private readonly bvh: BvhArrays | null;
  /**
   * Tried before the tree (-1: none): at 0 the triangle that blocked this line at its pair's last test
   * (./lineMemory); at 1..OCCLUDERS the triangles that blocked the latest rays, newest first (most
   * rays of a hidden pair meet one wall); then the three across the edges of the one at 0.
   */
  private readonly occluders = new Int32Array(1 + OCCLUDERS + 3).fill(-1);
  /** The triangles across each edge of each triangle (./lineMemory edgeNeighbours), and each one's convex partner (./pieces). */
  private readonly neighbours: Int32Array;
  private readonly partners: Int32Array;
  /** Hidden pairs' blocking triangles per line (null without the BVH arrays), and the entry of the line being cast (-1: none). */
  private readonly lines: LineMemory | null;
  private lineAt = -1;
  /** The triangle the last blocked ray met (-1: unknown), and the piece of the family being cast (its triangles; -1: none yet). */
  private lastTri = -1;
  private readonly piece = new Int32Array(2).fill(-1);
  /** 1 while every extreme line of the family so far met the piece. */
  private common = 0;
  private mem = -1;
  private width = 0;
  /** The line the last clear() that returned true tested. */
  private found = -1;

  constructor(private readonly world: FogWorld, pairs: number, slots: number, mostLines: number) {
    this.bvh = typeof world.arrays === 'function' ? world.arrays() : null;
    this.neighbours = this.bvh === null ? new Int32Array(0) : edgeNeighbours(this.bvh.tris);
    this.partners = this.bvh === null ? new Int32Array(0) : convexPartners(this.bvh.verts, this.bvh.tris, this.neighbours);
    this.lines = this.bvh === null ? null : new LineMemory(pairs, Math.min(pairs, LINE_MEMORY_PER_SLOT * slots), Math.min(mostLines, LINE_MEMORY_WIDTH));
  }

  /** Pair p's remembered lines dropped. */
  release(p: number): void {
    if (this.lines !== null) this.lines.release(p);
  }

  /**
   * The first clear line between the regions in r (grid g; line `first` tried first), or -1. For
   * pair p (-1: none) the lines' blocking triangles are remembered (./lineMemory) once one more line
   * than the first is cast: a pair found visible by that line keeps no record.
   */
  anyClear(r: Float64Array, g: Float64Array, first: number, p: number): number {
    const count = rayCount(g);
    this.lineAt = -1;
    this.mem = -1;
    this.width = 0;
    if (first >= 0 && first < count && this.clear(r, g, first, false)) return first;
    if (p >= 0 && this.lines !== null) {
      this.mem = this.lines.acquire(p);
      this.width = this.lines.width;
    }
    // The aimed lines, then the matched corners: on one piece, every line between the regions is blocked.
    for (let i = 0; i < 2; i++) if (i !== first && this.clear(r, g, i, false)) return i;
    this.startFamily();
    for (let i = 2; i < FIXED_RAYS; i++) if (this.clear(r, g, i, true)) return i;
    if (this.common === 1) return -1;
    // The matched grid: its four corner lines, then the rest unless those met one piece.
    const lat = g[G_LAT]!, vert = g[G_VERT]!, cells = lat * vert, base = FIXED_RAYS;
    const c0 = base, c1 = base + lat - 1, c2 = base + cells - lat, c3 = base + cells - 1;
    this.startFamily();
    if (this.clear(r, g, c0, true) || this.clear(r, g, c1, true) || this.clear(r, g, c2, true) || this.clear(r, g, c3, true)) return this.found;
    if (this.common !== 1) {
      for (let i = base; i < base + cells; i++) {
        if (i === first || i === c0 || i === c1 || i === c2 || i === c3) continue;
        if (this.clear(r, g, i, false)) return i;
      }
    }
    // The fans, if any.
    const crossBase = base + g[G_PARTS]! * cells;
    for (let i = base + cells; i < crossBase; i++) if (i !== first && this.clear(r, g, i, false)) return i;
    if (g[G_CROSS] !== 1) return -1;
    // The crossing lines: the two outer ones, then the rest unless those met one piece.
    const n = g[G_CROSS_LAT]!, x0 = crossBase, x1 = crossBase + n * n - 1;
    this.startFamily();
    if (this.clear(r, g, x0, true) || this.clear(r, g, x1, true)) return this.found;
    if (this.common === 1) return -1;
    for (let i = x0 + 1; i < x1; i++) if (i !== first && this.clear(r, g, i, false)) return i;
    return -1;
  }

  private startFamily(): void {
    this.common = 1;
    this.piece[0] = -1;
    this.piece[1] = -1;
  }

  /**
   * Whether line i is clear. An extreme line of a family (extreme true) is first tested against the
   * family's piece; one not on it ends the family's shortcut; the first one blocked sets the piece.
   */
  private clear(r: Float64Array, g: Float64Array, i: number, extreme: boolean): boolean {
    const seg = this.seg;
    rayEnds(seg, i, r, g);
    this.lineAt = i < this.width ? this.mem + i : -1;
    if (extreme && this.common === 1 && this.piece[0] >= 0 && this.bvh !== null) {
      if (bvhHintHit(this.bvh, seg, this.piece, 2) >= 0) {
        this.rays++;
        return false;
      }
      this.common = 0;
    }
    if (!this.blocked()) {
      this.found = i;
      return true;
    }
    if (extreme && this.common === 1 && this.piece[0] < 0) {
      const t = this.lastTri;
      if (t >= 0) {
        this.piece[0] = t;
        this.piece[1] = this.partners[t / 3]!;
      } else this.common = 0;
    }
    return false;
  }

  /**
   * Whether the segment in seg meets the level (one ray): the line's remembered triangle (at lineAt)
   * and the occluders are tried first; the triangle met is remembered and joins the front of the occluders.
   */
  private blocked(): boolean {
    this.rays++;
    const seg = this.seg;
    this.lastTri = -1;
    if (this.bvh === null || this.lines === null) return this.world.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!);
    const occ = this.occluders, at = this.lineAt, tri = this.lines.tri, nb = this.neighbours;
    const last = at >= 0 ? tri[at]! : -1;
    occ[0] = last;
    const m = last >= 0 && last + 2 < nb.length ? 3 : 0;
    for (let j = 0; j < m; j++) occ[1 + OCCLUDERS + j] = nb[last + j]!;
    const k = bvhAnyHitCached(this.bvh, seg, occ, 1 + OCCLUDERS + m);
    if (at >= 0) tri[at] = k;
    if (k < 0) return false;
    this.lastTri = k;
    if (occ[1] !== k) {
      let j = 2;
      while (j < OCCLUDERS && occ[j] !== k) j++;
      for (; j > 1; j--) occ[j] = occ[j - 1]!;
      occ[1] = k;
    }
    return true;
  }
}
