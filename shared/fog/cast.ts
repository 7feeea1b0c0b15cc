/**
 * Casting a pair's lines for fog of war (./fog): the first clear line between two regions (./rays),
 * with the hints that make a hidden pair cheap and the shortcut that skips lines a convex piece of
 * the level is known to block.
 *
 * Hints (none changes a verdict): each ray but fixedClear's tries a few triangles before the BVH (bvhAnyHitCached):
 * the one that blocked the same line of the pair at its last test (./lineMemory), the four that
 * blocked the latest rays, and the triangles across the edges of the remembered one; then the
 * subtree a few levels above the remembered one (else the newest occluder), then the whole tree.
 *
 * Shortcut (exact): lines come in families bounded by their extreme lines (./rays): the 16 matched
 * corners bound every segment between the two regions; a rectangle of the matched grid's (lateral,
 * vertical) indices is bounded by its four corner lines; a rectangle of the crossing lines' (eye
 * chord, body chord) indices by its two parallel corners (both low ends, both high ends: the chords
 * move along the same direction). When the extreme lines all meet one convex piece (a coplanar
 * convex polygon of a few triangles, or a closed convex solid such as a crate or a wall built of
 * boxes: ./pieces), the separating-plane argument of ./rays says every line of the family meets it,
 * so the rest are not cast: the 16 corners on one piece decide the pair hidden,
 * and the grid and crossing lines are split into rectangles until each lies on one piece or has no
 * line inside (./family). A rectangle of crossing lines whose two parallel corners meet no one piece
 * is also blocked whole when a chain of the level's triangles, cut by the plane all its lines lie in,
 * joins one corner line to the other inside the lines' quadrilateral (./chain: a curved or bent
 * wall, a thick wall's face, which no convex piece holds). A line tested against a piece alone counts as a ray. Which piece is tried
 * comes from the hints, so the ray count may depend on them; the verdict does not, but for a line
 * lying wholly inside a solid (a region reaching into a wall from each side): the shortcut may call
 * it blocked where casting calls it clear. Both its ends are where no eye can be (a player's radius
 * keeps its eye out of walls), so it shows nothing either way.
 */
import { leafAncestors } from '../bvh/ancestors';
import { bvhAnyHitCached, type BvhArrays } from '../bvh/traverse';
import { ChainWalk } from './chain';
import { edgeNeighbours, LineMemory } from './lineMemory';
import { convexPieces, segmentMeetsPiece, type ConvexPieces } from './pieces';
import { AIMED_RAYS, FIXED_RAYS, familyEnds, G_CROSS, G_CROSS_LAT, G_CROSS_LAT_B, G_LAT, G_PARTS, G_VERT, rayCount, rayEnds } from './rays';

/**
 * The world query fog of war needs: is the segment blocked? shared/world/world.ts World has it, and
 * its BVH arrays, which are then queried directly with the segment in an array (the same query
 * World.anyHit makes, without six double arguments V8 would box on every call).
 */
export interface FogWorld {
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
  arrays?(): BvhArrays;
}

/** Each level's edge neighbours and convex pieces, built once and shared by every FogOfWar on it (read only). */
const levels = new WeakMap<Int32Array, { neighbours: Int32Array; pieces: ConvexPieces; subtrees: Int32Array }>();

function levelOf(bvh: BvhArrays): { neighbours: Int32Array; pieces: ConvexPieces; subtrees: Int32Array } {
  let l = levels.get(bvh.tris);
  if (l === undefined) {
    const neighbours = edgeNeighbours(bvh.tris);
    l = { neighbours, pieces: convexPieces(bvh.verts, bvh.tris, neighbours), subtrees: leafAncestors(bvh, SUBTREE_LEVELS) };
    levels.set(bvh.tris, l);
  }
  return l;
}

/**
 * Levels above a blocking triangle's leaf whose subtree a line's next ray tries before the whole tree
 * when no hint meets it (../bvh/ancestors): the next blocker is usually nearby. Of 2 to 5, 3 cost the
 * fog bench least.
 */
const SUBTREE_LEVELS = 3;
/** Triangles kept as likely occluders. */
const OCCLUDERS = 4;
/** Most lines of a pair whose blocking triangles are remembered (./lineMemory), and records per player slot. */
const LINE_MEMORY_WIDTH = 256, LINE_MEMORY_PER_SLOT = 8;

export class FogLines {
  /** Rays cast since the caller last set it to 0 (or clearCounts). */
  rays = 0;
  private readonly seg = new Float64Array(7);
  private readonly bvh: BvhArrays | null;
  /**
   * Tried before the tree (-1: none): at 0 the triangle that blocked this line at its pair's last test
   * (./lineMemory); at 1..OCCLUDERS the triangles that blocked the latest rays, newest first (most
   * rays of a hidden pair meet one wall); then the three across the edges of the one at 0.
   */
  private readonly occluders = new Int32Array(1 + OCCLUDERS + 3).fill(-1);
  /** The triangles across each edge of each triangle (./lineMemory edgeNeighbours), and the level's convex pieces (./pieces). */
  private readonly neighbours: Int32Array;
  private readonly pieces: ConvexPieces | null;
  /** Each triangle's subtree tried before the whole tree (../bvh/ancestors). */
  private readonly subtrees: Int32Array;
  /** The walk along the level's triangles that blocks a crossing family whole (./chain; null without the BVH arrays), and the two outer lines' ends. */
  private readonly chain: ChainWalk | null;
  private readonly lseg = new Float64Array(7);
  private readonly rseg = new Float64Array(7);
  /** Hidden pairs' blocking triangles per line (null without the BVH arrays), and the entry of the line being cast (-1: none). */
  private readonly lines: LineMemory | null;
  private lineAt = -1;
  /** The triangle the last blocked ray met (-1: unknown). */
  private lastTri = -1;
  /** Per line of the current call: decided blocked when knownGen equals gen, with the triangle it met (-1: unknown). */
  private readonly knownGen: Int32Array;
  private readonly knownTri: Int32Array;
  private gen = 0;
  /** The rectangles of a family still to try (./family), four numbers each. */
  private readonly stack = new Int32Array(4 * 64);
  private mem = -1;
  private width = 0;
  /** The line the last clear() that returned true tested. */
  private found = -1;
  /** A fixed line fixedClear found blocked, and its triangle: known blocked in the next anyClear call (on the same regions; -1: none). */
  private pending = -1;
  private pendingTri = -1;

  constructor(private readonly world: FogWorld, pairs: number, slots: number, mostLines: number) {
    this.bvh = typeof world.arrays === 'function' ? world.arrays() : null;
    const level = this.bvh === null ? null : levelOf(this.bvh);
    this.neighbours = level === null ? new Int32Array(0) : level.neighbours;
    this.pieces = level === null ? null : level.pieces;
    this.subtrees = level === null ? new Int32Array(0) : level.subtrees;
    this.chain = this.bvh === null ? null : new ChainWalk(this.bvh.verts, this.bvh.tris, this.neighbours);
    this.knownGen = new Int32Array(mostLines);
    this.knownTri = new Int32Array(mostLines);
    this.lines = this.bvh === null ? null : new LineMemory(pairs, Math.min(pairs, LINE_MEMORY_PER_SLOT * slots), Math.min(mostLines, LINE_MEMORY_WIDTH));
  }

  /** Triangles the chains crossed (./chain) since clearCounts. */
  get chainSteps(): number {
    return this.chain === null ? 0 : this.chain.steps;
  }

  /** Sets rays and chainSteps to 0. */
  clearCounts(): void {
    this.rays = 0;
    if (this.chain !== null) this.chain.steps = 0;
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
    // A new generation: no line of this call is known yet.
    this.gen = this.gen === 0x7fffffff ? 1 : this.gen + 1;
    if (this.pending >= 0) {
      this.knownGen[this.pending] = this.gen;
      this.knownTri[this.pending] = this.pendingTri;
      this.pending = -1;
    }
    if (first >= 0 && first < count && this.clear(r, g, first)) return first;
    if (p >= 0 && this.lines !== null) {
      this.mem = this.lines.acquire(p);
      this.width = this.lines.width;
    }
    // The aimed lines, then the matched corners: all 16 on one piece, every line between the regions is blocked.
    for (let i = 0; i < AIMED_RAYS; i++) if (i !== first && this.known(r, g, i)) return i;
    let t = -1, common = this.bvh !== null;
    for (let i = AIMED_RAYS; i < FIXED_RAYS; i++) {
      if (common && t >= 0 && this.onPiece(r, g, i, t)) continue;
      if (this.known(r, g, i)) return i;
      const ti = this.knownTri[i]!;
      if (t < 0 && ti >= 0) t = ti;
      else common = false;
    }
    if (common) return -1;
    // The matched grid (lateral x vertical), then the fans, then the crossing lines (each region's chord).
    const lat = g[G_LAT]!, vert = g[G_VERT]!, cells = lat * vert, base = FIXED_RAYS;
    let k = this.family(r, g, base, lat, lat - 1, vert - 1, false);
    if (k >= 0) return k;
    const crossBase = base + g[G_PARTS]! * cells;
    for (let i = base + cells; i < crossBase; i++) if (this.known(r, g, i)) return i;
    const n = g[G_CROSS_LAT]!, nb = g[G_CROSS_LAT_B]!, rows = g[G_CROSS]!;
    for (let row = 0; row < rows; row++) {
      k = this.family(r, g, crossBase + row * n * nb, n, n - 1, nb - 1, true);
      if (k >= 0) return k;
    }
    return -1;
  }

  /**
   * Whether fixed line i (< FIXED_RAYS: an aimed line or a matched corner, whose ends come from the
   * regions in r alone) is clear: one ray, no grid sized, no hints tried (a visible pair's
   * remembered line, often one of these, is mostly clear again, and a clear ray misses every hint).
   * Found blocked, it is known blocked in the next anyClear call, which must be on the same regions.
   */
  fixedClear(r: Float64Array, g: Float64Array, i: number): boolean {
    rayEnds(this.seg, i, r, g);
    this.lineAt = -1;
    if (!this.blocked(false)) return true;
    this.pending = i;
    this.pendingTri = this.lastTri;
    return false;
  }

  /**
   * The first clear line of a family over a rectangle of indices (line base + a + stride * b, a in
   * [0, aMax], b in [0, bMax]), or -1 when every one is blocked. A rectangle whose corner lines (for
   * the crossing lines, whose two chords move independently, the two parallel ones: (a0, b0) and (a1,
   * b1)) all meet one convex piece is blocked whole; else it is split in four (two when one side is a
   * single step) and the parts are tried in turn, down to rectangles with no line inside, whose lines
   * are cast. Lines already decided in this call are not cast again.
   */
  private family(r: Float64Array, g: Float64Array, base: number, stride: number, aMax: number, bMax: number, parallel: boolean): number {
    const st = this.stack;
    let sp = 0;
    st[sp++] = 0; st[sp++] = aMax; st[sp++] = 0; st[sp++] = bMax;
    while (sp > 0) {
      const b1 = st[--sp]!, b0 = st[--sp]!, a1 = st[--sp]!, a0 = st[--sp]!;
      const i00 = base + a0 + stride * b0, i11 = base + a1 + stride * b1;
      const i10 = base + a1 + stride * b0, i01 = base + a0 + stride * b1;
      if (a1 - a0 <= 1 && b1 - b0 <= 1) {
        // No line inside: cast the (up to) four.
        if (this.known(r, g, i00, a0, b0) || this.known(r, g, i11, a1, b1) || this.known(r, g, i10, a1, b0) || this.known(r, g, i01, a0, b1)) return this.found;
        continue;
      }
      if (this.known(r, g, i00, a0, b0) || this.known(r, g, i11, a1, b1)) return this.found;
      const t = this.knownTri[i00]!;
      let whole = t >= 0 && this.bvh !== null && this.onPiece(r, g, i11, t, a1, b1);
      if (whole && !parallel) whole = this.onPiece(r, g, i10, t, a1, b0) && this.onPiece(r, g, i01, t, a0, b1);
      // Crossing lines on no one piece: a chain of triangles from the low corner line to the high one, or back.
      if (!whole && parallel && this.chain !== null) whole = this.chained(r, g, i00, a0, b0, i11, a1, b1, t, this.knownTri[i11]!);
      if (whole) continue;
      if (sp + 16 > st.length) {
        // Deeper than the stack holds (not with the grid caps): every line of the rectangle.
        for (let b = b0; b <= b1; b++) for (let a = a0; a <= a1; a++) if (this.known(r, g, base + a + stride * b, a, b)) return this.found;
        continue;
      }
      const am = (a0 + a1) >> 1, bm = (b0 + b1) >> 1;
      const splitA = a1 - a0 > 1, splitB = b1 - b0 > 1;
      // Pushed in reverse so the parts are tried from (a0, b0) on.
      if (splitA && splitB) { st[sp++] = am; st[sp++] = a1; st[sp++] = bm; st[sp++] = b1; }
      if (splitB) { st[sp++] = a0; st[sp++] = splitA ? am : a1; st[sp++] = bm; st[sp++] = b1; }
      if (splitA) { st[sp++] = am; st[sp++] = a1; st[sp++] = b0; st[sp++] = splitB ? bm : b1; }
      st[sp++] = a0; st[sp++] = splitA ? am : a1; st[sp++] = b0; st[sp++] = splitB ? bm : b1;
    }
    return -1;
  }

  /**
   * Whether a chain of triangles (./chain) joins blocked lines i and j (a family of crossing lines'
   * two parallel corners, meeting triangles t and u) within their plane, from t or else from u. Not
   * from a triangle of a solid (a crate, a box wall): a chain on a solid reaches the other line
   * mostly where that line meets the solid, which the piece test tries; on the rooms level walks
   * from solids cost more time than the lines they saved.
   */
  private chained(r: Float64Array, g: Float64Array, i: number, ia: number, ib: number, j: number, ja: number, jb: number, t: number, u: number): boolean {
    const chain = this.chain!, of = this.pieces!.of, solids = this.pieces!.solids;
    const fromT = t >= 0 && of[t / 3]! >= solids, fromU = u >= 0 && u !== t && of[u / 3]! >= solids;
    if (!fromT && !fromU) return false;
    familyEnds(this.lseg, i, ia, ib, r, g);
    familyEnds(this.rseg, j, ja, jb, r, g);
    return (fromT && chain.blocksFamily(this.lseg, this.rseg, t)) || (fromU && chain.blocksFamily(this.rseg, this.lseg, u));
  }

  /**
   * Whether line i is clear (found = i), cast unless already decided blocked in this call. a, b: its
   * place in its family (./rays familyEnds) when the caller knows it, else a = -1.
   */
  private known(r: Float64Array, g: Float64Array, i: number, a = -1, b = 0): boolean {
    if (this.knownGen[i] === this.gen) return false;
    return this.clear(r, g, i, a, b);
  }

  /** Line i's ends into out (a, b as for known). */
  private ends(out: Float64Array, r: Float64Array, g: Float64Array, i: number, a: number, b: number): void {
    if (a >= 0) familyEnds(out, i, a, b, r, g);
    else rayEnds(out, i, r, g);
  }

  /** Whether line i meets the convex piece of triangle t (./pieces segmentMeetsPiece): one ray, tested against that piece alone. Marks it blocked when it does. */
  private onPiece(r: Float64Array, g: Float64Array, i: number, t: number, a = -1, b = 0): boolean {
    const of = this.pieces!.of, kt = this.knownTri[i]!, k = of[t / 3]!;
    if (this.knownGen[i] === this.gen && kt >= 0 && of[kt / 3] === k) return true;
    const seg = this.seg;
    this.ends(seg, r, g, i, a, b);
    this.rays++;
    if (!segmentMeetsPiece(this.pieces!, k, seg)) return false;
    if (this.knownGen[i] !== this.gen) {
      this.knownGen[i] = this.gen;
      this.knownTri[i] = t;
    }
    return true;
  }

  /** Whether line i is clear (found = i); a blocked one is marked decided, with the triangle it met. a, b as for known. */
  private clear(r: Float64Array, g: Float64Array, i: number, a = -1, b = 0): boolean {
    this.ends(this.seg, r, g, i, a, b);
    this.lineAt = i < this.width ? this.mem + i : -1;
    if (!this.blocked(true)) {
      this.found = i;
      return true;
    }
    this.knownGen[i] = this.gen;
    this.knownTri[i] = this.lastTri;
    return false;
  }

  /**
   * Whether the segment in seg meets the level (one ray): with `hints`, the line's remembered
   * triangle (at lineAt) and the occluders are tried first; the triangle met is remembered and joins
   * the front of the occluders.
   */
  private blocked(hints: boolean): boolean {
    this.rays++;
    const seg = this.seg;
    this.lastTri = -1;
    if (this.bvh === null || this.lines === null) return this.world.anyHit(seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!);
    const occ = this.occluders, at = this.lineAt, tri = this.lines.tri, nb = this.neighbours;
    const last = at >= 0 ? tri[at]! : -1;
    occ[0] = last;
    const m = last >= 0 && last + 2 < nb.length ? 3 : 0;
    for (let j = 0; j < m; j++) occ[1 + OCCLUDERS + j] = nb[last + j]!;
    const near = last >= 0 ? last : occ[1]!;
    const k = bvhAnyHitCached(this.bvh, seg, occ, hints ? 1 + OCCLUDERS + m : 0, hints && near >= 0 ? this.subtrees[near / 3]! : 0);
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
