/**
 * `npm run build`: bundles the server (server/main.ts and everything it imports from server/ and
 * shared/) into dist/server/main.js with esbuild, npm packages left as imports. Plain
 * `node dist/server/main.js` runs it: the source's extensionless imports are resolved here, once.
 *
 * `import.meta.url` inside a bundled module is rewritten to that module's own source URL (relative
 * to the bundle), so `new URL('../assets/level.glb', import.meta.url)` still finds server/assets/.
 *
 *   node tools/build.mjs            build
 *   node tools/build.mjs --if-stale build only when a source file is newer than the bundle
 *
 * Without esbuild (a production install, `npm ci --omit=dev`) it builds nothing and says so: the
 * dist/ built before (by `npm ci` with dev dependencies or `npm run build`) is what `npm start` runs.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'server', 'main.js');
const sourceDirs = ['server', 'shared'].map((d) => join(root, d));

function newestSourceMs() {
  let newest = statSync(join(root, 'package.json')).mtimeMs;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'assets') walk(p);
      } else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const d of sourceDirs) walk(d);
  return newest;
}

/** Rewrites import.meta.url in each bundled source module to that module's own URL. */
const sourceUrlPlugin = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      if (contents.includes('import.meta.url')) {
        const rel = relative(dirname(outfile), args.path).split('\\').join('/');
        contents = contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
      }
      return { contents, loader: 'ts' };
    });
  },
};

async function main() {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && existsSync(outfile) && statSync(outfile).mtimeMs >= newestSourceMs()) return 0;
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    if (existsSync(outfile)) return 0;
    console.error('build: esbuild is not installed (a production install) and dist/ is missing: build on a machine with dev dependencies (`npm ci && npm run build`) and ship dist/ with the checkout');
    return 1;
  }
  const t0 = performance.now();
  await esbuild.build({
    entryPoints: [join(root, 'server', 'main.ts')],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: true,
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning',
    plugins: [sourceUrlPlugin],
  });
  if (!ifStale || process.stdout.isTTY) console.log(`build: ${relative(root, outfile)} in ${Math.round(performance.now() - t0)} ms`);
  return 0;
}

main().then((code) => { process.exitCode = code; }, (e) => {
  console.error(`build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
