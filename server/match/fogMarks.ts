/**
 * FogMarks: marks a game leaves at fixed points (bullet holes, decals, where a sound came from) under
 * a FogFilter's fog of war (part of "hitreg/server"). A mark made by a player withheld from a viewer
 * would tell that viewer where the player is busy (a hole appearing on a wall out of its sight), so
 * a mark reaches a viewer when:
 * - at once (add): the viewer is its source, is sent everyone (FogFilter.setSeeAll), or is sent its
 *   source (FogFilter.isSent: the viewer may see the player making it);
 * - later (update): the viewer may see the point (FogOfWar.seesPoint, the mark's radius around it:
 *   the same lines and guarantees as for an enemy's body, over the viewer's horizons).
 * Once sent, sent until the mark is dropped (add overwrites the oldest row when all are taken). The
 * later tests share a ray budget per update (raysPerUpdate, round robin over the pending (mark,
 * viewer) pairs, so every pair is tested again within a bounded number of updates): a mark out of a
 * viewer's sight may reach it some updates after it could first be seen. Marks are decoration: a
 * late one is drawn late, a withheld enemy is never placed by one.
 *
 * Changes: after add() or update(), changeCount entries (changeViewer[i], changeMark[i]: the row
 * newly sent to that viewer), for the game to map onto its per-client filter (Colyseus: view.add of
 * the mark's schema). A viewer's slot that changes hands (resetViewer) gets every live mark again
 * by the same rules. Allocation-free per call: flat arrays sized at construction.
 *
 *   const marks = new FogMarks(fog, { capacity: 64 });
 *   shot:  const row = marks.add(x, y, z, 0.05, shooterSlot); holeOfRow[row] = hole; apply(marks);
 *   tick:  fog.update(); marks.update(); apply(marks);
 */
import { Q_GRAVITY, Q_LEAD, Q_RADIUS, Q_TURNS, Q_VX, Q_VY, Q_VZ, Q_X, Q_Y, Q_Z } from '../../shared/fog/index';
import type { FogJudge } from './fogJudge';

export interface FogMarksOptions {
  /** Rows (the most marks alive at once; default 64). */
  capacity?: number;
  /** Rays the later tests may cast per update (default 512; about 0.2 ms on this project's level). */
  raysPerUpdate?: number;
}

export class FogMarks {
  readonly capacity: number;
  readonly viewers: number;
  /** Per row: live (1) or free; the point, its radius (m), and the slot that made it (-1: none). */
  readonly live: Uint8Array;
  readonly x: Float64Array; readonly y: Float64Array; readonly z: Float64Array;
  readonly radius: Float64Array;
  readonly source: Int16Array;
  /** Per row and viewer (row * viewers + viewer): 1 once sent. */
  readonly sent: Uint8Array;
  /** The last call's newly sent (viewer, row) pairs. */
  readonly changeViewer: Uint16Array;
  readonly changeMark: Uint16Array;
  changeCount = 0;
  readonly raysPerUpdate: number;
  /** Of the last update: pairs tested, and rays cast. */
  tested = 0;
  rays = 0;
  /** The row add() writes next, and where update()'s round robin goes on. */
  private next = 0;
  private cursor = 0;

  constructor(private readonly fog: FogJudge, options: FogMarksOptions = {}) {
    const c = options.capacity;
    this.capacity = c !== undefined && Number.isInteger(c) && c >= 1 && c <= 0xffff ? c : 64;
    const r = options.raysPerUpdate;
    this.raysPerUpdate = r !== undefined && r >= 0 && r < Infinity ? Math.floor(r) : 512;
    this.viewers = fog.capacity;
    const n = this.capacity, m = n * this.viewers;
    this.live = new Uint8Array(n);
    this.x = new Float64Array(n); this.y = new Float64Array(n); this.z = new Float64Array(n);
    this.radius = new Float64Array(n);
    this.source = new Int16Array(n).fill(-1);
    this.sent = new Uint8Array(m);
    this.changeViewer = new Uint16Array(m);
    this.changeMark = new Uint16Array(m);
  }

  /**
   * A new mark at (x, y, z), `radius` metres, made by the player in `sourceSlot` (-1: none): its row
   * (the oldest live one when all are taken: the caller drops what it kept for that row). Lists the
   * viewers it reaches at once. A point or radius that is not finite is sent to everyone.
   */
  add(x: number, y: number, z: number, radius: number, sourceSlot: number): number {
    const row = this.next;
    this.next = (row + 1) % this.capacity;
    this.live[row] = 1;
    this.x[row] = x; this.y[row] = y; this.z[row] = z;
    this.radius[row] = radius >= 0 ? radius : 0;
    this.source[row] = sourceSlot >= 0 && sourceSlot < this.viewers ? sourceSlot : -1;
    const nv = this.viewers, base = row * nv, fog = this.fog, src = this.source[row]!;
    const open = !(x - x === 0 && y - y === 0 && z - z === 0 && radius - radius === 0);
    this.changeCount = 0;
    for (let v = 0; v < nv; v++) {
      this.sent[base + v] = 0;
      if (!fog.hasViewer(v)) continue;
      if (open || v === src || fog.seeAll[v] === 1 || (src >= 0 && fog.isSent(v, src))) this.send(row, v);
    }
    return row;
  }

  /** Drops row `row` (nothing more is sent of it). */
  remove(row: number): void {
    if (!(row >= 0 && row < this.capacity)) return;
    this.live[row] = 0;
    this.sent.fill(0, row * this.viewers, (row + 1) * this.viewers);
  }

  /** The viewer's slot changed hands: every live mark is pending for it again. */
  resetViewer(slot: number): void {
    if (!(slot >= 0 && slot < this.viewers)) return;
    for (let row = 0; row < this.capacity; row++) this.sent[row * this.viewers + slot] = 0;
  }

  /**
   * After the FogFilter's update: sends what a viewer is now sent the source of, and tests pending
   * (mark, viewer) pairs with seesPoint, round robin, until raysPerUpdate rays are spent. Returns
   * changeCount.
   */
  update(): number {
    const nv = this.viewers, total = this.capacity * nv, filter = this.fog, fog = filter.fog, q = fog.point;
    this.changeCount = 0;
    this.tested = 0;
    const rays0 = fog.rays;
    let p = this.cursor;
    for (let k = 0; k < total; k++, p = p + 1 === total ? 0 : p + 1) {
      if (fog.rays - rays0 >= this.raysPerUpdate) break;
      if (this.sent[p] === 1) continue;
      const row = (p - (p % nv)) / nv, v = p % nv;
      if (this.live[row] === 0 || !filter.hasViewer(v)) continue;
      const src = this.source[row]!;
      if (v === src || filter.seeAll[v] === 1 || (src >= 0 && filter.isSent(v, src))) { this.send(row, v); continue; }
      q[Q_X] = this.x[row]!; q[Q_Y] = this.y[row]!; q[Q_Z] = this.z[row]!;
      q[Q_VX] = 0; q[Q_VY] = 0; q[Q_VZ] = 0; q[Q_GRAVITY] = 0; q[Q_LEAD] = 0; q[Q_TURNS] = 0;
      q[Q_RADIUS] = this.radius[row]!;
      this.tested++;
      if (fog.seesPoint(v)) this.send(row, v);
    }
    this.cursor = p;
    this.rays = fog.rays - rays0;
    return this.changeCount;
  }

  private send(row: number, v: number): void {
    this.sent[row * this.viewers + v] = 1;
    const i = this.changeCount++;
    this.changeViewer[i] = v;
    this.changeMark[i] = row;
  }
}
