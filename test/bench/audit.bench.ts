/**
 * Audit replay throughput: a seeded synthetic 16-player, 10-minute match on the default level (real movement,
 * histories, validateShot and MatchLogRecorder; everyone firing whenever the rifle allows, three
 * cheaters), then the full audit (verdict replay + reaction and snap measures) with one worker and
 * with two (worker threads, pooled: warm after the first round). shotsPerSecond = shots / the
 * slowest shard's record loop (tick records included; the wall time, which adds thread messaging
 * and the merge, is printed too); the median of ROUNDS runs after one untimed warm-up run. Also prints ticks/s, the log's size and
 * the heap after. Run alone: `npm run bench:audit [-- --json] [-- --seconds S]`.
 * --json lines: {"bench": "audit", "workers", "shotsPerSecond", ...}.
 */
import { benchArgs } from './args';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../server/level/gltf';
import { synthesizeMatch, CheatKind } from '../../server/behaviour/synth/synthMatch';
import { auditMatchLog, closeAuditWorkers } from '../../server/behaviour/audit';
import { MatchLogRecorder } from '../../server/matchlog/recorder';
import { TICK_POSE_STRIDE } from '../../server/match/recorder';
import { createShooterState, createVerdict } from '../../shared/validate/verdict';

/**
 * What recording costs the tick loop: MatchLogRecorder.tick (16 players) and .shot calls, in
 * microseconds per call (encoding + CRC into memory; the disk writes happen off the loop).
 */
async function recordCost(dir: string): Promise<{ tickUs: number; shotUs: number }> {
  const rec = new MatchLogRecorder({ path: join(dir, 'cost.hrml') });
  rec.header({ maxPlayers: 16 } as never);
  const poses = new Float64Array(16 * TICK_POSE_STRIDE);
  for (let s = 0; s < 16; s++) { poses[s * TICK_POSE_STRIDE] = 1; for (let k = 1; k < TICK_POSE_STRIDE; k++) poses[s * TICK_POSE_STRIDE + k] = s + k * 0.1; }
  const N = 20_000;
  let t = performance.now();
  for (let i = 0; i < N; i++) rec.tick({ tick: i, timeMs: i * 15.625, poses });
  const tickUs = ((performance.now() - t) * 1000) / N;
  const shot = {
    bytes: new Uint8Array(64), nonBytesType: null, shooterBefore: createShooterState(0, [30, 12, 5]),
    timing: { receiveTimeMs: 1, rttMs: 2, interpDelayMs: 3, newestTickMs: 4 },
    targets: { alive: new Array(16).fill(true), lifeStartMs: new Array(16).fill(0), leftMs: new Array(16).fill(NaN), team: new Array(16).fill(-1) }, verdict: createVerdict(), targetHealthAfter: -1, killed: false, hitHealthAfter: [], hitKilled: [],
  };
  shot.verdict.after = createShooterState(0, [30, 12, 5]);
  t = performance.now();
  for (let i = 0; i < N; i++) rec.shot(shot);
  const shotUs = ((performance.now() - t) * 1000) / N;
  const stats = await rec.finish();
  if (stats.errors > 0) throw new Error(`recording failed: ${stats.lastError}`);
  return { tickUs, shotUs };
}

const ROUNDS = 3;

function median(v: number[]): number {
  const s = v.slice().sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

export async function run(opts: { json: boolean; seconds?: number }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-bench-'));
  try {
    const world = await loadWorld();
    const seconds = opts.seconds ?? 600;
    const t0 = performance.now();
    const match = await synthesizeMatch({
      world, levelPath: DEFAULT_LEVEL_PATH, path: join(dir, 'bench.hrml'), seed: 2026, players: 16, durationS: seconds,
      cheats: { 1: CheatKind.AIMBOT, 2: CheatKind.WALLHACK, 3: CheatKind.BACKTRACK }, immortal: true, trigger: 'spray',
    });
    const genMs = performance.now() - t0;
    if (!opts.json) {
      console.log(`log: ${match.shots} shots, ${match.ticks} ticks (${(match.shots / match.ticks).toFixed(2)} shots/tick), ${(match.stats.bytesWritten / 1e6).toFixed(1)} MB, generated in ${(genMs / 1000).toFixed(1)} s`);
    }
    const cost = await recordCost(dir);
    if (opts.json) console.log(JSON.stringify({ bench: 'audit-record', tickUs: Number(cost.tickUs.toFixed(2)), shotUs: Number(cost.shotUs.toFixed(2)) }));
    else {
      console.log(`recording: ${cost.tickUs.toFixed(2)} us per 16-player tick, ${cost.shotUs.toFixed(2)} us per shot (in memory; disk writes are async)`);
      console.log('workers  shots/s (median)  per worker  ticks/s     wall ms  mismatches  heap MB');
    }
    for (const workers of [1, 2]) {
      const rates: number[] = [];
      const walls: number[] = [];
      let mismatches = 0;
      let ticks = 0;
      // One untimed round first: JIT warm-up here and in the pooled worker threads.
      await auditMatchLog(match.path, { world, workers });
      for (let r = 0; r < ROUNDS; r++) {
        const a = await auditMatchLog(match.path, { world, workers });
        rates.push(a.shotsPerSecond);
        walls.push(a.replayMs);
        mismatches += a.mismatches.length;
        ticks = a.ticks;
        if (a.shots !== match.shots) throw new Error(`audit replayed ${a.shots} of ${match.shots} shots`);
      }
      const sps = median(rates);
      const loopS = match.shots / sps;
      const heapMb = process.memoryUsage().heapUsed / 1e6;
      if (opts.json) {
        console.log(JSON.stringify({
          bench: 'audit', workers, shotsPerSecond: Math.round(sps), perWorker: Math.round(sps / workers), ticksPerSecond: Math.round(ticks / loopS),
          shots: match.shots, ticks, wallMs: Math.round(median(walls)), mismatches, heapMb: Math.round(heapMb), logMb: Math.round(match.stats.bytesWritten / 1e5) / 10,
        }));
      } else {
        console.log(`${String(workers).padStart(7)}  ${Math.round(sps).toString().padStart(16)}  ${Math.round(sps / workers).toString().padStart(10)}  ${Math.round(ticks / loopS).toString().padStart(7)}  ${Math.round(median(walls)).toString().padStart(10)}  ${String(mismatches).padStart(10)}  ${heapMb.toFixed(0).padStart(7)}`);
      }
    }
  } finally {
    await closeAuditWorkers();
    rmSync(dir, { recursive: true, force: true });
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  const a = benchArgs('audit.bench.ts', ['seconds']);
  await run({ json: a.json, seconds: a.seconds });
}
