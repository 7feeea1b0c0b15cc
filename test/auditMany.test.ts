// The audit of a directory of match logs (as the processes of a cluster write them): every log
// audited whole in one of two worker threads, with one summary that equals the sum of auditing each
// log alone; a log cut short (a killed process: no end record) is not a failure, a flipped byte is,
// a file that is no match log is named; the CLI prints a line per log and a --json summary, exit 1
// on a failed log and 2 on a directory without logs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { synthesizeMatch, CheatKind } from '../server/behaviour/synth/synthMatch';
import { auditMatchLog, closeAuditWorkers, ProblemKind } from '../server/behaviour/audit';
import { auditMatchLogs, findMatchLogs } from '../server/behaviour/many';
import { readFrames } from '../shared/matchlog/frame';
import { RecordType } from '../shared/matchlog/records';

const root = mkdtempSync(join(tmpdir(), 'audit-many-'));
const clean = join(root, 'clean');
const mixed = join(root, 'mixed');
const cli = new URL('../server/behaviour/cli.ts', import.meta.url).pathname;

beforeAll(async () => {
  const world = await loadWorld();
  mkdirSync(join(clean, 'machine-b'), { recursive: true });
  mkdirSync(mixed, { recursive: true });
  // Three processes' logs, one in a sub-directory (another machine's share).
  const paths = [join(clean, 'a.hrml'), join(clean, 'b.hrml'), join(clean, 'machine-b', 'c.hrml')];
  for (let i = 0; i < paths.length; i++) {
    await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path: paths[i]!, seed: 10 + i, durationS: 6, cheats: i === 0 ? { 1: CheatKind.AIMBOT } : {} });
  }
  // A killed process's log: cut inside its last shot record, no end record.
  const whole = new Uint8Array(readFileSync(paths[1]!));
  const frames = readFrames(whole).frames;
  const lastShot = frames.filter((f) => f.type === RecordType.SHOT).at(-1)!;
  writeFileSync(join(clean, 'killed.hrml'), whole.subarray(0, lastShot.payloadOffset + 7));
  // Mixed: a copy with one flipped byte inside a shot, and a file that is no match log.
  const flipped = new Uint8Array(readFileSync(paths[0]!));
  const shot = readFrames(flipped).frames.filter((f) => f.type === RecordType.SHOT)[3]!;
  flipped[shot.payloadOffset + 20]! ^= 0x40;
  writeFileSync(join(mixed, 'flipped.hrml'), flipped);
  writeFileSync(join(mixed, 'notes.hrml'), 'not a match log');
  writeFileSync(join(mixed, 'b.hrml'), readFileSync(paths[1]!));
}, 120_000);

afterAll(async () => {
  await closeAuditWorkers();
  rmSync(root, { recursive: true, force: true });
});

describe('audit of a directory of logs', () => {
  it('spreads the logs over worker threads; the summary equals the sum of the logs audited alone', async () => {
    const logs = await findMatchLogs(clean);
    expect(logs.map((p) => p.slice(clean.length + 1))).toEqual(['a.hrml', 'b.hrml', 'killed.hrml', 'machine-b/c.hrml']);
    const seen: string[] = [];
    const m = await auditMatchLogs(logs, { workers: 2, onLog: (o) => void seen.push(o.path) });
    expect(seen.sort()).toEqual(logs);
    expect(m.workers).toBe(2);
    let shots = 0, ticks = 0;
    const flagged: string[] = [];
    for (const p of logs) {
      const r = await auditMatchLog(p);
      shots += r.shots;
      ticks += r.ticks;
      for (const f of r.flagged) flagged.push(`${p}#${f.player}`);
    }
    expect(m.shots).toBe(shots);
    expect(m.ticks).toBe(ticks);
    expect(m.mismatches).toBe(0);
    expect(m.flagged.map((f) => `${f.log}#${f.player}`).sort()).toEqual(flagged.sort());
    expect(flagged).toContain(`${join(clean, 'a.hrml')}#1`);
    // The killed process's log: its cut tail and missing end record are reported, not failed.
    expect(m.problems[ProblemKind.NO_END]).toBe(1);
    expect(m.problems[ProblemKind.TRUNCATED]).toBe(1);
    expect(m.failed).toBe(false);
  });

  it('a flipped byte fails its log, a file that is no match log is named, the other logs still count', async () => {
    const m = await auditMatchLogs(await findMatchLogs(mixed), { workers: 2 });
    expect(m.failedLogs).toEqual([join(mixed, 'flipped.hrml'), join(mixed, 'notes.hrml')]);
    expect(m.unreadable.map((u) => u.path)).toEqual([join(mixed, 'notes.hrml')]);
    expect(m.unreadable[0]!.error.length).toBeGreaterThan(0);
    expect(m.problems[ProblemKind.CORRUPT]).toBe(1);
    expect(m.shots).toBeGreaterThan(0);
    expect(m.failed).toBe(true);
  });

  it('the CLI: a line per log, one --json summary; exit 0 clean, 1 failed, 2 without logs', () => {
    const ok = spawnSync(process.execPath, ['--import', 'tsx', cli, clean, '--json', '--workers', '2'], { encoding: 'utf8' });
    expect(ok.status, ok.stderr + ok.stdout.slice(0, 2000)).toBe(0);
    const lines = ok.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith(clean) && l.includes('.hrml: '))).toHaveLength(4);
    const j = JSON.parse(lines.at(-1)!);
    expect(j).toMatchObject({ logs: 4, mismatches: 0, workers: 2, failed: false });
    const bad = spawnSync(process.execPath, ['--import', 'tsx', cli, mixed, '--json'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/CANNOT AUDIT/);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const none = spawnSync(process.execPath, ['--import', 'tsx', cli, empty], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/holds no match log/);
  });
});
