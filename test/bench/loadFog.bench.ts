/**
 * A 64-player match's tick with fog of war on and off, as `npm run load` measures it: one server
 * process, one room of 64 bots over real WebSockets (Redis as the cluster's presence), 30 s each.
 * Prints one JSON line per setting (bench 'load-fog': tick p50, p99 and max, the lowest ticks per
 * second the server ran and a client saw, server CPU, errors). Needs Redis at 127.0.0.1:6379, as
 * `npm run load` does.
 *
 * Run: npm run bench:loadfog [-- --json] [-- --seconds N]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/** One `npm run load` run: its JSON line. */
function load(fog: 'on' | 'off', seconds: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const args = ['test/bench/load.bench.ts', '--processes', '1', '--rooms', '1', '--bots-per-room', '64', '--seconds', String(seconds), '--fog', fog, '--json'];
    const child = spawn(TSX, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').reverse().find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) { reject(new Error(`npm run load --fog ${fog} exited ${code} without its JSON line`)); return; }
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

export async function run(opts: { json: boolean; seconds?: number }): Promise<void> {
  const seconds = Math.max(5, Math.round(opts.seconds ?? 30));
  for (const fog of ['on', 'off'] as const) {
    const r = await load(fog, seconds);
    const row = {
      bench: 'load-fog', fog, players: r.players, seconds: r.seconds, tickMsP50: r.tickMsP50, tickMsP99: r.tickMsP99, tickMsMax: r.tickMsMax,
      ticksPerSecondMin: r.ticksPerSecondMin, ticksPerSecondSeenMin: r.ticksPerSecondSeenMin, serverCpuPct: (r.serverCpuPct as number[] | undefined)?.[0], errors: r.errors,
    };
    console.log(opts.json ? JSON.stringify(row) : `load 64 players, fog ${fog}: tick p50 ${row.tickMsP50} ms, p99 ${row.tickMsP99} ms, max ${row.tickMsMax} ms; ticks/s min ${row.ticksPerSecondMin} (seen ${row.ticksPerSecondSeenMin}); server CPU ${row.serverCpuPct}%; errors ${row.errors}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const a = benchArgs('loadFog.bench.ts', ['seconds'], [], process.argv.slice(2));
  await run({ json: a.json, seconds: a.seconds });
}
