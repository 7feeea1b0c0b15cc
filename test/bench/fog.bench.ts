/**
 * Fog-of-war benchmark: the cost of FogOfWar.update (shared/fog) per tick at 16, 32 and 64 players
 * on the default level (--level rooms: the walled rooms level, server/level/rooms.ts), and how much
 * it withholds.
 *
 * The configuration is the server's: the level's climb map and walk grid (eye regions cut by walls;
 * --no-walk leaves them uncut).
 * Players start at the level's spawn points (autoSpawnPoints; on rooms spread over the level,
 * spreadSpawnPoints) and move by the movement step at 64 Hz (test/helpers/walkers.ts): each holds a seeded wish direction for 0.3 to 2 s, sometimes
 * stands still, and jumps now and then, so they spread over the level, run into walls and slide
 * along them. Their motion is computed first (5 s to spread out, then the measured ticks), then
 * replayed into a fresh FogOfWar per round: the first 64 ticks of a round warm its memory untimed,
 * the rest are timed one update per tick (a patch every tick, the server's default). Each viewer's
 * timing is seeded: one-way 20..80 ms, interpolation 100 ms, patch 15.625 ms, safety 25 ms; with
 * --backfill, viewers that take backfills (FogOfWar.setTiming's backfill: no patch on the eye, bodies
 * a tick ahead and over their last two ticks, pastR from the walk) at the 16 ms margin of a client
 * that stamps its inputs.
 *
 * Per row: usPerTick (median over rounds of the mean wall time of one update; cpuUsPerTick the same
 * loop as process CPU time), p99UsPerTick (99th percentile of single updates, all rounds), raysPerTick,
 * chainStepsPerTick (triangles crossed by the walks that block a family of crossing lines whole: shared/fog/chain),
 * pairsTestedPerTick (pairs decided by rays; the others were held visible or cached hidden),
 * visibleShare (enemy pairs sent), occludedShare (enemy pairs with no clear line from the current
 * eye to the current body: eye to 9 points of the body envelope, measured untimed) and
 * withheldOfOccluded (of those, the share the fog withheld), gcs during the timed rounds. A second
 * row per size, `uncached: true`, runs every pair's full rule every tick (no hold, no slack cache):
 * the cost the caches save.
 *
 * gcs counts collections during the timed rounds (the update allocates nothing: test/fogUpdate.test.ts;
 * what remains is the bench's own per-tick bookkeeping). --fans turns on the fans (shared/fog/rays).
 *
 * --opening, --cross-opening, --slack, --slack-y, --hold (0 or more), --widen, --tight (0..1) and --lead set openingM, crossOpeningM, hiddenSlackM, hiddenSlackYM,
 * visibleHoldTicks, hiddenWiden, hiddenTight and hiddenLeadS (shared/fog/config) to weigh cost against what is withheld.
 * --players N measures that one size; --no-uncached leaves out the uncached rows. --max-rays N sets
 * maxRaysPerUpdate (the rows then give pairsOverBudgetPerTick: pairs sent untested for the cap).
 *
 * Run: npm run bench:fog [-- --json] [-- --level rooms] [-- --backfill] [-- --ticks N] [-- --rounds N] [-- --players N] [-- --no-uncached] [-- --fans] [-- --opening M] ...
 */
import { benchArgs } from './args';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../../server/level/gltf';
import { autoSpawnPoints, spreadSpawnPoints } from '../../server/level/spawnPoints';
import { roomsLevel } from '../../server/level/rooms';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { defaultMoveConfig } from '../../shared/movement/step';
import { mulberry32 } from '../../shared/util/prng';
import { loadWalkTick, walkPlayers, WALK_HZ, WALK_STRIDE, type Walk } from '../helpers/walkers';
import { buildClimbMap, buildWalkGrid, FOG_NO_CACHES, FogOfWar, FogPrecision, fogConfigOf, fogMotionOf, type FogConfig } from '../../shared/fog/index';
import type { World } from '../../shared/world/world';
import { DEFAULT_FOG_PRECISION_MS } from '../../server/match/fogOptions';

const HZ = WALK_HZ;
const SIZES = [16, 32, 64];
const WARM_TICKS = 64;
const F = WALK_STRIDE;
type Frames = Walk;

/** Tick t into the fog; with `back` ticks of look-back, each body's past spread over them. */
function load(fog: FogOfWar, f: Frames, t: number, back = 0): void {
  loadWalkTick(fog, f.state, f.n, t, MANNEQUIN_RIG.eyeHeight, back);
}

/** Share of enemy pairs at tick t with no clear line from the current eye to the body envelope's 9 points. */
function occluded(world: World, cfg: FogConfig, f: Frames, t: number, hidden: Uint8Array): number {
  const eye = MANNEQUIN_RIG.eyeHeight, b = cfg.body, n = f.n, s = f.state;
  let count = 0;
  for (let v = 0; v < n; v++) {
    const ov = (t * n + v) * F;
    for (let e = 0; e < n; e++) {
      hidden[v * n + e] = 0;
      if (e === v) continue;
      const oe = (t * n + e) * F;
      let clear = false;
      for (let k = 0; k < 9 && !clear; k++) {
        const y = s[oe + 1] + b.bottom + ((b.top - b.bottom) * (k % 3 + 0.5)) / 3;
        const lat = k < 3 ? 0 : k < 6 ? 0.8 : -0.8;
        const dx = s[oe] - s[ov], dz = s[oe + 2] - s[ov + 2], l = Math.sqrt(dx * dx + dz * dz) || 1;
        clear = !world.anyHit(s[ov], s[ov + 1] + eye, s[ov + 2], s[oe] - (dz / l) * b.radius * lat, y, s[oe + 2] + (dx / l) * b.radius * lat);
      }
      if (!clear) { hidden[v * n + e] = 1; count++; }
    }
  }
  return count;
}

const gcStarts: number[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcStarts.push(e.startTime);
});

/** After an update timed from t0 to t1: the precision's share of it, as FogFilter.updateTimed gives it (one update in TIME_EVERY). */
function timedInto(prec: FogPrecision, fog: FogOfWar, t0: number, t1: number): void {
  if (prec.timing()) { prec.ms[0] = t0; prec.ms[1] = t1; }
  prec.adjust(fog);
}

async function measure(world: World, cfg: FogConfig, f: Frames, rounds: number, uncached: boolean, backfill: boolean, warm: number, precisionMs: number): Promise<Record<string, unknown>> {
  const n = f.n, budget = uncached ? 0 : precisionMs;
  const rnd = mulberry32(0x7171 + n);
  const oneWay = Array.from({ length: n }, () => 20 + 60 * rnd());
  const c = uncached ? { ...cfg, ...FOG_NO_CACHES } : cfg;
  // A backfill viewer's bodies over their last patch and a tick (the patch is a tick here).
  const back = backfill ? 2 : 0;
  const means: number[] = [], cpus: number[] = [], singles: number[] = [];
  let rays = 0, steps = 0, tested = 0, over = 0, enemyPairs = 0, visible = 0, occ = 0, withheldOcc = 0, precise = 0;
  const tickRays: number[] = [];
  const hidden = new Uint8Array(n * n);
  const g0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    const fog = new FogOfWar(world, c, n);
    for (let i = 0; i < n; i++) fog.setTiming(i, oneWay[i], 100, 1000 / HZ, backfill ? 16 : 25, backfill);
    // Viewers made precise within the budget as FogFilter.updateTimed does, from one update's time in TIME_EVERY.
    const prec = new FogPrecision(n, budget);
    for (let t = 0; t < warm; t++) {
      load(fog, f, t, back);
      const t0 = performance.now();
      fog.update();
      timedInto(prec, fog, t0, performance.now());
    }
    let sum = 0;
    const c0 = process.cpuUsage();
    for (let t = warm; t < f.ticks; t++) {
      load(fog, f, t, back);
      const t0 = performance.now();
      fog.update();
      const t1 = performance.now(), us = (t1 - t0) * 1000;
      timedInto(prec, fog, t0, t1);
      sum += us;
      singles.push(us);
      if (r === 0) {
        precise += prec.preciseCount / n;
        rays += fog.rays; steps += fog.chainSteps; tested += fog.pairsTested; over += fog.pairsOverBudget; tickRays.push(fog.rays); enemyPairs += fog.enemyPairs; visible += fog.enemyVisible;
        if ((t & 7) === 0) {
          occ += occluded(world, c, f, t, hidden);
          for (let p = 0; p < n * n; p++) if (hidden[p] === 1 && fog.visible[p] === 0) withheldOcc++;
        }
      }
    }
    const cu = process.cpuUsage(c0);
    means.push(sum / (f.ticks - warm));
    cpus.push((cu.user + cu.system) / (f.ticks - warm));
  }
  const g1 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const ticks = f.ticks - warm;
  const med = (a: number[]): number => a.slice().sort((x, y) => x - y)[a.length >> 1];
  singles.sort((x, y) => x - y);
  return {
    bench: 'fog', players: n, uncached, backfill,
    usPerTick: +med(means).toFixed(1),
    cpuUsPerTick: +med(cpus).toFixed(1),
    p99UsPerTick: +singles[Math.floor(singles.length * 0.99)].toFixed(1),
    raysPerTick: +(rays / ticks).toFixed(1),
    p99RaysPerTick: tickRays.sort((x, y) => x - y)[Math.floor(tickRays.length * 0.99)],
    chainStepsPerTick: +(steps / ticks).toFixed(1),
    pairsTestedPerTick: +(tested / ticks).toFixed(1),
    pairsOverBudgetPerTick: +(over / ticks).toFixed(1),
    enemyPairs: enemyPairs / ticks,
    visibleShare: +(visible / enemyPairs).toFixed(3),
    occludedShare: +(occ / (Math.ceil(ticks / 8) * n * (n - 1))).toFixed(3),
    withheldOfOccluded: +(withheldOcc / Math.max(1, occ)).toFixed(3),
    precisionMs: budget, preciseShare: +(precise / ticks).toFixed(3),
    ticks, rounds, gcs: gcStarts.filter((t) => t >= g0 && t <= g1).length,
    openingM: c.openingM, crossOpeningM: c.crossOpeningM, maxGridSide: c.maxGridSide, fans: c.fans, crossLines: c.crossLines, hiddenLeadS: c.hiddenLeadS, marginM: c.marginM, hiddenSlackM: c.hiddenSlackM, hiddenSlackYM: c.hiddenSlackYM, hiddenWiden: c.hiddenWiden, hiddenTight: c.hiddenTight, visibleHoldTicks: c.visibleHoldTicks, maxRaysPerUpdate: c.maxRaysPerUpdate === Infinity ? null : c.maxRaysPerUpdate,
  };
}

export async function run(opts: { json: boolean; ticks?: number; rounds?: number; fans?: boolean; 'no-cross'?: boolean; opening?: number; 'cross-opening'?: number; slack?: number; 'slack-y'?: number; hold?: string; widen?: number; players?: number; lead?: number; level?: string; tight?: string; 'max-rays'?: number; precision?: string; 'no-walk'?: boolean; 'no-uncached'?: boolean; backfill?: boolean }): Promise<void> {
  const rooms = opts.level === 'rooms';
  if (opts.level !== undefined && !rooms) throw new Error(`--level takes rooms (got ${opts.level})`);
  const world = rooms ? roomsLevel() : await loadWorld(DEFAULT_LEVEL_PATH);
  const level = rooms ? 'rooms' : 'default';
  const tight = opts.tight === undefined ? undefined : Number(opts.tight);
  if (tight !== undefined && !(tight >= 0 && tight <= 1)) throw new Error(`--tight takes a number from 0 to 1 (got ${opts.tight})`);
  const hold = opts.hold === undefined ? undefined : Number(opts.hold);
  if (hold !== undefined && !(Number.isInteger(hold) && hold >= 0 && hold <= 64)) throw new Error(`--hold takes a whole number from 0 to 64 (got ${opts.hold})`);
  const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
  const cfg = fogConfigOf(fogMotionOf(move, 1 / HZ), MANNEQUIN_RIG, {
    climb: buildClimbMap(world, move.stepHeight), walk: opts['no-walk'] === true ? undefined : buildWalkGrid(world, move.probeHeights[0]!, move.radius) ?? undefined, fans: opts.fans === true, crossLines: opts['no-cross'] !== true,
    openingM: opts.opening, crossOpeningM: opts['cross-opening'], maxGridSide: opts.opening ? Math.ceil(5.25 / opts.opening) + 1 : undefined, hiddenSlackM: opts.slack, hiddenSlackYM: opts['slack-y'], visibleHoldTicks: hold, hiddenWiden: opts.widen, hiddenTight: tight, hiddenLeadS: opts.lead,
    maxRaysPerUpdate: opts['max-rays'],
  });
  const precisionMs = opts.precision === undefined ? DEFAULT_FOG_PRECISION_MS : Number(opts.precision);
  if (!(precisionMs >= 0 && precisionMs <= 1000)) throw new Error(`--precision takes a number of ms from 0 to 1000 (got ${opts.precision})`);
  const timed = Math.round(opts.ticks ?? 640);
  const rounds = Math.round(opts.rounds ?? 5);
  gcObserver.observe({ entryTypes: ['gc'] });
  const rows: Record<string, unknown>[] = [];
  for (const n of opts.players !== undefined ? [Math.round(opts.players)] : SIZES) {
    // With a precision budget, long enough a warm-up for every viewer to be made precise (one each few updates).
    const warm = WARM_TICKS + (precisionMs > 0 ? 8 * n : 0);
    const f = walkPlayers(world, rooms ? spreadSpawnPoints(world, n) : autoSpawnPoints(world, n, DEFAULT_LEVEL_PATH), n, warm + timed, 0xf0f0 + n);
    const bf = opts.backfill === true;
    rows.push({ ...(await measure(world, cfg, f, rounds, false, bf, warm, precisionMs)), level });
    if (opts['no-uncached'] !== true) rows.push({ ...(await measure(world, cfg, f, Math.max(1, rounds >> 1), true, bf, warm, precisionMs)), level });
  }
  gcObserver.disconnect();
  if (opts.json) {
    for (const r of rows) console.log(JSON.stringify(r));
    return;
  }
  console.log(`fog: ${rooms ? 'rooms' : DEFAULT_LEVEL_PATH}, ${world.triangleCount} triangles, ${HZ} Hz, ${timed} timed ticks x ${rounds} rounds (median), precision budget ${precisionMs} ms`);
  console.log('  players | cache | us/tick | cpu us | p99 us | rays/tick | tested/tick | visible | occluded | withheld of occluded | gcs');
  for (const r of rows) {
    console.log(`  ${String(r.players).padStart(7)} | ${r.uncached ? '  off' : '   on'} | ${String(r.usPerTick).padStart(7)} | ${String(r.cpuUsPerTick).padStart(6)} | ${String(r.p99UsPerTick).padStart(6)} | ${String(r.raysPerTick).padStart(9)} | ${String(r.pairsTestedPerTick).padStart(11)} | ${String(r.visibleShare).padStart(7)} | ${String(r.occludedShare).padStart(8)} | ${String(r.withheldOfOccluded).padStart(20)} | ${r.gcs}`);
  }
  console.log('  target: < 1000 us per tick at 32 players on one core');
}

// Standalone: tsx test/bench/fog.bench.ts [--json]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(benchArgs('fog.bench.ts', ['ticks', 'rounds', 'opening', 'cross-opening', 'slack', 'slack-y', 'widen', 'players', 'lead', 'max-rays'], ['level', 'tight', 'hold', 'precision'], process.argv.slice(2), ['fans', 'no-cross', 'no-walk', 'no-uncached', 'backfill']));
}
