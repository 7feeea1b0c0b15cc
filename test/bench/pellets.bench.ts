/**
 * The cost of judging a trigger pull, seeded and single-threaded: validateShot for the rifle (one
 * segment), the shotgun (8 pellets from the pull's pattern, each replayed), the sniper (every
 * wall and player along the segment, for penetration) and the knife (a sphere swept along its 2 m
 * swing, then the thin segment to the contact), with 16 and 64 players on two rings around the
 * shooter on the default level, aimed at random players; the knife also with the rings drawn in
 * within its reach (`knife, crowd`: 1.2 and 1.6 m). Prints a table; `--json` prints one
 * line per case. Run: `npm run bench:pellets [-- --json]` (heap bytes per pull with node's
 * --expose-gc, e.g. `node --expose-gc --import tsx test/bench/pellets.bench.ts`).
 */
import { benchArgs } from './args';
import { loadWorld } from '../../server/level/gltf';
import { MANNEQUIN_RIG, Clip } from '../../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../../shared/rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../../shared/lagcomp/history';
import { Rewinder } from '../../shared/lagcomp/rewind';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { hasPattern, WEAPONS, WeaponId } from '../../shared/weapons';
import { createShotMessage, encodeShot, shotBytes } from '../../shared/protocol/shot';
import { defaultValidationConfig, validateShot } from '../../shared/validate/shot';
import { createShooterState, createVerdict } from '../../shared/validate/verdict';
import { predictPellets } from '../../shared/validate/spread';
import type { World } from '../../shared/world/world';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

interface Row {
  bench: 'pellets';
  weapon: string;
  players: number;
  pulls: number;
  pellets: number;
  nsPerPull: number;
  hitsPerPull: number;
  wallsPerPull: number;
  heapBytesPerPull: number | null;
}

const N = 6000;
const SEED = 0x1234abcd;

export function measure(world: World, players: number, weapon: number, warmed?: () => void, near = false): Row {
  const rig = MANNEQUIN_RIG;
  const hz = 64;
  const dt = 1000 / hz;
  const policy = createRewindPolicy(250, OutOfWindow.CLAMP);
  const floor = world.groundHeight(0, 5, 0, 20);
  const histories: PlayerHistory[] = [];
  const pose = createPlayerPose();
  for (let p = 0; p < players; p++) histories.push(new PlayerHistory(128));
  const others = players - 1;
  for (let k = 0; k <= hz; k++) {
    for (let p = 0; p < players; p++) {
      // Half rings of 6 m and 10 m (rational parametrisation of the circle), alternating.
      const i = p - 1, ring = near ? (i % 2 === 0 ? 1.2 : 1.6) : i % 2 === 0 ? 6 : 10;
      const u = others > 1 ? (i - (others - 1) / 2) / ((others - 1) / 2) : 0;
      pose.x = p === 0 ? 0 : (ring * (1 - u * u)) / (1 + u * u);
      pose.y = floor;
      pose.z = p === 0 ? 0 : (ring * 2 * u) / (1 + u * u);
      pose.qx = 0; pose.qy = 0; pose.qz = 0; pose.qw = 1;
      pose.clip = p % 2 === 0 ? Clip.IDLE : Clip.JOG; pose.time = (k * dt) / 1000; pose.alive = true; pose.epoch = 1;
      histories[p]!.record(k, k * dt, pose);
    }
  }
  const zones = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
  const config = { ...defaultValidationConfig(WEAPONS, zones, rig.eyeHeight, players), spreadSeed: SEED };
  const scene = { world, rewinder: new Rewinder(rig, { policy }), histories, eyePolicy: policy };
  const now = hz * dt;
  const timing = { receiveTimeMs: now, rttMs: 50, interpDelayMs: 100, newestTickMs: now };
  const targets = { alive: histories.map(() => true), lifeStartMs: histories.map(() => 0) };
  const magazines = WEAPONS.map((w) => w.magazine);
  const spec = WEAPONS[weapon]!;
  const rnd = lcg(12345 + weapon);
  const payloads: Uint8Array[] = [];
  const shot = createShotMessage();
  const before = createShooterState(0, magazines);
  before.equipped = weapon;
  for (let i = 0; i < N; i++) {
    shot.seq = i + 1;
    shot.weapon = weapon;
    shot.timeMs = now - 25;
    shot.renderTimeMs = now - 125 + (rnd() - 0.5) * 40;
    shot.sx = 0; shot.sy = floor + rig.eyeHeight; shot.sz = 0;
    const p = 1 + Math.floor(rnd() * others);
    histories[p]!.sampleAt(pose, shot.renderTimeMs, policy);
    const tx = pose.x + (rnd() - 0.5) * 0.8, ty = floor + 0.3 + rnd() * 1.5, tz = pose.z + (rnd() - 0.5) * 0.8;
    const dx = tx - shot.sx, dy = ty - shot.sy, dz = tz - shot.sz;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = Math.min(spec.rangeM, 30);
    shot.ex = shot.sx + (dx / l) * len; shot.ey = shot.sy + (dy / l) * len; shot.ez = shot.sz + (dz / l) * len;
    before.lastSeq = i;
    before.pulls = i;
    shot.pelletCount = hasPattern(spec) ? predictPellets(shot.pellets, SEED, before, spec, shot.timeMs, shot.sx, shot.sy, shot.sz, shot.ex, shot.ey, shot.ez) : 0;
    payloads.push(encodeShot(new Uint8Array(shotBytes(shot.pelletCount)), shot));
  }
  const v = createVerdict();
  const shooter = createShooterState(0, magazines);
  shooter.equipped = weapon;
  const judge = (i: number) => {
    shooter.lastSeq = i;
    shooter.pulls = i;
    shooter.nextFireMs = 0;
    shooter.ammo[weapon] = 1e9;
    validateShot(v, scene, config, payloads[i], shooter, timing, targets);
  };
  for (let r = 0; r < 3; r++) for (let i = 0; i < N; i++) judge(i); // warm-up: every tier compiled before the count
  warmed?.();
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let hits = 0, walls = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    judge(i);
    hits += v.hits.count;
    for (let k = 0; k < v.pellets.count; k++) walls += v.pellets.walls[k]!;
  }
  const ns = ((performance.now() - t0) * 1e6) / N;
  const heap1 = process.memoryUsage().heapUsed;
  return {
    bench: 'pellets', weapon: near ? `${spec.name}, crowd` : spec.name, players, pulls: N, pellets: spec.pellets ?? 1, nsPerPull: Math.round(ns),
    hitsPerPull: Math.round((hits / N) * 1000) / 1000, wallsPerPull: Math.round((walls / N) * 1000) / 1000,
    heapBytesPerPull: gc !== undefined ? Math.round(((heap1 - heap0) / N) * 10) / 10 : null,
  };
}

export async function run(opts: { json: boolean }): Promise<void> {
  const world = await loadWorld();
  const rows: Row[] = [];
  for (const players of [16, 64]) {
    for (const w of [WeaponId.RIFLE, WeaponId.SHOTGUN, WeaponId.SNIPER, WeaponId.KNIFE]) rows.push(measure(world, players, w));
    rows.push(measure(world, players, WeaponId.KNIFE, undefined, true));
  }
  if (opts.json) {
    for (const r of rows) console.log(JSON.stringify(r));
    return;
  }
  for (const r of rows) {
    console.log(`${r.weapon.padEnd(13)} ${String(r.players).padStart(3)} players: ${(r.nsPerPull / 1000).toFixed(2)} µs per pull (${r.pellets} pellet${r.pellets > 1 ? 's' : ''}, ${r.hitsPerPull} hits, ${r.wallsPerPull} walls per pull)${r.heapBytesPerPull === null ? '' : `, ${r.heapBytesPerPull} heap B per pull`}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run(benchArgs('pellets.bench.ts', []));
}
