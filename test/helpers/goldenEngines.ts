/**
 * Running a golden batch (test/golden/*.ts: a function of the built `hitreg` entry and the rig's
 * bytes that returns a hash) outside Node: the batch bundled as one ES module, and that module run
 * by gjs (SpiderMonkey) against dist/lib. The Chromium runs stay in each test (their pages differ).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
