/**
 * A 64-player match's tick with fog of war on and off, as `npm run load` measures it: one server
 * process, one room of 64 bots over real WebSockets (Redis as the cluster's presence), 30 s each.
 * Each setting runs twice: with the server and the bots sharing the machine's cores, and pinned
 * (`npm run load -- --pin`: the server alone on core 0, the bots on the others), where the tick is
 * the server's own work and not the bots' scheduling. Pinned runs need Linux's taskset and two
 * cores; without them those rows are left out (said on stderr).
 * Prints one JSON line per run (bench 'load-fog': cores shared or pinned, tick p50, p99 and max,
 * the lowest ticks per second the server ran and a client saw, server and bot CPU, errors). Needs
 * Redis at 127.0.0.1:6379, as `npm run load` does.
 *
 * Run: npm run bench:loadfog [-- --json] [-- --seconds N]
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/** One `npm run load` run: its JSON line. */
function load(fog: 'on' | 'off', seconds: number, pin: boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const args = ['test/bench/load.bench.ts', '--processes', '1', '--rooms', '1', '--bots-per-room', '64', '--seconds', String(seconds), '--fog', fog, '--json', ...(pin ? ['--pin'] : [])];
    const child = spawn(TSX, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').reverse().find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) { reject(new Error(`npm run load --fog ${fog}${pin ? ' --pin' : ''} exited ${code} without its JSON line`)); return; }
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

/** Whether `npm run load -- --pin` can run here: taskset present and a core left for the bots. */
function canPin(): boolean {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function run(opts: { json: boolean; seconds?: number }): Promise<void> {
  const seconds = Math.max(5, Math.round(opts.seconds ?? 30));
  const pins = canPin() ? [false, true] : [false];
  if (pins.length === 1) console.error('bench:loadfog: no taskset or a single core: the pinned runs are left out');
  for (const pin of pins) {
    for (const fog of ['on', 'off'] as const) {
      const r = await load(fog, seconds, pin);
      const row = {
        bench: 'load-fog', cores: pin ? 'pinned' : 'shared', fog, players: r.players, seconds: r.seconds, tickMsP50: r.tickMsP50, tickMsP99: r.tickMsP99, tickMsMax: r.tickMsMax,
        ticksPerSecondMin: r.ticksPerSecondMin, ticksPerSecondSeenMin: r.ticksPerSecondSeenMin, serverCpuPct: (r.serverCpuPct as number[] | undefined)?.[0], botCpuPct: r.botCpuPct, errors: r.errors,
      };
      console.log(opts.json ? JSON.stringify(row) : `load 64 players, fog ${fog}, cores ${row.cores}: tick p50 ${row.tickMsP50} ms, p99 ${row.tickMsP99} ms, max ${row.tickMsMax} ms; ticks/s min ${row.ticksPerSecondMin} (seen ${row.ticksPerSecondSeenMin}); server CPU ${row.serverCpuPct}%, bots ${row.botCpuPct}%; errors ${row.errors}`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const a = benchArgs('loadFog.bench.ts', ['seconds'], [], process.argv.slice(2));
  await run({ json: a.json, seconds: a.seconds });
}
