/**
 * One replay shard: rebuilds the match's scene from the log header and replays the log for a set
 * of shooters. Runs in the main thread (one worker) or inside each worker thread (./worker.ts):
 * the same function either way, so a parallel audit cannot drift from a serial one.
 */
import { World } from '../../shared/world/world';
import { MANNEQUIN_RIG } from '../rig/mannequin';
import type { Rig } from '../../shared/rig/rig';
import { replayMatchLog, type ReplayOptions, type ReplayResult } from '../../shared/audit/replay';
import type { FrameReadResult } from '../../shared/audit/frame';
import type { ValidationConfig } from '../../shared/validate/shot';
import { createMatchScene, type SceneOptions } from '../../shared/validate/scene';

/** The header fields the replay needs (MatchHeader as the room wrote it). */
export interface ReplayHeader {
  maxPlayers: number;
  tickRate: number;
  levelPath: string;
  worldHash: string;
  rigHash: string;
  validation: ValidationConfig;
  scene: SceneOptions;
  [key: string]: unknown;
}

/** Checks that the header has what the replay reads; returns what is missing, or null. */
export function headerProblem(h: Record<string, unknown> | null): string | null {
  if (h === null) return 'the log has no readable header record: nothing to rebuild the match from';
  for (const k of ['maxPlayers', 'worldHash', 'rigHash', 'validation', 'scene'] as const) {
    if (h[k] === undefined) return `the header lacks "${k}": written by another program or version?`;
  }
  return null;
}

export function runShard(
  bytes: Uint8Array,
  world: World,
  header: ReplayHeader,
  options: Partial<ReplayOptions>,
  frames?: FrameReadResult,
  rig: Rig = MANNEQUIN_RIG,
): ReplayResult {
  const scene = createMatchScene(world, rig, header.scene);
  const config: ValidationConfig = header.validation;
  return replayMatchLog(bytes, scene, config, world, options, () => performance.now(), frames);
}
