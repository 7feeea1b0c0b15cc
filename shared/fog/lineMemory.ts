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
