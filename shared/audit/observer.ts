/**
 * What the audit replay hands out as it goes: the histories it feeds, the tick slot poses it
 * decodes, and the ReplayObserver hook that sees every tick slot and every judged shot and fills
 * the rows' observed columns (server/behaviour's measures are one observer; the replay knows none).
 */
import type { PelletResults } from '../validate/pelletVerdict';

/** A history the replay can feed (shared/lagcomp/history.ts PlayerHistory). */
export interface ReplayHistory {
  record(tick: number, timeMs: number, pose: ReplayPose): number;
  clear(): void;
}

export interface ReplayPose {
  x: number; y: number; z: number; qx: number; qy: number; qz: number; qw: number; clip: number; time: number; alive: boolean; epoch: number;
  /** Eye height above the root, metres (NaN: the rules' eyeHeightM; always NaN before format 7). */
  eyeHeight: number;
  /** The newest input's stamp, ms (NaN unknown; always NaN before format 7, whose rules do not read it). */
  stampMs: number;
}

/**
 * A tick record's slot as the replay decoded it: the pose recorded into the history, and what the
 * log says of the player's view and input stream that tick.
 */
export interface TickSlotPose extends ReplayPose {
  /** The view direction the movement step applied (unit; NaN before format 4). */
  vx: number; vy: number; vz: number;
  /** Input messages taken and movement steps taken that tick (NaN unknown). */
  inputs: number; steps: number;
  /** When the view was aimed, on the client's clock, ms (NaN unknown: before format 6, or unstamped inputs). */
  viewTimeMs: number;
}

/** A weapon message as an observer sees it, once judged (one scratch object, valid during the call). */
export interface ObservedShot {
  shooter: number;
  /** A fire whose segment decoded (switches, reloads and malformed messages are not). */
  fired: boolean;
  /** The player the verdict hit, -1 none. */
  hitTarget: number;
  /** The player the message claims (-1 none or undecodable). */
  claimedTarget: number;
  receivedMs: number;
  /** The action time the message claims (NaN when it did not decode). */
  actionTimeMs: number;
  /** The time the targets were rewound to (NaN when rejected before the time step). */
  rewindTimeMs: number;
  /** The segment (NaN unless fired). */
  sx: number; sy: number; sz: number; ex: number; ey: number; ez: number;
  /** How the verdict judged each pellet (a pattern pull's stops as the server rebuilt them; count 0 when none was judged). */
  pellets: Readonly<PelletResults> | null;
  /** Points of the rewound bodies (bodyPoint.ts BodyPoints.at), as the verdict posed them. */
  body: { at(out: Float64Array, slot: number, timeMs: number, zone: number): boolean } | null;
}

/**
 * Sees the replay as it goes, in log order: each tick's slots (after the history recorded them) and
 * each shot after its row is written, to fill the row's observed columns
 * [o + ShotCol.OBSERVED, o + ShotCol.OBSERVED + OBSERVED_COLUMNS). Without one those are NaN.
 */
export interface ReplayObserver {
  beginTick(tickMs: number): void;
  slot(slot: number, pose: Readonly<TickSlotPose>): void;
  endTick(tickMs: number): void;
  shot(rows: Float64Array, o: number, shot: Readonly<ObservedShot>): void;
}
