/**
 * One replay shard: rebuilds the match's scene from the log header and replays the log for a set
 * of shooters, with the observer plugin's observer when one is given. Runs in the main thread (one
 * worker) or inside each worker thread (./worker.ts): the same function either way, so a parallel
 * audit cannot drift from a serial one.
 */
import type { World } from '../../shared/world/world';
import { MANNEQUIN_RIG } from '../rig/mannequin';
import type { Rig } from '../../shared/rig/rig';
import { replayMatchLog, type ReplayOptions, type ReplayResult } from '../../shared/audit/replay';
import type { FrameReadResult } from '../../shared/matchlog/frame';
import { createMatchScene } from '../../shared/validate/scene';
import type { ReplayHeader } from './jobs';
import { createObserver, type ObserverPlugin } from './plugin';

export type { ReplayHeader } from './jobs';

/** Checks that the header has what the replay reads; returns what is missing, or null. */
export function headerProblem(h: Record<string, unknown> | null): string | null {
  if (h === null) return 'the log has no readable header record: nothing to rebuild the match from';
  for (const k of ['maxPlayers', 'worldHash', 'rigHash', 'validation', 'scene'] as const) {
    if (h[k] === undefined) return `the header lacks "${k}": written by another program or version?`;
  }
  return null;
}

export async function runShard(
  bytes: Uint8Array,
  world: World,
  header: ReplayHeader,
  options: Partial<Omit<ReplayOptions, 'observer'>>,
  frames: FrameReadResult,
  rig: Rig = MANNEQUIN_RIG,
  plugin: ObserverPlugin | null = null,
): Promise<ReplayResult> {
  const scene = createMatchScene(world, rig, header.scene);
  const observer = plugin === null ? null : await createObserver(plugin, { slots: scene.histories.length, world, config: header.validation, version: frames.version });
  return replayMatchLog(bytes, scene, header.validation, { ...options, observer }, () => performance.now(), frames);
}
