/**
 * The integrity audit of pulls with several pellets and of rounds through walls: a real HitregMatch
 * writing its log (MatchLogRecorder) judges a shotgun pull of 8 pellets (the pattern predicted from
 * the match's spread seed) that hits two players, a sniper round through a 0.1 m wall into the
 * player behind it, and a pull whose pellets were forged (SPREAD_MISMATCH). The replay gives every
 * verdict, pellet, hit and impact and every hit's health back bit for bit; a byte of a pellet's
 * damage flipped in the log (its CRC signed again) is named, and so is a forged health.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushBox, zoneCenter } from './helpers/server';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { HitZone } from '../shared/rig/rig';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { createShotMessage, encodeShot, shotBytes, type ShotMessage } from '../shared/protocol/shot';
import { reasonName, VerdictKind, type Verdict } from '../shared/validate/verdict';
import { WEAPONS, WeaponId, MAX_PELLETS } from '../shared/weapons';
import { predictPellets } from '../shared/validate/spread';
import { World } from '../shared/world/world';
import { verifyMatchLog } from '../shared/audit/verify';
import { readFrames, type FrameRef } from '../shared/matchlog/frame';
import { crc32 } from '../shared/matchlog/crc32';
import { RecordType } from '../shared/matchlog/records';
import { createShotInput, readShotInput, readShotRecord } from '../shared/matchlog/shotRecord';
import { HIT_ENTRY_BYTES, PELLET_ENTRY_BYTES, PELLET_SECTION_HEAD_BYTES } from '../shared/matchlog/pelletRecord';
import { createVerdict } from '../shared/validate/verdict';
import { HitregMatch, MatchLogRecorder, type PoseInput } from '../server/match/index';
import { auditIntegrity } from '../server/audit/audit';
import { closeAuditWorkers } from '../server/behaviour/audit';

const rig = MANNEQUIN_RIG;
const SEED = 0x5eed1234;
const dir = mkdtempSync(join(tmpdir(), 'audit-pellets-'));
const path = join(dir, 'pellets.hrml');

/** A floor and, off to the side, a 0.1 m thick plaster wall (no resistance of its own: the default 2). */
function pelletWorld(): World {
  const pos: number[] = [];
  const idx: number[] = [];
  pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
  const floor = idx.length / 3;
  pushBox(pos, idx, 4, 0, 3.95, 8, 3, 4.05);
  return World.fromTriangles(new Float64Array(pos), new Uint32Array(idx), [
    { start: 0, count: floor, node: 'floor', material: 'concrete' },
    { start: floor, count: idx.length / 3 - floor, node: 'wall', material: 'plaster' },
  ]);
}
const world = pelletWorld();

const bodies = new Map<string, { x: number; z: number; faceZ: number }>([
  ['alice', { x: 0, z: 0, faceZ: 1 }], ['bob', { x: -0.22, z: 4, faceZ: -1 }], ['carol', { x: 0.22, z: 4, faceZ: -1 }],
  ['erin', { x: 6, z: 0, faceZ: 1 }], ['dave', { x: 6, z: 8, faceZ: -1 }],
]);
const clock = { ms: 0 };
let match: HitregMatch<string>;
const verdicts: { what: string; verdict: Verdict; hits: { target: string | null; healthAfter: number; killed: boolean }[] }[] = [];
let bytes: Uint8Array;

function run(n: number): void {
  for (let i = 0; i < n; i++) {
    clock.ms += 1000 / 64;
    match.tick();
  }
}

/** A fire message from `from` at the point `to` (the aim), acted 25 ms ago on a view 100 ms older. */
function aimAt(from: string, seq: number, weapon: number, tx: number, ty: number, tz: number, reach: number): ShotMessage {
  const at = clock.ms - 25;
  const b = bodies.get(from)!;
  const sy = rig.eyeHeight;
  const d = [tx - b.x, ty - sy, tz - b.z];
  const l = Math.sqrt(d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2);
  return {
    ...createShotMessage(), seq, weapon, timeMs: at, renderTimeMs: at - 100, claimedTarget: -1,
    sx: b.x, sy, sz: b.z, ex: b.x + (d[0]! / l) * reach, ey: sy + (d[1]! / l) * reach, ez: b.z + (d[2]! / l) * reach,
  };
}

/** Where `who`'s `zone` was when the view of a shot acted now was drawn. */
function zoneAt(who: string, zone: number): number[] {
  const p = createPlayerPose();
  match.scene.histories[match.slotOf(who)]!.sampleAt(p, clock.ms - 125, match.scene.eyePolicy);
  return zoneCenter(match.scene.rewinder, rig, p, zone);
}

/** The pull's pellets as the client predicts them (the match's seed, the shooter's rules state). */
function withPellets(m: ShotMessage, from: string): ShotMessage {
  const weapon = WEAPONS[m.weapon]!;
  const out = new Float64Array(3 * MAX_PELLETS);
  const n = predictPellets(out, match.rules.spreadSeed!, match.player(from)!.weapons, weapon, m.timeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
  return { ...m, pelletCount: n, pellets: out };
}

function fire(what: string, from: string, m: ShotMessage): Verdict {
  const payload = encodeShot(new Uint8Array(shotBytes(m.pelletCount)), m);
  const out = match.shot(from, payload);
  const verdict = structuredClone(out.verdict);
  verdicts.push({ what, verdict, hits: out.hits.map((h) => ({ ...h })) });
  return verdict;
}

beforeAll(async () => {
  match = new HitregMatch<string>({
    world, rig, tickRate: 64, maxPlayers: 5, clock: () => clock.ms, spreadSeed: SEED, maxHealth: 100,
    loadout: [WeaponId.SHOTGUN, WeaponId.SNIPER], recorder: new MatchLogRecorder({ path }),
    poses: (id: string, out: PoseInput) => {
      const b = bodies.get(id)!;
      out.x = b.x; out.y = 0; out.z = b.z;
      out.viewX = 0; out.viewY = 0; out.viewZ = b.faceZ;
    },
  });
  for (const id of bodies.keys()) match.join(id);
  run(60);
  // Erin takes the sniper out (drawn 800 ms later).
  expect(reasonName(match.shot('erin', { seq: 1, action: 'switch', weapon: WeaponId.SNIPER, timeMs: clock.ms - 20 }).verdict.reason)).toBe('OK_SWITCH');
  run(64);
  // The shotgun at the gap between bob's and carol's chests, 4 m out.
  const [bx, by, bz] = zoneAt('bob', HitZone.UPPER_TORSO), [cx, , cz] = zoneAt('carol', HitZone.UPPER_TORSO);
  fire('shotgun', 'alice', withPellets(aimAt('alice', 1, WeaponId.SHOTGUN, (bx! + cx!) / 2, by!, (bz! + cz!) / 2, 30), 'alice'));
  // The sniper through the wall into dave's chest.
  const [dx, dy, dz] = zoneAt('dave', HitZone.UPPER_TORSO);
  fire('sniper', 'erin', aimAt('erin', 2, WeaponId.SNIPER, dx!, dy!, dz!, 100));
  run(64);
  // A pull whose pellets all fly straight down the aim: no pattern of this seed does that.
  const straight = aimAt('alice', 2, WeaponId.SHOTGUN, (bx! + cx!) / 2, by!, (bz! + cz!) / 2, 30);
  const flat = new Float64Array(3 * MAX_PELLETS);
  for (let k = 0; k < 8; k++) flat.set([straight.ex, straight.ey, straight.ez], 3 * k);
  fire('forged', 'alice', { ...straight, pelletCount: 8, pellets: flat });
  run(10);
  await match.close();
  bytes = new Uint8Array(readFileSync(path));
});
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

/** The shot records of the log, in order. */
function shotFrames(b: Uint8Array): FrameRef[] {
  return readFrames(b).frames.filter((f) => f.type === RecordType.SHOT);
}

/** Rewrites the CRC of the frame at `f` after its payload was edited: a tamperer who knows the format. */
function resign(buf: Uint8Array, f: FrameRef): void {
  const crcAt = f.payloadOffset + f.payloadLength;
  new DataView(buf.buffer, buf.byteOffset).setUint32(crcAt, crc32(buf, f.offset + 4, crcAt), true);
}

describe('the audit of pellets and penetration', () => {
  it('the match judged what the scene was built for', () => {
    const [shotgun, sniper, forged] = verdicts;
    expect(reasonName(shotgun!.verdict.reason)).toBe('OK_HIT');
    expect(shotgun!.verdict.pellets.count).toBe(8);
    const hitTargets = new Set(Array.from(shotgun!.verdict.hits.target.subarray(0, shotgun!.verdict.hits.count)));
    expect([...hitTargets].sort()).toEqual([match.slotOf('bob'), match.slotOf('carol')].sort());
    expect(shotgun!.verdict.hits.count).toBeGreaterThanOrEqual(2);
    expect(reasonName(sniper!.verdict.reason)).toBe('OK_HIT');
    expect(sniper!.verdict.target).toBe(match.slotOf('dave'));
    expect(sniper!.verdict.hits.walls[0]).toBe(1);
    // Into the wall and out of it.
    expect(sniper!.verdict.impacts.count).toBeGreaterThanOrEqual(2);
    // The wall took part of the round's power, and of its damage.
    const damage = sniper!.verdict.hits.damage[0]!;
    expect(damage).toBeGreaterThan(0);
    expect(damage).toBeLessThan(WEAPONS[WeaponId.SNIPER]!.damage);
    expect(sniper!.hits[0]!.healthAfter).toBe(Math.max(0, 100 - damage));
    expect(reasonName(forged!.verdict.reason)).toBe('SPREAD_MISMATCH');
  });

  it('the log holds every pellet, hit, impact and each hit\'s health; the replay gives them back bit for bit', async () => {
    const frames = shotFrames(bytes);
    expect(frames.length).toBe(4);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const fired = frames.slice(1);
    fired.forEach((f, i) => {
      const input = createShotInput(), v = createVerdict();
      expect(readShotRecord(input, v, view, f.payloadOffset, f.payloadLength)).toBe(true);
      const want = verdicts[i]!;
      expect(v.pellets.count).toBe(want.verdict.pellets.count);
      expect(Array.from(v.hits.damage.subarray(0, v.hits.count))).toEqual(Array.from(want.verdict.hits.damage.subarray(0, want.verdict.hits.count)));
      expect(Array.from(v.impacts.x.subarray(0, v.impacts.count))).toEqual(Array.from(want.verdict.impacts.x.subarray(0, want.verdict.impacts.count)));
      expect(input.hitHealthAfter).toEqual(want.hits.map((h) => h.healthAfter));
      expect(input.hitKilled).toEqual(want.hits.map((h) => h.killed));
      expect(input.payload!.length).toBe(shotBytes(i === 1 ? 0 : 8));
    });
    const audit = verifyMatchLog(bytes, world, rig);
    expect(audit.problems).toEqual([]);
    expect(audit.mismatches).toEqual([]);
    expect(audit.shots).toBe(4);
    const integrity = await auditIntegrity(path, { world, rig });
    expect(integrity.mismatches).toEqual([]);
    expect(integrity.failed).toBe(false);
  });

  it('a flipped byte of a pellet\'s damage in the log, its CRC signed again, is named', async () => {
    const f = shotFrames(bytes)[1]!;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const v = createVerdict();
    const input = createShotInput();
    const vAt = readShotInput(input, view, f.payloadOffset, f.payloadLength);
    // The pellet section ends the verdict: its hits follow its 8 pellets; damage is a hit's last 8 bytes.
    const hits = v.hits;
    expect(readShotRecord(createShotInput(), v, view, f.payloadOffset, f.payloadLength)).toBe(true);
    const section = f.payloadOffset + f.payloadLength - PELLET_SECTION_HEAD_BYTES - PELLET_ENTRY_BYTES * v.pellets.count - HIT_ENTRY_BYTES * hits.count - 65 * v.impacts.count;
    expect(section).toBeGreaterThan(vAt);
    const k = hits.count - 1;
    const damageAt = section + PELLET_SECTION_HEAD_BYTES + PELLET_ENTRY_BYTES * v.pellets.count + HIT_ENTRY_BYTES * k + 88;
    expect(view.getFloat64(damageAt, true)).toBe(hits.damage[k]);
    const bad = bytes.slice();
    bad[damageAt + 6]! ^= 0x01;
    const unsigned = verifyMatchLog(bad, world, rig);
    expect(unsigned.problems.join('\n')).toMatch(/damaged record|cut at byte/);
    resign(bad, f);
    const audit = verifyMatchLog(bad, world, rig);
    expect(audit.problems).toEqual([]);
    expect(audit.mismatches).toHaveLength(1);
    expect(audit.mismatches[0]!.fields.map((m) => m.field)).toContain(`hits[${k}].damage`);
    const integrity = await auditIntegrity(path, { world, rig }, bad);
    expect(integrity.failed).toBe(true);
    expect(integrity.mismatches[0]!.fields.map((m) => m.field)).toContain(`hits[${k}].damage`);
  });

  it('a forged health after a hit is named', () => {
    const f = shotFrames(bytes)[2]!;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const bad = bytes.slice();
    const m = view.getUint16(f.payloadOffset + 52, true);
    expect(view.getUint16(f.payloadOffset + 10, true)).toBe(1);
    // The sniper's one hit: its health after (f64) follows the 70-byte head and the targets.
    const at = f.payloadOffset + 70 + 19 * m;
    expect(view.getFloat64(at, true)).toBe(verdicts[1]!.hits[0]!.healthAfter);
    new DataView(bad.buffer).setFloat64(at, 90, true);
    resign(bad, f);
    const audit = verifyMatchLog(bad, world, rig);
    expect(audit.mismatches.map((x) => x.fields.map((y) => y.field))).toEqual([['targetHealthAfter']]);
    // A later pellet's hit on a player already hit by this pull follows from the one before to the bit.
    const g = shotFrames(bytes)[1]!;
    const input = createShotInput();
    readShotInput(input, view, g.payloadOffset, g.payloadLength);
    const hits = verdicts[0]!.verdict.hits;
    const k = Array.from(hits.target.subarray(0, hits.count)).findIndex((t, i) => i > 0 && hits.target.subarray(0, i).includes(t));
    expect(k).toBeGreaterThan(0);
    const bad2 = bytes.slice();
    const at2 = g.payloadOffset + 70 + 19 * view.getUint16(g.payloadOffset + 52, true) + 9 * k;
    expect(view.getFloat64(at2, true)).toBe(input.hitHealthAfter[k]);
    new DataView(bad2.buffer).setFloat64(at2, input.hitHealthAfter[k]! - 1, true);
    resign(bad2, g);
    const fields = verifyMatchLog(bad2, world, rig).mismatches.flatMap((x) => x.fields);
    expect(fields.map((x) => x.field)).toContain(`hitHealthAfter[${k}]`);
    expect(fields.find((x) => x.field === `hitHealthAfter[${k}]`)!.replayed).toBe(input.hitHealthAfter[k]);
  });
});
