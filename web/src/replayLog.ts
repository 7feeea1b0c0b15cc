/**
 * A match log (.hrml) opened for viewing: every tick's poses in flat arrays (scrub to any tick),
 * every shot with its segment and recorded verdict, and, for one shot at a time, the scene the
 * room judged it in rebuilt from the log (each history fed the same ticks in the same order, the
 * histories cleared at the same joins) so the page can draw the hitboxes the server rewound to and
 * re-judge the shot with validateShot, which must give the recorded verdict bit for bit; and what to
 * draw for a shot (loggedShotMarks): each pellet of a pull, the walls it passed, its hits; with fog
 * of war on (format 13 on), which enemies each viewer was sent at each tick (sentAt; from format 16
 * on the ticks a backfill handed it with a send too); every
 * projectile's flight (flights: its spawn state and the ticks it flew) and, from format 14 on, from
 * which tick each viewer was sent it (flightSentAt); each flight's end (ends) and, from format 15 on,
 * which viewers were told it (endToldTo).
 * Pure: bytes in, numbers out; runs in the page and in Node tests alike.
 */
import {
  readFrames, decodeHeader, readEvent, readFog, readFogBackfills, readFogFlights, readFogEnds, readSpawn, readProjectileEnd, readShotInput, readShotRecord, compareVerdicts, describeLogEnd, RecordType, TICK_HEAD_BYTES, TICK_SLOT_BYTES, TICK_SLOT_EYE_AT, TICK_SLOT_STAMP_AT, tickSlotBytes,
  type FieldMismatch, type FrameReadResult, type LogEnd, type MatchHeader,
} from '../../shared/audit/index';
import {
  PlayerHistory, Rewinder, VolumeRewinder, OutOfWindow, createPlayerPose, createSpawnData, createEndData, createRewindPolicy, createShotMessage, createVerdict, decodeShot,
  rewindStatusUsable, validateShot, FrameStatus,
  type PlayerPose, type ProjectileSnapshotLike, type Rig, type ShotScene, type Verdict, type World,
} from '../../shared/index';
import { createShotInput, LOG_VERSION_WITH_FOG_ENDS, LOG_VERSION_WITH_FOG_FLIGHTS, type ShotInput } from '../../shared/audit/index';
import { marksOfVerdict, type ShotMarks } from './shotMarks';

/** Ticks a flight's end stays drawn from the tick it ended at. */
export const END_SHOWN_TICKS = 32;

/** Numbers per slot per tick: present, x y z, qx qy qz qw, clip, time, alive, epoch, eye height (NaN: the rules'), input stamp (NaN unknown). */
export const POSE_STRIDE = 14;

/** The log's header record (shared/matchlog/records.ts). */
export type LogHeader = MatchHeader;

export interface LoggedShot {
  /** Ordinal among the log's shot records. */
  index: number;
  /** Byte offset of the record's frame, and its index among the frames. */
  offset: number;
  frame: number;
  shooter: number;
  /** Index into the tick arrays of the newest tick when the shot was judged (-1 before the first). */
  tickIndex: number;
  /** Decoded payload (null when the payload was not a well-formed weapon message). */
  seq: number;
  action: number;
  segment: Float64Array | null;
  verdict: Verdict;
}

/** A projectile of the log: its state after the spawn's catch-up (a snapshot a client re-flies) and the ticks it flew. */
export interface LoggedFlight extends ProjectileSnapshotLike {
  /** Tick indices [fromTick, endTick) it was in flight at (endTick: the log's tick count when no end record came). */
  fromTick: number;
  endTick: number;
  /** Where it ended (NaN: no end record), and who was told the end: viewer slot to the fog ends record's flags. */
  endX: number; endY: number; endZ: number;
  endTold: Map<number, number>;
}

export interface Rejudged {
  /** validateShot on the rebuilt scene. */
  verdict: Verdict;
  /** Fields where it differs from the recorded verdict (empty: bit for bit the same). */
  mismatches: FieldMismatch[];
  /** Every player's pose at the verdict's rewind time, as the room's histories gave it (slot -> pose). */
  rewound: Map<number, PlayerPose>;
}

export class MatchLogView {
  readonly header: LogHeader;
  readonly frames: FrameReadResult;
  /** Where and why the log ends (closed, the writer's note, cut inside or between records). */
  readonly ends: LogEnd;
  readonly slots: number;
  readonly tickTimes: Float64Array;
  readonly tickNumbers: Uint32Array;
  /** tickCount x slots x POSE_STRIDE. */
  readonly poses: Float64Array;
  readonly shots: LoggedShot[] = [];
  /** Joins as (slot, ticks applied before it, frame index): a join clears that slot's history. */
  readonly joins: { slot: number; beforeTick: number; frame: number }[] = [];
  /** Ticks read. */
  readonly ticks: number;
  /** The header said fog of war was on: sentAt tells what each viewer was sent. */
  readonly fogOn: boolean;
  /** Per (viewer * slots + enemy): tick-index spans [from, to) the enemy was sent to the viewer, flat. */
  private readonly fogSent = new Map<number, number[]>();
  /** Every projectile that left its catch-up alive, in spawn order. */
  readonly flights: LoggedFlight[] = [];
  /** The log has fog flights records (fog on, format 14 on): flightSentAt tells which flights each viewer was sent. */
  readonly flightsLogged: boolean;
  /** The log has fog ends records (fog on, format 15 on): endToldTo tells who was told each end. */
  readonly endsLogged: boolean;
  /** Per (flight id * slots + viewer): tick-index spans [from, to) the flight was sent to the viewer, flat. */
  private readonly flightSent = new Map<number, number[]>();
  private readonly view: DataView;

  private constructor(readonly bytes: Uint8Array) {
    this.frames = readFrames(bytes);
    this.ends = describeLogEnd(bytes, this.frames);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const list = this.frames.frames;
    const head = list.find((f) => f.type === RecordType.HEADER);
    if (head === undefined) throw new Error('not a match log with a header record');
    this.header = decodeHeader<LogHeader>(bytes.subarray(head.payloadOffset, head.payloadOffset + head.payloadLength));
    this.slots = this.header.maxPlayers;
    let ticks = 0;
    for (const f of list) if (f.type === RecordType.TICK) ticks++;
    this.tickTimes = new Float64Array(ticks);
    this.tickNumbers = new Uint32Array(ticks);
    this.poses = new Float64Array(ticks * this.slots * POSE_STRIDE);
    const v = this.view;
    let ti = 0;
    const slotBytes = tickSlotBytes(this.frames.version);
    const input = createShotInput();
    const msg = createShotMessage();
    // Fog: a record after tick index k says what that tick's patch carried on; a join or leave ends the slot's pairs.
    this.fogOn = this.header.fog === 'on';
    const n = this.slots;
    const open = new Float64Array(n * n).fill(Number.NaN);
    const close = (p: number, at: number): void => {
      if (open[p] === open[p]) {
        const spans = this.fogSent.get(p) ?? [];
        spans.push(open[p]!, at);
        this.fogSent.set(p, spans);
      }
      open[p] = Number.NaN;
    };
    const fogChange = (viewer: number, enemy: number, sent: boolean): void => {
      if (viewer >= n || enemy >= n || ti === 0) return;
      const p = viewer * n + enemy;
      if (sent && !(open[p] === open[p])) open[p] = ti - 1;
      else if (!sent) close(p, ti - 1);
    };
    // A backfill with a send: the viewer had the enemy's poses from its first pose's time on (the ticks back to it).
    const backfill = (viewer: number, enemy: number, fromMs: number): void => {
      if (viewer >= n || enemy >= n || ti === 0) return;
      const p = viewer * n + enemy;
      if (!(open[p] === open[p])) return;
      let k = open[p]!;
      while (k > 0 && this.tickTimes[k - 1]! >= fromMs) k--;
      open[p] = k;
    };
    const flights = new FlightSpans(this.flights, this.flightSent, n);
    for (let fi = 0; fi < list.length; fi++) {
      const f = list[fi]!;
      const at = f.payloadOffset;
      if (f.type === RecordType.TICK) {
        const count = f.payloadLength >= TICK_HEAD_BYTES ? v.getUint16(at + 12, true) : -1;
        if (count < 0 || f.payloadLength !== TICK_HEAD_BYTES + count * slotBytes) continue;
        this.tickNumbers[ti] = v.getUint32(at, true);
        this.tickTimes[ti] = v.getFloat64(at + 4, true);
        for (let i = 0, n = at + TICK_HEAD_BYTES; i < count; i++, n += slotBytes) {
          const slot = v.getUint16(n, true);
          if (slot >= this.slots) continue;
          const o = (ti * this.slots + slot) * POSE_STRIDE;
          this.poses[o] = 1;
          for (let k = 0; k < 11; k++) this.poses[o + 1 + k] = v.getFloat64(n + 2 + 8 * k, true);
          this.poses[o + 12] = slotBytes === TICK_SLOT_BYTES ? v.getFloat64(n + TICK_SLOT_EYE_AT, true) : NaN;
          this.poses[o + 13] = slotBytes === TICK_SLOT_BYTES ? v.getFloat64(n + TICK_SLOT_STAMP_AT, true) : NaN;
        }
        ti++;
      } else if (f.type === RecordType.SHOT) {
        const verdict = createVerdict();
        if (!readShotRecord(input, verdict, v, at, f.payloadLength, this.frames.version)) continue;
        let segment: Float64Array | null = null;
        let seq = verdict.seq, action = -1;
        if (input.payload !== null && decodeShot(msg, input.payload) === FrameStatus.OK) {
          segment = Float64Array.of(msg.sx, msg.sy, msg.sz, msg.ex, msg.ey, msg.ez);
          seq = msg.seq;
          action = msg.action;
        }
        this.shots.push({ index: this.shots.length, offset: f.offset, frame: fi, shooter: input.shooter, tickIndex: ti - 1, seq, action, segment, verdict });
      } else if (f.type === RecordType.EVENT) {
        const e = readEvent(v, at, f.payloadLength);
        if (e !== null && e.kind === 'join') this.joins.push({ slot: e.slot, beforeTick: ti, frame: fi });
        if (e !== null && (e.kind === 'join' || e.kind === 'leave') && e.slot < n) {
          for (let o = 0; o < n; o++) { close(e.slot * n + o, ti); close(o * n + e.slot, ti); }
          flights.slotChanged(e.slot, ti);
        }
      } else if (f.type === RecordType.FOG) {
        readFog(v, at, f.payloadLength, fogChange);
      } else if (f.type === RecordType.FOG_BACKFILLS) {
        readFogBackfills(v, at, f.payloadLength, backfill);
      } else flights.read(f.type, v, at, f.payloadLength, ti);
    }
    for (let p = 0; p < n * n; p++) close(p, ti);
    flights.finish(ti);
    this.ticks = ti;
    this.flightsLogged = this.fogOn && this.frames.version >= LOG_VERSION_WITH_FOG_FLIGHTS;
    this.endsLogged = this.fogOn && this.frames.version >= LOG_VERSION_WITH_FOG_ENDS;
  }

  static parse(bytes: Uint8Array): MatchLogView {
    return new MatchLogView(bytes);
  }

  /** Whether `enemy` was sent to `viewer` at tick index `i` (always with fog off, and for itself). */
  sentAt(viewer: number, enemy: number, i: number): boolean {
    if (!this.fogOn || viewer === enemy) return true;
    const spans = this.fogSent.get(viewer * this.slots + enemy);
    if (spans === undefined) return false;
    for (let k = 0; k < spans.length; k += 2) if (spans[k]! <= i && i < spans[k + 1]!) return true;
    return false;
  }

  /**
   * Whether flight `id` was sent to `viewer` at tick index `i`: always with no viewer (-1), with fog
   * off, or for a log without fog flights records (it cannot say); else from the tick its send was
   * recorded after, until it ended or the viewer's slot changed hands.
   */
  flightSentAt(viewer: number, id: number, i: number): boolean {
    if (viewer < 0 || !this.flightsLogged) return true;
    const spans = this.flightSent.get(id * this.slots + viewer);
    if (spans === undefined) return false;
    for (let k = 0; k < spans.length; k += 2) if (spans[k]! <= i && i < spans[k + 1]!) return true;
    return false;
  }

  /** The flights in flight at tick index `i` that `viewer` (-1: no one chosen) was sent then. */
  flightsAt(viewer: number, i: number): LoggedFlight[] {
    return this.flights.filter((f) => f.fromTick <= i && i < f.endTick && this.flightSentAt(viewer, f.id, i));
  }

  /**
   * Whether `viewer` was told flight f's end: always with no viewer (-1), with fog off, or for a log
   * without fog ends records (it cannot say); else when a fog ends record names it.
   */
  endToldTo(viewer: number, f: LoggedFlight): boolean {
    return viewer < 0 || !this.endsLogged || f.endTold.has(viewer);
  }

  /** The flights that ended within END_SHOWN_TICKS before tick index `i` (through i) whose end `viewer` (-1: no one chosen) was told. */
  endsAt(viewer: number, i: number): LoggedFlight[] {
    return this.flights.filter((f) => f.endX === f.endX && f.endTick <= i && i < f.endTick + END_SHOWN_TICKS && this.endToldTo(viewer, f));
  }

  /** The pose of `slot` at tick index `i` into out; false when the slot is not in that tick. */
  poseAt(out: PlayerPose, i: number, slot: number): boolean {
    const o = (i * this.slots + slot) * POSE_STRIDE;
    if (i < 0 || i >= this.ticks || this.poses[o] !== 1) return false;
    const p = this.poses;
    out.x = p[o + 1]!; out.y = p[o + 2]!; out.z = p[o + 3]!;
    out.qx = p[o + 4]!; out.qy = p[o + 5]!; out.qz = p[o + 6]!; out.qw = p[o + 7]!;
    out.clip = p[o + 8]!; out.time = p[o + 9]!; out.alive = p[o + 10] === 1; out.epoch = p[o + 11]!; out.eyeHeight = p[o + 12]!; out.stampMs = p[o + 13]!;
    return true;
  }

  /** The shot by shooter slot and seq (the audit report names shots so), or undefined. */
  find(shooter: number, seq: number): LoggedShot | undefined {
    return this.shots.find((s) => s.shooter === shooter && s.seq === seq);
  }

  /**
   * The scene shot `k` was judged in, rebuilt: each history gets the ticks the room's ring held at
   * the time (capacity plus a margin, in log order, joins clearing as they did), then the shot is
   * judged again and every player's rewound pose sampled at its rewind time.
   */
  rejudge(k: number, world: World, rig: Rig): Rejudged {
    const shot = this.shots[k];
    if (shot === undefined) throw new Error(`no shot ${k} in this log (${this.shots.length} shots)`);
    const cap = this.header.scene.capacityTicks;
    const histories: PlayerHistory[] = [];
    for (let s = 0; s < this.slots; s++) histories.push(new PlayerHistory(cap));
    const policy = createRewindPolicy(this.header.scene.windowMs, OutOfWindow.CLAMP);
    const rewinder = new Rewinder(rig, { policy });
    const scene: ShotScene = { world, rewinder, volumes: new VolumeRewinder(rewinder), histories, eyePolicy: policy };
    const pose = createPlayerPose();
    const from = Math.max(0, shot.tickIndex - cap - 2);
    for (let i = from; i <= shot.tickIndex; i++) {
      for (const j of this.joins) if (j.beforeTick === i) histories[j.slot]?.clear();
      for (let s = 0; s < this.slots; s++) if (this.poseAt(pose, i, s)) histories[s]!.record(this.tickNumbers[i]!, this.tickTimes[i]!, pose);
    }
    // Joins between the newest tick and the shot record.
    for (const j of this.joins) if (j.beforeTick === shot.tickIndex + 1 && j.frame < shot.frame) histories[j.slot]?.clear();
    const input: ShotInput = createShotInput();
    const f = this.frames.frames[shot.frame]!;
    readShotInput(input, this.view, f.payloadOffset, f.payloadLength, null, this.frames.version);
    const verdict = createVerdict();
    validateShot(verdict, scene, this.header.validation, shotPayload(input), input.before, input.timing, input.targets);
    const rewound = new Map<number, PlayerPose>();
    if (Number.isFinite(verdict.rewindTimeMs)) {
      for (let s = 0; s < this.slots; s++) {
        const h = histories[s]!;
        if (h.size() === 0) continue;
        const p = createPlayerPose();
        if (rewindStatusUsable(h.sampleAt(p, verdict.rewindTimeMs, policy)) && p.alive) rewound.set(s, p);
      }
    }
    return { verdict, mismatches: compareVerdicts([], shot.verdict, verdict, this.frames.version), rewound };
  }
}

/** Where a shot's drawn marks come from: the log's verdict, the shot judged again here, or its single segment. */
export type MarksSource = 'log' | 'rejudged' | 'segment';

/**
 * What the viewer draws for `shot`: each pellet, the walls it passed and its hits from the recorded
 * verdict; for a log whose verdicts keep no pellets (older formats) those of the verdict judged
 * again from the log (`rejudged`) when it has any, else the single segment as recorded. Null for a
 * shot without a readable segment.
 */
export function loggedShotMarks(shot: LoggedShot, rejudged: Verdict | null): { marks: ShotMarks; from: MarksSource } | null {
  const seg = shot.segment;
  if (seg === null) return null;
  const [sx, sy, sz, ex, ey, ez] = [seg[0]!, seg[1]!, seg[2]!, seg[3]!, seg[4]!, seg[5]!];
  if (shot.verdict.pellets.count > 0) return { marks: marksOfVerdict(shot.verdict, sx, sy, sz, ex, ey, ez), from: 'log' };
  if (rejudged !== null && rejudged.pellets.count > 0 && rejudged.kind === shot.verdict.kind && rejudged.reason === shot.verdict.reason) {
    return { marks: marksOfVerdict(rejudged, sx, sy, sz, ex, ey, ez), from: 'rejudged' };
  }
  return { marks: marksOfVerdict(shot.verdict, sx, sy, sz, ex, ey, ez), from: 'segment' };
}

/** What validateShot was handed for a recorded payload (as the audit replay does). */
function shotPayload(input: ShotInput): Uint8Array | null {
  if (input.payload !== null) return input.payload;
  if (input.nonBytesType.startsWith('oversized:')) {
    const n = Number(input.nonBytesType.slice(10));
    if (Number.isInteger(n) && n > 0 && n <= 1 << 20) return new Uint8Array(n);
  }
  return null;
}

/**
 * The flights of a log as MatchLogView reads it in order: a spawn (its tick index: the next tick
 * record's), its end (the tick whose step ended it: the last tick read), and the sends, each from
 * the tick its fog flights record follows, open until the flight ends or the viewer's slot changes hands.
 */
class FlightSpans {
  private readonly byId = new Map<number, LoggedFlight>();
  /** Every flight by id (byId keeps the ones still flying). */
  private readonly all = new Map<number, LoggedFlight>();
  /** Open sends: key (id * slots + viewer) to the tick index they start at. */
  private readonly open = new Map<number, number>();
  private readonly spawn = createSpawnData();
  private readonly end = createEndData();

  constructor(private readonly flights: LoggedFlight[], private readonly spans: Map<number, number[]>, private readonly slots: number) {}

  /** A spawn, an end or a fog flights record read after `ti` ticks; any other record is not this reader's. */
  read(type: number, v: DataView, at: number, length: number, ti: number): void {
    if (type === RecordType.PROJECTILE_SPAWN) this.spawned(v, at, length, ti);
    else if (type === RecordType.PROJECTILE_END) this.ended(v, at, length, ti);
    else if (type === RecordType.FOG_FLIGHTS && ti > 0) readFogFlights(v, at, length, (viewer, id) => this.sent(viewer, id, ti - 1));
    else if (type === RecordType.FOG_ENDS) readFogEnds(v, at, length, (viewer, flags, id) => { if (viewer < this.slots) this.all.get(id)?.endTold.set(viewer, flags); });
  }

  private spawned(v: DataView, at: number, length: number, ti: number): void {
    const s = this.spawn;
    if (!readSpawn(s, v, at, length) || !s.alive) return;
    const f: LoggedFlight = {
      id: s.id, shooter: s.shooter, weapon: s.weapon, seq: s.seq, timeMs: s.fromMs + s.ageMs, ageMs: s.ageMs,
      x: s.sx, y: s.sy, z: s.sz, vx: s.vx, vy: s.vy, vz: s.vz, bounces: s.bounces, mode: s.mode, fromTick: ti, endTick: Number.POSITIVE_INFINITY,
      endX: Number.NaN, endY: Number.NaN, endZ: Number.NaN, endTold: new Map(),
    };
    this.flights.push(f);
    this.byId.set(f.id, f);
    this.all.set(f.id, f);
  }

  private ended(v: DataView, at: number, length: number, ti: number): void {
    if (!readProjectileEnd(this.end, v, at, length)) return;
    const f = this.byId.get(this.end.id);
    if (f === undefined) return;
    // Ended by the step of the last tick read: in flight through the tick before it.
    f.endTick = Math.max(f.fromTick, ti - 1);
    f.endX = this.end.x; f.endY = this.end.y; f.endZ = this.end.z;
    this.byId.delete(f.id);
    for (let viewer = 0; viewer < this.slots; viewer++) this.close(f.id * this.slots + viewer, f.endTick);
  }

  private sent(viewer: number, id: number, tick: number): void {
    if (viewer >= this.slots) return;
    const key = id * this.slots + viewer;
    if (!this.open.has(key)) this.open.set(key, tick);
  }

  slotChanged(slot: number, ti: number): void {
    for (const key of [...this.open.keys()]) if (key % this.slots === slot) this.close(key, ti);
  }

  finish(ti: number): void {
    for (const f of this.byId.values()) f.endTick = ti;
    for (const key of [...this.open.keys()]) this.close(key, ti);
  }

  private close(key: number, to: number): void {
    const from = this.open.get(key);
    if (from === undefined) return;
    this.open.delete(key);
    const spans = this.spans.get(key) ?? [];
    spans.push(from, to);
    this.spans.set(key, spans);
  }
}
