/**
 * `npm run build`: three outputs, each rebuilt only when its sources changed with --if-stale.
 *
 * - dist/server/main.js: the arena server (server/main.ts and everything it imports from server/
 *   and shared/) bundled with esbuild, npm packages left as imports, and dist/server/package.json
 *   naming exactly those packages at the versions installed here (a production host installs them
 *   with `npm --prefix dist/server install --omit=dev`). Plain `node dist/server/main.js` runs it.
 * - dist/lib/: the package (exports ".", "./audit" and "./server" in package.json): ES modules with
 *   source maps and shared chunks (one World class for every entry), .d.ts of all three from
 *   server/build/tsconfig.package.json, and the binary assets (assets/mannequin.hrrg, copied from
 *   server/assets/, assets/collision-world.hrwb with their licence lines; server/build/sharedAssets.ts).
 * - dist/web/: the browser client (web/, Vite), which the server serves at `/`.
 *
 * `import.meta.url` inside a bundled module is rewritten to that module's own source URL (relative
 * to the bundle), so `new URL('../assets/level.glb', import.meta.url)` still finds server/assets/.
 *
 *   node server/build/build.mjs            build
 *   node server/build/build.mjs --if-stale build only when a source file is newer than the bundle
 *
 * Without esbuild (a production install, `npm ci --omit=dev`) it builds nothing and says so: the
 * dist/ built before (by `npm ci` with dev dependencies or `npm run build`) is what `npm start` runs.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outfile = join(root, 'dist', 'server', 'main.js');
const libOut = join(root, 'dist', 'lib');
const webOut = join(root, 'dist', 'web');

/** Newest mtime of the files under `dirs` whose names match `pattern` (and of package.json). */
function newestSourceMs(dirs, pattern = /\.ts$/) {
  let newest = statSync(join(root, 'package.json')).mtimeMs;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'assets' && e.name !== 'node_modules') walk(p);
      } else if (pattern.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const d of dirs) walk(join(root, d));
  return newest;
}

const stale = (output, dirs, pattern) => !existsSync(output) || statSync(output).mtimeMs < newestSourceMs(dirs, pattern);
/** The shipped rig asset (`npm run build:rig` writes it; the package copies it). */
const MANNEQUIN_RIG_ASSET = join(root, 'server', 'assets', 'mannequin.hrrg');
/** True when `output` is missing or older than `input` (a file the source walk skips, such as an asset). */
const newerThan = (input, output) => !existsSync(output) || statSync(output).mtimeMs < statSync(input).mtimeMs;

/** Rewrites import.meta.url in each bundled source module to that module's own URL (relative to `out`). */
const sourceUrlPluginFor = (out) => ({
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      if (contents.includes('import.meta.url')) {
        const rel = relative(dirname(out), args.path).split('\\').join('/');
        contents = contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
      }
      return { contents, loader: 'ts' };
    });
  },
});
const sourceUrlPlugin = sourceUrlPluginFor(outfile);

async function main() {
  const ifStale = process.argv.includes('--if-stale');
  const work = {
    server: !ifStale || stale(outfile, ['server', 'shared']),
    lib: !ifStale || stale(join(libOut, 'server.js'), ['shared', 'server/match', 'server/matchlog']) || newerThan(MANNEQUIN_RIG_ASSET, join(libOut, 'assets', 'mannequin.hrrg')),
    web: !ifStale || stale(join(webOut, 'index.html'), ['web', 'shared'], /\.(ts|html|css)$/),
  };
  if (!work.server && !work.lib && !work.web) return 0;
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    if (existsSync(outfile)) return 0;
    console.error('build: esbuild is not installed (a production install) and dist/ is missing: build on a machine with dev dependencies (`npm ci && npm run build`) and ship dist/ with the checkout');
    return 1;
  }
  const say = (line) => { if (!ifStale || process.stdout.isTTY) console.log(line); };
  if (work.server) await buildServer(esbuild, say);
  if (work.lib) await buildLib(esbuild, say);
  if (work.web) await buildWeb(say);
  return 0;
}

async function buildServer(esbuild, say) {
  const t0 = performance.now();
  const result = await esbuild.build({
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
    metafile: true,
  });
  writeDeployManifest(result.metafile);
  say(`build: ${relative(root, outfile)} in ${Math.round(performance.now() - t0)} ms`);
}

/**
 * dist/server/package.json: the npm packages the server bundle imports, at the versions installed
 * here, so a production host needs only those (`npm --prefix dist/server install --omit=dev`).
 */
function writeDeployManifest(metafile) {
  // Loaded by a computed URL (server/rig/buildRig.ts), so not among the bundle's imports.
  const names = new Set(['quickhull3d']);
  for (const out of Object.values(metafile.outputs)) {
    for (const imp of out.imports) {
      if (!imp.external || imp.path.startsWith('node:') || imp.path.startsWith('.')) continue;
      const parts = imp.path.split('/');
      names.add(imp.path.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
    }
  }
  const dependencies = {};
  for (const name of [...names].sort()) {
    const manifest = join(root, 'node_modules', ...name.split('/'), 'package.json');
    if (!existsSync(manifest)) continue; // a Node built-in without the node: prefix
    dependencies[name] = JSON.parse(readFileSync(manifest, 'utf8')).version;
  }
  const pkg = { name: 'hitreg-arena-server', private: true, type: 'module', description: 'The arena server bundle (npm run build); its runtime packages.', engines: { node: '>=22' }, dependencies };
  writeFileSync(join(dirname(outfile), 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
}

/** Options of the browser bundle of shared/ (also used by test/sharedBundle.test.ts for the size budget). */
export const SHARED_ENTRIES = { index: 'shared/index.ts', audit: 'shared/audit/index.ts' };
/** The package's entries: the browser ones and the server one (Node: it writes match logs). */
export const LIB_ENTRIES = { ...SHARED_ENTRIES, server: 'server/match/index.ts' };
export function sharedBundleOptions(minify) {
  return {
    entryPoints: Object.fromEntries(Object.entries(SHARED_ENTRIES).map(([k, v]) => [k, join(root, v)])),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify,
    tsconfig: join(root, 'shared', 'tsconfig.json'),
    logLevel: 'warning',
  };
}

/**
 * The package: its three entries in one build, so the server entry and the browser ones share their
 * chunks (one World, one Rig, one Verdict class at run time, as in their declarations). Neutral
 * platform: the browser entries import nothing, the server entry imports Node built-ins only.
 */
async function buildLib(esbuild, say) {
  const t0 = performance.now();
  rmSync(libOut, { recursive: true, force: true });
  rmSync(join(root, 'dist', 'shared'), { recursive: true, force: true }); // the layout before dist/lib
  await esbuild.build({
    ...sharedBundleOptions(false),
    entryPoints: Object.fromEntries(Object.entries(LIB_ENTRIES).map(([k, v]) => [k, join(root, v)])),
    platform: 'neutral',
    external: ['node:*'],
    tsconfig: join(root, 'tsconfig.json'),
    outdir: libOut,
    sourcemap: true,
  });
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'server', 'build', 'tsconfig.package.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error('declarations (tsc -p server/build/tsconfig.package.json) failed');
  addDeclarationExtensions(join(libOut, 'types'));
  // The assets script needs the server's glTF loader: bundled for Node and run from a scratch file.
  const scratch = join(root, 'dist', '.assets-build.mjs');
  await esbuild.build({ entryPoints: [join(root, 'server', 'build', 'sharedAssets.ts')], outfile: scratch, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning', plugins: [sourceUrlPluginFor(scratch)] });
  try {
    const { writeSharedAssets } = await import(pathToFileURL(scratch).href);
    const assets = await writeSharedAssets(join(libOut, 'assets'));
    say(`build: dist/lib (rig ${assets.rig.hash} ${assets.rig.bytes} B, world ${assets.world.hash} ${assets.world.bytes} B) in ${Math.round(performance.now() - t0)} ms`);
  } finally {
    rmSync(scratch, { force: true });
  }
}

/**
 * Gives every relative import of the emitted declarations its file (`./match` -> `./match.js`,
 * `./kernels` -> `./kernels/index.js`): a TypeScript project with moduleResolution node16 or
 * nodenext reads ES module declarations only with explicit extensions; bundler resolution reads
 * them either way.
 */
function addDeclarationExtensions(dir) {
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.d.ts')) rewrite(p);
    }
  };
  const rewrite = (file) => {
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/(from\s+|import\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, (all, lead, quote, spec) => {
      if (spec.endsWith('.js')) return all;
      const base = join(dirname(file), spec);
      if (existsSync(`${base}.d.ts`)) return `${lead}${quote}${spec}.js${quote}`;
      if (existsSync(join(base, 'index.d.ts'))) return `${lead}${quote}${spec}/index.js${quote}`;
      throw new Error(`declarations: ${relative(root, file)} imports ${spec}, which names no emitted declaration`);
    });
    if (fixed !== text) writeFileSync(file, fixed);
  };
  walk(dir);
}

async function buildWeb(say) {
  if (!existsSync(join(root, 'web', 'index.html'))) return;
  let vite;
  try {
    vite = await import('vite');
  } catch {
    say('build: vite is not installed; the web client (dist/web) is not built');
    return;
  }
  const t0 = performance.now();
  await vite.build({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'warn' });
  say(`build: dist/web in ${Math.round(performance.now() - t0)} ms`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().then((code) => { process.exitCode = code; }, (e) => {
  console.error(`build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
