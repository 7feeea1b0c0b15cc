// Match log formats: a synthetic match's log (the current format) carries every player's view and
// input arrivals per tick and its replay measures them. A match judged by the rules before the
// stream floor and the stamped eye path end (what an older log holds), rewritten in the version 6
// layout (float32 stamp offsets, no eye heights in its ticks, no stream floor, teams or leave times
// in its shot records), replays every verdict and measure as its current-format log does; in the
// version 4 layout (no shooter death time in its shot records) the same, and in the version 3 layout
// (no view, no inputs either) still every verdict bit for bit, with the angle measures taken from
// the body's heading and no input measure. A version 8 log (before the writer's note frame) is a
// version 9 log without one, and a version 9 log (before projectile records) a version 10 log
// without them: both replay the same. A version the reader does not know is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../server/level/gltf';
import { auditMatchLog, closeAuditWorkers, type AuditResult } from '../server/behaviour/audit';
import { Behaviour, synthesizeMatch } from '../server/behaviour/synth/synthMatch';
import { FrameBuffer, LOG_FORMAT_VERSION, LogFormatError, PREAMBLE_BYTES, readFrames, writePreamble } from '../shared/matchlog/frame';
import { RecordType, TICK_HEAD_BYTES, TICK_SLOT_BYTES, TICK_SLOT_BYTES_V3, TICK_SLOT_BYTES_V4, TICK_SLOT_BYTES_V6, TICK_SLOT_INPUTS_AT, TICK_SLOT_STAMP_AT, TICK_SLOT_VIEW_AT } from '../shared/matchlog/records';
import { ShotCol, SHOT_COLUMNS } from '../shared/audit/replay';
import { MeasureCol } from '../server/behaviour/observer';
import type { World } from '../shared/world/world';
import { createShotInput, readShotRecord, shotRecordMaxBytes, writeShotRecord } from '../shared/matchlog/shotRecord';
import { createVerdict } from '../shared/validate/verdict';

const dir = mkdtempSync(join(tmpdir(), 'log-versions-'));
let world: World;
let cur: Uint8Array;
let aCur: AuditResult;
// The same match judged by the rules before the stream floor and the stamped eye path end: what a
// log written before version 7 holds.
let pre: Uint8Array;
let aPre: AuditResult;

/**
 * The log in an older layout: the preamble's version; before 8 each shot record without the
 * per-hit health, the spray heat in its shooter states and the pellet section in its verdict (decoded
 * and written again by the codec in the version 7 layout); before 7 every tick slot with the newest
 * input's stamp as a float32 offset from its tick (4 bytes, not 8) and no eye height, and each shot
 * record without the stream floor (8 bytes at 62) and with targets of alive and life start only
 * (9 bytes a slot, not 19); before 6 no stamp at all; before 5 each shot record without the
 * shooter's death time (8 bytes at 54); before 4 every tick slot cut to its 11 numbers.
 */
function toVersion(bytes: Uint8Array, version: 3 | 4 | 5 | 6 | 7): Uint8Array {
  const out = new FrameBuffer(bytes.length);
  const pre = new Uint8Array(PREAMBLE_BYTES);
  writePreamble(pre, 0, version);
  out.appendRaw(pre);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const f of readFrames(bytes).frames) {
    let payload = bytes.subarray(f.payloadOffset, f.payloadOffset + f.payloadLength);
    if (f.type === RecordType.SHOT) {
      const input = createShotInput(), verdict = createVerdict();
      expect(readShotRecord(input, verdict, view, f.payloadOffset, f.payloadLength)).toBe(true);
      const v7 = new Uint8Array(shotRecordMaxBytes(input, verdict, 7));
      payload = v7.subarray(0, writeShotRecord(new DataView(v7.buffer), 0, input, verdict, 7));
    }
    if (f.type === RecordType.SHOT && version < 7) {
      const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
      const m = view.getUint16(52, true);
      const head = version < 5 ? 54 : 62;
      const cut = new Uint8Array(payload.length - (70 - head) - 10 * m);
      cut.set(payload.subarray(0, head));
      for (let i = 0; i < m; i++) cut.set(payload.subarray(70 + 19 * i, 70 + 19 * i + 9), head + 9 * i);
      cut.set(payload.subarray(70 + 19 * m), head + 9 * m);
      payload = cut;
    }
    if (f.type === RecordType.TICK && version < 7) {
      const n = view.getUint16(f.payloadOffset + 12, true);
      const tickMs = view.getFloat64(f.payloadOffset + 4, true);
      const slot = version === 3 ? TICK_SLOT_BYTES_V3 : version < 6 ? TICK_SLOT_BYTES_V4 : TICK_SLOT_BYTES_V6;
      const cut = new Uint8Array(TICK_HEAD_BYTES + n * slot);
      const cv = new DataView(cut.buffer);
      cut.set(payload.subarray(0, TICK_HEAD_BYTES));
      for (let i = 0; i < n; i++) {
        const from = TICK_HEAD_BYTES + i * TICK_SLOT_BYTES;
        const to = TICK_HEAD_BYTES + i * slot;
        cut.set(payload.subarray(from, from + Math.min(slot, TICK_SLOT_BYTES_V4)), to);
        if (version === 6) cv.setFloat32(to + TICK_SLOT_BYTES_V4, view.getFloat64(f.payloadOffset + from + TICK_SLOT_STAMP_AT, true) - tickMs, true);
      }
      payload = cut;
    }
    out.append(f.type, payload);
  }
  return out.take();
}

beforeAll(async () => {
  world = await loadWorld();
  const path = join(dir, 'current.hrml');
  await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path, seed: 9, players: 8, durationS: 20, cheats: { 1: Behaviour.FAKE_LAG, 2: Behaviour.TRIGGERBOT }, strength: 1 });
  cur = new Uint8Array(readFileSync(path));
  aCur = await auditMatchLog(path, { world, calibration: null });
  const prePath = join(dir, 'pre-rule.hrml');
  const rules = { streamSlackMs: undefined, eyeStampSlackMs: undefined };
  await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path: prePath, seed: 9, players: 8, durationS: 20, cheats: { 1: Behaviour.FAKE_LAG, 2: Behaviour.TRIGGERBOT }, strength: 1, rules });
  pre = new Uint8Array(readFileSync(prePath));
  aPre = await auditMatchLog(prePath, { world, calibration: null });
  expect(aPre.mismatches).toEqual([]);
});
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

const column = (a: AuditResult, c: number) => Array.from({ length: a.shots }, (_, i) => a.rows[i * SHOT_COLUMNS + c]!);
/** The pull count and spray chain's columns: NaN in a log before format 8, which keeps neither. */
const SPRAY_CHAIN = new Set<number>([ShotCol.BEFORE_PULLS, ShotCol.AFTER_PULLS, ShotCol.BEFORE_SPRAY_HEAT, ShotCol.AFTER_SPRAY_HEAT, ShotCol.BEFORE_SPRAY_AT, ShotCol.AFTER_SPRAY_AT]);

describe('match log format versions', () => {
  it('the current version carries each player\'s view (unit, pitched) and input arrivals, and the replay measures them', () => {
    const frames = readFrames(cur);
    expect(frames.version).toBe(LOG_FORMAT_VERSION);
    const view = new DataView(cur.buffer, cur.byteOffset, cur.byteLength);
    let pitched = 0, slots = 0, inputs = 0;
    for (const f of frames.frames) {
      if (f.type !== RecordType.TICK) continue;
      const n = view.getUint16(f.payloadOffset + 12, true);
      expect(f.payloadLength).toBe(TICK_HEAD_BYTES + n * TICK_SLOT_BYTES);
      for (let i = 0; i < n; i++) {
        const o = f.payloadOffset + TICK_HEAD_BYTES + i * TICK_SLOT_BYTES;
        const vx = view.getFloat32(o + TICK_SLOT_VIEW_AT, true), vy = view.getFloat32(o + TICK_SLOT_VIEW_AT + 4, true), vz = view.getFloat32(o + TICK_SLOT_VIEW_AT + 8, true);
        expect(Math.abs(Math.sqrt(vx * vx + vy * vy + vz * vz) - 1)).toBeLessThan(1e-6);
        if (vy < -0.01) pitched++;
        inputs += view.getUint16(o + TICK_SLOT_INPUTS_AT, true);
        slots++;
      }
    }
    // The synthetic players look a little below the horizon, and their clients send about one input per tick or more.
    expect(pitched / slots).toBeGreaterThan(0.5);
    expect(inputs / slots).toBeGreaterThan(0.7);
    expect(aCur.mismatches).toEqual([]);
    const spread = column(aCur, MeasureCol.INPUT_SPREAD);
    const shooter = column(aCur, ShotCol.SHOOTER);
    const median = (p: number) => { const v = spread.filter((x, i) => shooter[i] === p && x === x).sort((x, y) => x - y); return v[v.length >> 1]!; };
    // The fake lagger's inputs arrive in bunches, more than any honest player's, whose lossy links
    // bunch them too now and then (a lost segment holds back everything behind it).
    const honest = [0, 3, 4, 5, 6, 7].map(median).filter((x) => x === x);
    expect(honest.length).toBeGreaterThanOrEqual(4);
    expect(median(1)).toBeGreaterThan(5);
    expect(median(1)).toBeGreaterThan(Math.max(...honest));
    expect(Math.min(...honest)).toBeLessThan(1);
    expect(column(aCur, MeasureCol.SWEEP).some((x) => x > 0)).toBe(true);
  });

  it('a version 7 log (no pellets, no spray heat, no per-hit health) replays every verdict and measure as the current version', async () => {
    const path = join(dir, 'v7-layout.hrml');
    const v7 = toVersion(cur, 7);
    expect(v7.length).toBeLessThan(cur.length);
    writeFileSync(path, v7);
    expect(readFrames(readFileSync(path)).version).toBe(7);
    const a7 = await auditMatchLog(path, { world, calibration: null });
    expect(a7.problems).toEqual([]);
    expect(a7.mismatches).toEqual([]);
    expect(a7.shots).toBe(aCur.shots);
    for (let c = 0; c < SHOT_COLUMNS; c++) if (c !== ShotCol.OFFSET && !SPRAY_CHAIN.has(c)) expect(column(a7, c), `column ${c}`).toEqual(column(aCur, c));
    for (const c of SPRAY_CHAIN) expect(column(a7, c).every((x) => Number.isNaN(x)), `column ${c}`).toBe(true);
  });

  it('a version 6 log (no eye heights, no teams or leave times) replays every verdict and measure as the current version', async () => {
    const path = join(dir, 'v6-layout.hrml');
    writeFileSync(path, toVersion(pre, 6));
    expect(readFrames(readFileSync(path)).version).toBe(6);
    const a6 = await auditMatchLog(path, { world, calibration: null });
    expect(a6.problems).toEqual([]);
    expect(a6.mismatches).toEqual([]);
    expect(a6.shots).toBe(aPre.shots);
    // Its stamps are float32 offsets from their ticks: the measures that hold a view against the
    // target as it was aimed, and the stamp's lead over the claim, read a few nanoseconds off, and agree to 1e-6 of their scale.
    const byTime = new Set<number>([MeasureCol.ON_TARGET_MS, MeasureCol.TRACK_ERROR, MeasureCol.TRACK_LAG_MS, MeasureCol.SWEEP, MeasureCol.HIDDEN_FOLLOW, MeasureCol.INPUT_AHEAD_MS]);
    for (let c = 0; c < SHOT_COLUMNS; c++) {
      if (c === ShotCol.OFFSET || SPRAY_CHAIN.has(c)) continue;
      const got = column(a6, c), want = column(aPre, c);
      if (!byTime.has(c)) { expect(got, `column ${c}`).toEqual(want); continue; }
      const worst = Math.max(...got.map((x, i) => (x === x || want[i] === want[i] ? Math.abs(x - want[i]!) / Math.max(1, Math.abs(want[i]!)) : 0)));
      expect(worst, `column ${c}`).toBeLessThan(1e-6);
    }
  });

  it('a version 5 log (no view times) replays every verdict the same; its views are held against the target a fixed lag back', async () => {
    const path = join(dir, 'v5-layout.hrml');
    writeFileSync(path, toVersion(pre, 5));
    const a5 = await auditMatchLog(path, { world, calibration: null });
    expect(a5.mismatches).toEqual([]);
    expect(a5.shots).toBe(aPre.shots);
    // Only the measures that hold a view against the target as it was aimed may differ
    const byTime = new Set<number>([MeasureCol.ON_TARGET_MS, MeasureCol.TRACK_ERROR, MeasureCol.TRACK_LAG_MS, MeasureCol.SWEEP]);
    // (and each record's offset in the file: the tick slots before it are 4 bytes shorter).
    // Without stamps a shot's claim cannot be held against the inputs stepped before it.
    expect(column(a5, MeasureCol.INPUT_AHEAD_MS).every((x) => Number.isNaN(x))).toBe(true);
    expect(column(aPre, MeasureCol.INPUT_AHEAD_MS).filter((x) => x === x).length).toBeGreaterThan(aPre.shots / 2);
    for (let c = 0; c < SHOT_COLUMNS; c++) {
      if (!byTime.has(c) && c !== ShotCol.OFFSET && c !== MeasureCol.INPUT_AHEAD_MS && !SPRAY_CHAIN.has(c)) expect(column(a5, c), `column ${c}`).toEqual(column(aPre, c));
    }
    // The synthetic room applies each view a tick after it was aimed, the fixed lag's assumption:
    // the two readings differ by the clients' clock errors and the ticks' rounding only.
    const median = (v: number[]) => { const f = v.filter((x) => x === x).sort((x, y) => x - y); return f[f.length >> 1]!; };
    for (const c of byTime) {
      const m5 = median(column(a5, c)), m6 = median(column(aPre, c));
      expect(Math.abs(m5 - m6), `column ${c}: ${m5} vs ${m6}`).toBeLessThanOrEqual(0.25 * Math.abs(m6));
    }
  });

  it('a version 4 log (no death time in shot records) replays every verdict and measure as version 5 does', async () => {
    const p5 = join(dir, 'v5.hrml'), p4 = join(dir, 'v4-layout.hrml');
    writeFileSync(p5, toVersion(pre, 5));
    writeFileSync(p4, toVersion(pre, 4));
    expect(readFrames(readFileSync(p4)).version).toBe(4);
    const a5 = await auditMatchLog(p5, { world, calibration: null });
    const a = await auditMatchLog(p4, { world, calibration: null });
    expect(a.mismatches).toEqual([]);
    expect(a.shots).toBe(a5.shots);
    for (let c = 0; c < SHOT_COLUMNS; c++) {
      const cols = [column(a, c), column(a5, c)];
      if (c === ShotCol.OFFSET) expect(cols[0]!.map((x, i) => cols[1]![i]! - x)).toEqual(cols[0]!.map((_, i) => 8 * i));
      else expect(cols[0], `column ${c}`).toEqual(cols[1]);
    }
  });

  it('a version 3 log (no view, no inputs) replays every verdict the same, its angles from the heading', async () => {
    const v3 = toVersion(pre, 3);
    expect(readFrames(v3).version).toBe(3);
    const path = join(dir, 'v3.hrml');
    writeFileSync(path, v3);
    const a3 = await auditMatchLog(path, { world, calibration: null });
    expect(a3.problems).toEqual([]);
    expect(a3.mismatches).toEqual([]);
    expect(a3.shots).toBe(aPre.shots);
    for (const c of [ShotCol.KIND, ShotCol.REASON, ShotCol.TARGET, ShotCol.DAMAGE, ShotCol.REWIND_TIME_MS]) expect(column(a3, c)).toEqual(column(aPre, c));
    expect(column(a3, MeasureCol.INPUT_SPREAD).every((x) => Number.isNaN(x))).toBe(true);
    // The heading gives the same targets for most shots; reaction and time on target are still measured.
    expect(column(a3, MeasureCol.AIM_TARGET).filter((t) => t >= 0).length).toBeGreaterThan(0.8 * column(aPre, MeasureCol.AIM_TARGET).filter((t) => t >= 0).length);
    expect(column(a3, MeasureCol.ON_TARGET_MS).some((x) => x > 0)).toBe(true);
  });

  it('a version 8 or 9 log (no writer\'s note could end a version 8 one; no projectiles in either) reads and replays as the current version does', async () => {
    expect(LOG_FORMAT_VERSION).toBe(16);
    const v9 = cur.slice();
    new DataView(v9.buffer).setUint32(4, 9, true);
    expect(readFrames(v9).version).toBe(9);
    writeFileSync(join(dir, 'v9.hrml'), v9);
    const a9 = await auditMatchLog(join(dir, 'v9.hrml'), { world, calibration: null });
    expect(a9.problems).toEqual(aCur.problems);
    expect(a9.mismatches).toEqual([]);
    for (let c = 0; c < SHOT_COLUMNS; c++) expect(column(a9, c), `column ${c}`).toEqual(column(aCur, c));
    const v8 = cur.slice();
    new DataView(v8.buffer).setUint32(4, 8, true);
    const path = join(dir, 'v8.hrml');
    writeFileSync(path, v8);
    expect(readFrames(v8).version).toBe(8);
    const a8 = await auditMatchLog(path, { world, calibration: null });
    expect(a8.problems).toEqual(aCur.problems);
    expect(a8.mismatches).toEqual([]);
    expect(a8.ends).toMatchObject({ complete: true, why: 'closed', records: aCur.ends.records });
    for (let c = 0; c < SHOT_COLUMNS; c++) expect(column(a8, c), `column ${c}`).toEqual(column(aCur, c));
  });

  it('a version 12 log (no fog records) reads and replays as the current version does', async () => {
    const v12 = cur.slice();
    new DataView(v12.buffer).setUint32(4, 12, true);
    expect(readFrames(v12).version).toBe(12);
    writeFileSync(join(dir, 'v12.hrml'), v12);
    const a12 = await auditMatchLog(join(dir, 'v12.hrml'), { world, calibration: null });
    expect(a12.problems).toEqual(aCur.problems);
    expect(a12.mismatches).toEqual([]);
    for (let c = 0; c < SHOT_COLUMNS; c++) expect(column(a12, c), `column ${c}`).toEqual(column(aCur, c));
    expect(a12.fog).toEqual(aCur.fog);
  });

  it('refuses a version it does not read, naming the versions it does', () => {
    const other = cur.slice();
    new DataView(other.buffer).setUint32(4, 2, true);
    expect(() => readFrames(other)).toThrow(LogFormatError);
    expect(() => readFrames(other)).toThrow(new RegExp(`version 2; this reader reads versions 3 to ${LOG_FORMAT_VERSION}`));
  });
});
