// Putting an animation pack's clips onto a character (server/rig/mergeClips.ts, how
// server/assets/QuaterniusMannequin.glb got its clips): RobotExpressive with its clips taken out and
// its meshes meshopt-compressed gets them back from the original file, and the loaded character then
// has the original's clips key for key, node for node, with its compression kept; a clip whose node the
// character lacks, a clip name already taken and an unknown clip asked for are refused.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { prune } from '@gltf-transform/functions';
import { loadSkinnedCharacter, type SkinnedCharacter } from '../server/rig/character';
import { mergeClipFiles } from '../server/rig/mergeClips';
import { assetPath } from './helpers/glb';
import { compressedCopy } from './helpers/compressGlb';

const ROBOT = assetPath('RobotExpressive.glb');
const QUAT = assetPath('QuaterniusMannequin.glb');
const dir = mkdtempSync(join(tmpdir(), 'hitreg-merge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The robot without its animations, meshopt-compressed: a character as packs ship it apart from its clips. */
async function clipLessRobot(): Promise<string> {
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);
  const doc = await io.read(ROBOT);
  for (const a of doc.getRoot().listAnimations()) a.dispose();
  doc.setLogger({ debug() {}, info() {}, warn() {}, error: console.error } as never);
  await doc.transform(prune({ keepLeaves: true })); // drops what only the animations used
  const path = join(dir, 'robot-no-clips.glb');
  await io.write(path, doc);
  return compressedCopy(path, 'meshopt', dir);
}

/** Clip channels keyed by clip, node name and path, with their key times and values. */
function clipTable(ch: SkinnedCharacter): Map<string, { input: number[]; output: number[]; interpolation: string }> {
  const out = new Map<string, { input: number[]; output: number[]; interpolation: string }>();
  for (const clip of ch.clips) {
    for (const c of clip.channels) {
      out.set(`${clip.name}/${ch.nodeNames[c.node]}/${c.path}`, { input: Array.from(c.input), output: Array.from(c.output), interpolation: c.interpolation });
    }
  }
  return out;
}

describe('mergeClips: an animation pack onto a character by node name', () => {
  it('the robot gets its own clips back, exactly, and stays meshopt-compressed', async () => {
    const bare = await clipLessRobot();
    expect((await loadSkinnedCharacter(bare)).clips).toEqual([]);
    const out = join(dir, 'robot-merged.glb');
    const original = await loadSkinnedCharacter(ROBOT);
    const added = await mergeClipFiles(bare, [ROBOT], out);
    expect(added).toEqual(original.clips.map((c) => c.name));
    expect((await new NodeIO().readAsJSON(out)).json.extensionsRequired).toContain('EXT_meshopt_compression');
    const merged = await loadSkinnedCharacter(out);
    expect(merged.clips.map((c) => [c.name, c.duration])).toEqual(original.clips.map((c) => [c.name, c.duration]));
    expect(clipTable(merged)).toEqual(clipTable(original));
    expect(clipTable(merged).size).toBeGreaterThan(100);
  });

  it('--only picks clips; a missing node, a taken name or an unknown clip is refused', async () => {
    const bare = await clipLessRobot();
    const out = join(dir, 'robot-two.glb');
    expect(await mergeClipFiles(bare, [ROBOT], out, ['Idle', 'Running'])).toEqual(['Idle', 'Running']);
    expect((await loadSkinnedCharacter(out)).clips.map((c) => c.name)).toEqual(['Idle', 'Running']);
    await expect(mergeClipFiles(bare, [ROBOT], out, ['Idle', 'Moonwalk'])).rejects.toThrow(/no clip file has a clip called "Moonwalk"/);
    await expect(mergeClipFiles(ROBOT, [ROBOT], out)).rejects.toThrow(/clip "\w+" is already in the character/);
    await expect(mergeClipFiles(QUAT, [ROBOT], out)).rejects.toThrow(/clip "\w+" animates node "[^"]+", which the character does not have/);
  });
});
