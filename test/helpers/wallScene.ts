/**
 * A shot scene for validateShot tests: a floor, walls across the x axis and players standing on it
 * (slot 0 the shooter at the origin facing +z), a fire message toward a point with its pattern's
 * pellets predicted, and the verdict the rules give it.
 */
import { pushBox, zoneCenter } from './server';
import { MANNEQUIN_RIG, Clip } from '../../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../../shared/rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow } from '../../shared/lagcomp/history';
import { Rewinder } from '../../shared/lagcomp/rewind';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { World } from '../../shared/world/world';
import { WEAPONS } from '../../shared/weapons';
import { createShotMessage, encodeShot, shotBytes, type ShotMessage } from '../../shared/protocol/shot';
import { defaultValidationConfig, validateShot, type ShotScene, type ShotTiming, type ShotTargets, type ValidationConfig } from '../../shared/validate/shot';
import { createShooterState, createVerdict, type ShooterState, type Verdict } from '../../shared/validate/verdict';
import { predictPellets } from '../../shared/validate/spread';

export const rig = MANNEQUIN_RIG;
export const DT = 1000 / 64;
export const NOW = 1000;
export const AT = NOW - 25;
export const policy = createRewindPolicy(250, OutOfWindow.CLAMP);
export const zoneTable = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z]!);
export const SEED = 0x5eed1234;
export const timing: ShotTiming = { receiveTimeMs: NOW, rttMs: 50, interpDelayMs: 100, newestTickMs: NOW };

export interface Wall { z0: number; z1: number; material: string; x0?: number; x1?: number }

/** A floor, walls across the x axis (z0..z1, 6 m wide, 3 m high) and players standing at (x, z) facing -z. */
export function sceneWith(walls: Wall[], players: [number, number][], rules: Partial<ValidationConfig> = {}) {
  const pos: number[] = [];
  const idx: number[] = [];
  pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
  const ranges = [{ start: 0, count: idx.length / 3, node: 'floor', material: 'floor' }];
  for (const [i, w] of walls.entries()) {
    const start = idx.length / 3;
    pushBox(pos, idx, w.x0 ?? -3, 0, w.z0, w.x1 ?? 3, 3, w.z1);
    ranges.push({ start, count: idx.length / 3 - start, node: `wall${i}`, material: w.material });
  }
  const world = World.fromTriangles(new Float64Array(pos), new Uint32Array(idx), ranges);
  const all: [number, number][] = [[0, 0], ...players];
  const histories = standingHistories(all);
  const scene: ShotScene = { world, rewinder: new Rewinder(rig, { policy }), histories, eyePolicy: policy };
  const config: ValidationConfig = { ...defaultValidationConfig(WEAPONS, zoneTable, rig.eyeHeight, all.length), spreadSeed: SEED, materials: { wood: 1, concrete: 2, steel: 8 }, ...rules };
  const targets: ShotTargets = { alive: all.map(() => true), lifeStartMs: all.map(() => 0) };
  const zone = (slot: number, z: number) => {
    const p = createPlayerPose();
    histories[slot]!.sampleAt(p, AT - 100, policy);
    return zoneCenter(scene.rewinder, rig, p, z);
  };
  return { world, scene, config, targets, zone };
}

export type Scene = ReturnType<typeof sceneWith>;
export const eye: [number, number, number] = [0, rig.eyeHeight, 0];

/** A fire of `weapon` from `from` (the shooter's eye by default) toward `point`, `len` metres long, with its pattern's pellets predicted. */
export function pull(s: Scene, weapon: number, point: [number, number, number], seq = 1, len = 30, state?: ShooterState, from = eye): ShotMessage {
  const eye = from;
  const dx = point[0] - eye[0], dy = point[1] - eye[1], dz = point[2] - eye[2];
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const m: ShotMessage = {
    ...createShotMessage(), weapon, seq, timeMs: AT, renderTimeMs: AT - 100,
    sx: eye[0], sy: eye[1], sz: eye[2], ex: eye[0] + (dx / l) * len, ey: eye[1] + (dy / l) * len, ez: eye[2] + (dz / l) * len,
  };
  const w = WEAPONS[weapon]!;
  if ((w.pellets ?? 1) > 1 || (w.spread ?? 0) > 0) {
    m.pelletCount = predictPellets(m.pellets, SEED, state ?? shooterWith(weapon, seq - 1), w, AT, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
  }
  return m;
}

/** Slot 0's rules state with `weapon` in hand, having fired `pulls` pulls (the pattern's index), its last seq the one before. */
export function shooterWith(weapon: number, pulls = 0): ShooterState {
  const st = createShooterState(0, WEAPONS.map((w) => w.magazine));
  st.equipped = weapon;
  st.pulls = pulls;
  st.lastSeq = pulls;
  return st;
}

export function judge(s: Scene, m: ShotMessage, state = shooterWith(m.weapon, m.seq - 1)): Verdict {
  const bytes = encodeShot(new Uint8Array(shotBytes(m.pelletCount)), m);
  return validateShot(createVerdict(), s.scene, s.config, bytes, state, timing, s.targets);
}

/** A second of history (65 ticks) for players standing at (x, z): slot 0 facing +z, the others facing it. */
export function standingHistories(all: readonly [number, number][]): PlayerHistory[] {
  const histories = all.map(() => new PlayerHistory(128));
  const pose = createPlayerPose();
  for (let k = 0; k <= 64; k++) {
    for (const [slot, [x, z]] of all.entries()) {
      pose.x = x; pose.y = 0; pose.z = z;
      pose.qx = 0; pose.qy = slot === 0 ? 0 : 1; pose.qz = 0; pose.qw = slot === 0 ? 1 : 0;
      pose.clip = Clip.IDLE; pose.time = (k * DT) / 1000; pose.alive = true; pose.epoch = 1;
      histories[slot]!.record(k, k * DT, pose);
    }
  }
  return histories;
}
