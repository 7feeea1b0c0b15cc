/**
 * Benchmark of every segment-vs-triangle kernel and the swept sphere on the same seeded random
 * triangles and segments: each segment against every triangle, two warm-up runs, then the median of
 * several timed runs interleaved across kernels. Prints a table, or with `--json` one JSON object per line:
 *   { kernel, nsPerTest, hitRate, tests, runs, bytesPerTriangle, minorGcsPerMillionTests }
 * bytesPerTriangle is what the kernel keeps per triangle (positions as a triangle soup of doubles,
 * or its precomputed array). minorGcsPerMillionTests counts young-generation collections while the
 * kernel runs: about 0 for a kernel that allocates nothing per test (one boxed double per test
 * would show up as several per million). Run: npm run bench:kernels [-- --json] [-- --runs N]
 */
import { createSegmentHit } from '../../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, intersectWatertight, prepareSegment } from '../../shared/kernels/watertight';
import { intersectMollerTrumbore } from '../../shared/kernels/mollerTrumbore';
import { buildCollisionMatrices, COLLISION_MATRIX_STRIDE, intersectCollisionMatrix } from '../../shared/kernels/collisionMatrix';
import { intersectPlaneBarycentric } from '../../shared/kernels/planeBarycentric';
import {
  buildSweepFrames, createSweepHit, SWEEP_FRAME_STRIDE, sweepSphereFace, sweepSphereTriangle,
} from '../../shared/kernels/sweptSphere';
import { intersectAngleSum } from '../reference/angleSum';
import { mulberry32, uniform } from '../../shared/util/prng';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { benchArgs } from './args';

const args = benchArgs('kernels.bench.ts', ['runs']);
const json = args.json;
const RUNS = Math.max(1, (args.runs ?? 7) | 0);
const SEED = 0x5eed;
const TRIANGLES = 2048;
const SEGMENTS = 256;
const SPHERE_RADIUS = 0.05;

// Triangles of size ~0.3-1.2 scattered in a unit-ish box, segments crossing the box: a mix of hits
// and misses like a shot through a room, not all-miss or all-hit.
const rng = mulberry32(SEED);
const tris = new Float64Array(TRIANGLES * 9);
for (let t = 0; t < TRIANGLES; t++) {
  const cx = uniform(rng, -1, 1), cy = uniform(rng, -1, 1), cz = uniform(rng, -1, 1);
  for (let v = 0; v < 3; v++) {
    tris[9 * t + 3 * v] = cx + uniform(rng, -0.6, 0.6);
    tris[9 * t + 3 * v + 1] = cy + uniform(rng, -0.6, 0.6);
    tris[9 * t + 3 * v + 2] = cz + uniform(rng, -0.6, 0.6);
  }
}
const segs = new Float64Array(SEGMENTS * 6);
for (let s = 0; s < SEGMENTS; s++) {
  for (let k = 0; k < 6; k++) segs[6 * s + k] = uniform(rng, -1.5, 1.5);
}
const matrices = buildCollisionMatrices(tris, null);
const frames = buildSweepFrames(tris, null);
const hit = createSegmentHit();
const sweepHit = createSweepHit();
const prepared = createPreparedSegment();

type Loop = () => number; // returns the number of hits

/** Runs fn(segment offset, triangle offset) over every pair; one function per kernel keeps call sites monomorphic. */
const loops: { kernel: string; bytesPerTriangle: number; loop: Loop }[] = [
  {
    kernel: 'watertight (prepared segment)', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        prepareSegment(prepared, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5]);
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectPrepared(hit, prepared, tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5],
            tris[t + 6], tris[t + 7], tris[t + 8], false, 1)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'watertight cull (prepared segment)', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        prepareSegment(prepared, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5]);
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectPrepared(hit, prepared, tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5],
            tris[t + 6], tris[t + 7], tris[t + 8], true, 1)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'watertight (one-shot, prepares every test)', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectWatertight(hit, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5],
            tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5], tris[t + 6], tris[t + 7], tris[t + 8])) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'moller-trumbore', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectMollerTrumbore(hit, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5],
            tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5], tris[t + 6], tris[t + 7], tris[t + 8], false)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'moller-trumbore cull', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectMollerTrumbore(hit, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5],
            tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5], tris[t + 6], tris[t + 7], tris[t + 8], true)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'collision-matrix (precomputed)', bytesPerTriangle: 8 * COLLISION_MATRIX_STRIDE, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES; t++) {
          if (intersectCollisionMatrix(hit, matrices, t, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5], false)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'collision-matrix cull (precomputed)', bytesPerTriangle: 8 * COLLISION_MATRIX_STRIDE, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES; t++) {
          if (intersectCollisionMatrix(hit, matrices, t, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5], true)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'plane-barycentric', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectPlaneBarycentric(hit, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5],
            tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5], tris[t + 6], tris[t + 7], tris[t + 8], false)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: 'angle-sum (reference, test/ only)', bytesPerTriangle: 72, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES * 9; t += 9) {
          if (intersectAngleSum(hit, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5],
            tris[t], tris[t + 1], tris[t + 2], tris[t + 3], tris[t + 4], tris[t + 5], tris[t + 6], tris[t + 7], tris[t + 8])) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: `swept-sphere r=${SPHERE_RADIUS} (face+edges+vertices)`, bytesPerTriangle: 8 * SWEEP_FRAME_STRIDE, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES; t++) {
          if (sweepSphereTriangle(sweepHit, frames, t, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5], SPHERE_RADIUS)) hits++;
        }
      }
      return hits;
    },
  },
  {
    kernel: `swept-sphere r=${SPHERE_RADIUS} (face only, seed 004)`, bytesPerTriangle: 8 * SWEEP_FRAME_STRIDE, loop: () => {
      let hits = 0;
      for (let s = 0; s < SEGMENTS * 6; s += 6) {
        for (let t = 0; t < TRIANGLES; t++) {
          if (sweepSphereFace(sweepHit, frames, t, segs[s], segs[s + 1], segs[s + 2], segs[s + 3], segs[s + 4], segs[s + 5], SPHERE_RADIUS)) hits++;
        }
      }
      return hits;
    },
  },
];

const tests = TRIANGLES * SEGMENTS;
// Warm-up: every kernel twice (the JIT's chance to optimise), recording the hit counts.
const hitCounts = loops.map(({ loop }) => { loop(); return loop(); });
// Timed rounds interleave the kernels, so a burst of load on this shared machine lands on all of
// them rather than on whichever kernel happened to be running.
const times: number[][] = loops.map(() => []);
for (let r = 0; r < RUNS; r++) {
  loops.forEach(({ kernel, loop }, i) => {
    const t0 = performance.now();
    const h = loop();
    times[i].push(performance.now() - t0);
    if (h !== hitCounts[i]) {
      throw new Error(`${kernel}: hit count changed between runs (${hitCounts[i]} then ${h}): the kernel is not deterministic`);
    }
  });
}
// Allocation: count minor (scavenge) collections during a few more runs of each kernel.
let scavenges = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
  }
});
gcObserver.observe({ entryTypes: ['gc'] });
const flush = () => new Promise((resolve) => setTimeout(resolve, 20));
const ALLOC_RUNS = 4;
const gcsPerMillion: number[] = [];
for (const { loop } of loops) {
  await flush();
  const before = scavenges;
  for (let r = 0; r < ALLOC_RUNS; r++) loop();
  await flush();
  gcsPerMillion.push(Number((((scavenges - before) * 1e6) / (ALLOC_RUNS * tests)).toFixed(2)));
}
gcObserver.disconnect();

const rows: Record<string, unknown>[] = [];
loops.forEach(({ kernel, bytesPerTriangle }, i) => {
  const sorted = [...times[i]].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)];
  const row = {
    kernel,
    nsPerTest: Number(((median * 1e6) / tests).toFixed(2)),
    hitRate: Number((hitCounts[i] / tests).toFixed(5)),
    tests,
    runs: RUNS,
    bytesPerTriangle,
    minorGcsPerMillionTests: gcsPerMillion[i],
  };
  rows.push(row);
  if (json) console.log(JSON.stringify(row));
});
if (!json) {
  console.log(`kernels: ${TRIANGLES} triangles x ${SEGMENTS} segments, seed ${SEED}, median of ${RUNS} interleaved runs after warm-up, node ${process.version}`);
  console.table(rows.map(({ kernel, nsPerTest, hitRate, bytesPerTriangle, minorGcsPerMillionTests }) => ({
    kernel, 'ns/test': nsPerTest, 'hit rate': hitRate, 'bytes/triangle': bytesPerTriangle,
    'minor GCs / 1M tests': minorGcsPerMillionTests,
  })));
}
