/**
 * The poses of one tick (HitregMatch.endTick): each present player's pose read from the game's
 * state through its adapter (poses.ts), recorded into the player's history, and written as the
 * player's row of the tick record (recorder.ts TickPose). The adapter's output, the pose and the
 * rows are reused tick after tick.
 */
import { createPlayerPose, type PlayerPose } from '../../shared/lagcomp/pose';
import { RecordResult, type PlayerHistory } from '../../shared/lagcomp/history';
import { createPoseInput, poseFromInput, resetPoseInput, writeTickRow, type PoseAdapter } from './poses';
import { TICK_POSE_STRIDE } from './recorder';
import type { MatchPlayer } from './player';

export class TickPoses<Id> {
  /** The tick record's poses: TICK_POSE_STRIDE numbers per slot, all 0 for a slot not recorded. */
  readonly rows: Float64Array;
  private readonly input = createPoseInput();
  private readonly pose: PlayerPose = createPlayerPose();

  constructor(
    private readonly adapter: PoseAdapter<Id>,
    maxPlayers: number,
    private readonly problem: (message: string, error?: unknown) => void,
  ) {
    this.rows = new Float64Array(maxPlayers * TICK_POSE_STRIDE);
  }

  /** A new tick: no slot recorded yet. */
  clear(): void {
    this.rows.fill(0);
  }

  /**
   * Player `p`'s pose at tick `tick`, match ms `t`, into `history` and the player's row. False when
   * the adapter threw (nothing recorded); a pose the history refused is reported, its row written.
   */
  record(p: MatchPlayer<Id>, history: PlayerHistory, tick: number, t: number): boolean {
    const input = this.input;
    resetPoseInput(input);
    try {
      this.adapter(p.id, input);
    } catch (e) {
      this.problem(`the pose adapter threw for player ${String(p.id)}; its pose is not recorded this tick`, e);
      return false;
    }
    const pose = poseFromInput(this.pose, input, p.alive, p.epoch);
    const r = history.record(tick, t, pose);
    if (r !== RecordResult.OK) this.problem(`player ${String(p.id)}'s pose was refused (${recordResultName(r)}): x, y, z must be finite, the quaternion unit, the clip an integer 0..255`);
    writeTickRow(this.rows, p.slot, pose, input);
    return true;
  }
}

function recordResultName(r: number): string {
  for (const [k, v] of Object.entries(RecordResult)) if (v === r) return k;
  return String(r);
}
