/**
 * Seeded players walking a level by the movement step (shared/movement/step) at 64 Hz, for fog of
 * war's benchmark and its path test: each holds a seeded wish direction for 0.3 to 2 s, sometimes
 * stands still, and jumps now and then, so they spread over the level, run into walls and slide
 * along them. 5 s of spreading out come first; then WALK_STRIDE numbers per player per tick are
 * kept: feet x, y, z, velocity x, y, z, on the ground (1) or not.
 */
import type { SpawnPoint } from '../../server/arena/config';
import { createMoveState, defaultMoveConfig, stepMovement, type MoveInputLike } from '../../shared/movement/step';
import { mulberry32 } from '../../shared/util/prng';
import type { World } from '../../shared/world/world';
import type { FogOfWar } from '../../shared/fog/index';

export const WALK_HZ = 64;
export const WALK_STRIDE = 7;
const SPREAD_TICKS = 5 * WALK_HZ;

export interface Walk { ticks: number; n: number; state: Float64Array }

/** n players from `spawns` (in turn), `ticks` ticks after spreading out, seeded. */
export function walkPlayers(world: World, spawns: readonly SpawnPoint[], n: number, ticks: number, seed: number): Walk {
  const move = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
  const rnd = mulberry32(seed);
  const players = Array.from({ length: n }, (_, i) => {
    const sp = spawns[i % spawns.length]!;
    return { s: createMoveState(sp.x, sp.y, sp.z, sp.dirX, sp.dirZ), wx: 0, wz: 0, until: 0 };
  });
  const input: MoveInputLike = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };
  const state = new Float64Array(ticks * n * WALK_STRIDE);
  for (let t = 0; t < SPREAD_TICKS + ticks; t++) {
    for (let i = 0; i < n; i++) {
      const p = players[i]!;
      if (t >= p.until) {
        const a = rnd() * 2 * Math.PI;
        const still = rnd() < 0.15;
        p.wx = still ? 0 : Math.cos(a);
        p.wz = still ? 0 : Math.sin(a);
        p.until = t + Math.floor((0.3 + 1.7 * rnd()) * WALK_HZ);
      }
      input.wishX = p.wx; input.wishZ = p.wz;
      input.viewX = p.wx || 1; input.viewZ = p.wz;
      input.jump = rnd() < 0.01;
      stepMovement(p.s, input, world, move, 1 / WALK_HZ);
      if (t >= SPREAD_TICKS) {
        const o = ((t - SPREAD_TICKS) * n + i) * WALK_STRIDE;
        state[o] = p.s.x; state[o + 1] = p.s.y; state[o + 2] = p.s.z;
        state[o + 3] = p.s.vx; state[o + 4] = p.s.vy; state[o + 5] = p.s.vz; state[o + 6] = p.s.onGround ? 1 : 0;
      }
    }
  }
  return { ticks, n, state };
}

/**
 * Tick t of a walk (WALK_STRIDE numbers per player per tick in `state`, n players) into the fog,
 * every player alive with eye height `eye`, no team; with `back` ticks of look-back, each body's
 * past spread over them (FogOfWar.pastR, pastDrop, pastRise, as server/match/fogFeed sets them).
 */
export function loadWalkTick(fog: FogOfWar, state: Float64Array, n: number, t: number, eye: number, back = 0): void {
  const F = WALK_STRIDE;
  for (let i = 0; i < n; i++) {
    const o = (t * n + i) * F;
    fog.setPlayer(i, state[o]!, state[o + 1]!, state[o + 2]!, state[o + 3]!, state[o + 4]!, state[o + 5]!, eye, true, -1);
    let r2 = 0, drop = 0, rise = 0;
    for (let k = 1; k <= back && k <= t; k++) {
      const q = ((t - k) * n + i) * F, dx = state[q]! - state[o]!, dy = state[q + 1]! - state[o + 1]!, dz = state[q + 2]! - state[o + 2]!;
      r2 = Math.max(r2, dx * dx + dz * dz); drop = Math.max(drop, -dy); rise = Math.max(rise, dy);
    }
    fog.pastR[i] = Math.sqrt(r2); fog.pastDrop[i] = drop; fog.pastRise[i] = rise;
  }
}
