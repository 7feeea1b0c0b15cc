/**
 * Command-line flags of the benchmarks (node:util parseArgs): `--json` plus each bench's numeric,
 * string and boolean options. An unknown flag, a missing value or a number that is not positive
 * prints one line with the usage and exits 2.
 */
import { parseArgs } from 'node:util';

type Parsed<K extends string, S extends string, B extends string> =
  { json: boolean } & Partial<Record<K, number>> & Partial<Record<S, string>> & Record<B, boolean>;

export function benchArgs<K extends string, S extends string = never, B extends string = never>(
  name: string, numeric: readonly K[], strings: readonly S[] = [], argv = process.argv.slice(2), booleans: readonly B[] = [],
): Parsed<K, S, B> {
  const usage = `usage: tsx test/bench/${name} [--json]${booleans.map((k) => ` [--${k}]`).join('')}` +
    `${numeric.map((k) => ` [--${k} N]`).join('')}${strings.map((k) => ` [--${k} TEXT]`).join('')}`;
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const k of [...numeric, ...strings]) options[k] = { type: 'string' };
  for (const k of booleans) options[k] = { type: 'boolean' };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }) as { values: Record<string, string | boolean | undefined> });
  } catch (e) {
    console.error(`${(e as Error).message.split('. To specify', 1)[0]}. ${usage}`);
    process.exit(2);
  }
  const out = { json: values.json === true } as Parsed<K, S, B>;
  for (const k of booleans) (out as Record<string, boolean>)[k] = values[k] === true;
  for (const k of strings) if (typeof values[k] === 'string') (out as Record<string, string>)[k] = values[k] as string;
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
