/**
 * What one audited match log gives the evidence store: the match (its log id is the SHA-256 of the
 * log's bytes, so the same log recorded twice is one match, wherever its file lies), and per player
 * who can be named the audit's numbers: shots, hits, behaviour score and measures, rule flags and
 * offending shots. Pure: the store (store.ts) writes it.
 *
 * Who a slot's player was comes from the log's identity records (format 12 on). A slot nobody named
 * is not stored (no one to follow across matches); a slot that changed hands during the match (two
 * different ids) is stored under neither, since its numbers mix two players. Both are counted on the
 * match. A player id is kept apart from the same id unverified: the key is (player id, verified).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { AuditResult } from '../behaviour/audit';
import type { PlayerReport } from '../behaviour/flags';
import { DEFAULT_CALIBRATION } from '../behaviour/calibration';

export interface PlayerKey {
  playerId: string;
  /** The id was the subject of a token the server checked; false: the client named itself. */
  verified: boolean;
}

export interface MeasureEvidence {
  measure: string;
  events: number;
  /** Event measures: events in the honest tail (what the score across matches pools). */
  beyond: number;
  /** Null where the audit had no number (NaN, infinite). */
  stat: number | null;
  p: number | null;
  score: number | null;
}

export interface OffendingShot {
  shot: number;
  timeMs: number | null;
  measure: string;
  value: number | null;
  threshold: number | null;
  unit: string;
}

export interface PlayerEvidence extends PlayerKey {
  slot: number;
  shots: number;
  hits: number;
  headshots: number;
  /** The behaviour score; null when the audit scored no behaviour (no calibration, --verdicts-only). */
  score: number | null;
  /** The behaviour score passed the calibration's threshold. */
  flagged: boolean;
  /** Every rule flag (the behaviour one included), as the audit worded it. */
  flags: { rule: string; detail: string }[];
  measures: MeasureEvidence[];
  offending: OffendingShot[];
}

export interface MatchEvidence {
  /** SHA-256 of the log's bytes, hex. */
  logId: string;
  /** Where the log was audited: an absolute path on the auditing machine (the review page serves the log from it). */
  path: string;
  roomId: string;
  /** The header's start time (ISO 8601), '' when the header gives none. */
  startedAt: string;
  auditedAt: string;
  /** The log ended with its end record. */
  complete: boolean;
  shots: number;
  /** The calibration the scores came from (its source line), null when nothing was scored. */
  calibration: string | null;
  players: PlayerEvidence[];
  /** Slots with shots or a report but no identity record. */
  slotsWithoutIdentity: number;
  /** Slots whose identity records name more than one player. */
  slotsChangedHands: number;
}

/** SHA-256 of the log's bytes, hex: the match's id in the store. */
export function logIdOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const num = (x: number | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/**
 * The one player behind a slot, or why there is none: the identity records of one slot (a rejoin
 * under the same id logs it again) name one id; verified only when every record of it was.
 */
export function slotPlayer(identities: PlayerReport['identities']): PlayerKey | 'none' | 'changed-hands' {
  if (identities.length === 0) return 'none';
  const ids = new Set(identities.map((i) => i.playerId));
  if (ids.size > 1) return 'changed-hands';
  return { playerId: identities[0]!.playerId, verified: identities.every((i) => i.verified) };
}

function playerEvidence(p: PlayerReport, who: PlayerKey): PlayerEvidence {
  const b = p.behaviour;
  return {
    ...who,
    slot: p.player,
    shots: p.shots,
    hits: p.hits,
    headshots: p.headshots,
    score: b === null ? null : num(b.score),
    flagged: b?.flagged === true,
    flags: p.flags.map((f) => ({ rule: f.rule, detail: f.detail })),
    measures: (b?.measures ?? []).map((m) => ({ measure: m.name, events: m.events, beyond: m.beyond, stat: num(m.stat), p: num(m.p), score: num(m.score) })),
    offending: (b?.offending ?? []).map((o) => ({ shot: o.shot, timeMs: num(o.timeMs), measure: o.measure, value: num(o.value), threshold: num(o.threshold), unit: o.unit })),
  };
}

export interface EvidenceOptions {
  /** When it was audited (default now). */
  auditedAt?: Date;
  /** The source line of the calibration the audit scored with (default the shipped calibration's). */
  calibration?: string;
}

/** The evidence of one audited log (`logBytes`: the bytes that were audited; default the result's own). */
export function evidenceFromAudit(result: AuditResult, logBytes: Uint8Array = result.bytes, options: EvidenceOptions = {}): MatchEvidence {
  const h = result.header ?? {};
  const players: PlayerEvidence[] = [];
  let slotsWithoutIdentity = 0;
  let slotsChangedHands = 0;
  for (const p of result.players) {
    const who = slotPlayer(p.identities ?? []);
    if (who === 'none') slotsWithoutIdentity++;
    else if (who === 'changed-hands') slotsChangedHands++;
    else players.push(playerEvidence(p, who));
  }
  const scored = result.players.some((p) => p.behaviour !== null);
  return {
    logId: logIdOf(logBytes),
    path: resolve(result.logPath),
    roomId: typeof h.roomId === 'string' ? h.roomId : '',
    startedAt: typeof h.startedAtIso === 'string' ? h.startedAtIso : '',
    auditedAt: (options.auditedAt ?? new Date()).toISOString(),
    complete: result.ends.complete,
    shots: result.shots,
    calibration: scored ? options.calibration ?? DEFAULT_CALIBRATION.source : null,
    players,
    slotsWithoutIdentity,
    slotsChangedHands,
  };
}

/**
 * Why an audited log is not taken as evidence, or null when it is: an audit that failed (a verdict
 * mismatch, corruption, a world or rig hash that differs: its numbers cannot be trusted), or a log
 * that ends early (cut, killed, a full disk) unless `incomplete` is allowed.
 */
export function notEvidence(result: AuditResult, options: { incomplete?: boolean } = {}): string | null {
  if (result.failed) {
    const kinds = [...new Set(result.problems.map((p) => p.kind))];
    const first = result.problems[0]?.message ?? '';
    return `the audit failed (${result.mismatches.length} verdict mismatches${kinds.length ? `; problems: ${kinds.join(', ')}` : ''})${first ? `: ${first}` : ''}`;
  }
  const e = result.ends;
  if (!e.complete && options.incomplete !== true) return `the log ends early (${e.why} at byte ${e.atByte} of ${e.fileBytes}): not taken as evidence unless incomplete logs are allowed`;
  return null;
}
