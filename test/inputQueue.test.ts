/**
 * Movement inputs stepped in order, one per tick (server/arena/inputQueue.ts): no way of sending
 * moves anyone faster; stamped commands through latency, jitter and a TCP stall put the player
 * exactly where its client predicted itself (compared with the client's own stepping); unstamped
 * inputs are held keys. And in a real room, a shot fired after a stalled burst is judged from the
 * eye the client predicted (stepping only the newest input leaves it metres away), also when its
 * shooter was killed before the burst arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CREDIT_PER_TICK, InputQueue } from '../server/arena/inputQueue';
import { createInputMessage, type InputMessage } from '../shared/protocol/input';
import { createMoveState, defaultMoveConfig, stepMovement, type MoveState } from '../shared/movement/step';
import { reasonName } from '../shared/validate/verdict';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { buildTestWorld, startTestServer, joinPair, shootAtZone, waitFor, zoneCenter, type TestServer } from './helpers/server';

const world = buildTestWorld();
const cfg = defaultMoveConfig({ idle: 0, jog: 1, run: 2, fall: 3 });
const RATE = 64;
const DT = 1 / RATE;
const DT_MS = 1000 / RATE;

function input(seq: number, wishX: number, wishZ: number, timeMs: number): InputMessage {
  const m = createInputMessage();
  m.seq = seq; m.wishX = wishX; m.wishZ = wishZ; m.viewX = 0; m.viewY = 0; m.viewZ = 1; m.timeMs = timeMs;
  return m;
}

/** The client's own stepping of `inputs` from a standing start (what it predicts). */
function clientPath(inputs: InputMessage[]): MoveState {
  const s = createMoveState(0, 0, 0);
  s.onGround = true;
  for (const i of inputs) stepMovement(s, { wishX: i.wishX, wishZ: i.wishZ, viewX: i.viewX, viewY: i.viewY, viewZ: i.viewZ, jump: false }, world, cfg, DT);
  return s;
}

function standing(): MoveState {
  const s = createMoveState(0, 0, 0);
  s.onGround = true;
  return s;
}

/** A wish that turns now and then (east, north, west, ...), per client tick. */
function wishAt(i: number): [number, number] {
  const k = Math.floor(i / 20) % 4;
  return [[1, 0], [0, 1], [-1, 0], [0, -1]][k] as [number, number];
}

describe('InputQueue', () => {
  it('no faster than the clock, however inputs are sent or stamped: steps never exceed the credit earned', () => {
    fc.assert(fc.property(
      fc.array(fc.record({ n: fc.nat(6), stamped: fc.boolean(), wx: fc.double({ min: -50, max: 50, noNaN: true }) }), { minLength: 1, maxLength: 300 }),
      (ticks) => {
        const q = new InputQueue(RATE);
        const m = standing();
        let seq = 0;
        for (let t = 0; t < ticks.length; t++) {
          const k = ticks[t]!;
          for (let i = 0; i < k.n; i++) q.push(input(++seq, k.wx, 1, k.stamped ? 1 + t : 0));
          q.tick(m, world, cfg, DT);
          expect(q.length).toBeLessThanOrEqual(q.capacity);
          expect(Math.hypot(m.x, m.z)).toBeLessThanOrEqual(cfg.maxSpeed * (t + 1) * CREDIT_PER_TICK * DT + 1e-9);
        }
        expect(q.taken + q.length).toBe(seq);
      },
    ), { numRuns: 200, seed: 11 });
  });

  it('stamped: a client stepping one input per tick, through latency, jitter and a 600 ms stall, ends where it predicted itself', () => {
    const n = 200;
    const sent: InputMessage[] = [];
    const arrival: number[] = [];
    for (let i = 0; i < n; i++) {
      const [wx, wz] = wishAt(i);
      const stamp = (i + 1) * DT_MS;
      sent.push(input(i + 1, wx, wz, stamp));
      // 50 ms one way with up to 10 ms of jitter; inputs 60..98 held by a stall (a lost segment)
      // until input 99 arrives, 610 ms late for the first of them. TCP: in order.
      let at = stamp + 50 + ((i * 7) % 11);
      if (i >= 60 && i < 99) at = 100 * DT_MS + 60;
      arrival.push(Math.max(at, arrival[i - 1] ?? 0));
    }
    const q = new InputQueue(RATE);
    const m = standing();
    let next = 0, stepped = -1, maxBatch = 0;
    for (let t = 1; t <= n + 60; t++) {
      const now = t * DT_MS;
      while (next < n && arrival[next]! <= now) q.push(sent[next++]!);
      const before = q.taken;
      const s = q.tick(m, world, cfg, DT);
      maxBatch = Math.max(maxBatch, q.taken - before);
      if (s >= 0) stepped = s;
      if (stepped === n) break;
    }
    expect(stepped).toBe(n);
    // Every input stepped once, in order: the client's own path, bit for bit; the stall caught up
    // several a tick.
    const c = clientPath(sent);
    expect([m.x, m.y, m.z]).toEqual([c.x, c.y, c.z]);
    expect(q.dropped).toBe(0);
    expect(maxBatch).toBe(q.maxPerTick);
  });

  it('stamped, across a respawn: the new life banks credit while its first commands are held back, and catches the stall up', () => {
    const q = new InputQueue(RATE);
    const m = standing();
    let seq = 0;
    // A commanding client plays a second, dies (the queue cleared, the spawn held), and its next
    // 40 commands, stamped after the spawn, come in one bunch 600 ms later.
    for (let t = 1; t <= 64; t++) { q.push(input(++seq, 1, 0, t * DT_MS)); q.tick(m, world, cfg, DT); }
    q.clear();
    q.hold(0, 0, 1);
    const spawnMs = 65 * DT_MS;
    const from = standing();
    Object.assign(m, from);
    for (let t = 0; t < 39; t++) expect(q.tick(m, world, cfg, DT)).toBe(-1);
    expect([m.x, m.z]).toEqual([0, 0]); // standing: no held steps spent while the commands are on their way
    const bunch = Array.from({ length: 40 }, (_, i) => input(++seq, 1, 0, spawnMs + (i + 1) * DT_MS));
    for (const i of bunch) q.push(i);
    let ticks = 0;
    while (q.length > 0) { q.tick(m, world, cfg, DT); ticks++; }
    expect(ticks).toBeLessThanOrEqual(Math.ceil(40 / q.maxPerTick) + 1);
    const c = clientPath(bunch);
    expect([m.x, m.y, m.z]).toEqual([c.x, c.y, c.z]);
  });

  it('unstamped: held keys walk on at full speed, the newest input counts, a jump happens once', () => {
    const q = new InputQueue(RATE);
    const m = standing();
    q.push(input(1, 1, 0, 0));
    for (let t = 0; t < 128; t++) q.tick(m, world, cfg, DT);
    // Two seconds of one held input: two seconds of running (after the acceleration).
    expect(m.x).toBeGreaterThan(cfg.maxSpeed * 2 - 0.5);
    // Three inputs between two ticks: only the newest is stepped, the jump among them once.
    const x = m.x;
    const j = input(2, 0, 1, 0);
    j.buttons = 1;
    q.push(j);
    q.push(input(3, 0, 1, 0));
    q.push(input(4, -1, 0, 0));
    expect(q.length).toBe(1);
    q.tick(m, world, cfg, DT);
    expect(m.vy).toBeGreaterThan(0);
    expect(m.x).toBeLessThan(x + cfg.maxSpeed * DT);
    for (let t = 0; t < 64; t++) q.tick(m, world, cfg, DT);
    expect(m.x).toBeLessThan(x);
    expect(q.taken + q.length).toBe(q.pushed);
  });

  it('a death: dropAfter keeps the commands stamped up to the limit, in order; the dead step only those, never a held step', () => {
    const q = new InputQueue(RATE);
    const m = standing();
    for (let i = 1; i <= 6; i++) q.push(input(i, 1, 0, 100 + i * DT_MS));
    q.dropAfter(100 + 4 * DT_MS);
    expect(q.length).toBe(4);
    const unstamped = new InputQueue(RATE);
    unstamped.push(input(1, 1, 0, 0));
    unstamped.dropAfter(1e12);
    expect(unstamped.length).toBe(0);
    // Stepped one a tick from the credit the ticks earn, then nothing: no held step for the dead.
    for (let t = 0; t < 40; t++) q.tick(m, world, cfg, DT, false);
    expect(q.length).toBe(0);
    expect(m).toEqual(clientPath([1, 2, 3, 4].map((i) => input(i, 1, 0, 100 + i * DT_MS))));
    // Long past the second after which a live player's last command is held (and stepped).
    const x = m.x;
    for (let t = 0; t < 80; t++) q.tick(m, world, cfg, DT, false);
    expect(m.x).toBe(x);
  });

  it('stamped commands that stop: the player holds while they may still come, then the last is held', () => {
    const q = new InputQueue(RATE);
    const m = standing();
    q.push(input(1, 1, 0, 5));
    q.tick(m, world, cfg, DT);
    const x = m.x;
    for (let t = 0; t < 62; t++) q.tick(m, world, cfg, DT);
    expect(m.x).toBe(x);
    for (let t = 0; t < 10; t++) q.tick(m, world, cfg, DT);
    expect(m.x).toBeGreaterThan(x);
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

  /** Two players joined; B standing still on the floor (no input sent) for `ticks` ticks, and B's own prediction starting there. */
  async function standingPair(ticks: number) {
    const [a, b] = await joinPair(ts.url);
    const room = ts.server.rooms.get(a.room.roomId)!;
    const slot = room.slotOf(b.room.sessionId)!;
    const settled = () => slot.move.onGround && slot.move.vx === 0 && slot.move.vy === 0 && slot.move.vz === 0;
    await waitFor(settled, 'B standing on the floor');
    const tick0 = room.tickCount;
    await waitFor(() => room.tickCount >= tick0 + ticks && settled(), `B standing for ${ticks} ticks`);
    const m = slot.move;
    const me = createMoveState(m.x, m.y, m.z);
    me.onGround = m.onGround;
    return { a, b, room, slot, me, cfgS: ts.server.config };
  }

  it('every input of the burst is stepped before the shot is judged, so a shot from the predicted eye is judged from there', async () => {
    const { a, b, slot, me, cfgS } = await standingPair(8);
    // The client steps 48 inputs over 48 ticks (24 east, then 24 north), all held back by a stall
    // (its pongs too, in the order sent): it predicts itself from where they took it.
    const x0 = slot.move.x, z0 = slot.move.z;
    const burst: InputMessage[] = [];
    for (let i = 0; i < 48; i++) {
      const inp = input(i + 1, i < 24 ? 1 : 0, i < 24 ? 0 : 1, 0);
      burst.push(inp);
      stepMovement(me, { wishX: inp.wishX, wishZ: inp.wishZ, viewX: 0, viewY: 0, viewZ: 1, jump: false }, cfgS.world, cfgS.movement, 1 / cfgS.tickRate);
    }
    expect(Math.hypot(me.x - x0, me.z - z0)).toBeGreaterThan(2.5);
    b.stall();
    await b.sendPaced(burst, cfgS.tickRate);
    b.release();
    const eyeY = me.y + ts.server.rig.eyeHeight;
    const v = await b.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: b.serverNow() - 100, sx: me.x, sy: eyeY, sz: me.z, ex: me.x + 0.01, ey: eyeY + 20, ez: me.z });
    expect(reasonName(v.reason)).toBe('OK_MISS');
    // Judged after the burst was stepped: from the very eye the client predicted.
    expect(v.originOffsetM).toBeLessThan(1e-6);
    expect(slot.appliedInputSeq).toBe(48);
    await a.leave();
    await b.leave();
  });

  it('a shooter killed while a stall held its moves and its shot: the dead step the moves made before the death, and the shot is judged from where they took it', async () => {
    const { a, b, room, slot, me, cfgS } = await standingPair(0);
    const x0 = slot.move.x, z0 = slot.move.z;
    const burst: InputMessage[] = [];
    for (let i = 0; i < 30; i++) {
      const inp = input(i + 1, 1, 0, 0);
      burst.push(inp);
      stepMovement(me, { wishX: 1, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false }, cfgS.world, cfgS.movement, 1 / cfgS.tickRate);
    }
    expect(Math.hypot(me.x - x0, me.z - z0)).toBeGreaterThan(2); // past the origin tolerance (1.5 m)
    // B walks and fires at A from where it predicts itself; a stall holds all of it back.
    b.stall();
    await b.sendPaced(burst, cfgS.tickRate);
    const rt = b.serverNow() - 100;
    const pose = b.renderPose(a.slot, rt)!;
    const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, pose, HitZone.UPPER_TORSO);
    const sx = me.x, sy = me.y + ts.server.rig.eyeHeight, sz = me.z;
    const d = Math.hypot(cx - sx, cy - sy, cz - sz);
    const shot = b.shot({ seq: 1, weapon: WeaponId.RIFLE, claimedTarget: a.slot, renderTimeMs: rt, sx, sy, sz, ex: sx + ((cx - sx) / d) * 30, ey: sy + ((cy - sy) / d) * 30, ez: sz + ((cz - sz) / d) * 30 });
    b.sendShot(shot);
    // A kills B after B fired, before any of it reached the server.
    await a.untilServerTime(shot.timeMs + 30);
    const kill = await shootAtZone(a, ts, b.slot, 1, HitZone.HEAD);
    expect(reasonName(kill.reason)).toBe('OK_HIT');
    const hb = room.match.player(b.room.sessionId)!;
    expect(hb.alive).toBe(false);
    expect(hb.diedAtMs).toBeGreaterThan(shot.timeMs);
    b.release();
    // B's moves were made before its death: the dead body steps them, and the shot is judged from
    // the eye B predicted (dropping them would leave the eye path metres short: ORIGIN_MISMATCH).
    const v = await b.verdictFor(1);
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.originOffsetM).toBeLessThan(1e-6);
    expect(slot.appliedInputSeq).toBe(30);
    // A move stated after the death is not stepped.
    b.sendInput(input(31, 1, 0, b.clock.stamp(performance.now())));
    const tick1 = room.tickCount;
    await waitFor(() => room.tickCount >= tick1 + 4, '4 ticks');
    expect(slot.appliedInputSeq).toBe(30);
    expect(slot.move.x).toBe(me.x);
    expect(slot.move.z).toBe(me.z);
    await a.leave();
    await b.leave();
  });
});
