/**
 * Volume benchmark: the cost of one rewound volume query (VolumeRewinder) against 16 and 64 players
 * running around a 60 m x 60 m arena at 64 Hz (rings sized for the default 250 ms window, filled for
 * 1 s; the first 16 players, or all 64), each query at a random time inside the window and aimed
 * at one random player, so its broadphase keeps one or a few:
 *
 * - sphereCast / sphereCastAll: a sphere of radius 2 to 25 cm fired from 15 to 25 m away at the
 *   player's body, 100 m long (a thick projectile); firstHit on the same segments for scale;
 * - overlapSphere: radius 0.5 to 1.5 m around a point within a metre of the body (a blast);
 * - overlapCapsule: a 1 m segment, any direction, centred within a metre of the body, radius 20 cm
 *   (a melee swing);
 * - overlapBox: half extents 0.2 to 0.8 m, any rotation, centred within a metre of the body.
 *
 * Per kind: ns per query (median of interleaved rounds, wall and process CPU), players posed and
 * reported per query, and garbage collections during the timed rounds (0: nothing is allocated
 * per query). Seeded (mulberry32). Run: npm run bench:volume [-- --json]; with --json one line
 * {"bench": "volume", "players", "queries": {kind: {...}}} per player count.
 */
import { benchArgs } from './args';
import { GcWatch, runningArena } from './runningArena';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createRewindPolicy, DEFAULT_REWIND_WINDOW_MS, PlayerHistory } from '../../shared/lagcomp/history';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { createHitboxHit, Rewinder } from '../../shared/lagcomp/rewind';
import { createSphereCastHit, createSphereCastHits, createVolumeOverlaps, VolumeRewinder } from '../../shared/lagcomp/rewindVolume';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { mulberry32 } from '../../shared/util/prng';

const HZ = 64;
const ARENA_PLAYERS = 64;
const QUERIES = 10_000;
const ROUNDS = 7;

interface KindRow {
  nsPerQuery: number;
  cpuNsPerQuery: number;
  /** Players posed (broadphase survivors) per query. */
  posedPerQuery: number;
  /** Players reported per query (hit or overlapped). */
  playersPerQuery: number;
  gcs: number;
}

interface Row {
  players: number;
  queries: Record<string, KindRow>;
}

const gc = new GcWatch();

/**
 * One query's numbers, held as heap numbers (an array of any elements), so the timed calls box no
 * argument whether or not V8 inlines them: the GC column then counts the queries' own allocation.
 * Layout: time, shot start xyz, shot end xyz, cast radius, blast radius, centre xyz, capsule ends
 * (6), box half extents xyz; and the box's axes (9, a Float64Array).
 */
interface Query { n: unknown[]; axes: Float64Array }

/** Seeded queries aimed at the first `players`. */
function makeQueries(histories: PlayerHistory[], players: number, newest: number): Query[] {
  const rnd = mulberry32(0x701e + players);
  const out: Query[] = [];
  const sampled = createPlayerPose();
  const policy = createRewindPolicy();
  for (let i = 0; i < QUERIES; i++) {
    const timeMs = newest - rnd() * (DEFAULT_REWIND_WINDOW_MS - 1);
    histories[Math.floor(rnd() * players)].sampleAt(sampled, timeMs, policy);
    const aim = [sampled.x + (rnd() - 0.5) * 0.3, 0.9 + rnd() * 0.7, sampled.z + (rnd() - 0.5) * 0.3];
    const ang = rnd() * 6.283, dist = 15 + rnd() * 10, k = 100 / dist;
    const sx = aim[0] + Math.cos(ang) * dist, sy = 1.6, sz = aim[2] + Math.sin(ang) * dist;
    // Unit quaternion from four uniforms -> the box's axes (rows of its rotation); the capsule lies along the first.
    const q = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
    const ql = Math.hypot(...q) || 1;
    const [x, y, z, w] = q.map((v) => v / ql);
    const axes = Float64Array.of(
      1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
      2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
      2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y),
    );
    const c = [aim[0] + (rnd() - 0.5) * 2, aim[1] + (rnd() - 0.5), aim[2] + (rnd() - 0.5) * 2];
    const n: unknown[] = [null];
    n[0] = timeMs;
    n.push(sx, sy, sz, sx + (aim[0] - sx) * k, sy + (aim[1] - sy) * k, sz + (aim[2] - sz) * k, 0.02 + 0.23 * rnd(), 0.5 + rnd(), ...c,
      c[0] - 0.5 * axes[0], c[1] - 0.5 * axes[1], c[2] - 0.5 * axes[2], c[0] + 0.5 * axes[0], c[1] + 0.5 * axes[1], c[2] + 0.5 * axes[2],
      0.2 + rnd() * 0.6, 0.2 + rnd() * 0.6, 0.2 + rnd() * 0.6);
    out.push({ n, axes });
  }
  return out;
}

type Nums = number[];

async function measure(histories: PlayerHistory[], players: number, newest: number): Promise<Row> {
  const qs = makeQueries(histories, players, newest);
  const hs = histories.slice(0, players);
  const rewinder = new Rewinder(MANNEQUIN_RIG);
  const vol = new VolumeRewinder(rewinder);
  const hit = createHitboxHit(), cast = createSphereCastHit(), casts = createSphereCastHits(64), ov = createVolumeOverlaps(64);
  // Per query: the kind's call; returns players reported.
  const kinds: Record<string, (q: Query) => number> = {
    firstHit: ({ n }) => { const a = n as Nums; return rewinder.firstHit(hit, hs, a[0], a[1], a[2], a[3], a[4], a[5], a[6], -1) ? 1 : 0; },
    sphereCast: ({ n }) => { const a = n as Nums; return vol.sphereCast(cast, hs, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], -1) ? 1 : 0; },
    sphereCastAll: ({ n }) => { const a = n as Nums; return vol.sphereCastAll(casts, hs, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], -1); },
    overlapSphere: ({ n }) => { const a = n as Nums; return vol.overlapSphere(ov, hs, a[0], a[9], a[10], a[11], a[8], -1); },
    overlapCapsule: ({ n }) => { const a = n as Nums; return vol.overlapCapsule(ov, hs, a[0], a[12], a[13], a[14], a[15], a[16], a[17], 0.2, -1); },
    overlapBox: ({ n, axes }) => { const a = n as Nums; return vol.overlapBox(ov, hs, a[0], a[9], a[10], a[11], a[18], a[19], a[20], axes, -1); },
  };
  const rows: Record<string, KindRow> = {};
  const wall: Record<string, number[]> = {}, cpu: Record<string, number[]> = {};
  let reported: Record<string, number> = {}, posed: Record<string, number> = {};
  const run = (name: string): void => {
    const f = kinds[name];
    let n = 0, c = 0;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < QUERIES; i++) {
      n += f(qs[i]);
      c += name === 'firstHit' ? rewinder.lastCandidates : vol.lastCandidates;
    }
    wall[name].push(Number(process.hrtime.bigint() - t0) / QUERIES);
    const u = process.cpuUsage(c0);
    cpu[name].push(((u.user + u.system) * 1000) / QUERIES);
    reported[name] = n;
    posed[name] = c;
  };
  const names = Object.keys(kinds);
  for (const name of names) {
    wall[name] = []; cpu[name] = [];
    run(name); run(name); // warm-up
    wall[name] = []; cpu[name] = [];
  }
  reported = {}; posed = {};
  const gcs: Record<string, number> = {};
  for (const name of names) gcs[name] = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of names) {
      const g0 = performance.now();
      run(name);
      const g1 = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 20)); // let the observer deliver
      gcs[name] += gc.between(g0, g1);
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[ROUNDS >> 1];
  for (const name of names) {
    rows[name] = {
      nsPerQuery: Math.round(median(wall[name])),
      cpuNsPerQuery: Math.round(median(cpu[name])),
      posedPerQuery: +(posed[name] / QUERIES).toFixed(3),
      playersPerQuery: +(reported[name] / QUERIES).toFixed(3),
      gcs: gcs[name],
    };
  }
  return { players, queries: rows };
}

export async function run(opts: { json: boolean }): Promise<void> {
  gc.start();
  const { histories, newest } = runningArena(ARENA_PLAYERS, HZ, 60);
  const rows: Row[] = [];
  for (const players of [16, 64]) rows.push(await measure(histories, players, newest));
  gc.stop();
  if (opts.json) {
    for (const r of rows) console.log(JSON.stringify({ bench: 'volume', hz: HZ, ...r }));
    return;
  }
  console.log(`volume: ${QUERIES} queries x ${ROUNDS} rounds (median), ${HZ} Hz, rig ${MANNEQUIN_RIG.hash} (${MANNEQUIN_RIG.triangleCount} triangles)`);
  console.log('  players | query          | ns/query | cpu ns/query | posed/query | players/query | gcs');
  for (const r of rows) {
    for (const [name, k] of Object.entries(r.queries)) {
      console.log(`  ${String(r.players).padStart(7)} | ${name.padEnd(14)} | ${String(k.nsPerQuery).padStart(8)} | ${String(k.cpuNsPerQuery).padStart(12)} | ${k.posedPerQuery.toFixed(2).padStart(11)} | ${k.playersPerQuery.toFixed(2).padStart(13)} | ${k.gcs}`);
    }
  }
}

// Standalone: tsx test/bench/volume.bench.ts [--json]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(benchArgs('volume.bench.ts', []));
}
