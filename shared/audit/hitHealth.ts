/**
 * The health a shot record says its hits left, held against its verdict (format 8 logs on). The
 * room applies a fired verdict's hits in order (server/match/match.ts applyHits): each OK_HIT on a
 * living target takes max(0, health - damage) and kills at 0; a hit on a target absent, dead, or
 * killed by an earlier pellet of the pull is not applied (health -1). The replay does not know a
 * target's health before the pull, but within a pull every later hit on a target follows from the
 * one before to the bit, a kill is exactly a health of 0, and the record's top-level health and
 * kill flag are those of its hits. Allocates nothing when everything agrees.
 */
import { VerdictKind, VerdictReason, type Verdict } from '../validate/verdict';
import type { ShotInput } from '../matchlog/shotRecord';
import type { FieldMismatch } from '../matchlog/verdictCompare';

/**
 * Pushes into `out` each per-hit health or kill of `input` (hitHealthAfter, hitKilled,
 * targetHealthAfter, killed) that the hits of `v` (the verdict the room applied) contradict; the
 * `replayed` value is what the hits imply. Returns `out`.
 */
export function checkHitHealth(out: FieldMismatch[], v: Verdict, input: ShotInput): FieldMismatch[] {
  const hits = v.hits;
  const health = input.hitHealthAfter, killedBy = input.hitKilled;
  const k = v.kind === VerdictKind.HIT ? hits.count : 0;
  if (health.length !== k || killedBy.length !== k) {
    out.push({ field: 'hitHealthAfter.length', recorded: health.length, replayed: k });
    return out;
  }
  let targetHealth = -1;
  let anyKill = false;
  for (let i = 0; i < k; i++) {
    const h = health[i]!, killed = killedBy[i]!;
    const target = hits.target[i]!;
    let expected = Number.NaN;
    if (hits.reason[i] !== VerdictReason.OK_HIT) expected = -1;
    else {
      // The previous hit of this pull applied to the same target decides this one.
      let j = i - 1;
      while (j >= 0 && !(hits.target[j] === target && health[j] !== -1)) j--;
      if (j >= 0) expected = killedBy[j] ? -1 : Math.max(0, health[j]! - hits.damage[i]!);
    }
    // NaN: the first hit on this target, applied (any health >= 0) or not (-1).
    if (expected === expected ? !Object.is(h, expected) : !(h === -1 || h >= 0)) {
      out.push({ field: `hitHealthAfter[${i}]`, recorded: h, replayed: expected });
    }
    const kill = h === 0;
    if (killed !== kill) out.push({ field: `hitKilled[${i}]`, recorded: killed, replayed: kill });
    if (h !== -1 && target === v.target) targetHealth = h;
    anyKill ||= killed;
  }
  if (!Object.is(input.targetHealthAfter, targetHealth)) out.push({ field: 'targetHealthAfter', recorded: input.targetHealthAfter, replayed: targetHealth });
  if (input.killed !== anyKill) out.push({ field: 'killed', recorded: input.killed, replayed: anyKill });
  return out;
}
