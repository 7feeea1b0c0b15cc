/**
 * The package's binary assets, written by `npm run build` (server/build/build.mjs bundles and runs this):
 * dist/lib/assets/mannequin.hrrg (the shipped rig: server/assets/mannequin.hrrg, checked and copied) and
 * dist/lib/assets/collision-world.hrwb (the default level's World bytes), with a README of their
 * sources and licences. Returns their content hashes and sizes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mannequinFromBuffer } from '../../shared/rig/mannequin';
import { MANNEQUIN_RIG_PATH } from '../rig/paths';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../level/gltf';

export async function writeSharedAssets(outDir: string): Promise<{ rig: { hash: string; bytes: number }; world: { hash: string; bytes: number } }> {
  mkdirSync(outDir, { recursive: true });
  const rig = readFileSync(MANNEQUIN_RIG_PATH);
  const rigHash = mannequinFromBuffer(rig).hash; // refuses to ship an asset its loaders would refuse
  writeFileSync(join(outDir, 'mannequin.hrrg'), rig);
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const wb = new Uint8Array(world.toBuffer());
  writeFileSync(join(outDir, 'collision-world.hrwb'), wb);
  writeFileSync(join(outDir, 'README.md'), LICENCES);
  return { rig: { hash: rigHash, bytes: rig.length }, world: { hash: world.hash, bytes: wb.length } };
}

/** Where the assets come from (server/assets/README.md has the full table). */
const LICENCES = `# hitreg's assets

- \`mannequin.hrrg\`: the hitbox rig built from \`mannequiny-0.3.0.glb\`, "mannequiny" by GDQuest and
  contributors (godot-3d-mannequin), CC BY 4.0.
- \`collision-world.hrwb\`: the collision world of the three.js \`games_fps\` example level
  (three.js PR #20836), MIT, three.js authors.
`;
