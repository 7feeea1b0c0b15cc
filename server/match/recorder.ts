/**
 * What a match hands its recorder so an audit can replay every verdict bit for bit
 * (server/matchlog/recorder.ts writes it as the match log; a match works without one). Every call
 * carries plain numbers and records; typed arrays and records passed in are reused by the match
 * after the call returns, so a recorder must copy what it keeps (or serialise at once).
 *
 * Calls arrive in the order things happened: header once, then ticks, events and shots interleaved.
 * Replay recipe (shared/audit/replay.ts does it): build the World from the level (check
 * header.worldHash), the rig (header.rigHash), then createMatchScene(world, rig, header.scene); for
 * each tick record call scene.histories[slot].record(tick, timeMs, pose) for every present slot; on
 * a `join` event clear that slot's history; for each shot call
 *   validateShot(verdict, scene, header.validation, shot.bytes, shot.shooterBefore, shot.timing, shot.targets)
 * and compare with shot.verdict.
 */
import type { ShotTiming } from '../../shared/validate/shot';
import type { ShooterState, Verdict } from '../../shared/validate/verdict';
import type { MatchHeader } from '../../shared/matchlog/records';
import type { ShotInputTargets } from '../../shared/matchlog/shotRecord';
import type { FogChanges } from '../../shared/matchlog/fogRecord';
import type { FogFlightSends } from '../../shared/matchlog/fogFlightRecord';
import type { FogEndTells } from '../../shared/matchlog/fogEndRecord';
import type { FogBackfills } from '../../shared/matchlog/fogBackfillRecord';
import type { ProjectileBlastData, ProjectileEndData, ProjectileSpawnData } from '../../shared/projectile/flights';

/**
 * Pose layout in TickRecord.poses, per slot (TICK_POSE_STRIDE numbers): present (1/0), x, y, z, qx,
 * qy, qz, qw, clip, time, alive (1/0), epoch -- what shots are judged against -- then, each NaN
 * when the game does not say, the view direction (unit x, y, z), the input messages taken since the
 * previous tick, the movement steps the tick took (1 a tick; several when it caught up inputs TCP
 * held back; 0 while a client's commands are late) -- read by the behaviour measures only -- the
 * stamp of the newest input stepped (on the client's estimate of the server clock, ms: where a
 * shot's eye path ends, and when the view was aimed), and last the eye height above the root (NaN:
 * the rules' eyeHeightM).
 */
export const TICK_POSE_STRIDE = 19;
export const TickPose = {
  PRESENT: 0, X: 1, Y: 2, Z: 3, QX: 4, QY: 5, QZ: 6, QW: 7, CLIP: 8, TIME: 9, ALIVE: 10, EPOCH: 11,
  VIEW_X: 12, VIEW_Y: 13, VIEW_Z: 14, INPUTS: 15, STEPS: 16, STAMP: 17, EYE: 18,
} as const;

export type { MatchHeader, FogChanges, FogFlightSends, FogEndTells, FogBackfills };
export { HEADER_LAYOUT_VERSION } from '../../shared/matchlog/records';

export interface TickRecord {
  tick: number;
  /** Server ms of this snapshot. */
  timeMs: number;
  /** maxPlayers * TICK_POSE_STRIDE numbers; reused by the room after the call. */
  poses: Float64Array;
}

export interface ShotRecord {
  /**
   * The payload exactly as received: a copy of the bytes (oversized ones included: the socket caps
   * messages at 4 KB), or null if it was not bytes at all (validateShot gives null the same verdict,
   * MALFORMED, as any non-bytes value).
   */
  bytes: Uint8Array | null;
  /** When `bytes` is null: typeof of what arrived (for the log). */
  nonBytesType: string | null;
  shooterBefore: ShooterState;
  timing: ShotTiming;
  /** Who could be hit (ShotTargets as the pipeline read them), by slot. */
  targets: ShotInputTargets;
  verdict: Verdict;
  /** Health of the target after the verdict was applied (-1 when no target). */
  targetHealthAfter: number;
  killed: boolean;
  /** Per hit of verdict.hits: the target's health after it (-1 when not applied) and whether it killed. */
  hitHealthAfter: number[];
  hitKilled: boolean[];
}

export const MatchEventKind = {
  JOIN: 'join', LEAVE: 'leave', DEATH: 'death', RESPAWN: 'respawn', DROP: 'drop', RECONNECT: 'reconnect', THROTTLED: 'throttled',
} as const;
export type MatchEventKind = (typeof MatchEventKind)[keyof typeof MatchEventKind];

export interface MatchEvent {
  kind: MatchEventKind;
  slot: number;
  timeMs: number;
  /** respawn: the spawn position; death: the killer's slot in `other`; throttled: messages dropped unjudged in `other`. */
  x?: number;
  y?: number;
  z?: number;
  other?: number;
}

export interface MatchRecorder {
  header(h: MatchHeader): void;
  tick(t: TickRecord): void;
  shot(s: ShotRecord): void;
  event(e: MatchEvent): void;
  /**
   * Projectiles (shared/projectile/flights.ts): a spawn after its launch's shot record, then each
   * flight end (after the tick record whose step ended it, or right after the spawn when its
   * catch-up did) followed by its blast. Optional: a recorder without them logs no projectiles.
   */
  projectileSpawn?(s: ProjectileSpawnData): void;
  projectileEnd?(e: ProjectileEndData): void;
  projectileBlast?(b: ProjectileBlastData): void;
  /**
   * What a fog of war (FogFilter) started or stopped sending to whom after a tick: right after that
   * tick's record, only when something changed (the arrays are reused: copy or serialise at once).
   */
  fog?(c: FogChanges): void;
  /**
   * The projectiles a fog of war (FogFilter) newly sent to whom after a tick: after that tick's
   * record (and its fog record), only when a flight was newly sent (arrays reused, as for fog).
   */
  fogFlights?(c: FogFlightSends): void;
  /** Who a fog of war (FogFilter.tellEnd) let the game tell a projectile's end, and how (arrays reused, as for fog). */
  fogEnds?(c: FogEndTells): void;
  /** The backfills a fog of war (FogFilter.backfillFor) handed the game after a tick: after its fog record (arrays reused, as for fog). */
  fogBackfills?(c: FogBackfills): void;
  /** Who joined on a slot: right after its join event (`playerId` at most 128 UTF-8 bytes, no control characters). */
  identity?(i: { slot: number; playerId: string; verified: boolean }): void;
  /** Called when the room is disposed; may flush asynchronously. */
  close(): void | Promise<void>;
}
