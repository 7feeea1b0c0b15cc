/**
 * The fog backfills record (shared/matchlog/fogBackfillRecord.ts, format 16): written by the match
 * log's recorder and read back, split past FOG_BACKFILLS_MAX backfills into records of the same time;
 * a record whose length does not match its count, or whose first pose's time is not finite or after
 * the record's, refused whole. (What the audit and the replay viewer make of it: test/fogRoom.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MatchLogRecorder } from '../server/matchlog/recorder';
import type { MatchHeader } from '../server/match/recorder';
import { FOG_BACKFILL_BYTES, FOG_BACKFILLS_HEAD_BYTES, FOG_BACKFILLS_MAX, readFogBackfills, writeFogBackfills, type FogBackfills } from '../shared/matchlog/fogBackfillRecord';
import { LOG_FORMAT_VERSION, LOG_VERSION_WITH_FOG_BACKFILLS, readFrames } from '../shared/matchlog/frame';
import { RECORD_TYPE_NAMES, RecordType } from '../shared/matchlog/records';

const dir = mkdtempSync(join(tmpdir(), 'hitreg-fogbackfills-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = {
  formatVersion: 1, roomId: 'fogbackfills', startedAtIso: '', tickRate: 64, maxPlayers: 4, levelPath: '', worldHash: '', rigHash: '',
  validation: {}, scene: { maxPlayers: 4, capacityTicks: 64, windowMs: 250 }, fog: 'on',
} as unknown as MatchHeader;

function backfills(list: [number, number, number][], timeMs: number): FogBackfills {
  return { timeMs, count: list.length, viewer: list.map((x) => x[0]), enemy: list.map((x) => x[1]), fromMs: list.map((x) => x[2]) };
}

describe('fog backfills record', () => {
  it('is format 16, named, and round-trips through the recorder: a long list split into records of the same time', async () => {
    expect(LOG_FORMAT_VERSION).toBe(LOG_VERSION_WITH_FOG_BACKFILLS);
    expect(LOG_VERSION_WITH_FOG_BACKFILLS).toBe(16);
    expect(RECORD_TYPE_NAMES[RecordType.FOG_BACKFILLS]).toBe('fog backfills');
    const path = join(dir, 'backfills.hrml');
    const rec = new MatchLogRecorder({ path });
    rec.header(HEADER);
    const long: [number, number, number][] = [];
    for (let i = 0; i < FOG_BACKFILLS_MAX + 3; i++) long.push([i % 4, (i + 1) % 4, 900 + (i % 100) / 8]);
    rec.fogBackfills(backfills([[0, 2, 1234.375], [3, 1, 1200]], 1250.5));
    rec.fogBackfills(backfills(long, 1000));
    await rec.close();
    const bytes = new Uint8Array(readFileSync(path));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const got: number[][] = [];
    let records = 0;
    for (const f of readFrames(bytes).frames) {
      if (f.type !== RecordType.FOG_BACKFILLS) continue;
      records++;
      expect(readFogBackfills(view, f.payloadOffset, f.payloadLength, (v, e, from, t) => got.push([v, e, from, t]))).not.toBeNaN();
    }
    expect(records).toBe(3);
    expect(got.slice(0, 2)).toEqual([[0, 2, 1234.375, 1250.5], [3, 1, 1200, 1250.5]]);
    expect(got.slice(2)).toEqual(long.map(([v, e, f]) => [v, e, f, 1000]));
  });

  it('a record whose length does not match its count, or a first pose not finite or after the record, is refused whole', () => {
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    const len = writeFogBackfills(view, 0, backfills([[1, 2, 90], [2, 3, 95.5]], 100), 0, 2);
    expect(len).toBe(FOG_BACKFILLS_HEAD_BYTES + 2 * FOG_BACKFILL_BYTES);
    const seen: number[] = [];
    expect(readFogBackfills(view, 0, len, (v, e, f) => seen.push(v, e, f))).toBe(100);
    expect(seen).toEqual([1, 2, 90, 2, 3, 95.5]);
    for (const bad of [len - 1, len + 1, len + FOG_BACKFILL_BYTES, FOG_BACKFILLS_HEAD_BYTES - 1, 0]) {
      let visits = 0;
      expect(readFogBackfills(view, 0, bad, () => visits++), `length ${bad}`).toBeNaN();
      expect(visits).toBe(0);
    }
    for (const from of [Number.NaN, Infinity, 100.5]) {
      writeFogBackfills(view, 0, backfills([[1, 2, 90], [2, 3, from]], 100), 0, 2);
      let visits = 0;
      expect(readFogBackfills(view, 0, len, () => visits++), `first pose at ${from}`).toBeNaN();
      expect(visits).toBe(0);
    }
  });
});
