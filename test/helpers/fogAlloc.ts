/**
 * Allocation check for fog of war (test/fogUpdate.test.ts runs it as its own process under tsx, as
 * the server runs the code, not through the test runner's module transform, whose calls through
 * module namespaces V8 does not inline): 32 players re-testing every pair (moving half a metre to and
 * fro, so hidden pairs are re-tested as well as visible ones), 300 updates to warm up,
 * then the garbage collections (the fewer of two windows of 2000 updates) and the heap change. Prints
 * one JSON line.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { buildClimbMap, FogOfWar, fogConfigOf, fogMotionOf } from '../../shared/fog/index';
import { defaultMoveConfig } from '../../shared/movement/step';
import { mulberry32 } from '../../shared/util/prng';
import { buildTestWorld } from './server';

const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const world = buildTestWorld();
const fog = new FogOfWar(world, fogConfigOf(fogMotionOf(move, 1 / 64), MANNEQUIN_RIG, { climb: buildClimbMap(world, move.stepHeight), visibleHoldTicks: 0 }), 32);
const rnd = mulberry32(7);
const homeX = new Float64Array(32);
for (let i = 0; i < 32; i++) {
  fog.setTiming(i, 40, 100, 1000 / 64, 25);
  fog.setPlayer(i, -10 + 20 * rnd(), 0, -12 + 20 * rnd(), 0.64, 0, 0, MANNEQUIN_RIG.eyeHeight, true, -1);
  homeX[i] = fog.px[i];
}
// Every other update the players stand half a metre aside, out of their hidden pairs' grown and wide
// regions: hidden pairs are re-tested too (the wide regions, the line memory taking and giving records).
const step = (k: number): void => {
  for (let i = 0; i < 32; i++) fog.px[i] = homeX[i] + 0.5 * (k & 1);
  fog.update();
};
for (let k = 0; k < 300; k++) step(k);
const starts: number[] = [];
const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) starts.push(e.startTime); });
obs.observe({ entryTypes: ['gc'] });
let rays = 0, tested = 0;
// Two windows of 2000 updates; the fewer collections of the two counts. Allocating per pair collects
// several times in each; a one-off (code the optimizer installs while other work loads the machine)
// does not come back in the second.
const windows: { t0: number; t1: number }[] = [];
const h0 = process.memoryUsage().heapUsed;
for (let w = 0; w < 2; w++) {
  const t0 = performance.now();
  for (let k = 0; k < 2000; k++) {
    step(k);
    if (w === 0) { rays += fog.rays; tested += fog.pairsTested; }
  }
  windows.push({ t0, t1: performance.now() });
}
const heap = process.memoryUsage().heapUsed - h0;
await new Promise((resolve) => setTimeout(resolve, 50));
obs.disconnect();
console.log(JSON.stringify({ updates: 2000, rays, tested, gcs: Math.min(...windows.map((w) => starts.filter((t) => t >= w.t0 && t <= w.t1).length)), heapBytes: heap }));
