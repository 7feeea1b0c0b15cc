/**
 * The integrity audit of one match log: frame it (torn tail cut, corruption named), check the
 * header's world and rig hashes against what is loaded here, replay every shot (in pooled worker
 * threads, split into shot ranges or by shooter), compare verdicts bit for bit, and check each
 * shooter's seq chain over the merged rows; re-fly every projectile and check every death's cause
 * in one serial walk (format 10 on, shared/audit/projectiles.ts). An observer plugin (./plugin.ts) may fill the rows'
 * observed columns as the replay goes; what those mean is not this layer's business
 * (server/behaviour reads them).
 */
import { existsSync } from 'node:fs';
import { LOG_VERSION_WITH_PROJECTILES, readFrames, type FrameReadResult, type FrameRef } from '../../shared/matchlog/frame';
import { createMatchScene } from '../../shared/validate/scene';
import { ProjectileAuditor, type ProjectileAudit } from '../../shared/audit/projectiles';
import { RecordType, decodeHeader } from '../../shared/matchlog/records';
import { ShotCol, SHOT_COLUMNS, checkSeqChains, replayMatchLog, type ShotMismatch } from '../../shared/audit/replay';
import { describeLogEnd, type LogEnd } from '../../shared/audit/logEnd';
import { MANNEQUIN_RIG } from '../rig/mannequin';
import type { Rig } from '../../shared/rig/rig';
import type { World } from '../../shared/world/world';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../level/gltf';
import type { ReplayHeader, Shard } from './jobs';
import { partitionRanges, partitionShooters } from './partition';
import type { ObserverPlugin } from './plugin';
import { endProblems, FAILING_PROBLEMS, framingProblems, ProblemKind, projectileProblems, replayProblems, type AuditProblem } from './problems';
import { endRecord, shotsByShooter, slotEvents, tickSpan } from './scan';
import { headerProblem, runShard } from './shard';
import { closeAuditWorkers, copyToShared, readShared, workerPool, type ShardResult } from './workerPool';

export { closeAuditWorkers, ProblemKind, type AuditProblem, type ReplayHeader };

export interface IntegrityOptions {
  /** Worker threads; 1 replays in this thread. Default 1. */
  workers?: number;
  /** Level file to rebuild the world from (default: the header's path if it exists here, else the default level). */
  levelPath?: string;
  /** A World already loaded (skips loading; its hash is still checked). */
  world?: World;
  /** The rig the match ran with (default the shipped mannequin; its hash is checked against the log's). */
  rig?: Rig;
  /**
   * How shots are split between workers. 'range' (default): contiguous ranges of equal shot
   * counts, each worker applying only the ticks from a little before its range. 'shooter': by
   * shooter, each worker applying every tick. Both give the same rows bit for bit.
   */
  partition?: 'range' | 'shooter';
  /** Replay in worker threads even with one shard (benchmarks compare the two). */
  inWorkers?: boolean;
  /** Index of the first pooled worker thread to use (audits of several logs at once use different ones). Default 0. */
  firstWorker?: number;
  /** Loads the level (default loadWorld); audits of many logs pass one that loads each level once. */
  loadLevel?: (path: string) => Promise<World>;
  /** Shots validated so far, of the total. */
  onProgress?: (done: number, total: number) => void;
  /** The observer to run beside the verdicts, chosen from the log's header (null or absent: none). */
  observer?: (header: ReplayHeader) => ObserverPlugin | null;
}

export interface IntegrityResult {
  logPath: string;
  header: Record<string, unknown> | null;
  frames: FrameReadResult;
  /** Where and why the log ends: closed, the writer's note, cut inside a record, or between records (shared/audit/logEnd.ts). */
  ends: LogEnd;
  /** The log's bytes (shared memory the replay threads read). */
  bytes: Uint8Array;
  problems: AuditProblem[];
  /** Shots replayed (all shooters). */
  shots: number;
  /** Ticks in the log and ticks per second of the match's own clock (scan.ts tickSpan). */
  ticks: number;
  ticksPerSecond: number;
  /** The header's tick rate (64 when it gives none). */
  tickRate: number;
  mismatches: ShotMismatch[];
  /** All shots, SHOT_COLUMNS numbers each, in log order. */
  rows: Float64Array;
  workers: number;
  /** Wall time of the parallel replay (from the first shard's start to the last shard's end), ms. */
  replayMs: number;
  shotsPerSecond: number;
  world: World;
  /** Projectiles re-flown and deaths' causes (format 10 on; null for an older log). */
  projectiles: ProjectileAudit | null;
  /** True when anything points at tampering or a wrong environment (mismatch, corruption, hash). */
  failed: boolean;
}

/** The header record, or the problem that stops the audit (thrown with the problems so far). */
function readHeader(path: string, bytes: Uint8Array, frames: FrameReadResult, problems: AuditProblem[]): { header: Record<string, unknown>; offset: number } {
  const frame = frames.frames.find((f) => f.type === RecordType.HEADER);
  let header: Record<string, unknown> | null = null;
  if (frame) {
    try {
      header = decodeHeader(bytes.subarray(frame.payloadOffset, frame.payloadOffset + frame.payloadLength));
    } catch {
      header = null;
    }
  }
  const hp = headerProblem(header);
  if (hp !== null) {
    problems.push({ kind: ProblemKind.HEADER, offset: frame?.offset ?? null, message: hp });
    throw Object.assign(new Error(`cannot audit ${path}: ${hp}`), { problems });
  }
  return { header: header!, offset: frame!.offset };
}

/** The world and rig to replay on, each checked against the header's hash. */
async function matchEnvironment(h: ReplayHeader, headerOffset: number, options: IntegrityOptions, problems: AuditProblem[]): Promise<{ world: World; rig: Rig }> {
  const levelPath = options.levelPath ?? (typeof h.levelPath === 'string' && existsSync(h.levelPath) ? h.levelPath : DEFAULT_LEVEL_PATH);
  const world = options.world ?? (await (options.loadLevel ?? loadWorld)(levelPath));
  if (world.hash !== h.worldHash) {
    problems.push({
      kind: ProblemKind.WORLD_HASH, offset: headerOffset,
      message: `world hash mismatch: the log says the match ran on world ${h.worldHash} (level ${h.levelPath}), the level loaded here (${options.world ? 'given World' : levelPath}) hashes to ${world.hash}: pass --level with the match's level file, or the header was edited`,
    });
  }
  const rig = options.rig ?? MANNEQUIN_RIG;
  if (rig.hash !== h.rigHash) {
    problems.push({
      kind: ProblemKind.RIG_HASH, offset: headerOffset,
      message: `rig hash mismatch: the log says ${h.rigHash}, the rig loaded here (${rig.source}) is ${rig.hash}: pass --rig with the match's rig (the server's RIG), audit with the release that recorded the match, or the header was edited`,
    });
  }
  return { world, rig };
}

/** The shards: ranges warmed for the rewind window and the observer's reach, or shooters. */
function planShards(bytes: Uint8Array, frames: FrameReadResult, h: ReplayHeader, workers: number, counts: Map<number, number>, plugin: ObserverPlugin | null, partition: 'range' | 'shooter'): Shard[] {
  if (partition === 'shooter') {
    return partitionShooters(counts, workers).map((shooters) => ({ shooters, applyFrom: 0, shotsFrom: 0, shotsTo: frames.frames.length, shotIndexBase: 0 }));
  }
  const warmMs = Math.max(h.validation.rewindWindowMs + (plugin?.lookbackMs ?? 0), plugin?.windowMs ?? 0) + 100;
  return partitionRanges(bytes, frames, workers, h.scene.capacityTicks, warmMs);
}

interface ShardJob {
  shared: SharedArrayBuffer; bytes: Uint8Array; frames: FrameReadResult; header: ReplayHeader; world: World; rig: Rig; plugin: ObserverPlugin | null;
}

/** Replays the shards in this thread (one shard) or in pooled workers. */
async function runShards(job: ShardJob, shards: Shard[], options: IntegrityOptions, report: (shard: number, shots: number) => void): Promise<ShardResult[]> {
  const { bytes, frames, header, world, rig, plugin } = job;
  if (shards.length === 1 && options.inWorkers !== true) {
    return [await runShard(bytes, world, header, { ...shards[0]!, shooters: null, onProgress: (n) => report(0, n) }, frames, rig, plugin)];
  }
  const worldBuffer = world.toBuffer();
  const first = Math.max(0, Math.floor(options.firstWorker ?? 0));
  const pool = workerPool(first + shards.length).slice(first);
  // The framing, 4 numbers per frame, shared with every worker (no second CRC pass there).
  const flat = new Float64Array(new SharedArrayBuffer(Math.max(8, frames.frames.length * 32)));
  frames.frames.forEach((f: FrameRef, i) => { flat[i * 4] = f.type; flat[i * 4 + 1] = f.offset; flat[i * 4 + 2] = f.payloadOffset; flat[i * 4 + 3] = f.payloadLength; });
  return Promise.all(shards.map((shard, i) => pool[i]!.run(
    { log: job.shared, logLength: bytes.length, world: worldBuffer, worldHash: world.hash, rig, header, shard, observer: plugin, frames: flat.buffer as SharedArrayBuffer, frameCount: frames.frames.length, version: frames.version },
    (n) => report(i, n),
  )));
}

/** The shards' rows back in log order. */
function mergeRows(results: ShardResult[]): { rows: Float64Array; shots: number } {
  const shots = results.reduce((a, r) => a + r.shots, 0);
  const rows = new Float64Array(shots * SHOT_COLUMNS);
  const merged: { index: number; src: Float64Array; at: number }[] = [];
  for (const r of results) for (let i = 0; i < r.shots; i++) merged.push({ index: r.rows[i * SHOT_COLUMNS + ShotCol.INDEX]!, src: r.rows, at: i * SHOT_COLUMNS });
  merged.sort((a, b) => a.index - b.index);
  merged.forEach((m, i) => rows.set(m.src.subarray(m.at, m.at + SHOT_COLUMNS), i * SHOT_COLUMNS));
  return { rows, shots };
}

/** Verdict mismatches from the shards and seq-chain breaks over the merged rows, one entry per shot. */
function mergeMismatches(results: ShardResult[], rows: Float64Array, shots: number, joins: ReturnType<typeof slotEvents>): ShotMismatch[] {
  const byShot = new Map<number, ShotMismatch>();
  for (const m of [...results.flatMap((r) => r.mismatches), ...checkSeqChains(rows, shots, joins)]) {
    const had = byShot.get(m.index);
    if (had) had.fields.push(...m.fields);
    else byShot.set(m.index, { ...m, fields: [...m.fields] });
  }
  return [...byShot.values()].sort((a, b) => a.index - b.index);
}

/** Audits the log at `path` (or the bytes given). Throws LogFormatError when it is not a match log. */
export async function auditIntegrity(path: string, options: IntegrityOptions = {}, given?: Uint8Array): Promise<IntegrityResult> {
  // One shared copy of the log for every worker, read from the file straight into shared memory.
  const { shared, bytes } = given ? copyToShared(given) : await readShared(path);
  const frames = readFrames(bytes);
  const ends = describeLogEnd(bytes, frames);
  const problems = framingProblems(frames, ends);
  const { header, offset } = readHeader(path, bytes, frames, problems);
  const h = header as ReplayHeader;
  const { world, rig } = await matchEnvironment(h, offset, options, problems);

  const counts = shotsByShooter(bytes, frames);
  let totalShots = 0;
  for (const n of counts.values()) totalShots += n;
  const workers = Math.max(1, Math.min(Math.floor(options.workers ?? 1), 64, Math.max(1, totalShots)));
  const tickRate = typeof h.tickRate === 'number' && h.tickRate > 0 ? h.tickRate : 64;
  const plugin = options.observer?.(h) ?? null;
  const shards = planShards(bytes, frames, h, workers, counts, plugin, options.partition ?? 'range');
  const progress = new Array<number>(shards.length).fill(0);
  const report = (i: number, n: number) => {
    progress[i] = n;
    options.onProgress?.(progress.reduce((a, b) => a + b, 0), totalShots);
  };
  const t0 = performance.now();
  const results = await runShards({ shared, bytes, frames, header: h, world, rig, plugin }, shards, options, report);
  const replayMs = performance.now() - t0;
  // Worker threads include their start-up in the wall time; their own loop time is the fair rate.
  const loopMs = Math.max(...results.map((r) => r.elapsedMs));
  options.onProgress?.(totalShots, totalShots);

  const { rows, shots } = mergeRows(results);
  const mismatches = mergeMismatches(results, rows, shots, slotEvents(bytes, frames, 'join'));
  problems.push(...replayProblems(results));
  const projectiles = auditProjectileFlights(bytes, frames, h, world, rig, ends.complete);
  if (projectiles !== null) problems.push(...projectileProblems(projectiles));
  problems.sort((a, b) => (a.offset ?? Infinity) - (b.offset ?? Infinity));
  // The replay reports the end record when it reads that far; a log without shots is not replayed
  // to its end, so the record is also looked up in the framing.
  problems.push(...endProblems(results.find((r) => r.end !== null)?.end ?? endRecord(bytes, frames), totalShots, ends));
  const { ticks, ticksPerSecond } = tickSpan(bytes, frames);
  const failed = mismatches.length > 0 || problems.some((p) => FAILING_PROBLEMS.has(p.kind));
  return {
    logPath: path, header, frames, ends, bytes, problems, shots, ticks, ticksPerSecond, tickRate, mismatches, rows, workers,
    replayMs, shotsPerSecond: shots / (Math.max(loopMs, 1e-3) / 1000), world, failed, projectiles,
  };
}

/**
 * Format 10 on: re-flies every projectile and checks every death's cause in one serial walk of the
 * log (a flight spans ticks the shards split; the walk validates no shot: shooters = none).
 */
function auditProjectileFlights(bytes: Uint8Array, frames: FrameReadResult, h: ReplayHeader, world: World, rig: Rig, complete: boolean): ProjectileAudit | null {
  if (frames.version < LOG_VERSION_WITH_PROJECTILES) return null;
  const scene = createMatchScene(world, rig, h.scene);
  const auditor = new ProjectileAuditor(scene, h.validation, bytes, frames.version);
  replayMatchLog(bytes, scene, h.validation, { shooters: new Set(), onRecord: (f, tick, tickMs) => auditor.record(f, tick, tickMs) }, () => 0, frames);
  return auditor.finish(frames.frames.at(-1)?.offset ?? 0, complete);
}
