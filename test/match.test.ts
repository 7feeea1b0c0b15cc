/**
 * HitregMatch (hitreg/server) on its own, with no room and no network: a game's ids, its poses
 * through the adapter (a direction for the yaw, an eye height per tick), lives, teams, shots as
 * frames and as objects, hostile payloads, round trips, checked options, and the match log it
 * writes, which the integrity audit (verifyMatchLog) replays bit for bit. A fake clock drives it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestWorld, zoneCenter } from './helpers/server';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { HitZone } from '../shared/rig/rig';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createShotMessage, encodeShot, SHOT_BYTES, shotBytes, type ShotMessage } from '../shared/protocol/shot';
import { predictPellets } from '../shared/validate/spread';
import { encodePing, createPingMessage, decodePing, PING_BYTES } from '../shared/protocol/ping';
import { reasonName, VerdictKind } from '../shared/validate/verdict';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { verifyMatchLog } from '../shared/audit/verify';
import { HitregMatch, MatchLogRecorder, MatchEventKind, type MatchEvent, type MatchRecorder, type PoseInput, type ShotRecord } from '../server/match/index';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { summaryLines } from '../server/behaviour/cli';
import { MEASURES } from '../server/behaviour/score';

const world = buildTestWorld();
const rig = MANNEQUIN_RIG;
const dir = mkdtempSync(join(tmpdir(), 'match-'));
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

interface Body { x: number; z: number; faceZ: number; crouched: boolean }

/** A game of its own: bodies keyed by name, a fake clock, the match on top. */
function game(options: Partial<ConstructorParameters<typeof HitregMatch<string>>[0]> = {}) {
  const clock = { ms: 0 };
  const bodies = new Map<string, Body>();
  const match = new HitregMatch<string>({
    world, rig, tickRate: 64, maxPlayers: 4, clock: () => clock.ms,
    poses: (id: string, out: PoseInput) => {
      const b = bodies.get(id)!;
      out.x = b.x; out.y = 0; out.z = b.z;
      out.viewX = 0; out.viewY = 0; out.viewZ = b.faceZ;
      if (b.crouched) out.eyeHeight = 1.0;
    },
    ...options,
  });
  const put = (id: string, x: number, z: number, faceZ: number, team?: number) => {
    bodies.set(id, { x, z, faceZ, crouched: false });
    return match.join(id, { team });
  };
  /** `n` ticks of 1/64 s. */
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.ms += 1000 / 64;
      match.tick();
    }
  };
  /** A shot from `from` at `to`'s `zone` as posed 100 ms before its action time (now - 25 ms). */
  const aim = (from: string, to: string, zone: number, extra: Partial<ShotMessage> = {}): ShotMessage => {
    const at = clock.ms - 25, when = at - 100;
    const p = createPlayerPose();
    match.scene.histories[match.slotOf(to)]!.sampleAt(p, when, match.scene.eyePolicy);
    const [cx, cy, cz] = zoneCenter(match.scene.rewinder, rig, p, zone);
    const b = bodies.get(from)!;
    const sy = b.crouched ? 1.0 : rig.eyeHeight;
    const d = [cx - b.x, cy - sy, cz - b.z];
    const l = Math.sqrt(d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2);
    return { ...createShotMessage(), timeMs: at, renderTimeMs: when, weapon: WeaponId.RIFLE, claimedTarget: -1, sx: b.x, sy, sz: b.z, ex: b.x + (d[0]! / l) * 30, ey: sy + (d[1]! / l) * 30, ez: b.z + (d[2]! / l) * 30, ...extra };
  };
  return { match, clock, bodies, put, run, aim };
}

const frame = (m: ShotMessage) => encodeShot(new Uint8Array(SHOT_BYTES), m);

/** Keeps copies of what the match records (it reuses what it hands over). */
function memory(): MatchRecorder & { events: MatchEvent[]; shots: ShotRecord[]; ticks: number } {
  const r = { events: [] as MatchEvent[], shots: [] as ShotRecord[], ticks: 0, header() {}, tick() { r.ticks++; }, event(e: MatchEvent) { r.events.push({ ...e }); }, shot(s: ShotRecord) { r.shots.push(structuredClone(s)); }, close() {} };
  return r;
}

describe('HitregMatch: players by the game\'s ids', () => {
  it('lives: join, damage, a kill, respawn with a new epoch and full weapons, leave; slots are reused', () => {
    const rec = memory();
    const g = game({ recorder: rec, maxHealth: 60 });
    const a = g.put('alice', 0, 0, 1);
    const b = g.put('bob', 0, 8, -1);
    expect([a.slot, b.slot, a.alive, a.health, a.lives]).toEqual([0, 1, true, 60, 1]);
    g.run(30);
    const v1 = g.match.shot('alice', frame(g.aim('alice', 'bob', HitZone.HEAD, { seq: 1 })));
    expect(reasonName(v1.verdict.reason)).toBe('OK_HIT');
    expect([v1.target, v1.killed, v1.healthAfter]).toEqual(['bob', true, 0]);
    expect(g.match.player('bob')!.alive).toBe(false);
    expect([g.match.player('alice')!.kills, g.match.player('bob')!.deaths]).toEqual([1, 1]);
    expect(rec.events.map((e) => e.kind)).toEqual([MatchEventKind.JOIN, MatchEventKind.JOIN, MatchEventKind.DEATH]);
    // A dead target takes no more damage.
    g.run(40);
    const onDead = g.match.shot('alice', frame(g.aim('alice', 'bob', HitZone.HEAD, { seq: 2 })));
    expect(onDead.damage).toBe(0);
    const epoch = g.match.player('bob')!.epoch;
    g.match.respawn('bob', { x: 0, y: 0, z: 8 });
    expect([g.match.player('bob')!.alive, g.match.player('bob')!.health, g.match.player('bob')!.epoch]).toEqual([true, 60, epoch + 1]);
    expect(g.match.damage('bob', 25)).toBe(35);
    g.match.setHealth('bob', 1000);
    expect(g.match.player('bob')!.health).toBe(60);
    g.match.leave('bob');
    expect(g.match.player('bob')).toBeUndefined();
    const c = g.put('carol', 3, 3, 1);
    expect(c.slot).toBe(1); // bob's slot, its history cleared
    expect(g.match.scene.histories[1]!.size()).toBe(0);
    expect(rec.events.map((e) => e.kind).slice(3)).toEqual([MatchEventKind.RESPAWN, MatchEventKind.LEAVE, MatchEventKind.JOIN]);
    expect(() => g.match.join('carol')).toThrow(/already/);
    g.put('dave', 1, 1, 1);
    g.put('erin', 2, 2, 1);
    expect(() => g.put('frank', 4, 4, 1)).toThrow(/full/);
  });

  it('poses: the yaw from the view direction, the eye height per tick, and a refused pose told once, the match going on', () => {
    const problems: string[] = [];
    const g = game({ onProblem: (m) => problems.push(m) });
    g.put('alice', 0, 0, -1);
    g.run(2);
    const p = createPlayerPose();
    g.match.scene.histories[0]!.sampleAt(p, g.match.newestTickMs, g.match.scene.eyePolicy);
    // Facing -z: a half turn about +y.
    expect([p.qx, Math.abs(p.qy), p.qz, p.qw]).toEqual([0, 1, 0, 0]);
    expect(p.eyeHeight).toBeNaN();
    g.bodies.get('alice')!.crouched = true;
    g.run(1);
    g.match.scene.histories[0]!.sampleAt(p, g.match.newestTickMs, g.match.scene.eyePolicy);
    expect(p.eyeHeight).toBe(1.0);
    g.bodies.get('alice')!.x = Number.NaN;
    g.run(3);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/alice's pose was refused \(NOT_FINITE\)/);
    expect(g.match.tickCount).toBe(6);
  });
});

describe('HitregMatch: shots', () => {
  it('a frame and the same message as an object give the same verdict and the same logged bytes', () => {
    const recs = [memory(), memory()];
    const gs = recs.map((recorder) => game({ recorder }));
    for (const g of gs) {
      g.put('alice', 0, 0, 1);
      g.put('bob', 0, 8, -1);
      g.run(30);
    }
    const m = gs[0]!.aim('alice', 'bob', HitZone.UPPER_TORSO, { seq: 5, claimedTarget: 1 });
    const byFrame = gs[0]!.match.shot('alice', frame(m));
    const v0 = { ...byFrame.verdict, after: null };
    const byObject = gs[1]!.match.shot('alice', { seq: 5, weapon: m.weapon, timeMs: m.timeMs, renderTimeMs: m.renderTimeMs, start: [m.sx, m.sy, m.sz], end: { x: m.ex, y: m.ey, z: m.ez }, target: 'bob' });
    expect(reasonName(byObject.verdict.reason)).toBe('OK_HIT');
    expect({ ...byObject.verdict, after: null }).toEqual(v0);
    expect(Array.from(recs[1]!.shots[0]!.bytes!)).toEqual(Array.from(recs[0]!.shots[0]!.bytes!));
    // Objects off: the same object is MALFORMED, as any non-frame.
    const refused = gs[1]!.match.shot('alice', { seq: 6, weapon: 0, timeMs: m.timeMs, start: [0, 1, 0], end: [0, 1, 5] }, { objects: false });
    expect(reasonName(refused.verdict.reason)).toBe('MALFORMED');
    // An object that cannot be a frame says why.
    const bad = gs[1]!.match.shot('alice', { seq: 'x' });
    expect([reasonName(bad.verdict.reason), bad.problem]).toEqual(['MALFORMED', 'seq must be an integer 0..4294967295']);
    // A player not in the match: refused, not logged.
    const n = recs[1]!.shots.length;
    expect(reasonName(gs[1]!.match.shot('mallory', frame(m)).verdict.reason)).toBe('NO_SHOOTER');
    expect(recs[1]!.shots.length).toBe(n);
  });

  it('an object without a render time takes the room\'s own stamp (e.g. Colyseus\'s input stamping), else the action time less the delay', () => {
    const g = game({ weaponRules: false }); // three shots a millisecond apart: no fire clock in the way
    g.put('alice', 0, 0, 1);
    g.put('bob', 0, 8, -1);
    g.run(30);
    const m = g.aim('alice', 'bob', HitZone.UPPER_TORSO);
    const obj = (seq: number) => ({ seq, weapon: 0, timeMs: m.timeMs + seq, start: [m.sx, m.sy, m.sz], end: [m.ex, m.ey, m.ez] });
    const stamped = g.match.shot('alice', obj(1), { renderTimeMs: m.timeMs - 70 });
    expect([reasonName(stamped.verdict.reason), stamped.verdict.timeSource, stamped.verdict.rewindTimeMs]).toEqual(['OK_HIT', 1 /* CLAIMED */, m.timeMs - 70]);
    const unstamped = g.match.shot('alice', obj(2));
    expect([unstamped.verdict.timeSource, unstamped.verdict.rewindTimeMs]).toEqual([1, m.timeMs + 2 - 100]);
    // A stamp on some other clock is no claim the pipeline believes: the server's estimate rules.
    const elsewhere = g.match.shot('alice', obj(3), { renderTimeMs: m.timeMs + 5000 });
    expect(reasonName(elsewhere.verdict.reason)).toBe('TIME_FUTURE');
  });

  it('hostile payloads of any shape never throw and never change health', () => {
    const g = game();
    g.put('alice', 0, 0, 1);
    g.put('bob', 0, 8, -1);
    g.run(30);
    fc.assert(fc.property(fc.oneof(fc.anything(), fc.uint8Array({ maxLength: 300 }), fc.record({ seq: fc.nat(), weapon: fc.nat({ max: 300 }), timeMs: fc.double(), start: fc.anything(), end: fc.array(fc.double(), { maxLength: 4 }) })), (x) => {
      const out = g.match.shot('alice', x);
      expect(out.verdict.kind === VerdictKind.HIT && out.damage > 0).toBe(false);
    }), { seed: 23, numRuns: 400 });
    expect(g.match.player('bob')!.health).toBe(100);
  });

  it('teams: friendly fire \'noDamage\' hits a teammate for nothing; a team change counts from the next shot', () => {
    const g = game({ friendlyFire: 'noDamage' });
    g.put('alice', 0, 0, 1, 0);
    g.put('bob', 0, 8, -1, 0);
    g.run(30);
    const same = g.match.shot('alice', frame(g.aim('alice', 'bob', HitZone.UPPER_TORSO, { seq: 1 })));
    expect([reasonName(same.verdict.reason), same.damage, g.match.player('bob')!.health]).toEqual(['OK_FRIENDLY', 0, 100]);
    g.match.setTeam('bob', 1);
    g.run(10);
    const enemy = g.match.shot('alice', frame(g.aim('alice', 'bob', HitZone.UPPER_TORSO, { seq: 2 })));
    expect(reasonName(enemy.verdict.reason)).toBe('OK_HIT');
    expect(g.match.player('bob')!.health).toBe(100 - enemy.damage);
  });

  it('a shotgun pull damages pellet by pellet and kills once; a sniper bullet passes through one player into the next', () => {
    const g = game({ spreadSeed: 42 });
    g.put('alice', 0, 0, 1);
    g.put('bob', 0, 5, -1);
    g.put('carol', 0.05, 9, -1);
    g.run(30);
    const sw = g.match.shot('alice', { seq: 1, action: 'switch', weapon: WeaponId.SHOTGUN, timeMs: g.clock.ms - 20 });
    expect(reasonName(sw.verdict.reason)).toBe('OK_SWITCH');
    g.run(40);
    g.match.setHealth('bob', 30);
    const m = g.aim('alice', 'bob', HitZone.UPPER_TORSO, { seq: 2, weapon: WeaponId.SHOTGUN });
    const spec = WEAPONS[WeaponId.SHOTGUN]!;
    m.pelletCount = predictPellets(m.pellets, 42, g.match.player('alice')!.weapons, spec, m.timeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
    const out = g.match.shot('alice', encodeShot(new Uint8Array(shotBytes(m.pelletCount)), m));
    const v = out.verdict;
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(out.hits.length).toBe(v.hits.count);
    expect(v.hits.count).toBeGreaterThan(2);
    // The pellets in order until bob's 30 health is gone: the one that takes it kills, the rest do nothing.
    let health = 30;
    for (const [i, h] of out.hits.entries()) {
      expect(h.target).toBe('bob');
      if (health > 0) {
        health = Math.max(0, health - v.hits.damage[i]!);
        expect([h.damage, h.healthAfter, h.killed]).toEqual([v.hits.damage[i], health, health === 0]);
      } else expect([h.damage, h.healthAfter, h.killed]).toEqual([0, -1, false]);
    }
    expect(out.killed).toBe(health === 0);
    expect(g.match.player('bob')!.alive).toBe(health > 0);
    expect(g.match.player('bob')!.deaths).toBe(health === 0 ? 1 : 0);

    // The sniper through bob (alive again) into carol.
    g.match.respawn('bob');
    g.run(30);
    expect(reasonName(g.match.shot('alice', { seq: 3, action: 'switch', weapon: WeaponId.SNIPER, timeMs: g.clock.ms - 20 }).verdict.reason)).toBe('OK_SWITCH');
    g.run(64);
    const through = g.match.shot('alice', frame(g.aim('alice', 'bob', HitZone.UPPER_TORSO, { seq: 4, weapon: WeaponId.SNIPER })));
    expect(reasonName(through.verdict.reason)).toBe('OK_HIT');
    expect(through.hits.map((h) => h.target)).toEqual(['bob', 'carol']);
    expect(through.hits[1]!.damage).toBeLessThan(through.hits[0]!.damage);
    expect(g.match.player('carol')!.health).toBe(100 - through.hits[1]!.damage);
    expect(through.damage).toBe(through.hits[0]!.damage + through.hits[1]!.damage);
  });

  it('round trips: hitreg\'s pings, a replayed pong refused, or the game\'s own estimate', () => {
    const g = game();
    g.put('alice', 0, 0, 1);
    const ping = g.match.ping('alice')!.slice();
    g.clock.ms += 80;
    expect(g.match.pong('alice', ping)).toBeNull();
    expect(g.match.player('alice')!.rttMs).toBe(80);
    expect(g.match.pong('alice', ping)).toBe('PONG_UNKNOWN_ID');
    expect(g.match.pong('alice', new Uint8Array(3))).toBe('PONG_WRONG_LENGTH');
    const foreign = encodePing(new Uint8Array(PING_BYTES), 999, 0, 0);
    expect(decodePing(createPingMessage(), foreign)).toBe(0);
    expect(g.match.pong('alice', foreign)).toBe('PONG_UNKNOWN_ID');
    g.match.setRoundTrip('alice', 140);
    expect(g.match.player('alice')!.rttMs).toBe(140);
    g.match.setRoundTrip('alice', Number.NaN);
    expect(g.match.player('alice')!.rttMs).toBe(80);
  });

  it('options are checked with a message saying what to give', () => {
    const base = { world, rig, tickRate: 64, maxPlayers: 4, poses: () => {} };
    expect(() => new HitregMatch({ ...base, tickRate: 0 })).toThrow(/tickRate 0/);
    expect(() => new HitregMatch({ ...base, maxPlayers: 1.5 })).toThrow(/maxPlayers/);
    expect(() => new HitregMatch({ ...base, weapons: [{ ...WEAPONS[0]!, id: 3 }] })).toThrow(/weapons: weapon 0 .* id 3/);
    expect(() => new HitregMatch({ ...base, loadout: [7] })).toThrow(/loadout names weapon 7/);
    expect(() => new HitregMatch({ ...base, friendlyFire: 'sometimes' as never })).toThrow(/friendlyFire/);
    expect(() => new HitregMatch({ ...base, rules: { originToleranceM: -1 } })).toThrow(/originToleranceM/);
    expect(() => new HitregMatch({ ...base, poses: undefined as never })).toThrow(/poses must be a function/);
  });
});

describe('HitregMatch: the match log', () => {
  it('replays bit for bit: teams, friendly fire, weapon rules off, a crouched shooter, a player who left', async () => {
    const path = join(dir, 'policies.hrml');
    const g = game({ recorder: new MatchLogRecorder({ path }), friendlyFire: 'noDamage', weaponRules: false });
    g.put('alice', 0, 0, 1, 0);
    g.put('bob', 0, 8, -1, 1);
    g.put('carol', 2, 8, -1, 0);
    g.run(40);
    const verdicts: string[] = [];
    const fire = (from: string, to: string, seq: number) => verdicts.push(reasonName(g.match.shot(from, frame(g.aim(from, to, HitZone.UPPER_TORSO, { seq }))).verdict.reason));
    fire('alice', 'bob', 1);
    fire('alice', 'carol', 2);
    g.bodies.get('bob')!.crouched = true;
    g.run(20);
    fire('bob', 'alice', 1);
    verdicts.push(reasonName(g.match.shot('alice', { seq: 3, action: 'switch', weapon: 1, timeMs: g.clock.ms - 20 }).verdict.reason));
    const carolSpot = g.aim('alice', 'carol', HitZone.UPPER_TORSO, { seq: 4 });
    g.match.leave('carol');
    g.run(40);
    verdicts.push(reasonName(g.match.shot('alice', frame({ ...carolSpot, timeMs: g.clock.ms - 25, renderTimeMs: g.clock.ms - 125 })).verdict.reason));
    await g.match.close();
    expect(verdicts).toEqual(['OK_HIT', 'OK_FRIENDLY', 'OK_HIT', 'RULES_OFF', 'OK_MISS']);
    const audit = verifyMatchLog(new Uint8Array(readFileSync(path)), world, rig);
    expect(audit.problems).toEqual([]);
    expect(audit.mismatches).toEqual([]);
    expect(audit.shots).toBe(5);
    expect(audit.header!.validation.weaponRules).toBe(false);
    expect(audit.header!.validation.friendlyFire).toBe('noDamage');
    // The same log against another rig is refused before any replay.
    const other = verifyMatchLog(new Uint8Array(readFileSync(path)), world, { ...rig, hash: '0000' });
    expect(other.problems[0]).toMatch(/rig/);
  });
});

describe('HitregMatch: what the audit can measure', () => {
  it('a log without views or input counts: the audit names the behaviour measures it cannot give, per player', async () => {
    const path = join(dir, 'fields.hrml');
    const clock = { ms: 0 };
    const match = new HitregMatch<string>({
      world, rig, tickRate: 64, maxPlayers: 2, clock: () => clock.ms, recorder: new MatchLogRecorder({ path }),
      poses: (id, out) => {
        out.x = 0; out.y = 0; out.z = id === 'seer' ? 0 : 8;
        // Only the seer's adapter says where it looks; nobody's says how its inputs came.
        if (id === 'seer') { out.viewX = 0; out.viewY = 0; out.viewZ = 1; } else out.qw = 1;
      },
    });
    match.join('seer');
    match.join('blind');
    for (let i = 0; i < 40; i++) { clock.ms += 1000 / 64; match.tick(); }
    const m = { ...createShotMessage(), seq: 1, timeMs: clock.ms - 25, renderTimeMs: clock.ms - 125, sx: 0, sy: rig.eyeHeight, sz: 0, ex: 0, ey: 1.2, ez: 30 };
    match.shot('seer', frame(m));
    match.shot('blind', frame({ ...m, sz: 8, ez: -30 }));
    await match.close();
    const a = await auditMatchLog(path, { world, workers: 1 });
    expect(a.mismatches).toEqual([]);
    const by = new Map(a.players.map((p) => [p.player, p.unavailable]));
    const needing = (k: 'view' | 'inputs') => MEASURES.filter((x) => x.needs === k).map((x) => x.name);
    expect(by.get(0)!.map((u) => u.measure)).toEqual(needing('inputs'));
    expect(by.get(1)!.map((u) => u.measure).sort()).toEqual([...needing('view'), ...needing('inputs')].sort());
    const lines = summaryLines(a).filter((l) => l.startsWith('not measured'));
    expect(lines).toEqual([
      `not measured (the log has no view for player 1): ${needing('view').join(', ')}`,
      `not measured (the log has no input counts for players 0 1): ${needing('inputs').join(', ')}`,
    ]);
  });
});
