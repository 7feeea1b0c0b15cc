/**
 * Room-side costs, seeded and single-threaded: validateShot per shot (16 players posed around the
 * shooter on the default level, segments aimed through the crowd, hits and misses both), the
 * movement step per player per tick, and the wire sizes of the binary messages. Prints a table;
 * `--json` prints one line per case. Run: `npm run bench:room [-- --json]`.
 * Exports run() in the shape test/bench/run.ts expects.
 */
import { benchArgs } from './args';
import { loadWorld } from '../../server/level/gltf';
import { MANNEQUIN_RIG, Clip } from '../../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../../shared/rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../../shared/lagcomp/history';
import { Rewinder } from '../../shared/lagcomp/rewind';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { WEAPONS } from '../../shared/weapons';
import { createShotMessage, encodeShot, SHOT_BYTES } from '../../shared/protocol/shot';
import { INPUT_BYTES } from '../../shared/protocol/input';
import { PING_BYTES } from '../../shared/protocol/ping';
import { defaultValidationConfig, validateShot } from '../../shared/validate/shot';
import { createShooterState, createVerdict, VerdictKind } from '../../shared/validate/verdict';
import { createMoveState, defaultMoveConfig, stepMovement } from '../../shared/movement/step';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

export async function run(opts: { json: boolean }): Promise<void> {
  const world = await loadWorld();
  const rig = MANNEQUIN_RIG;
  const players = 16;
  const hz = 64;
  const dt = 1000 / hz;
  const policy = createRewindPolicy(250, OutOfWindow.CLAMP);
  const histories: PlayerHistory[] = [];
  const pose = createPlayerPose();
  const floor = world.groundHeight(0, 5, 0, 20);
  // Shooter at the centre; 15 players on a 6 m half ring, idle/jogging clips.
  for (let p = 0; p < players; p++) histories.push(new PlayerHistory(128));
  for (let k = 0; k <= hz; k++) {
    for (let p = 0; p < players; p++) {
      // Ring position from the rational parametrisation of a circle (a half ring, 6 m radius).
      const u = (p - (players - 1) / 2) / ((players - 1) / 2);
      const cx = p === 0 ? 0 : (6 * (1 - u * u)) / (1 + u * u);
      const cz = p === 0 ? 0 : (6 * 2 * u) / (1 + u * u);
      pose.x = cx; pose.y = floor; pose.z = cz;
      pose.qx = 0; pose.qy = 0; pose.qz = 0; pose.qw = 1;
      pose.clip = p % 2 === 0 ? Clip.IDLE : Clip.JOG; pose.time = (k * dt) / 1000; pose.alive = true; pose.epoch = 1;
      histories[p]!.record(k, k * dt, pose);
    }
  }
  const zones = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
  const config = defaultValidationConfig(WEAPONS, zones, rig.eyeHeight, players);
  const scene = { world, rewinder: new Rewinder(rig, { policy }), histories, eyePolicy: policy };
  const now = hz * dt;
  const timing = { receiveTimeMs: now, rttMs: 50, interpDelayMs: 100, newestTickMs: now };
  const targets = { alive: histories.map(() => true), lifeStartMs: histories.map(() => 0) };
  const magazines = WEAPONS.map((w) => w.magazine);
  const rnd = lcg(12345);
  const N = 20000;
  const payloads: Uint8Array[] = [];
  const shot = createShotMessage();
  for (let i = 0; i < N; i++) {
    shot.seq = i + 1;
    shot.timeMs = now - 25; // fired one way (rtt/2) before arrival
    shot.renderTimeMs = now - 125 + (rnd() - 0.5) * 40;
    shot.sx = 0; shot.sy = floor + rig.eyeHeight; shot.sz = 0;
    // Toward a random point around a random ring player, 30 m.
    const p = 1 + Math.floor(rnd() * (players - 1));
    histories[p]!.sampleAt(pose, shot.renderTimeMs, policy);
    const tx = pose.x + (rnd() - 0.5) * 1.2, ty = floor + rnd() * 2, tz = pose.z + (rnd() - 0.5) * 1.2;
    const dx = tx - shot.sx, dy = ty - shot.sy, dz = tz - shot.sz;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    shot.ex = shot.sx + (dx / l) * 30; shot.ey = shot.sy + (dy / l) * 30; shot.ez = shot.sz + (dz / l) * 30;
    payloads.push(encodeShot(new Uint8Array(SHOT_BYTES), shot));
  }
  const v = createVerdict();
  const shooter = createShooterState(0, magazines);
  shooter.ammo[0] = 1e9;
  let hits = 0;
  for (let i = 0; i < 2000; i++) validateShot(v, scene, config, payloads[i], shooter, timing, targets); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    shooter.lastSeq = i; // each payload is the next seq; the fire clock is not the subject here
    shooter.nextFireMs = 0;
    validateShot(v, scene, config, payloads[i], shooter, timing, targets);
    if (v.kind === VerdictKind.HIT) hits++;
  }
  const nsPerShot = ((performance.now() - t0) * 1e6) / N;

  // Movement: 16 players running in circles on the default level.
  const mcfg = defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL });
  const states = Array.from({ length: players }, (_, p) => createMoveState((p % 4) * 1.5 - 2, floor, Math.floor(p / 4) * 1.5 - 2));
  const inp = { wishX: 1, wishZ: 0, viewX: 1, viewY: 0, viewZ: 0, jump: false };
  const steps = 64 * 20;
  for (let k = 0; k < 64; k++) for (const s of states) stepMovement(s, inp, world, mcfg, 1 / 64);
  const m0 = performance.now();
  for (let k = 0; k < steps; k++) {
    inp.wishX = k % 128 < 64 ? 1 : -1;
    inp.wishZ = k % 64 < 32 ? 1 : -1;
    for (const s of states) stepMovement(s, inp, world, mcfg, 1 / 64);
  }
  const nsPerStep = ((performance.now() - m0) * 1e6) / (steps * players);

  const rows = [
    { bench: 'room', case: 'validateShot', players, shots: N, hitFraction: hits / N, nsPerShot: Math.round(nsPerShot) },
    { bench: 'room', case: 'movementStep', players, steps: steps * players, nsPerStep: Math.round(nsPerStep) },
    { bench: 'room', case: 'wireBytes', shot: SHOT_BYTES, input: INPUT_BYTES, ping: PING_BYTES },
  ];
  if (opts.json) {
    for (const r of rows) console.log(JSON.stringify(r));
    return;
  }
  console.log(`validateShot, ${players} players on the default level: ${nsPerShot.toFixed(0)} ns/shot over ${N} seeded shots (${((100 * hits) / N).toFixed(1)}% hits)`);
  console.log(`movement step (swept-sphere walls, ground probe): ${nsPerStep.toFixed(0)} ns per player per tick`);
  console.log(`wire: shot ${SHOT_BYTES} B, input ${INPUT_BYTES} B, ping/pong ${PING_BYTES} B`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run(benchArgs('room.bench.ts', []));
}
