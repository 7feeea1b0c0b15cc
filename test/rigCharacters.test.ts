// Rigs from humanoids other than the mannequin: RobotExpressive (Blender ".L" names, meshes parented
// rigidly to bones, two skins, an armature scaled by 100: see server/rig/character.ts) built with its
// map file; QuaterniusMannequin (VRM humanoid bone names, meshopt-compressed and quantized as it
// ships, no map file) built by names alone; the same Quaternius mannequin with meaningless bone names,
// described by an override map file or by a VRM humanoid table, must give the same rig geometry;
// meshopt- and Draco-compressed (quantized) robots give rigs as good against the original mesh; rig
// files round-trip with their hash checked; RIG= picks the rig; and a room running either rig judges
// shots by its zones over real sockets, and its match log audits bit for bit with the same rig.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { buildRig, DEFAULT_BUILD_OPTIONS, HITBOX_ORDER } from '../server/rig/buildRig';
import { loadSkinnedCharacter } from '../server/rig/character';
import { gltfIO } from '../server/level/gltfIO';
import { measureRigQuality } from '../server/rig/quality';
import { characterMapPathFor, loadMappedCharacter, parseRigFile, readCharacterMap, rigFileText, rigFromEnv } from '../server/rig/rigFile';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { HitZone, loadRig, type RigMeta } from '../shared/rig/rig';
import { assetPath } from './helpers/glb';
import { compressedCopy } from './helpers/compressGlb';
import { buildTestWorld, joinPair, roomClosed, shootAtZone, startTestServer, TEST_SPAWNS } from './helpers/server';

const ROBOT = assetPath('RobotExpressive.glb');
const ROBOT_MAP = assetPath('RobotExpressive.map.json');
const dir = mkdtempSync(join(tmpdir(), 'hitreg-rigs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const map = readCharacterMap(ROBOT_MAP);
const robotBuilt = loadMappedCharacter(ROBOT, map).then((ch) => ({ ch, built: buildRig(ch, 'RobotExpressive.glb', DEFAULT_BUILD_OPTIONS, map) }));
const QUAT = assetPath('QuaterniusMannequin.glb');
const quatBuilt = loadSkinnedCharacter(QUAT).then((ch) => ({ ch, built: buildRig(ch, 'QuaterniusMannequin.glb') }));

/**
 * Rewrites the Quaternius mannequin with joints renamed (and optionally extra top-level JSON), returns
 * the new path. The meshopt compression is dropped (the test has no encoder), the quantization kept.
 */
async function renamedQuaternius(name: string, rename: Record<string, string>, extensions?: (nodeIndex: Map<string, number>) => Record<string, unknown>): Promise<string> {
  const doc = await (await gltfIO()).read(QUAT);
  doc.getRoot().listExtensionsUsed().find((e) => e.extensionName === 'EXT_meshopt_compression')?.dispose();
  const joints = new Set(doc.getRoot().listSkins().flatMap((s) => s.listJoints()));
  const index = new Map<string, number>();
  doc.getRoot().listNodes().forEach((n, i) => {
    if (!joints.has(n)) return;
    if (rename[n.getName()]) n.setName(rename[n.getName()]);
    index.set(n.getName(), i);
  });
  const { json, resources } = await new NodeIO().registerExtensions(ALL_EXTENSIONS).writeJSON(doc, { basename: name });
  if (extensions) {
    json.extensions = { ...json.extensions, ...extensions(index) };
    json.extensionsUsed = [...(json.extensionsUsed ?? []), ...Object.keys(extensions(index))];
  }
  for (const [uri, bytes] of Object.entries(resources)) writeFileSync(join(dir, uri), bytes);
  const path = join(dir, `${name}.gltf`);
  writeFileSync(path, JSON.stringify(json));
  return path;
}

/** The Quaternius mannequin's bones that name a role (VRM humanoid names); the fingers and the root follow their parents. */
const QUAT_ROLES = [
  'hips', 'spine', 'chest', 'upperChest', 'neck', 'head',
  ...['left', 'right'].flatMap((s) => ['Shoulder', 'UpperArm', 'LowerArm', 'Hand', 'UpperLeg', 'LowerLeg', 'Foot', 'Toes'].map((b) => s + b)),
];

describe('rigs from other humanoids', () => {
  it('RobotExpressive: its map scales it to 1.8 m and names the torso; hitboxes, clips and hulls as expected', async () => {
    const { built } = await robotBuilt;
    const meta = JSON.parse(built.data.meta) as RigMeta;
    expect(meta.height).toBe(1.8);
    expect(meta.eyeHeight).toBeGreaterThan(1.3);
    expect(meta.eyeHeight).toBeLessThan(1.8);
    // No vertex hangs on the robot's hips, abdomen or neck bones: those hitboxes are left out.
    expect(built.omitted).toEqual(['neck', 'lower_torso', 'pelvis']);
    expect(meta.hitboxes.map((h) => h.name)).toEqual([
      'head', 'upper_torso', 'upper_arm.l', 'upper_arm.r', 'forearm.l', 'forearm.r', 'hand.l', 'hand.r',
      'thigh.l', 'thigh.r', 'calf.l', 'calf.r', 'foot.l', 'foot.r',
    ]);
    expect(meta.hitboxes.find((h) => h.name === 'upper_torso')!.joint).toBe('Body');
    expect(meta.clips.map((c) => c.name)).toEqual(['Idle', 'Walking', 'Running', 'Jump']);
    for (const h of meta.hitboxes) expect(h.triangles).toBeGreaterThanOrEqual(8);
    // Without the map the robot is 4.4 m tall in its own units, beyond the format: the error says what to do.
    await expect(loadSkinnedCharacter(ROBOT).then((ch) => buildRig(ch, 'RobotExpressive.glb'))).rejects.toThrow(/"height": 1.8/);
  });

  it('QuaterniusMannequin: VRM humanoid names map every bone with no map file; clips picked by name; meshopt-compressed as it ships', async () => {
    const { ch, built } = await quatBuilt;
    expect(characterMapPathFor(QUAT)).toBeUndefined();
    expect((await new NodeIO().readAsJSON(QUAT)).json.extensionsRequired).toEqual(expect.arrayContaining(['EXT_meshopt_compression', 'KHR_mesh_quantization']));
    expect(ch.declaredRoles.size).toBe(0); // no VRM extension: the names alone say what each bone is
    // Every joint is mapped by its name except the skeleton's root above the hips (pelvis by default).
    ch.jointNames.forEach((n, j) => expect(built.jointHow[j], n).toBe(n === 'root' ? 'default' : 'name'));
    const meta = JSON.parse(built.data.meta) as RigMeta;
    expect(built.omitted).toEqual([]);
    expect(meta.hitboxes.map((h) => h.name)).toEqual([...HITBOX_ORDER]);
    const joint = Object.fromEntries(meta.hitboxes.map((h) => [h.name, h.joint]));
    expect(joint).toMatchObject({ head: 'head', upper_torso: 'chest', lower_torso: 'spine', pelvis: 'hips', 'upper_arm.l': 'leftUpperArm', 'calf.r': 'rightLowerLeg' });
    for (const side of ['left', 'right']) {
      expect(built.jointHitbox[ch.jointNames.indexOf(`${side}Shoulder`)]).toBe('upper_torso');
      expect(built.jointHitbox[ch.jointNames.indexOf(`${side}ThumbDistal`)]).toBe(`hand.${side[0]}`);
      expect(built.jointHitbox[ch.jointNames.indexOf(`${side}Toes`)]).toBe(`foot.${side[0]}`);
    }
    expect(built.jointHitbox[ch.jointNames.indexOf('upperChest')]).toBe('upper_torso');
    expect(meta.clips.map((c) => c.name)).toEqual(['Idle_Loop_Rig', 'Walk_Loop_Rig', 'Sprint_Loop_Rig', 'Jump_Loop_Rig']);
    // Modelled in metres: no "height" needed.
    expect(meta.height).toBeGreaterThan(1.8);
    expect(meta.height).toBeLessThan(1.85);
    expect(meta.eyeHeight).toBeGreaterThan(1.5);
    expect(meta.eyeHeight).toBeLessThan(meta.height);
    for (const h of meta.hitboxes) expect(h.triangles).toBeGreaterThanOrEqual(8);
  });

  it('the Quaternius mannequin under meaningless bone names, described by an override map file or by a VRM humanoid table, gives the same rig geometry', async () => {
    // Baseline: the mannequin rewritten by the same writer with its names unchanged (rewriting drops
    // the meshopt layer, so the shipped file is not byte-for-byte the baseline's input).
    const plain = await renamedQuaternius('plain-quaternius', {});
    const built = buildRig(await loadSkinnedCharacter(plain), 'plain-quaternius.gltf');
    expect(built.data.payload).toBe((await quatBuilt).built.data.payload); // meshopt is lossless over the quantized data
    const { ch: shipped } = await quatBuilt;
    const opaque = Object.fromEntries(shipped.jointNames.map((n, i) => [n, `Bone.${String(i).padStart(3, '0')}`]));

    // Names that say nothing: without a map the build refuses and says what to write; the map file names the roles.
    const renamed = await renamedQuaternius('opaque-quaternius', opaque);
    const renamedCh = await loadSkinnedCharacter(renamed);
    expect(() => buildRig(renamedCh, 'opaque-quaternius.gltf')).toThrow(/no bone maps to the head.*"bones"/);
    const mapPath = join(dir, 'opaque-quaternius.map.json');
    writeFileSync(mapPath, JSON.stringify({ bones: Object.fromEntries(QUAT_ROLES.map((role) => [opaque[role], role])) }));
    expect(characterMapPathFor(renamed)).toBe(mapPath);
    const boneMap = readCharacterMap(mapPath);
    const fromMap = buildRig(await loadMappedCharacter(renamed, boneMap), 'opaque-quaternius.gltf', DEFAULT_BUILD_OPTIONS, boneMap);
    expect(fromMap.jointHow.filter((h) => h === 'override')).toHaveLength(QUAT_ROLES.length);
    expect(fromMap.data.payload).toBe(built.data.payload);
    expect(fromMap.jointZone).toEqual(built.jointZone);
    expect((await rigFromEnv({ RIG: renamed })).hash).toBe(fromMap.data.hash); // RIG= finds the map beside it

    // VRM 1.0: the same meaningless names; the file's humanoid table says what each is.
    const vrm = await renamedQuaternius('vrm-quaternius', opaque, (index) => ({
      VRMC_vrm: { specVersion: '1.0', humanoid: { humanBones: Object.fromEntries(QUAT_ROLES.map((role) => [role, { node: index.get(opaque[role]) }])) } },
    }));
    const ch = await loadSkinnedCharacter(vrm);
    expect(ch.declaredRoles.size).toBe(QUAT_ROLES.length);
    const fromVrm = buildRig(ch, 'vrm-quaternius.gltf');
    expect(fromVrm.data.payload).toBe(built.data.payload);
    expect(fromVrm.jointZone).toEqual(built.jointZone);
  });

  const PACKED_QUALITY = { seed: 5, timesPerClip: 1, segmentsPerPose: 300, probesPerPose: 0, startDistance: 1.5 };
  let refQuality: ReturnType<typeof measureRigQuality> | undefined;
  for (const kind of ['meshopt', 'draco'] as const) {
    it(`a ${kind}-compressed, quantized robot gives a rig as good against the original skinned mesh`, async () => {
      const { ch, built } = await robotBuilt;
      const packed = await compressedCopy(ROBOT, kind, dir);
      const packedJson = await new NodeIO().readAsJSON(packed);
      expect(packedJson.json.extensionsRequired).toEqual(expect.arrayContaining(
        kind === 'meshopt' ? ['KHR_mesh_quantization', 'EXT_meshopt_compression'] : ['KHR_draco_mesh_compression'],
      ));
      const fromPacked = buildRig(await loadMappedCharacter(packed, map), `${kind}.glb`, DEFAULT_BUILD_OPTIONS, map);
      expect(fromPacked.data.payload).not.toBe(built.data.payload); // the geometry did change, a little
      const opts = { ...PACKED_QUALITY, jointZone: built.jointZone };
      refQuality ??= measureRigQuality(ch, loadRig(built.data), opts);
      const ref = refQuality;
      const got = measureRigQuality(ch, loadRig(fromPacked.data), opts);
      console.log(`robot rig vs original mesh: hit ${(100 * ref.hitFraction).toFixed(2)}% / zone ${(100 * ref.zoneFraction).toFixed(2)}%; from the ${kind} copy: hit ${(100 * got.hitFraction).toFixed(2)}% / zone ${(100 * got.zoneFraction).toFixed(2)}%`);
      expect(got.segments).toBe(ref.segments);
      expect(Math.abs(got.hitFraction - ref.hitFraction)).toBeLessThan(0.01);
      expect(Math.abs(got.zoneFraction - ref.zoneFraction)).toBeLessThan(0.01);
      const a = JSON.parse(built.data.meta) as RigMeta, b = JSON.parse(fromPacked.data.meta) as RigMeta;
      expect(b.hitboxes.map((h) => h.name)).toEqual(a.hitboxes.map((h) => h.name));
      expect(Math.abs(b.height - a.height)).toBeLessThan(1e-3); // both scaled to 1.8 m
      expect(Math.abs(b.bound[3] - a.bound[3])).toBeLessThan(0.01);
    });
  }

  it('rig files round-trip with their hash checked; hostile files are refused with a reason', async () => {
    const { built } = await robotBuilt;
    const path = join(dir, 'robot.rig.json');
    writeFileSync(path, rigFileText(built.data));
    const rig = parseRigFile(readFileSync(path, 'utf8'), path);
    expect(rig.hash).toBe(built.data.hash);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(() => parseRigFile(JSON.stringify({ ...file, payload: 'AAAA' + file.payload.slice(4) }), 'x')).toThrow(/hash/);
    expect(() => parseRigFile(JSON.stringify({ ...file, version: 1 }), 'x')).toThrow(/format 1/);
    expect(() => parseRigFile(JSON.stringify({ ...file, meta: 5 }), 'x')).toThrow(/strings/);
    expect(() => parseRigFile(JSON.stringify({ ...file, format: 'other' }), 'x')).toThrow(/not a hitreg rig file/);
    expect(() => parseRigFile('{"format": "hitreg-rig"', 'x')).toThrow(/not JSON/);
    expect(() => parseRigFile('null', 'x')).toThrow(/not a hitreg rig file/);
    const bad = join(dir, 'bad.map.json');
    for (const [text, why] of [
      ['[]', /not a JSON object/], ['{"bone": {}}', /unknown keys bone/], ['{"bones": {"Hips": 3}}', /"bones.Hips" is not a string/],
      ['{"clips": {"walk": "Walking"}}', /"clips.walk" is not one of idle, jog, run, fall/], ['{"height": 1e9}', /"height" must be/],
    ] as const) {
      writeFileSync(bad, text);
      expect(() => readCharacterMap(bad), text).toThrow(why);
    }
  });

  it('RIG= selects the rig: mannequin by default, a rig file, or a character built on the spot', async () => {
    const { built } = await robotBuilt;
    expect(await rigFromEnv({})).toBe(MANNEQUIN_RIG);
    expect(await rigFromEnv({ RIG: 'mannequin' })).toBe(MANNEQUIN_RIG);
    const path = join(dir, 'env.rig.json');
    writeFileSync(path, rigFileText(built.data));
    expect((await rigFromEnv({ RIG: path })).hash).toBe(built.data.hash);
    // A character: its map file beside it is found and applied; one with no map file is built by names.
    expect((await rigFromEnv({ RIG: ROBOT })).hash).toBe(built.data.hash);
    expect((await rigFromEnv({ RIG: QUAT })).hash).toBe((await quatBuilt).built.data.hash);
    await expect(rigFromEnv({ RIG: 'robot.fbx' })).rejects.toThrow(/use "mannequin".*\.rig\.json.*\.glb/);
    await expect(rigFromEnv({ RIG: join(dir, 'missing.rig.json') })).rejects.toThrow(/no such file/);
  });

  for (const [who, path, which] of [['robot', ROBOT, robotBuilt], ['Quaternius mannequin', QUAT, quatBuilt]] as const) {
    it(`a room running the ${who} rig judges shots by its zones over real sockets; the audit replays the match with --rig`, async () => {
      const { built } = await which;
      const rig = loadRig(built.data);
      const logDir = mkdtempSync(join(dir, 'matches-'));
      const ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, rig, matchLogDir: logDir, validation: { claimToleranceMs: 150 } });
      try {
        expect(ts.server.rig.hash).toBe(rig.hash);
        const [a, b] = await joinPair(ts.url);
        const roomId = a.room.roomId;
        const torso = await shootAtZone(a, ts, 1, 1, HitZone.UPPER_TORSO);
        expect(torso.reasonName).toBe('OK_HIT');
        expect(torso.zone).toBe(HitZone.UPPER_TORSO);
        expect(torso.damage).toBe(25);
        await a.untilFireReady();
        const head = await shootAtZone(a, ts, 1, 2, HitZone.HEAD);
        expect(head.reasonName).toBe('OK_HIT');
        expect(head.zone).toBe(HitZone.HEAD);
        expect(head.damage).toBe(100); // rifle 25 x head 4
        const closed = roomClosed(ts, roomId);
        await a.leave();
        await b.leave();
        await closed;
        const logs = readdirSync(logDir).filter((f) => f.endsWith('.hrml'));
        expect(logs).toHaveLength(1);
        const log = join(logDir, logs[0]!);
        // The log names the character's rig: audited against the mannequin it is refused, with that rig
        // (in this thread and in a worker) every verdict replays bit for bit.
        const wrong = await auditMatchLog(log, { world: ts.server.world });
        expect(wrong.problems.map((p) => p.kind)).toContain('rig-hash');
        expect(wrong.problems.find((p) => p.kind === 'rig-hash')!.message).toMatch(/pass --rig/);
        for (const inWorkers of [false, true]) {
          const r = await auditMatchLog(log, { world: ts.server.world, rig: await rigFromEnv({ RIG: path }), inWorkers });
          expect(r.problems).toEqual([]);
          expect(r.mismatches).toEqual([]);
          expect(r.shots).toBe(2);
        }
      } finally {
        await ts.close();
        await closeAuditWorkers();
      }
    });
  }
});
