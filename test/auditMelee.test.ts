/**
 * The audit of knife swings: a real HitregMatch writing its log (MatchLogRecorder) judges a swing
 * that reaches a chest beside its line (the thick trace), one at a body behind a thin wall within
 * reach (OCCLUDED), one too soon (FIRE_RATE), one longer than the knife's range (OUT_OF_RANGE), one
 * started away from the eye (ORIGIN_MISMATCH) and one into thin air. The log records them as shot
 * records of weapon 4; the replay (verifyMatchLog, and auditMatchLog with its behaviour measures)
 * gives every verdict and health back bit for bit.
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
import { createVerdict, reasonName, VerdictKind, type Verdict } from '../shared/validate/verdict';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { World } from '../shared/world/world';
import { verifyMatchLog } from '../shared/audit/verify';
import { readFrames } from '../shared/matchlog/frame';
import { RecordType } from '../shared/matchlog/records';
import { createShotInput, readShotRecord } from '../shared/matchlog/shotRecord';
import { HitregMatch, MatchLogRecorder, type PoseInput } from '../server/match/index';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';

const rig = MANNEQUIN_RIG;
const KNIFE = WEAPONS[WeaponId.KNIFE]!;
const dir = mkdtempSync(join(tmpdir(), 'audit-melee-'));
const path = join(dir, 'melee.hrml');

/** A floor and a 0.1 m wall between erin and carol. */
function meleeWorld(): World {
  const pos: number[] = [];
  const idx: number[] = [];
  pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
  pushBox(pos, idx, 4, 0, 0.65, 8, 3, 0.75);
  return World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
}
const world = meleeWorld();

const bodies = new Map<string, { x: number; z: number; faceZ: number }>([
  ['alice', { x: 0, z: 0, faceZ: 1 }], ['bob', { x: 0.25, z: 1.3, faceZ: -1 }],
  ['erin', { x: 6, z: 0, faceZ: 1 }], ['carol', { x: 6, z: 1.3, faceZ: -1 }],
]);
const clock = { ms: 0 };
let match: HitregMatch<string>;
const verdicts: { what: string; verdict: Verdict; health: number[] }[] = [];
let bytes: Uint8Array;

function run(n: number): void {
  for (let i = 0; i < n; i++) {
    clock.ms += 1000 / 64;
    match.tick();
  }
}

/** A swing from `from`'s eye (moved by `shift` along the aim) toward the point `to`, `reach` metres long, acted 25 ms ago on a view 100 ms older. */
function swing(from: string, seq: number, to: number[], reach: number, shift = 0): ShotMessage {
  const at = clock.ms - 25;
  const b = bodies.get(from)!;
  const sy = rig.eyeHeight;
  const d = [to[0]! - b.x, to[1]! - sy, to[2]! - b.z];
  const l = Math.sqrt(d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2);
  const sx = b.x + (d[0]! / l) * shift, sy2 = sy + (d[1]! / l) * shift, sz = b.z + (d[2]! / l) * shift;
  return {
    ...createShotMessage(), seq, weapon: WeaponId.KNIFE, timeMs: at, renderTimeMs: at - 100, claimedTarget: -1,
    sx, sy: sy2, sz, ex: sx + (d[0]! / l) * reach, ey: sy2 + (d[1]! / l) * reach, ez: sz + (d[2]! / l) * reach,
  };
}

function zoneAt(who: string, zone: number): number[] {
  const p = createPlayerPose();
  match.scene.histories[match.slotOf(who)]!.sampleAt(p, clock.ms - 125, match.scene.eyePolicy);
  return zoneCenter(match.scene.rewinder, rig, p, zone);
}

function fire(what: string, from: string, m: ShotMessage): Verdict {
  const out = match.shot(from, encodeShot(new Uint8Array(shotBytes(0)), m));
  const verdict = structuredClone(out.verdict);
  verdicts.push({ what, verdict, health: out.hits.map((h) => h.healthAfter) });
  return verdict;
}

beforeAll(async () => {
  match = new HitregMatch<string>({
    world, rig, tickRate: 64, maxPlayers: 4, clock: () => clock.ms, maxHealth: 100,
    loadout: [WeaponId.KNIFE, WeaponId.RIFLE], recorder: new MatchLogRecorder({ path }),
    poses: (id: string, out: PoseInput) => {
      const b = bodies.get(id)!;
      out.x = b.x; out.y = 0; out.z = b.z;
      out.viewX = 0; out.viewY = 0; out.viewZ = b.faceZ;
    },
  });
  for (const id of bodies.keys()) match.join(id);
  run(60);
  // Beside bob's chest (0.25 m to his left): the thin line passes him, the swing does not.
  const chest = zoneAt('bob', HitZone.UPPER_TORSO);
  fire('beside', 'alice', swing('alice', 1, [chest[0]! - 0.3, chest[1]!, chest[2]!], KNIFE.rangeM * 0.99));
  fire('too soon', 'alice', swing('alice', 2, chest, KNIFE.rangeM * 0.99));
  run(40);
  fire('too long', 'alice', swing('alice', 3, chest, KNIFE.rangeM + 0.3));
  fire('from ahead', 'alice', swing('alice', 4, chest, KNIFE.rangeM * 0.99, 0.8));
  const wall = zoneAt('carol', HitZone.UPPER_TORSO);
  fire('through the wall', 'erin', swing('erin', 1, wall, KNIFE.rangeM * 0.99));
  run(40);
  fire('into the air', 'alice', swing('alice', 5, [3, 1.6, 0], KNIFE.rangeM * 0.99));
  run(10);
  await match.close();
  bytes = new Uint8Array(readFileSync(path));
});
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe('the audit of knife swings', () => {
  it('the match judged what the scene was built for', () => {
    const by = new Map(verdicts.map((v) => [v.what, v]));
    const beside = by.get('beside')!;
    expect(reasonName(beside.verdict.reason)).toBe('OK_HIT');
    expect(beside.verdict.target).toBe(match.slotOf('bob'));
    expect(beside.health).toEqual([100 - beside.verdict.damage]);
    expect(reasonName(by.get('too soon')!.verdict.reason)).toBe('FIRE_RATE');
    expect(reasonName(by.get('too long')!.verdict.reason)).toBe('OUT_OF_RANGE');
    expect(reasonName(by.get('from ahead')!.verdict.reason)).toBe('ORIGIN_MISMATCH');
    expect(reasonName(by.get('through the wall')!.verdict.reason)).toBe('OCCLUDED');
    expect(by.get('into the air')!.verdict.kind).toBe(VerdictKind.MISS);
    expect(match.player('alice')!.weapons.ammo[WeaponId.KNIFE]).toBe(KNIFE.magazine);
  });

  it('the log holds the swings as shot records of the knife; the replay gives them back bit for bit, behaviour measures included', async () => {
    const frames = readFrames(bytes).frames.filter((f) => f.type === RecordType.SHOT);
    expect(frames.length).toBe(verdicts.length);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const logged = frames.map((f) => {
      const input = createShotInput(), v = createVerdict();
      expect(readShotRecord(input, v, view, f.payloadOffset, f.payloadLength)).toBe(true);
      return v;
    });
    expect(logged.map((v) => v.weapon)).toEqual(verdicts.map(() => WeaponId.KNIFE));
    expect(logged.map((v) => v.reason)).toEqual(verdicts.map((v) => v.verdict.reason));
    const audit = verifyMatchLog(bytes, world, rig);
    expect(audit.problems).toEqual([]);
    expect(audit.mismatches).toEqual([]);
    expect(audit.shots).toBe(verdicts.length);
    const full = await auditMatchLog(path, { world, rig });
    expect(full.mismatches).toEqual([]);
    expect(full.failed).toBe(false);
    expect(full.shots).toBe(verdicts.length);
    expect(full.players.length).toBeGreaterThan(0);
  });
});
