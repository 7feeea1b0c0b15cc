// The match log's framing and durability: CRC-32 against zlib's, frames round-trip, torn tails
// cut at every possible offset, corruption in the middle named, a writer killed with SIGKILL
// mid-stream, and real write failures (/dev/full, an unwritable directory) survived. On a real full
// disk (a 64 KiB tmpfs; needs root) a log closed with records unwritten ends with the writer's note
// over the record the failed write cut, or, when not even the note fits, where that write left it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { crc32 } from '../shared/matchlog/crc32';
import {
  FRAME_OVERHEAD, FrameBuffer, GAP_FRAME_TYPE, LogFormatError, NOTE_FRAME_TYPE, PREAMBLE_BYTES, readFrames, writePreamble,
} from '../shared/matchlog/frame';
import { describeLogEnd, EndWhy } from '../shared/audit/logEnd';
import { mountTmpfs, unmountTmpfs, TmpfsUnavailableError } from './helpers/tmpfs';
import { MatchLogWriter } from '../server/matchlog/writer';
import { waitFor } from './helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'matchlog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SEED = 7007;

/** A log in memory: preamble + the given records. */
function buildLog(records: { type: number; payload: Uint8Array }[]): Uint8Array {
  const fb = new FrameBuffer(16);
  const pre = new Uint8Array(PREAMBLE_BYTES);
  writePreamble(pre);
  fb.appendRaw(pre);
  for (const r of records) fb.append(r.type, r.payload);
  return fb.take().slice();
}

const recordArb = fc.record({
  type: fc.integer({ min: 0, max: 254 }),
  payload: fc.uint8Array({ minLength: 0, maxLength: 300 }),
});

describe('crc32', () => {
  it('matches the standard check value and zlib on random data', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.nat(), (bytes, cut) => {
        const whole = zlibCrc32(bytes) >>> 0;
        expect(crc32(bytes)).toBe(whole);
        // In two pieces, continuing from the first result.
        const k = bytes.length === 0 ? 0 : cut % bytes.length;
        expect(crc32(bytes, k, bytes.length, crc32(bytes, 0, k))).toBe(whole);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe('frames', () => {
  it('round-trip any records', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 40 }), (records) => {
        const bytes = buildLog(records);
        const read = readFrames(bytes);
        expect(read.truncated).toBe(false);
        expect(read.truncatedAt).toBe(bytes.length);
        expect(read.corrupt).toEqual([]);
        expect(read.frames.length).toBe(records.length);
        read.frames.forEach((f, i) => {
          expect(f.type).toBe(records[i].type);
          expect(bytes.subarray(f.payloadOffset, f.payloadOffset + f.payloadLength)).toEqual(records[i].payload);
        });
      }),
      { seed: SEED, numRuns: 100 },
    );
  });

  it('a log cut at any byte reads its complete prefix and says where it was cut', () => {
    const records = Array.from({ length: 12 }, (_, i) => ({
      type: i + 1,
      payload: Uint8Array.from({ length: 5 + ((i * 37) % 60) }, (_, j) => (i * 31 + j * 7) & 255),
    }));
    const bytes = buildLog(records);
    const ends = [PREAMBLE_BYTES];
    for (const r of records) ends.push(ends[ends.length - 1] + FRAME_OVERHEAD + r.payload.length);
    for (let cut = PREAMBLE_BYTES; cut <= bytes.length; cut++) {
      const read = readFrames(bytes.subarray(0, cut));
      const complete = ends.filter((e) => e <= cut).length - 1;
      expect(read.frames.length).toBe(complete);
      expect(read.truncatedAt).toBe(ends[complete]);
      expect(read.truncated).toBe(cut !== ends[complete]);
      expect(read.corrupt).toEqual([]);
    }
  });

  it('a flipped byte in the middle is named as corruption; in the last record it is a torn tail', () => {
    const records = Array.from({ length: 6 }, (_, i) => ({ type: 10 + i, payload: new Uint8Array(20).fill(i) }));
    const clean = buildLog(records);
    const frames = readFrames(clean).frames;
    // Middle record 2: flip one payload byte.
    const mid = clean.slice();
    mid[frames[2].payloadOffset + 7] ^= 0x40;
    const a = readFrames(mid);
    expect(a.truncated).toBe(false);
    expect(a.corrupt).toEqual([{ kind: 'bad-crc', offset: frames[2].offset, type: 12, payloadLength: 20 }]);
    expect(a.frames.map((f) => f.type)).toEqual([10, 11, 13, 14, 15]);
    // Last record: the same damage reads as a torn write and is cut.
    const last = clean.slice();
    last[frames[5].payloadOffset + 3] ^= 1;
    const b = readFrames(last);
    expect(b.truncated).toBe(true);
    expect(b.truncation).toBe('bad-crc');
    expect(b.truncatedAt).toBe(frames[5].offset);
    expect(b.frames.length).toBe(5);
    // A zero-filled tail (what some file systems leave after a crash) is cut too.
    const zeros = new Uint8Array(clean.length + 64);
    zeros.set(clean);
    const c = readFrames(zeros);
    expect(c.truncated).toBe(true);
    expect(c.frames.length).toBe(6);
    expect(c.truncatedAt).toBe(clean.length);
  });

  it('refuses bytes that are not a match log, or another version, with what to do', () => {
    expect(() => readFrames(new Uint8Array(3))).toThrow(LogFormatError);
    expect(() => readFrames(new TextEncoder().encode('{"not":"a log"}'))).toThrow(/not a match log/);
    const other = buildLog([]);
    other[4] = 99;
    expect(() => readFrames(other)).toThrow(/version 99/);
  });

  it('FrameBuffer checks its calls', () => {
    const fb = new FrameBuffer(64);
    expect(() => fb.end(1)).toThrow(/begin/);
    fb.begin(1, 4);
    expect(() => fb.begin(2, 4)).toThrow(/end/);
    expect(() => fb.end(5)).toThrow(/reserved 4/);
    fb.end(4);
    expect(() => fb.begin(256, 1)).toThrow(/byte/);
    // Growth keeps the frames already there.
    for (let i = 0; i < 100; i++) fb.append(3, new Uint8Array(100).fill(i));
    const bytes = new Uint8Array(PREAMBLE_BYTES + fb.length);
    writePreamble(bytes);
    bytes.set(fb.take(), PREAMBLE_BYTES);
    const read = readFrames(bytes);
    expect(read.frames.length).toBe(101);
    expect(bytes[read.frames[100].payloadOffset]).toBe(99);
  });
});

describe('MatchLogWriter', () => {
  it('writes every record and syncs on close', async () => {
    const path = join(dir, 'sub', 'a.hrml');
    const w = new MatchLogWriter(path, { flushIntervalMs: 5 });
    for (let i = 0; i < 1000; i++) {
      const at = w.begin(7, 8);
      w.view.setFloat64(at, i * 0.5, true);
      w.end(8);
      if (i % 100 === 0) await new Promise((r) => setTimeout(r, 6));
    }
    const stats = await w.close();
    expect(stats.errors).toBe(0);
    expect(stats.records).toBe(1000);
    expect(stats.bytesDurable).toBe(statSync(path).size);
    const bytes = readFileSync(path);
    const read = readFrames(bytes);
    expect(read.truncated).toBe(false);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(read.frames.map((f) => view.getFloat64(f.payloadOffset, true))).toEqual(Array.from({ length: 1000 }, (_, i) => i * 0.5));
    expect(() => w.begin(1, 1)).toThrow(/closed/);
    // 'wx': a second writer never overwrites the first match's file.
    const again = new MatchLogWriter(path, { log: () => {} });
    again.append(1, new Uint8Array(1));
    const s2 = await again.close();
    expect(s2.lastError).toMatch(/EEXIST/);
    expect(readFileSync(path).length).toBe(bytes.length);
  });

  it('keeps records appended while a write is in flight (regression: they were dropped)', async () => {
    const path = join(dir, 'busy.hrml');
    const w = new MatchLogWriter(path, { flushIntervalMs: 1, syncIntervalMs: 0 });
    let n = 0;
    // Big batches and an fdatasync after every write keep a write in flight most of the time.
    for (let round = 0; round < 40; round++) {
      for (let k = 0; k < 20; k++, n++) {
        const at = w.begin(2, 4000);
        w.view.setUint32(at, n, true);
        w.end(4000);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    const stats = await w.close();
    expect(stats.records).toBe(n);
    const bytes = readFileSync(path);
    const read = readFrames(bytes);
    expect(read.truncated).toBe(false);
    expect(read.frames.length).toBe(n);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    read.frames.forEach((f, i) => expect(view.getUint32(f.payloadOffset, true)).toBe(i));
  });

  it('after kill -9 mid-stream the file reads up to the last complete record', async () => {
    const path = join(dir, 'killed.hrml');
    const writerModule = new URL('../server/matchlog/writer.ts', import.meta.url).pathname;
    // The child appends numbered records of varying size as fast as a 1 ms timer allows; we SIGKILL
    // it while writes are in flight, once the file holds more than 1000 whole records (their sizes
    // are known, so the bytes they take are too: however slowly a loaded machine writes).
    const recordLength = (n: number) => 4 + (n * 7919) % 3000;
    let needBytes = PREAMBLE_BYTES;
    for (let n = 0; n <= 1000; n++) needBytes += FRAME_OVERHEAD + recordLength(n);
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { MatchLogWriter } from ${JSON.stringify(writerModule)};
      const w = new MatchLogWriter(${JSON.stringify(path)}, { flushIntervalMs: 2, syncIntervalMs: 0 });
      let n = 0;
      setInterval(() => {
        for (let k = 0; k < 50; k++, n++) {
          const len = 4 + (n * 7919) % 3000;
          const at = w.begin(9, len);
          w.view.setUint32(at, n, true);
          for (let j = 4; j < len; j++) w.bytes[at + j] = (n + j) & 255;
          w.end(len);
        }
      }, 1);
    `], { stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise((r) => child.on('exit', r));
    const size = () => { try { return statSync(path).size; } catch { return 0; } };
    await waitFor(() => child.exitCode !== null || child.signalCode !== null || size() >= needBytes, `${needBytes} bytes in ${path}`, 60_000);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    await exited;
    const bytes = readFileSync(path);
    const read = readFrames(bytes);
    expect(read.corrupt).toEqual([]);
    expect(read.frames.length).toBeGreaterThan(1000);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    read.frames.forEach((f, n) => {
      expect(view.getUint32(f.payloadOffset, true)).toBe(n);
      expect(f.payloadLength).toBe(recordLength(n));
    });
    expect(read.truncatedAt).toBe(read.truncated ? read.truncatedAt : bytes.length);
  });

  it('keeps the match going on a full disk (/dev/full): errors reported, memory bounded, drops counted', async () => {
    const errors: string[] = [];
    const lines: string[] = [];
    const w = new MatchLogWriter('/dev/full', {
      flags: 'w', flushIntervalMs: 2, retryMs: 5, maxPendingBytes: 10_000,
      onError: (e) => errors.push((e as NodeJS.ErrnoException).code ?? e.message),
      log: (l) => lines.push(l),
    });
    for (let i = 0; i < 200; i++) {
      w.append(5, new Uint8Array(100).fill(i));
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 8));
    }
    const stats = await w.close();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((c) => c === 'ENOSPC')).toBe(true);
    expect(stats.errors).toBe(errors.length);
    expect(stats.bytesWritten).toBe(0);
    // 200 records of 109 bytes do not fit in 10 000 bytes: the rest were dropped and counted.
    expect(stats.records + stats.droppedRecords).toBe(200);
    expect(stats.droppedRecords).toBeGreaterThan(100);
    expect(stats.bytesPending).toBeLessThanOrEqual(10_000);
    expect(lines.filter((l) => l.includes('failed')).length).toBe(1);
  });

  it('recovers when the directory becomes writable, and marks the dropped records with a gap frame', async () => {
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'a file where the log directory should be');
    const path = join(blocked, 'm.hrml');
    const w = new MatchLogWriter(path, { flushIntervalMs: 2, retryMs: 10, maxPendingBytes: 2_000, log: () => {} });
    for (let i = 0; i < 50; i++) w.append(4, new Uint8Array(100).fill(i));
    // Wait for the writer's first failed attempt (a busy machine may take longer than its 2 ms timer).
    await waitFor(() => w.stats.errors > 0, 'the first failed attempt');
    expect(w.stats.errors).toBeGreaterThan(0);
    expect(w.stats.lastError).toMatch(/ENOTDIR|EEXIST/);
    unlinkSync(blocked);
    mkdirSync(blocked);
    // The next retry opens the file and writes what it kept (records appended before then are dropped).
    await waitFor(() => w.stats.bytesWritten > 0, 'the writer writing again');
    for (let i = 50; i < 60; i++) w.append(4, new Uint8Array(100).fill(i));
    const stats = await w.close();
    const read = readFrames(readFileSync(path));
    expect(read.truncated).toBe(false);
    const kept = stats.records;
    expect(kept + stats.droppedRecords).toBe(60);
    const types = read.frames.map((f) => f.type);
    expect(types.filter((t) => t === 4).length).toBe(kept);
    expect(types.filter((t) => t === GAP_FRAME_TYPE).length).toBe(1);
    const gap = read.frames.find((f) => f.type === GAP_FRAME_TYPE)!;
    const bytes = readFileSync(path);
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(gap.payloadOffset, true)).toBe(stats.droppedRecords);
  });
});

/**
 * A writer on a 64 KiB tmpfs: `first` bytes of payload, then records of 1000 bytes (991 of payload)
 * until a write fails, then 20 more; closed. The file holds 65536 bytes when the failed write cut a
 * record: 8 + (9 + first) + 1000 k + the cut piece.
 */
async function fillTmpfs(dir: string, first: number): Promise<{ path: string; appended: number; stats: Awaited<ReturnType<MatchLogWriter['close']>>; lines: string[] }> {
  const path = join(dir, 'full.hrml');
  const lines: string[] = [];
  const w = new MatchLogWriter(path, { flushIntervalMs: 1, retryMs: 5, log: (l) => lines.push(l) });
  const record = (n: number, len: number) => {
    const at = w.begin(9, len);
    w.view.setUint32(at, n, true);
    w.end(len);
  };
  record(0, first);
  let appended = 1;
  while (w.stats.errors === 0) {
    record(appended++, 991);
    if (appended % 8 === 0) await w.flush();
  }
  for (let k = 0; k < 20; k++) record(appended++, 991);
  return { path, appended, stats: await w.close(), lines };
}

describe('MatchLogWriter on a full disk (a real 64 KiB tmpfs)', () => {
  let dir: string | null = null;
  let unavailable: string | null = null;
  try {
    dir = mountTmpfs(64 * 1024, 'matchlog-full-');
  } catch (e) {
    if (!(e instanceof TmpfsUnavailableError)) throw e;
    unavailable = e.message;
  }
  afterAll(() => {
    if (dir !== null) unmountTmpfs(dir);
  });

  it('ends the log with its note over the record the failed write cut: how many records and bytes, and the error', async (ctx) => {
    if (dir === null) ctx.skip(`a full disk: ${unavailable}`);
    // 8 + 9 + 991 + 64 x 1000 = 65008: the 66th record is cut after 528 bytes, room for the note.
    const { path, appended, stats, lines } = await fillTmpfs(dir!, 991);
    const bytes = new Uint8Array(readFileSync(path));
    expect(stats.note).toBe('written');
    expect(stats.lastError).toMatch(/ENOSPC/);
    const read = readFrames(bytes);
    expect(read.truncated).toBe(false);
    expect(read.frames.map((f) => f.type)).toEqual([...new Array<number>(65).fill(9), NOTE_FRAME_TYPE]);
    expect(read.frames.at(-1)!.offset).toBe(65008);
    const ends = describeLogEnd(bytes, read);
    expect(ends.why).toBe(EndWhy.WRITER_NOTE);
    expect(ends.atByte).toBe(65008);
    expect(ends.records).toBe(65);
    expect(ends.note).toEqual({ unwrittenRecords: appended - 65, unwrittenBytes: (appended - 65) * 1000, droppedRecords: 0, droppedBytes: 0, reason: stats.lastError });
    expect(ends.note!.reason).toMatch(/^write: ENOSPC/);
    // Unwritten: every record after the 65th, less the 528 bytes of the 66th the file held.
    expect(stats.bytesPending).toBe((appended - 65) * 1000 - 528);
    expect(stats.bytesWritten).toBe(65536);
    expect(bytes.length).toBe(65008 + FRAME_OVERHEAD + read.frames.at(-1)!.payloadLength);
    expect(lines.at(-1)).toMatch(/closed with \d+ bytes unwritten .* a note saying so at byte 65008/);
  });

  it('when not even the note fits, the file ends inside the cut record as the failed write left it', async (ctx) => {
    if (dir === null) ctx.skip(`a full disk: ${unavailable}`);
    rmSync(join(dir!, 'full.hrml'));
    // 8 + 9 + 499 + 65 x 1000 = 65516: the 67th record is cut after 20 bytes, fewer than a note takes.
    const { path, stats } = await fillTmpfs(dir!, 499);
    const bytes = new Uint8Array(readFileSync(path));
    expect(stats.note).toBe('failed');
    expect(bytes.length).toBe(65536);
    const read = readFrames(bytes);
    expect(read.frames.length).toBe(66);
    const ends = describeLogEnd(bytes, read);
    expect(ends.why).toBe(EndWhy.PARTIAL_RECORD);
    expect(ends.atByte).toBe(65516);
    expect(ends.cut).toEqual({ bytes: 20, promised: 1000 });
    // The cut record's own head: the 67th record (number 66).
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(65516 + 5, true)).toBe(66);
  });
});
