// The audit end to end on a seeded synthetic match (real movement, real histories, real
// validateShot, real MatchLogRecorder; no sockets): zero mismatches serially and in two workers,
// cheaters flagged and honest players not; tampered logs (a changed verdict, a moved position, a
// changed world hash, a removed shot, a flipped byte) detected and named; a cut log replays its
// prefix and says where it was cut; the CLI's --json last line and --html page.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import type { World } from '../shared/world/world';
import { synthesizeMatch, CheatKind, type SynthMatchResult } from '../server/behaviour/synth/synthMatch';
import { auditMatchLog, closeAuditWorkers, ProblemKind } from '../server/behaviour/audit';
import { htmlFor, jsonSummary, parseArgs } from '../server/behaviour/cli';
import { crc32 } from '../shared/matchlog/crc32';
import { readFrames, type FrameRef } from '../shared/matchlog/frame';
import { RecordType, TICK_HEAD_BYTES, TICK_SLOT_BYTES, decodeHeader, encodeHeader } from '../shared/matchlog/records';
import { createShotInput, readShotInput, readShotRecord } from '../shared/matchlog/shotRecord';
import { createVerdict, VerdictKind, VerdictReason } from '../shared/validate/verdict';
import { SHOT_COLUMNS, ShotCol } from '../shared/audit/replay';

const dir = mkdtempSync(join(tmpdir(), 'audit-'));
let world: World;
let match: SynthMatchResult;
let bytes: Uint8Array;
const CHEATS = { 1: CheatKind.AIMBOT, 2: CheatKind.WALLHACK, 3: CheatKind.BACKTRACK } as const;

beforeAll(async () => {
  world = await loadWorld();
  match = await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path: join(dir, 'match.hrml'), seed: 42, durationS: 45, cheats: CHEATS });
  bytes = new Uint8Array(readFileSync(match.path));
});
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

/** Rewrites the CRC of the frame at `f` after its payload was edited: a tamperer who knows the format. */
function resign(buf: Uint8Array, f: FrameRef): void {
  const crcAt = f.payloadOffset + f.payloadLength;
  new DataView(buf.buffer, buf.byteOffset).setUint32(crcAt, crc32(buf, f.offset + 4, crcAt), true);
}

function shotFrames(buf: Uint8Array) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: { frame: FrameRef; index: number; kind: number; target: number; rewind: number; shooter: number; seq: number }[] = [];
  const input = createShotInput();
  const v = createVerdict();
  let index = 0;
  for (const f of readFrames(buf).frames) {
    if (f.type !== RecordType.SHOT) continue;
    readShotRecord(input, v, view, f.payloadOffset, f.payloadLength);
    out.push({ frame: f, index: index++, kind: v.kind, target: v.target, rewind: v.rewindTimeMs, shooter: input.shooter, seq: v.seq });
  }
  return out;
}

/** Offset of the verdict inside a shot record: it is the last part, of fixed size for a given weapon count. */
/** Where the verdict of shot record `f` starts (after the head, the targets, the shooter state and the payload). */
function verdictOffset(buf: Uint8Array, f: FrameRef): number {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return readShotInput(createShotInput(), view, f.payloadOffset, f.payloadLength);
}

describe('audit of a recorded match', () => {
  it('replays every verdict bit for bit, serially and in two workers, and flags exactly the cheaters', async () => {
    expect(match.shots).toBeGreaterThan(300);
    expect(match.stats.errors).toBe(0);
    const one = await auditMatchLog(match.path, { world, workers: 1 });
    expect(one.problems).toEqual([]);
    expect(one.mismatches).toEqual([]);
    // The synthetic room logs every player's view and inputs: every behaviour measure can be computed.
    expect(one.players.flatMap((p) => p.unavailable)).toEqual([]);
    expect(one.shots).toBe(match.shots);
    expect(one.failed).toBe(false);
    const flagged = one.flagged.map((f) => f.player).sort((a, b) => a - b);
    expect(flagged).toEqual([1, 2, 3]);
    const rules = (p: number) => one.players.find((x) => x.player === p)!.flags.map((f) => f.rule);
    expect(rules(1)).toContain('headshots');
    expect(rules(2)).toContain('reason');
    expect(rules(3)).toContain('overruled-time');
    // Every honest player fired enough to be judged, and none was flagged.
    for (const p of one.players.filter((x) => !(x.player in CHEATS))) {
      expect(p.shots).toBeGreaterThanOrEqual(10);
      expect(p.flags).toEqual([]);
    }

    const two = await auditMatchLog(match.path, { world, workers: 2 });
    expect(two.workers).toBe(2);
    expect(two.mismatches).toEqual([]);
    // The same rows, bit for bit, in the same (log) order.
    expect(two.rows.length).toBe(one.rows.length);
    expect(Buffer.from(two.rows.buffer, two.rows.byteOffset, two.rows.byteLength).equals(Buffer.from(one.rows.buffer, one.rows.byteOffset, one.rows.byteLength))).toBe(true);
    expect(two.flagged).toEqual(one.flagged);
    // Other splits: by shooter, and three ranges (each starting mid-match from its warm-up ticks).
    const bytesOf = (r: Float64Array) => Buffer.from(r.buffer, r.byteOffset, r.byteLength);
    for (const [workers, partition] of [[2, 'shooter'], [3, 'range']] as const) {
      const other = await auditMatchLog(match.path, { world, workers, partition });
      expect(other.mismatches).toEqual([]);
      expect(bytesOf(other.rows).equals(bytesOf(one.rows))).toBe(true);
    }
  });

  it('names a changed verdict: CRC left alone -> corrupt record; CRC recomputed -> replay mismatch on that shot', async () => {
    const shot = shotFrames(bytes).find((s) => s.kind === VerdictKind.HIT)!;
    const at = verdictOffset(bytes, shot.frame);
    // Naive edit: the hit becomes a miss, CRC not updated.
    const naive = bytes.slice();
    naive[at] = VerdictKind.MISS;
    naive[at + 1] = VerdictReason.OK_MISS;
    const a = await auditMatchLog('naive.hrml', { world }, naive);
    expect(a.failed).toBe(true);
    const corrupt = a.problems.filter((p) => p.kind === ProblemKind.CORRUPT);
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0]!.offset).toBe(shot.frame.offset);
    expect(corrupt[0]!.message).toMatch(/\(shot, \d+ bytes\) fails its CRC/);
    // The damaged shot is skipped; the chain through that shooter's seq shows the gap.
    expect(a.shots).toBe(match.shots - 1);

    // Careful edit: the same change with the CRC recomputed: only the replay can tell.
    const careful = naive.slice();
    resign(careful, shot.frame);
    const b = await auditMatchLog('careful.hrml', { world, workers: 2 }, careful);
    expect(b.problems.filter((p) => p.kind === ProblemKind.CORRUPT)).toEqual([]);
    expect(b.mismatches).toHaveLength(1);
    const m = b.mismatches[0]!;
    expect(m.index).toBe(shot.index);
    expect(m.offset).toBe(shot.frame.offset);
    expect(m.shooter).toBe(shot.shooter);
    expect(m.seq).toBe(shot.seq);
    expect(m.fields.map((f) => f.field)).toEqual(expect.arrayContaining(['kind', 'reason']));
    expect(m.fields.find((f) => f.field === 'kind')).toEqual({ field: 'kind', recorded: VerdictKind.MISS, replayed: VerdictKind.HIT });
    expect(b.failed).toBe(true);
  });

  it('names a moved position: a target moved in the ticks a hit was rewound to', async () => {
    const shot = shotFrames(bytes).find((s) => s.kind === VerdictKind.HIT && s.index > 50)!;
    const buf = bytes.slice();
    const view = new DataView(buf.buffer);
    let moved = 0;
    for (const f of readFrames(buf).frames) {
      if (f.type !== RecordType.TICK) continue;
      const t = view.getFloat64(f.payloadOffset + 4, true);
      if (Math.abs(t - shot.rewind) > 40) continue;
      const n = view.getUint16(f.payloadOffset + 12, true);
      for (let i = 0; i < n; i++) {
        const o = f.payloadOffset + TICK_HEAD_BYTES + i * TICK_SLOT_BYTES;
        if (view.getUint16(o, true) !== shot.target) continue;
        view.setFloat64(o + 2, view.getFloat64(o + 2, true) + 3, true); // x += 3 m
        moved++;
      }
      resign(buf, f);
    }
    expect(moved).toBeGreaterThanOrEqual(2);
    const r = await auditMatchLog('moved.hrml', { world }, buf);
    expect(r.problems.filter((p) => p.kind === ProblemKind.CORRUPT)).toEqual([]);
    const m = r.mismatches.find((x) => x.index === shot.index);
    expect(m, 'the hit on the moved target no longer replays').toBeDefined();
    expect(m!.fields.some((f) => ['kind', 'reason', 't', 'x', 'target', 'zone'].includes(f.field))).toBe(true);
    expect(r.failed).toBe(true);
  });

  it('names a changed world hash in the header', async () => {
    const frames = readFrames(bytes).frames;
    const hf = frames[0]!;
    expect(hf.type).toBe(RecordType.HEADER);
    const header = decodeHeader<Record<string, unknown>>(bytes.subarray(hf.payloadOffset, hf.payloadOffset + hf.payloadLength));
    const forged = String(header.worldHash).replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const payload = encodeHeader({ ...header, worldHash: forged });
    expect(payload.length).toBe(hf.payloadLength); // same length: the rest of the file is untouched
    const buf = bytes.slice();
    buf.set(payload, hf.payloadOffset);
    resign(buf, hf);
    const r = await auditMatchLog('hash.hrml', { world }, buf);
    const p = r.problems.find((x) => x.kind === ProblemKind.WORLD_HASH);
    expect(p?.message).toContain(forged);
    expect(p?.message).toContain(world.hash);
    expect(r.failed).toBe(true);
  });

  it('names a removed shot: the shooter\'s seq chain and the end record disagree', async () => {
    const shots = shotFrames(bytes);
    const victim = shots[Math.floor(shots.length / 2)]!;
    const next = shots.slice(victim.index + 1).find((s) => s.shooter === victim.shooter)!;
    const f = victim.frame;
    const end = f.payloadOffset + f.payloadLength + 4;
    const buf = new Uint8Array(bytes.length - (end - f.offset));
    buf.set(bytes.subarray(0, f.offset));
    buf.set(bytes.subarray(end), f.offset);
    const r = await auditMatchLog('removed.hrml', { world }, buf);
    expect(r.mismatches.some((m) => m.seq === next.seq && m.shooter === next.shooter && m.fields.some((x) => x.field.startsWith('before.lastSeq')))).toBe(true);
    expect(r.problems.some((p) => p.kind === ProblemKind.BAD_RECORD && /end record counts/.test(p.message))).toBe(true);
  });

  it('a log cut in the middle of a record replays its complete prefix and says where it was cut', async () => {
    const shots = shotFrames(bytes);
    const cutShot = shots[Math.floor(shots.length * 0.6)]!;
    const cut = cutShot.frame.payloadOffset + 17; // inside that shot record
    const r = await auditMatchLog('cut.hrml', { world, workers: 2 }, bytes.slice(0, cut));
    expect(r.frames.truncated).toBe(true);
    expect(r.frames.truncatedAt).toBe(cutShot.frame.offset);
    const t = r.problems.find((p) => p.kind === ProblemKind.TRUNCATED)!;
    expect(t.offset).toBe(cutShot.frame.offset);
    expect(t.message).toMatch(/cut at byte/);
    expect(r.problems.some((p) => p.kind === ProblemKind.NO_END)).toBe(true);
    expect(r.shots).toBe(cutShot.index);
    expect(r.mismatches).toEqual([]);
    expect(r.failed).toBe(false);
  });

  it('writes a self-contained HTML report and the --json summary', async () => {
    const r = await auditMatchLog(match.path, { world });
    const html = htmlFor(r);
    expect(html).toMatch(/^<!doctype html>/);
    // Self-contained: no script, nothing loaded; links only to places in the page itself.
    expect(html).not.toMatch(/<script|src=|href="(?!#)/);
    expect((html.match(/<svg /g) ?? []).length).toBe(3);
    expect(html).toContain('class="map"');
    expect(html).toContain('<circle'); // bullet holes
    for (const p of r.players) expect(html).toContain(`<td>${p.player}</td>`);
    const j = jsonSummary(r);
    expect(j).toMatchObject({ shots: match.shots, mismatches: 0 });
    expect((j.flagged as { player: number }[]).map((f) => f.player)).toEqual([1, 2, 3]);
    // Hit rows carry a deciding point; the columns stay within the row stride.
    const hits = Array.from({ length: r.shots }, (_, i) => r.rows[i * SHOT_COLUMNS + ShotCol.KIND]).filter((k) => k === VerdictKind.HIT).length;
    expect(hits).toBe(match.hits);
  });

  it('the CLI prints the summary and ends with one JSON line; exit code 1 on tampering, 2 on a non-log', () => {
    const cli = new URL('../server/behaviour/cli.ts', import.meta.url).pathname;
    const html = join(dir, 'report.html');
    const ok = spawnSync(process.execPath, ['--import', 'tsx', cli, match.path, '--json', '--workers', '2', '--html', html], { encoding: 'utf8' });
    expect(ok.status, ok.stderr + ok.stdout.slice(0, 2000)).toBe(0);
    const last = ok.stdout.trim().split('\n').pop()!;
    const j = JSON.parse(last);
    expect(j).toMatchObject({ shots: match.shots, mismatches: 0, workers: 2 });
    expect(j.shotsPerSecond).toBeGreaterThan(0);
    expect(j.flagged.map((f: { player: number }) => f.player)).toEqual([1, 2, 3]);
    expect(j.flagged[0].reasons.length).toBeGreaterThan(0);
    expect(readFileSync(html, 'utf8')).toContain('<svg');

    const bad = join(dir, 'bad.hrml');
    const buf = bytes.slice();
    const shot = shotFrames(buf).find((s) => s.kind === VerdictKind.HIT)!;
    buf[verdictOffset(buf, shot.frame) + 1] = VerdictReason.OCCLUDED;
    resign(buf, shot.frame);
    writeFileSync(bad, buf);
    const tampered = spawnSync(process.execPath, ['--import', 'tsx', cli, bad, '--json'], { encoding: 'utf8' });
    expect(tampered.status).toBe(1);
    expect(tampered.stdout).toMatch(/MISMATCHES/);
    expect(JSON.parse(tampered.stdout.trim().split('\n').pop()!).mismatches).toBe(1);

    const notLog = join(dir, 'not.hrml');
    writeFileSync(notLog, 'hello, this is not a match log');
    const refused = spawnSync(process.execPath, ['--import', 'tsx', cli, notLog], { encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/not a match log/);

    // Unusable arguments are exit 2 with one line, never a crash with 1 (the code for mismatches).
    const noDir = spawnSync(process.execPath, ['--import', 'tsx', cli, match.path, '--html', join(dir, 'no', 'such', 'dir', 'r.html')], { encoding: 'utf8' });
    expect(noDir.status).toBe(2);
    expect(noDir.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^audit: cannot write the report to .*r\.html \(ENOENT\): give --html a path in a writable directory$/)]);
    const badFlag = spawnSync(process.execPath, ['--import', 'tsx', cli, match.path, '--html'], { encoding: 'utf8' });
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toMatch(/^--html needs a value\. usage:/);
  });

  it('thresholds are options: raising one silences its rule, and the CLI parses and checks them', async () => {
    const strict = await auditMatchLog(match.path, { world });
    expect(strict.players.find((p) => p.player === 1)!.flags.map((f) => f.rule)).toContain('headshots');
    const lenient = await auditMatchLog(match.path, { world, thresholds: { maxHeadshotRatio: 1, snapDegPerS: 1e9 } });
    const rules = lenient.players.find((p) => p.player === 1)!.flags.map((f) => f.rule);
    expect(rules).not.toContain('headshots');
    expect(rules).not.toContain('aim-snap');
    expect(lenient.mismatches).toEqual([]);

    expect(parseArgs(['m.hrml', '--json', '--workers', '3', '--html', 'r.html', '--threshold', 'maxHeadshotRatio=0.8'])).toMatchObject({
      log: 'm.hrml', json: true, workers: 3, html: 'r.html', thresholds: { maxHeadshotRatio: 0.8 },
    });
    expect(() => parseArgs([])).toThrow(/no log given/);
    expect(() => parseArgs(['a', '--workers', '0'])).toThrow(/1\.\.64/);
    expect(() => parseArgs(['a', '--threshold', 'nope=1'])).toThrow(/names: minShots/);
    expect(() => parseArgs(['a', '--frobnicate'])).toThrow(/unknown option/);
    expect(() => parseArgs(['a', 'b'])).toThrow(/one log at a time/);
  });
});
