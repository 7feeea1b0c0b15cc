/**
 * `npm run build:rig`: rebuilds the shipped mannequin rig, the binary asset server/assets/mannequin.hrrg
 * (shared/rig/rigBinary.ts; the one copy of it: Node code loads it through ./mannequin, the package
 * build copies it into dist/lib/assets/).
 * `npm run build:rig -- <character.glb|.gltf|.vrm> [--map file.map.json] [--out file.rig.json]`:
 * builds any humanoid into a rig file (the map defaults to the `.map.json` beside the character, the
 * output to the `.rig.json` beside it), prints how each bone was mapped, the rig, and its quality
 * against the skinned mesh (./quality, seed 1, 6 times per clip, 400 segments per pose).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadRig, type RigMeta } from '../../shared/rig/rig';
import { rigDataToBuffer } from '../../shared/rig/rigBinary';
import { mannequinFromBuffer } from '../../shared/rig/mannequin';
import { buildRig, DEFAULT_BUILD_OPTIONS, MANNEQUIN_PATH } from './buildRig';
import { MANNEQUIN_RIG_PATH } from './paths';
import { loadSkinnedCharacter } from './character';
import { formatQuality, measureRigQuality, REPORT_QUALITY_OPTIONS } from './quality';
import { characterMapPathFor, loadMappedCharacter, readCharacterMap, rigFileText } from './rigFile';

async function buildMannequin(): Promise<void> {
  const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
  const built = buildRig(ch, 'mannequiny-0.3.0.glb');
  const meta = JSON.parse(built.data.meta) as RigMeta;
  const bytes = rigDataToBuffer(built.data);
  mannequinFromBuffer(bytes, built.data.hash); // what every loader will check: refuse to write a rig it would refuse
  writeFileSync(MANNEQUIN_RIG_PATH, bytes);
  console.log(`wrote ${MANNEQUIN_RIG_PATH}: hash ${built.data.hash}, ${bytes.length} bytes, ${meta.hitboxes.length} hitboxes, ${meta.hitboxes.reduce((s, h) => s + h.triangles, 0)} triangles`);
  printRig(meta);
}

function printRig(meta: RigMeta): void {
  for (const h of meta.hitboxes) console.log(`  ${h.name.padEnd(12)} joint ${h.joint.padEnd(11)} zone ${h.zone} side ${h.side} triangles ${h.triangles}`);
  console.log(`  clips ${meta.clips.map((c) => `${c.name} ${c.duration.toFixed(3)} s ${c.frameCount} frames`).join(', ')}`);
  console.log(`  height ${meta.height} m, eye ${meta.eyeHeight} m, bound center ${meta.bound.slice(0, 3).map((v) => v.toFixed(3))} r ${meta.bound[3].toFixed(3)}`);
}

/** `npm run build:rig -- <character> [--map file.map.json] [--out file.rig.json]`: any humanoid into a rig file, with its quality. */
async function buildCharacter(file: string, mapArg: string | undefined, outArg: string | undefined): Promise<void> {
  const mapPath = mapArg ?? characterMapPathFor(file);
  const map = mapPath ? readCharacterMap(mapPath) : {};
  const ch = await loadMappedCharacter(file, map);
  const built = buildRig(ch, basename(file), DEFAULT_BUILD_OPTIONS, map);
  const out = outArg ?? file.replace(/\.(glb|gltf|vrm)$/i, '') + '.rig.json';
  writeFileSync(out, rigFileText(built.data));
  const meta = JSON.parse(built.data.meta) as RigMeta;
  console.log(`wrote ${out}: hash ${built.data.hash}, ${meta.hitboxes.length} hitboxes${mapPath ? `, map ${mapPath}` : ''}`);
  if (built.omitted.length > 0) console.log(`  no vertex feeds ${built.omitted.join(', ')}: left out`);
  const groups = new Map<string, string[]>();
  ch.jointNames.forEach((n, j) => {
    const key = built.jointHitbox[j];
    groups.set(key, [...(groups.get(key) ?? []), built.jointHow[j] === 'name' || built.jointHow[j] === 'declared' ? n : `${n} (${built.jointHow[j]})`]);
  });
  for (const [h, joints] of groups) console.log(`  ${h.padEnd(12)} <- ${joints.join(', ')}`);
  printRig(meta);
  const rig = loadRig(built.data);
  console.log(formatQuality(rig, measureRigQuality(ch, rig, { seed: 1, ...REPORT_QUALITY_OPTIONS, jointZone: built.jointZone })));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { map: { type: 'string' }, out: { type: 'string' } }, allowPositionals: true });
  if (positionals.length > 1) throw new Error('usage: npm run build:rig [-- <character.glb|.gltf|.vrm> [--map file.map.json] [--out file.rig.json]]');
  if (positionals.length === 0) {
    if (values.map || values.out) throw new Error('--map and --out need a character file; without one the shipped mannequin rig is rebuilt');
    await buildMannequin();
  } else {
    if (!existsSync(positionals[0])) throw new Error(`no such file: ${positionals[0]}`);
    await buildCharacter(positionals[0], values.map, values.out);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
