// Compressed and quantized levels: KHR_mesh_quantization, EXT_meshopt_compression and
// KHR_draco_mesh_compression copies of the shipped levels (made here with @gltf-transform/functions
// and the meshoptimizer / draco3dgltf encoders, see test/helpers/compressGlb.ts) must answer seeded
// segments like the originals: the same first surface, at a point within the quantization error.
//
// Tolerance. Positions are quantized to 14 bits over each mesh's largest extent E (uniform scale,
// signed: 13 bits of magnitude over E/2), so a vertex moves by at most one step s = E/(2^14 - 2) per
// axis (rounding gives half of that; the bit replication of the 15-bit storage and Draco's own grid
// stay inside a step), i.e. at most d = sqrt(3) s in space. A point of a triangle at fixed
// barycentrics moves by at most d too, so the plane a segment crosses shifts by at most d along its
// normal and the hit point slides along the segment by at most d / |cos(angle to the normal)|. The
// test takes E as the level's largest extent (every mesh's is smaller) and adds 1e-6 m for float32
// node transforms. A segment whose original or compressed hit lies within that distance of an edge
// of its triangle (or of the segment's ends) may legitimately slip past the edge to another surface
// or miss; such segments are counted, required to be rare, and nothing else may differ.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Accessor, Document, NodeIO } from '@gltf-transform/core';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import { loadLevelMesh, type LevelMesh } from '../server/level/gltf';
import { UnsupportedGltfExtensionError } from '../server/level/gltfIO';
import { World, createWorldHit, type WorldHit } from '../shared/world/world';
import { mulberry32 } from '../shared/util/prng';
import { assetPath } from './helpers/glb';
import { compressedCopy, POSITION_BITS, type Compression } from './helpers/compressGlb';

const dir = mkdtempSync(join(tmpdir(), 'hitreg-gltfc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Level {
  mesh: LevelMesh;
  world: World;
}

async function level(path: string): Promise<Level> {
  const mesh = await loadLevelMesh(path);
  return { mesh, world: World.fromTriangles(mesh.positions, mesh.indices, mesh.surfaceRanges) };
}

/** Distance from point p (on the triangle's plane) to the nearest edge of triangle `tri`. */
function edgeDistance(mesh: LevelMesh, tri: number, px: number, py: number, pz: number): number {
  let best = Infinity;
  for (let e = 0; e < 3; e++) {
    const a = mesh.indices[tri * 3 + e] * 3, b = mesh.indices[tri * 3 + ((e + 1) % 3)] * 3;
    const ax = mesh.positions[a], ay = mesh.positions[a + 1], az = mesh.positions[a + 2];
    const dx = mesh.positions[b] - ax, dy = mesh.positions[b + 1] - ay, dz = mesh.positions[b + 2] - az;
    const len2 = dx * dx + dy * dy + dz * dz;
    let u = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy + (pz - az) * dz) / len2 : 0;
    u = Math.max(0, Math.min(1, u));
    best = Math.min(best, Math.hypot(ax + u * dx - px, ay + u * dy - py, az + u * dz - pz));
  }
  return best;
}

interface Agreement {
  segments: number;
  hits: number;
  agree: number;
  /** Segments that differ but pass within the tolerance of an edge or an end: allowed, counted. */
  nearEdge: number;
  /** Segments that differ for no such reason: must be 0. */
  unexplained: string[];
  /** Largest hit-point distance among agreeing hits away from edges, in units of the per-segment tolerance. */
  worstRatio: number;
  step: number;
}

/** Seeded segments through the level's bounds, first hits compared between the two levels. */
function compare(a: Level, b: Level, segments: number, seed: number): Agreement {
  const bounds = a.world.bounds(new Float64Array(6));
  const extent = Math.max(bounds[3] - bounds[0], bounds[4] - bounds[1], bounds[5] - bounds[2]);
  const step = extent / (2 ** POSITION_BITS - 2);
  const d = Math.sqrt(3) * step + 1e-6;
  const rnd = mulberry32(seed);
  const ha = createWorldHit(), hb = createWorldHit();
  const length = extent / 2;
  const out: Agreement = { segments, hits: 0, agree: 0, nearEdge: 0, unexplained: [], worstRatio: 0, step };
  const surfaceName = (l: Level, h: WorldHit) => `${l.world.surfaces[h.surface].node}/${l.world.surfaces[h.surface].material}`;
  for (let i = 0; i < segments; i++) {
    const sx = bounds[0] + rnd() * (bounds[3] - bounds[0]);
    const sy = bounds[1] + rnd() * (bounds[4] - bounds[1]);
    const sz = bounds[2] + rnd() * (bounds[5] - bounds[2]);
    let dx = rnd() * 2 - 1, dy = rnd() * 2 - 1, dz = rnd() * 2 - 1;
    const dl = Math.hypot(dx, dy, dz) || 1;
    dx = (dx / dl) * length; dy = (dy / dl) * length; dz = (dz / dl) * length;
    const hitA = a.world.firstHit(ha, sx, sy, sz, sx + dx, sy + dy, sz + dz);
    const hitB = b.world.firstHit(hb, sx, sy, sz, sx + dx, sy + dy, sz + dz);
    if (hitA) out.hits++;
    // Per-hit tolerance along the segment: d / |cos| of the angle between segment and normal.
    const tol = (h: WorldHit) => d / Math.max(1e-3, Math.abs(h.nx * dx + h.ny * dy + h.nz * dz) / length);
    if (!hitA && !hitB) { out.agree++; continue; }
    const near = (l: Level, h: WorldHit, hit: boolean) =>
      hit && (edgeDistance(l.mesh, h.triangle, h.x, h.y, h.z) <= tol(h) || Math.min(h.t, 1 - h.t) * length <= tol(h));
    const nearEdge = near(a, ha, hitA) || near(b, hb, hitB);
    if (hitA && hitB && surfaceName(a, ha) === surfaceName(b, hb)) {
      const ratio = Math.hypot(ha.x - hb.x, ha.y - hb.y, ha.z - hb.z) / tol(ha);
      if (ratio <= 1) {
        out.agree++;
        // Across a crease the point may slide further (it is on the neighbour face): not the bound's case.
        if (!nearEdge) out.worstRatio = Math.max(out.worstRatio, ratio);
        continue;
      }
    }
    if (nearEdge) { out.nearEdge++; continue; }
    out.unexplained.push(
      `segment ${i}: original ${hitA ? `${surfaceName(a, ha)} t=${ha.t}` : 'miss'}, compressed ${hitB ? `${surfaceName(b, hb)} t=${hb.t}` : 'miss'}`,
    );
  }
  return out;
}

const ORIGINAL_CACHE = new Map<string, Promise<Level>>();
const original = (name: string) => {
  if (!ORIGINAL_CACHE.has(name)) ORIGINAL_CACHE.set(name, level(assetPath(name)));
  return ORIGINAL_CACHE.get(name)!;
};

describe('compressed and quantized levels', () => {
  for (const kind of ['quantize', 'meshopt', 'draco'] as Compression[]) {
    it(`collision-world.glb, ${kind}: same surfaces, hit points within the quantization error`, async () => {
      const ref = await original('collision-world.glb');
      const path = await compressedCopy(assetPath('collision-world.glb'), kind, dir);
      const got = await level(path);
      expect(got.mesh.indices.length).toBe(ref.mesh.indices.length);
      expect(got.world.surfaces).toEqual(ref.world.surfaces);
      const rep = compare(ref, got, 4000, 7);
      console.log(`${kind} collision-world: ${rep.hits} of ${rep.segments} segments hit, ${rep.agree} agree, ${rep.nearEdge} near an edge, worst ${(100 * rep.worstRatio).toFixed(1)}% of tolerance, step ${(rep.step * 1000).toFixed(2)} mm`);
      expect(rep.unexplained).toEqual([]);
      expect(rep.hits).toBeGreaterThan(2000);
      expect(rep.nearEdge).toBeLessThan(rep.segments * 0.01);
      // Quantization did move the geometry (the comparison is not between identical files).
      expect(rep.worstRatio).toBeGreaterThan(0.01);
    });
  }

  it('bistro-collision.glb, meshopt (gltfpack-style): same surfaces, hit points within the quantization error', async () => {
    const ref = await original('bistro-collision.glb');
    const got = await level(await compressedCopy(assetPath('bistro-collision.glb'), 'meshopt', dir));
    expect(got.world.surfaces).toEqual(ref.world.surfaces);
    const rep = compare(ref, got, 3000, 11);
    console.log(`meshopt bistro: ${rep.hits} of ${rep.segments} segments hit, ${rep.agree} agree, ${rep.nearEdge} near an edge, worst ${(100 * rep.worstRatio).toFixed(1)}% of tolerance, step ${(rep.step * 1000).toFixed(2)} mm`);
    expect(rep.unexplained).toEqual([]);
    expect(rep.hits).toBeGreaterThan(1000);
    expect(rep.nearEdge).toBeLessThan(rep.segments * 0.01);
  });

  it('reads a one-triangle KHR_mesh_quantization file (int16 normalized positions, node scale) exactly', async () => {
    const doc = new Document();
    doc.createExtension(KHRMeshQuantization).setRequired(true);
    const buffer = doc.createBuffer();
    // Normalized int16: 32767 -> 1. The node's scale 4 and translation put the corners at whole metres.
    const pos = doc.createAccessor().setType(Accessor.Type.VEC3).setArray(new Int16Array([0, 0, 0, 32767, 0, 0, 0, 32767, 0])).setNormalized(true).setBuffer(buffer);
    const mesh = doc.createMesh('tri').addPrimitive(doc.createPrimitive().setAttribute('POSITION', pos));
    doc.createScene().addChild(doc.createNode('floor').setMesh(mesh).setScale([4, 4, 4]).setTranslation([1, 2, 3]));
    const path = join(dir, 'quantized-triangle.glb');
    await new NodeIO().registerExtensions([KHRMeshQuantization]).write(path, doc);
    // A reader without the extension refuses it (what levels hit before the extensions were registered).
    await expect(new NodeIO().read(path)).rejects.toThrow(/Missing required extension/);
    const got = await loadLevelMesh(path);
    expect(Array.from(got.positions)).toEqual([1, 2, 3, 5, 2, 3, 1, 6, 3]);
    expect(got.surfaceRanges).toEqual([{ start: 0, count: 1, node: 'floor', material: '' }]);
  });

  it('names an unsupported required extension, and says the file is otherwise readable', async () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const pos = doc.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])).setBuffer(buffer);
    doc.createScene().addChild(doc.createNode('n').setMesh(doc.createMesh().addPrimitive(doc.createPrimitive().setAttribute('POSITION', pos))));
    const { json, resources } = await new NodeIO().writeJSON(doc, { basename: 'custom' });
    json.extensionsUsed = ['EXT_made_up_compression'];
    json.extensionsRequired = ['EXT_made_up_compression'];
    for (const [uri, bytes] of Object.entries(resources)) writeFileSync(join(dir, uri), bytes);
    const path = join(dir, 'custom.gltf');
    writeFileSync(path, JSON.stringify(json));
    const err = await loadLevelMesh(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedGltfExtensionError);
    expect((err as UnsupportedGltfExtensionError).extensions).toEqual(['EXT_made_up_compression']);
    expect((err as Error).message).toMatch(/requires the glTF extension "EXT_made_up_compression"/);
    expect((err as Error).message).toMatch(/The file itself is readable glTF/);
    expect((err as Error).message).toMatch(/supported: .*EXT_meshopt_compression.*KHR_draco_mesh_compression.*KHR_mesh_quantization/);
    // A broken file still gets the "check the path" hint, not the extension one.
    writeFileSync(join(dir, 'broken.glb'), 'not a glb');
    await expect(loadLevelMesh(join(dir, 'broken.glb'))).rejects.toThrow(/could not read level .*Check the path/);
  });
});
