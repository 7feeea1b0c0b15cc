/**
 * Bullet holes under fog of war: the fog state's `holes` are filtered per client (Colyseus
 * StateView), and hitreg/server FogMarks says which client gets which hole: at once the shooter,
 * debug clients and those sent the shooter; the others once the hole's point may be in their sight.
 * A hole made by a withheld shooter out of a client's sight so never tells that client where the
 * shooter is busy. Rows follow the holes array: both drop their oldest when full.
 */
import { FogMarks, type FogFilter } from '../match/index';
import type { BulletHole } from './schema';
import type { ArenaPlayer } from './player';

/** A hole's radius for the sight test, m (the decal, with room for its drawn size). */
const HOLE_RADIUS_M = 0.1;

export class FogHoles {
  private readonly marks: FogMarks;
  /** The hole of each row. */
  private readonly rows: (BulletHole | undefined)[];

  constructor(fog: FogFilter<string>, capacity: number, private readonly seats: readonly (ArenaPlayer | null)[]) {
    this.marks = new FogMarks(fog, { capacity });
    this.rows = new Array<BulletHole | undefined>(this.marks.capacity).fill(undefined);
  }

  /** A hole just pushed to the state, fired by the player in `shooterSlot`. */
  added(h: BulletHole, shooterSlot: number): void {
    const row = this.marks.add(h.x, h.y, h.z, HOLE_RADIUS_M, shooterSlot);
    this.rows[row] = h;
    this.apply();
  }

  /** A client took the slot: it gets the live holes by the same rules from the next update. */
  joined(slot: number): void {
    this.marks.resetViewer(slot);
  }

  /** After the fog's update, each tick. */
  update(): void {
    this.marks.update();
    this.apply();
  }

  private apply(): void {
    const m = this.marks;
    for (let i = 0; i < m.changeCount; i++) {
      const viewer = this.seats[m.changeViewer[i]!], h = this.rows[m.changeMark[i]!];
      if (viewer !== null && viewer !== undefined && viewer.view !== null && h !== undefined) viewer.view.add(h);
    }
  }
}
