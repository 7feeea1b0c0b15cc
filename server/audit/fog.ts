/**
 * What a match's fog of war sent to whom, rebuilt from its log (format 13 on): the header's fog mode
 * and the fog records (shared/matchlog/fogRecord.ts) over the tick records and join/leave events.
 * Every (viewer, enemy) pair starts withheld when either joins; a fog record written after tick T
 * says what the patch of tick T carried on. Per viewer slot: enemy-ticks sent and withheld (ticks x
 * enemies present in the tick record), and per pair the spans it was withheld, in match ms. From
 * format 14 on also the projectiles (./fogFlights.ts): per flight who was sent it from when, per
 * viewer the flights sent and the flights of others it was never sent; from format 15 on who was
 * told each flight's end (fog ends records), and per viewer the ends of others' flights told; from
 * format 16 on the backfills (fog backfills records): per viewer how many it was handed, and per
 * withheld span whether its end came with the enemy's poses from before it (backfilledFromMs).
 */
import { LOG_VERSION_WITH_FOG_BACKFILLS, LOG_VERSION_WITH_FOG_ENDS, LOG_VERSION_WITH_FOG_FLIGHTS, type FrameReadResult } from '../../shared/matchlog/frame';
import { readFogBackfills } from '../../shared/matchlog/fogBackfillRecord';
import { readEvent, RecordType, TICK_COUNT_AT, TICK_HEAD_BYTES, TICK_TIME_AT, tickSlotBytes } from '../../shared/matchlog/records';
import { readFog } from '../../shared/matchlog/fogRecord';
import { END_STRUCK_MASKED, END_VICTIMS_MASKED } from '../../shared/matchlog/fogEndRecord';
import { FogFlightsRebuild, type FlightSends } from './fogFlights';

export type { FlightSends };

export interface FogAudit {
  /** The header's fog mode ('unknown': the game did not say, or the log predates format 13). */
  mode: 'on' | 'off' | 'unknown';
  /**
   * Per viewer slot that was ever present: enemy-ticks sent and withheld; projectiles (0 when
   * flightsRecorded is false): flights sent (its own included), flights of others sent, and flights
   * of others that flew while it was present and were never sent to it.
   */
  viewers: { slot: number; enemyTicksSent: number; enemyTicksWithheld: number; flightsSent: number; othersFlightsSent: number; othersFlightsNeverSent: number; othersEndsTold: number; endsToldNeverSent: number; backfills: number }[];
  /** The log records which projectiles were sent to whom (fog on, format 14 on). */
  flightsRecorded: boolean;
  /** The log records who was told each projectile's end (fog on, format 15 on): FlightSends.endTold. */
  endsRecorded: boolean;
  /** The log records the backfills handed out (fog on, format 16 on): viewers' backfills, spans' backfilledFromMs. */
  backfillsRecorded: boolean;
  /** Per projectile (in spawn order): who was sent it from when, and who never was (empty when flightsRecorded is false). */
  flights: FlightSends[];
  /** Fog flights sends naming a flight no spawn record in the log named (or a slot out of range). */
  unknownFlightSends: number;
  /**
   * Per (viewer, enemy) pair: the spans [fromMs, toMs) the enemy was withheld while both were present;
   * backfilledFromMs: the send that ended the span came with the enemy's poses from then on (a
   * backfill; NaN: none, or not recorded).
   */
  withheld: { viewer: number; enemy: number; fromMs: number; toMs: number; backfilledFromMs: number }[];
  /** Fog backfills records that did not read (malformed), and backfills naming a pair with no span just ended (a slot out of range included). */
  badBackfills: number;
  /** Fog records that did not read (malformed). */
  badRecords: number;
}

/** Rebuilds the fog of a log whose header said `mode` (header.fog), over `maxPlayers` slots. */
export function auditFog(bytes: Uint8Array, frames: FrameReadResult, maxPlayers: number, mode: unknown): FogAudit {
  const m = mode === 'on' || mode === 'off' ? mode : 'unknown';
  const out: FogAudit = {
    mode: m, viewers: [], withheld: [], badRecords: 0, flightsRecorded: m === 'on' && frames.version >= LOG_VERSION_WITH_FOG_FLIGHTS, endsRecorded: m === 'on' && frames.version >= LOG_VERSION_WITH_FOG_ENDS,
    backfillsRecorded: m === 'on' && frames.version >= LOG_VERSION_WITH_FOG_BACKFILLS, flights: [], unknownFlightSends: 0, badBackfills: 0,
  };
  const n = Math.max(1, Math.min(256, Math.floor(maxPlayers)));
  const fl = new FogFlightsRebuild(n);
  let ticks = 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const slotBytes = tickSlotBytes(frames.version);
  const sent = new Uint8Array(n * n);
  const since = new Float64Array(n * n).fill(Number.NaN);
  const present = new Uint8Array(n);
  const ever = new Uint8Array(n);
  const on = new Float64Array(n), off = new Float64Array(n), backfills = new Float64Array(n);
  /** Per pair: the index in out.withheld of the span its last send ended (-1: none). */
  const ended = new Int32Array(n * n).fill(-1);
  let pending = false, tickMs = Number.NaN;
  /** The last tick's pairs, counted once its fog record (if any) is applied. */
  const count = (): void => {
    if (!pending) return;
    pending = false;
    fl.tick(present, ticks);
    for (let v = 0; v < n; v++) {
      if (present[v] === 0) continue;
      for (let e = 0; e < n; e++) {
        if (e === v || present[e] === 0) continue;
        const p = v * n + e;
        if (sent[p] === 1) on[v]++;
        else {
          off[v]++;
          if (!(since[p] === since[p])) since[p] = tickMs;
        }
      }
    }
  };
  const close = (p: number, atMs: number): void => {
    ended[p] = -1;
    if (since[p] === since[p]) {
      ended[p] = out.withheld.length;
      out.withheld.push({ viewer: Math.floor(p / n), enemy: p % n, fromMs: since[p]!, toMs: atMs, backfilledFromMs: Number.NaN });
    }
    since[p] = Number.NaN;
  };
  const backfilled = (v: number, e: number, fromMs: number, atMs: number): void => {
    const k = v < n && e < n ? ended[v * n + e]! : -1;
    const span = k >= 0 ? out.withheld[k] : undefined;
    if (span === undefined || span.toMs !== atMs) { out.badBackfills++; return; }
    span.backfilledFromMs = fromMs;
    backfills[v]++;
  };
  const visit = (v: number, e: number, s: boolean): void => {
    if (v >= n || e >= n) return;
    const p = v * n + e;
    sent[p] = s ? 1 : 0;
    if (s) close(p, tickMs);
  };
  const reset = (slot: number, atMs: number): void => {
    for (let o = 0; o < n; o++) {
      close(slot * n + o, atMs); close(o * n + slot, atMs);
      sent[slot * n + o] = 0; sent[o * n + slot] = 0;
    }
  };
  for (const f of frames.frames) {
    const at = f.payloadOffset;
    if (fl.read(f.type, view, at, f.payloadLength, ticks)) continue;
    if (f.type === RecordType.TICK) {
      count();
      if (f.payloadLength < TICK_HEAD_BYTES) continue;
      const k = view.getUint16(at + TICK_COUNT_AT, true);
      if (f.payloadLength !== TICK_HEAD_BYTES + k * slotBytes) continue;
      tickMs = view.getFloat64(at + TICK_TIME_AT, true);
      ticks++;
      present.fill(0);
      for (let i = 0; i < k; i++) {
        const s = view.getUint16(at + TICK_HEAD_BYTES + i * slotBytes, true);
        if (s < n) { present[s] = 1; ever[s] = 1; }
      }
      pending = true;
    } else if (f.type === RecordType.FOG) {
      const t = readFog(view, at, f.payloadLength, visit);
      if (t !== t) out.badRecords++;
    } else if (f.type === RecordType.FOG_BACKFILLS) {
      const t = readFogBackfills(view, at, f.payloadLength, backfilled);
      if (t !== t) out.badBackfills++;
    } else if (f.type === RecordType.EVENT) {
      const e = readEvent(view, at, f.payloadLength);
      if (e !== null && (e.kind === 'join' || e.kind === 'leave') && e.slot < n) {
        count();
        reset(e.slot, e.timeMs);
        fl.slotChanged(e.slot);
        present[e.slot] = 0;
      }
    }
  }
  count();
  for (let p = 0; p < n * n; p++) close(p, tickMs);
  finish(out, fl, ever, on, off, backfills);
  return out;
}

/** The per viewer rows (slots ever present) and, when the log records them, the flights. */
function finish(out: FogAudit, fl: FogFlightsRebuild, ever: Uint8Array, on: Float64Array, off: Float64Array, backfills: Float64Array): void {
  const perViewer = fl.finish();
  const flights = out.flightsRecorded;
  for (let s = 0; s < ever.length; s++) {
    if (ever[s] !== 1) continue;
    const pv = perViewer[s]!;
    out.viewers.push({
      slot: s, enemyTicksSent: on[s]!, enemyTicksWithheld: off[s]!,
      flightsSent: flights ? pv.flightsSent : 0, othersFlightsSent: flights ? pv.othersSent : 0, othersFlightsNeverSent: flights ? pv.othersNeverSent : 0,
      othersEndsTold: out.endsRecorded ? pv.othersEndsTold : 0, endsToldNeverSent: out.endsRecorded ? pv.endsToldNeverSent : 0,
      backfills: backfills[s]!,
    });
  }
  if (flights) {
    out.flights = fl.flights;
    out.unknownFlightSends = fl.unknownSends;
  }
  out.badRecords += fl.badRecords;
}

/** One line per log: the mode and, with fog on, each viewer's enemy-ticks sent and withheld. */
export function fogLine(f: FogAudit): string {
  if (f.mode !== 'on') return `fog of war: ${f.mode === 'off' ? 'off (every client was sent everyone)' : 'not recorded'}`;
  const parts = f.viewers.map((v) => {
    const all = v.enemyTicksSent + v.enemyTicksWithheld;
    return `player ${v.slot} ${v.enemyTicksSent} sent / ${v.enemyTicksWithheld} withheld${all > 0 ? ` (${((100 * v.enemyTicksWithheld) / all).toFixed(0)}%)` : ''}`;
  });
  return `fog of war on, enemy-ticks: ${parts.join('; ') || 'no players'}${f.badRecords > 0 ? `; ${f.badRecords} fog records malformed` : ''}; ${flightsLine(f)}`;
}

/** The projectiles part of fogLine: per viewer the flights of others sent and never sent. */
function flightsLine(f: FogAudit): string {
  if (!f.flightsRecorded) return 'projectile sends not recorded (log format before 14)';
  const ends = (v: FogAudit['viewers'][number]): string => (f.endsRecorded ? `, ${v.othersEndsTold} ends told (${v.endsToldNeverSent} of flights never sent)` : '');
  const parts = f.viewers.map((v) => `player ${v.slot} ${v.othersFlightsSent} sent / ${v.othersFlightsNeverSent} never sent${ends(v)}`);
  return `projectiles of others (${f.flights.length} flights): ${parts.join('; ') || 'no players'}${f.unknownFlightSends > 0 ? `; ${f.unknownFlightSends} sends of unknown flights` : ''}`;
}

/** One line per flight: its shooter, how long it flew, and who was sent it how long after its spawn; who never was. */
export function flightLines(f: FogAudit): string[] {
  const after = (x: FlightSends, t: number): string => (t === t ? `+${(t - x.spawnMs).toFixed(0)} ms` : 'open');
  const told = (x: FlightSends): string => !f.endsRecorded ? '' : `; end told ${x.endTold.map((t) => `p${t.viewer}${t.flags === 0 ? '' : ` (${endFlags(t.flags)})`}`).join(', ') || 'to nobody'}`;
  return f.flights.map((x) => `  flight ${x.id} of player ${x.shooter} (ended ${after(x, x.endMs)}): sent ${x.sent.map((s) => `p${s.viewer} ${after(x, s.fromMs)}`).join(', ') || 'to nobody'}${x.neverSent.length > 0 ? `; never sent p${x.neverSent.join(', p')}` : ''}${told(x)}`);
}

/** A fog ends record's flags in words. */
function endFlags(flags: number): string {
  const w: string[] = [];
  if ((flags & END_STRUCK_MASKED) !== 0) w.push('struck player withheld');
  if ((flags & END_VICTIMS_MASKED) !== 0) w.push('some victims withheld');
  return w.join(', ');
}
