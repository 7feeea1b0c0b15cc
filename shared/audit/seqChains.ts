/**
 * The chains through each shooter's shots (seq, fire clock, pull count, spray heat), checked over
 * the replay's rows in log order after the shards are merged (a shard cannot see a shooter's
 * earlier shots).
 */
import type { FieldMismatch } from '../matchlog/verdictCompare';
import { ShotCol, SHOT_COLUMNS, type ShotMismatch } from './shotRows';

/** The state each chain carries from a shot to the shooter's next: [before column, after column, field name]. */
const CHAINS: readonly (readonly [number, number, string])[] = [
  [ShotCol.BEFORE_SEQ, ShotCol.AFTER_SEQ, 'lastSeq'],
  [ShotCol.BEFORE_NEXT_FIRE, ShotCol.AFTER_NEXT_FIRE, 'nextFireMs'],
  [ShotCol.BEFORE_PULLS, ShotCol.AFTER_PULLS, 'pulls'],
  [ShotCol.BEFORE_SPRAY_HEAT, ShotCol.AFTER_SPRAY_HEAT, 'sprayHeat'],
  [ShotCol.BEFORE_SPRAY_AT, ShotCol.AFTER_SPRAY_AT, 'sprayAtMs'],
];

/**
 * The chains through each shooter's shots, over rows in log order (all shots of the log, e.g.
 * merged from shards): a shot's before.lastSeq, nextFireMs, pulls, sprayHeat and sprayAtMs must
 * equal the previous shot's after values for the same shooter (only shots move them; a respawn
 * leaves them; a join starts a new state, so `joins` -- {offset, slot} in log order -- restart the
 * chain of that slot). A removed, duplicated or reordered shot record, or an edited shooter state
 * (a pull count moved to pick another spread pattern), breaks it. One mismatch per break. Logs
 * before format 8 keep no pull count or spray: the replay writes NaN, which chains to itself.
 */
export function checkSeqChains(rows: Float64Array, count: number, joins: readonly { offset: number; slot: number }[] = []): ShotMismatch[] {
  const last = new Map<number, Float64Array>();
  const out: ShotMismatch[] = [];
  let j = 0;
  for (let i = 0; i < count; i++) {
    const o = i * SHOT_COLUMNS;
    const offset = rows[o + ShotCol.OFFSET]!;
    for (; j < joins.length && joins[j]!.offset < offset; j++) last.delete(joins[j]!.slot);
    const shooter = rows[o + ShotCol.SHOOTER]!;
    const fields: FieldMismatch[] = [];
    let prev = last.get(shooter);
    if (prev !== undefined) {
      for (let c = 0; c < CHAINS.length; c++) {
        const [before, , name] = CHAINS[c]!;
        if (!Object.is(prev[c], rows[o + before]!)) {
          fields.push({ field: `before.${name} (chain from the previous shot of this shooter)`, recorded: rows[o + before]!, replayed: prev[c]! });
        }
      }
    } else {
      prev = new Float64Array(CHAINS.length);
      last.set(shooter, prev);
    }
    if (fields.length > 0) out.push({ index: rows[o + ShotCol.INDEX]!, offset, shooter, seq: rows[o + ShotCol.SEQ]!, fields });
    for (let c = 0; c < CHAINS.length; c++) prev[c] = rows[o + CHAINS[c]![1]]!;
  }
  return out;
}
