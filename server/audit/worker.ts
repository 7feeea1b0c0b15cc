/**
 * Worker thread of the audit. Stays alive between audits (the pool in ./audit.ts reuses it, so its
 * JIT stays warm): each message carries one job -- the log's bytes (a SharedArrayBuffer, not
 * copied), the world's buffer, the header and this shard's shooters -- and is answered with
 * progress messages and the shard's result (the rows' buffer transferred, not copied).
 */
import { parentPort } from 'node:worker_threads';
import { World } from '../../shared/world/world';
import type { FrameReadResult, FrameRef } from '../../shared/matchlog/frame';
import { runShard } from './shard';
import type { WorkerJob } from './jobs';

// The last world built, by hash: consecutive audits of one level skip rebuilding it.
let cached: { hash: string; world: World } | null = null;

parentPort!.on('message', async (job: WorkerJob) => {
  try {
    if (cached === null || cached.hash !== job.worldHash) cached = { hash: job.worldHash, world: World.fromBuffer(job.world, { expectedHash: job.worldHash }) };
    const bytes = new Uint8Array(job.log, 0, job.logLength);
    const flat = new Float64Array(job.frames, 0, job.frameCount * 4);
    const list: FrameRef[] = [];
    for (let i = 0; i < job.frameCount; i++) {
      list.push({ type: flat[i * 4]!, offset: flat[i * 4 + 1]!, payloadOffset: flat[i * 4 + 2]!, payloadLength: flat[i * 4 + 3]! });
    }
    const frames: FrameReadResult = { version: job.version, frames: list, truncated: false, truncatedAt: job.logLength, truncation: null, corrupt: [] };
    const result = await runShard(bytes, cached.world, job.header, {
      ...job.shard,
      shooters: job.shard.shooters === null ? null : new Set(job.shard.shooters),
      onProgress: (shots) => parentPort!.postMessage({ id: job.id, type: 'progress', shots }),
    }, frames, job.rig, job.observer);
    const rows = result.rows.slice();
    // frames are large and identical across shards: the main thread reads its own copy.
    parentPort!.postMessage({ id: job.id, type: 'done', result: { ...result, frames: null, rows } }, [rows.buffer]);
  } catch (e) {
    parentPort!.postMessage({ id: job.id, type: 'error', message: (e as Error).stack ?? String(e) });
  }
});
