/**
 * The package's binary assets, written by `npm run build` (tools/build.mjs bundles and runs this):
 * dist/shared/assets/mannequin.hrrg (the shipped rig, rigDataToBuffer) and
 * dist/shared/assets/collision-world.hrwb (the default level's World bytes). Prints one JSON line
 * with their content hashes and sizes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANNEQUIN_RIG_DATA } from '../shared/rig/mannequinData';
import { rigDataToBuffer } from '../shared/rig/rigBinary';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';

export async function writeSharedAssets(outDir: string): Promise<{ rig: { hash: string; bytes: number }; world: { hash: string; bytes: number } }> {
  mkdirSync(outDir, { recursive: true });
  const rig = rigDataToBuffer(MANNEQUIN_RIG_DATA);
  writeFileSync(join(outDir, 'mannequin.hrrg'), rig);
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const wb = new Uint8Array(world.toBuffer());
  writeFileSync(join(outDir, 'collision-world.hrwb'), wb);
  return { rig: { hash: MANNEQUIN_RIG_DATA.hash, bytes: rig.length }, world: { hash: world.hash, bytes: wb.length } };
}
