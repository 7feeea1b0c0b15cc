/**
 * Own-movement prediction (client-sim/ownMovement.ts) against a server stepping the same player on
 * a simulated timeline (no sockets, no timers): the client steps its own inputs at the tick rate
 * with irregular frames; inputs reach the server 50 +- 10 ms later, in order, and the server steps
 * each tick with the newest input it has (as the room does); state patches reach the client 50 +-
 * 10 ms later and are reconciled by the input seq they carry. The player strafes, turns and jumps
 * on the test level (a floor and a wall it runs into). Compared with the server's own record:
 * - the eye the client shoots from equals the server's position once the inputs sent so far have
 *   arrived (the eye path's newest end) to a few centimetres;
 * - the client's own ring, sampled at a server time, gives the server's pose at that time.
 */
import { describe, expect, it } from 'vitest';
import { OwnMovement } from '../client-sim/ownMovement';
import { Rng } from '../client-sim/rng';
import { buildTestWorld } from './helpers/server';
import { createMoveState, defaultMoveConfig, setView, stepMovement } from '../shared/movement/step';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';
import { PlayerHistory, createRewindPolicy, OutOfWindow, rewindStatusUsable } from '../shared/lagcomp/history';
import { createPlayerPose } from '../shared/lagcomp/pose';

const world = buildTestWorld();
const cfg = defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, MANNEQUIN_RIG.clips.map((c) => c.duration));
const f32 = Math.fround;

function percentile(v: number[], p: number): number {
  const s = v.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

describe('own-movement prediction', () => {
  for (const seed of [1, 2, 3]) {
    it(`follows the server's record of the player (seed ${seed})`, () => {
      const rng = new Rng(seed);
      const TICK = 1000 / 64, OWD = 50;
      const history = new PlayerHistory(256);
      const own = new OwnMovement(world, cfg, 64, () => history);
      // Server: the player spawns at (0, 0, 5) facing -z (toward the wall at z = -4).
      const server = createMoveState(0, 0, 5, 0, -1);
      server.onGround = true;
      const sInput = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: -1, jump: false };
      let sSeq = 0, latched = false;
      const inputs: { at: number; seq: number; wx: number; wz: number; vx: number; vz: number; jump: boolean }[] = [];
      const patches: { at: number; x: number; y: number; z: number; seq: number; t: number }[] = [];
      const record: { t: number; x: number; y: number; z: number }[] = [];
      let nextTick = 0, tick = 0, nextFrame = 0, seq = 0, lastUp = 0, lastDown = 0;
      let wishX = 0, wishZ = -1, nextWish = 0, nextJump = 800;
      const eyeErr: number[] = [], ringErr: number[] = [];
      const pending: { due: number; x: number; y: number; z: number }[] = [];
      const eye = new Float64Array(3);
      const pose = createPlayerPose();
      const policy = createRewindPolicy(1000, OutOfWindow.CLAMP);
      // The client's server clock is exact here; the predicted poses are stamped at the arrival of their inputs.
      const serverAt = (local: number): number => local + OWD;
      own.reconcile(0, 0, 5, 0, 0, -1, true, 1, 0, 0);
      for (let now = 0; now < 8000; now++) {
        // Server: inputs that arrived, then the tick.
        while (inputs.length > 0 && inputs[0]!.at <= now) {
          const i = inputs.shift()!;
          sSeq = i.seq;
          sInput.wishX = i.wx; sInput.wishZ = i.wz; sInput.viewX = i.vx; sInput.viewZ = i.vz;
          if (i.jump) latched = true;
          setView(server, i.vx, 0, i.vz);
        }
        if (now >= nextTick) {
          sInput.jump = latched;
          stepMovement(server, sInput, world, cfg, TICK / 1000);
          latched = false;
          const t = ++tick * TICK;
          record.push({ t, x: server.x, y: server.y, z: server.z });
          lastDown = Math.max(lastDown, now + OWD + rng.uniform(-10, 10));
          patches.push({ at: lastDown, x: server.x, y: server.y, z: server.z, seq: sSeq, t });
          nextTick += TICK;
        }
        // Client: patches that arrived, then a frame now and then.
        while (patches.length > 0 && patches[0]!.at <= now) {
          const p = patches.shift()!;
          own.reconcile(p.x, p.y, p.z, 0, 0, -1, true, 1, p.seq, p.t);
        }
        if (now >= nextFrame) {
          own.advance(now, serverAt);
          // Where the server will be once everything sent so far has arrived: compared later.
          own.eye(eye, 0);
          if (now > 500) pending.push({ due: lastUp + TICK, x: eye[0]!, y: eye[1]!, z: eye[2]! });
          if (now >= nextWish) {
            const a = rng.uniform(0, 2 * Math.PI);
            wishX = Math.cos(a); wishZ = Math.sin(a);
            nextWish = now + rng.uniform(300, 1000);
          }
          const jump = now >= nextJump;
          if (jump) nextJump = now + rng.uniform(1000, 2000);
          seq++;
          own.setInput(seq, wishX, wishZ, f32(wishX), 0, f32(wishZ), jump);
          lastUp = Math.max(lastUp, now + OWD + rng.uniform(-10, 10));
          inputs.push({ at: lastUp, seq, wx: f32(wishX), wz: f32(wishZ), vx: f32(wishX), vz: f32(wishZ), jump });
          nextFrame = now + rng.uniform(12, 24);
        }
        // The own ring against the server's record, 200 ms back (as a rewind to a render time reads it).
        if (now > 1000 && now % 50 === 0) {
          const r = record[record.length - 14]!;
          if (rewindStatusUsable(history.sampleAt(pose, r.t, policy))) ringErr.push(Math.hypot(pose.x - r.x, pose.y - r.y, pose.z - r.z));
        }
        while (pending.length > 0 && record.length > 0 && record[record.length - 1]!.t >= pending[0]!.due) {
          const q = pending.shift()!;
          const r = record.find((x) => x.t >= q.due)!;
          eyeErr.push(Math.hypot(q.x - r.x, q.y - r.y, q.z - r.z));
        }
      }
      expect(eyeErr.length).toBeGreaterThan(200);
      expect(ringErr.length).toBeGreaterThan(100);
      expect(own.corrections).toBeGreaterThan(0);
      // One tick of motion at full speed is 9.4 cm, and frames (12-24 ms) and arrivals (+-10 ms)
      // do not line up with ticks: a changed wish takes effect a tick earlier or later on the
      // server. The prediction is within about a tick, and never runs away (a broken
      // reconciliation drifts by metres).
      expect(percentile(eyeErr, 0.5), 'eye p50').toBeLessThan(0.1);
      expect(percentile(eyeErr, 0.99), 'eye p99').toBeLessThan(0.3);
      expect(percentile(ringErr, 0.5), 'ring p50').toBeLessThan(0.1);
      expect(percentile(ringErr, 0.99), 'ring p99').toBeLessThan(0.3);
      expect(own.maxErrorM).toBeLessThan(0.5);
    });
  }
});
