/**
 * The seq and fire-clock chains through each shooter's shots, checked over the replay's rows in log
 * order after the shards are merged (a shard cannot see a shooter's earlier shots).
 */
import type { FieldMismatch } from '../matchlog/verdictCompare';
import { ShotCol, SHOT_COLUMNS, type ShotMismatch } from './shotRows';

/**
 * The chains through each shooter's shots, over rows in log order (all shots of the log, e.g.
 * merged from shards): a shot's before.lastSeq and before.nextFireMs must equal the previous shot's
 * after values for the same shooter (only shots move them; a respawn leaves them; a join starts a
 * new state, so `joins` -- {offset, slot} in log order -- restart the chain of that slot). A removed,
 * duplicated or reordered shot record, or an edited shooter state, breaks it. One mismatch per break.
 */
export function checkSeqChains(rows: Float64Array, count: number, joins: readonly { offset: number; slot: number }[] = []): ShotMismatch[] {
  const lastSeq = new Map<number, number>();
  const lastFire = new Map<number, number>();
  const out: ShotMismatch[] = [];
  let j = 0;
  for (let i = 0; i < count; i++) {
    const o = i * SHOT_COLUMNS;
    const offset = rows[o + ShotCol.OFFSET]!;
    for (; j < joins.length && joins[j]!.offset < offset; j++) {
      lastSeq.delete(joins[j]!.slot);
      lastFire.delete(joins[j]!.slot);
    }
    const shooter = rows[o + ShotCol.SHOOTER]!;
    const fields: FieldMismatch[] = [];
    const prevSeq = lastSeq.get(shooter);
    if (prevSeq !== undefined && !Object.is(prevSeq, rows[o + ShotCol.BEFORE_SEQ]!)) {
      fields.push({ field: 'before.lastSeq (chain from the previous shot of this shooter)', recorded: rows[o + ShotCol.BEFORE_SEQ]!, replayed: prevSeq });
    }
    const prevFire = lastFire.get(shooter);
    if (prevFire !== undefined && !Object.is(prevFire, rows[o + ShotCol.BEFORE_NEXT_FIRE]!)) {
      fields.push({ field: 'before.nextFireMs (chain from the previous shot of this shooter)', recorded: rows[o + ShotCol.BEFORE_NEXT_FIRE]!, replayed: prevFire });
    }
    if (fields.length > 0) out.push({ index: rows[o + ShotCol.INDEX]!, offset, shooter, seq: rows[o + ShotCol.SEQ]!, fields });
    lastSeq.set(shooter, rows[o + ShotCol.AFTER_SEQ]!);
    lastFire.set(shooter, rows[o + ShotCol.AFTER_NEXT_FIRE]!);
  }
  return out;
}
