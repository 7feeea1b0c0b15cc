// Match log record codecs: shot records (every verdict field, NaN and -0 included) and ticks,
// events, end and header round-trip exactly; every field of the pipeline's Verdict is logged (a
// field added to Verdict without a place in the log fails here); byte-level verdict comparison
// names the differing fields.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  VERDICT_NUMBER_FIELDS, VERDICT_OTHER_FIELDS, createShotInput, readShotRecord, shotRecordMaxBytes, writeShotRecord,
  type ShotInput,
} from '../shared/matchlog/shotRecord';
import { compareVerdicts } from '../shared/matchlog/verdictCompare';
import {
  createTickData, decodeHeader, encodeHeader, readEnd, readEvent, readTick, tickRecordMaxBytes, writeEnd, writeEvent, writeTick,
  TICK_HEAD_BYTES, TICK_SLOT_BYTES, TICK_SLOT_BYTES_V3, TICK_SLOT_VALUES,
} from '../shared/matchlog/records';
import { createShooterState, createVerdict, type Verdict } from '../shared/validate/verdict';
import { checkSeqChains, SHOT_COLUMNS, ShotCol } from '../shared/audit/replay';
import { TICK_POSE_STRIDE, TickPose } from '../server/match/recorder';

const SEED = 7117;
const num = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -0, 0, Infinity, -Infinity, -1, 2 ** 53));
const state = (w: number) => fc.record({
  alive: fc.boolean(), lastSeq: num, nextFireMs: num, lastActionMs: num, equipped: num, drawEndMs: num, carried: num, sprayHeat: num, sprayAtMs: num, pulls: num,
  ammo: fc.array(num, { minLength: w, maxLength: w }), reloadEndMs: fc.array(num, { minLength: w, maxLength: w }),
});

describe('shot record', () => {
  it('logs every field of Verdict', () => {
    const logged = new Set<string>([...VERDICT_NUMBER_FIELDS, ...VERDICT_OTHER_FIELDS]);
    expect(Object.keys(createVerdict()).filter((k) => !logged.has(k))).toEqual([]);
  });

  it('round-trips every input and verdict field bit for bit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }).chain((w) => fc.record({
          before: state(w), after: state(w),
          numbers: fc.array(num, { minLength: VERDICT_NUMBER_FIELDS.length, maxLength: VERDICT_NUMBER_FIELDS.length }),
          kind: fc.integer({ min: 0, max: 2 }), reason: fc.integer({ min: 0, max: 40 }), timeSource: fc.integer({ min: 0, max: 3 }),
          worldHit: fc.boolean(), fired: fc.boolean(),
          payload: fc.option(fc.uint8Array({ maxLength: 256 }), { nil: null }),
          slots: fc.array(fc.tuple(fc.boolean(), num, num, fc.integer({ min: -1, max: 0x7fff })), { maxLength: 20 }),
          timing: fc.tuple(num, num, num, num, num, num), tick: fc.nat(), shooter: fc.integer({ min: 0, max: 65535 }), health: num, killed: fc.boolean(),
          hitResults: fc.array(fc.tuple(num, fc.boolean()), { maxLength: 12 }),
        })),
        (r) => {
          const v = createVerdict();
          VERDICT_NUMBER_FIELDS.forEach((f, i) => { (v as unknown as Record<string, number>)[f] = r.numbers[i]!; });
          v.kind = r.kind as Verdict['kind']; v.reason = r.reason as Verdict['reason']; v.timeSource = r.timeSource as Verdict['timeSource'];
          v.worldHit = r.worldHit; v.fired = r.fired;
          Object.assign(v.after, r.after);
          const input: ShotInput = {
            tick: r.tick, shooter: r.shooter, payload: r.payload, nonBytesType: r.payload === null ? 'string' : '',
            timing: { receiveTimeMs: r.timing[0], rttMs: r.timing[1], interpDelayMs: r.timing[2], newestTickMs: r.timing[3], shooterDiedMs: r.timing[4], streamFloorMs: r.timing[5] },
            targets: { alive: r.slots.map((s) => s[0]), lifeStartMs: r.slots.map((s) => s[1]), leftMs: r.slots.map((s) => s[2]), team: r.slots.map((s) => s[3]) },
            before: { ...createShooterState(r.shooter, []), ...r.before }, targetHealthAfter: r.health, killed: r.killed,
            hitHealthAfter: r.hitResults.map((h) => h[0]), hitKilled: r.hitResults.map((h) => h[1]),
          };
          const buf = new Uint8Array(shotRecordMaxBytes(input, v) + 16);
          const view = new DataView(buf.buffer);
          const len = writeShotRecord(view, 8, input, v);
          const gotIn = createShotInput();
          const gotV = createVerdict();
          expect(readShotRecord(gotIn, gotV, view, 8, len)).toBe(true);
          expect(readShotRecord(gotIn, gotV, view, 8, len - 1)).toBe(false);
          expect(compareVerdicts([], v, gotV)).toEqual([]);
          expect(gotIn.tick).toBe(r.tick);
          expect(gotIn.shooter).toBe(r.shooter);
          expect(gotIn.payload === null ? null : Array.from(gotIn.payload)).toEqual(r.payload === null ? null : Array.from(r.payload));
          expect(gotIn.nonBytesType).toBe(input.nonBytesType);
          expect(gotIn.timing).toEqual(input.timing);
          expect(gotIn.targets).toEqual(input.targets);
          expect(Object.is(gotIn.targetHealthAfter, r.health)).toBe(true);
          expect(gotIn.killed).toBe(r.killed);
          expect(gotIn.hitHealthAfter.map((h) => Object.is(h, 0) ? '+0' : h)).toEqual(input.hitHealthAfter.map((h) => Object.is(h, 0) ? '+0' : h));
          expect(gotIn.hitKilled).toEqual(input.hitKilled);
          const { slot: _a, ...b1 } = gotIn.before;
          const { slot: _b, ...b2 } = input.before;
          expect(b1).toEqual(b2);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('keeps oversized payloads whole up to 64 KB, and the length of longer ones', () => {
    for (const len of [4096, 65535, 70_000]) {
      const input = createShotInput();
      input.payload = Uint8Array.from({ length: len }, (_, i) => (i * 7) & 255);
      input.before = createShooterState(0, [30]);
      const v = createVerdict();
      v.after = createShooterState(0, [30]);
      const buf = new Uint8Array(shotRecordMaxBytes(input, v));
      const view = new DataView(buf.buffer);
      const n = writeShotRecord(view, 0, input, v);
      const got = createShotInput();
      expect(readShotRecord(got, createVerdict(), view, 0, n)).toBe(true);
      expect(got.payload!.length).toBe(len);
      const kept = Math.min(len, 65535);
      expect(Buffer.from(got.payload!.subarray(0, kept)).equals(Buffer.from(input.payload.subarray(0, kept)))).toBe(true);
    }
  });

  it('names the fields that differ, with -0 and NaN compared by bits', () => {
    const a = createVerdict();
    const b = createVerdict();
    a.t = 0; b.t = -0;
    a.damage = NaN; b.damage = NaN;
    b.reason = 3 as Verdict['reason'];
    b.after.lastSeq = 9;
    expect(compareVerdicts([], a, b).map((m) => m.field)).toEqual(['reason', 't', 'after.lastSeq']);
  });
});

describe('pellet results, hits and impacts (format 8)', () => {
  const i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  const fill = (arrays: Record<string, unknown>, fields: readonly string[], rows: (number)[][]) => {
    rows.forEach((row, i) => fields.forEach((f, k) => { (arrays[f] as Float64Array | Int32Array | Uint8Array)[i] = row[k]!; }));
  };
  const entries = (ints: number, bytes: number, floats: number, min: number, max: number) =>
    fc.array(fc.tuple(fc.array(i32, { minLength: ints, maxLength: ints }), fc.array(fc.integer({ min: 0, max: 255 }), { minLength: bytes, maxLength: bytes }), fc.array(num, { minLength: floats, maxLength: floats }))
      .map(([a, b, c]) => [...a, ...b, ...c]), { minLength: min, maxLength: max });
  const PELLET = ['reason', 'target', 'walls', 'ex', 'ey', 'ez', 'stopT', 'px', 'py', 'pz'];
  const HIT = ['pellet', 'target', 'zone', 'bone', 'hitbox', 'status', 'reason', 'walls', 't', 'x', 'y', 'z', 'nx', 'ny', 'nz', 'damage'];
  const IMPACT = ['pellet', 'surface', 'exit', 't', 'x', 'y', 'z', 'nx', 'ny', 'nz'];
  const pull = fc.record({ pellets: entries(3, 0, 7, 8, 8), hits: entries(8, 0, 8, 0, 32), impacts: entries(2, 1, 7, 0, 72), spray: fc.tuple(num, num, num) });
  const build = (r: { pellets: number[][]; hits: number[][]; impacts: number[][]; spray: [number, number, number] }): Verdict => {
    const v = createVerdict();
    v.after = createShooterState(2, [6, 5]);
    v.after.sprayHeat = r.spray[0]; v.after.sprayAtMs = r.spray[1]; v.after.pulls = r.spray[2];
    fill(v.pellets as unknown as Record<string, unknown>, PELLET, r.pellets); v.pellets.count = r.pellets.length;
    fill(v.hits as unknown as Record<string, unknown>, HIT, r.hits); v.hits.count = r.hits.length;
    fill(v.impacts as unknown as Record<string, unknown>, IMPACT, r.impacts); v.impacts.count = r.impacts.length;
    return v;
  };
  const encode = (v: Verdict, version?: number) => {
    const input = createShotInput();
    input.payload = new Uint8Array(80 + 24 * 8);
    input.before = createShooterState(2, [6, 5]);
    const buf = new Uint8Array(shotRecordMaxBytes(input, v, version));
    const len = writeShotRecord(new DataView(buf.buffer), 0, input, v, version);
    return { view: new DataView(buf.buffer), len };
  };

  it('a pull of 8 pellets round-trips every field of every pellet, hit and impact bit for bit', () => {
    fc.assert(fc.property(pull, (r) => {
      const v = build(r);
      const { view, len } = encode(v);
      const got = createVerdict();
      expect(readShotRecord(createShotInput(), got, view, 0, len)).toBe(true);
      expect(readShotRecord(createShotInput(), createVerdict(), view, 0, len - 1)).toBe(false);
      expect(compareVerdicts([], v, got)).toEqual([]);
      expect([got.pellets.count, got.hits.count, got.impacts.count]).toEqual([8, r.hits.length, r.impacts.length]);
      // Every field by bits, not only through compareVerdicts.
      const bits = (x: ArrayLike<number>, n: number) => Array.from({ length: n }, (_, i) => Object.is(x[i], -0) ? '-0' : x[i]);
      for (const [part, fields] of [['pellets', PELLET], ['hits', HIT], ['impacts', IMPACT]] as const) {
        const a = v[part] as unknown as Record<string, ArrayLike<number>>, b = got[part] as unknown as Record<string, ArrayLike<number>>;
        for (const f of fields) expect(bits(b[f]!, v[part].count), `${part}.${f}`).toEqual(bits(a[f]!, v[part].count));
      }
      expect(Object.is(got.after.sprayHeat, r.spray[0]) && Object.is(got.after.sprayAtMs, r.spray[1]) && Object.is(got.after.pulls, r.spray[2])).toBe(true);
    }), { seed: SEED, numRuns: 60 });
  });

  it('names a differing pellet field with its index; a format 7 verdict reads no pellets and no spray, and compares without them', () => {
    const v = build({ pellets: [[0, 1, 0, 1, 2, 3, 0.5, 1, 2, 3]], hits: [[0, 1, 2, 3, 4, 0, 0, 0, 0.5, 1, 2, 3, 0, 0, 1, 12], [0, 1, 2, 3, 4, 0, 0, 0, 0.6, 1, 2, 3, 0, 0, 1, 12]], impacts: [], spray: [1, 500, 3] });
    const w = build({ pellets: [[0, 1, 0, 1, 2, 3, 0.5, 1, 2, 3]], hits: [[0, 1, 2, 3, 4, 0, 0, 0, 0.5, 1, 2, 3, 0, 0, 1, 12], [0, 1, 2, 3, 4, 0, 0, 0, 0.6, 1, 2, 3, 0, 0, 1, -0]], impacts: [[0, -1, 1, 0.2, 0, 0, 0, 1, 0, 0]], spray: [2, 500, 4] });
    expect(compareVerdicts([], v, w).map((m) => m.field)).toEqual(['after.sprayHeat', 'after.pulls', 'hits[1].damage', 'impacts.count']);
    expect(compareVerdicts([], v, w, 7)).toEqual([]);
    const { view, len } = encode(v, 7);
    const { len: len8 } = encode(v);
    expect(len8 - len).toBe(24 * 2 + 6 + 68 + 2 * 96);
    const got = createVerdict();
    got.hits.count = 5; got.after.sprayHeat = 9; got.after.pulls = 9;
    expect(readShotRecord(createShotInput(), got, view, 0, len, 7)).toBe(true);
    expect([got.pellets.count, got.hits.count, got.impacts.count, got.after.sprayHeat, got.after.sprayAtMs, got.after.pulls]).toEqual([0, 0, 0, 0, -Infinity, 0]);
    expect(readShotRecord(createShotInput(), createVerdict(), view, 0, len, 8)).toBe(false);
  });
});

describe('tick, event, end and header records', () => {
  it('round-trip', () => {
    const stride = TICK_POSE_STRIDE;
    const slots = 5;
    const poses = new Float64Array(slots * stride);
    for (let s = 0; s < slots; s++) {
      poses[s * stride] = s === 2 ? 0 : 1; // slot 2 absent
      for (let k = 1; k < stride; k++) poses[s * stride + k] = s * 100 + k + 0.25;
      // The view is stored as float32, the input counts as u16 (clamped).
      poses[s * stride + TickPose.VIEW_X] = 0.6; poses[s * stride + TickPose.VIEW_Y] = -0.48; poses[s * stride + TickPose.VIEW_Z] = 0.64;
      poses[s * stride + TickPose.INPUTS] = s; poses[s * stride + TickPose.STEPS] = s === 4 ? 70000 : -3;
      // The view's time is stored as a float32 offset from the tick's time (NaN: unknown).
      poses[s * stride + TickPose.STAMP] = s === 4 ? NaN : 1203.125 - 31.25 * s;
      // Counts the game does not know are NaN (0xffff in the log); the eye height is a float64.
      if (s === 1) { poses[s * stride + TickPose.INPUTS] = NaN; poses[s * stride + TickPose.STEPS] = NaN; }
    }
    const buf = new Uint8Array(tickRecordMaxBytes(slots));
    const view = new DataView(buf.buffer);
    const len = writeTick(view, 0, 77, 1203.125, poses, slots, stride);
    expect(len).toBe(TICK_HEAD_BYTES + 4 * TICK_SLOT_BYTES);
    const t = createTickData(1);
    expect(readTick(t, view, 0, len)).toBe(true);
    expect(readTick(t, view, 0, len - 1)).toBe(false);
    expect([t.tick, t.timeMs, t.count, Array.from(t.slots.subarray(0, t.count))]).toEqual([77, 1203.125, 4, [0, 1, 3, 4]]);
    const V = TICK_SLOT_VALUES;
    expect(Array.from(t.numbers.subarray(2 * V, 2 * V + 11))).toEqual(Array.from(poses.subarray(3 * stride + 1, 3 * stride + 12)));
    expect(Array.from(t.numbers.subarray(V + 11, 2 * V))).toEqual([Math.fround(0.6), Math.fround(-0.48), Math.fround(0.64), NaN, NaN, 1203.125 - 31.25, 118.25]);
    expect(Array.from(t.numbers.subarray(2 * V + 11, 3 * V))).toEqual([Math.fround(0.6), Math.fround(-0.48), Math.fround(0.64), 3, 0, 1203.125 - 93.75, 318.25]);
    expect(Array.from(t.numbers.subarray(3 * V + 11, 4 * V))).toEqual([Math.fround(0.6), Math.fround(-0.48), Math.fround(0.64), 4, 0xfffe, NaN, 418.25]);
    // Read as a version 5 tick (no view time) or 6 (no eye height), the same bytes are the wrong size.
    expect(readTick(createTickData(1), view, 0, len, 5)).toBe(false);
    expect(readTick(createTickData(1), view, 0, len, 6)).toBe(false);

    // A version 3 tick: the 11 numbers per slot only; the view and inputs read as NaN.
    const v3 = new DataView(new ArrayBuffer(TICK_HEAD_BYTES + 2 * TICK_SLOT_BYTES_V3));
    v3.setUint32(0, 5, true); v3.setFloat64(4, 78.125, true); v3.setUint16(12, 2, true);
    for (let i = 0; i < 2; i++) {
      const o = TICK_HEAD_BYTES + i * TICK_SLOT_BYTES_V3;
      v3.setUint16(o, 7 - i, true);
      for (let k = 0; k < 11; k++) v3.setFloat64(o + 2 + 8 * k, i * 10 + k, true);
    }
    const t3 = createTickData(1);
    expect(readTick(t3, v3, 0, v3.byteLength)).toBe(false);
    expect(readTick(t3, v3, 0, v3.byteLength, 3)).toBe(true);
    expect(Array.from(t3.slots.subarray(0, 2))).toEqual([7, 6]);
    expect(Array.from(t3.numbers.subarray(V, 2 * V))).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, NaN, NaN, NaN, NaN, NaN, NaN, NaN]);

    const ev = new DataView(new ArrayBuffer(64));
    const n = writeEvent(ev, 0, { kind: 'death', slot: 3, timeMs: 5.5, other: 7 });
    const e = readEvent(ev, 0, n)!;
    expect([e.kind, e.slot, e.timeMs, e.other, e.x]).toEqual(['death', 3, 5.5, 7, NaN]);
    expect(readEvent(ev, 0, n - 1)).toBeNull();
    const m = writeEnd(ev, 0, { ticks: 1, shots: 2, events: 3, lastTickMs: 4.5 });
    expect(readEnd(ev, 0, m)).toEqual({ ticks: 1, shots: 2, events: 3, lastTickMs: 4.5 });

    const header = { worldHash: 'abc', zone: new Float64Array([4, -0, 1.25]), nested: { x: 0.1 + 0.2, inf: Infinity, ninf: -Infinity, nan: NaN, nz: -0 }, list: [NaN, -0, 1] };
    const back = decodeHeader<Record<string, any>>(encodeHeader(header));
    expect(back).toEqual({ worldHash: 'abc', zone: [4, -0, 1.25], nested: { x: 0.1 + 0.2, inf: Infinity, ninf: -Infinity, nan: NaN, nz: -0 }, list: [NaN, -0, 1] });
    expect(Object.is(back.nested.nz, -0) && Object.is(back.zone[1], -0) && Object.is(back.list[1], -0)).toBe(true);
  });
});

describe('shooter chains over merged rows', () => {
  /**
   * Rows for shots given as [offset, shooter, beforeSeq, afterSeq, beforeFire, afterFire, beforePulls,
   * afterPulls, beforeHeat, afterHeat] (pulls and heat 0 when left out; spray times -Infinity).
   */
  function rows(list: number[][]): Float64Array {
    const r = new Float64Array(list.length * SHOT_COLUMNS);
    list.forEach(([offset, shooter, bs, as, bf, af, bp = 0, ap = 0, bh = 0, ah = 0], i) => {
      const o = i * SHOT_COLUMNS;
      r[o + ShotCol.INDEX] = i; r[o + ShotCol.OFFSET] = offset!; r[o + ShotCol.SHOOTER] = shooter!; r[o + ShotCol.SEQ] = as!;
      r[o + ShotCol.BEFORE_SEQ] = bs!; r[o + ShotCol.AFTER_SEQ] = as!; r[o + ShotCol.BEFORE_NEXT_FIRE] = bf!; r[o + ShotCol.AFTER_NEXT_FIRE] = af!;
      r[o + ShotCol.BEFORE_PULLS] = bp; r[o + ShotCol.AFTER_PULLS] = ap; r[o + ShotCol.BEFORE_SPRAY_HEAT] = bh; r[o + ShotCol.AFTER_SPRAY_HEAT] = ah;
      r[o + ShotCol.BEFORE_SPRAY_AT] = -Infinity; r[o + ShotCol.AFTER_SPRAY_AT] = -Infinity;
    });
    return r;
  }

  it('passes an intact chain, restarts at a join, names a gap and an edited fire clock', () => {
    const intact = rows([[10, 0, -1, 1, 0, 100], [20, 1, -1, 1, 0, 90], [30, 0, 1, 2, 100, 200], [40, 1, 1, 5, 90, 190]]);
    expect(checkSeqChains(intact, 4)).toEqual([]);
    // Slot 0 rejoins at byte 35: a fresh state (lastSeq -1, fire clock 0) is not a break.
    const rejoin = rows([[10, 0, -1, 1, 0, 100], [30, 0, 1, 2, 100, 200], [40, 0, -1, 1, 0, 100]]);
    expect(checkSeqChains(rejoin, 3, [{ offset: 35, slot: 0 }])).toEqual([]);
    expect(checkSeqChains(rejoin, 3).map((m) => m.offset)).toEqual([40]);
    // A removed shot (seq 2 missing) and an edited fire clock.
    const broken = rows([[10, 0, -1, 1, 0, 100], [30, 0, 2, 3, 200, 300], [40, 0, 3, 4, 250, 400]]);
    const found = checkSeqChains(broken, 3);
    expect(found.map((m) => [m.offset, m.fields.map((f) => f.field.split(' ')[0])])).toEqual([
      [30, ['before.lastSeq', 'before.nextFireMs']],
      [40, ['before.nextFireMs']],
    ]);
    // A pull count moved between two shots (to pick another spread pattern) and an edited spray heat.
    const pulls = rows([[10, 0, -1, 1, 0, 100, 0, 1, 0, 1], [30, 0, 1, 2, 100, 200, 3, 4, 1, 2], [40, 0, 2, 3, 200, 300, 4, 5, 1.5, 2.5]]);
    expect(checkSeqChains(pulls, 3).map((m) => [m.offset, m.fields.map((f) => f.field.split(' ')[0])])).toEqual([
      [30, ['before.pulls']],
      [40, ['before.sprayHeat']],
    ]);
  });
});
