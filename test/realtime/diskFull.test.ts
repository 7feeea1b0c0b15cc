// A full disk under a real match: a game server whose match-log directory is a real tmpfs of 1 MiB,
// three quarters taken before the match (mount needs root: without it the test skips, saying so),
// with 16 real WebSocket players firing until the room's log outgrows the disk
// (test/bench/faults/diskFull.ts). While the disk is full, /metrics shows the failed writes and the
// bytes waiting in memory, and the room keeps ticking; once the room closed its log, the bytes it
// could not write are counted as given up. The audit of the file left on the tmpfs says it ends
// early, where and why (the writer's note, or a record the failed write cut), and replays every
// complete record before that point; the record boundaries walked from the file's length fields
// agree with where it says the records stop.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diskFullScenario, TmpfsUnavailableError, type DiskFullResult } from '../bench/faults/diskFull';
import { FRAME_OVERHEAD, NOTE_FRAME_TYPE, PREAMBLE_BYTES } from '../../shared/matchlog/frame';
import { EndWhy } from '../../shared/audit/logEnd';

const dir = mkdtempSync(join(tmpdir(), 'disk-full-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a full disk under a real match', () => {
  it('metrics count the failed writes and the bytes not written, the match ticks on, the audit says where and why the log ends', async (ctx) => {
    const copy = join(dir, 'log.hrml');
    let r: DiskFullResult;
    try {
      r = await diskFullScenario({ sizeBytes: 1024 * 1024, prefillBytes: 768 * 1024, players: 16, ticksAfterFull: 128, copyLogTo: copy });
    } catch (e) {
      if (e instanceof TmpfsUnavailableError) ctx.skip(`a real full disk: ${e.message}`);
      throw e;
    }
    // While full: failed writes, records waiting in memory; the room ticked on.
    expect(r.whileFull.writeFailures).toBeGreaterThan(0);
    expect(r.lastWhileFull.pendingBytes).toBeGreaterThan(0);
    expect(r.lastWhileFull.unwrittenBytes).toBe(0);
    expect(r.ticksAfterFull).toBeGreaterThanOrEqual(128);
    // After the log closed: nothing pending, the bytes it could not write given up and still counted.
    expect(r.afterClose.pendingBytes).toBe(0);
    expect(r.afterClose.unwrittenBytes).toBeGreaterThan(0);
    expect(r.unwrittenBytes).toBe(r.afterClose.unwrittenBytes);
    expect(r.afterClose.writeFailures).toBeGreaterThanOrEqual(r.lastWhileFull.writeFailures);
    expect(r.afterClose.droppedRecords).toBe(0);
    expect(r.writerLines.some((l) => l.includes(`closed with ${r.unwrittenBytes} bytes unwritten`))).toBe(true);
    expect(r.fileBytes).toBeLessThanOrEqual(256 * 1024);

    // The audit: ends early, where and why; every complete record before it replayed.
    expect(r.auditSaysTruncated).toBe(true);
    expect([EndWhy.WRITER_NOTE, EndWhy.PARTIAL_RECORD]).toContain(r.ends.why);
    expect(r.shotsAudited).toBeGreaterThan(0);
    expect(r.mismatches).toBe(0);
    expect(r.auditFailed).toBe(false);
    if (r.ends.why === EndWhy.WRITER_NOTE) {
      expect(r.ends.note!.reason).toMatch(/ENOSPC/);
      expect(r.ends.note!.unwrittenBytes).toBeGreaterThanOrEqual(r.unwrittenBytes);
      expect(r.problems.some((p) => p.startsWith('[unwritten-records]'))).toBe(true);
    } else expect(r.problems.some((p) => p.startsWith('[truncated]'))).toBe(true);

    // A second reading: the boundaries walked from the length fields.
    const bytes = new Uint8Array(readFileSync(copy));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = PREAMBLE_BYTES, records = 0;
    while (at + 5 <= bytes.length && at + FRAME_OVERHEAD + view.getUint32(at, true) <= bytes.length && bytes[at + 4] !== NOTE_FRAME_TYPE) {
      at += FRAME_OVERHEAD + view.getUint32(at, true);
      records++;
    }
    expect(r.ends.atByte).toBe(at);
    expect(r.ends.records).toBe(records);
    expect(r.ends.fileBytes).toBe(bytes.length);
    if (r.ends.why === EndWhy.WRITER_NOTE) expect(bytes.length).toBe(at + FRAME_OVERHEAD + view.getUint32(at, true));
    else expect(r.ends.cut!.bytes).toBe(bytes.length - at);
  });
});
