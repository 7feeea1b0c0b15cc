/**
 * The arena room end to end: real @colyseus/sdk clients over WebSocket against the real server on
 * an ephemeral port, on the flat test level (floor + one wall, test/helpers/server.ts). Each case
 * creates its own room; players are placed by the server's spawn points (slot order), never by a
 * message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TestPlayer, TEST_SPAWNS, zoneCenter, waitFor, type TestServer } from './helpers/server';
import { HitZone, DEFAULT_ZONE_MULTIPLIERS } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { VerdictKind, VerdictReason, TimeSource, createVerdict, reasonName } from '../shared/validate/verdict';
import { validateShot } from '../shared/validate/shot';
import { encodeShot, ShotAction, SHOT_BYTES } from '../shared/protocol/shot';
import { createInputMessage } from '../shared/protocol/input';
import type { MatchRecorder, ShotRecord } from '../server/match/recorder';
import type { ArenaRoom } from '../server/arena/room';

const INTERP = 100;
/** A weapon with a 2-round magazine and a slow reload, to reach the reload quickly. */
const TEST_SMG = { id: WEAPONS.length, name: 'test-smg', damage: 1, rangeM: 50, fireIntervalMs: 40, magazine: 2, reloadMs: 10_000, drawMs: 200, zoneMultipliers: null };
let ts: TestServer;
const shotLog: ShotRecord[] = [];

/** Keeps deep copies of shot records: the room reuses the objects it passes. */
const recorder: MatchRecorder = {
  header() {},
  tick() {},
  event() {},
  shot(s) {
    shotLog.push(structuredClone(s));
  },
  close() {},
};

beforeAll(async () => {
  ts = await startTestServer({
    level: buildTestWorld(),
    spawnPoints: TEST_SPAWNS,
    respawnDelayMs: 250,
    recorder,
    maxPlayers: 8,
    // Clients aim from their own snapshots at players behind the wall (OCCLUDED) and at a respawn
    // behind it: every client must be sent everyone (fog of war is tested in fogRoom.test.ts).
    fog: 'off',
    // A wide window and interpolation delay so the respawn case can claim a time before the death.
    // A claim tolerance wider than the 60 ms default absorbs event-loop delays when the machine is
    // loaded (tests run in parallel); the tolerance boundary itself is unit-tested in validate.test.ts.
    validation: { rewindWindowMs: 600, claimToleranceMs: 150 },
    maxInterpDelayMs: 500,
    weapons: [...WEAPONS, TEST_SMG],
    loadout: [WeaponId.RIFLE, WeaponId.PISTOL, WeaponId.SNIPER, TEST_SMG.id],
  });
});
afterAll(async () => {
  await ts?.close();
});

function roomOf(p: TestPlayer): ArenaRoom {
  const r = ts.server.rooms.get(p.room.roomId);
  if (!r) throw new Error('room not found');
  return r;
}

/** Creates a room with `n` players (slot i spawns at TEST_SPAWNS[i]) and waits for clocks and history. */
async function match(n: number, joinOptions: Record<string, unknown>[] = []): Promise<TestPlayer[]> {
  const first = await TestPlayer.create(ts.url, { interpDelayMs: INTERP, ...joinOptions[0] });
  const players = [first];
  for (let i = 1; i < n; i++) players.push(await TestPlayer.join(ts.url, first.room.roomId, { interpDelayMs: INTERP, ...joinOptions[i] }));
  for (const p of players) await p.until(() => p.pings >= 2 && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'pings and state');
  for (let i = 0; i < n; i++) expect(players[i]!.slot).toBe(i);
  // Every history holds 300 ms of every player, and each client draws the others at its render time.
  const room = roomOf(first);
  await waitFor(() => players.every((p) => {
    const h = room.match.scene.histories[p.slot]!;
    return h.size() > 1 && h.newestTimeMs() - h.oldestTimeMs() >= 300;
  }), 'histories of 300 ms');
  for (const p of players) {
    for (const q of players) if (p !== q) await p.until(() => p.renderPose(q.slot, p.serverNow() - INTERP - 50) !== null, 10_000, 'the others drawn');
  }
  return players;
}

async function leaveAll(players: TestPlayer[]): Promise<void> {
  await Promise.all(players.map((p) => p.leave()));
}

/** The eye of a player as its own client sees it (feet from the newest snapshot + rig eye height). */
function eyeOf(p: TestPlayer, slot: number): [number, number, number] {
  const snap = p.snapshots[p.snapshots.length - 1]!;
  const pose = snap.poses.get(slot)!;
  return [pose.x, pose.y + ts.server.rig.eyeHeight, pose.z];
}

/** Aims from the shooter's eye through the centre of `zone` of `target` as rendered at renderTime, 30 m long. */
function aimAt(shooter: TestPlayer, target: number, zone: number, renderTime: number): { sx: number; sy: number; sz: number; ex: number; ey: number; ez: number } {
  const pose = shooter.renderPose(target, renderTime);
  if (!pose) throw new Error(`no snapshots bracket ${renderTime}`);
  const room = roomOf(shooter);
  const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, pose, zone);
  const [sx, sy, sz] = eyeOf(shooter, shooter.slot);
  const dx = cx - sx, dy = cy - sy, dz = cz - sz;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  return { sx, sy, sz, ex: sx + (dx / l) * 30, ey: sy + (dy / l) * 30, ez: sz + (dz / l) * 30 };
}

/**
 * The client's render time now (serverNow - INTERP), once its snapshots reach it: on a loaded
 * machine patches can arrive late, and a client cannot draw what it has not received.
 */
function renderTime(p: TestPlayer): Promise<number> {
  return p.renderNow(INTERP);
}

describe('arena room: hits on a stationary target', () => {
  it('a head shot hits the head with weapon damage x head multiplier (and kills at 100 hp)', async () => {
    const [a, b] = await match(2);
    const rt = (await renderTime(a!));
    const v = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 1, ...aimAt(a!, 1, HitZone.HEAD, rt) });
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.kind).toBe(VerdictKind.HIT);
    expect(v.target).toBe(1);
    expect(v.zone).toBe(HitZone.HEAD);
    expect(v.damage).toBeCloseTo(WEAPONS[WeaponId.RIFLE]!.damage * DEFAULT_ZONE_MULTIPLIERS[HitZone.HEAD], 9);
    expect(v.timeSource).toBe(TimeSource.CLAIMED);
    await a!.until(() => a!.hits.length === 1, 3000, 'hit confirmation');
    await b!.until(() => b!.damaged.length === 1, 3000, 'damage direction');
    expect(a!.hits[0]!.target).toBe(1);
    // The damage came from A (at -z of B): direction from B toward A points to -z.
    expect(b!.damaged[0]!.dz).toBeLessThan(-0.9);
    await leaveAll([a!, b!]);
  });

  it('a torso shot hits the upper torso for weapon damage x torso multiplier', async () => {
    const [a, b] = await match(2);
    const rt = (await renderTime(a!));
    // The rifle is in hand: the pistol fires only once switched to and drawn.
    const early = await a!.shoot({ seq: 1, weapon: WeaponId.PISTOL, renderTimeMs: rt, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, rt) });
    expect(reasonName(early.reason)).toBe('NOT_EQUIPPED');
    expect(reasonName((await a!.act(ShotAction.SWITCH, WeaponId.PISTOL, 2)).reason)).toBe('OK_SWITCH');
    const drawing = (await renderTime(a!));
    expect(reasonName((await a!.shoot({ seq: 3, weapon: WeaponId.PISTOL, renderTimeMs: drawing, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, drawing) })).reason)).toBe('WEAPON_DRAWING');
    await a!.until(() => roomOf(a!).state.players.get(a!.room.sessionId)!.weapon === WeaponId.PISTOL, 3000, 'equipped pistol synced');
    await a!.untilDrawn(WeaponId.PISTOL);
    const rt2 = (await renderTime(a!));
    const v = await a!.shoot({ seq: 4, weapon: WeaponId.PISTOL, renderTimeMs: rt2, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, rt2) });
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.zone).toBe(HitZone.UPPER_TORSO);
    expect(roomOf(a!).state.players.get(a!.room.sessionId)!.ammo).toBe(WEAPONS[WeaponId.PISTOL]!.magazine - 1);
    const dmg = WEAPONS[WeaponId.PISTOL]!.damage * DEFAULT_ZONE_MULTIPLIERS[HitZone.UPPER_TORSO];
    expect(v.damage).toBeCloseTo(dmg, 9);
    await a!.until(() => roomOf(a!).state.players.get(b!.room.sessionId)!.health === 100 - dmg, 3000, 'health');
    await leaveAll([a!, b!]);
  });
});

describe('arena room: walls', () => {
  it('a shot through a wall is rejected as OCCLUDED and leaves a bullet hole on the wall', async () => {
    const players = await match(3);
    const [a, , c] = players;
    const rt = (await renderTime(a!));
    const v = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 2, ...aimAt(a!, 2, HitZone.UPPER_TORSO, rt) });
    expect(reasonName(v.reason)).toBe('OCCLUDED');
    expect(v.kind).toBe(VerdictKind.REJECTED);
    expect(v.target).toBe(2);
    const room = roomOf(a!);
    expect(room.state.holes.length).toBe(1);
    const hole = room.state.holes[0]!;
    expect(hole.surface).toBe('wall/brick');
    expect(hole.z).toBeCloseTo(-3.85, 4); // the wall's face toward A
    expect(hole.nz).toBeCloseTo(1, 6);
    expect(room.state.players.get(c!.room.sessionId)!.health).toBe(100);
    // Clients see the hole too.
    await a!.until(() => a!.state.holes.length === 1, 3000, 'hole patch');
    await leaveAll(players);
  });

  it('a miss into the floor leaves a bullet hole on the floor', async () => {
    const [a, b] = await match(2);
    const [sx, sy, sz] = eyeOf(a!, 0);
    const v = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: (await renderTime(a!)), sx, sy, sz, ex: sx + 3, ey: sy - 10, ez: sz - 3 });
    expect(reasonName(v.reason)).toBe('OK_MISS');
    const hole = roomOf(a!).state.holes[0]!;
    expect(hole.surface).toBe('floor/concrete');
    expect(hole.y).toBeCloseTo(0, 5);
    await leaveAll([a!, b!]);
  });
});

describe('arena room: each rejection reason', () => {
  it('out of range, origin mismatch, fire rate, self-target, replayed seq, future, too old, unknown weapon, reloading', async () => {
    const [a, b] = await match(2);
    const room = roomOf(a!);
    const bState = () => room.state.players.get(b!.room.sessionId)!;
    let seq = 10;
    const aim = async () => aimAt(a!, 1, HitZone.UPPER_TORSO, await renderTime(a!));
    const expectReason = async (fields: Record<string, number>, reason: string) => {
      const rt = (await renderTime(a!));
      const v = await a!.shoot({ seq: ++seq, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, rt), ...fields });
      expect(reasonName(v.reason), JSON.stringify(fields)).toBe(reason);
      expect(v.kind).toBe(VerdictKind.REJECTED);
      return v;
    };
    const far = await aim();
    const k = 250 / 30; // rifle range is 200 m: stretch the 30 m aim to 250 m
    await expectReason({ ex: far.sx + (far.ex - far.sx) * k, ey: far.sy + (far.ey - far.sy) * k, ez: far.sz + (far.ez - far.sz) * k }, 'OUT_OF_RANGE');
    await expectReason({ sx: far.sx + 5, ex: far.ex + 5 }, 'ORIGIN_MISMATCH');
    await expectReason({ claimedTarget: 0 }, 'SELF_TARGET');
    await expectReason({ renderTimeMs: a!.serverNow() + 500 }, 'TIME_FUTURE');
    await expectReason({ renderTimeMs: a!.serverNow() - 5000 }, 'TIME_TOO_OLD');
    await expectReason({ weapon: 200 }, 'UNKNOWN_WEAPON');
    // Fire rate: two rifle shots sent back to back (100 ms interval) -> the second is refused.
    const rt = (await renderTime(a!));
    const s1 = a!.shot({ seq: ++seq, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, rt) });
    const s2 = { ...s1, seq: ++seq };
    a!.sendShot(s1);
    a!.sendShot(s2);
    expect(reasonName((await a!.verdictFor(s1.seq)).reason)).toBe('OK_HIT');
    expect(reasonName((await a!.verdictFor(s2.seq)).reason)).toBe('FIRE_RATE');
    // Replayed seq: the exact bytes of s1 again.
    await a!.untilFireReady();
    a!.sendShot(s1);
    await a!.until(() => a!.verdicts.filter((v) => v.seq === s1.seq).length === 2, 3000, 'replayed verdict');
    expect(reasonName(a!.verdicts.filter((v) => v.seq === s1.seq)[1]!.reason)).toBe('SEQ_REPLAYED');
    // Reloading: the 2-round test weapon, switched to and drawn, three shots spaced past its fire
    // interval: the last round starts its (10 s) reload.
    const smg = TEST_SMG.id;
    expect(reasonName((await a!.act(ShotAction.SWITCH, smg, ++seq)).reason)).toBe('OK_SWITCH');
    await a!.untilDrawn(smg);
    const got: string[] = [];
    for (let i = 0; i < 3; i++) {
      await a!.untilFireReady(60);
      const r = (await renderTime(a!));
      got.push(reasonName((await a!.shoot({ seq: ++seq, weapon: smg, renderTimeMs: r, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, r) })).reason));
    }
    expect(got).toEqual(['OK_HIT', 'OK_HIT', 'RELOADING']);
    // Only the three accepted hits changed health: rifle torso 25, smg 1 + 1.
    expect(bState().health).toBe(100 - 25 - 2);
    const rejects = ts.server.stats.rejects;
    for (const r of ['OUT_OF_RANGE', 'ORIGIN_MISMATCH', 'SELF_TARGET', 'TIME_FUTURE', 'TIME_TOO_OLD', 'UNKNOWN_WEAPON', 'FIRE_RATE', 'SEQ_REPLAYED', 'RELOADING']) {
      expect(rejects[r] ?? 0, r).toBeGreaterThanOrEqual(1);
    }
    await leaveAll([a!, b!]);
  });

  it('a dead shooter cannot shoot', async () => {
    const [a, b] = await match(2);
    const rt = (await renderTime(b!));
    const kill = await b!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 0, ...aimAt(b!, 0, HitZone.HEAD, rt) });
    expect(reasonName(kill.reason)).toBe('OK_HIT');
    await a!.until(() => a!.damaged.length === 1, 3000, 'death');
    expect(a!.damaged[0]!.health).toBe(0);
    // A is dead for 250 ms: a shot it states after the death is refused. A's clock estimate can be
    // a few ms behind the server's, so it waits until its own clock reads past the recorded death.
    const diedAtMs = roomOf(a!).match.player(a!.room.sessionId)!.diedAtMs;
    await a!.untilServerTime(diedAtMs + 20);
    const r2 = (await renderTime(a!));
    const v = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: r2, claimedTarget: 1, ...aimAt(a!, 1, HitZone.HEAD, r2) });
    expect(reasonName(v.reason)).toBe('SHOOTER_DEAD');
    expect(roomOf(a!).state.players.get(b!.room.sessionId)!.health).toBe(100);
    await leaveAll([a!, b!]);
  });

  it('a shot sent before its shooter was killed is judged after the kill: both players of a trade hit', async () => {
    const [a, b] = await match(2);
    const rtA = (await renderTime(a!));
    const rtB = (await renderTime(b!));
    // Two seconds of A's standing inputs go ahead of its shot, which waits for them to be stepped.
    const inp = createInputMessage();
    const stamp = a!.clock.stamp(performance.now());
    for (let i = 1; i <= 128; i++) a!.sendInput({ ...inp, seq: i, timeMs: stamp + (i - 128) * (1000 / 64) });
    const fired = a!.shot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rtA, claimedTarget: 1, ...aimAt(a!, 1, HitZone.UPPER_TORSO, rtA) });
    a!.sendShot(fired);
    // The kill comes 50 ms after A fired: A's action time is before it whatever the few ms (tens on
    // a loaded machine) its clock estimate is off by; A's shot still waits behind its inputs (16
    // ticks of catching up at 8 a tick).
    await b!.untilServerTime(fired.timeMs + 50);
    const kill = await b!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rtB, claimedTarget: 0, ...aimAt(b!, 0, HitZone.HEAD, rtB) });
    expect(reasonName(kill.reason)).toBe('OK_HIT');
    const trade = await a!.verdictFor(1);
    expect(reasonName(trade.reason)).toBe('OK_HIT');
    expect(trade.target).toBe(1);
    // Judged after the kill, once the dead A had stepped the inputs it sent before the shot: B took the damage from a dead shooter.
    expect(roomOf(a!).state.players.get(a!.room.sessionId)!.alive).toBe(false);
    expect(roomOf(a!).state.players.get(b!.room.sessionId)!.health).toBe(100 - 25);
    await leaveAll([a!, b!]);
  });
});

describe('arena room: hostile payloads', () => {
  it('malformed shots, inputs and messages are rejected with a reason; nothing changes; the room keeps running', async () => {
    const [a, b] = await match(2);
    const room = roomOf(a!);
    const snapshot = () => {
      const out: unknown[] = [];
      room.state.players.forEach((p) => out.push([p.slot, p.health, p.alive, p.kills, p.deaths, p.epoch]));
      const shooter = room.match.player(a!.room.sessionId)!.weapons;
      return JSON.stringify({ out, holes: room.state.holes.length, feed: room.state.killFeed.length, ammo: shooter.ammo, next: shooter.nextFireMs });
    };
    const before = snapshot();
    const rt = (await renderTime(a!));
    const good = a!.shot({ seq: 100, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 1, ...aimAt(a!, 1, HitZone.HEAD, rt) });
    const bytesOf = (fields: Partial<typeof good>): Uint8Array => encodeShot(new Uint8Array(SHOT_BYTES), { ...good, ...fields });
    const cases: [string, unknown, string][] = [
      ['NaN start', bytesOf({ seq: 1, sx: Number.NaN }), 'NON_FINITE'],
      ['Infinity stop', bytesOf({ seq: 2, ez: Number.POSITIVE_INFINITY }), 'NON_FINITE'],
      ['-Infinity time', bytesOf({ seq: 3, renderTimeMs: Number.NEGATIVE_INFINITY }), 'NON_FINITE'],
      ['NaN action time', bytesOf({ seq: 3, timeMs: Number.NaN }), 'NON_FINITE'],
      ['unknown action', bytesOf({ seq: 3, action: 9 }), 'MALFORMED'],
      ['huge coordinate', bytesOf({ seq: 4, ex: 1e300 }), 'OUT_OF_BOUNDS'],
      ['huge time', bytesOf({ seq: 5, renderTimeMs: 1e200 }), 'OUT_OF_BOUNDS'],
      ['one byte short', bytesOf({ seq: 6 }).subarray(0, SHOT_BYTES - 1), 'MALFORMED'],
      ['one byte long', new Uint8Array([...bytesOf({ seq: 7 }), 0]), 'MALFORMED'],
      ['truncated', bytesOf({ seq: 8 }).subarray(0, 10), 'MALFORMED'],
      ['empty', new Uint8Array(0), 'MALFORMED'],
      ['wrong version', bytesOf({ seq: 9, version: 7 }), 'MALFORMED'],
      ['bad target slot', bytesOf({ seq: 10, claimedTarget: 999 }), 'BAD_TARGET'],
      ['oversized', new Uint8Array(1000).fill(1), 'OVERSIZED'],
      ['unaligned copy of a valid frame shifted by 3', new Uint8Array([0, 0, 0, ...bytesOf({ seq: 11 })]), 'MALFORMED'],
    ];
    for (const [, payload] of cases) a!.room.sendBytes('shot', payload as Uint8Array);
    // Wrong types over the JSON/msgpack channel for the same message name.
    a!.room.send('shot', 'hello');
    a!.room.send('shot', { seq: 12, sx: 1 });
    a!.room.send('shot', 12345);
    await a!.until(() => a!.verdicts.length >= cases.length + 3, 5000, 'all malformed verdicts').catch((e) => {
      throw new Error(`${e.message}; got ${JSON.stringify(a!.verdicts.map((v) => [v.seq, reasonName(v.reason)]))} rejects ${JSON.stringify(a!.rejects)}`);
    });
    const reasons = a!.verdicts.map((v) => reasonName(v.reason));
    expect(reasons.slice(0, cases.length), JSON.stringify(reasons)).toEqual(cases.map((c) => c[2]));
    expect(reasons.slice(cases.length)).toEqual(['MALFORMED', 'MALFORMED', 'MALFORMED']);
    for (const v of a!.verdicts) expect(v.kind).toBe(VerdictKind.REJECTED);

    // Inputs and other messages: bad frames, NaN, unknown buttons, unknown message types.
    const input = new Uint8Array(28);
    const iv = new DataView(input.buffer);
    iv.setUint8(0, 1); iv.setUint32(4, 1, true); iv.setFloat32(8, Number.NaN, true);
    a!.room.sendBytes('input', input);
    a!.room.sendBytes('input', input.subarray(0, 5));
    const badButtons = new Uint8Array(28);
    badButtons[0] = 1; badButtons[1] = 0x80;
    a!.room.sendBytes('input', badButtons);
    a!.room.send('input', [1, 2, 3]);
    a!.room.send('teleport', { x: 0, y: 100, z: 0 });
    a!.room.sendBytes('pong', new Uint8Array(3));
    await a!.until(() => a!.rejects.length >= 6, 5000, 'input rejects');
    expect(a!.rejects.map((r) => r.reason)).toEqual(['INPUT_NON_FINITE', 'INPUT_WRONG_LENGTH', 'INPUT_BAD_BUTTONS', 'INPUT_NOT_BYTES', 'UNKNOWN_MESSAGE', 'PONG_WRONG_LENGTH']);

    expect(snapshot()).toBe(before);
    expect(ts.server.stats.internalErrors).toBe(0);
    // Still running: the valid shot hits.
    a!.sendShot(good);
    expect(reasonName((await a!.verdictFor(100)).reason)).toBe('OK_HIT');
    await leaveAll([a!, b!]);
  });
});

describe('arena room: death and respawn', () => {
  it('a kill feeds the kill feed; the victim respawns after the delay at the next spawn point with a new epoch', async () => {
    const [a, b] = await match(2);
    const room = roomOf(a!);
    const bs = () => room.state.players.get(b!.room.sessionId)!;
    const epoch0 = bs().epoch;
    const rt = (await renderTime(a!));
    const v = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: rt, claimedTarget: 1, ...aimAt(a!, 1, HitZone.HEAD, rt) });
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.damage).toBe(100);
    expect(bs().alive).toBe(false);
    expect(bs().health).toBe(0);
    expect(bs().deaths).toBe(1);
    expect(room.state.players.get(a!.room.sessionId)!.kills).toBe(1);
    expect(room.state.killFeed.length).toBe(1);
    expect(room.state.killFeed[0]!.killer).toBe(0);
    expect(room.state.killFeed[0]!.victim).toBe(1);
    expect(room.state.killFeed[0]!.zone).toBe(HitZone.HEAD);
    await a!.until(() => a!.hits.length === 1 && a!.hits[0]!.killed, 3000, 'kill confirmation');
    // Respawn after 250 ms at spawn point (slot 1 + 1 life) = C.
    await b!.until(() => b!.state.players.get(b!.room.sessionId)?.epoch === epoch0 + 1, 3000, 'respawn');
    expect(bs().health).toBe(100);
    expect(bs().epoch).toBe(epoch0 + 1);
    expect(bs().x).toBeCloseTo(TEST_SPAWNS[2]!.x, 6);
    expect(bs().z).toBeCloseTo(TEST_SPAWNS[2]!.z, 6);
    await leaveAll([a!, b!]);
  });

  it('a shot rewound to before the respawn cannot hit the pre-respawn pose', async () => {
    // A renders 450 ms in the past, so its claimed time lands before B's death even after B respawned.
    const LATE = 450;
    const [a, b, c] = await match(3, [{ interpDelayMs: LATE }, {}, {}]);
    const room = roomOf(a!);
    // A's snapshots must reach back LATE ms with B in them.
    await a!.until(() => a!.renderPose(1, a!.serverNow() - LATE - 100) !== null, 10_000, 'B drawn LATE ms back');
    // B is killed by A with a claim inside tolerance of A's estimate (A's render time is 450 ms back).
    const r1 = a!.serverNow() - LATE;
    const kill = await a!.shoot({ seq: 1, weapon: WeaponId.RIFLE, renderTimeMs: r1, claimedTarget: 1, ...aimAt(a!, 1, HitZone.HEAD, r1) });
    expect(reasonName(kill.reason)).toBe('OK_HIT');
    expect(kill.timeSource).toBe(TimeSource.CLAIMED);
    const epoch0 = room.state.players.get(b!.room.sessionId)!.epoch;
    await a!.until(() => a!.state.players.get(b!.room.sessionId)?.epoch === epoch0 + 1 && a!.hits.length === 1, 3000, 'respawn seen by A');
    const bSlot = room.match.player(b!.room.sessionId)!;
    // A claims a time ~200 ms before B's death (250 ms respawn delay + the time to see it, minus
    // LATE + 40), still within the claim tolerance of the server's estimate, when B stood at
    // its first spawn point, alive: aim there.
    const r2 = a!.serverNow() - LATE - 40;
    const deathTime = kill.rewindTimeMs; // the kill was judged at this rewound time; B died at receive time, later
    const seq = 2;
    const v = await a!.shoot({ seq, weapon: WeaponId.RIFLE, renderTimeMs: r2, claimedTarget: 1, ...aimAt(a!, 1, HitZone.HEAD, Math.max(r2, deathTime)) });
    expect(v.timeSource).toBe(TimeSource.CLAIMED);
    expect(v.rewindTimeMs).toBeLessThan(bSlot.lifeStartMs);
    expect(reasonName(v.reason)).not.toBe('OK_HIT');
    expect(room.state.players.get(b!.room.sessionId)!.health).toBe(100);
    // Second method: the same recorded inputs, with B's life-start mask lifted, would hit the old pose.
    const rec = shotLog.filter((s) => s.shooterBefore.slot === 0 && s.verdict.seq === seq && s.timing.receiveTimeMs > 0).at(-1)!;
    expect(rec.verdict.kind).toBe(v.kind);
    const lifted = { alive: rec.targets.alive, lifeStartMs: rec.targets.lifeStartMs.map((t, i) => (i === 1 ? 0 : t)) };
    const replay = validateShot(createVerdict(), room.match.scene, ts.server.config.validation, rec.bytes, rec.shooterBefore, rec.timing, lifted);
    expect(reasonName(replay.reason), JSON.stringify({ replay: { ...replay, after: 0 }, timing: rec.timing, lifeStart: bSlot.lifeStartMs, r2, kill })).toBe('OK_HIT');
    expect(replay.target).toBe(1);
    await leaveAll([a!, b!, c!]);
  });
});
