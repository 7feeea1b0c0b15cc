/**
 * Command-line flags of the benchmarks (node:util parseArgs): `--json` plus each bench's numeric
 * options. An unknown flag or a value that is not a positive number prints one line with the
 * usage and exits 2.
 */
import { parseArgs } from 'node:util';

export function benchArgs<K extends string>(name: string, numeric: readonly K[], argv = process.argv.slice(2)): { json: boolean } & Partial<Record<K, number>> {
  const usage = `usage: tsx test/bench/${name} [--json]${numeric.map((k) => ` [--${k} N]`).join('')}`;
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const k of numeric) options[k] = { type: 'string' };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }) as { values: Record<string, string | boolean | undefined> });
  } catch (e) {
    console.error(`${(e as Error).message.split('. To specify', 1)[0]}. ${usage}`);
    process.exit(2);
  }
  const out: { json: boolean } & Partial<Record<K, number>> = { json: values.json === true } as { json: boolean } & Partial<Record<K, number>>;
  for (const k of numeric) {
    const v = values[k];
    if (v === undefined) continue;
    const n = Number(v);
    if (typeof v !== 'string' || v.trim() === '' || !(n > 0) || !Number.isFinite(n)) {
      console.error(`--${k} takes a positive number (got ${JSON.stringify(v)}). ${usage}`);
      process.exit(2);
    }
    (out as Record<string, number>)[k] = n;
  }
  return out;
}
