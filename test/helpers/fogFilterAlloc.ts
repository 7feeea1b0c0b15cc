/**
 * Allocation check for FogFilter.update (test/fogFilter.test.ts runs it as its own process under tsx,
 * as the server runs the code): a HitregMatch of 16 players on the test level with velocities and
 * a team, ticked 300 times and updated 3000 more to warm up, then the heap change and garbage collections
 * during 10000 more FogFilter updates, each followed by a FogMarks update (the match's tick between them is not measured: it runs first, then the
 * update is timed in its own loop over the same recorded state). With --timed, FogFilter.updateTimed
 * (the clock read one update in eight, viewers made precise). Prints one JSON line.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { FogFilter, FogMarks, HitregMatch, type PoseInput } from '../../server/match/index';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { defaultMoveConfig } from '../../shared/movement/step';
import { mulberry32 } from '../../shared/util/prng';
import { WeaponId } from '../../shared/weapons';
import { buildTestWorld } from './server';

const timed = process.argv.includes('--timed');

const N = 16, UPDATES = 10_000;
const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const world = buildTestWorld();
const clock = { ms: 0 };
const rnd = mulberry32(11);
const feet: number[] = [];
for (let i = 0; i < N; i++) feet.push(-10 + 20 * rnd(), -12 + 20 * rnd());
const match = new HitregMatch<string>({
  world, rig: MANNEQUIN_RIG, tickRate: 64, maxPlayers: N, clock: () => clock.ms,
  poses: (id: string, out: PoseInput) => {
    const s = Number(id.slice(1));
    out.x = feet[2 * s]! + 0.01 * (clock.ms / 15.625); out.y = 0; out.z = feet[2 * s + 1]!;
    out.viewX = 0; out.viewY = 0; out.viewZ = 1;
  },
});
for (let i = 0; i < N; i++) match.join(`p${i}`, { team: i % 3 === 0 ? 1 : undefined });
const fog = new FogFilter(match, { movement: move, config: { visibleHoldTicks: 0 } });
const up = timed ? (): void => { fog.updateTimed(); } : (): void => { fog.update(); };
// Half the viewers take backfills: every body's look-back is read from the histories each update.
for (let i = 0; i < N; i += 2) fog.setBackfill(i, true);
for (let k = 0; k < 300; k++) {
  clock.ms += 1000 / 64;
  match.tick();
  up();
}
// Projectiles in flight (spawned straight into the match's flights: no tick runs from here on, so
// they stay where they are): grenades in the open, sent to everyone, and rockets inside the floor,
// which no eye sees, with no shooter in the match (slot -1), so every update tests each of them
// against every viewer.
const NOBODY: undefined[] = new Array(N).fill(undefined);
for (let k = 0; k < 12; k++) {
  const rocket = k % 2 === 0;
  const x = -8 + 16 * rnd(), z = -12 + 6 * rnd();
  match.projectiles.spawn(rocket ? -1 : k % N, rocket ? WeaponId.ROCKET : WeaponId.GRENADE, 1000 + k, clock.ms, clock.ms, 1000 / 64, x, rocket ? -0.6 : 1.2, z, 0, 0, -1, NOBODY, () => {});
}
// Marks (bullet holes) of no player: 8 on the floor, sent to the viewers that may see them once tested, and
// 8 inside the floor, which no eye sees: every update tests some of them within its ray budget.
const marks = new FogMarks(fog, { capacity: 16 });
for (let k = 0; k < 16; k++) marks.add(-8 + 16 * rnd(), k % 2 === 0 ? 0.02 : -0.6, -12 + 6 * rnd(), 0.05, -1);
// The update alone until V8 has optimized it (on a loaded machine its compiles land late).
for (let k = 0; k < 3000; k++) { up(); marks.update(); }
// The warm-up's garbage collected now (run with --expose-gc), so no collection of it falls in the measured loop.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
gc?.();
const starts: number[] = [];
const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) starts.push(e.startTime); });
obs.observe({ entryTypes: ['gc'] });
let tested = 0, marksTested = 0;
const h0 = process.memoryUsage().heapUsed;
const t0 = performance.now();
for (let k = 0; k < UPDATES; k++) {
  up();
  marks.update();
  tested += fog.fog.pairsTested;
  marksTested += marks.tested;
}
const t1 = performance.now();
const heap = process.memoryUsage().heapUsed - h0;
await new Promise((resolve) => setTimeout(resolve, 50));
obs.disconnect();
console.log(JSON.stringify({ precise: fog.precision.preciseCount, updates: UPDATES, tested, flights: match.projectiles.count, flightsSent: fog.flightSent.reduce((a, b) => a + b, 0), marksTested, marksSentOpen: marks.sent.filter((x, i) => x === 1 && Math.floor(i / N) % 2 === 0).length, marksSentFloor: marks.sent.filter((x, i) => x === 1 && Math.floor(i / N) % 2 === 1).length, gcs: starts.filter((t) => t >= t0 && t <= t1).length, heapBytes: heap, bytesPerUpdate: Math.round(heap / UPDATES) }));
