/**
 * The package as a studio gets it: `npm pack` (which builds dist/lib first), the tarball installed
 * into a fresh project with no network, its three entries type-checked under both module
 * resolutions a TypeScript project uses (bundler, nodenext) and run: a match built from the
 * packaged assets judges an object shot and writes a log that hitreg/audit verifies. The tarball
 * holds the built entries and nothing of the arena, and installs nothing else.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const dir = mkdtempSync(join(tmpdir(), 'hitreg-pack-'));
let tarball = '';

/** A game's server script using all three entries (typed; run with tsx). */
const GAME = `
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { World, rigFromBuffer, createShotMessage, reasonName, type Verdict } from 'hitreg';
import { HitregMatch, MatchLogRecorder, type PoseInput } from 'hitreg/server';
import { verifyMatchLog } from 'hitreg/audit';

const asset = (name: string) => readFileSync(fileURLToPath(import.meta.resolve('hitreg/assets/' + name)));
const world = World.fromBuffer(asset('collision-world.hrwb'));
const rig = rigFromBuffer(asset('mannequin.hrrg'));
const path = join(mkdtempSync(join(tmpdir(), 'game-')), 'match.hrml');
let t = 0;
const bodies: Record<string, { x: number; y: number; z: number }> = { a: { x: 0, y: -1.745, z: 0 }, b: { x: 0, y: -1.745, z: 6 } };
const match = new HitregMatch<string>({
  world, rig, tickRate: 30, maxPlayers: 2, clock: () => t, recorder: new MatchLogRecorder({ path }),
  poses: (id: string, out: PoseInput) => { const p = bodies[id]!; out.x = p.x; out.y = p.y; out.z = p.z; out.viewX = 0; out.viewY = 0; out.viewZ = id === 'a' ? 1 : -1; },
});
match.join('a');
match.join('b');
for (let i = 0; i < 30; i++) { t += 1000 / 30; match.tick(); }
const eye = -1.745 + rig.eyeHeight;
const out = match.shot('a', { seq: 1, weapon: 0, timeMs: t - 20, renderTimeMs: t - 120, start: [0, eye, 0], end: [0, eye - 0.3, 10], target: 'b' });
const v: Verdict = out.verdict;
await match.close();
const audit = verifyMatchLog(new Uint8Array(readFileSync(path)), world, rig);
console.log(JSON.stringify({ reason: reasonName(v.reason), target: out.target, health: match.player('b')!.health, shots: audit.shots, mismatches: audit.mismatches.length, problems: audit.problems, frame: createShotMessage().version }));
`;

beforeAll(() => {
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fresh-game', private: true, type: 'module', dependencies: { hitreg: `file:./${tarball}` } }));
  // No network: the tarball alone must install.
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  writeFileSync(join(dir, 'game.ts'), GAME);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed tarball in a fresh project', () => {
  it('holds the built entries and their assets, nothing of the arena, and installs no other package', () => {
    const files = execFileSync('tar', ['tzf', join(dir, tarball)], { encoding: 'utf8' }).trim().split('\n');
    for (const f of ['package/dist/lib/index.js', 'package/dist/lib/audit.js', 'package/dist/lib/server.js', 'package/dist/lib/types/server/match/index.d.ts', 'package/dist/lib/assets/mannequin.hrrg', 'package/dist/lib/assets/README.md']) expect(files).toContain(f);
    expect(files.filter((f) => /server\/arena|client-sim|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(readdirSync(join(dir, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual(['hitreg']);
    const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', 'hitreg', 'package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    // One copy of the shared code at run time: the server entry imports the chunks the browser entry does.
    const server = readFileSync(join(dir, 'node_modules', 'hitreg', 'dist', 'lib', 'server.js'), 'utf8');
    expect(server).not.toMatch(/class World\b/);
  });

  for (const resolution of ['bundler', 'nodenext'] as const) {
    it(`type-checks a game using hitreg, hitreg/server and hitreg/audit (moduleResolution ${resolution})`, () => {
      const module = resolution === 'bundler' ? 'ESNext' : 'NodeNext';
      writeFileSync(join(dir, `tsconfig.${resolution}.json`), JSON.stringify({
        compilerOptions: { target: 'ES2022', module, moduleResolution: resolution, strict: true, noEmit: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
        include: ['game.ts'],
      }));
      const r = spawnSync(join(BIN, 'tsc'), ['-p', `tsconfig.${resolution}.json`], { cwd: dir, encoding: 'utf8' });
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    });
  }

  it('runs: a match from the packaged assets judges an object shot, and its log verifies', () => {
    const r = spawnSync(join(BIN, 'tsx'), ['game.ts'], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out).toEqual({ reason: 'OK_HIT', target: 'b', health: expect.any(Number), shots: 1, mismatches: 0, problems: [], frame: 2 });
    expect(out.health).toBeLessThan(100);
  });
});
