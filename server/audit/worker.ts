/**
 * Worker thread of the audit: receives the log's bytes (a SharedArrayBuffer, not copied), the
 * world's buffer, the header and its shooters; replays them with runShard and posts progress and
 * the result (the rows' buffer transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { World } from '../../shared/world/world';
import { runShard, type ReplayHeader } from './shard';
import type { ReplayOptions } from '../../shared/audit/replay';

export interface WorkerInput {
  log: SharedArrayBuffer;
  logLength: number;
  world: ArrayBuffer;
  header: ReplayHeader;
  shooters: number[];
  replay: Omit<Partial<ReplayOptions>, 'shooters' | 'onProgress'>;
}

const input = workerData as WorkerInput;
const world = World.fromBuffer(input.world);
const bytes = new Uint8Array(input.log, 0, input.logLength);
const result = runShard(bytes, world, input.header, {
  ...input.replay,
  shooters: new Set(input.shooters),
  onProgress: (shots) => parentPort!.postMessage({ type: 'progress', shots }),
});
const rows = result.rows.slice();
// frames are large and identical across shards: the main thread reads its own copy.
parentPort!.postMessage(
  { type: 'done', result: { ...result, frames: null, rows } },
  [rows.buffer],
);
