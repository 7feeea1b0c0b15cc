/**
 * Problems with a match log as a whole, named for a reviewer: a cut or corrupted file, records that
 * do not decode or were dropped by the writer, records the writer could not write at all (its
 * note), a world or rig other than the match's, a missing or wrong end record, a projectile record
 * its re-flight contradicts, a death no judged action caused.
 */
import type { FrameReadResult } from '../../shared/matchlog/frame';
import { RECORD_TYPE_NAMES, type EndData } from '../../shared/matchlog/records';
import { EndWhy, type LogEnd } from '../../shared/audit/logEnd';
import type { ProjectileAudit } from '../../shared/audit/projectiles';

export const ProblemKind = {
  TRUNCATED: 'truncated',
  CORRUPT: 'corrupt-record',
  BAD_RECORD: 'bad-record',
  WORLD_HASH: 'world-hash',
  RIG_HASH: 'rig-hash',
  GAP: 'dropped-records',
  UNWRITTEN: 'unwritten-records',
  NO_END: 'no-end-record',
  HEADER: 'header',
  /** A projectile's spawn, flight end or blast record differs from the flight re-flown from its spawn (or is missing, or extra). */
  PROJECTILE: 'projectile-mismatch',
  /** A death credited to another player that no judged kill (shot hit, direct projectile hit, blast share) accounts for. */
  DEATH: 'unexplained-death',
} as const;
export type ProblemKind = (typeof ProblemKind)[keyof typeof ProblemKind];

export interface AuditProblem {
  kind: ProblemKind;
  /** Byte offset in the log when the problem sits at one place. */
  offset: number | null;
  message: string;
}

/** Problems that point at tampering or a wrong environment (the audit fails on them). */
export const FAILING_PROBLEMS: ReadonlySet<ProblemKind> = new Set([ProblemKind.CORRUPT, ProblemKind.WORLD_HASH, ProblemKind.RIG_HASH, ProblemKind.BAD_RECORD, ProblemKind.PROJECTILE, ProblemKind.DEATH]);

/** The projectile audit's findings (shared/audit/projectiles.ts) as problems. */
export function projectileProblems(a: ProjectileAudit): AuditProblem[] {
  const out: AuditProblem[] = [];
  for (const m of a.mismatches) {
    out.push({ kind: ProblemKind.PROJECTILE, offset: m.offset, message: `projectile ${m.id}: its ${m.record} record at byte ${m.offset} is not what re-flying it from its spawn gives (${m.fields.map((f) => `${f.field}: recorded ${String(f.recorded)}, replayed ${String(f.replayed)}`).join('; ')})` });
  }
  for (const d of a.deaths.unexplained) {
    out.push({ kind: ProblemKind.DEATH, offset: d.offset, message: `the death of slot ${d.slot} at byte ${d.offset} (match ms ${d.timeMs}) is credited to slot ${d.killer}, but no judged shot or projectile of the log killed it` });
  }
  return out;
}

/** A cut tail (logEnd.ts says why) and records failing their CRC. */
export function framingProblems(frames: FrameReadResult, ends: LogEnd): AuditProblem[] {
  const out: AuditProblem[] = [];
  if (frames.truncated) {
    out.push({
      kind: ProblemKind.TRUNCATED, offset: frames.truncatedAt,
      message: `the log was cut at byte ${frames.truncatedAt} of ${ends.fileBytes}, ${ends.why === EndWhy.PARTIAL_RECORD ? 'inside a record' : 'in a damaged record'} (${frames.truncation}): replayed the ${ends.records} complete records before it`,
    });
  }
  for (const c of frames.corrupt) {
    out.push({
      kind: ProblemKind.CORRUPT, offset: c.offset,
      message: `record at byte ${c.offset} (${RECORD_TYPE_NAMES[c.type] ?? `type ${c.type}`}, ${c.payloadLength} bytes) fails its CRC: corrupted or edited after it was written; skipped`,
    });
  }
  return out;
}

/** Records the shards found undecodable or dropped; shards overlap in the ticks they apply, so each offset counts once. */
export function replayProblems(results: { badRecords: { offset: number; type: string; why: string }[]; gaps: { offset: number; records: number }[] }[]): AuditProblem[] {
  const out: AuditProblem[] = [];
  const seen = new Set<string>();
  for (const r of results) {
    for (const b of r.badRecords) {
      if (seen.has(`b${b.offset}`)) continue;
      seen.add(`b${b.offset}`);
      out.push({ kind: ProblemKind.BAD_RECORD, offset: b.offset, message: `record at byte ${b.offset} (${b.type}) passes its CRC but does not decode: ${b.why}` });
    }
    for (const g of r.gaps) {
      if (seen.has(`g${g.offset}`)) continue;
      seen.add(`g${g.offset}`);
      out.push({ kind: ProblemKind.GAP, offset: g.offset, message: `${g.records} records were dropped by the writer before byte ${g.offset} (the disk failed during the match): shots there cannot be audited` });
    }
  }
  return out;
}

/**
 * The end record against the log: missing (the server never closed it, or its writer could not
 * write the end: its note says so) or counting other shots.
 */
export function endProblems(end: EndData | null, totalShots: number, ends: LogEnd): AuditProblem[] {
  if (ends.why === EndWhy.WRITER_NOTE) return [{ kind: ProblemKind.UNWRITTEN, offset: ends.atByte, message: `the log ${ends.detail}` }];
  if (end === null) {
    const how = ends.why === EndWhy.NO_END_RECORD ? 'the server stopped without closing the log (crash or kill), or its writer stopped' : `the log ${ends.why === EndWhy.PARTIAL_RECORD ? 'ends inside a record' : 'ends with a damaged record'} (see ${ProblemKind.TRUNCATED})`;
    return [{ kind: ProblemKind.NO_END, offset: null, message: `no end record: ${how}` }];
  }
  if (end.shots !== totalShots && ends.why === EndWhy.CLOSED) {
    return [{ kind: ProblemKind.BAD_RECORD, offset: null, message: `the end record counts ${end.shots} shots but the log holds ${totalShots}: records were removed or added` }];
  }
  return [];
}
