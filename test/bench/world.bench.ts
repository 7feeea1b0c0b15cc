/**
 * World benchmark, side by side in one process: this project's first-hit query against
 * three-mesh-bvh (raycastFirst, both sides, CENTER and SAH builds) and Rapier (trimesh collider,
 * castRay) on the two real levels, with the same seeded incoherent segments (origins around the level,
 * ends inside its bounds) and every answer cross-checked (hit/miss and t). Prints a table and the
 * garbage collections seen during each query loop; with --json, one JSON line per scene.
 *
 * All three see the same float32 vertex values (the level's baked positions rounded once), so
 * disagreements mean different answers, not different inputs.
 *
 * Scenes: the two shipped levels, and a 480,000-triangle scene made of the bistro and a partial copy
 * of it offset along x (bistro-x2-480k), for build times at that size. For ours the JSON also gives
 * the bytes per triangle, the SAH tree's build alone (sahBuildMs) and the time World.fromBuffer takes
 * to load and check the bytes (loadMs).
 *
 * Multi-hit (shots through walls): World.allHits (every triangle on the segment, capacity 64) against
 * firstHit on the same segments, interleaved; the JSON's multiHit gives both costs, their ratio, the
 * hits per segment (mean, max; how many segments overflowed the 64 entries) and whether entry 0 of
 * every allHits answer had firstHit's t.
 *
 * Run: npm run bench:world [-- --json] [-- --queries N] [-- --scene bistro-collision]
 */
import { benchArgs } from './args';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { MeshBVH, CENTER, SAH } from 'three-mesh-bvh';
import { loadLevelMesh, type LevelMesh } from '../../server/level/gltf';
import { World, createWorldHit, createWorldHits } from '../../shared/world/world';
import { mulberry32 as rng } from '../../shared/util/prng';
import { buildBvh } from '../../shared/bvh/build';
import { createSweepHit } from '../../shared/kernels/sweptSphere';

const ASSETS = fileURLToPath(new URL('../../server/assets/', import.meta.url));
/** Triangles of the large scene: bistro plus its first 220,676 triangles again, offset along x. */
const LARGE_TRIANGLES = 480_000;
const SCENES: { scene: string; load: () => Promise<LevelMesh> }[] = [
  { scene: 'bistro-collision', load: () => loadLevelMesh(ASSETS + 'bistro-collision.glb') },
  { scene: 'collision-world', load: () => loadLevelMesh(ASSETS + 'collision-world.glb') },
  { scene: 'bistro-x2-480k', load: async () => twoBistros(await loadLevelMesh(ASSETS + 'bistro-collision.glb'), LARGE_TRIANGLES) },
];

/**
 * A 480k-triangle scene from real geometry: the bistro, then a copy of its first (total - 259,324)
 * triangles moved along +x by the bistro's x extent plus 1 m, so the two never overlap.
 */
function twoBistros(m: LevelMesh, total: number): LevelMesh {
  const n = m.indices.length / 3;
  const extra = total - n;
  let minx = Infinity, maxx = -Infinity;
  for (let i = 0; i < m.positions.length; i += 3) {
    minx = Math.min(minx, m.positions[i]);
    maxx = Math.max(maxx, m.positions[i]);
  }
  const shift = Math.fround(maxx - minx + 1);
  const vcount = m.positions.length / 3;
  const positions = new Float64Array(m.positions.length * 2);
  positions.set(m.positions);
  for (let i = 0; i < m.positions.length; i += 3) {
    positions[m.positions.length + i] = m.positions[i] + shift;
    positions[m.positions.length + i + 1] = m.positions[i + 1];
    positions[m.positions.length + i + 2] = m.positions[i + 2];
  }
  const indices = new Uint32Array(total * 3);
  indices.set(m.indices);
  for (let i = 0; i < extra * 3; i++) indices[n * 3 + i] = m.indices[i] + vcount;
  const surfaceRanges = [...m.surfaceRanges];
  for (const r of m.surfaceRanges) {
    if (r.start >= extra) break;
    surfaceRanges.push({ ...r, start: r.start + n, count: Math.min(r.count, extra - r.start), node: `${r.node} (copy)` });
  }
  return { positions, indices, surfaceRanges };
}
const SEED = 0x5eed3;
/** Agreement tolerance on t, as a distance in metres along the segment (peers work in float32). */
const T_TOL_METRES = 1e-3;
/** Timed builds per implementation, after WARMUP_BUILDS untimed ones (JIT); the median is reported. */
const BUILDS = 5;
const WARMUP_BUILDS = 3;


/** Seeded incoherent segments: start anywhere in the bounds grown by half the extent each side, end inside the bounds. */
export function makeSegments(bounds: Float64Array, count: number, seed: number): Float64Array {
  const r = rng(seed);
  const seg = new Float64Array(count * 6);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < 3; k++) {
      const lo = bounds[k];
      const hi = bounds[k + 3];
      const ext = hi - lo;
      seg[i * 6 + k] = lo - 0.5 * ext + r() * 2 * ext;
      seg[i * 6 + 3 + k] = lo + r() * ext;
    }
  }
  return seg;
}

interface ImplResult {
  nsPerQuery: number;
  cpuNsPerQuery: number;
  buildMs: number;
  bytes: number;
  gcs: number;
  t: Float64Array; // NaN = miss
}

/** Counts GC entries whose start falls in [from, to]. The observer delivers asynchronously. */
class GcCounter {
  private entries: PerformanceEntry[] = [];
  private obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.entries.push(e);
  });
  start(): void {
    this.obs.observe({ entryTypes: ['gc'] });
  }
  async count(from: number, to: number): Promise<number> {
    await new Promise((r) => setTimeout(r, 20));
    let n = 0;
    for (const e of this.entries) if (e.startTime >= from && e.startTime <= to) n++;
    return n;
  }
  stop(): void {
    this.obs.disconnect();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/**
 * Times every implementation's query loop, interleaved round by round (A B C D, A B C D, ...) so a
 * busy machine slows all of them alike; the median round per implementation is reported.
 */
async function timeInterleaved(
  gc: GcCounter,
  n: number,
  rounds: number,
  bodies: Record<string, () => void>,
): Promise<Record<string, { nsPerQuery: number; cpuNsPerQuery: number; gcs: number }>> {
  const names = Object.keys(bodies);
  // Two warm-up rounds (not timed): the first gets the loops optimized on-stack, the second runs
  // the whole-function optimized code, so timed rounds see no tier-up garbage.
  for (let w = 0; w < 2; w++) for (const k of names) bodies[k]();
  const times: Record<string, number[]> = {};
  const cpuTimes: Record<string, number[]> = {};
  const gcs: Record<string, number> = {};
  for (const k of names) {
    times[k] = [];
    cpuTimes[k] = [];
    gcs[k] = 0;
  }
  for (let r = 0; r < rounds; r++) {
    for (const k of names) {
      const c0 = cpuMs();
      const t0 = performance.now();
      bodies[k]();
      const t1 = performance.now();
      cpuTimes[k].push(((cpuMs() - c0) * 1e6) / n);
      times[k].push(((t1 - t0) * 1e6) / n);
      gcs[k] += await gc.count(t0, t1);
    }
  }
  const out: Record<string, { nsPerQuery: number; cpuNsPerQuery: number; gcs: number }> = {};
  for (const k of names) out[k] = { nsPerQuery: median(times[k]), cpuNsPerQuery: median(cpuTimes[k]), gcs: gcs[k] };
  return out;
}

/**
 * CPU time of this process in ms (user + system). On a machine shared with other jobs, wall time
 * also counts the time the scheduler gives them; CPU time leaves that out (not the cache and
 * memory-bandwidth contention), so the JSON reports both.
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** World.allHits against firstHit, same segments: costs, hits per segment, entry 0 against firstHit. */
interface MultiHitResult {
  firstHitNsPerQuery: number;
  allHitsNsPerQuery: number;
  firstHitCpuNsPerQuery: number;
  allHitsCpuNsPerQuery: number;
  allHitsVsFirstHit: number;
  allHitsGcs: number;
  capacity: number;
  meanHits: number;
  maxHits: number;
  overflowed: number;
  /** Segments whose allHits entry 0 had exactly firstHit's t (all of them, or a bug). */
  firstEntryAgrees: number;
}

async function measureMultiHit(gc: GcCounter, w: World, segs: Float64Array, queries: number, rounds: number): Promise<MultiHitResult> {
  const capacity = 64;
  const hits = createWorldHits(capacity);
  const hit = createWorldHit();
  const first = new Float64Array(queries);
  const entry0 = new Float64Array(queries);
  const totals = new Float64Array(queries);
  const timed = await timeInterleaved(gc, queries, rounds, {
    firstHit: () => {
      for (let i = 0; i < queries; i++) {
        const o = i * 6;
        first[i] = w.firstHit(hit, segs[o], segs[o + 1], segs[o + 2], segs[o + 3], segs[o + 4], segs[o + 5]) ? hit.t : NaN;
      }
    },
    allHits: () => {
      for (let i = 0; i < queries; i++) {
        const o = i * 6;
        entry0[i] = w.allHits(hits, segs[o], segs[o + 1], segs[o + 2], segs[o + 3], segs[o + 4], segs[o + 5]) > 0 ? hits.t[0] : NaN;
        totals[i] = hits.total;
      }
    },
  });
  let sum = 0, most = 0, over = 0, agree = 0;
  for (let i = 0; i < queries; i++) {
    sum += totals[i];
    if (totals[i] > most) most = totals[i];
    if (totals[i] > capacity) over++;
    if (Object.is(first[i], entry0[i])) agree++;
  }
  const f = timed['firstHit'], a = timed['allHits'];
  return {
    firstHitNsPerQuery: +f.nsPerQuery.toFixed(1), allHitsNsPerQuery: +a.nsPerQuery.toFixed(1),
    firstHitCpuNsPerQuery: +f.cpuNsPerQuery.toFixed(1), allHitsCpuNsPerQuery: +a.cpuNsPerQuery.toFixed(1),
    allHitsVsFirstHit: +(a.nsPerQuery / f.nsPerQuery).toFixed(2), allHitsGcs: a.gcs,
    capacity, meanHits: +(sum / queries).toFixed(2), maxHits: most, overflowed: over, firstEntryAgrees: agree,
  };
}

/** Rapier's wasm memory, captured at instantiation so its heap growth during a build can be reported. */
interface WasmMemoryLike { buffer: ArrayBuffer }
let rapierMemory: WasmMemoryLike | undefined;
async function loadRapier(): Promise<typeof import('@dimforge/rapier3d-compat')> {
  // lib is ES2022 without DOM, so WebAssembly is reached untyped.
  const WA = (globalThis as unknown as { WebAssembly: { instantiate: (...a: unknown[]) => Promise<unknown> } }).WebAssembly;
  const orig = WA.instantiate;
  WA.instantiate = async (...args: unknown[]) => {
    const res = await orig(...args);
    const inst = (res as { instance?: { exports: Record<string, unknown> } }).instance ?? (res as { exports: Record<string, unknown> });
    const mem = inst?.exports?.memory as WasmMemoryLike | undefined;
    // Rapier's module is the one exporting reserve_memory (another wasm module is instantiated too).
    if (mem && mem.buffer instanceof ArrayBuffer && 'reserve_memory' in (inst?.exports ?? {})) rapierMemory = mem;
    return res;
  };
  try {
    const mod = await import('@dimforge/rapier3d-compat');
    const RAPIER = (mod as unknown as { default?: typeof mod }).default ?? mod;
    await RAPIER.init();
    return RAPIER;
  } finally {
    WA.instantiate = orig;
  }
}

export async function run(opts: { json: boolean; queries?: number; rounds?: number; scene?: string }): Promise<void> {
  const queries = opts.queries ?? 100_000;
  const rounds = opts.rounds ?? 5;
  const RAPIER = await loadRapier();
  const gc = new GcCounter();
  gc.start();
  for (const sc of SCENES) {
    if (opts.scene !== undefined && sc.scene !== opts.scene) continue;
    const mesh = await sc.load();
    const pos32 = Float32Array.from(mesh.positions);
    const idx = mesh.indices;
    const triangles = idx.length / 3;
    const results: Record<string, ImplResult> = {};
    const bodies: Record<string, () => void> = {};
    const builds: Record<string, { buildMs: number; bytes: number; t: Float64Array }> = {};

    // --- this project ---
    // Every implementation: untimed warm-up builds (JIT), then the median of BUILDS timed builds. The
    // very first (cold) build of ours is printed too: that is what a server pays once at startup.
    const buildTimes: number[] = [];
    let world!: World;
    const c0 = performance.now();
    World.fromTriangles(pos32, idx, mesh.surfaceRanges);
    const coldMs = performance.now() - c0;
    for (let w = 1; w < WARMUP_BUILDS; w++) World.fromTriangles(pos32, idx, mesh.surfaceRanges);
    for (let r = 0; r < BUILDS; r++) {
      const t0 = performance.now();
      world = World.fromTriangles(pos32, idx, mesh.surfaceRanges);
      buildTimes.push(performance.now() - t0);
    }
    // The SAH tree alone (buildMs above also packs the world's bytes: triangle copy, checks, header).
    const sahTimes: number[] = [];
    for (let r = 0; r < BUILDS; r++) {
      const t0 = performance.now();
      buildBvh(pos32, idx);
      sahTimes.push(performance.now() - t0);
    }
    const sahMs = median(sahTimes);
    // Loading the world's bytes as a client does (World.fromBuffer: copy, content hash, every check).
    const bytes = world.toBuffer();
    const loadTimes: number[] = [];
    for (let r = 0; r < WARMUP_BUILDS + BUILDS; r++) {
      const t0 = performance.now();
      World.fromBuffer(bytes);
      if (r >= WARMUP_BUILDS) loadTimes.push(performance.now() - t0);
    }
    const loadMs = median(loadTimes);
    const bounds = world.bounds(new Float64Array(6));
    const segs = makeSegments(bounds, queries, SEED);
    {
      const out = new Float64Array(queries);
      const hit = createWorldHit();
      const w = world;
      bodies['hitreg'] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          out[i] = w.firstHit(hit, segs[o], segs[o + 1], segs[o + 2], segs[o + 3], segs[o + 4], segs[o + 5]) ? hit.t : NaN;
        }
      };
      builds['hitreg'] = { buildMs: median(buildTimes), bytes: world.byteLength, t: out };
    }

    // --- three-mesh-bvh, default (CENTER) and SAH ---
    for (const [name, strategy] of [['three-mesh-bvh', CENTER], ['three-mesh-bvh-sah', SAH]] as const) {
      const geom = new THREE.BufferGeometry();
      geom.setAttribute('position', new THREE.BufferAttribute(pos32, 3));
      geom.setIndex(new THREE.BufferAttribute(idx.slice(), 1));
      const bt: number[] = [];
      let bvh!: MeshBVH;
      for (let w = 0; w < WARMUP_BUILDS; w++) new MeshBVH(geom, { strategy });
      for (let r = 0; r < BUILDS; r++) {
        const t0 = performance.now();
        bvh = new MeshBVH(geom, { strategy });
        bt.push(performance.now() - t0);
      }
      const ser = MeshBVH.serialize(bvh, { cloneBuffers: false });
      let bytes = pos32.byteLength + (ser.index ? ser.index.byteLength : 0);
      for (const root of ser.roots) bytes += root.byteLength;
      const ray = new THREE.Ray();
      const out = new Float64Array(queries);
      bodies[name] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          const dx = segs[o + 3] - segs[o], dy = segs[o + 4] - segs[o + 1], dz = segs[o + 5] - segs[o + 2];
          const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
          ray.origin.set(segs[o], segs[o + 1], segs[o + 2]);
          ray.direction.set(dx / len, dy / len, dz / len);
          const h = bvh.raycastFirst(ray, THREE.DoubleSide, 0, len);
          out[i] = h ? h.distance / len : NaN;
        }
      };
      builds[name] = { buildMs: median(bt), bytes, t: out };
    }

    // --- Rapier ---
    let rapierWorld!: InstanceType<typeof RAPIER.World>;
    {
      rapierWorld = new RAPIER.World({ x: 0, y: 0, z: 0 });
      const rw = rapierWorld;
      const memBefore = rapierMemory ? rapierMemory.buffer.byteLength : 0;
      const bt: number[] = [];
      let collider!: InstanceType<typeof RAPIER.Collider>;
      for (let r = 0; r < WARMUP_BUILDS + BUILDS; r++) {
        if (collider) rw.removeCollider(collider, false);
        const t0 = performance.now();
        collider = rw.createCollider(RAPIER.ColliderDesc.trimesh(pos32, idx));
        if (r >= WARMUP_BUILDS) bt.push(performance.now() - t0);
      }
      const memAfter = rapierMemory ? rapierMemory.buffer.byteLength : 0;
      const ray = new RAPIER.Ray({ x: 0, y: 0, z: 0 }, { x: 0, y: 0, z: 1 });
      const out = new Float64Array(queries);
      bodies['rapier'] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          ray.origin.x = segs[o]; ray.origin.y = segs[o + 1]; ray.origin.z = segs[o + 2];
          ray.dir.x = segs[o + 3] - segs[o]; ray.dir.y = segs[o + 4] - segs[o + 1]; ray.dir.z = segs[o + 5] - segs[o + 2];
          const toi = collider.castRay(ray, 1, true);
          out[i] = toi >= 0 ? toi : NaN;
        }
      };
      builds['rapier'] = { buildMs: median(bt), bytes: memAfter - memBefore, t: out };
    }
    const timed = await timeInterleaved(gc, queries, rounds, bodies);
    for (const k of Object.keys(bodies)) results[k] = { ...timed[k], ...builds[k] };
    rapierWorld.free();

    // --- the other world queries (ours only: no peer has them in this form), same segments ---
    const other: Record<string, () => void> = {};
    {
      const w = world;
      const sink = new Float64Array(queries);
      const sh = createSweepHit();
      const cam = new Float64Array(3);
      const lines = new Float64Array([0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5, 0.4, 0, 0.4, -0.4, 0, 0.4]);
      const ext = bounds[4] - bounds[1];
      other['anyHit'] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          sink[i] = w.anyHit(segs[o], segs[o + 1], segs[o + 2], segs[o + 3], segs[o + 4], segs[o + 5]) ? 1 : 0;
        }
      };
      other['groundHeight'] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          sink[i] = w.groundHeight(segs[o + 3], segs[o + 4], segs[o + 5], ext);
        }
      };
      other['sweepSphere r=0.3'] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          sink[i] = w.sweepSphere(sh, segs[o], segs[o + 1], segs[o + 2], segs[o + 3], segs[o + 4], segs[o + 5], 0.3) ? sh.t : NaN;
        }
      };
      other['cameraPushBack 5 lines'] = () => {
        for (let i = 0; i < queries; i++) {
          const o = i * 6;
          sink[i] = w.cameraPushBack(cam, segs[o + 3], segs[o + 4], segs[o + 5], lines) ? cam[0] : NaN;
        }
      };
    }
    const otherTimed = opts.json ? {} : await timeInterleaved(gc, queries, Math.min(rounds, 3), other);
    const multiHit = await measureMultiHit(gc, world, segs, queries, rounds);

    // --- cross-check every answer against ours ---
    const mine = results['hitreg'].t;
    let agree = 0;
    const disagreements: Record<string, number> = {};
    const maxDev: Record<string, number> = {};
    for (let i = 0; i < queries; i++) {
      const o = i * 6;
      const dx = segs[o + 3] - segs[o], dy = segs[o + 4] - segs[o + 1], dz = segs[o + 5] - segs[o + 2];
      const tol = T_TOL_METRES / Math.sqrt(dx * dx + dy * dy + dz * dz);
      let ok = true;
      for (const name of Object.keys(results)) {
        if (name === 'hitreg') continue;
        const a = mine[i];
        const b = results[name].t[i];
        const same = Number.isNaN(a) ? Number.isNaN(b) : !Number.isNaN(b) && Math.abs(a - b) <= tol;
        if (same && !Number.isNaN(a)) {
          const dev = (Math.abs(a - b) * T_TOL_METRES) / tol;
          if (!(dev <= (maxDev[name] ?? 0))) maxDev[name] = dev;
        }
        if (!same) {
          ok = false;
          disagreements[name] = (disagreements[name] ?? 0) + 1;
        }
      }
      if (ok) agree++;
    }
    const agreement = agree / queries;
    const hits = mine.reduce((n, t) => (Number.isNaN(t) ? n : n + 1), 0);

    if (opts.json) {
      const impl: Record<string, { nsPerQuery: number; cpuNsPerQuery: number; buildMs: number; bytes: number; bytesPerTriangle: number; gcs: number }> = {};
      for (const [k, v] of Object.entries(results)) {
        impl[k] = {
          nsPerQuery: +v.nsPerQuery.toFixed(1), cpuNsPerQuery: +v.cpuNsPerQuery.toFixed(1), buildMs: +v.buildMs.toFixed(2),
          bytes: v.bytes, bytesPerTriangle: +(v.bytes / triangles).toFixed(1), gcs: v.gcs,
        };
      }
      // hitreg's buildMs is the whole World (tree + packed buffer); sahBuildMs is the SAH tree alone;
      // loadMs is World.fromBuffer on its bytes (copy, content hash and every check of untrusted bytes).
      console.log(JSON.stringify({
        bench: 'world', scene: sc.scene, triangles, queries, agreement, impl,
        sahBuildMs: +sahMs.toFixed(2), loadMs: +loadMs.toFixed(2), nodes: world.nodeCount, depth: world.depth, vertices: world.vertexCount,
        multiHit,
      }));
    } else {
      console.log(`\nworld: ${sc.scene}, ${triangles} triangles, ${queries} seeded segments (${hits} hit), agreement ${(agreement * 100).toFixed(3)}%` +
        (Object.keys(disagreements).length ? ` (disagreements: ${JSON.stringify(disagreements)})` : ''));
      console.log(`largest agreeing difference in hit distance: ${Object.entries(maxDev).map(([k, v]) => `${k} ${v.toExponential(1)} m`).join(', ')} (tolerance ${T_TOL_METRES} m)`);
      console.log(`hitreg build: ${median(buildTimes).toFixed(1)} ms for the whole world (of which the SAH tree ${sahMs.toFixed(1)} ms; first, cold build ${coldMs.toFixed(0)} ms); ` +
        `${world.nodeCount} nodes, depth ${world.depth}, ${world.vertexCount} vertices, ${(world.byteLength / triangles).toFixed(1)} bytes per triangle; ` +
        `loading its bytes (World.fromBuffer, every check) ${loadMs.toFixed(1)} ms`);
      console.log('impl                 ns/query  CPU ns/q   Mq/s   vs hitreg  build ms      bytes  bytes/tri  GCs in loop');
      const base = results['hitreg'].nsPerQuery;
      for (const [k, v] of Object.entries(results)) {
        console.log(
          `${k.padEnd(20)} ${v.nsPerQuery.toFixed(0).padStart(8)} ${v.cpuNsPerQuery.toFixed(0).padStart(9)} ${(1e3 / v.nsPerQuery).toFixed(2).padStart(6)} ${(v.nsPerQuery / base).toFixed(2).padStart(9)}x ${v.buildMs.toFixed(1).padStart(9)} ${String(v.bytes).padStart(10)} ${(v.bytes / triangles).toFixed(1).padStart(10)} ${String(v.gcs).padStart(6)}`,
        );
      }
      console.log(`(${rounds} timed rounds of ${queries} queries each, interleaved, median; rapier bytes = growth of its wasm heap during its builds, 0 when the heap already had room)`);
      console.log('hitreg, other queries on the same segments (sweeps and ground probes at the segment ends): ' +
        Object.entries(otherTimed).map(([k, v]) => `${k} ${v.nsPerQuery.toFixed(0)} ns (${v.gcs} GCs)`).join(', '));
      const mh = multiHit;
      console.log(`hitreg, every hit (allHits, ${mh.capacity} entries) vs first hit: ${mh.allHitsNsPerQuery.toFixed(0)} vs ${mh.firstHitNsPerQuery.toFixed(0)} ns/query ` +
        `(${mh.allHitsVsFirstHit}x, ${mh.allHitsGcs} GCs); ${mh.meanHits} hits per segment, at most ${mh.maxHits}, ${mh.overflowed} overflowed; ` +
        `entry 0 = firstHit's t on ${mh.firstEntryAgrees} of ${queries}`);
    }
  }
  gc.stop();
}

// Standalone: tsx test/bench/world.bench.ts [--json] [--queries N] [--scene NAME]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const a = benchArgs('world.bench.ts', ['queries'], ['scene']);
  if (a.scene !== undefined && !SCENES.some((sc) => sc.scene === a.scene)) {
    console.error(`--scene ${a.scene}: not a scene; scenes: ${SCENES.map((sc) => sc.scene).join(', ')}`);
    process.exit(2);
  }
  await run({ json: a.json, queries: a.queries, scene: a.scene });
}
