/**
 * The integrity audit of one match log in one call: the header read and held against the level
 * and rig at hand (by content hash), the match's scene rebuilt from it, every verdict replayed from
 * the log alone and compared bit for bit, and each shooter's chain of seqs and fire clocks checked
 * across its shots (a removed or reordered shot shows there); every projectile re-flown from its
 * spawn and every death held against a judged cause (./projectiles.ts). What server/audit adds on top (worker
 * threads, behaviour measures, flags, reports) is not needed to trust a log's verdicts.
 */
import type { World } from '../world/world';
import type { Rig } from '../rig/rig';
import { createMatchScene } from '../validate/scene';
import { readFrames } from '../matchlog/frame';
import { RecordType, decodeHeader, readEvent, type MatchHeader } from '../matchlog/records';
import { replayMatchLog, type ReplayResult, type ShotMismatch } from './replay';
import { checkSeqChains } from './seqChains';
import { describeLogEnd, type LogEnd } from './logEnd';
import { ProjectileAuditor, type ProjectileAudit } from './projectiles';
import { LOG_VERSION_WITH_PROJECTILES, type FrameRef } from '../matchlog/frame';

export interface LogVerification {
  /** The log's header, null when it has none that reads. */
  header: MatchHeader | null;
  /** What stops the log from being trusted whole: a wrong level or rig, damaged records, a cut. */
  problems: string[];
  /** Shot records replayed. */
  shots: number;
  /** Verdicts that replayed differently, and seq or fire-clock chains that do not join up. */
  mismatches: ShotMismatch[];
  /** The replay itself (rows, frames, end record). */
  replay: ReplayResult | null;
  /** Where and why the log ends (null when it could not be framed). */
  ends: LogEnd | null;
  /** Projectiles re-flown from their spawns and the causes of deaths (format 10 on; empty before). */
  projectiles: ProjectileAudit;
}

/** Replays `bytes` (a whole match log) against `world` and `rig`. Never throws on a damaged log. */
export function verifyMatchLog(bytes: Uint8Array, world: World, rig: Rig): LogVerification {
  const out: LogVerification = {
    header: null, problems: [], shots: 0, mismatches: [], replay: null, ends: null,
    projectiles: { flights: 0, mismatches: [], deaths: { explained: 0, byGame: 0, unexplained: [] }, unresolved: 0 },
  };
  let frames;
  try {
    frames = readFrames(bytes);
  } catch (e) {
    out.problems.push(e instanceof Error ? e.message : String(e));
    return out;
  }
  out.ends = describeLogEnd(bytes, frames);
  const head = frames.frames.find((f) => f.type === RecordType.HEADER);
  if (head !== undefined) {
    try {
      out.header = decodeHeader<MatchHeader>(bytes.subarray(head.payloadOffset, head.payloadOffset + head.payloadLength));
    } catch {
      out.problems.push('the header record is not valid JSON');
    }
  }
  const h = out.header;
  if (h === null || h.scene === undefined || h.validation === undefined) {
    out.problems.push('no header to rebuild the match from');
    return out;
  }
  if (h.worldHash !== world.hash) out.problems.push(`the log's level is ${h.worldHash}, the one given is ${world.hash}`);
  if (h.rigHash !== rig.hash) out.problems.push(`the log's rig is ${h.rigHash}, the one given is ${rig.hash}`);
  if (out.problems.length > 0) return out;
  const scene = createMatchScene(world, rig, h.scene);
  const auditor = frames.version >= LOG_VERSION_WITH_PROJECTILES ? new ProjectileAuditor(scene, h.validation, bytes, frames.version) : null;
  const onRecord = auditor === null ? null : (f: FrameRef, tick: number, tickMs: number) => auditor.record(f, tick, tickMs);
  const replay = replayMatchLog(bytes, scene, h.validation, { onRecord }, () => 0, frames);
  if (auditor !== null) {
    out.projectiles = auditor.finish(frames.frames.at(-1)?.offset ?? 0, out.ends.complete);
    for (const d of out.projectiles.deaths.unexplained) out.problems.push(`a death of slot ${d.slot} credited to slot ${d.killer} at byte ${d.offset} has no judged cause`);
  }
  out.replay = replay;
  out.shots = replay.shots;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const joins: { offset: number; slot: number }[] = [];
  for (const f of frames.frames) {
    if (f.type !== RecordType.EVENT) continue;
    const e = readEvent(view, f.payloadOffset, f.payloadLength);
    if (e !== null && e.kind === 'join') joins.push({ offset: f.offset, slot: e.slot });
  }
  out.mismatches = [...replay.mismatches, ...checkSeqChains(replay.rows, replay.shots, joins)];
  if (!out.ends.complete) out.problems.push(`the log ${out.ends.detail}`);
  for (const c of frames.corrupt) out.problems.push(`a damaged record at byte ${c.offset}`);
  for (const b of replay.badRecords) out.problems.push(`record at byte ${b.offset} (${b.type}) does not decode: ${b.why}`);
  for (const g of replay.gaps) out.problems.push(`${g.records} records dropped by the writer before byte ${g.offset}`);
  return out;
}
