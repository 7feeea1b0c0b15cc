/**
 * Rewind benchmark: memory of the per-player history and the cost of one lag-compensated shot.
 *
 * - bytesPerPlayerPerSecond: bytes of one PlayerHistory's typed arrays sized for the default 250 ms
 *   window (PlayerHistory.capacityFor), divided by the window in seconds, at 64 and 128 Hz.
 * - nsPerShot64Players: Rewinder.firstHit against 64 players running around a 60 m x 60 m arena
 *   (rings sized for the default 250 ms window, filled for 1 s at the tick rate), each shot fired at a random time inside the window
 *   from ~15-25 m away at one target, so the segment's broadphase touches one or two players
 *   (the mean number of players posed per shot is printed as "posed"). Median of rounds.
 *
 * - multiHit: Rewinder.allHits (every player on the shot, one entry each) against firstHit, at 16
 *   and 64 players (the first 16 or all of the same arena, shots aimed at one of them as above, from
 *   their own seeded stream), timed interleaved, median of rounds: ns per shot of each, their ratio,
 *   players hit and posed per shot by allHits (it cannot stop at a nearer player, so it poses more).
 *
 * - gcs: garbage collections during the timed rounds. The rewind code creates no objects per shot;
 *   what remains is V8 boxing double arguments as HeapNumbers at calls it cannot inline: the 7
 *   numbers of firstHit itself, prepareSegment's 6 per hull the segment is clipped into, and the
 *   kernel's tMax (the kernel reads triangle vertices from the array by offset, so those do not box).
 *
 * Seeded (mulberry32), so runs compare like with like. Run: npm run bench:rewind [-- --json]
 * With --json: one line {"bench": "rewind", "hz", "bytesPerPlayerPerSecond", "nsPerShot64Players"}
 * per tick rate (plus a few extra fields).
 */
import { benchArgs } from './args';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { createRewindPolicy, DEFAULT_REWIND_WINDOW_MS, PlayerHistory } from '../../shared/lagcomp/history';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { createHitboxHit, createHitboxHits, Rewinder } from '../../shared/lagcomp/rewind';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { mulberry32 } from '../../shared/util/prng';

const PLAYERS = 64;
const SHOTS = 20_000;
const ROUNDS = 7;

interface Row {
  hz: number;
  bytesPerPlayerPerSecond: number;
  nsPerShot64Players: number;
  /** Same loop measured as process CPU time: less sensitive to other processes on a shared machine. */
  cpuNsPerShot64Players: number;
  /** Garbage collections that started during the timed rounds (see the module comment). */
  gcs: number;
  posedPerShot: number;
  hitRate: number;
  slotsPerPlayer: number;
  /** allHits vs firstHit at 16 and 64 players. */
  multiHit: MultiHitRow[];
}

interface MultiHitRow {
  players: number;
  firstHitNsPerShot: number;
  allHitsNsPerShot: number;
  allHitsVsFirstHit: number;
  /** The same loops as process CPU time. */
  firstHitCpuNsPerShot: number;
  allHitsCpuNsPerShot: number;
  /** Players allHits reported per shot (mean). */
  playersHitPerShot: number;
  /** Players posed (broadphase survivors) per shot, firstHit and allHits. */
  posedPerShotFirstHit: number;
  posedPerShotAllHits: number;
  /** Shots whose allHits entry 0 was firstHit's player and t (all of them, or a bug). */
  firstEntryAgrees: number;
  gcs: number;
}

const MULTI_SHOTS = 10_000;

/** Shots as in measure (time, start, end, excluded slot; 8 numbers each) aimed at one of the first `players`. */
function aimShots(rnd: () => number, histories: PlayerHistory[], players: number, newest: number, count: number): Float64Array {
  const shots = new Float64Array(count * 8);
  const sampled = createPlayerPose();
  const policy = createRewindPolicy();
  for (let i = 0; i < count; i++) {
    const target = Math.floor(rnd() * players);
    const timeMs = newest - rnd() * (DEFAULT_REWIND_WINDOW_MS - 1);
    histories[target].sampleAt(sampled, timeMs, policy);
    const ang = rnd() * 6.283, dist = 15 + rnd() * 10;
    const aim = [sampled.x + (rnd() - 0.5) * 0.3, 0.9 + rnd() * 0.7, sampled.z + (rnd() - 0.5) * 0.3];
    const sx = aim[0] + Math.cos(ang) * dist, sy = 1.6, sz = aim[2] + Math.sin(ang) * dist;
    const k = 100 / dist;
    shots.set([timeMs, sx, sy, sz, sx + (aim[0] - sx) * k, sy + (aim[1] - sy) * k, sz + (aim[2] - sz) * k, (target + 1) % players], i * 8);
  }
  return shots;
}

/** allHits against firstHit over the first `players` histories, interleaved rounds, medians. */
async function measureMultiHit(hz: number, histories: PlayerHistory[], players: number, newest: number): Promise<MultiHitRow> {
  const shots = aimShots(mulberry32(0x3a11 + hz + players), histories, players, newest, MULTI_SHOTS);
  const hs = histories.slice(0, players);
  const rewinder = new Rewinder(MANNEQUIN_RIG);
  const hit = createHitboxHit();
  const hits = createHitboxHits(64);
  let posedFirst = 0, posedAll = 0, playersHit = 0, agree = 0;
  const first = (): void => {
    posedFirst = 0;
    for (let i = 0; i < MULTI_SHOTS; i++) {
      const o = i * 8;
      rewinder.firstHit(hit, hs, shots[o], shots[o + 1], shots[o + 2], shots[o + 3], shots[o + 4], shots[o + 5], shots[o + 6], shots[o + 7]);
      posedFirst += rewinder.lastCandidates;
    }
  };
  const all = (): void => {
    posedAll = 0; playersHit = 0;
    for (let i = 0; i < MULTI_SHOTS; i++) {
      const o = i * 8;
      playersHit += rewinder.allHits(hits, hs, shots[o], shots[o + 1], shots[o + 2], shots[o + 3], shots[o + 4], shots[o + 5], shots[o + 6], shots[o + 7]);
      posedAll += rewinder.lastCandidates;
    }
  };
  const timeNs = (f: () => void, cpu: number[]): number => {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    f();
    const wall = Number(process.hrtime.bigint() - t0) / MULTI_SHOTS;
    const c = process.cpuUsage(c0);
    cpu.push(((c.user + c.system) * 1000) / MULTI_SHOTS);
    return wall;
  };
  first(); all(); // warm-up
  const tf: number[] = [], ta: number[] = [], cf: number[] = [], ca: number[] = [];
  const g0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    tf.push(timeNs(first, cf));
    ta.push(timeNs(all, ca));
  }
  const g1 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const gcs = gcStarts.filter((t) => t >= g0 && t <= g1).length;
  // Entry 0 against firstHit, shot by shot (untimed).
  for (let i = 0; i < MULTI_SHOTS; i++) {
    const o = i * 8;
    const a = rewinder.firstHit(hit, hs, shots[o], shots[o + 1], shots[o + 2], shots[o + 3], shots[o + 4], shots[o + 5], shots[o + 6], shots[o + 7]);
    const n = rewinder.allHits(hits, hs, shots[o], shots[o + 1], shots[o + 2], shots[o + 3], shots[o + 4], shots[o + 5], shots[o + 6], shots[o + 7]);
    if (a ? n > 0 && hits.player[0] === hit.player && Object.is(hits.t[0], hit.t) : n === 0) agree++;
  }
  tf.sort((a, b) => a - b);
  ta.sort((a, b) => a - b);
  cf.sort((a, b) => a - b);
  ca.sort((a, b) => a - b);
  const f = tf[ROUNDS >> 1], a = ta[ROUNDS >> 1];
  return {
    players,
    firstHitNsPerShot: Math.round(f),
    allHitsNsPerShot: Math.round(a),
    allHitsVsFirstHit: +(a / f).toFixed(2),
    firstHitCpuNsPerShot: Math.round(cf[ROUNDS >> 1]),
    allHitsCpuNsPerShot: Math.round(ca[ROUNDS >> 1]),
    playersHitPerShot: +(playersHit / MULTI_SHOTS).toFixed(3),
    posedPerShotFirstHit: +(posedFirst / MULTI_SHOTS).toFixed(3),
    posedPerShotAllHits: +(posedAll / MULTI_SHOTS).toFixed(3),
    firstEntryAgrees: agree,
    gcs,
  };
}

/** Start times (performance.now) of garbage collections seen so far. */
const gcStarts: number[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcStarts.push(e.startTime);
});

async function measure(hz: number): Promise<Row> {
  const rnd = mulberry32(0x7e3d + hz);
  const dt = 1000 / hz;
  const cap = PlayerHistory.capacityFor(hz, DEFAULT_REWIND_WINDOW_MS);
  const histories: PlayerHistory[] = [];
  const pose = createPlayerPose();
  const state = Array.from({ length: PLAYERS }, () => ({
    x: (rnd() - 0.5) * 60, z: (rnd() - 0.5) * 60, vx: (rnd() - 0.5) * 12, vz: (rnd() - 0.5) * 12, yaw: rnd() * 6.28, clip: Math.floor(rnd() * 3),
  }));
  const ticks = hz; // one second of history
  for (let p = 0; p < PLAYERS; p++) histories.push(new PlayerHistory(cap));
  for (let tick = 0; tick < ticks; tick++) {
    for (let p = 0; p < PLAYERS; p++) {
      const s = state[p], t = tick / hz;
      pose.x = s.x + s.vx * t; pose.y = 0; pose.z = s.z + s.vz * t;
      const half = (s.yaw + 0.5 * t) / 2;
      pose.qx = 0; pose.qy = Math.sin(half); pose.qz = 0; pose.qw = Math.cos(half);
      pose.clip = s.clip; pose.time = t;
      histories[p].record(tick, tick * dt, pose);
    }
  }
  const newest = (ticks - 1) * dt;

  // Shots: a random shooter aims at a random target's chest at a random time in the window.
  const shots = new Float64Array(SHOTS * 8);
  const sampled = createPlayerPose();
  const policy = createRewindPolicy();
  for (let i = 0; i < SHOTS; i++) {
    const target = Math.floor(rnd() * PLAYERS);
    const timeMs = newest - rnd() * (DEFAULT_REWIND_WINDOW_MS - 1);
    histories[target].sampleAt(sampled, timeMs, policy);
    const ang = rnd() * 6.283, dist = 15 + rnd() * 10;
    const aim = [sampled.x + (rnd() - 0.5) * 0.3, 0.9 + rnd() * 0.7, sampled.z + (rnd() - 0.5) * 0.3];
    const sx = aim[0] + Math.cos(ang) * dist, sy = 1.6, sz = aim[2] + Math.sin(ang) * dist;
    // 100 m range: the segment runs on past the target, as a real shot would.
    const k = 100 / dist;
    shots.set([timeMs, sx, sy, sz, sx + (aim[0] - sx) * k, sy + (aim[1] - sy) * k, sz + (aim[2] - sz) * k, (target + 1) % PLAYERS], i * 8);
  }

  const rewinder = new Rewinder(MANNEQUIN_RIG);
  const hit = createHitboxHit();
  let posed = 0, hits = 0;
  const cpu: number[] = [];
  const run = (): number => {
    posed = 0; hits = 0;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < SHOTS; i++) {
      const o = i * 8;
      if (rewinder.firstHit(hit, histories, shots[o], shots[o + 1], shots[o + 2], shots[o + 3], shots[o + 4], shots[o + 5], shots[o + 6], shots[o + 7])) hits++;
      posed += rewinder.lastCandidates;
    }
    const wall = Number(process.hrtime.bigint() - t0) / SHOTS;
    const c = process.cpuUsage(c0);
    cpu.push(((c.user + c.system) * 1000) / SHOTS);
    return wall;
  };
  run(); // warm-up
  cpu.length = 0;
  const times: number[] = [];
  const g0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) times.push(run());
  const g1 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 50)); // let the observer deliver
  const gcs = gcStarts.filter((t) => t >= g0 && t <= g1).length;
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);

  const multiHit = [await measureMultiHit(hz, histories, 16, newest), await measureMultiHit(hz, histories, 64, newest)];

  const h = new PlayerHistory(PlayerHistory.capacityFor(hz, DEFAULT_REWIND_WINDOW_MS));
  return {
    hz,
    bytesPerPlayerPerSecond: Math.round(h.byteLength() / (DEFAULT_REWIND_WINDOW_MS / 1000)),
    nsPerShot64Players: Math.round(times[ROUNDS >> 1]),
    cpuNsPerShot64Players: Math.round(cpu[ROUNDS >> 1]),
    gcs,
    posedPerShot: posed / SHOTS,
    hitRate: hits / SHOTS,
    slotsPerPlayer: h.capacity,
    multiHit,
  };
}

export async function run(opts: { json: boolean }): Promise<void> {
  gcObserver.observe({ entryTypes: ['gc'] });
  const rows: Row[] = [];
  for (const hz of [64, 128]) rows.push(await measure(hz));
  gcObserver.disconnect();
  if (opts.json) {
    for (const r of rows) console.log(JSON.stringify({ bench: 'rewind', ...r }));
    return;
  }
  console.log(`rewind: ${PLAYERS} players, ${SHOTS} shots x ${ROUNDS} rounds (median), rig ${MANNEQUIN_RIG.hash} (${MANNEQUIN_RIG.triangleCount} triangles)`);
  console.log('  hz  | slots | bytes/player/s | ns/shot (64 players) | cpu ns/shot | posed/shot | hit rate | gcs');
  for (const r of rows) {
    console.log(`  ${String(r.hz).padStart(3)} | ${String(r.slotsPerPlayer).padStart(5)} | ${String(r.bytesPerPlayerPerSecond).padStart(14)} | ${String(r.nsPerShot64Players).padStart(20)} | ${String(r.cpuNsPerShot64Players).padStart(11)} | ${r.posedPerShot.toFixed(2).padStart(10)} | ${(100 * r.hitRate).toFixed(1).padStart(7)}% | ${r.gcs}`);
  }
  console.log('  targets: <= 16384 bytes/player/s at 128 Hz; < 5000 ns/shot');
  console.log(`  every player on the shot (allHits) vs the first (firstHit), ${MULTI_SHOTS} shots x ${ROUNDS} rounds (median):`);
  for (const r of rows) {
    for (const m of r.multiHit) {
      console.log(`  ${String(r.hz).padStart(3)} Hz, ${String(m.players).padStart(2)} players: allHits ${m.allHitsNsPerShot} ns vs firstHit ${m.firstHitNsPerShot} ns (${m.allHitsVsFirstHit}x; cpu ${m.allHitsCpuNsPerShot} vs ${m.firstHitCpuNsPerShot}); ` +
        `${m.playersHitPerShot} players hit per shot, posed ${m.posedPerShotAllHits} vs ${m.posedPerShotFirstHit}; entry 0 = firstHit on ${m.firstEntryAgrees}/${MULTI_SHOTS}; ${m.gcs} gcs`);
    }
  }
}

// Standalone: tsx test/bench/rewind.bench.ts [--json]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(benchArgs('rewind.bench.ts', []));
}
