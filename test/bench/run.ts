/**
 * `npm run bench` entry: runs each benchmark module in order. A module exports
 * `async function run(opts: { json: boolean }): Promise<void>`; add new ones to BENCHES.
 * `npm run bench -- --json` prints only JSON lines (one object per scene/case).
 * `npm run bench -- --markdown [--note TEXT] [--out PATH]` runs them with --json, prints the same
 * lines and writes docs/measurements.md from them (measurements.ts): the only way that file changes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args';
import { measurementsMarkdown, type Row } from './measurements';
import { run as world } from './world.bench';
import { run as rewind } from './rewind.bench';
import { run as volume } from './volume.bench';
import { run as projectile } from './projectile.bench';
import { run as audit } from './audit.bench';
import { run as room } from './room.bench';
import { run as pellets } from './pellets.bench';
import { run as sim } from './sim.bench';
import { run as faults } from './faults.bench';
import { run as fleet } from './fleet.bench';
import { run as fog } from './fog.bench';
import { DEFAULT_FOG_RAYS_PER_UPDATE } from '../../server/match/fogOptions';
import { run as loadFog } from './loadFog.bench';

const BENCHES: { name: string; run: (opts: { json: boolean }) => Promise<void> }[] = [
  { name: 'world', run: world },
  { name: 'rewind', run: rewind },
  { name: 'volume', run: volume },
  { name: 'projectile', run: projectile },
  { name: 'room', run: room },
  { name: 'pellets', run: pellets },
  { name: 'audit', run: audit },
  // The default level with and without the caches, then the walled rooms level.
  { name: 'fog', run: async (o) => { await fog(o); await fog({ ...o, level: 'rooms', 'no-uncached': true }); await fog({ ...o, 'no-uncached': true, backfill: true }); await fog({ ...o, level: 'rooms', 'no-uncached': true, backfill: true });
    // The tight tier at the plain regions (hiddenTight 0), 32 players, on both levels.
    await fog({ ...o, 'no-uncached': true, backfill: true, players: 32, tight: '0' }); await fog({ ...o, level: 'rooms', 'no-uncached': true, backfill: true, players: 32, tight: '0' });
    // The cached verdicts alone (no viewer made precise), 32 players, on both levels.
    await fog({ ...o, 'no-uncached': true, backfill: true, players: 32, precision: '0' }); await fog({ ...o, level: 'rooms', 'no-uncached': true, backfill: true, players: 32, precision: '0' });
    // 64 players under the ray cap a FogFilter sets by default.
    await fog({ ...o, 'no-uncached': true, backfill: true, players: 64, 'max-rays': DEFAULT_FOG_RAYS_PER_UPDATE }); await fog({ ...o, level: 'rooms', 'no-uncached': true, backfill: true, players: 64, 'max-rays': DEFAULT_FOG_RAYS_PER_UPDATE }); } },
  { name: 'sim', run: sim },
  // A 64-player room through `npm run load`, fog on and off (needs Redis, as the faults do).
  { name: 'load-fog', run: loadFog },
  { name: 'faults', run: faults },
  // 1,000 logs through 2 audit workers, one SIGKILLed halfway (needs Redis, as the faults do).
  {
    name: 'fleet', run: async (o) => {
      const r = await fleet({ json: o.json, logs: 1000, workers: 2, kill: true });
      console.log(o.json ? JSON.stringify(r) : `fleet: ${r.logs} logs, ${r.audited} audited, ${r.failed} failed, ${r.lost} lost, ${r.duplicates} duplicates, ${r.jobsPerSecond} jobs/s`);
    },
  },
];

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const args = benchArgs('run.ts', [], ['note', 'out'], process.argv.slice(2), ['markdown']);

if (!args.markdown) {
  for (const b of BENCHES) {
    if (!args.json) console.log(`\n=== bench: ${b.name} ===`);
    await b.run({ json: args.json });
  }
} else {
  const out = resolve(ROOT, args.out ?? 'docs/measurements.md');
  const rows: Row[] = [];
  // The benches print their JSON lines with console.log; collect those lines as they pass.
  const log = console.log;
  console.log = (...parts: unknown[]) => {
    log(...parts);
    const line = parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : '';
    if (!line.startsWith('{')) return;
    try {
      const row = JSON.parse(line) as Row;
      if (typeof row.bench === 'string') rows.push(row);
    } catch { /* not a JSON line */ }
  };
  const startedAt = new Date();
  const loadBefore = loadavg();
  try {
    for (const b of BENCHES) {
      console.error(`bench: ${b.name}`);
      await b.run({ json: true });
    }
  } finally {
    console.log = log;
  }
  const md = measurementsMarkdown(rows, { startedAt, finishedAt: new Date(), loadBefore, loadAfter: loadavg(), note: args.note });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, md);
  console.error(`wrote ${relative(process.cwd(), out)} (${rows.length} rows)`);
}
// The simulator's server and the audit's worker pool are closed; nothing else should hold the process.
process.exit(0);
