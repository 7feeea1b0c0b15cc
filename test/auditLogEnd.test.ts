// Where and why a match log ends (shared/audit/logEnd.ts), held against a second reading: a seeded
// synthetic match's log cut at many byte offsets (on record boundaries, inside a record's head,
// payload and CRC) says where its records stop, how many there are, the last tick's time and how
// much of the cut record it holds exactly as the record boundaries of the whole log, walked here
// from their length fields, say. The audit of a cut log replays every complete record before the
// cut (its verdicts bit for bit) and names the cut; a log ended by the writer's note says how many
// records it could not write and why, in the result, the problems, the CLI's lines, its --json and
// the HTML report.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import type { World } from '../shared/world/world';
import { synthesizeMatch } from '../server/behaviour/synth/synthMatch';
import { auditMatchLog, closeAuditWorkers, ProblemKind } from '../server/behaviour/audit';
import { htmlFor, jsonSummary, summaryLines } from '../server/behaviour/cli';
import { appendNote, FrameBuffer, FRAME_OVERHEAD, PREAMBLE_BYTES, readFrames, type WriterNote } from '../shared/matchlog/frame';
import { RecordType, TICK_TIME_AT } from '../shared/matchlog/records';
import { describeLogEnd, EndWhy } from '../shared/audit/logEnd';
import { crc32 } from '../shared/matchlog/crc32';

const dir = mkdtempSync(join(tmpdir(), 'audit-end-'));
let world: World;
let whole: Uint8Array;
/** The whole log's records as walked from their length fields: offset, type, size (framing included). */
let records: { offset: number; type: number; size: number }[];

beforeAll(async () => {
  world = await loadWorld();
  const path = join(dir, 'match.hrml');
  await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path, seed: 5, players: 6, durationS: 8 });
  whole = new Uint8Array(readFileSync(path));
  const view = new DataView(whole.buffer, whole.byteOffset, whole.byteLength);
  records = [];
  for (let at = PREAMBLE_BYTES; at < whole.length;) {
    const size = FRAME_OVERHEAD + view.getUint32(at, true);
    records.push({ offset: at, type: whole[at + 4]!, size });
    at += size;
  }
});
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

/** What the boundaries say of the log cut to its first `cut` bytes: records whole before it, their last tick, the cut record. */
function expected(cut: number) {
  const view = new DataView(whole.buffer, whole.byteOffset, whole.byteLength);
  let n = 0, lastTimeMs = Number.NaN;
  while (n < records.length && records[n]!.offset + records[n]!.size <= cut) {
    const r = records[n]!;
    if (r.type === RecordType.TICK) lastTimeMs = view.getFloat64(r.offset + 5 + TICK_TIME_AT, true);
    n++;
  }
  const atByte = n < records.length ? records[n]!.offset : whole.length;
  const held = cut - atByte;
  return { n, atByte, lastTimeMs, held, promised: held >= 5 ? records[n]!.size : Number.NaN };
}

/** The log's first `cut` bytes, ended by the writer's note. */
function withNote(cut: number, note: WriterNote): Uint8Array {
  const fb = new FrameBuffer(256);
  appendNote(fb, note);
  const tail = fb.take();
  const out = new Uint8Array(cut + tail.length);
  out.set(whole.subarray(0, cut));
  out.set(tail, cut);
  return out;
}

describe('where and why a log ends', () => {
  it('the whole log is closed by its end record', () => {
    expect(readFrames(whole).frames.map((f) => f.offset)).toEqual(records.map((r) => r.offset));
    const e = describeLogEnd(whole, readFrames(whole));
    expect(e).toMatchObject({ complete: true, why: EndWhy.CLOSED, atByte: whole.length, fileBytes: whole.length, records: records.length, cut: null, note: null });
    expect(e.lastTimeMs).toBe(expected(whole.length).lastTimeMs);
    expect(records.at(-1)!.type).toBe(RecordType.END);
  });

  it('cut at any of many offsets, it says where its records stop and why, as the record boundaries do', () => {
    const types = new Set<number>();
    let checked = 0;
    for (let i = 0; i < records.length - 1; i += Math.max(1, Math.floor(records.length / 60))) {
      const r = records[i]!;
      types.add(r.type);
      // On the boundary, inside the head (1 and 4 bytes), just past it, mid-payload, inside the CRC.
      for (const cut of [r.offset, r.offset + 1, r.offset + 4, r.offset + 5, r.offset + (r.size >> 1), r.offset + r.size - 1]) {
        const bytes = whole.slice(0, cut);
        const e = describeLogEnd(bytes, readFrames(bytes));
        const x = expected(cut);
        expect(e.atByte, `cut ${cut}`).toBe(x.atByte);
        expect(e.records, `cut ${cut}`).toBe(x.n);
        expect(e.lastTimeMs, `cut ${cut}`).toBe(x.lastTimeMs);
        expect(e.fileBytes).toBe(cut);
        expect(e.complete).toBe(false);
        if (x.held === 0) {
          expect(e.why, `cut ${cut}`).toBe(EndWhy.NO_END_RECORD);
          expect(e.cut).toBeNull();
          expect(e.detail).toMatch(new RegExp(`^ends between records at byte ${cut} with no end record`));
        } else {
          expect(e.why, `cut ${cut}`).toBe(EndWhy.PARTIAL_RECORD);
          expect(e.cut).toEqual({ bytes: x.held, promised: x.promised });
          expect(e.detail).toMatch(new RegExp(`^ends inside a record at byte ${x.atByte}: the file holds ${x.held} of its`));
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect([...types].sort()).toEqual([RecordType.HEADER, RecordType.TICK, RecordType.SHOT, RecordType.EVENT].sort());
  });

  it('a last record whose bytes are all there but wrong is a damaged record, not a cut one', () => {
    const r = records[Math.floor(records.length / 2)]!;
    const bytes = whole.slice(0, r.offset + r.size);
    bytes[r.offset + 7]! ^= 0x10;
    const e = describeLogEnd(bytes, readFrames(bytes));
    expect(e).toMatchObject({ why: EndWhy.DAMAGED_RECORD, atByte: r.offset, records: expected(r.offset).n, cut: { bytes: r.size, promised: r.size } });
  });

  it('a cut log is audited up to the cut: its complete shots replay bit for bit, the cut and the missing end are named', async () => {
    const shots = records.filter((r) => r.type === RecordType.SHOT);
    const inside = shots[Math.floor(shots.length / 3)]!;
    const between = shots[Math.floor((2 * shots.length) / 3)]!;
    for (const [cut, why] of [[inside.offset + 40, EndWhy.PARTIAL_RECORD], [between.offset, EndWhy.NO_END_RECORD], [inside.offset + 3, EndWhy.PARTIAL_RECORD]] as const) {
      const r = await auditMatchLog(`cut-${cut}.hrml`, { world, measures: false }, whole.slice(0, cut));
      const x = expected(cut);
      expect(r.ends).toMatchObject({ complete: false, why, atByte: x.atByte, records: x.n });
      expect(r.shots).toBe(records.slice(0, x.n).filter((f) => f.type === RecordType.SHOT).length);
      expect(r.shots).toBeGreaterThan(10);
      expect(r.mismatches).toEqual([]);
      expect(r.failed).toBe(false);
      const kinds = r.problems.map((p) => p.kind);
      expect(kinds).toContain(ProblemKind.NO_END);
      if (why === EndWhy.PARTIAL_RECORD) {
        const t = r.problems.find((p) => p.kind === ProblemKind.TRUNCATED)!;
        expect(t.offset).toBe(x.atByte);
        expect(t.message).toMatch(new RegExp(`cut at byte ${x.atByte} of ${cut}, inside a record \\(short-(header|payload)\\): replayed the ${x.n} complete records`));
      } else expect(kinds).not.toContain(ProblemKind.TRUNCATED);
      expect(summaryLines(r)[1]).toMatch(new RegExp(`^log ENDS EARLY \\(${why}\\) at byte ${x.atByte} of ${cut}`));
      expect(jsonSummary(r).ends).toMatchObject({ complete: false, why, atByte: x.atByte, records: x.n });
    }
  });

  it('a log ended by the writer\'s note says what was not written and why: result, problems, CLI lines, --json, HTML', async () => {
    const shots = records.filter((r) => r.type === RecordType.SHOT);
    const at = shots[Math.floor(shots.length / 2)]!.offset;
    const note: WriterNote = { unwrittenRecords: 321, unwrittenBytes: 123_456, droppedRecords: 0, droppedBytes: 0, reason: 'write: ENOSPC: no space left on device, write' };
    const bytes = withNote(at, note);
    const path = join(dir, 'noted.hrml');
    writeFileSync(path, bytes);
    const r = await auditMatchLog(path, { world, measures: false });
    const x = expected(at);
    expect(r.ends).toMatchObject({ complete: false, why: EndWhy.WRITER_NOTE, atByte: at, fileBytes: bytes.length, records: x.n, lastTimeMs: x.lastTimeMs, note });
    expect(r.frames.truncated).toBe(false);
    expect(r.mismatches).toEqual([]);
    expect(r.failed).toBe(false);
    expect(r.problems.map((p) => p.kind)).toEqual([ProblemKind.UNWRITTEN]);
    expect(r.problems[0]!.message).toMatch(/could not write the last 321 records \(123456 bytes\): write: ENOSPC/);
    expect(htmlFor(r)).toMatch(/This log ends early:<\/b> writer-note at byte \d+ of \d+: the log ends at byte \d+ with the writer&#39;s note/);
    // The CLI as a reviewer runs it.
    const cli = new URL('../server/behaviour/cli.ts', import.meta.url).pathname;
    const out = spawnSync(process.execPath, ['--import', 'tsx', cli, path, '--json', '--verdicts-only'], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`^log ENDS EARLY \\(writer-note\\) at byte ${at} of ${bytes.length}: it ends at byte ${at} with the writer's note: it could not write the last 321 records`, 'm'));
    const j = JSON.parse(out.stdout.trim().split('\n').pop()!);
    expect(j.ends).toMatchObject({ complete: false, why: 'writer-note', atByte: at, records: x.n, note });

    // A note of the wrong size is a record that does not decode: the audit fails on it.
    const bad = withNote(at, { ...note, reason: 'x' });
    const noteAt = readFrames(bad).frames.at(-1)!;
    new DataView(bad.buffer).setUint16(noteAt.payloadOffset + 24, 7, true);
    new DataView(bad.buffer).setUint32(noteAt.payloadOffset + noteAt.payloadLength, crc32(bad, noteAt.offset + 4, noteAt.payloadOffset + noteAt.payloadLength), true);
    const rb = await auditMatchLog('bad-note.hrml', { world, measures: false }, bad);
    expect(rb.problems.some((p) => p.kind === ProblemKind.BAD_RECORD && /writer note of the wrong size/.test(p.message))).toBe(true);
    expect(rb.failed).toBe(true);
  });
});
