/**
 * Synced state = history: a real client that records every patch it receives rebuilds the
 * server's snapshot histories bit for bit (rotation and clip time as float32, clip time wrapped into
 * its loop, position as float64), and the shared pipeline run on the client's rebuilt histories
 * gives verdicts identical, bit for bit, to the server's, for a batch of shots at a target that
 * strafes, jumps and loops its animation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, joinPair, shootAtZone, sleep, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createInputMessage, InputButton } from '../shared/protocol/input';
import { validateShot } from '../shared/validate/shot';
import { createVerdict, reasonName } from '../shared/validate/verdict';
import { writeVerdict } from '../shared/matchlog/shotRecord';
import { createMatchScene, sceneOptionsFor } from '../shared/validate/scene';
import { TICK_POSE_STRIDE, TickPose, type MatchRecorder, type ShotRecord } from '../server/match/recorder';

interface Patch { tick: number; timeMs: number; poses: Map<number, number[]> }

let ts: TestServer;
const ticks: { tick: number; timeMs: number; poses: Float64Array }[] = [];
const shots: ShotRecord[] = [];
const recorder: MatchRecorder = {
  header() {},
  tick: (t) => void ticks.push({ tick: t.tick, timeMs: t.timeMs, poses: t.poses.slice() }),
  event() {},
  shot: (s) => void shots.push(structuredClone(s)),
  close() {},
};

beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, recorder, maxHealth: 100_000, validation: { claimToleranceMs: 150 } });
});
afterAll(async () => {
  await ts?.close();
});

const POSE_FIELDS = ['x', 'y', 'z', 'qx', 'qy', 'qz', 'qw', 'clip', 'time', 'alive', 'epoch'] as const;

describe('synced state equals the server history', () => {
  it('a client rebuilds every snapshot bit for bit and reaches bit-identical verdicts', async () => {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    // Every patch A receives, as numbers (one patch per tick).
    const patches: Patch[] = [];
    a.room.onStateChange((state: any) => {
      const last = patches.at(-1);
      if (last !== undefined && last.tick === state.tick) return;
      const poses = new Map<number, number[]>();
      state.players.forEach((p: any) => poses.set(p.slot, [p.x, p.y, p.z, p.qx, p.qy, p.qz, p.qw, p.clip, p.animTime, p.alive ? 1 : 0, p.epoch]));
      patches.push({ tick: state.tick, timeMs: state.serverTimeMs, poses });
    });
    // Half a second of patches first: every rewind must find its snapshots on the client too.
    await a.until(() => patches.length > 1 && patches.at(-1)!.timeMs - patches[0]!.timeMs >= 500, 30_000, 'half a second of patches');
    // B strafes back and forth and jumps; A keeps shooting at B's head and chest.
    const input = createInputMessage();
    let seq = 0;
    for (let i = 0; i < 14; i++) {
      input.seq = i + 1;
      input.wishX = i % 4 < 2 ? 1 : -1;
      input.wishZ = 0;
      input.buttons = i % 3 === 0 ? InputButton.JUMP : 0;
      // A view off the axes: its yaw quaternion is not exact in float32.
      input.viewX = 0.37 - 0.05 * i; input.viewY = 0.1; input.viewZ = -0.93;
      b.holdInput(input);
      await sleep(100);
      const v = await shootAtZone(a, ts, 1, ++seq, i % 2 === 0 ? HitZone.HEAD : HitZone.UPPER_TORSO);
      expect(['OK_HIT', 'OK_MISS']).toContain(reasonName(v.reason));
      await a.untilFireReady(110);
    }
    await a.snapshotsPass(2);
    await a.leave();
    await b.leave();

    // 1. Snapshots: every tick A saw equals the tick the server recorded, field for field (Object.is).
    const byTick = new Map(ticks.filter((t) => t.poses[0 * TICK_POSE_STRIDE + TickPose.PRESENT] === 1).map((t) => [t.tick, t]));
    let compared = 0;
    let wraps = 0;
    let prevTime = -1;
    for (const p of patches) {
      const t = byTick.get(p.tick);
      if (t === undefined) continue;
      expect(p.timeMs).toBe(t.timeMs);
      for (const [slot, fields] of p.poses) {
        const o = slot * TICK_POSE_STRIDE;
        for (let k = 0; k < POSE_FIELDS.length; k++) {
          expect(Object.is(fields[k], t.poses[o + 1 + k]), `tick ${p.tick} slot ${slot} ${POSE_FIELDS[k]}: patch ${fields[k]} history ${t.poses[o + 1 + k]}`).toBe(true);
        }
        if (slot === 1) {
          if (fields[8]! < prevTime && fields[7] === p.poses.get(1)![7]) wraps++;
          prevTime = fields[8]!;
        }
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(150);
    // The clip time looped (wrapped into the clip) at least once while B ran.
    expect(wraps).toBeGreaterThan(0);

    // 2. Verdicts: the pipeline on histories rebuilt from the patches, each shot judged with the
    // histories as they stood when the server judged it (patches up to its newest tick).
    const scene = createMatchScene(ts.server.world, ts.server.rig, sceneOptionsFor(ts.server.config.tickRate, ts.server.config.validation));
    const pose = createPlayerPose();
    let fed = 0;
    const mine = shots.filter((s) => s.shooterBefore.slot === 0);
    expect(mine.length).toBe(14);
    const bufA = new DataView(new ArrayBuffer(8192));
    const bufB = new DataView(new ArrayBuffer(8192));
    let hits = 0;
    for (const s of mine) {
      while (fed < patches.length && patches[fed]!.timeMs <= s.timing.newestTickMs) {
        const p = patches[fed++]!;
        for (const [slot, f] of p.poses) {
          pose.x = f[0]!; pose.y = f[1]!; pose.z = f[2]!; pose.qx = f[3]!; pose.qy = f[4]!; pose.qz = f[5]!; pose.qw = f[6]!;
          pose.clip = f[7]!; pose.time = f[8]!; pose.alive = f[9] === 1; pose.epoch = f[10]!;
          scene.histories[slot]!.record(p.tick, p.timeMs, pose);
        }
      }
      const v = validateShot(createVerdict(), scene, ts.server.config.validation, s.bytes, s.shooterBefore, s.timing, s.targets);
      const n = writeVerdict(bufA, 0, v);
      const m = writeVerdict(bufB, 0, s.verdict);
      expect(n).toBe(m);
      for (let i = 0; i < n; i++) expect(bufA.getUint8(i), `shot ${s.verdict.seq} byte ${i}`).toBe(bufB.getUint8(i));
      if (reasonName(v.reason) === 'OK_HIT') hits++;
    }
    expect(hits).toBeGreaterThan(5);
    expect(room.tickCount).toBeGreaterThan(0);
  });
});
