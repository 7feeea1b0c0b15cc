/**
 * The fog flights record (shared/matchlog/fogFlightRecord.ts, format 14): written by the match log's
 * recorder and read back, split into several records past FOG_FLIGHTS_MAX sends, and malformed ones
 * refused whole; the fog ends record (fogEndRecord.ts, format 15) the same; then a scripted log (ticks, joins and leaves, projectile spawns and ends, sends) read
 * by the audit (server/audit/fog.ts auditFog) and the replay viewer (web/src/replayLog.ts), each
 * compared with the script's own account of who was sent which flight from which tick.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MatchLogRecorder } from '../server/matchlog/recorder';
import { TICK_POSE_STRIDE, TickPose, type MatchHeader } from '../server/match/recorder';
import { FOG_FLIGHTS_MAX, FOG_FLIGHTS_HEAD_BYTES, FOG_FLIGHT_BYTES, readFogFlights, writeFogFlights, type FogFlightSends } from '../shared/matchlog/fogFlightRecord';
import { END_STRUCK_MASKED, END_VICTIMS_MASKED, FOG_END_BYTES, FOG_ENDS_HEAD_BYTES, readFogEnds, writeFogEnds, type FogEndTells } from '../shared/matchlog/fogEndRecord';
import { LOG_FORMAT_VERSION, LOG_VERSION_WITH_FOG_ENDS, LOG_VERSION_WITH_FOG_FLIGHTS, readFrames } from '../shared/matchlog/frame';
import { RECORD_TYPE_NAMES, RecordType } from '../shared/matchlog/records';
import { createEndData, createSpawnData } from '../shared/projectile/flights';
import { auditFog } from '../server/audit/fog';
import { END_SHOWN_TICKS, MatchLogView } from '../web/src/replayLog';

const dir = mkdtempSync(join(tmpdir(), 'hitreg-fogflights-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SLOTS = 3;
const HEADER = {
  formatVersion: 1, roomId: 'fogflights', startedAtIso: '', tickRate: 64, maxPlayers: SLOTS, levelPath: '', worldHash: '', rigHash: '',
  validation: {}, scene: { maxPlayers: SLOTS, capacityTicks: 64, windowMs: 250 }, fog: 'on',
} as unknown as MatchHeader;

function sends(pairs: [number, number][], timeMs: number): FogFlightSends {
  return { timeMs, count: pairs.length, viewer: pairs.map((p) => p[0]), id: pairs.map((p) => p[1]) };
}

/** Every send of every fog flights record of `bytes`, with its record's time; and the records that did not read. */
function readAll(bytes: Uint8Array): { sends: [number, number, number][]; bad: number; records: number } {
  const frames = readFrames(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: [number, number, number][] = [];
  let bad = 0, records = 0;
  for (const f of frames.frames) {
    if (f.type !== RecordType.FOG_FLIGHTS) continue;
    records++;
    const t = readFogFlights(view, f.payloadOffset, f.payloadLength, (v, id, tm) => out.push([v, id, tm]));
    if (t !== t) bad++;
  }
  return { sends: out, bad, records };
}

describe('fog flights record', () => {
  it('is format 14, named, and round-trips through the recorder: ids as u32, a long list split into records of the same time', async () => {
    expect(LOG_VERSION_WITH_FOG_FLIGHTS).toBe(14);
    expect(LOG_FORMAT_VERSION).toBeGreaterThanOrEqual(LOG_VERSION_WITH_FOG_FLIGHTS);
    expect(RECORD_TYPE_NAMES[RecordType.FOG_FLIGHTS]).toBe('fog flights');
    const path = join(dir, 'roundtrip.hrml');
    const rec = new MatchLogRecorder({ path });
    rec.header(HEADER);
    const small: [number, number][] = [[0, 0], [2, 4_000_000_000], [1, 17]];
    rec.fogFlights(sends(small, 1234.5));
    const n = FOG_FLIGHTS_MAX + 7;
    const big: [number, number][] = Array.from({ length: n }, (_, i) => [i % SLOTS, (i * 2654435761) >>> 0]);
    rec.fogFlights(sends(big, 99));
    await rec.close();
    const r = readAll(new Uint8Array(readFileSync(path)));
    expect(r.bad).toBe(0);
    expect(r.records).toBe(3);
    const want = [...small.map(([v, id]) => [v, id, 1234.5]), ...big.map(([v, id]) => [v, id, 99])];
    expect(r.sends).toEqual(want);
  });

  it('a record whose length does not match its count, or shorter than its head, is refused whole', () => {
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    const len = writeFogFlights(view, 0, sends([[1, 5], [2, 6]], 10), 0, 2);
    expect(len).toBe(FOG_FLIGHTS_HEAD_BYTES + 2 * FOG_FLIGHT_BYTES);
    const seen: number[] = [];
    expect(readFogFlights(view, 0, len, (v, id) => seen.push(v, id))).toBe(10);
    expect(seen).toEqual([1, 5, 2, 6]);
    for (const bad of [len - 1, len + 1, len + FOG_FLIGHT_BYTES, FOG_FLIGHTS_HEAD_BYTES - 1, 0]) {
      let visits = 0;
      expect(readFogFlights(view, 0, bad, () => visits++), `length ${bad}`).toBeNaN();
      expect(visits).toBe(0);
    }
  });
});

describe('fog ends record', () => {
  const tells = (timeMs: number, id: number, list: [number, number][]): FogEndTells => ({ timeMs, id, count: list.length, viewer: list.map((x) => x[0]), flags: list.map((x) => x[1]) });

  it('is format 15, named, and round-trips through the recorder: the id as u32, each viewer with its flags', async () => {
    expect(LOG_FORMAT_VERSION).toBeGreaterThanOrEqual(LOG_VERSION_WITH_FOG_ENDS);
    expect(LOG_VERSION_WITH_FOG_ENDS).toBe(15);
    expect(RECORD_TYPE_NAMES[RecordType.FOG_ENDS]).toBe('fog ends');
    const path = join(dir, 'ends.hrml');
    const rec = new MatchLogRecorder({ path });
    rec.header(HEADER);
    rec.fogEnds(tells(1500.25, 4_000_000_000, [[0, 0], [2, END_STRUCK_MASKED | END_VICTIMS_MASKED], [1, END_VICTIMS_MASKED]]));
    rec.fogEnds(tells(1600, 3, []));
    await rec.close();
    const bytes = new Uint8Array(readFileSync(path));
    const frames = readFrames(bytes);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const got: number[][] = [];
    for (const f of frames.frames) {
      if (f.type !== RecordType.FOG_ENDS) continue;
      const row: number[] = [];
      const id = readFogEnds(view, f.payloadOffset, f.payloadLength, (v, flags, fid, t) => row.push(v, flags, fid, t));
      got.push([id, ...row]);
    }
    expect(got).toEqual([[4_000_000_000, 0, 0, 4_000_000_000, 1500.25, 2, 3, 4_000_000_000, 1500.25, 1, 2, 4_000_000_000, 1500.25], [3]]);
  });

  it('a record whose length does not match its count, or shorter than its head, is refused whole', () => {
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    const len = writeFogEnds(view, 0, tells(10, 9, [[1, 1], [2, 0]]));
    expect(len).toBe(FOG_ENDS_HEAD_BYTES + 2 * FOG_END_BYTES);
    for (const bad of [len - 1, len + 1, len + FOG_END_BYTES, FOG_ENDS_HEAD_BYTES - 1, 0]) {
      let visits = 0;
      expect(readFogEnds(view, 0, bad, () => visits++), `length ${bad}`).toBeNaN();
      expect(visits).toBe(0);
    }
  });
});

/**
 * The script: per tick (times 1000 + 16 k), the slots present, then what follows its record in
 * order. Flight 7 of slot 2 is sent to its shooter at once and to slot 0 two ticks later, never to
 * slot 1, and ends after tick 5; flight 8 of slot 0 is sent to all at once, slot 1 leaves after tick 7
 * (its send ends there); the log ends with flight 8 still flying. Flight 7's end is told to its
 * shooter and to slot 1 (never sent it) without the struck player, not to slot 0. Two malformed records.
 */
type Step = { spawn: [number, number] } | { end: number } | { send: [number, number][] } | { leave: number } | { bad: number } | { told: [number, [number, number][]] };
const SCRIPT: { present: number[]; after: Step[] }[] = [
  { present: [0, 1, 2], after: [] },
  { present: [0, 1, 2], after: [{ spawn: [7, 2] }] },
  { present: [0, 1, 2], after: [{ send: [[2, 7]] }] },
  { present: [0, 1, 2], after: [{ bad: 5 }] },
  { present: [0, 1, 2], after: [{ send: [[0, 7]] }] },
  { present: [0, 1, 2], after: [{ end: 7 }, { told: [7, [[2, 0], [1, END_STRUCK_MASKED]]] }, { spawn: [8, 0] }] },
  { present: [0, 1, 2], after: [{ send: [[0, 8], [1, 8], [2, 8]] }, { bad: FOG_FLIGHTS_HEAD_BYTES + 1 }] },
  { present: [0, 1, 2], after: [{ leave: 1 }] },
  { present: [0, 2], after: [] },
];
const tickMs = (k: number): number => 1000 + 16 * k;

async function writeScript(path: string): Promise<void> {
  const rec = new MatchLogRecorder({ path });
  rec.header(HEADER);
  const poses = new Float64Array(SLOTS * TICK_POSE_STRIDE);
  for (const s of [0, 1, 2]) rec.event({ kind: 'join', slot: s, timeMs: 990 });
  SCRIPT.forEach((t, k) => {
    poses.fill(0);
    for (const s of t.present) poses[s * TICK_POSE_STRIDE + TickPose.PRESENT] = 1;
    rec.tick({ tick: k, timeMs: tickMs(k), poses });
    for (const a of t.after) {
      if ('spawn' in a) {
        const s = createSpawnData();
        Object.assign(s, { id: a.spawn[0], shooter: a.spawn[1], weapon: 0, seq: 1, alive: true, fromMs: tickMs(k), toMs: tickMs(k), ageMs: 0, sx: 0, sy: 1, sz: 0, vx: 0, vy: 0, vz: 1 });
        rec.projectileSpawn(s);
      } else if ('end' in a) {
        const e = createEndData();
        Object.assign(e, { id: a.end, tick: k, timeMs: tickMs(k) - 3, x: 1, y: 0, z: 2 });
        rec.projectileEnd(e);
      } else if ('send' in a) rec.fogFlights(sends(a.send, tickMs(k)));
      else if ('told' in a) rec.fogEnds({ timeMs: tickMs(k) - 3, id: a.told[0], count: a.told[1].length, viewer: a.told[1].map((x) => x[0]), flags: a.told[1].map((x) => x[1]) });
      else if ('leave' in a) rec.event({ kind: 'leave', slot: a.leave, timeMs: tickMs(k) + 1 });
      else rec.writer!.append(RecordType.FOG_FLIGHTS, new Uint8Array(a.bad));
    }
  });
  await rec.close();
}

/** The script's account: per (flight, viewer) the tick index sent from and the tick index it stopped (end or leave), and each flight's ticks. */
function scriptAccount(): { flights: Map<number, { shooter: number; from: number; to: number }>; sent: Map<string, [number, number]> } {
  const flights = new Map<number, { shooter: number; from: number; to: number }>();
  const sent = new Map<string, [number, number]>();
  SCRIPT.forEach((t, k) => {
    for (const a of t.after) {
      if ('spawn' in a) flights.set(a.spawn[0], { shooter: a.spawn[1], from: k + 1, to: SCRIPT.length });
      else if ('end' in a) {
        flights.get(a.end)!.to = k;
        for (const [key, span] of sent) if (key.startsWith(`${a.end}:`) && span[1] > k) span[1] = k;
      } else if ('send' in a) for (const [v, id] of a.send) sent.set(`${id}:${v}`, [k, SCRIPT.length]);
      else if ('leave' in a) for (const [key, span] of sent) if (key.endsWith(`:${a.leave}`) && span[1] > k + 1) span[1] = k + 1;
    }
  });
  for (const [key, span] of sent) span[1] = Math.min(span[1], flights.get(Number(key.split(':')[0]))!.to);
  return { flights, sent };
}

describe('fog flights in the audit and the replay viewer', () => {
  it('rebuild per flight who was sent it from when, per viewer the flights sent and those of others never sent', async () => {
    const path = join(dir, 'script.hrml');
    await writeScript(path);
    const bytes = new Uint8Array(readFileSync(path));
    const frames = readFrames(bytes);
    expect(frames.corrupt).toEqual([]);
    const account = scriptAccount();
    const a = auditFog(bytes, frames, SLOTS, 'on');
    expect(a.flightsRecorded).toBe(true);
    expect(a.badRecords).toBe(2);
    expect(a.unknownFlightSends).toBe(0);
    expect(a.flights.map((f) => f.id)).toEqual([...account.flights.keys()]);
    for (const f of a.flights) {
      const want = [...account.sent].filter(([key]) => key.startsWith(`${f.id}:`)).map(([key, span]) => ({ viewer: Number(key.split(':')[1]), fromMs: tickMs(span[0]) }));
      expect(f.sent, `flight ${f.id}`).toEqual(want);
      expect(f.shooter).toBe(account.flights.get(f.id)!.shooter);
      // Never sent: present at a tick it was up for sending (from its spawn's next tick to before its end), not its shooter, no send.
      const { from, to, shooter } = account.flights.get(f.id)!;
      const never = [0, 1, 2].filter((v) => v !== shooter && !account.sent.has(`${f.id}:${v}`) && SCRIPT.slice(from, to).some((t) => t.present.includes(v)));
      expect(f.neverSent, `flight ${f.id}`).toEqual(never);
    }
    expect(a.flights.find((f) => f.id === 7)!.endMs).toBe(tickMs(5) - 3);
    expect(a.flights.find((f) => f.id === 8)!.endMs).toBeNaN();
    for (const v of a.viewers) {
      const mine = [...account.sent.keys()].filter((k) => k.endsWith(`:${v.slot}`)).map((k) => Number(k.split(':')[0]));
      const others = mine.filter((id) => account.flights.get(id)!.shooter !== v.slot);
      expect([v.flightsSent, v.othersFlightsSent, v.othersFlightsNeverSent], `viewer ${v.slot}`)
        .toEqual([mine.length, others.length, a.flights.filter((f) => f.neverSent.includes(v.slot)).length]);
    }
    expect(a.viewers.find((v) => v.slot === 1)!.othersFlightsNeverSent).toBe(1);
    // The ends told: flight 7's to its shooter and to slot 1 (never sent it, struck player withheld).
    expect(a.endsRecorded).toBe(true);
    expect(a.flights.map((f) => f.endTold)).toEqual([[{ viewer: 2, flags: 0 }, { viewer: 1, flags: END_STRUCK_MASKED }], []]);
    expect(a.viewers.map((v) => [v.slot, v.othersEndsTold, v.endsToldNeverSent])).toEqual([[0, 0, 0], [1, 1, 1], [2, 0, 0]]);

    const log = MatchLogView.parse(bytes);
    expect(log.flightsLogged).toBe(true);
    expect(log.flights.map((f) => [f.id, f.fromTick, f.endTick])).toEqual([...account.flights].map(([id, f]) => [id, f.from, f.to]));
    for (let i = 0; i < log.ticks; i++) {
      const live = [...account.flights].filter(([, f]) => f.from <= i && i < f.to).map(([id]) => id);
      expect(log.flightsAt(-1, i).map((f) => f.id), `tick ${i}, no viewer`).toEqual(live);
      for (let v = 0; v < SLOTS; v++) {
        const want = live.filter((id) => { const s = account.sent.get(`${id}:${v}`); return s !== undefined && s[0] <= i && i < s[1]; });
        expect(log.flightsAt(v, i).map((f) => f.id), `tick ${i}, viewer ${v}`).toEqual(want);
      }
    }
    // Flight 7's end, drawn from the tick it ended for those told it.
    expect(log.endsLogged).toBe(true);
    const f7 = log.flights.find((f) => f.id === 7)!;
    expect([f7.endX, f7.endY, f7.endZ].every((x) => Number.isFinite(x))).toBe(true);
    const endsFor = (v: number, i: number): number[] => log.endsAt(v, i).map((f) => f.id);
    expect([endsFor(-1, f7.endTick), endsFor(0, f7.endTick), endsFor(1, f7.endTick), endsFor(2, f7.endTick)]).toEqual([[7], [], [7], [7]]);
    expect(endsFor(-1, f7.endTick - 1)).toEqual([]);
    expect(endsFor(-1, f7.endTick + END_SHOWN_TICKS)).toEqual([]);
  });

  it('a version 13 log (no fog flights records) says the projectile sends were not recorded; the viewer draws every flight for every viewer', async () => {
    const path = join(dir, 'script13.hrml');
    await writeScript(path);
    const bytes = new Uint8Array(readFileSync(path));
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(4, 13, true);
    const a = auditFog(bytes, readFrames(bytes), SLOTS, 'on');
    expect([a.flightsRecorded, a.flights.length]).toEqual([false, 0]);
    for (const v of a.viewers) expect([v.flightsSent, v.othersFlightsSent, v.othersFlightsNeverSent]).toEqual([0, 0, 0]);
    const log = MatchLogView.parse(bytes);
    expect(log.flightsLogged).toBe(false);
    for (let i = 0; i < log.ticks; i++) for (let v = 0; v < SLOTS; v++) expect(log.flightsAt(v, i)).toEqual(log.flightsAt(-1, i));
    for (let i = 0; i < log.ticks; i++) for (let v = 0; v < SLOTS; v++) expect(log.endsAt(v, i)).toEqual(log.endsAt(-1, i));
    expect(a.endsRecorded).toBe(false);
  });
});
