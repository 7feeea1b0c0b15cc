/**
 * Bit-for-bit comparison of a replayed verdict with the one a match log recorded, naming each
 * differing field (the audit reports them; the match-log viewer shows them). What is compared
 * follows the recorded log's format: parts an older format lacks are not compared.
 */
import type { ShooterState, Verdict } from '../validate/verdict';
import { LOG_FORMAT_VERSION } from './frame';
import { comparePelletSections } from './pelletRecord';
import { LOG_VERSION_WITH_PELLETS, VERDICT_NUMBER_FIELDS } from './shotRecord';

/** One field where a replayed verdict differs from the recorded one. */
export interface FieldMismatch {
  field: string;
  recorded: number | boolean;
  replayed: number | boolean;
}

/**
 * Compares two verdicts bit for bit: every number with Object.is (so NaN equals NaN and -0 differs
 * from 0), kind, reason, time source, flags and the shooter state after; when the recorded verdict
 * comes from a log of format 8 on (`version`), also the spray heat and every field of each pellet
 * result, hit and impact (named with the index, `hits[3].damage`). Pushes each differing field
 * into `out` (which it returns); an empty list means identical.
 */
export function compareVerdicts(out: FieldMismatch[], recorded: Verdict, replayed: Verdict, version = LOG_FORMAT_VERSION): FieldMismatch[] {
  if (recorded.kind !== replayed.kind) out.push({ field: 'kind', recorded: recorded.kind, replayed: replayed.kind });
  if (recorded.reason !== replayed.reason) out.push({ field: 'reason', recorded: recorded.reason, replayed: replayed.reason });
  if (recorded.timeSource !== replayed.timeSource) out.push({ field: 'timeSource', recorded: recorded.timeSource, replayed: replayed.timeSource });
  if (recorded.worldHit !== replayed.worldHit) out.push({ field: 'worldHit', recorded: recorded.worldHit, replayed: replayed.worldHit });
  if (recorded.fired !== replayed.fired) out.push({ field: 'fired', recorded: recorded.fired, replayed: replayed.fired });
  for (const f of VERDICT_NUMBER_FIELDS) {
    if (!Object.is(recorded[f], replayed[f])) out.push({ field: f, recorded: recorded[f], replayed: replayed[f] });
  }
  compareStates(out, 'after', recorded.after, replayed.after, version);
  if (version >= LOG_VERSION_WITH_PELLETS) comparePelletSections(out, recorded, replayed);
  return out;
}

/**
 * Compares two shooter states field by field (used for `after` and for the reconstructed
 * `before`); the spray heat and its time only when `a` comes from a log of format 8 on.
 */
export function compareStates(out: FieldMismatch[], prefix: string, a: ShooterState, b: ShooterState, version = LOG_FORMAT_VERSION): FieldMismatch[] {
  if (a.alive !== b.alive) out.push({ field: `${prefix}.alive`, recorded: a.alive, replayed: b.alive });
  if (!Object.is(a.lastSeq, b.lastSeq)) out.push({ field: `${prefix}.lastSeq`, recorded: a.lastSeq, replayed: b.lastSeq });
  if (!Object.is(a.nextFireMs, b.nextFireMs)) out.push({ field: `${prefix}.nextFireMs`, recorded: a.nextFireMs, replayed: b.nextFireMs });
  if (!Object.is(a.lastActionMs, b.lastActionMs)) out.push({ field: `${prefix}.lastActionMs`, recorded: a.lastActionMs, replayed: b.lastActionMs });
  if (!Object.is(a.equipped, b.equipped)) out.push({ field: `${prefix}.equipped`, recorded: a.equipped, replayed: b.equipped });
  if (!Object.is(a.drawEndMs, b.drawEndMs)) out.push({ field: `${prefix}.drawEndMs`, recorded: a.drawEndMs, replayed: b.drawEndMs });
  if (!Object.is(a.carried, b.carried)) out.push({ field: `${prefix}.carried`, recorded: a.carried, replayed: b.carried });
  if (version >= LOG_VERSION_WITH_PELLETS) {
    if (!Object.is(a.sprayHeat, b.sprayHeat)) out.push({ field: `${prefix}.sprayHeat`, recorded: a.sprayHeat, replayed: b.sprayHeat });
    if (!Object.is(a.sprayAtMs, b.sprayAtMs)) out.push({ field: `${prefix}.sprayAtMs`, recorded: a.sprayAtMs, replayed: b.sprayAtMs });
    if (!Object.is(a.pulls, b.pulls)) out.push({ field: `${prefix}.pulls`, recorded: a.pulls, replayed: b.pulls });
  }
  const w = Math.max(a.ammo.length, b.ammo.length);
  for (let i = 0; i < w; i++) {
    if (!Object.is(a.ammo[i], b.ammo[i])) out.push({ field: `${prefix}.ammo[${i}]`, recorded: a.ammo[i] ?? NaN, replayed: b.ammo[i] ?? NaN });
    if (!Object.is(a.reloadEndMs[i], b.reloadEndMs[i])) out.push({ field: `${prefix}.reloadEndMs[${i}]`, recorded: a.reloadEndMs[i] ?? NaN, replayed: b.reloadEndMs[i] ?? NaN });
  }
  return out;
}
