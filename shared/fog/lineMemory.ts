/**
 * Which triangle blocked each line of a hidden pair when it was last tested (./fog): re-tested on
 * regions that moved a little, a line mostly meets the same triangle again, and one triangle test
 * costs a fraction of a walk down the level's tree. Only a hint: the ray still decides (the triangle
 * is tried with the traversal's own test before the tree), so what is remembered never changes a
 * verdict, only how fast it is reached.
 *
 * Layout: a pool of `slots` records of `width` Int32 each (a triangle's tris offset per line index,
 * -1: none), handed to pairs on demand. slotOf[pair] names a pair's record while owner[slot] still
 * names that pair; a released record goes on a free stack; when none is free the clock hand takes
 * the next record from its owner (who then starts again with no hints). Lines at index >= width have
 * no record. Nothing is allocated after construction.
 *
 * edgeNeighbours: the triangles across each triangle's edges, built once with the level, tried when a
 * line's remembered triangle is missed (the line slid onto the next triangle of the same wall).
 */

export class LineMemory {
  /** Int32 per record (line indices 0..width-1 are remembered). */
  readonly width: number;
  /** Per record, per line: the triangle (tris offset) that blocked the line, or -1. */
  readonly tri: Int32Array;
  private readonly slotOf: Int32Array;
  private readonly owner: Int32Array;
  private readonly free: Int32Array;
  private freeCount: number;
  private hand = 0;

  constructor(pairs: number, slots: number, width: number) {
    this.width = width;
    this.tri = new Int32Array(slots * width).fill(-1);
    this.slotOf = new Int32Array(pairs).fill(-1);
    this.owner = new Int32Array(slots).fill(-1);
    this.free = new Int32Array(slots);
    for (let s = 0; s < slots; s++) this.free[s] = slots - 1 - s;
    this.freeCount = slots;
  }

  /** The offset in tri of pair p's record, taken (cleared) when p has none. */
  acquire(p: number): number {
    const s = this.slotOf[p];
    if (s >= 0 && this.owner[s] === p) return s * this.width;
    let t: number;
    if (this.freeCount > 0) {
      t = this.free[--this.freeCount];
    } else {
      t = this.hand;
      this.hand = t + 1 < this.owner.length ? t + 1 : 0;
      const prev = this.owner[t];
      if (prev >= 0) this.slotOf[prev] = -1;
    }
    this.owner[t] = p;
    this.slotOf[p] = t;
    const o = t * this.width;
    this.tri.fill(-1, o, o + this.width);
    return o;
  }

  /** Gives pair p's record back (p's verdict turned visible, or p was forgotten). */
  release(p: number): void {
    const s = this.slotOf[p];
    if (s < 0) return;
    this.slotOf[p] = -1;
    if (this.owner[s] !== p) return;
    this.owner[s] = -1;
    this.free[this.freeCount++] = s;
  }
}

/**
 * For each triangle (tris offset t, three words per triangle as in ../bvh/traverse, vertex index in
 * the low 24 bits), the tris offsets of the triangles across its three edges at out[t..t+2] (-1:
 * none; of more than two on an edge, the first two are linked). A line that slid off the triangle it
 * met last time mostly meets one of these (a wall is several triangles). A level whose triangles
 * share no vertex indices simply has no neighbours.
 */
export function edgeNeighbours(tris: Int32Array): Int32Array {
  const out = new Int32Array(tris.length).fill(-1);
  const first = new Map<number, number>();
  const MASK = 0xffffff;
  for (let t = 0; t + 2 < tris.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = tris[t + k] & MASK, b = tris[t + (k === 2 ? 0 : k + 1)] & MASK;
      const key = a < b ? a * 16777216 + b : b * 16777216 + a;
      const seen = first.get(key);
      if (seen === undefined) {
        first.set(key, t + k);
      } else if (seen >= 0) {
        // seen: the word of the first triangle's edge. A third triangle on the edge is left unlinked.
        out[seen] = t;
        out[t + k] = seen - (seen % 3);
        first.set(key, -1);
      }
    }
  }
  return out;
}
