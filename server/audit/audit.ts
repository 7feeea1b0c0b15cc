/**
 * The audit of one match log: frame it (torn tail cut, corruption named), check the header's world
 * and rig hashes against what is loaded here, replay every shot (in pooled worker threads, split
 * into shot ranges or by shooter), compare verdicts bit for bit, check each shooter's seq chain over
 * the merged rows, and flag players. `auditMatchLog` is what the CLI, the
 * tests and the benchmark call.
 */
import { existsSync } from 'node:fs';
import { readFrames, type FrameReadResult, type FrameRef } from '../../shared/audit/frame';
import { RecordType, RECORD_TYPE_NAMES, countTickFields, decodeHeader, readEnd, readEvent, type TickFields } from '../../shared/audit/records';
import {
  ShotCol, SHOT_COLUMNS, REPLAY_RING_TICKS, DEFAULT_REPLAY_OPTIONS, checkSeqChains, type ReplayOptions, type ShotMismatch,
} from '../../shared/audit/replay';
import { MANNEQUIN_RIG } from '../rig/mannequin';
import type { Rig } from '../../shared/rig/rig';
import { VerdictKind } from '../../shared/validate/verdict';
import { ShotAction } from '../../shared/protocol/shot';
import type { World } from '../../shared/world/world';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../level/gltf';
import { DEFAULT_MEASURE_WINDOWS } from '../../shared/audit/measures';
import { flagBehaviour, flagPlayers, type FlagThresholds, type PlayerReport, type ShotFacts } from './flags';
import { MEASURES, type Calibration } from './behaviour';
import { eventsFromRows } from './behaviourEvents';
import { DEFAULT_CALIBRATION } from './calibration';
import { headerProblem, runShard, type ReplayHeader } from './shard';
import { closeAuditWorkers, copyToShared, readShared, workerPool, type ShardResult } from './workerPool';

export { closeAuditWorkers };

export interface AuditOptions {
  /** Worker threads; 1 replays in this thread. Default 1. */
  workers?: number;
  /** Level file to rebuild the world from (default: the header's path if it exists here, else the default level). */
  levelPath?: string;
  /** A World already loaded (skips loading; its hash is still checked). */
  world?: World;
  /** The rig the match ran with (default the shipped mannequin; its hash is checked against the log's). */
  rig?: Rig;
  thresholds?: Partial<FlagThresholds>;
  /**
   * Behaviour thresholds (default: calibration.ts, from honest synthetic players). They describe
   * one population of players; null scores no behaviour (for players no calibration describes).
   */
  calibration?: Calibration | null;
  replay?: Omit<Partial<ReplayOptions>, 'shooters' | 'onProgress' | 'applyFrom' | 'shotsFrom' | 'shotsTo' | 'shotIndexBase'>;
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
}

/** A problem with the log as a whole, named for a reviewer. */
export const ProblemKind = {
  TRUNCATED: 'truncated',
  CORRUPT: 'corrupt-record',
  BAD_RECORD: 'bad-record',
  WORLD_HASH: 'world-hash',
  RIG_HASH: 'rig-hash',
  GAP: 'dropped-records',
  NO_END: 'no-end-record',
  HEADER: 'header',
} as const;
export type ProblemKind = (typeof ProblemKind)[keyof typeof ProblemKind];

export interface AuditProblem {
  kind: ProblemKind;
  /** Byte offset in the log when the problem sits at one place. */
  offset: number | null;
  message: string;
}

export interface AuditResult {
  logPath: string;
  header: Record<string, unknown> | null;
  frames: FrameReadResult;
  problems: AuditProblem[];
  /** Shots replayed (all shooters). */
  shots: number;
  ticks: number;
  /**
   * Ticks per second of the match's own clock: (tick records - 1) over the span of their times. The
   * room stamps ticks from its monotonic clock (re-anchored after a stall), so a room that ticked
   * slowly shows here below the header's nominal rate. NaN with fewer than two ticks.
   */
  ticksPerSecond: number;
  mismatches: ShotMismatch[];
  players: PlayerReport[];
  flagged: { player: number; reasons: string[] }[];
  /** All shots, SHOT_COLUMNS numbers each, in log order. */
  rows: Float64Array;
  workers: number;
  /** Wall time of the parallel replay (from the first shard's start to the last shard's end), ms. */
  replayMs: number;
  shotsPerSecond: number;
  world: World;
  /** True when anything points at tampering or a wrong environment (mismatch, corruption, hash). */
  failed: boolean;
}

/** Join and death events in log order (a join restarts a slot's shooter state; deaths explain races). */
/** Each player's behaviour measures that need a view or input counts its log never carried. */
function markUnavailable(players: PlayerReport[], fields: TickFields): void {
  for (const p of players) {
    const noView = !(fields.viewTicks[p.player]! > 0);
    const noInputs = !(fields.inputTicks[p.player]! > 0);
    p.unavailable = MEASURES.filter((m) => (m.needs === 'view' && noView) || (m.needs === 'inputs' && noInputs)).map((m) => ({ measure: m.name, needs: m.needs! }));
  }
}

function slotEvents(bytes: Uint8Array, frames: FrameReadResult, kind: 'join' | 'death'): { offset: number; slot: number; timeMs: number }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: { offset: number; slot: number; timeMs: number }[] = [];
  for (const f of frames.frames) {
    if (f.type !== RecordType.EVENT) continue;
    const e = readEvent(view, f.payloadOffset, f.payloadLength);
    if (e !== null && e.kind === kind) out.push({ offset: f.offset, slot: e.slot, timeMs: e.timeMs });
  }
  return out;
}

/** Shots per shooter, read straight from the shot frames (u16 at payload offset 4). */
function shotsByShooter(bytes: Uint8Array, frames: FrameReadResult): Map<number, number> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const counts = new Map<number, number>();
  for (const f of frames.frames) {
    if (f.type !== RecordType.SHOT || f.payloadLength < 6) continue;
    const s = view.getUint16(f.payloadOffset + 4, true);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return counts;
}

/** Greedy balance: the shooter with most shots goes to the shard with fewest so far. */
export function partitionShooters(counts: Map<number, number>, shards: number): number[][] {
  const out: number[][] = Array.from({ length: shards }, () => []);
  const load = new Array<number>(shards).fill(0);
  for (const [shooter, n] of [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
    let best = 0;
    for (let i = 1; i < shards; i++) if (load[i]! < load[best]!) best = i;
    out[best]!.push(shooter);
    load[best]! += n;
  }
  return out;
}

/** What one shard replays (ReplayOptions' partition fields). */
export interface Shard {
  shooters: number[] | null;
  applyFrom: number;
  shotsFrom: number;
  shotsTo: number;
  shotIndexBase: number;
}

/**
 * Contiguous shot ranges of about equal size. Each shard starts applying ticks early enough that
 * every history holds what it holds in a serial replay when its first shot is judged: at least
 * `capacityTicks` ticks and `warmMs` of match time before the range's first shot.
 */
export function partitionRanges(bytes: Uint8Array, frames: { frames: { type: number; payloadOffset: number }[] }, shards: number, capacityTicks: number, warmMs: number): Shard[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const list = frames.frames;
  const shotAt: number[] = [];
  for (let i = 0; i < list.length; i++) if (list[i]!.type === RecordType.SHOT) shotAt.push(i);
  const out: Shard[] = [];
  for (let s = 0; s < shards; s++) {
    const a = Math.floor((s * shotAt.length) / shards);
    const b = Math.floor(((s + 1) * shotAt.length) / shards);
    if (a === b) continue;
    const shotsFrom = s === 0 ? 0 : shotAt[a]!;
    const shotsTo = s === shards - 1 ? list.length : shotAt[b]!;
    let applyFrom = shotsFrom;
    let ticks = 0;
    let newest = Number.NaN;
    while (applyFrom > 0) {
      const f = list[applyFrom - 1]!;
      if (f.type === RecordType.TICK) {
        const t = view.getFloat64(f.payloadOffset + 4, true);
        if (newest !== newest) newest = t;
        ticks++;
        if (ticks >= capacityTicks + 2 && newest - t >= warmMs) break;
      }
      applyFrom--;
    }
    out.push({ shooters: null, applyFrom: Math.max(0, applyFrom - 1), shotsFrom, shotsTo, shotIndexBase: 0 });
  }
  // Shot ordinals: shots before each shard's applyFrom.
  for (const sh of out) {
    let n = 0;
    for (let i = 0; i < sh.applyFrom; i++) if (list[i]!.type === RecordType.SHOT) n++;
    sh.shotIndexBase = n;
  }
  return out;
}

/** Audits the log at `path` (or the bytes given). Throws LogFormatError when it is not a match log. */
export async function auditMatchLog(path: string, options: AuditOptions = {}, given?: Uint8Array): Promise<AuditResult> {
  // One shared copy of the log for every worker (no per-worker copy of a large file), read from
  // the file straight into shared memory.
  const { shared, bytes } = given ? copyToShared(given) : await readShared(path);
  const frames = readFrames(bytes);
  const problems: AuditProblem[] = [];

  if (frames.truncated) {
    problems.push({
      kind: ProblemKind.TRUNCATED, offset: frames.truncatedAt,
      message: `the log was cut at byte ${frames.truncatedAt} of ${bytes.length} (${frames.truncation}): replayed the ${frames.frames.length} complete records before it`,
    });
  }
  for (const c of frames.corrupt) {
    problems.push({
      kind: ProblemKind.CORRUPT, offset: c.offset,
      message: `record at byte ${c.offset} (${RECORD_TYPE_NAMES[c.type] ?? `type ${c.type}`}, ${c.payloadLength} bytes) fails its CRC: corrupted or edited after it was written; skipped`,
    });
  }
  const headerFrame = frames.frames.find((f) => f.type === RecordType.HEADER);
  let header: Record<string, unknown> | null = null;
  if (headerFrame) {
    try {
      header = decodeHeader(bytes.subarray(headerFrame.payloadOffset, headerFrame.payloadOffset + headerFrame.payloadLength));
    } catch {
      header = null;
    }
  }
  const hp = headerProblem(header);
  if (hp !== null) {
    problems.push({ kind: ProblemKind.HEADER, offset: headerFrame?.offset ?? null, message: hp });
    throw Object.assign(new Error(`cannot audit ${path}: ${hp}`), { problems });
  }
  const h = header as ReplayHeader;

  const levelPath = options.levelPath ?? (typeof h.levelPath === 'string' && existsSync(h.levelPath) ? h.levelPath : DEFAULT_LEVEL_PATH);
  const world = options.world ?? (await (options.loadLevel ?? loadWorld)(levelPath));
  if (world.hash !== h.worldHash) {
    problems.push({
      kind: ProblemKind.WORLD_HASH, offset: headerFrame!.offset,
      message: `world hash mismatch: the log says the match ran on world ${h.worldHash} (level ${h.levelPath}), the level loaded here (${options.world ? 'given World' : levelPath}) hashes to ${world.hash}: pass --level with the match's level file, or the header was edited`,
    });
  }
  const rig = options.rig ?? MANNEQUIN_RIG;
  if (rig.hash !== h.rigHash) {
    problems.push({
      kind: ProblemKind.RIG_HASH, offset: headerFrame!.offset,
      message: `rig hash mismatch: the log says ${h.rigHash}, the rig loaded here (${rig.source}) is ${rig.hash}: pass --rig with the match's rig (the server's RIG), audit with the release that recorded the match, or the header was edited`,
    });
  }

  const counts = shotsByShooter(bytes, frames);
  let totalShots = 0;
  for (const n of counts.values()) totalShots += n;
  const workers = Math.max(1, Math.min(Math.floor(options.workers ?? 1), 64, Math.max(1, totalShots)));
  const tickRate = typeof h.tickRate === 'number' && h.tickRate > 0 ? h.tickRate : 64;
  const replay = { ...(options.replay ?? {}) };
  // The reaction and snap walks must stay inside the replay's tick ring.
  const ringMs = ((REPLAY_RING_TICKS - 16) * 1000) / tickRate;
  replay.reactionLookbackMs = Math.min(replay.reactionLookbackMs ?? DEFAULT_REPLAY_OPTIONS.reactionLookbackMs, ringMs / 2);
  replay.snapWindowMs = Math.min(replay.snapWindowMs ?? DEFAULT_REPLAY_OPTIONS.snapWindowMs, ringMs / 4);
  replay.preAimMs = Math.min(replay.preAimMs ?? DEFAULT_REPLAY_OPTIONS.preAimMs, ringMs / 4);
  const shards = (options.partition ?? 'range') === 'range'
    ? partitionRanges(bytes, frames, workers, h.scene.capacityTicks, Math.max(h.validation.rewindWindowMs + replay.reactionLookbackMs + Math.max(replay.preAimMs, DEFAULT_MEASURE_WINDOWS.hiddenMs) + replay.snapWindowMs, DEFAULT_MEASURE_WINDOWS.inputWindowMs) + 100)
    : partitionShooters(counts, workers).map((shooters) => ({ shooters, applyFrom: 0, shotsFrom: 0, shotsTo: frames.frames.length, shotIndexBase: 0 }));
  const progress = new Array<number>(shards.length).fill(0);
  const report = (i: number, n: number) => {
    progress[i] = n;
    options.onProgress?.(progress.reduce((a, b) => a + b, 0), totalShots);
  };

  let results: ShardResult[];
  const t0 = performance.now();
  if (shards.length === 1 && options.inWorkers !== true) {
    results = [runShard(bytes, world, h, { ...replay, ...shards[0]!, shooters: null, onProgress: (n) => report(0, n) }, frames, rig)];
  } else {
    const worldBuffer = world.toBuffer();
    const first = Math.max(0, Math.floor(options.firstWorker ?? 0));
    const pool = workerPool(first + shards.length).slice(first);
    const flat = new Float64Array(new SharedArrayBuffer(Math.max(8, frames.frames.length * 32)));
    frames.frames.forEach((f, i) => { flat[i * 4] = f.type; flat[i * 4 + 1] = f.offset; flat[i * 4 + 2] = f.payloadOffset; flat[i * 4 + 3] = f.payloadLength; });
    results = await Promise.all(shards.map((shard, i) => pool[i]!.run(
      { log: shared, logLength: bytes.length, world: worldBuffer, worldHash: world.hash, rig, header: h, shard, replay, frames: flat.buffer as SharedArrayBuffer, frameCount: frames.frames.length, version: frames.version },
      (n) => report(i, n),
    )));
  }
  const replayMs = performance.now() - t0;
  // Worker threads include their start-up in the wall time; their own loop time is the fair rate.
  const loopMs = Math.max(...results.map((r) => r.elapsedMs));
  options.onProgress?.(totalShots, totalShots);

  // Merge rows back into log order.
  const shots = results.reduce((a, r) => a + r.shots, 0);
  const rows = new Float64Array(shots * SHOT_COLUMNS);
  {
    const merged: { index: number; src: Float64Array; at: number }[] = [];
    for (const r of results) for (let i = 0; i < r.shots; i++) merged.push({ index: r.rows[i * SHOT_COLUMNS + ShotCol.INDEX]!, src: r.rows, at: i * SHOT_COLUMNS });
    merged.sort((a, b) => a.index - b.index);
    merged.forEach((m, i) => rows.set(m.src.subarray(m.at, m.at + SHOT_COLUMNS), i * SHOT_COLUMNS));
  }
  // Verdict mismatches from the shards, and seq-chain breaks over the merged rows, one entry per shot.
  const byShot = new Map<number, ShotMismatch>();
  for (const m of [...results.flatMap((r) => r.mismatches), ...checkSeqChains(rows, shots, slotEvents(bytes, frames, 'join'))]) {
    const had = byShot.get(m.index);
    if (had) had.fields.push(...m.fields);
    else byShot.set(m.index, { ...m, fields: [...m.fields] });
  }
  const mismatches = [...byShot.values()].sort((a, b) => a.index - b.index);
  // Log-level findings: shards overlap in the ticks they apply, so dedupe by offset.
  const seen = new Set<string>();
  for (const r of results) {
    for (const b of r.badRecords) {
      if (seen.has(`b${b.offset}`)) continue;
      seen.add(`b${b.offset}`);
      problems.push({ kind: ProblemKind.BAD_RECORD, offset: b.offset, message: `record at byte ${b.offset} (${b.type}) passes its CRC but does not decode: ${b.why}` });
    }
    for (const g of r.gaps) {
      if (seen.has(`g${g.offset}`)) continue;
      seen.add(`g${g.offset}`);
      problems.push({ kind: ProblemKind.GAP, offset: g.offset, message: `${g.records} records were dropped by the writer before byte ${g.offset} (the disk failed during the match): shots there cannot be audited` });
    }
  }
  problems.sort((a, b) => (a.offset ?? Infinity) - (b.offset ?? Infinity));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The replay reports the end record when it reads that far; a log without shots is not replayed
  // to its end, so the record is also looked up in the framing.
  let endFrame: FrameRef | undefined;
  for (const f of frames.frames) if (f.type === RecordType.END) endFrame = f;
  const end = results.find((r) => r.end !== null)?.end ?? (endFrame ? readEnd(view, endFrame.payloadOffset, endFrame.payloadLength) : null);
  let ticks = 0, firstTickMs = Number.NaN, lastTickMs = Number.NaN;
  for (const f of frames.frames) {
    if (f.type !== RecordType.TICK || f.payloadLength < 12) continue;
    const t = view.getFloat64(f.payloadOffset + 4, true);
    if (ticks === 0) firstTickMs = t;
    lastTickMs = t;
    ticks++;
  }
  const ticksPerSecond = ticks >= 2 && lastTickMs > firstTickMs ? ((ticks - 1) * 1000) / (lastTickMs - firstTickMs) : Number.NaN;
  if (end === null) problems.push({ kind: ProblemKind.NO_END, offset: null, message: 'no end record: the server stopped without closing the log (crash, kill or a cut file)' });
  else if (end.shots !== totalShots && !frames.truncated) {
    problems.push({ kind: ProblemKind.BAD_RECORD, offset: null, message: `the end record counts ${end.shots} shots but the log holds ${totalShots}: records were removed or added` });
  }

  const windowMs = h.validation.rewindWindowMs;
  const claimToleranceMs = typeof h.validation.claimToleranceMs === 'number' ? h.validation.claimToleranceMs : 60;
  const facts: ShotFacts[] = [];
  // Reaction time counts for the first hit of a sighting only: later hits on a target in sight are
  // the fire rate talking, not the reflexes. Rewound time of the last hit per (shooter, target).
  const lastHit = new Map<number, number>();
  // The shooter's latest death before each shot, walked in log order.
  const deaths = slotEvents(bytes, frames, 'death');
  const lastDeath = new Map<number, number>();
  let di = 0;
  for (let i = 0; i < shots; i++) {
    const o = i * SHOT_COLUMNS;
    for (; di < deaths.length && deaths[di]!.offset < rows[o + ShotCol.OFFSET]!; di++) lastDeath.set(deaths[di]!.slot, deaths[di]!.timeMs);
    // Switches and reloads are replayed and chained like shots, but they are not shots.
    const action = rows[o + ShotCol.ACTION]!;
    if (action === ShotAction.SWITCH || action === ShotAction.RELOAD) continue;
    const c = rows[o + ShotCol.SNAP_COS]!;
    let reaction = rows[o + ShotCol.REACTION_MS]!;
    if (rows[o + ShotCol.KIND] === VerdictKind.HIT) {
      const key = rows[o + ShotCol.SHOOTER]! * 65536 + rows[o + ShotCol.TARGET]!;
      const rewound = rows[o + ShotCol.REWIND_TIME_MS]!;
      const prev = lastHit.get(key);
      if (reaction === reaction && prev !== undefined && prev >= rewound - reaction) reaction = Number.NaN;
      lastHit.set(key, rewound);
    }
    facts.push({
      shooter: rows[o + ShotCol.SHOOTER]!, kind: rows[o + ShotCol.KIND]!, reason: rows[o + ShotCol.REASON]!, zone: rows[o + ShotCol.ZONE]!,
      target: rows[o + ShotCol.TARGET]!, timeSource: rows[o + ShotCol.TIME_SOURCE]!, rewindDepthMs: rows[o + ShotCol.REWIND_DEPTH_MS]!,
      inputAheadMs: rows[o + ShotCol.INPUT_AHEAD_MS]!, index: rows[o + ShotCol.INDEX]!, receivedMs: rows[o + ShotCol.RECEIVED_MS]!,
      reactionMs: reaction,
      snapDegPerS: c === c ? ((Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI) * tickRate : Number.NaN,
      rttMs: rows[o + ShotCol.RTT_MS]!,
      sinceShooterDeathMs: rows[o + ShotCol.RECEIVED_MS]! - (lastDeath.get(rows[o + ShotCol.SHOOTER]!) ?? Number.NaN),
      serverGapMs: rows[o + ShotCol.SERVER_GAP_MS]!,
      // How far the claim sat from the server's estimate beyond the tolerance (0 when within).
      // The server's estimate is the action time less the declared interpolation delay (depth + rewound - interp).
      claimOffByMs: Math.max(0, Math.abs(rows[o + ShotCol.REWIND_DEPTH_MS]! + rows[o + ShotCol.REWIND_TIME_MS]! - rows[o + ShotCol.INTERP_MS]! - rows[o + ShotCol.CLAIMED_MS]!) - claimToleranceMs),
    });
  }
  const players = flagPlayers(facts, windowMs, options.thresholds);
  markUnavailable(players, countTickFields(bytes, frames.frames, frames.version, h.maxPlayers));
  if (options.replay?.verdictsOnly !== true && options.calibration !== null) flagBehaviour(players, eventsFromRows(rows, shots), options.calibration ?? DEFAULT_CALIBRATION);
  const flagged = players.filter((p) => p.flags.length > 0).map((p) => ({ player: p.player, reasons: p.flags.map((f) => `${f.rule}: ${f.detail}`) }));
  const failed = mismatches.length > 0 || problems.some((p) => p.kind === ProblemKind.CORRUPT || p.kind === ProblemKind.WORLD_HASH || p.kind === ProblemKind.RIG_HASH || p.kind === ProblemKind.BAD_RECORD);
  return {
    logPath: path, header, frames, problems, shots, ticks, ticksPerSecond, mismatches, players, flagged, rows, workers,
    replayMs, shotsPerSecond: shots / (Math.max(loopMs, 1e-3) / 1000), world, failed,
  };
}
