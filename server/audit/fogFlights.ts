/**
 * Which projectiles a match's fog of war sent to whom, rebuilt from its log (format 14 on): the
 * projectile spawn and end records give each flight's shooter and life, the fog flights records
 * (shared/matchlog/fogFlightRecord.ts) who was sent it from when, and the tick records who was
 * present while it flew. Fed by auditFog (./fog.ts) as it walks the log in order.
 *
 * A flight counts as up for sending to a viewer at a tick when it was spawned before that tick's
 * record and had not ended by the tick's fog update (its end record comes before the next tick
 * record), and the viewer was in the tick record: a viewer so present at any tick of the flight and
 * never sent it (not its shooter) was withheld the whole flight. From format 15 on the fog ends
 * records say who was told each flight's end, and how (the struck player or some victims withheld).
 */
import { createEndData, createSpawnData } from '../../shared/projectile/flights';
import { readEnd, readSpawn } from '../../shared/matchlog/projectileRecord';
import { readFogFlights } from '../../shared/matchlog/fogFlightRecord';
import { readFogEnds } from '../../shared/matchlog/fogEndRecord';
import { RecordType } from '../../shared/matchlog/records';

/** One flight: its shooter, life (match ms) and who was sent it from when. */
export interface FlightSends {
  id: number;
  shooter: number;
  /** The time its spawn was caught up to, and of its end (NaN: still flying where the log ends). */
  spawnMs: number;
  endMs: number;
  /** Each send, in log order: the viewer slot and the tick from whose patch on it was sent. */
  sent: { viewer: number; fromMs: number }[];
  /** Viewers present while it flew that were never sent it (its shooter excluded). */
  neverSent: number[];
  /**
   * Who was told its end (fog ends records, format 15 on; empty before), in log order: the viewer
   * slot and the record's flags (shared/matchlog/fogEndRecord.ts END_STRUCK_MASKED, END_VICTIMS_MASKED).
   */
  endTold: { viewer: number; flags: number }[];
}

/** Per viewer slot: flights sent (its own included), flights of others sent, and flights of others never sent. */
export interface ViewerFlights {
  flightsSent: number;
  othersSent: number;
  othersNeverSent: number;
  /** Ends of others' flights it was told, and of those the ends of flights it was never sent. */
  othersEndsTold: number;
  endsToldNeverSent: number;
}

interface Live {
  rec: FlightSends;
  /** Ticks read before its spawn record. */
  born: number;
  /** Per viewer slot: present at a tick it was up for sending (1), sent it (2 | 1). */
  mark: Uint8Array;
}

export class FogFlightsRebuild {
  readonly flights: FlightSends[] = [];
  /** Fog flights and fog ends records that did not read, and sends or ends told of a flight no spawn record named. */
  badRecords = 0;
  unknownSends = 0;
  private readonly live = new Map<number, Live>();
  private readonly byId = new Map<number, FlightSends>();
  private readonly spawn = createSpawnData();
  private readonly end = createEndData();
  private readonly perViewer: ViewerFlights[];

  constructor(private readonly n: number) {
    this.perViewer = Array.from({ length: n }, () => ({ flightsSent: 0, othersSent: 0, othersNeverSent: 0, othersEndsTold: 0, endsToldNeverSent: 0 }));
  }

  /** Reads a record of type `type` when it is one of this rebuild's (spawn, end, fog flights, fog ends); false for any other. */
  read(type: number, view: DataView, at: number, length: number, ticks: number): boolean {
    if (type === RecordType.FOG_FLIGHTS) this.sends(view, at, length);
    else if (type === RecordType.FOG_ENDS) this.told(view, at, length);
    else if (type === RecordType.PROJECTILE_SPAWN) this.spawned(view, at, length, ticks);
    else if (type === RecordType.PROJECTILE_END) this.ended(view, at, length);
    else return false;
    return true;
  }

  /** A projectile spawn record (after `ticks` tick records). */
  spawned(view: DataView, at: number, length: number, ticks: number): void {
    if (!readSpawn(this.spawn, view, at, length)) return;
    const rec: FlightSends = { id: this.spawn.id, shooter: this.spawn.shooter, spawnMs: this.spawn.toMs, endMs: Number.NaN, sent: [], neverSent: [], endTold: [] };
    this.flights.push(rec);
    this.byId.set(rec.id, rec);
    this.live.set(rec.id, { rec, born: ticks, mark: new Uint8Array(this.n) });
  }

  /** A projectile end record: the flight is closed. */
  ended(view: DataView, at: number, length: number): void {
    if (!readEnd(this.end, view, at, length)) return;
    const l = this.live.get(this.end.id);
    if (l === undefined) return;
    l.rec.endMs = this.end.timeMs;
    this.close(l);
  }

  /** A fog flights record: each viewer sent a flight from the record's time (its tick's) on. */
  sends(view: DataView, at: number, length: number): void {
    const t = readFogFlights(view, at, length, (viewer, id, timeMs) => {
      const l = this.live.get(id);
      if (l === undefined || viewer >= this.n) { this.unknownSends++; return; }
      l.rec.sent.push({ viewer, fromMs: timeMs });
      l.mark[viewer]! |= 2;
    });
    if (t !== t) this.badRecords++;
  }

  /** A fog ends record: who was told a flight's end (written after its end record), and how. */
  told(view: DataView, at: number, length: number): void {
    const id = readFogEnds(view, at, length, (viewer, flags, fid) => {
      const rec = this.byId.get(fid);
      if (rec === undefined || viewer >= this.n) { this.unknownSends++; return; }
      rec.endTold.push({ viewer, flags });
      if (viewer === rec.shooter) return;
      const p = this.perViewer[viewer]!;
      p.othersEndsTold++;
      if (!rec.sent.some((s) => s.viewer === viewer)) p.endsToldNeverSent++;
    });
    if (id !== id) this.badRecords++;
  }

  /** The slot changed hands (a join or leave): what its last occupant was sent of each flight is settled. */
  slotChanged(slot: number): void {
    if (slot >= this.n) return;
    for (const l of this.live.values()) {
      this.settle(l, slot);
      l.mark[slot] = 0;
    }
  }

  /** The tick read as number `ticks` (count from 1) with `present` slots, at its fog update. */
  tick(present: Uint8Array, ticks: number): void {
    for (const l of this.live.values()) {
      if (l.born >= ticks) continue;
      for (let v = 0; v < this.n; v++) if (present[v] === 1) l.mark[v]! |= 1;
    }
  }

  /** Closes the flights still flying; returns the per viewer counts. */
  finish(): ViewerFlights[] {
    for (const l of this.live.values()) this.close(l);
    return this.perViewer;
  }

  private close(l: Live): void {
    this.live.delete(l.rec.id);
    for (let v = 0; v < this.n; v++) this.settle(l, v);
  }

  /** Counts viewer v's part of flight l (once: its mark is spent). */
  private settle(l: Live, v: number): void {
    const m = l.mark[v]!, p = this.perViewer[v]!, own = v === l.rec.shooter;
    if ((m & 2) !== 0) {
      p.flightsSent++;
      if (!own) p.othersSent++;
    } else if (m === 1 && !own && !l.rec.neverSent.includes(v)) {
      p.othersNeverSent++;
      l.rec.neverSent.push(v);
    }
    l.mark[v] = 0;
  }
}
