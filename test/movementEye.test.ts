/**
 * The eye stays below ceilings: the movement step stops a jump with the head (above the eye) just
 * under the ceiling. Without it the eye rose into a low ceiling's underside, and an honest shot
 * whose own-movement prediction was a centimetre off started on the other side of that surface
 * (measured by the client simulator: START_BLOCKED with the start 1.4 cm under a ceiling, origin
 * offset 1.8 cm, in a 60 s 16-bot run).
 */
import { describe, expect, it } from 'vitest';
import { pushBox } from './helpers/server';
import { World } from '../shared/world/world';
import { createMoveState, defaultMoveConfig, stepMovement } from '../shared/movement/step';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';

const eyeHeight = MANNEQUIN_RIG.eyeHeight;

describe('movement and the eye', () => {
  it('a jump under a low ceiling keeps the eye below the ceiling', () => {
    // A floor (top y = 0) and a ceiling slab whose underside is 5 cm above the standing eye.
    const pos: number[] = [];
    const idx: number[] = [];
    pushBox(pos, idx, -20, -1, -20, 20, 0, 20);
    const underside = eyeHeight + 0.05;
    pushBox(pos, idx, -5, underside, -5, 5, underside + 0.3, 5);
    const world = World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
    const cfg = { ...defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, MANNEQUIN_RIG.clips.map((c) => c.duration)), headHeight: eyeHeight + 0.12 };
    const s = createMoveState(0, 0, 0);
    s.onGround = true;
    let highest = 0;
    for (let k = 0; k < 64; k++) {
      stepMovement(s, { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: k === 0 }, world, cfg, 1 / 64);
      highest = Math.max(highest, s.y + eyeHeight);
    }
    expect(highest).toBeLessThan(underside);
    // Below the head clearance, the eye does not even leave the floor; with room above it jumps.
    expect(highest).toBe(eyeHeight);
    const open = createMoveState(10, 0, 10);
    open.onGround = true;
    let top = 0;
    for (let k = 0; k < 64; k++) {
      stepMovement(open, { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: k === 0 }, world, cfg, 1 / 64);
      top = Math.max(top, open.y);
    }
    expect(top).toBeGreaterThan(0.5);
  });
});
