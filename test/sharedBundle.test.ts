/**
 * The package's browser entry: it bundles for the browser from shared/ alone (no Node built-in, no
 * npm package, no server code), its minified gzip size stays within the budget, the built
 * dist/lib/ holds what package.json's exports name, and the binary assets load. Prints the
 * measured sizes (raw, minified, gzip) as one JSON line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { build, type Metafile } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without declarations
import { sharedBundleOptions } from '../server/build/build.mjs';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { rigFromBuffer } from '../shared/rig/rigBinary';
import { World } from '../shared/world/world';
import { loadWorld } from '../server/level/gltf';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Gzip budget of the "." entry (with its chunks), minified, bytes; raise it only on purpose. Measured
 * 33,433 B, then 36,864 B with the BVH build's WebAssembly kernel (2.2 KB of module bytes and its
 * loader), then 41,379 B with a predicting client for any schema (snapshot readers, the weapon state,
 * the shot predictor), the shot object codec and the match scene, then 48,004 B with every hit along
 * a segment (the world's traversal and the rewinder's), spread patterns, pellets and penetration
 * (48,426 B later), then 57,036 B with volume queries on rewound players (swept spheres, sphere,
 * capsule and box overlaps: the hull queries, the closest-point kernels, their records), then
 * 60,043 B with projectiles (flight, catch-up, explosions: 3.0 KB), then 60,804 B with the knife's
 * thick swing (melee.ts, the scene's volume queries), then 62,319 B with the launch verdict and the
 * flights a match keeps (ProjectileFlights, which a predicting client flies too), then 63,538 B with
 * the client's copies of projectiles (its own launches predicted, confirmed from the verdict's start
 * and dropped at the server's end; the synced ones re-flown), then 64,469 B (the stream floor, the
 * eye path's stamps, trades), then 64,590 B with the fire lag bound growing with the round trip;
 * 64.5 KiB leaves a little more.
 */
export const SHARED_GZIP_BUDGET = 64.5 * 1024;

async function bundle(minify: boolean): Promise<{ files: Map<string, Uint8Array>; meta: Metafile }> {
  const r = await build({ ...sharedBundleOptions(minify), outdir: join(ROOT, 'dist', '.bundle-test'), write: false, metafile: true });
  const files = new Map<string, Uint8Array>();
  for (const f of r.outputFiles!) files.set(relative(join(ROOT, 'dist', '.bundle-test'), f.path), f.contents);
  return { files, meta: r.metafile! };
}

/** Bytes of an entry plus every chunk it imports, by output name. */
function entryBytes(files: Map<string, Uint8Array>, meta: Metafile, entry: string): Uint8Array[] {
  const outputs = meta.outputs;
  const key = Object.keys(outputs).find((k) => k.endsWith(`/${entry}`))!;
  const seen = new Set<string>();
  const walk = (k: string): void => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const imp of outputs[k]!.imports) if (imp.kind === 'import-statement') walk(imp.path);
  };
  walk(key);
  return [...seen].map((k) => files.get(k.split('/').pop()!)!);
}

describe('shared browser entry', () => {
  it('bundles for the browser from shared/ alone, within the gzip budget', async () => {
    const { files, meta } = await bundle(true);
    const inputs = Object.keys(meta.inputs);
    const foreign = inputs.filter((p) => !p.startsWith('shared/'));
    expect(foreign).toEqual([]);
    for (const out of Object.values(meta.outputs)) {
      for (const imp of out.imports) expect(imp.external, `${imp.path} imported from the bundle`).toBeFalsy();
    }
    // The rig is an asset, not code.
    expect(inputs).not.toContain('shared/rig/mannequinData.ts');
    const index = entryBytes(files, meta, 'index.js');
    const min = index.reduce((n, b) => n + b.length, 0);
    const gz = gzipSync(Buffer.concat(index), { level: 9 }).length;
    const plain = await bundle(false);
    const rawParts = entryBytes(plain.files, plain.meta, 'index.js');
    const raw = rawParts.reduce((n, b) => n + b.length, 0);
    const rawGz = gzipSync(Buffer.concat(rawParts), { level: 9 }).length;
    const audit = entryBytes(files, meta, 'audit.js');
    const auditGz = gzipSync(Buffer.concat(audit), { level: 9 }).length;
    console.log(JSON.stringify({ entry: 'hitreg', rawBytes: raw, rawGzipBytes: rawGz, minifiedBytes: min, gzipBytes: gz, budgetGzipBytes: SHARED_GZIP_BUDGET, auditEntryGzipBytes: auditGz }));
    expect(gz).toBeLessThanOrEqual(SHARED_GZIP_BUDGET);
  });

  it('a Node built-in anywhere under the entry fails the browser bundle', async () => {
    const r = build({
      stdin: { contents: `import { readFileSync } from 'node:fs'; export * from './shared/index'; export { readFileSync };`, resolveDir: ROOT, loader: 'ts' },
      bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent',
    });
    await expect(r).rejects.toThrow(/node:fs/);
  });

  it('dist/lib holds every path package.json exports, and the assets load with their hashes', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
    for (const [key, target] of Object.entries(pkg.exports)) {
      for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
        expect(existsSync(join(ROOT, file)), `${key} -> ${file}`).toBe(true);
      }
    }
    const rig = rigFromBuffer(readFileSync(join(ROOT, 'dist', 'lib', 'assets', 'mannequin.hrrg')), MANNEQUIN_RIG.hash);
    expect(rig.hash).toBe(MANNEQUIN_RIG.hash);
    expect(rig.triangles).toEqual(MANNEQUIN_RIG.triangles);
    expect(rig.frames).toEqual(MANNEQUIN_RIG.frames);
    const world = World.fromBuffer(readFileSync(join(ROOT, 'dist', 'lib', 'assets', 'collision-world.hrwb')));
    expect(world.hash).toBe((await loadWorld()).hash);
    const api = await import(join(ROOT, 'dist', 'lib', 'index.js'));
    expect(typeof api.validateShot).toBe('function');
    expect(api.MANNEQUIN_RIG).toBeUndefined();
  });
});
