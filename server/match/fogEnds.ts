/**
 * Who a game may tell a projectile's end under fog of war, decided once per end for every viewer
 * (FogFilter.tellEnd): FogFilter.endSeen says whether a viewer may be told at all; a told viewer
 * is told the struck player only when it is sent that player (END_STRUCK_MASKED otherwise), and
 * only the victims it is sent (END_VICTIMS_MASKED when some are left out). The answer goes to the
 * match log as a fog ends record (shared/matchlog/fogEndRecord.ts), so the audit and the replay
 * viewer can say who was told each end, and how.
 */
import { END_STRUCK_MASKED, END_VICTIMS_MASKED, type FogEndTells } from '../../shared/matchlog/fogEndRecord';
import type { FogJudge } from './fogJudge';

/** What tellEnd reads of a projectile's end (a ProjectileOutcome has it). */
export interface ProjectileEndLike {
  id: number;
  shooterSlot: number;
  /** The player the projectile itself struck, -1 for none. */
  player: number;
  weapon: number;
  x: number; y: number; z: number;
  timeMs: number;
  exploded: boolean;
}

/** The filter's side tellEnd needs (FogFilter has it). */
export interface EndJudge extends FogJudge {
  endSeen(viewerSlot: number, flightId: number, shooterSlot: number, struck: number, weapon: number, x: number, y: number, z: number, exploded: boolean): boolean;
}

/** The told viewers of one end, in flat arrays sized for the match's slots. */
export interface EndTold extends FogEndTells {
  viewer: Uint16Array;
  flags: Uint8Array;
}

export function createEndTold(capacity: number): EndTold {
  return { timeMs: Number.NaN, id: -1, count: 0, viewer: new Uint16Array(capacity), flags: new Uint8Array(capacity) };
}

/** Fills `out` with the viewers of `judge` that may be told `end` and their flags; returns the count. */
export function decideEndTold(out: EndTold, judge: EndJudge, end: ProjectileEndLike, victims: ArrayLike<number>): number {
  let count = 0;
  out.timeMs = end.timeMs;
  out.id = end.id;
  for (let v = 0; v < judge.capacity; v++) {
    if (!judge.hasViewer(v)) continue;
    if (!judge.endSeen(v, end.id, end.shooterSlot, end.player, end.weapon, end.x, end.y, end.z, end.exploded)) continue;
    let flags = 0;
    if (v !== end.shooterSlot) {
      if (end.player >= 0 && !judge.isSent(v, end.player)) flags |= END_STRUCK_MASKED;
      for (let i = 0; i < victims.length; i++) {
        if (!judge.isSent(v, victims[i]!)) { flags |= END_VICTIMS_MASKED; break; }
      }
    }
    out.viewer[count] = v;
    out.flags[count] = flags;
    count++;
  }
  out.count = count;
  return count;
}
