/**
 * Projectile benchmark: the cost of one projectile step (stepProjectile, 1000/64 ms) and of one
 * explosion (explode) among 16 and 64 players running around a 60 m x 60 m arena at 64 Hz (rings
 * sized for the default 250 ms window, filled for 1 s), in a seeded level of a floor, four walls
 * and 60 pillars and slabs.
 *
 * - step: 256 projectiles in flight, half rockets, half grenades, each launched from 1.6 m up, 5 to
 *   20 m from a random player and aimed at its body (a grenade 20 degrees higher); every tick steps
 *   each against the present players; a finished one is launched again (launches are timed too).
 * - explode: a rocket blast (4 m) or a grenade blast (5 m) within 2 m of a random player at a random
 *   time inside the window, the level shielding.
 *
 * Per case: ns (median of interleaved rounds, wall and process CPU), what happened (impacts per
 * 1,000 steps; victims and shielded players per blast) and garbage collections during the timed
 * rounds (0: nothing is allocated per call). Seeded (mulberry32). Run: npm run bench:projectile
 * [-- --json]; with --json one line {"bench": "projectile", "players", "cases": {...}} per player count.
 */
import { benchArgs } from './args';
import { GcWatch, runningArena } from './runningArena';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createRewindPolicy, DEFAULT_REWIND_WINDOW_MS, PlayerHistory } from '../../shared/lagcomp/history';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { Rewinder } from '../../shared/lagcomp/rewind';
import { VolumeRewinder } from '../../shared/lagcomp/rewindVolume';
import { createFlightEvent, createProjectileState, createSplashHits, explode, FlightEventKind, launchProjectile, stepProjectile, type ProjectileState } from '../../shared/projectile/index';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { mulberry32 } from '../../shared/util/prng';
import { WEAPONS, WeaponId } from '../../shared/weapons';
import { worldOf } from '../helpers/projectileScenes';

const HZ = 64;
const ARENA_PLAYERS = 64;
const IN_FLIGHT = 256;
const TICKS = 200;
const BLASTS = 10_000;
const ROUNDS = 7;
const ROCKET = WEAPONS[WeaponId.ROCKET]!.projectile!;
const GRENADE = WEAPONS[WeaponId.GRENADE]!.projectile!;

interface CaseRow {
  ns: number;
  cpuNs: number;
  /** step: flights ended on a player or the level per 1,000 steps; explode: victims per blast. */
  perCall: number;
  /** explode: players overlapped but shielded per blast. */
  blockedPerCall?: number;
  gcs: number;
}

interface Row {
  players: number;
  cases: Record<string, CaseRow>;
}

const gc = new GcWatch();

/** Floor, walls and 60 seeded pillars and slabs. */
function level() {
  const rnd = mulberry32(0x1e7e1);
  const solids = [[-31, -1, -31, 31, 0, 31], [-31, 0, -31, -30, 10, 31], [30, 0, -31, 31, 10, 31], [-31, 0, -31, 31, 10, -30], [-31, 0, 30, 31, 10, 31]];
  for (let i = 0; i < 60; i++) {
    const x = (rnd() - 0.5) * 56, z = (rnd() - 0.5) * 56, w = 0.3 + rnd() * 3, d = 0.3 + rnd() * 3, y0 = rnd() < 0.6 ? 0 : 1 + rnd() * 3;
    solids.push([x, y0, z, x + w, y0 + 0.3 + rnd() * 3, z + d]);
  }
  return worldOf(solids);
}

/** Seeded launches (generic arrays: each double a heap number): x y z, direction, weapon (0 rocket, 1 grenade). */
function launches(histories: PlayerHistory[], players: number, newest: number, seed: number, count: number): unknown[][] {
  const rnd = mulberry32(seed);
  const pose = createPlayerPose(), policy = createRewindPolicy();
  const out: unknown[][] = [];
  for (let i = 0; i < count; i++) {
    histories[Math.floor(rnd() * players)].sampleAt(pose, newest, policy);
    const ang = rnd() * 6.283, dist = 5 + rnd() * 15;
    const x = pose.x + Math.cos(ang) * dist, z = pose.z + Math.sin(ang) * dist, grenade = i % 2;
    const a: unknown[] = [null];
    a[0] = x;
    a.push(1.6, z, pose.x - x, 1 - 1.6 + (grenade ? dist * 0.36 : 0), pose.z - z, grenade);
    out.push(a);
  }
  return out;
}

/** Seeded blasts: time, centre xyz, kind (0 rocket, 1 grenade). */
function blasts(histories: PlayerHistory[], players: number, newest: number): unknown[][] {
  const rnd = mulberry32(0xb1a5 + players);
  const pose = createPlayerPose(), policy = createRewindPolicy();
  const out: unknown[][] = [];
  for (let i = 0; i < BLASTS; i++) {
    const t = newest - rnd() * (DEFAULT_REWIND_WINDOW_MS - 1);
    histories[Math.floor(rnd() * players)].sampleAt(pose, t, policy);
    const a: unknown[] = [null];
    a[0] = t;
    a.push(pose.x + (rnd() - 0.5) * 4, 0.1 + rnd() * 2, pose.z + (rnd() - 0.5) * 4, i % 2);
    out.push(a);
  }
  return out;
}

async function measure(histories: PlayerHistory[], players: number, newest: number): Promise<Row> {
  const hs = histories.slice(0, players);
  const vol = new VolumeRewinder(new Rewinder(MANNEQUIN_RIG));
  const world = level();
  const starts = launches(histories, players, newest, 0x1a0c + players, 4096);
  const bs = blasts(histories, players, newest);
  const flights: ProjectileState[] = Array.from({ length: IN_FLIGHT }, () => createProjectileState());
  const ev = createFlightEvent(), splash = createSplashHits(64);
  // Slot i flies a grenade when i is odd: its k-th launch is start k * IN_FLIGHT + i (same parity).
  const launched = new Int32Array(IN_FLIGHT);
  const launch = (s: ProjectileState, i: number): void => {
    const a = starts[(launched[i]++ * IN_FLIGHT + i) & 4095] as number[];
    launchProjectile(s, i & 1 ? GRENADE : ROCKET, -1, a[0], a[1], a[2], a[3], a[4], a[5]);
  };
  const dtMs = 1000 / HZ;
  let counted = 0, blocked = 0;
  const cases: Record<string, { calls: number; f: () => void }> = {
    step: {
      calls: TICKS * IN_FLIGHT,
      f: () => {
        for (let t = 0; t < TICKS; t++) {
          for (let i = 0; i < IN_FLIGHT; i++) {
            const s = flights[i];
            if (!s.alive) launch(s, i);
            const k = stepProjectile(ev, s, i & 1 ? GRENADE : ROCKET, dtMs, world, vol, hs, newest);
            if (k === FlightEventKind.PLAYER || k === FlightEventKind.LEVEL) counted++;
          }
        }
      },
    },
    explode: {
      calls: BLASTS,
      f: () => {
        for (let i = 0; i < BLASTS; i++) {
          const a = bs[i] as number[];
          counted += explode(splash, world, vol, hs, a[0], a[1], a[2], a[3], a[4] === 1 ? GRENADE.splash! : ROCKET.splash!, -1);
          blocked += splash.blocked;
        }
      },
    },
  };
  const names = Object.keys(cases);
  const wall: Record<string, number[]> = {}, cpu: Record<string, number[]> = {}, gcs: Record<string, number> = {}, per: Record<string, number> = {}, blk: Record<string, number> = {};
  for (const name of names) {
    wall[name] = []; cpu[name] = []; gcs[name] = 0;
    cases[name].f(); cases[name].f(); // warm-up
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of names) {
      const c = cases[name];
      counted = 0; blocked = 0;
      const c0 = process.cpuUsage(), g0 = performance.now(), t0 = process.hrtime.bigint();
      c.f();
      wall[name].push(Number(process.hrtime.bigint() - t0) / c.calls);
      const g1 = performance.now(), u = process.cpuUsage(c0);
      cpu[name].push(((u.user + u.system) * 1000) / c.calls);
      per[name] = name === 'step' ? (1000 * counted) / c.calls : counted / c.calls;
      blk[name] = blocked / c.calls;
      await new Promise((resolve) => setTimeout(resolve, 20)); // let the observer deliver
      gcs[name] += gc.between(g0, g1);
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[ROUNDS >> 1];
  const rows: Record<string, CaseRow> = {};
  for (const name of names) {
    rows[name] = { ns: Math.round(median(wall[name])), cpuNs: Math.round(median(cpu[name])), perCall: +per[name].toFixed(3), gcs: gcs[name] };
    if (name === 'explode') rows[name].blockedPerCall = +blk[name].toFixed(3);
  }
  return { players, cases: rows };
}

export async function run(opts: { json: boolean }): Promise<void> {
  gc.start();
  const { histories, newest } = runningArena(ARENA_PLAYERS, HZ, 50);
  const rows: Row[] = [];
  for (const players of [16, 64]) rows.push(await measure(histories, players, newest));
  gc.stop();
  if (opts.json) {
    for (const r of rows) console.log(JSON.stringify({ bench: 'projectile', hz: HZ, ...r }));
    return;
  }
  console.log(`projectile: ${IN_FLIGHT} in flight x ${TICKS} ticks, ${BLASTS} blasts, x ${ROUNDS} rounds (median), ${HZ} Hz, rig ${MANNEQUIN_RIG.hash}`);
  console.log('  players | case    |     ns | cpu ns | per call | shielded/blast | gcs');
  for (const r of rows) {
    for (const [name, k] of Object.entries(r.cases)) {
      console.log(`  ${String(r.players).padStart(7)} | ${name.padEnd(7)} | ${String(k.ns).padStart(6)} | ${String(k.cpuNs).padStart(6)} | ${k.perCall.toFixed(3).padStart(8)} | ${(k.blockedPerCall ?? 0).toFixed(3).padStart(14)} | ${k.gcs}`);
    }
  }
}

// Standalone: tsx test/bench/projectile.bench.ts [--json]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(benchArgs('projectile.bench.ts', []));
}
