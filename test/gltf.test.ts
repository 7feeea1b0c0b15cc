// Level import: GLB files written here with @gltf-transform/core (so every case is known exactly),
// then read back by the loader: node transforms baked (including parents and mirroring, which must
// keep front faces front), node and material names kept per triangle range, indexed and non-indexed
// primitives, non-TRIANGLES primitives rejected with an error naming them. Plus the real assets.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document, NodeIO, Primitive } from '@gltf-transform/core';
import { loadLevelMesh, loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { createWorldHit } from '../shared/world/world';
import { assetPath } from './helpers/glb';

const dir = mkdtempSync(join(tmpdir(), 'hitreg-gltf-'));

/** One triangle in the z = 0 plane, counter-clockwise seen from +z (normal +z). */
function triangleDoc(opts: { mirror?: boolean; indexed?: boolean; mode?: number } = {}): Document {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const pos = doc.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])).setBuffer(buffer);
  const prim = doc.createPrimitive().setAttribute('POSITION', pos).setMaterial(doc.createMaterial('stone'));
  if (opts.indexed !== false) prim.setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint16Array([0, 1, 2])).setBuffer(buffer));
  if (opts.mode !== undefined) prim.setMode(opts.mode as 4);
  const mesh = doc.createMesh('tri').addPrimitive(prim);
  const child = doc.createNode('child').setMesh(mesh).setTranslation([0, 0, 2]);
  if (opts.mirror) child.setScale([1, 1, -1]);
  const parent = doc.createNode('parent').setTranslation([10, 0, 0]).addChild(child);
  // A second, unmirrored instance at the root, non-indexed copy of the same mesh.
  const other = doc.createNode('other').setMesh(mesh).setTranslation([0, 5, 0]).setScale([2, 2, 2]);
  doc.createScene('level').addChild(parent).addChild(other);
  return doc;
}

async function write(doc: Document, name: string): Promise<string> {
  const path = join(dir, name);
  await new NodeIO().write(path, doc);
  return path;
}

describe('glTF level loader', () => {
  it('bakes node transforms (parents included), keeps names per triangle range', async () => {
    const mesh = await loadLevelMesh(await write(triangleDoc(), 'plain.glb'));
    expect(mesh.indices.length).toBe(6);
    expect(mesh.surfaceRanges).toEqual([
      { start: 0, count: 1, node: 'child', material: 'stone' },
      { start: 1, count: 1, node: 'other', material: 'stone' },
    ]);
    const v = (t: number, j: number) => Array.from(mesh.positions.slice(mesh.indices[3 * t + j] * 3, mesh.indices[3 * t + j] * 3 + 3));
    expect([v(0, 0), v(0, 1), v(0, 2)]).toEqual([[10, 0, 2], [11, 0, 2], [10, 1, 2]]);
    expect([v(1, 0), v(1, 1), v(1, 2)]).toEqual([[0, 5, 0], [2, 5, 0], [0, 7, 0]]);
  });

  it('keeps front faces front under a mirroring transform, and reads non-indexed primitives', async () => {
    for (const indexed of [true, false]) {
      const world = await loadWorld(await write(triangleDoc({ mirror: true, indexed }), `mirror-${indexed}.glb`));
      const h = createWorldHit();
      // The mirrored triangle sits at z = 2 (mirroring z = 0 changes no point) but, mirrored, faces
      // -z: a shot from z = -10 meets its front.
      expect(world.firstHit(h, 10.2, 0.2, -10, 10.2, 0.2, 10)).toBe(true);
      expect(h.z).toBeCloseTo(2, 12);
      expect(h.nz).toBe(-1);
      expect(h.front).toBe(true);
      expect(world.surfaces[h.surface]).toEqual({ node: 'child', material: 'stone' });
      // The unmirrored one faces +z: from z = +10 it is the front.
      expect(world.firstHit(h, 0.5, 5.5, 10, 0.5, 5.5, -10)).toBe(true);
      expect(h.front).toBe(true);
      expect(world.surfaces[h.surface].node).toBe('other');
    }
  });

  it('rejects non-TRIANGLES primitives with an error naming node, mesh and primitive', async () => {
    const path = await write(triangleDoc({ mode: Primitive.Mode.LINES }), 'lines.glb');
    await expect(loadLevelMesh(path)).rejects.toThrow(/node "child", mesh "tri", primitive 0 has mode LINES; only TRIANGLES/);
    await expect(loadLevelMesh(join(dir, 'missing.glb'))).rejects.toThrow(/could not read level/);
  });

  it('loads the real levels: collision-world (default) and bistro', async () => {
    expect(DEFAULT_LEVEL_PATH).toBe(assetPath('collision-world.glb'));
    const world = await loadWorld();
    expect(world.triangleCount).toBe(1754);
    const bistro = await loadLevelMesh(assetPath('bistro-collision.glb'));
    expect(bistro.indices.length / 3).toBe(259_324);
    expect(new Set(bistro.surfaceRanges.map((r) => r.node)).size).toBe(26);
    rmSync(dir, { recursive: true, force: true });
  });
});
