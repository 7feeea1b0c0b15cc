/**
 * Server-side fog of war in the arena room (FogFilter + Colyseus StateView), with real WebSocket
 * clients on the test level (a wall 6 m wide and 3 m high between spawn A (0,0,0) and C (0,0,-8); B
 * (0,0,8) in the open; D (20,0,8) far to the side): what each client's synced state holds of the
 * others, against a brute-force line of sight from the server's poses (eye to body points, World.anyHit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TestPlayer, TEST_SPAWNS, waitFor, zoneCenter, type TestServer } from './helpers/server';
import type { ArenaRoom } from '../server/arena/room';
import type { MatchRecorder, TickRecord } from '../server/match/index';
import { TICK_POSE_STRIDE, TickPose } from '../server/match/recorder';
import { createInputMessage, type InputMessage } from '../shared/protocol/input';
import { HitZone } from '../shared/rig/rig';
import { reasonName, VerdictKind } from '../shared/validate/verdict';
import type { ShotMessage } from '../shared/protocol/shot';
import { WeaponId } from '../shared/weapons';
import type { World } from '../shared/world/world';
import { MatchLogRecorder, type FogChanges, type MatchEvent } from '../server/match/index';
import { auditMatchLog } from '../server/behaviour/audit';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { MatchLogView } from '../web/src/replayLog';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { Bf, BF_STRIDE, createBackfill, decodeBackfill } from '../shared/protocol/backfill';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INTERP = 100;
const world = buildTestWorld();
let ts: TestServer;
let tsOff: TestServer;

/** Per tick the server recorded: time and every present slot's feet. */
const ticks: { timeMs: number; feet: Map<number, [number, number, number]> }[] = [];
const recorder: MatchRecorder = {
  header() {},
  tick(t: TickRecord) {
    const feet = new Map<number, [number, number, number]>();
    for (let s = 0; s * TICK_POSE_STRIDE < t.poses.length; s++) {
      const o = s * TICK_POSE_STRIDE;
      if (t.poses[o + TickPose.PRESENT] === 1) feet.set(s, [t.poses[o + TickPose.X]!, t.poses[o + TickPose.Y]!, t.poses[o + TickPose.Z]!]);
    }
    ticks.push({ timeMs: t.timeMs, feet });
    if (ticks.length > 4000) ticks.shift();
  },
  shot() {},
  event() {},
  close() {},
};


function roomOf(s: TestServer, p: TestPlayer): ArenaRoom {
  const r = s.server.rooms.get(p.room.roomId);
  if (!r) throw new Error('room not found');
  return r;
}

/** A room of `n` players (slot i at TEST_SPAWNS[i]), each with its own state and a few patches. */
async function match(s: TestServer, n: number, joinOptions: Record<string, unknown>[] = []): Promise<TestPlayer[]> {
  const first = await TestPlayer.create(s.url, { interpDelayMs: INTERP, ...joinOptions[0] });
  const players = [first];
  for (let i = 1; i < n; i++) players.push(await TestPlayer.join(s.url, first.room.roomId, { interpDelayMs: INTERP, ...joinOptions[i] }));
  for (const p of players) await p.until(() => p.pings >= 2 && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'pings and state');
  for (let i = 0; i < n; i++) expect(players[i]!.slot).toBe(i);
  return players;
}

/** Whether `p`'s client holds the player of `slot` now. */
function holds(p: TestPlayer, slot: number): boolean {
  let found = false;
  p.state.players.forEach((q: { slot: number }) => { if (q.slot === slot) found = true; });
  return found;
}

/** Whether any of `p`'s snapshots since index `from` held `slot`. */
function everHeld(p: TestPlayer, slot: number, from = 0): boolean {
  return p.snapshots.slice(from).some((s) => s.poses.has(slot));
}

/**
 * Brute force: is any line from the eye (feet + eye height) to a point of the body (feet, 0.2 to
 * 1.7 m up, 0.25 m around) clear of the level?
 */
function lineOfSight(w: World, eyeHeight: number, v: [number, number, number], e: [number, number, number]): boolean {
  const [ex, ey, ez] = [v[0], v[1] + eyeHeight, v[2]];
  for (const h of [0.2, 0.9, 1.7]) {
    for (const [ox, oz] of [[0, 0], [0.25, 0], [-0.25, 0], [0, 0.25], [0, -0.25]] as const) {
      if (!w.anyHit(ex, ey, ez, e[0] + ox, e[1] + h, e[2] + oz)) return true;
    }
  }
  return false;
}

function walk(wishX: number): InputMessage {
  return { ...createInputMessage(), wishX, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1 };
}

// One server at a time: servers of one process share Colyseus's matchmaker (the last defined room wins).
describe('fog of war: who is sent whom', () => {
  beforeAll(async () => {
    ts = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, debugVerdicts: true, recorder, respawnDelayMs: 250 });
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('players on opposite sides of the wall receive nothing of each other; a player in the open is received; the roster lists everyone', async () => {
    // C asks for everything a hostile client could ask (none of it is a join option the room reads).
    const players = await match(ts, 3, [{}, {}, { debug: 'yes', fog: 'off', seeAll: true, view: 'all', team: 0 }]);
    const [a, b, c] = players;
    await a!.until(() => holds(a!, 1), 5000, 'B on A\'s client');
    await b!.until(() => holds(b!, 0), 5000, 'A on B\'s client');
    const from = a!.snapshots.length;
    await a!.snapshotsPass(30);
    await c!.snapshotsPass(30);
    expect(everHeld(a!, 2, from)).toBe(false);
    expect(everHeld(c!, 0)).toBe(false);
    expect(holds(c!, 2)).toBe(true); // its own player, always
    // The brute force agrees: no line from A's eye to C's body, one to B's.
    const eye = ts.server.rig.eyeHeight;
    const last = ticks.at(-1)!;
    expect(lineOfSight(world, eye, TEST_SPAWNS_FEET[0], TEST_SPAWNS_FEET[2])).toBe(false);
    expect(lineOfSight(world, eye, TEST_SPAWNS_FEET[0], TEST_SPAWNS_FEET[1])).toBe(true);
    expect(last.feet.size).toBeGreaterThanOrEqual(3);
    // Everyone's scoreboard reaches everyone.
    for (const p of players) {
      await p.until(() => p.state.roster?.size === 3, 5000, 'roster of 3');
      const slots: number[] = [];
      p.state.roster.forEach((r: { slot: number; name: string }) => slots.push(r.slot));
      expect(slots.sort()).toEqual([0, 1, 2]);
    }
    expect(roomOf(ts, a!).fog!.isSent(2, 0)).toBe(false);
    await Promise.all(players.map((p) => p.leave()));
  });

  it('walking out from behind the wall, the enemy reaches the client before any line of sight from its eye exists', async () => {
    const players = await match(ts, 3);
    const [a, , c] = players;
    const room = roomOf(ts, a!);
    const eye = ts.server.rig.eyeHeight;
    await a!.snapshotsPass(10);
    expect(holds(a!, 2)).toBe(false);
    const startTick = ticks.length;
    c!.holdInput(walk(1));
    // C walks along the wall toward +x, past its end at x = 3.
    await waitFor(() => (room.match.scene.histories[2]!.sweepX ?? 0) > 6, 'C past the end of the wall', 10_000);
    c!.stopInputs();
    await a!.snapshotsPass(5);
    const firstSeen = a!.snapshots.find((s) => s.poses.has(2))?.timeMs;
    let firstLine = Number.NaN;
    for (const t of ticks.slice(startTick)) {
      const av = t.feet.get(0), cv = t.feet.get(2);
      if (av !== undefined && cv !== undefined && lineOfSight(world, eye, av, cv)) { firstLine = t.timeMs; break; }
    }
    expect(firstLine).toBeGreaterThan(0);
    expect(firstSeen).toBeDefined();
    expect(firstSeen!).toBeLessThan(firstLine);
    await Promise.all(players.map((p) => p.leave()));
  });

  it('a client that takes backfills gets the enemy\'s history over its delay just ahead of the patch that sends it again; one that does not, none', async () => {
    const players = await match(ts, 3, [{ fogBackfill: true }, {}, {}]);
    const [a, b, c] = players;
    const room = roomOf(ts, a!);
    await a!.snapshotsPass(10);
    expect(holds(a!, 2)).toBe(false);
    const from = a!.snapshots.length, fromBackfills = a!.backfills.length;
    c!.holdInput(walk(1));
    await waitFor(() => (room.match.scene.histories[2]!.sweepX ?? 0) > 6, 'C past the end of the wall', 10_000);
    c!.stopInputs();
    await a!.snapshotsPass(5);
    const first = a!.snapshots.findIndex((s, i) => i >= from && s.poses.has(2));
    expect(first).toBeGreaterThanOrEqual(from);
    const bf = a!.backfills.slice(fromBackfills).map((x) => ({ ...x, d: createBackfill() })).filter((x) => decodeBackfill(x.d, x.bytes) && x.d.slot === 2);
    expect(bf.length).toBeGreaterThan(0);
    // The first one came just ahead of the first patch that held C.
    expect(bf[0]!.snapshotsBefore).toBe(first);
    const d = bf[0]!.d, t1 = a!.snapshots[first]!.timeMs, tick = 1000 / ts.server.config.tickRate;
    expect(d.samples[(d.count - 1) * BF_STRIDE + Bf.TIME]).toBeLessThan(t1);
    expect(d.samples[Bf.TIME]).toBeGreaterThanOrEqual(t1 - INTERP - tick - 1e-9);
    expect(d.count).toBeGreaterThanOrEqual(Math.floor(INTERP / tick));
    // Exactly the server's history at those times.
    const h = room.match.scene.histories[2]!, pose = createPlayerPose();
    for (let i = 0; i < d.count; i++) {
      const q = i * BF_STRIDE;
      let k = h.size() - 1;
      while (k >= 0 && h.snapshot(pose, k) !== d.samples[q + Bf.TIME]) k--;
      expect(k).toBeGreaterThanOrEqual(0);
      expect([d.samples[q + Bf.X], d.samples[q + Bf.Y], d.samples[q + Bf.Z], d.samples[q + Bf.QW], d.samples[q + Bf.EPOCH]]).toEqual([pose.x, pose.y, pose.z, pose.qw, pose.epoch]);
    }
    expect(b!.backfills.length + c!.backfills.length).toBe(0);
    await Promise.all(players.map((p) => p.leave()));
  });

  it('a shot into the wall at the enemy behind it reads, to the shooter it is withheld from, as the miss it is on its screen', async () => {
    const players = await match(ts, 3);
    const a = players[0]!;
    // C joined last: its history must reach back past A's render time, or the shot meets no C there.
    const h = roomOf(ts, a).match.scene.histories[2]!;
    await waitFor(() => h.newestTimeMs() - h.oldestTimeMs() >= 2 * INTERP, 'C\'s history over twice the delay', 10_000);
    const refused = ts.server.stats.rejects.OCCLUDED ?? 0;
    const rt = await a.renderNow(INTERP);
    expect(rt).toBeGreaterThan(h.oldestTimeMs());
    const v = await a.shoot(shotAtC(rt, ts.server.rig.eyeHeight));
    expect([v.kind, reasonName(v.reason), v.target, v.zone]).toEqual([VerdictKind.MISS, 'OK_MISS', -1, -1]);
    expect(v.t).toBeGreaterThan(0);
    // The server's own verdict was the refusal, naming C.
    expect(ts.server.stats.rejects.OCCLUDED).toBe(refused + 1);
    await Promise.all(players.map((p) => p.leave()));
  });

  it('a debug client (when the server allows it) is sent everyone', async () => {
    const players = await match(ts, 3, [{}, {}, { debug: true }]);
    const [a, , c] = players;
    await c!.until(() => holds(c!, 0) && holds(c!, 1), 5000, 'A and B on the debug client');
    await a!.snapshotsPass(20);
    expect(everHeld(a!, 2)).toBe(false);
    await Promise.all(players.map((p) => p.leave()));
  });

});

describe('fog of war off', () => {
  beforeAll(async () => {
    tsOff = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, fog: 'off' });
  });
  afterAll(async () => {
    await tsOff?.close();
  });

  it('with fog off every client is sent everyone, and there is no roster', async () => {
    const players = await match(tsOff, 3);
    const [a, , c] = players;
    await a!.until(() => holds(a!, 2), 5000, 'C on A\'s client through the wall');
    await c!.until(() => holds(c!, 0), 5000, 'A on C\'s client through the wall');
    expect(a!.state.roster).toBeUndefined();
    expect(roomOf(tsOff, a!).fog).toBeNull();
    await Promise.all(players.map((p) => p.leave()));
  });

  it('with fog off a shot into the wall at the player behind it is refused, naming it (the shooter is sent it anyway)', async () => {
    const players = await match(tsOff, 3);
    const a = players[0]!;
    const v = await a.shoot(shotAtC(await a.renderNow(INTERP), tsOff.server.rig.eyeHeight));
    expect([v.kind, reasonName(v.reason), v.target]).toEqual([VerdictKind.REJECTED, 'OCCLUDED', 2]);
    await Promise.all(players.map((p) => p.leave()));
  });
});

describe('fog of war settings', () => {
  let tsNear: TestServer;
  beforeAll(async () => {
    // fogConfig reaches the room's FogOfWar: maxDistance hides pairs whose regions are farther apart.
    tsNear = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, fogConfig: { maxDistance: 5 } });
  });
  afterAll(async () => {
    await tsNear?.close();
  });

  it('a server\'s fogConfig is its rooms\' fog: with a 5 m draw distance the player 21 m off in the open is never sent', async () => {
    const players = await match(tsNear, 4);
    const a = players[0]!;
    await a.snapshotsPass(30);
    expect(everHeld(a, 3)).toBe(false);
    // In plain sight: the default rule sends a pair with any clear line.
    expect(lineOfSight(world, tsNear.server.rig.eyeHeight, TEST_SPAWNS_FEET[0], TEST_SPAWNS_FEET[3])).toBe(true);
    await Promise.all(players.map((p) => p.leave()));
  });
});

describe('fog of war: respawns', () => {
  beforeAll(async () => {
    ts = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, recorder, respawnDelayMs: 250 });
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('a respawn behind the wall withdraws the player from the killer that saw it in the open', async () => {
    const players = await match(ts, 2);
    const [a, b] = players;
    const room = roomOf(ts, a!);
    await a!.until(() => a!.renderPose(1, a!.serverNow() - INTERP - 50) !== null, 10_000, 'B drawn');
    // B dies at its first spawn (in the open) and respawns at the next: C's spot, behind the wall from A.
    const rt = a!.serverNow() - INTERP;
    const pose = a!.renderPose(1, rt)!;
    const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, pose, HitZone.HEAD);
    const sx = 0, sy = eye0(), sz = 0;
    const dx = cx - sx, dy = cy - sy, dz = cz - sz, l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const v = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 1, sx, sy, sz, ex: sx + (dx / l) * 30, ey: sy + (dy / l) * 30, ez: sz + (dz / l) * 30 });
    expect(reasonName(v.reason)).toBe('OK_HIT');
    await waitFor(() => room.match.player(b!.room.sessionId)!.epoch >= 1 && room.match.player(b!.room.sessionId)!.alive, 'B respawned', 5000);
    const bFeet = room.slotOf(b!.room.sessionId)!.move;
    expect([bFeet.x, bFeet.z]).toEqual([0, -8]);
    await a!.until(() => !holds(a!, 1), 5000, 'B withdrawn from A');
    const from = a!.snapshots.length;
    await a!.snapshotsPass(20);
    expect(everHeld(a!, 1, from)).toBe(false);
    expect(holds(b!, 1)).toBe(true);
    await Promise.all(players.map((p) => p.leave()));
  });
});

const TEST_SPAWNS_FEET = TEST_SPAWNS.map((s) => [s.x, s.y, s.z] as [number, number, number]);

/** A rifle shot from A's eye (`sy` up) at spawn A (0, 0, 0) toward C's body at spawn C behind the wall, rendering `rt`. */
function shotAtC(rt: number, sy: number): Partial<ShotMessage> {
  const dy = 1.1 - sy, dz = -8, l = Math.sqrt(dy * dy + dz * dz);
  return { seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: -1, sx: 0, sy, sz: 0, ex: 0, ey: sy + (dy / l) * 30, ez: (dz / l) * 30 };
}

function eye0(): number {
  return ts.server.rig.eyeHeight;
}

describe('fog of war in the match log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitreg-fog-'));
  /** The room's own counts (FogFilter) per slot, taken as each player leaves; and the log's path and close. */
  const atLeave = new Map<number, [number, number]>();
  let path = '';
  let closed: Promise<void> | null = null;
  let changes = 0;
  let logServer: TestServer;
  beforeAll(async () => {
    logServer = await startTestServer({
      level: world, spawnPoints: TEST_SPAWNS,
      recorder: (roomId: string) => {
        const rec = new MatchLogRecorder({ path: join(dir, `${roomId}.hrml`) });
        path = rec.path;
        const fogOf = () => logServer.server.rooms.get(roomId)?.fog ?? null;
        return {
          header: (h) => rec.header(h), tick: (t) => rec.tick(t), shot: (x) => rec.shot(x), identity: (i) => rec.identity(i),
          fog: (c: FogChanges) => { changes += c.count; rec.fog(c); },
          fogBackfills: (c) => rec.fogBackfills(c),
          event: (e: MatchEvent) => {
            const f = fogOf();
            if (e.kind === 'leave' && f !== null) atLeave.set(e.slot, [f.enemyTicksSent[e.slot]!, f.enemyTicksWithheld[e.slot]!]);
            rec.event(e);
          },
          close: () => (closed = rec.close()),
        };
      },
    });
  });
  afterAll(async () => {
    await logServer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A room of three (these join options): C walks out from behind the wall until A has it, then all leave and the log closes. Returns A. */
  async function walkOutLogged(joinOptions: Record<string, unknown>[] = []): Promise<TestPlayer> {
    closed = null;
    const players = await match(logServer, 3, joinOptions);
    const [a, , c] = players;
    await a!.snapshotsPass(20);
    c!.holdInput(walk(1));
    await a!.until(() => holds(a!, 2), 10_000, 'C out from behind the wall');
    c!.stopInputs();
    await a!.snapshotsPass(10);
    for (const p of players) await p.leave();
    await waitFor(() => closed !== null, 'the log closed', 10_000);
    await closed;
    return a!;
  }

  it('the recorded changes read back by the audit give the room\'s own counts per viewer, and the withheld pair', async () => {
    await walkOutLogged();
    expect(changes).toBeGreaterThan(0);
    const r = await auditMatchLog(path, { world, calibration: null });
    expect(r.problems).toEqual([]);
    expect(r.fog.mode).toBe('on');
    expect(r.fog.badRecords).toBe(0);
    for (const v of r.fog.viewers) expect([v.enemyTicksSent, v.enemyTicksWithheld], `viewer ${v.slot}`).toEqual(atLeave.get(v.slot));
    expect(r.fog.viewers.map((v) => v.slot)).toEqual([0, 1, 2]);
    // A was withheld C until C walked out, and never B (in the open).
    const ac = r.fog.withheld.filter((w) => w.viewer === 0 && w.enemy === 2);
    expect(ac.length).toBeGreaterThanOrEqual(1);
    expect(ac[0]!.toMs).toBeGreaterThan(ac[0]!.fromMs);
    expect(r.fog.withheld.filter((w) => w.viewer === 0 && w.enemy === 1)).toEqual([]);
    // The replay viewer reads the same: per tick, what each viewer was sent, summed over the ticks.
    const log = MatchLogView.parse(new Uint8Array(readFileSync(path)));
    expect(log.fogOn).toBe(true);
    const pose = createPlayerPose();
    for (const v of r.fog.viewers) {
      let sent = 0, withheld = 0;
      for (let i = 0; i < log.ticks; i++) {
        if (!log.poseAt(pose, i, v.slot)) continue;
        for (let e = 0; e < log.slots; e++) {
          if (e === v.slot || !log.poseAt(pose, i, e)) continue;
          if (log.sentAt(v.slot, e, i)) sent++; else withheld++;
        }
      }
      expect([sent, withheld], `viewer ${v.slot} in the replay viewer`).toEqual([v.enemyTicksSent, v.enemyTicksWithheld]);
    }
    expect(r.fog.viewers.map((v) => v.backfills)).toEqual([0, 0, 0]);
  });

  it('a viewer\'s backfills are logged: the audit ends its withheld spans with them, the replay viewer draws their ticks as had', async () => {
    const a = await walkOutLogged([{ fogBackfill: true }, {}, {}]);
    const got = a.backfills.map((x) => { const d = createBackfill(); expect(decodeBackfill(d, x.bytes)).toBe(true); return { enemy: d.slot, fromMs: d.samples[Bf.TIME]! }; });
    expect(got.some((g) => g.enemy === 2)).toBe(true);
    const r = await auditMatchLog(path, { world, calibration: null });
    expect(r.problems).toEqual([]);
    expect([r.fog.backfillsRecorded, r.fog.badBackfills, r.fog.badRecords]).toEqual([true, 0, 0]);
    // Every backfill A was handed, and only A's, ends one of its withheld spans at the send.
    expect(r.fog.viewers.map((v) => v.backfills)).toEqual([got.length, 0, 0]);
    const ended = r.fog.withheld.filter((w) => w.backfilledFromMs === w.backfilledFromMs);
    expect(ended.map((w) => [w.viewer, w.enemy, w.backfilledFromMs]).sort()).toEqual(got.map((g) => [0, g.enemy, g.fromMs]).sort());
    for (const w of ended) expect(w.backfilledFromMs).toBeLessThan(w.toMs);
    // The replay viewer: A had C over the backfilled ticks before the send, and not before them.
    const log = MatchLogView.parse(new Uint8Array(readFileSync(path)));
    const span = ended.find((w) => w.enemy === 2)!;
    const ticks = [...log.tickTimes.subarray(0, log.ticks)].map((t, i) => ({ t, i }));
    const inside = ticks.filter((x) => x.t >= span.backfilledFromMs && x.t < span.toMs);
    expect(inside.length).toBeGreaterThan(3);
    for (const x of inside) expect(log.sentAt(0, 2, x.i), `tick ${x.i} at ${x.t}`).toBe(true);
    const before = ticks.filter((x) => x.t >= span.fromMs && x.t < span.backfilledFromMs);
    for (const x of before) expect(log.sentAt(0, 2, x.i)).toBe(false);
  });
});
