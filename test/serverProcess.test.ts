/**
 * `npm start` as an operator runs it, as real processes: it prints where it listens and which
 * Node runs it (22), a SIGTERM or SIGINT to the process `npm start` started stops the whole process
 * tree within 5 s with exit code 0, after every room is finished (the match log ends with its end
 * record); failing to listen, a bad environment variable or an unusable level each end the process
 * with exit code 1 and one line on stderr (no stack); a level with no floor near its centre gets
 * spawn points found over the whole floor, and SPAWN_POINTS gives them where none can be found.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { killAll, nodeServer, npmStart, Proc } from './helpers/process';
import { TestPlayer } from './helpers/server';
import { waitFor } from './helpers/wait';
import { readFrames } from '../shared/matchlog/frame';
import { RecordType } from '../shared/matchlog/records';

const tmp = mkdtempSync(join(tmpdir(), 'hitreg-proc-'));
afterEach(() => killAll());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const listening = (p: Proc) => p.line((o) => o.msg === 'listening', 30_000, 'the listening line');

/** A GLB with one square quad of side `size` centred at (cx, cz): a floor at y = 0, or (wall) standing in the plane z = cz. */
async function quadLevel(name: string, cx: number, cz: number, size: number, wall = false): Promise<string> {
  const doc = new Document();
  const buf = doc.createBuffer();
  const h = size / 2;
  const pos = doc.createAccessor().setType('VEC3').setBuffer(buf).setArray(new Float32Array(wall
    ? [cx - h, 0, cz, cx + h, 0, cz, cx + h, size, cz, cx - h, size, cz]
    : [cx - h, 0, cz - h, cx + h, 0, cz - h, cx + h, 0, cz + h, cx - h, 0, cz + h]));
  const idx = doc.createAccessor().setType('SCALAR').setBuffer(buf).setArray(new Uint32Array([0, 2, 1, 0, 3, 2]));
  const prim = doc.createPrimitive().setAttribute('POSITION', pos).setIndices(idx);
  const node = doc.createNode('floor').setMesh(doc.createMesh('floor').addPrimitive(prim));
  doc.createScene('s').addChild(node);
  const path = join(tmp, name);
  writeFileSync(path, await new NodeIO().writeBinary(doc));
  return path;
}

function matchLogs(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.hrml')).map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** Stderr without npm's own lifecycle notices (npm prints those after a failing script). */
function ownStderr(p: Proc): string[] {
  return p.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('npm '));
}

describe('npm start as a process', () => {
  it('the tests run on Node 22 (node@22 from node_modules/.bin, first on the PATH of npm scripts)', () => {
    console.log(`tests run on Node ${process.version}`);
    expect(process.version).toMatch(/^v22\./);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process stops the tree in under 5 s with exit 0, and the match log is ended`, async () => {
      const dir = join(tmp, `logs-${signal}`);
      const p = npmStart({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: dir, LOG_FORMAT: 'json' });
      const l = await listening(p);
      expect(l.node).toMatch(/^v22\./);
      const player = await TestPlayer.create(String(l.url));
      await player.until(() => player.snapshots.length > 10, 10_000, 'snapshots');
      // The writer opens the log file on its own schedule (its first batch): wait for it, not the snapshots.
      await waitFor(() => matchLogs(dir).length > 0, 'the match log on disk');
      expect(matchLogs(dir)).toHaveLength(1);

      const t0 = performance.now();
      process.kill(p.pid, signal);
      const exit = await p.exitWithin(8000);
      const ms = performance.now() - t0;
      expect(exit.code).toBe(0);
      expect(ms).toBeLessThan(5000);
      // Nothing of the tree is left (npm, the shell if any, node).
      await waitFor(() => !p.groupAlive(), 'the process group gone');
      expect(p.json.some((o) => o.msg === 'stopped')).toBe(true);
      // The room was finished: its log's last record is the end record, nothing torn.
      const [log] = matchLogs(dir);
      const frames = readFrames(new Uint8Array(readFileSync(log!)));
      expect(frames.truncated).toBe(false);
      expect(frames.frames.at(-1)!.type).toBe(RecordType.END);
      expect(frames.frames.filter((f) => f.type === RecordType.TICK).length).toBeGreaterThan(5);
      // The server closed the player's connection on its way out.
      await player.until(() => player.room.connection.isOpen === false, 5000, 'the connection closed');
    });
  }

  it('Ctrl-C at the terminal (SIGINT to the whole group: npm forwards it, so the server hears it twice): the rooms are finished, no "second signal"', async () => {
    const dir = join(tmp, 'logs-ctrl-c');
    const p = npmStart({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: dir, LOG_FORMAT: 'json' });
    const l = await listening(p);
    const player = await TestPlayer.create(String(l.url));
    await player.until(() => player.snapshots.length > 10, 10_000, 'snapshots');
    p.kill('SIGINT');
    const exit = await p.exitWithin(8000);
    expect(exit.code).toBe(0);
    await waitFor(() => !p.groupAlive(), 'the process group gone');
    expect(p.json.some((o) => o.msg === 'stopped')).toBe(true);
    expect(p.json.filter((o) => String(o.msg).startsWith('second signal'))).toEqual([]);
    const [log] = matchLogs(dir);
    const frames = readFrames(new Uint8Array(readFileSync(log!)));
    expect(frames.frames.at(-1)!.type).toBe(RecordType.END);
  });

  it('SIGTERM to the server process npm started: it finishes, npm exits 0 after it', async () => {
    const p = npmStart({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LOG_FORMAT: 'json' });
    const l = await listening(p);
    const serverPid = Number(l.pid);
    expect(serverPid).not.toBe(p.pid);
    process.kill(serverPid, 'SIGTERM');
    const exit = await p.exitWithin(8000);
    expect(exit.code).toBe(0);
    expect(p.groupAlive()).toBe(false);
  });

  it('a --url sim whose server goes away gives up with one line and exit 2', async () => {
    const server = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LOG_FORMAT: 'json' });
    const l = await listening(server);
    const sim = new Proc('node', ['--import', 'tsx', 'client-sim/cli.ts', '--url', String(l.url), '--bots', '2', '--cheaters', '0', '--seconds', '60'], {});
    await server.line((o) => o.msg === 'join' && o.slot === 1, 20_000, 'both bots joined');
    process.kill(server.pid, 'SIGTERM');
    expect((await server.exitWithin(8000)).code).toBe(0);
    const exit = await sim.exitWithin(15_000);
    expect(exit.code).toBe(2);
    expect(sim.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^sim failed: the server at ws:\/\/127\.0\.0\.1:\d+ went away [\d.]+ s into the match \(all 2 connections closed\); no report$/)]);
  });

  it('a port in use ends the process with exit 1 and one line', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const p = npmStart({ PORT: String(port), HOST: '127.0.0.1', MATCH_LOG_DIR: 'off' });
      const exit = await p.exitWithin(20_000);
      expect(exit.code).not.toBe(0);
      const lines = ownStderr(p);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^hitreg: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
      expect(p.groupAlive()).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('HOST that is not an address of this machine: exit 1, one line', async () => {
    const p = nodeServer({ PORT: '0', HOST: '192.0.2.1', MATCH_LOG_DIR: 'off' });
    const exit = await p.exitWithin(20_000);
    expect(exit.code).toBe(1);
    expect(ownStderr(p)).toEqual([expect.stringMatching(/^hitreg: cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address of this machine; set HOST/)]);
  });

  it('a bad variable: exit 1 and one line that says what to give (every variable: test/serverEnv.test.ts)', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ TICK_RATE: 'abc' }, /^hitreg: TICK_RATE="abc" is not valid: give fixed timestep in Hz, an integer 1\.\.128/],
      [{ PORT: '' }, /^hitreg: PORT is set but empty: unset it for the default, or give TCP port/],
      [{ LEVEL: 'README.md' }, /^hitreg: LEVEL="README.md" is not valid: give a \.glb or \.gltf file/],
    ];
    for (const [env, re] of cases) {
      const p = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', ...env });
      const exit = await p.exitWithin(20_000);
      expect(exit.code, JSON.stringify(env)).toBe(1);
      const lines = ownStderr(p);
      expect(lines, JSON.stringify(env)).toHaveLength(1);
      expect(lines[0], JSON.stringify(env)).toMatch(re);
    }
  });

  it('a file named .glb that is not a level: exit 1, one line naming the file', async () => {
    const bogus = join(tmp, 'bogus.glb');
    writeFileSync(bogus, 'not a glb at all');
    const p = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LEVEL: bogus });
    const exit = await p.exitWithin(20_000);
    expect(exit.code).toBe(1);
    const lines = ownStderr(p);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^hitreg: could not read level ".*bogus\.glb"/);
  });

  it('spawn points: found over the floor when the centre is empty; SPAWN_POINTS when there is no floor at all', async () => {
    // A floor 40 m away from the origin: nothing near the centre, the whole-floor search finds it.
    const far = await quadLevel('far-floor.glb', 40, 40, 12);
    const a = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LEVEL: far });
    const la = await listening(a);
    expect(la.spawnPoints).toBe(16);
    process.kill(a.pid, 'SIGTERM');
    expect((await a.exitWithin(8000)).code).toBe(0);

    // A wall and no floor: no spawn point can be found.
    const tiny = await quadLevel('wall-only.glb', 0, 0, 4, true);
    const b = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LEVEL: tiny });
    expect((await b.exitWithin(20_000)).code).toBe(1);
    expect(ownStderr(b)).toEqual([expect.stringMatching(/^hitreg: level .*wall-only\.glb has no open floor .*SPAWN_POINTS="x,y,z;x,y,z"/)]);

    const c = nodeServer({ PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LEVEL: tiny, SPAWN_POINTS: '0,0,0;0.1,0,0.1,-1,0' });
    const lc = await listening(c);
    expect(lc.spawnPoints).toBe(2);
    process.kill(c.pid, 'SIGTERM');
    expect((await c.exitWithin(8000)).code).toBe(0);
  });
});
