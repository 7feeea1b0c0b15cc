/**
 * Rockets and grenades in a HitregMatch (in process, a fake clock, the test level: open floor and
 * a wall): a launch judged by validateShot (LAUNCH), the flight caught up and stepped with the
 * ticks, a direct hit that kills, a blast the wall shields, a grenade's fuse and its blast radius,
 * the limit of live projectiles; then the match log written by the real recorder, re-flown by the
 * audit with no mismatch, a tampered blast record and a forged death caught.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestWorld, zoneCenter } from './helpers/server';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { DEFAULT_ZONE_MULTIPLIERS, HitZone } from '../shared/rig/rig';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createShotMessage, encodeShot, SHOT_BYTES, type ShotMessage } from '../shared/protocol/shot';
import { reasonName, VerdictKind } from '../shared/validate/verdict';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { FlightEventKind } from '../shared/projectile/flight';
import { HitregMatch, MatchLogRecorder, type PoseInput, type ProjectileOutcome } from '../server/match/index';
import { verifyMatchLog } from '../shared/audit/verify';
import { LOG_VERSION_WITH_GRID_FLIGHTS, readFrames } from '../shared/matchlog/frame';
import { DEFAULT_MAX_PROJECTILES } from '../shared/projectile/flights';
import { RecordType, EVENT_BYTES, writeEvent } from '../shared/matchlog/records';
import { ProjectileRecordType } from '../shared/matchlog/projectileRecord';
import { crc32 } from '../shared/matchlog/crc32';
import { auditIntegrity, closeAuditWorkers } from '../server/audit/audit';

const world = buildTestWorld();
const rig = MANNEQUIN_RIG;
const dir = mkdtempSync(join(tmpdir(), 'projmatch-'));
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});
const TICK = 1000 / 64;
const ROCKET = WEAPONS.find((w) => w.id === WeaponId.ROCKET)!;
const GRENADE = WEAPONS.find((w) => w.id === WeaponId.GRENADE)!;

function game(options: Partial<ConstructorParameters<typeof HitregMatch<string>>[0]> = {}) {
  const clock = { ms: 0 };
  const bodies = new Map<string, { x: number; z: number }>();
  const ends: ProjectileOutcome<string>[] = [];
  const match = new HitregMatch<string>({
    world, rig, tickRate: 64, maxPlayers: 4, clock: () => clock.ms, loadout: [WeaponId.ROCKET, WeaponId.GRENADE],
    poses: (id: string, out: PoseInput) => {
      const b = bodies.get(id)!;
      out.x = b.x; out.y = 0; out.z = b.z;
    },
    onProjectile: (o) => ends.push({ ...o, hits: o.hits.map((h) => ({ ...h })) }),
    ...options,
  });
  const put = (id: string, x: number, z: number) => {
    bodies.set(id, { x, z });
    return match.join(id);
  };
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.ms += TICK;
      match.tick();
    }
  };
  let seq = 0;
  /** A FIRE of `weapon` by `from` along (dx, dy, dz) from its eye, acted 25 ms ago, rendered 100 ms before. */
  const fire = (from: string, weapon: number, dx: number, dy: number, dz: number) => {
    const b = bodies.get(from)!;
    const at = clock.ms - 25;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const m: ShotMessage = {
      ...createShotMessage(), seq: ++seq, timeMs: at, renderTimeMs: at - 100, weapon, claimedTarget: -1,
      sx: b.x, sy: rig.eyeHeight, sz: b.z, ex: b.x + (dx / l) * 10, ey: rig.eyeHeight + (dy / l) * 10, ez: b.z + (dz / l) * 10,
    };
    return match.shot(from, encodeShot(new Uint8Array(SHOT_BYTES), m));
  };
  /** The direction from `from`'s eye to `to`'s zone as posed now. */
  const aimAt = (from: string, to: string, zone: number): [number, number, number] => {
    const p = createPlayerPose();
    match.scene.histories[match.slotOf(to)]!.sampleAt(p, match.newestTickMs, match.scene.eyePolicy);
    const [cx, cy, cz] = zoneCenter(match.scene.rewinder, rig, p, zone);
    const b = bodies.get(from)!;
    return [cx - b.x, cy - rig.eyeHeight, cz - b.z];
  };
  return { match, clock, bodies, put, run, fire, aimAt, ends };
}

describe('HitregMatch: projectiles', () => {
  it('a rocket at a standing player: launched (LAUNCH), flown with the ticks, a direct hit and its blast kill with the expected damage', () => {
    const g = game();
    g.put('alice', 0, 0);
    g.put('bob', 0, 8);
    g.run(64);
    const out = g.fire('alice', WeaponId.ROCKET, ...g.aimAt('alice', 'bob', HitZone.UPPER_TORSO));
    expect(reasonName(out.verdict.reason)).toBe('OK_LAUNCH');
    expect(out.verdict.kind).toBe(VerdictKind.LAUNCH);
    expect(out.damage).toBe(0);
    expect(out.projectile).toBe(0);
    expect(g.match.projectiles.count).toBe(1);
    expect(g.match.player('alice')!.weapons.ammo[WeaponId.ROCKET]).toBe(0);
    // 8 m at 20 m/s: about 0.4 s of flight, less what the catch-up flew at once.
    g.run(40);
    expect(g.match.projectiles.count).toBe(0);
    expect(g.ends).toHaveLength(1);
    const e = g.ends[0]!;
    expect(e.kind).toBe(FlightEventKind.PLAYER);
    expect(e.exploded).toBe(true);
    const direct = e.hits[0]!;
    expect(direct.target).toBe('bob');
    // The direct hit alone: directDamage x the zone's multiplier; it kills a 100-health player.
    expect([HitZone.UPPER_TORSO, HitZone.LOWER_TORSO, HitZone.NECK, HitZone.UPPER_ARM, HitZone.PELVIS].map((z) => ROCKET.projectile!.directDamage * DEFAULT_ZONE_MULTIPLIERS[z]!)).toContain(direct.damage);
    expect(direct.killed).toBe(direct.damage >= 100);
    expect(g.match.player('bob')!.alive).toBe(false);
    expect(g.match.player('bob')!.health).toBe(0);
    expect([g.match.player('alice')!.kills, g.match.player('bob')!.deaths]).toEqual([1, 1]);
    expect(e.killed).toBe(true);
    // The shooter 8 m away is outside the 4 m blast.
    expect(g.match.player('alice')!.health).toBe(100);
  });

  it('a rocket into the wall: the player behind it takes nothing (line of sight from the centre)', () => {
    const g = game();
    g.put('alice', 0, 4);
    g.put('carol', 0, -6);
    g.run(64);
    g.fire('alice', WeaponId.ROCKET, 0, 0, -1);
    g.run(40);
    expect(g.ends).toHaveLength(1);
    const e = g.ends[0]!;
    expect(e.kind).toBe(FlightEventKind.LEVEL);
    expect(e.z).toBeGreaterThan(-3.85);
    expect(e.hits.filter((h) => h.damage > 0)).toEqual([]);
    expect(g.match.player('carol')!.health).toBe(100);
    expect(g.match.player('alice')!.health).toBe(100);
  });

  it('a grenade bounces, its fuse runs out and the blast damages within its radius only (the thrower too)', () => {
    const g = game({ maxHealth: 1000 });
    g.put('alice', 0, 0);
    g.put('bob', 1, 1.5);
    g.put('dave', 20, 8);
    g.run(64);
    const sw = g.match.shot('alice', encodeShot(new Uint8Array(SHOT_BYTES), { ...createShotMessage(), seq: 0, action: 1, timeMs: g.clock.ms - 10, weapon: WeaponId.GRENADE }));
    expect(reasonName(sw.verdict.reason)).toBe('OK_SWITCH');
    g.run(40);
    // Thrown down at the feet, a little forward: it bounces, rolls slowly and waits for its fuse.
    const out = g.fire('alice', WeaponId.GRENADE, 0, -1, 0.05);
    expect(reasonName(out.verdict.reason)).toBe('OK_LAUNCH');
    g.run(Math.floor(GRENADE.projectile!.fuseMs / TICK) - 16);
    expect(g.ends).toHaveLength(0);
    g.run(20);
    expect(g.ends).toHaveLength(1);
    const e = g.ends[0]!;
    expect(e.kind).toBe(FlightEventKind.FUSE);
    const splash = GRENADE.projectile!.splash!;
    const byId = new Map(e.hits.map((h) => [h.target, h.damage]));
    expect(byId.get('bob')).toBeGreaterThanOrEqual(splash.damageMin);
    expect(byId.get('bob')).toBeLessThanOrEqual(splash.damageMax);
    expect(byId.get('alice')).toBeGreaterThan(0);
    expect(byId.has('dave')).toBe(false);
    expect(g.match.player('bob')!.health).toBe(1000 - byId.get('bob')!);
    expect(g.match.player('dave')!.health).toBe(1000);
  });

  it('live projectiles are bounded: a launch beyond maxProjectiles uses its round and is refused with a reason', () => {
    const g = game({ maxProjectiles: 1 });
    g.put('alice', 0, 0);
    g.put('bob', 3, 0);
    g.run(64);
    expect(g.fire('alice', WeaponId.ROCKET, 0, 1, 0).projectile).toBe(0);
    const second = g.fire('bob', WeaponId.ROCKET, 0, 1, 0);
    expect(reasonName(second.verdict.reason)).toBe('OK_LAUNCH');
    expect([second.projectile, second.projectileRefusal]).toEqual([-1, 'PROJECTILE_LIMIT']);
    expect(g.match.projectilesRefused).toBe(1);
  });
});

describe('the match log of projectiles, audited', () => {
  async function recorded(): Promise<Uint8Array> {
    const path = join(dir, `m-${Math.random().toString(36).slice(2)}.hrml`);
    const g = game({ recorder: new MatchLogRecorder({ path }) });
    g.put('alice', 0, 0);
    g.put('bob', 0, 8);
    g.put('carol', 0, -6);
    g.run(64);
    g.fire('alice', WeaponId.ROCKET, ...g.aimAt('alice', 'bob', HitZone.UPPER_TORSO));
    g.fire('carol', WeaponId.ROCKET, 0, 0, 1);
    g.run(60);
    g.fire('bob', WeaponId.ROCKET, 0, 0, 1); // a dead shooter: refused, not launched
    g.fire('alice', WeaponId.GRENADE, 0, 0, 1); // not equipped: refused
    g.run(10);
    await g.match.close();
    expect(g.ends.length).toBe(2);
    return new Uint8Array(readFileSync(path));
  }

  it('the replay re-flies every projectile from its spawn: 0 mismatches; spawns, ends and blasts are in the log', async () => {
    const bytes = await recorded();
    const frames = readFrames(bytes).frames;
    const count = (t: number) => frames.filter((f) => f.type === t).length;
    expect([count(ProjectileRecordType.SPAWN), count(ProjectileRecordType.END), count(ProjectileRecordType.BLAST)]).toEqual([2, 2, 2]);
    const audit = verifyMatchLog(bytes, world, rig);
    expect(audit.problems).toEqual([]);
    expect(audit.mismatches).toEqual([]);
    expect(audit.projectiles.flights).toBe(2);
    expect(audit.projectiles.mismatches).toEqual([]);
    expect(audit.projectiles.deaths).toEqual({ explained: 1, byGame: 0, unexplained: [] });
  });

  it('the log\'s format picks the flight policy: the header names maxProjectiles, and the same log relabelled version 10 is re-flown the version 10 way (its flights then differ)', async () => {
    const bytes = await recorded();
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(readFrames(bytes).frames[0]!.payloadOffset, readFrames(bytes).frames[0]!.payloadOffset + readFrames(bytes).frames[0]!.payloadLength)));
    expect(header.maxProjectiles).toBe(DEFAULT_MAX_PROJECTILES);
    expect(readFrames(bytes).version).toBeGreaterThanOrEqual(LOG_VERSION_WITH_GRID_FLIGHTS);
    const v10 = bytes.slice();
    new DataView(v10.buffer).setUint32(4, 10, true);
    const a = verifyMatchLog(v10, world, rig);
    expect(a.problems).toEqual([]);
    expect(a.projectiles.flights).toBe(2);
    expect(a.projectiles.mismatches.length).toBeGreaterThan(0);
  });

  it('a tampered blast record (one victim\'s damage) is caught; a forged death with no cause is reported', async () => {
    const bytes = await recorded();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const blast = readFrames(bytes).frames.find((f) => f.type === ProjectileRecordType.BLAST && view.getUint16(f.payloadOffset + 48, true) > 0)!;
    const tampered = bytes.slice();
    const tv = new DataView(tampered.buffer);
    // The first victim's damage (see projectileRecord.ts BLAST layout), then the frame's CRC again.
    const at = blast.payloadOffset + 50 + 16;
    tv.setFloat64(at, tv.getFloat64(at, true) + 1, true);
    tv.setUint32(blast.payloadOffset + blast.payloadLength, crc32(tampered, blast.payloadOffset - 1, blast.payloadOffset + blast.payloadLength), true);
    const a = verifyMatchLog(tampered, world, rig);
    expect(a.problems).toEqual([]);
    expect(a.projectiles.mismatches.map((m) => m.record)).toEqual(['blast']);
    expect(a.projectiles.mismatches[0]!.fields.some((f) => f.field.startsWith('damage['))).toBe(true);
    // The server's audit (worker shards plus the serial projectile walk) fails it the same way.
    const clean = await auditIntegrity('clean.hrml', { world, rig }, bytes);
    expect([clean.failed, clean.problems, clean.projectiles?.flights]).toEqual([false, [], 2]);
    const caught = await auditIntegrity('tampered.hrml', { world, rig }, tampered);
    expect(caught.failed).toBe(true);
    expect(caught.problems.map((p) => p.kind)).toEqual(['projectile-mismatch']);

    // A death of carol credited to alice, inserted after the last tick: nothing judged caused it.
    const frames = readFrames(bytes).frames;
    const lastTick = frames.filter((f) => f.type === RecordType.TICK).at(-1)!;
    const cut = lastTick.payloadOffset + lastTick.payloadLength + 4;
    const death = new Uint8Array(EVENT_BYTES + 9);
    const dv = new DataView(death.buffer);
    dv.setUint32(0, EVENT_BYTES, true);
    dv.setUint8(4, RecordType.EVENT);
    writeEvent(dv, 5, { kind: 'death', slot: 2, timeMs: 5000, other: 0 });
    dv.setUint32(5 + EVENT_BYTES, crc32(death, 4, 5 + EVENT_BYTES), true);
    const forged = new Uint8Array(bytes.length + death.length);
    forged.set(bytes.subarray(0, cut));
    forged.set(death, cut);
    forged.set(bytes.subarray(cut), cut + death.length);
    const f = verifyMatchLog(forged, world, rig);
    expect(f.projectiles.deaths.unexplained.map((d) => [d.slot, d.killer])).toEqual([[2, 0]]);
    expect(f.problems.some((p) => /death/.test(p))).toBe(true);
    const forgedAudit = await auditIntegrity('forged.hrml', { world, rig }, forged);
    expect(forgedAudit.failed).toBe(true);
    expect(forgedAudit.problems.map((p) => p.kind)).toContain('unexplained-death');
  });
});
