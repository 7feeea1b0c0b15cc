/**
 * Running a golden batch (test/golden/*.ts: a function of the built `hitreg` entry and the rig's
 * bytes that returns a hash) outside Node: the batch bundled as one ES module, and that module run
 * by gjs (SpiderMonkey) against dist/lib; for Chromium, a page that serves the batch and dist/lib.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DIST = join(ROOT, 'dist', 'lib');
/** gjs when the machine has it (Debian package gjs), else undefined. */
export const GJS = ['/usr/bin/gjs'].find((p) => existsSync(p));

/** test/golden/`file` bundled as one ES module (no imports left), as text. */
export async function batchModule(file: string): Promise<string> {
  const r = await build({ entryPoints: [join(ROOT, 'test', 'golden', file)], bundle: true, format: 'esm', platform: 'neutral', write: false, logLevel: 'silent' });
  return r.outputFiles[0]!.text;
}

/** Runs export `fn` of test/golden/`file` in gjs against the built entry and the rig; its JSON result. */
export async function runBatchInGjs<T>(file: string, fn: string): Promise<T> {
  const dir = join(ROOT, 'dist', `.gjs-${fn}`);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, 'batch.js'), await batchModule(file));
    writeFileSync(join(dir, 'run.js'), [
      `import GLib from 'gi://GLib';`,
      `import * as api from '${pathToFileURL(join(DIST, 'index.js')).href}';`,
      `import { ${fn} } from './batch.js';`,
      `const [, bytes] = GLib.file_get_contents('${join(DIST, 'assets', 'mannequin.hrrg')}');`,
      `print(JSON.stringify(${fn}(api, new Uint8Array(bytes))));`,
    ].join('\n'));
    const out = execFileSync(GJS!, ['-m', join(dir, 'run.js')], { encoding: 'utf8', timeout: 60_000 });
    return JSON.parse(out.trim().split('\n').pop()!) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Opens http://hitreg.test/ in `page`, serving test/golden/`file` bundled at /batch.js and dist/lib
 * beneath it; then `page.evaluate` can import both.
 */
export async function serveBatch(page: Page, file: string): Promise<void> {
  const batch = await batchModule(file);
  await page.route('http://hitreg.test/**', async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>golden</title>' });
    if (path === '/batch.js') return route.fulfill({ contentType: 'text/javascript', body: batch });
    const f = join(DIST, path);
    if (!f.startsWith(DIST) || !existsSync(f)) return route.fulfill({ status: 404, body: '' });
    return route.fulfill({ contentType: path.endsWith('.js') ? 'text/javascript' : 'application/octet-stream', body: readFileSync(f) });
  });
  await page.goto('http://hitreg.test/');
}
