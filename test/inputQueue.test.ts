/**
 * Movement inputs as ordered commands (server/room/inputQueue.ts, Slot.stepInputs): the credit never
 * lets a client step faster than the clock, a backlog is caught up within the per-tick limit, a full
 * queue refuses; and in a real room, a burst of inputs held back by a stall (with a turn in it) puts
 * the server exactly where the client predicted itself, so a shot fired from there is judged from
 * there (stepping only the newest input of the burst leaves it metres away).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CREDIT_PER_TICK, InputQueue } from '../server/room/inputQueue';
import { createInputMessage, type InputMessage } from '../shared/protocol/input';
import { createMoveState, setView, stepMovement } from '../shared/movement/step';
import { reasonName } from '../shared/validate/verdict';
import { WeaponId } from '../shared/weapons';
import { startTestServer, joinPair, sleep, type TestServer } from './helpers/server';

function input(seq: number): InputMessage {
  const m = createInputMessage();
  m.seq = seq;
  return m;
}

describe('InputQueue', () => {
  it('steps in order, no more steps than the credit the ticks earned, at most maxPerTick at once', () => {
    fc.assert(fc.property(
      fc.array(fc.record({ push: fc.nat(20), ticks: fc.nat(80) }), { minLength: 1, maxLength: 40 }),
      (schedule) => {
        const q = new InputQueue(64, 8);
        let seq = 0, pushed = 0, refused = 0, stepped = 0, ticks = 0, idle = 0, lastOut = 0;
        const out = createInputMessage();
        for (const s of schedule) {
          for (let i = 0; i < s.push; i++) {
            if (q.push(input(++seq))) pushed++;
            else refused++;
          }
          expect(q.length).toBeLessThanOrEqual(q.capacity);
          for (let t = 0; t < s.ticks; t++) {
            ticks++;
            const before = q.length;
            const n = q.stepsThisTick();
            expect(n).toBeLessThanOrEqual(Math.min(8, before));
            for (let i = 0; i < n; i++) {
              expect(q.shift(out)).toBe(true);
              expect(out.seq).toBeGreaterThan(lastOut);
              lastOut = out.seq;
            }
            stepped += n;
            if (n === 0 && q.idleStep()) idle++;
            // Never more steps (queued or idle) than the ticks' credit: no speed from sending faster.
            expect(stepped + idle).toBeLessThanOrEqual(ticks * CREDIT_PER_TICK);
          }
        }
        expect(stepped + q.length).toBe(pushed);
        expect(pushed + refused).toBe(seq);
        expect(q.taken).toBe(stepped);
      },
    ), { numRuns: 300, seed: 7 });
  });

  it('catches up a stalled second within its ticks, refuses past two seconds, steps with no wish only after a silent second', () => {
    const q = new InputQueue(64, 8);
    // A silent half second banks 32 ticks of credit (nothing to step yet: the player holds).
    for (let t = 0; t < 32; t++) {
      expect(q.stepsThisTick()).toBe(0);
      expect(q.idleStep()).toBe(false);
    }
    // The stalled inputs arrive together: 8 per tick while the banked credit lasts, then 1 per tick.
    for (let i = 1; i <= 40; i++) expect(q.push(input(i))).toBe(true);
    const steps: number[] = [];
    const out = createInputMessage();
    while (q.length > 0) {
      const n = q.stepsThisTick();
      for (let i = 0; i < n; i++) q.shift(out);
      steps.push(n);
    }
    expect(steps.slice(0, 4)).toEqual([8, 8, 8, 8]);
    expect(steps.reduce((a, b) => a + b, 0)).toBe(40);
    expect(steps.length).toBeLessThanOrEqual(8);
    // A queue holds two seconds of ticks; more is refused.
    for (let i = 0; i < q.capacity; i++) expect(q.push(input(100 + i))).toBe(true);
    expect(q.push(input(999))).toBe(false);
    q.clear();
    expect(q.length).toBe(0);
    // A full second of silence: then each tick steps with no wish.
    for (let t = 0; t < 63; t++) {
      q.stepsThisTick();
      expect(q.idleStep()).toBe(false);
    }
    q.stepsThisTick();
    expect(q.idleStep()).toBe(true);
  });
});

describe('a stalled burst of inputs in a real room', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({});
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('the server steps every input of the burst, so a shot from the predicted eye is judged from there', async () => {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    await sleep(600); // standing still on the floor, no input queued
    const slot = room.slotOf(b.room.sessionId)!;
    expect(slot.inputs.length).toBe(0);
    const cfg = ts.server.config;
    // The client predicts 24 steps east then 24 north from where it stands (held back by a stall).
    const m = slot.move;
    const me = createMoveState(m.x, m.y, m.z);
    me.vx = m.vx; me.vy = m.vy; me.vz = m.vz; me.onGround = m.onGround;
    const burst: InputMessage[] = [];
    for (let i = 0; i < 48; i++) {
      const inp = createInputMessage();
      inp.seq = i + 1;
      inp.wishX = i < 24 ? 1 : 0; inp.wishZ = i < 24 ? 0 : 1;
      inp.viewX = 0; inp.viewY = 0; inp.viewZ = 1;
      burst.push(inp);
      setView(me, inp.viewX, inp.viewY, inp.viewZ);
      stepMovement(me, { wishX: inp.wishX, wishZ: inp.wishZ, viewX: 0, viewY: 0, viewZ: 1, jump: false }, cfg.world, cfg.movement, 1 / cfg.tickRate);
    }
    const moved = Math.hypot(me.x - m.x, me.z - m.z);
    expect(moved).toBeGreaterThan(2.5);
    // The burst, then a shot from the predicted eye straight up (nothing to hit).
    for (const inp of burst) b.sendInput(inp);
    const eyeY = me.y + ts.server.rig.eyeHeight;
    const v = await b.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: b.serverNow() - 100, sx: me.x, sy: eyeY, sz: me.z, ex: me.x + 0.01, ey: eyeY + 20, ez: me.z });
    expect(reasonName(v.reason)).toBe('OK_MISS');
    // Judged after the burst was stepped: from the very eye the client predicted.
    expect(v.originOffsetM).toBeLessThan(1e-6);
    expect(Math.hypot(slot.move.x - me.x, slot.move.z - me.z)).toBeLessThan(1e-9);
    expect(slot.appliedInputSeq).toBe(48);
    await a.leave();
    await b.leave();
  });
});
