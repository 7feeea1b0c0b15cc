/**
 * The movement step on real Worlds: speed and acceleration clamps, walls never crossed (seeded
 * property over starts, directions and tick rates), steps climbed, jumps and gravity back to the
 * ground, yaw quaternion from the view direction (checked by rotating +Z), clips from speed, and
 * hostile numbers.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildTestWorld, pushBox } from './helpers/server';
import { World } from '../shared/world/world';
import { createMoveState, defaultMoveConfig, setView, stepMovement, type MoveInputLike } from '../shared/movement/step';

const world = buildTestWorld();
const cfg = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const input = (wishX: number, wishZ: number, jump = false, view: [number, number, number] = [0, 0, 1]): MoveInputLike => ({ wishX, wishZ, viewX: view[0], viewY: view[1], viewZ: view[2], jump });

function settle(s: ReturnType<typeof createMoveState>, w: World = world): void {
  for (let i = 0; i < 4; i++) stepMovement(s, input(0, 0), w, cfg, 1 / 64);
}

describe('movement step', () => {
  it('accelerates to the max speed and never beyond; the wish is clamped to unit length', () => {
    const s = createMoveState(10, 0, 10);
    settle(s);
    expect(s.onGround).toBe(true);
    let maxSpeed = 0;
    for (let i = 0; i < 64; i++) {
      stepMovement(s, input(10, 10), world, cfg, 1 / 64);
      maxSpeed = Math.max(maxSpeed, Math.sqrt(s.vx * s.vx + s.vz * s.vz));
      // Acceleration clamp: the speed grows by at most accel * dt per tick.
    }
    expect(maxSpeed).toBeLessThanOrEqual(cfg.maxSpeed * (1 + 1e-12));
    expect(maxSpeed).toBeCloseTo(cfg.maxSpeed, 9);
    expect(s.vx).toBeCloseTo(s.vz, 9); // the diagonal wish keeps its direction
    const t = createMoveState(10, 0, 10);
    settle(t);
    stepMovement(t, input(0, 1), world, cfg, 1 / 64);
    expect(t.vz).toBeCloseTo(cfg.accel / 64, 9);
  });

  it('never crosses or overlaps a wall (corners included), whatever the start, direction and tick rate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -250, max: 250 }).map((i) => i / 100),
        fc.integer({ min: -340, max: 200 }).map((i) => i / 100),
        fc.integer({ min: -1000, max: 1000 }).map((i) => i / 1000),
        fc.integer({ min: -1000, max: 200 }).map((i) => i / 1000),
        fc.constantFrom(64, 128),
        (x, z, wx, wz, hz) => {
          const s = createMoveState(x, 0, z);
          settle(s);
          let side = Math.sign(s.z + 4);
          for (let i = 0; i < hz * 2; i++) {
            stepMovement(s, input(wx, wz), world, cfg, 1 / hz);
            if (Math.abs(s.x) < 3 - cfg.radius) {
              const now = Math.sign(s.z + 4);
              expect(now, `crossed at ${s.x}, ${s.z}`).toBe(side);
              side = now;
            } else {
              side = Math.sign(s.z + 4);
            }
            expect(Number.isFinite(s.x + s.y + s.z)).toBe(true);
            // The body (a circle of `radius` in xz) never overlaps the wall, corners included.
            const qx = Math.max(-3, Math.min(3, s.x)), qz = Math.max(-4.15, Math.min(-3.85, s.z));
            const gap = Math.sqrt((s.x - qx) * (s.x - qx) + (s.z - qz) * (s.z - qz));
            expect(gap, `inside the wall at ${s.x}, ${s.z}`).toBeGreaterThanOrEqual(cfg.radius - 1e-6);
          }
        },
      ),
      { seed: 42, numRuns: 60 },
    );
    // Head-on: stops `radius` short of the wall face (z = -3.85).
    const s = createMoveState(0, 0, 0);
    settle(s);
    for (let i = 0; i < 192; i++) stepMovement(s, input(0, -1), world, cfg, 1 / 64);
    expect(s.z).toBeGreaterThanOrEqual(-3.85 + cfg.radius - 1e-9);
    expect(s.z).toBeLessThan(-3.85 + cfg.radius + 0.05);
  });

  it('climbs a step no higher than stepHeight, is blocked by a higher one, and falls off edges', () => {
    const pos: number[] = [];
    const idx: number[] = [];
    pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
    pushBox(pos, idx, -5, 0, 2, 5, 0.3, 6); // a 0.3 m step
    pushBox(pos, idx, -5, 0, 10, 5, 1.2, 14); // a 1.2 m block
    const w = World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
    const s = createMoveState(0, 0, 0);
    settle(s, w);
    for (let i = 0; i < 64; i++) stepMovement(s, input(0, 1), w, cfg, 1 / 64);
    expect(s.z).toBeGreaterThan(4);
    expect(s.y).toBeCloseTo(Math.fround(0.3), 9); // the world stores its vertices as float32
    expect(s.onGround).toBe(true);
    for (let i = 0; i < 128; i++) stepMovement(s, input(0, 1), w, cfg, 1 / 64);
    expect(s.z).toBeLessThanOrEqual(10 - cfg.radius + 1e-9); // the block stops it
    expect(s.y).toBeCloseTo(0, 9); // it stepped down off the step on the way
  });

  it('jumps, falls under gravity and lands on the ground', () => {
    const s = createMoveState(10, 0, 10);
    settle(s);
    stepMovement(s, input(0, 0, true), world, cfg, 1 / 64);
    expect(s.onGround).toBe(false);
    expect(s.clip).toBe(cfg.clipFall);
    let top = 0;
    let ticks = 0;
    while (!s.onGround && ticks < 200) {
      stepMovement(s, input(0, 0), world, cfg, 1 / 64);
      top = Math.max(top, s.y);
      ticks++;
    }
    expect(s.onGround).toBe(true);
    expect(s.y).toBe(0);
    const ideal = (cfg.jumpSpeed * cfg.jumpSpeed) / (2 * cfg.gravity);
    expect(top).toBeGreaterThan(ideal * 0.9);
    expect(top).toBeLessThan(ideal * 1.05);
    expect(ticks / 64).toBeCloseTo((2 * cfg.jumpSpeed) / cfg.gravity, 1);
  });

  it('the yaw quaternion turns +Z onto the horizontal view direction (no trigonometry)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), (a, b, c) => {
        const s = createMoveState(0, 0, 0);
        setView(s, a, b, c);
        const h = Math.sqrt(a * a + c * c);
        if (h === 0 || a * a + b * b + c * c === 0) return;
        const { qx, qy, qz, qw } = s;
        expect(Math.abs(qx * qx + qy * qy + qz * qz + qw * qw - 1)).toBeLessThan(1e-12);
        // Rotate v = (0, 0, 1): v' = v + 2 qw (q x v) + 2 q x (q x v)
        const cx = qy, cy = -qx, cz = 0;
        const rx = 2 * qw * cx + 2 * (qy * cz - qz * cy);
        const rz = 1 + 2 * qw * cz + 2 * (qx * cy - qy * cx);
        expect(rx).toBeCloseTo(a / h, 9);
        expect(rz).toBeCloseTo(c / h, 9);
        const l = Math.sqrt(a * a + b * b + c * c);
        expect(s.viewY).toBeCloseTo(b / l, 12);
      }),
      { seed: 3, numRuns: 300 },
    );
  });

  it('clips follow speed; hostile numbers leave the state finite and unchanged in the bad fields', () => {
    const s = createMoveState(10, 0, 10);
    settle(s);
    expect(s.clip).toBe(cfg.clipIdle);
    for (let i = 0; i < 3; i++) stepMovement(s, input(0, 1), world, cfg, 1 / 64); // 1.9 m/s
    expect(s.clip).toBe(cfg.clipJog);
    for (let i = 0; i < 32; i++) stepMovement(s, input(0, 1), world, cfg, 1 / 64);
    expect(s.clip).toBe(cfg.clipRun);
    const vz = s.viewZ;
    stepMovement(s, { wishX: Number.NaN, wishZ: Number.POSITIVE_INFINITY, viewX: Number.NaN, viewY: 0, viewZ: 0, jump: false }, world, cfg, 1 / 64);
    expect(Number.isFinite(s.x + s.y + s.z + s.vx + s.vy + s.vz + s.qw + s.qy)).toBe(true);
    expect(s.viewZ).toBe(vz); // a degenerate view keeps the previous one
    stepMovement(s, input(0, 0, false, [1e300, 1e300, 1e300]), world, cfg, 1 / 64); // overflowing length: ignored
    expect(s.viewZ).toBe(vz);
  });
});
