/**
 * The room's MatchRecorder as an append-only match log: every call is encoded at once into the
 * writer's in-memory frames (the room reuses its arrays after the call, and nothing here waits on
 * the disk), and MatchLogWriter flushes them in the background. One file per match under
 * `matches/` by default (MATCH_LOG_DIR or the `dir` option to change).
 */
import { join, resolve } from 'node:path';
import type { MatchEvent, MatchHeader, MatchRecorder, ShotRecord, TickRecord } from '../room/recorder';
import { TICK_POSE_STRIDE } from '../room/recorder';
import { RecordType, encodeHeader, tickRecordMaxBytes, writeEnd, writeEvent, writeTick, EVENT_BYTES, END_BYTES } from '../../shared/audit/records';
import { shotRecordMaxBytes, writeShotRecord, type ShotInput } from '../../shared/audit/shotRecord';
import { createShooterState } from '../../shared/validate/verdict';
import { MatchLogWriter, type MatchLogStats, type MatchLogWriterOptions } from './matchLogWriter';

/** Where logs go when nothing says otherwise (relative to the working directory). */
export const DEFAULT_MATCH_LOG_DIR = 'matches';
/** File extension of match logs ("hitreg match log"). */
export const MATCH_LOG_EXT = '.hrml';

/** The log directory: the option, else MATCH_LOG_DIR, else ./matches. */
export function matchLogDir(dir?: string): string {
  return resolve(dir ?? process.env.MATCH_LOG_DIR ?? DEFAULT_MATCH_LOG_DIR);
}

/** A file name that sorts by start time and cannot collide between rooms: <iso time>-<room id>.hrml. */
export function matchLogFileName(roomId: string, startedAt: Date = new Date()): string {
  const safeId = roomId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'room';
  return `${startedAt.toISOString().replace(/[:.]/g, '-')}-${safeId}${MATCH_LOG_EXT}`;
}

export interface MatchLogRecorderOptions extends MatchLogWriterOptions {
  /** Full file path; default `matchLogDir(dir)/matchLogFileName(roomId)`. */
  path?: string;
  dir?: string;
  roomId?: string;
}

export class MatchLogRecorder implements MatchRecorder {
  readonly writer: MatchLogWriter;
  private maxPlayers = 0;
  private lastTick = 0;
  private lastTickMs = Number.NaN;
  private ticks = 0;
  private shots = 0;
  private events = 0;
  private headerWritten = false;
  private closing: Promise<MatchLogStats> | null = null;
  // scratch: the shot record's input, refilled per shot (the codec copies everything out at once)
  private readonly input: ShotInput = {
    tick: 0, shooter: 0, payload: null, nonBytesType: '', timing: { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0 },
    targets: { alive: [], lifeStartMs: [] }, before: createShooterState(-1, []),
    targetHealthAfter: -1, killed: false,
  };

  constructor(options: MatchLogRecorderOptions = {}) {
    const path = options.path ?? join(matchLogDir(options.dir), matchLogFileName(options.roomId ?? 'arena'));
    this.writer = new MatchLogWriter(path, options);
  }

  get path(): string {
    return this.writer.path;
  }

  header(h: MatchHeader): void {
    if (this.headerWritten) throw new Error('MatchLogRecorder.header: called twice; one recorder records one match');
    this.headerWritten = true;
    this.maxPlayers = h.maxPlayers;
    this.writer.append(RecordType.HEADER, encodeHeader(h));
  }

  tick(t: TickRecord): void {
    const slots = Math.min(this.maxPlayers, Math.floor(t.poses.length / TICK_POSE_STRIDE));
    const at = this.writer.begin(RecordType.TICK, tickRecordMaxBytes(slots));
    this.writer.end(writeTick(this.writer.view, at, t.tick, t.timeMs, t.poses, slots, TICK_POSE_STRIDE));
    this.lastTick = t.tick;
    this.lastTickMs = t.timeMs;
    this.ticks++;
  }

  shot(s: ShotRecord): void {
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
    const at = this.writer.begin(RecordType.SHOT, shotRecordMaxBytes(input, s.verdict));
    this.writer.end(writeShotRecord(this.writer.view, at, input, s.verdict));
    this.shots++;
  }

  event(e: MatchEvent): void {
    const at = this.writer.begin(RecordType.EVENT, EVENT_BYTES);
    this.writer.end(writeEvent(this.writer.view, at, e));
    this.events++;
  }

  /** Writes the END record, flushes, syncs and closes. Safe to call more than once. */
  async close(): Promise<void> {
    await this.finish();
  }

  /** close(), resolving with the writer's final counters. */
  finish(): Promise<MatchLogStats> {
    if (!this.closing) {
      const at = this.writer.begin(RecordType.END, END_BYTES);
      this.writer.end(writeEnd(this.writer.view, at, { ticks: this.ticks, shots: this.shots, events: this.events, lastTickMs: this.lastTickMs }));
      this.closing = this.writer.close();
    }
    return this.closing;
  }
}
