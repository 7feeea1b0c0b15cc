/**
 * `npm run bench` entry: runs each benchmark module in order. A module exports
 * `async function run(opts: { json: boolean }): Promise<void>`; add new ones to BENCHES.
 * `npm run bench -- --json` prints only JSON lines (one object per scene/case).
 */
import { benchArgs } from './args';
import { run as world } from './world.bench';
import { run as rewind } from './rewind.bench';
import { run as audit } from './audit.bench';
import { run as room } from './room.bench';

const BENCHES: { name: string; run: (opts: { json: boolean }) => Promise<void> }[] = [
  { name: 'world', run: world },
  { name: 'rewind', run: rewind },
  { name: 'room', run: room },
  { name: 'audit', run: audit },
];

const { json } = benchArgs('run.ts', []);
for (const b of BENCHES) {
  if (!json) console.log(`\n=== bench: ${b.name} ===`);
  await b.run({ json });
}
