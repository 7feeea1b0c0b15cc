/**
 * Projectile math is bit-identical across JavaScript engines: the projectile golden batch
 * (test/golden/projectileBatch.ts: flights, bounces, catch-up and blasts among rewound players)
 * gives the committed PROJECTILE_GOLDEN_HASH in Node from the sources and from the built browser
 * entry dist/lib/index.js, in Chromium and in SpiderMonkey (gjs, when installed).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import * as api from '../shared/index';
import { MANNEQUIN_RIG_PATH } from '../server/rig/paths';
import { projectileBatch, PROJECTILE_GOLDEN_HASH, type ProjectileGoldenResult } from './golden/projectileBatch';
import { launchChromium } from './helpers/chromium';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist', 'lib');

async function batchModule(): Promise<string> {
  const r = await build({ entryPoints: [join(ROOT, 'test', 'golden', 'projectileBatch.ts')], bundle: true, format: 'esm', platform: 'neutral', write: false, logLevel: 'silent' });
  return r.outputFiles[0]!.text;
}

describe('projectile golden batch', () => {
  it('in Node, from the sources and from the built entry: the committed hash, with every kind of event', async () => {
    const node = projectileBatch(api, new Uint8Array(readFileSync(MANNEQUIN_RIG_PATH)));
    console.log(`projectile batch (node ${process.version}): ${JSON.stringify(node)}`);
    expect(node.playerImpacts).toBeGreaterThan(10);
    expect(node.levelImpacts).toBeGreaterThan(10);
    expect(node.fuses).toBeGreaterThan(10);
    expect(node.bounces).toBeGreaterThan(50);
    expect(node.victims).toBeGreaterThan(20);
    expect(node.shielded).toBeGreaterThan(0);
    expect(node.hash).toBe(PROJECTILE_GOLDEN_HASH);
    const built = await import(join(DIST, 'index.js'));
    expect(projectileBatch(built, new Uint8Array(readFileSync(join(DIST, 'assets', 'mannequin.hrrg')))).hash).toBe(PROJECTILE_GOLDEN_HASH);
  });

  it('the built entry in Chromium gives the committed hash', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const batch = await batchModule();
      await page.route('http://hitreg.test/**', async (route) => {
        const path = new URL(route.request().url()).pathname;
        if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>projectile golden</title>' });
        if (path === '/batch.js') return route.fulfill({ contentType: 'text/javascript', body: batch });
        const file = join(DIST, path);
        if (!file.startsWith(DIST) || !existsSync(file)) return route.fulfill({ status: 404, body: '' });
        return route.fulfill({ contentType: path.endsWith('.js') ? 'text/javascript' : 'application/octet-stream', body: readFileSync(file) });
      });
      await page.goto('http://hitreg.test/');
      const result = (await page.evaluate(`(async () => {
        const api = await import('/index.js');
        const { projectileBatch } = await import('/batch.js');
        const rig = new Uint8Array(await (await fetch('/assets/mannequin.hrrg')).arrayBuffer());
        return projectileBatch(api, rig);
      })()`)) as ProjectileGoldenResult;
      console.log(`projectile batch (Chromium): ${result.hash}`);
      expect(result.hash).toBe(PROJECTILE_GOLDEN_HASH);
    } finally {
      await browser.close();
    }
  });

  const GJS = ['/usr/bin/gjs'].find((p) => existsSync(p));
  it.skipIf(GJS === undefined)('the built entry in gjs gives the committed hash', async () => {
    const dir = join(ROOT, 'dist', '.projectile-gjs');
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, 'batch.js'), await batchModule());
      writeFileSync(join(dir, 'run.js'), [
        `import GLib from 'gi://GLib';`,
        `import * as api from '${pathToFileURL(join(DIST, 'index.js')).href}';`,
        `import { projectileBatch } from './batch.js';`,
        `const [, bytes] = GLib.file_get_contents('${join(DIST, 'assets', 'mannequin.hrrg')}');`,
        `print(JSON.stringify(projectileBatch(api, new Uint8Array(bytes))));`,
      ].join('\n'));
      const out = execFileSync(GJS!, ['-m', join(dir, 'run.js')], { encoding: 'utf8', timeout: 60_000 });
      const result = JSON.parse(out.trim().split('\n').pop()!) as ProjectileGoldenResult;
      console.log(`projectile batch (gjs): ${result.hash}`);
      expect(result.hash).toBe(PROJECTILE_GOLDEN_HASH);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
