/**
 * A match's MatchRecorder as an append-only match log: every call is encoded at once into the
 * writer's in-memory frames (the room reuses its arrays after the call, and nothing here waits on
 * the disk), and MatchLogWriter flushes them in the background. One file per match under
 * `matches/` by default (MATCH_LOG_DIR or the `dir` option to change).
 *
 * With `openAt: 'firstJoin'` (what game servers use) the file is created at the first join event:
 * a room nobody ever joins (a seat reserved by matchmaking and never taken) leaves no file. The
 * ticks before that join, which hold no player, are not written.
 */
import { join, resolve } from 'node:path';
import type { MatchEvent, MatchHeader, MatchRecorder, ShotRecord, TickRecord } from '../match/recorder';
import { TICK_POSE_STRIDE } from '../match/recorder';
import { blastRecordBytes, END_RECORD_BYTES, SPAWN_BYTES, writeBlast, writeEnd as writeProjectileEnd, writeSpawn } from '../../shared/matchlog/projectileRecord';
import type { ProjectileBlastData, ProjectileEndData, ProjectileSpawnData } from '../../shared/projectile/flights';
import { RecordType, encodeHeader, tickRecordMaxBytes, writeEnd, writeEvent, writeTick, EVENT_BYTES, END_BYTES } from '../../shared/matchlog/records';
import { identityRecordBytes, playerIdBytes, writeIdentity } from '../../shared/matchlog/identityRecord';
import { FOG_MAX_CHANGES, fogRecordBytes, writeFog, type FogChanges } from '../../shared/matchlog/fogRecord';
import { FOG_ENDS_MAX, fogEndsRecordBytes, writeFogEnds, type FogEndTells } from '../../shared/matchlog/fogEndRecord';
import { FOG_FLIGHTS_MAX, fogFlightsRecordBytes, writeFogFlights, type FogFlightSends } from '../../shared/matchlog/fogFlightRecord';
import { FOG_BACKFILLS_MAX, fogBackfillsRecordBytes, writeFogBackfills, type FogBackfills } from '../../shared/matchlog/fogBackfillRecord';
import { shotRecordMaxBytes, writeShotRecord, type ShotInput } from '../../shared/matchlog/shotRecord';
import { createShooterState } from '../../shared/validate/verdict';
import { MatchLogWriter, type MatchLogStats, type MatchLogWriterOptions } from './writer';

/** Where logs go when nothing says otherwise (relative to the working directory). */
export const DEFAULT_MATCH_LOG_DIR = 'matches';
/** File extension of match logs ("hitreg match log"). */
export const MATCH_LOG_EXT = '.hrml';

/** The log directory: the option, else MATCH_LOG_DIR, else ./matches. */
export function matchLogDir(dir?: string): string {
  return resolve(dir ?? process.env.MATCH_LOG_DIR ?? DEFAULT_MATCH_LOG_DIR);
}

const safeName = (s: string, fallback: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || fallback;

/**
 * A file name that sorts by start time and cannot collide between rooms, processes or machines:
 * <iso time>-<origin>-<room id>.hrml, where the origin names the process (game servers give the
 * host name and Colyseus's process id; without one the name is <iso time>-<room id>.hrml). Files
 * from many processes can share one directory and one audit.
 */
export function matchLogFileName(roomId: string, startedAt: Date = new Date(), origin?: string): string {
  const at = startedAt.toISOString().replace(/[:.]/g, '-');
  const from = origin === undefined ? '' : `${safeName(origin, 'process')}-`;
  return `${at}-${from}${safeName(roomId, 'room')}${MATCH_LOG_EXT}`;
}

export interface MatchLogRecorderOptions extends MatchLogWriterOptions {
  /** Full file path; default `matchLogDir(dir)/matchLogFileName(roomId)`. */
  path?: string;
  dir?: string;
  roomId?: string;
  /** The process that writes the log, in the default file name (matchLogFileName). */
  origin?: string;
  /** 'start' (default): the file is created at once; 'firstJoin': at the first join event. */
  openAt?: 'start' | 'firstJoin';
  /** Called once the log is closed (its END record written and flushed, or it never opened), with its counters. */
  onClosed?: (stats: MatchLogStats) => void;
}

export class MatchLogRecorder implements MatchRecorder {
  private writerOrNull: MatchLogWriter | null = null;
  private readonly filePath: string;
  private readonly writerOptions: MatchLogWriterOptions;
  private pendingHeader: Uint8Array | null = null;
  private maxPlayers = 0;
  private lastTick = 0;
  private lastTickMs = Number.NaN;
  private ticks = 0;
  private shots = 0;
  private events = 0;
  private headerWritten = false;
  private closing: Promise<MatchLogStats> | null = null;
  private readonly onClosed: ((stats: MatchLogStats) => void) | undefined;
  // scratch: the shot record's input, refilled per shot (the codec copies everything out at once)
  private readonly input: ShotInput = {
    tick: 0, shooter: 0, payload: null, nonBytesType: '', timing: { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, shooterDiedMs: Number.NaN, streamFloorMs: Number.NaN },
    targets: { alive: [], lifeStartMs: [], leftMs: [], team: [] }, before: createShooterState(-1, []),
    targetHealthAfter: -1, killed: false, hitHealthAfter: [], hitKilled: [],
  };

  constructor(options: MatchLogRecorderOptions = {}) {
    this.filePath = options.path ?? join(matchLogDir(options.dir), matchLogFileName(options.roomId ?? 'arena', new Date(), options.origin));
    this.writerOptions = options;
    this.onClosed = options.onClosed;
    if (options.openAt !== 'firstJoin') this.open();
  }

  get path(): string {
    return this.filePath;
  }

  /** The file's writer; null while a 'firstJoin' log waits for its first join. */
  get writer(): MatchLogWriter | null {
    return this.writerOrNull;
  }

  /** Bytes of this log handed to the OS so far. */
  get bytesWritten(): number {
    return this.writerOrNull?.stats.bytesWritten ?? 0;
  }

  private open(): MatchLogWriter {
    const w = new MatchLogWriter(this.filePath, this.writerOptions);
    this.writerOrNull = w;
    if (this.pendingHeader !== null) {
      w.append(RecordType.HEADER, this.pendingHeader);
      this.pendingHeader = null;
    }
    return w;
  }

  header(h: MatchHeader): void {
    if (this.headerWritten) throw new Error('MatchLogRecorder.header: called twice; one recorder records one match');
    this.headerWritten = true;
    this.maxPlayers = h.maxPlayers;
    if (this.writerOrNull === null) this.pendingHeader = encodeHeader(h);
    else this.writerOrNull.append(RecordType.HEADER, encodeHeader(h));
  }

  tick(t: TickRecord): void {
    if (this.writerOrNull === null) return;
    this.tickInto(this.writerOrNull, t);
  }

  private tickInto(writer: MatchLogWriter, t: TickRecord): void {
    const slots = Math.min(this.maxPlayers, Math.floor(t.poses.length / TICK_POSE_STRIDE));
    const at = writer.begin(RecordType.TICK, tickRecordMaxBytes(slots));
    writer.end(writeTick(writer.view, at, t.tick, t.timeMs, t.poses, slots, TICK_POSE_STRIDE));
    this.lastTick = t.tick;
    this.lastTickMs = t.timeMs;
    this.ticks++;
  }

  shot(s: ShotRecord): void {
    const writer = this.writerOrNull ?? this.open();
    const input = this.input;
    input.tick = this.lastTick;
    input.shooter = s.shooterBefore.slot;
    input.payload = s.bytes;
    input.nonBytesType = s.bytes === null ? (s.nonBytesType ?? 'unknown') : '';
    input.timing = s.timing;
    input.targets = s.targets;
    input.before = s.shooterBefore;
    input.targetHealthAfter = s.targetHealthAfter;
    input.killed = s.killed;
    input.hitHealthAfter = s.hitHealthAfter;
    input.hitKilled = s.hitKilled;
    const at = writer.begin(RecordType.SHOT, shotRecordMaxBytes(input, s.verdict));
    writer.end(writeShotRecord(writer.view, at, input, s.verdict));
    this.shots++;
  }

  event(e: MatchEvent): void {
    const writer = this.writerOrNull ?? this.open();
    const at = writer.begin(RecordType.EVENT, EVENT_BYTES);
    writer.end(writeEvent(writer.view, at, e));
    this.events++;
  }

  projectileSpawn(s: ProjectileSpawnData): void {
    const writer = this.writerOrNull ?? this.open();
    const at = writer.begin(RecordType.PROJECTILE_SPAWN, SPAWN_BYTES);
    writer.end(writeSpawn(writer.view, at, s));
  }

  projectileEnd(e: ProjectileEndData): void {
    const writer = this.writerOrNull ?? this.open();
    const at = writer.begin(RecordType.PROJECTILE_END, END_RECORD_BYTES);
    writer.end(writeProjectileEnd(writer.view, at, e));
  }

  projectileBlast(b: ProjectileBlastData): void {
    const writer = this.writerOrNull ?? this.open();
    const at = writer.begin(RecordType.PROJECTILE_BLAST, blastRecordBytes(b));
    writer.end(writeBlast(writer.view, at, b));
  }

  fog(c: FogChanges): void {
    const writer = this.writerOrNull ?? this.open();
    for (let from = 0; from < c.count; from += FOG_MAX_CHANGES) {
      const n = Math.min(FOG_MAX_CHANGES, c.count - from);
      const at = writer.begin(RecordType.FOG, fogRecordBytes(n));
      writer.end(writeFog(writer.view, at, c, from, n));
    }
  }

  fogFlights(c: FogFlightSends): void {
    const writer = this.writerOrNull ?? this.open();
    for (let from = 0; from < c.count; from += FOG_FLIGHTS_MAX) {
      const n = Math.min(FOG_FLIGHTS_MAX, c.count - from);
      const at = writer.begin(RecordType.FOG_FLIGHTS, fogFlightsRecordBytes(n));
      writer.end(writeFogFlights(writer.view, at, c, from, n));
    }
  }

  fogBackfills(c: FogBackfills): void {
    const writer = this.writerOrNull ?? this.open();
    for (let from = 0; from < c.count; from += FOG_BACKFILLS_MAX) {
      const n = Math.min(FOG_BACKFILLS_MAX, c.count - from);
      const at = writer.begin(RecordType.FOG_BACKFILLS, fogBackfillsRecordBytes(n));
      writer.end(writeFogBackfills(writer.view, at, c, from, n));
    }
  }

  fogEnds(c: FogEndTells): void {
    const writer = this.writerOrNull ?? this.open();
    const at = writer.begin(RecordType.FOG_ENDS, fogEndsRecordBytes(Math.min(c.count, FOG_ENDS_MAX)));
    writer.end(writeFogEnds(writer.view, at, c));
  }

  identity(i: { slot: number; playerId: string; verified: boolean }): void {
    const id = playerIdBytes(i.playerId);
    if (id === null) return;
    const writer = this.writerOrNull ?? this.open();
    const at = writer.begin(RecordType.IDENTITY, identityRecordBytes(id.length));
    writer.end(writeIdentity(writer.view, at, i.slot, i.verified, id));
  }

  /** Writes the END record, flushes, syncs and closes. Safe to call more than once. */
  async close(): Promise<void> {
    await this.finish();
  }

  /** close(), resolving with the writer's final counters (all zero when the file was never opened). */
  finish(): Promise<MatchLogStats> {
    if (!this.closing) {
      this.closing = this.end();
      const onClosed = this.onClosed;
      if (onClosed !== undefined) void this.closing.then(onClosed, () => {});
    }
    return this.closing;
  }

  private end(): Promise<MatchLogStats> {
    const writer = this.writerOrNull;
    if (writer === null) {
      return Promise.resolve({
        records: 0, bytesWritten: 0, bytesDurable: 0, bytesPending: 0, errors: 0, lastError: null, droppedRecords: 0, droppedBytes: 0, note: null, closed: true,
      });
    }
    const at = writer.begin(RecordType.END, END_BYTES);
    writer.end(writeEnd(writer.view, at, { ticks: this.ticks, shots: this.shots, events: this.events, lastTickMs: this.lastTickMs }));
    return writer.close();
  }
}
