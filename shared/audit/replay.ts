/**
 * The audit replay: walks a match log's records in order, rebuilds every player's snapshot history
 * from the tick records exactly as the room did (same record() calls, same order), runs the same
 * validateShot on every shot record (of the chosen shooters) with the inputs the log carries, and
 * compares the result with the recorded verdict bit for bit. Each shot's row carries the verdict,
 * the segment and the rules state (ShotCol). An observer (ReplayObserver) sees every tick slot and
 * every shot as the replay goes and fills the row's observed columns: the behaviour measures of
 * server/behaviour are one, and the integrity replay knows nothing of them. Pure: the caller builds
 * the scene (world, rig, histories) and hands in the bytes.
 *
 * Partitioning: a shot reads the shooter's rules state and the targets' alive/life-start state
 * from its own record, and the rewound poses from the histories, which hold only the last
 * `capacityTicks` snapshots. So a shard can validate any contiguous range of shots after applying
 * just the tick records from a little before the range (`applyFrom`: the history capacity plus
 * what the observer looks back over), and rebuild exactly the histories a serial replay has there. The
 * chains that run through a shooter's earlier shots (before.lastSeq and before.nextFireMs of shot k
 * = the after values of shot k-1) are checked over the merged rows by `checkSeqChains`, in log
 * order, not in the shards.
 * Shards can also be chosen by shooter (`shooters`); both give the same rows bit for bit.
 */
import { readFrames, readNote, GAP_FRAME_TYPE, NOTE_FRAME_TYPE, type FrameReadResult, type FrameRef } from '../matchlog/frame';
import { RecordType, RECORD_TYPE_NAMES, decodeHeader, readEnd, TICK_U16_UNKNOWN, readEvent, tickSlotBytes, LOG_VERSION_WITH_VIEW, TICK_HEAD_BYTES, TICK_SLOT_INPUTS_AT, TICK_SLOT_STEPS_AT, TICK_SLOT_VIEW_AT, TICK_SLOT_BYTES, TICK_SLOT_BYTES_V6, TICK_SLOT_EYE_AT, TICK_SLOT_STAMP_AT, TICK_SLOT_VIEW_TIME_AT, TICK_TIME_AT, TICK_COUNT_AT, type EndData } from '../matchlog/records';
import { createPayloadScratch, createShotInput, LOG_VERSION_WITH_PELLETS, readShotInput, readVerdict, VERDICT_MAX_BYTES, verdictBytes, writeVerdict } from '../matchlog/shotRecord';
import { compareVerdicts, type FieldMismatch } from '../matchlog/verdictCompare';
import { checkHitHealth } from './hitHealth';
import { validateShot, type ShotScene, type ValidationConfig } from '../validate/shot';
import { createVerdict, type Verdict } from '../validate/verdict';
import { shotBytes } from '../protocol/shot';
import { MAX_PELLETS } from '../weapons';
import { ShotCol, SHOT_COLUMNS, OBSERVED_COLUMNS, type ShotMismatch } from './shotRows';
import type { ReplayHistory, ReplayObserver, TickSlotPose } from './observer';
import { observeShot, writeMessageColumns, writeVerdictColumns } from './shotRowWrite';
import { BodyPoints } from './bodyPoint';
import { readIdentity } from '../matchlog/identityRecord';
import { readFog } from '../matchlog/fogRecord';
import { readFogFlights } from '../matchlog/fogFlightRecord';
import { readFogEnds } from '../matchlog/fogEndRecord';
import { readFogBackfills } from '../matchlog/fogBackfillRecord';

/** Fog records are checked here and counted by the behaviour audit (server/behaviour/fogAudit.ts). */
const ignoreFogChange = (): void => {};

export { ShotCol, SHOT_COLUMNS, OBSERVED_COLUMNS, type ShotMismatch } from './shotRows';
export type { ObservedShot, ReplayHistory, ReplayObserver, ReplayPose, TickSlotPose } from './observer';
export { checkSeqChains } from './seqChains';

export interface ReplayScene extends ShotScene {
  histories: ArrayLike<ReplayHistory & ShotScene['histories'][number]>;
}

export interface ReplayOptions {
  /** Shooters whose shots this replay validates; null = all. */
  shooters: ReadonlySet<number> | null;
  /**
   * Frames this replay reads: [applyFrom, shotsTo). Tick and event records are applied from
   * applyFrom; shots are validated from shotsFrom (>= applyFrom) to shotsTo. Defaults: the whole log.
   */
  applyFrom: number;
  shotsFrom: number;
  shotsTo: number;
  /** Ordinal of the first shot record at or after applyFrom among all shot records of the log. */
  shotIndexBase: number;
  /** Sees every tick slot and shot and fills the rows' observed columns (null: they stay NaN). */
  observer: ReplayObserver | null;
  /** Called with the number of shots validated so far, every `progressEvery` shots. */
  onProgress: ((shots: number) => void) | null;
  progressEvery: number;
  /**
   * Called after each record is applied, in log order, with the newest tick's number and time
   * (-1 and -Infinity before the first): the projectile audit (./projectiles.ts) walks the log
   * beside the replay on the histories it rebuilds. Null: not called.
   */
  onRecord: ((f: FrameRef, tick: number, tickMs: number) => void) | null;
}

export const DEFAULT_REPLAY_OPTIONS: Readonly<ReplayOptions> = Object.freeze({
  shooters: null, applyFrom: 0, shotsFrom: 0, shotsTo: Number.MAX_SAFE_INTEGER, shotIndexBase: 0, observer: null, onProgress: null, progressEvery: 4096, onRecord: null,
});

export interface ReplayResult {
  frames: FrameReadResult;
  header: Record<string, unknown> | null;
  /** Shots this replay validated. */
  shots: number;
  /** Shot records read (from applyFrom on, all shooters). */
  totalShots: number;
  ticks: number;
  /** shots x SHOT_COLUMNS. */
  rows: Float64Array;
  mismatches: ShotMismatch[];
  /** Records that passed their CRC but did not decode (named with offset and type). */
  badRecords: { offset: number; type: string; why: string }[];
  /** Frames the writer marked as dropped (disk failing): records lost in the middle. */
  gaps: { offset: number; records: number }[];
  end: EndData | null;
  /** Milliseconds spent in the record loop (measured by the caller's clock, see replayMatchLog). */
  elapsedMs: number;
}

// scratch: one pose handed to history.record (copied by the history) and the ring
const scratchPose: TickSlotPose = {
  x: 0, y: 0, z: 0, qx: 0, qy: 0, qz: 0, qw: 1, clip: 0, time: 0, alive: true, epoch: 0, eyeHeight: NaN, stampMs: NaN, vx: NaN, vy: NaN, vz: NaN, inputs: NaN, steps: NaN, viewTimeMs: NaN,
};
// scratch: a weapon message of any well-formed length (0..MAX_PELLETS pellets) copied out of the
// log, one view of one buffer per length (validateShot reads it, nothing keeps it)
const scratchPayloads = createPayloadScratch(Array.from({ length: MAX_PELLETS + 1 }, (_, n) => shotBytes(n)));
// scratch: the replayed verdict encoded for the byte comparison (grown for a longer one, once)
let scratchVerdictBytes = new Uint8Array(VERDICT_MAX_BYTES);
let scratchVerdictView = new DataView(scratchVerdictBytes.buffer);

/**
 * What to hand validateShot for a recorded payload: the bytes; for an oversized payload (logged as
 * "oversized:N", not its content, since the pipeline refuses it by length alone) N zero bytes; for
 * anything that was not bytes, null (the pipeline refuses every non-byte value alike).
 */
function shotPayload(payload: Uint8Array | null, nonBytesType: string): Uint8Array | null {
  if (payload !== null) return payload;
  if (nonBytesType.startsWith('oversized:')) {
    const n = Number(nonBytesType.slice(10));
    if (Number.isInteger(n) && n > 0 && n <= 1 << 20) return new Uint8Array(n);
  }
  return null;
}

/**
 * Replays `bytes` (a whole match log). `scene` must be freshly built from the log's header (see
 * server/audit/shard.ts: createMatchScene(world, rig, header.scene)); `config` is the header's
 * validation config; `now` is a clock for elapsedMs only (pass () => 0 when none). Never throws on
 * a damaged log: damage is reported.
 */
export function replayMatchLog(
  bytes: Uint8Array,
  scene: ReplayScene,
  config: ValidationConfig,
  options: Partial<ReplayOptions> = {},
  now: () => number = () => 0,
  frames: FrameReadResult = readFrames(bytes),
): ReplayResult {
  const opt = { ...DEFAULT_REPLAY_OPTIONS, ...options };
  const list = frames.frames;
  const lastFrame = Math.min(list.length, opt.shotsTo);
  const first = Math.max(0, opt.applyFrom);
  // Rows sized once: at most one per shot record in range (no growth branch in the loop).
  let shotFrames = 0;
  for (let fi = Math.max(first, opt.shotsFrom); fi < lastFrame; fi++) if (list[fi]!.type === RecordType.SHOT) shotFrames++;
  const st = new Replay(bytes, scene, config, opt, frames, shotFrames);
  const onRecord = opt.onRecord;
  const result = st.result;
  const t0 = now();

  // The header is read wherever the shard starts.
  if (opt.applyFrom > 0 && list[0]?.type === RecordType.HEADER) {
    const hf = list[0];
    try { result.header = decodeHeader(bytes.subarray(hf.payloadOffset, hf.payloadOffset + hf.payloadLength)); } catch { st.bad(hf.offset, hf.type, 'header is not valid JSON'); }
  }
  // The loop only dispatches: the tick and shot paths are methods, optimised as ordinary hot
  // functions (a cold branch deoptimises one method, not the whole loop).
  for (let fi = first; fi < lastFrame; fi++) {
    const f = list[fi]!;
    const type = f.type;
    if (type === RecordType.TICK) st.applyTick(f);
    else if (type === RecordType.SHOT) st.replayShot(f, fi);
    else st.otherRecord(f);
    if (onRecord !== null) onRecord(f, st.lastTick, st.lastTickMs);
  }
  result.rows = st.rows.subarray(0, result.shots * SHOT_COLUMNS);
  result.elapsedMs = now() - t0;
  return result;
}

/** The state of one replay (one instance per replayMatchLog call). */
class Replay {
  readonly view: DataView;
  /** Rewound body points for the observer (null without one). */
  private readonly body: BodyPoints | null;
  readonly slots: number;
  readonly input = createShotInput();
  readonly recorded = createVerdict();
  readonly replayed = createVerdict();
  readonly scratchFields: FieldMismatch[] = [];
  readonly observer: ReplayObserver | null;
  readonly rows: Float64Array;
  readonly result: ReplayResult;
  /** Bytes of a tick slot, and whether it carries the view and inputs (format 4 on). */
  readonly slotBytes: number;
  readonly hasView: boolean;
  /** The log's format version (frame.ts). */
  readonly version: number;
  /** The newest tick applied: its number and time (-1, -Infinity before the first). */
  lastTick = -1;
  lastTickMs = Number.NEGATIVE_INFINITY;

  constructor(
    readonly bytes: Uint8Array,
    readonly scene: ReplayScene,
    readonly config: ValidationConfig,
    readonly opt: ReplayOptions,
    frames: FrameReadResult,
    maxShots: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.slots = scene.histories.length;
    this.slotBytes = tickSlotBytes(frames.version);
    this.hasView = frames.version >= LOG_VERSION_WITH_VIEW;
    this.version = frames.version;
    this.observer = opt.observer;
    this.body = opt.observer !== null ? new BodyPoints(scene) : null;
    this.rows = new Float64Array(Math.max(1, maxShots) * SHOT_COLUMNS);
    this.result = {
      frames, header: null, shots: 0, totalShots: 0, ticks: 0, rows: this.rows, mismatches: [], badRecords: [], gaps: [], end: null, elapsedMs: 0,
    };
  }

  bad(offset: number, type: number, why: string): void {
    this.result.badRecords.push({ offset, type: RECORD_TYPE_NAMES[type] ?? `type ${type}`, why });
  }

  /**
   * A tick record: every present slot's pose into its history (the room's record() call) and to
   * the observer. Decoded straight from the log into the pose handed to record() (readTick's
   * layout and size check, without its intermediate arrays).
   */
  applyTick(f: FrameRef): void {
    const view = this.view;
    const at = f.payloadOffset;
    const len = f.payloadLength;
    const count = len >= TICK_HEAD_BYTES ? view.getUint16(at + TICK_COUNT_AT, true) : -1;
    const slotBytes = this.slotBytes;
    const hasView = this.hasView;
    const hasViewTime = slotBytes === TICK_SLOT_BYTES_V6;
    const hasEye = slotBytes === TICK_SLOT_BYTES;
    const unknownMarked = hasEye;
    if (count < 0 || len !== TICK_HEAD_BYTES + count * slotBytes) { this.bad(f.offset, f.type, 'tick record sizes do not add up'); return; }
    const tickNo = view.getUint32(at, true);
    const tickMs = view.getFloat64(at + TICK_TIME_AT, true);
    const slots = this.slots;
    const observer = this.observer;
    const histories = this.scene.histories;
    if (observer !== null) observer.beginTick(tickMs);
    for (let i = 0, n = at + TICK_HEAD_BYTES; i < count; i++, n += slotBytes) {
      const slot = view.getUint16(n, true);
      const p = scratchPose;
      p.x = view.getFloat64(n + 2, true); p.y = view.getFloat64(n + 10, true); p.z = view.getFloat64(n + 18, true);
      p.qx = view.getFloat64(n + 26, true); p.qy = view.getFloat64(n + 34, true); p.qz = view.getFloat64(n + 42, true); p.qw = view.getFloat64(n + 50, true);
      p.clip = view.getFloat64(n + 58, true); p.time = view.getFloat64(n + 66, true); p.alive = view.getFloat64(n + 74, true) === 1; p.epoch = view.getFloat64(n + 82, true);
      if (hasView) {
        p.vx = view.getFloat32(n + TICK_SLOT_VIEW_AT, true); p.vy = view.getFloat32(n + TICK_SLOT_VIEW_AT + 4, true); p.vz = view.getFloat32(n + TICK_SLOT_VIEW_AT + 8, true);
        const inputs = view.getUint16(n + TICK_SLOT_INPUTS_AT, true), steps = view.getUint16(n + TICK_SLOT_STEPS_AT, true);
        // Format 7 marks counts the game did not give (readCountU16, spelled out in this hot loop).
        p.inputs = unknownMarked && inputs === TICK_U16_UNKNOWN ? NaN : inputs;
        p.steps = unknownMarked && steps === TICK_U16_UNKNOWN ? NaN : steps;
      }
      // Format 7 on the exact stamp (the eye path ends by it); format 6 its offset as a float32.
      p.stampMs = hasEye ? view.getFloat64(n + TICK_SLOT_STAMP_AT, true) : NaN;
      p.viewTimeMs = hasEye ? p.stampMs : hasViewTime ? tickMs + view.getFloat32(n + TICK_SLOT_VIEW_TIME_AT, true) : NaN;
      p.eyeHeight = hasEye ? view.getFloat64(n + TICK_SLOT_EYE_AT, true) : NaN;
      if (slot >= slots) { this.bad(f.offset, f.type, `slot ${slot} beyond the header's ${slots} players`); continue; }
      histories[slot]!.record(tickNo, tickMs, p);
      if (observer !== null) observer.slot(slot, p);
    }
    if (observer !== null) observer.endTick(tickMs);
    this.lastTick = tickNo;
    this.lastTickMs = tickMs;
    this.result.ticks++;
  }

  /** Header, event, end, gap, note and unknown records. */
  otherRecord(f: FrameRef): void {
    const view = this.view;
    const at = f.payloadOffset;
    const result = this.result;
    switch (f.type) {
      case RecordType.EVENT: {
        const e = readEvent(view, at, f.payloadLength);
        if (e === null) { this.bad(f.offset, f.type, 'unknown event kind or size'); break; }
        // A join starts a new history for the slot (the room clears it the same way).
        if (e.kind === 'join' && e.slot < this.slots) this.scene.histories[e.slot]!.clear();
        break;
      }
      case RecordType.HEADER: {
        try {
          result.header = decodeHeader(this.bytes.subarray(at, at + f.payloadLength));
        } catch {
          this.bad(f.offset, f.type, 'header is not valid JSON');
        }
        break;
      }
      case RecordType.END: {
        result.end = readEnd(view, at, f.payloadLength);
        if (result.end === null) this.bad(f.offset, f.type, 'end record of the wrong size');
        break;
      }
      case GAP_FRAME_TYPE: {
        result.gaps.push({ offset: f.offset, records: f.payloadLength >= 4 ? view.getUint32(at, true) : -1 });
        break;
      }
      case RecordType.PROJECTILE_SPAWN:
      case RecordType.PROJECTILE_END:
      case RecordType.PROJECTILE_BLAST:
        // Re-flown by the projectile audit (./projectiles.ts), which walks the whole log in order.
        break;
      case RecordType.IDENTITY:
        if (readIdentity(view, at, f.payloadLength) === null) this.bad(f.offset, f.type, 'identity record malformed');
        break;
      case RecordType.FOG: {
        const t = readFog(view, at, f.payloadLength, ignoreFogChange);
        if (t !== t) this.bad(f.offset, f.type, 'fog record malformed');
        break;
      }
      case RecordType.FOG_FLIGHTS: {
        const t = readFogFlights(view, at, f.payloadLength, ignoreFogChange);
        if (t !== t) this.bad(f.offset, f.type, 'fog flights record malformed');
        break;
      }
      case RecordType.FOG_ENDS: {
        const id = readFogEnds(view, at, f.payloadLength, ignoreFogChange);
        if (id !== id) this.bad(f.offset, f.type, 'fog ends record malformed');
        break;
      }
      case RecordType.FOG_BACKFILLS: {
        const t = readFogBackfills(view, at, f.payloadLength, ignoreFogChange);
        if (t !== t) this.bad(f.offset, f.type, 'fog backfills record malformed');
        break;
      }
      case NOTE_FRAME_TYPE: {
        // The writer's note on records it could not write: how the log ends (logEnd.ts) reports it.
        if (readNote(view, at, f.payloadLength) === null) this.bad(f.offset, f.type, 'writer note of the wrong size');
        break;
      }
      default:
        this.bad(f.offset, f.type, 'unknown record type');
    }
  }

  /** Names into scratchFields the differing fields of a verdict whose bytes differ; false when the recorded one does not decode. */
  private mismatch(f: FrameRef, vAt: number, end: number): boolean {
    if (readVerdict(this.recorded, this.view, vAt, end, this.version) !== end) { this.bad(f.offset, f.type, 'shot record verdict does not fit'); return false; }
    const fields = compareVerdicts(this.scratchFields, this.recorded, this.replayed, this.version);
    if (fields.length === 0) fields.push({ field: 'verdict bytes (NaN payload or layout)', recorded: NaN, replayed: NaN });
    return true;
  }

  /** Whether `v`, encoded as the room encodes verdicts, is the bytes [vAt, end) of the log. */
  private sameBytes(v: Verdict, vAt: number, end: number): boolean {
    const view = this.view;
    const bytes = this.bytes;
    const version = this.version;
    const need = verdictBytes(v, version);
    if (need !== end - vAt) return false;
    if (need > scratchVerdictBytes.length) {
      scratchVerdictBytes = new Uint8Array(need);
      scratchVerdictView = new DataView(scratchVerdictBytes.buffer);
    }
    const n = writeVerdict(scratchVerdictView, 0, v, version);
    // Four bytes per step (DataView reads any alignment), then the tail byte by byte.
    let i = 0;
    for (; i + 4 <= n; i += 4) if (scratchVerdictView.getInt32(i, true) !== view.getInt32(vAt + i, true)) return false;
    for (; i < n; i++) if (scratchVerdictBytes[i] !== bytes[vAt + i]) return false;
    return true;
  }

  /** A shot record: validate, compare bit for bit, write its row (the observer fills its observed columns). */
  replayShot(f: FrameRef, fi: number): void {
    const opt = this.opt;
    const result = this.result;
    const index = opt.shotIndexBase + result.totalShots++;
    if (fi < opt.shotsFrom) return;
    const input = this.input;
    const at = f.payloadOffset;
    const vAt = readShotInput(input, this.view, at, f.payloadLength, scratchPayloads, this.version);
    const end = at + f.payloadLength;
    if (vAt < 0) { this.bad(f.offset, f.type, 'shot record sizes do not add up'); return; }
    const shooter = input.shooter;
    if (opt.shooters !== null && !opt.shooters.has(shooter)) return;
    const replayed = this.replayed;
    validateShot(replayed, this.scene, this.config, shotPayload(input.payload, input.nonBytesType), input.before, input.timing, input.targets);
    // Bit for bit: encode the replayed verdict as the room did and compare bytes; decode the
    // recorded one and name the differing fields only when the bytes differ.
    const same = this.sameBytes(replayed, vAt, end);
    let v = replayed;
    if (!same) {
      if (!this.mismatch(f, vAt, end)) return;
      v = this.recorded;
    }
    // The health each hit left, held against the verdict the room applied (format 8 on).
    const fields = this.scratchFields;
    if (this.version >= LOG_VERSION_WITH_PELLETS) checkHitHealth(fields, v, input);
    const mismatched = fields.length > 0;
    if (mismatched) {
      result.mismatches.push({ index, offset: f.offset, shooter, seq: v.seq, fields: fields.slice() });
      fields.length = 0;
    }

    const o = result.shots * SHOT_COLUMNS;
    result.shots++;
    if (opt.onProgress !== null && result.shots % opt.progressEvery === 0) opt.onProgress(result.shots);
    writeVerdictColumns(this.rows, o, f.offset, index, input, v, mismatched, this.version);
    writeMessageColumns(this.rows, o, this.view, vAt, input, scratchPayloads);
    const observer = this.observer;
    if (observer === null) {
      this.rows.fill(NaN, o + ShotCol.OBSERVED, o + ShotCol.OBSERVED + OBSERVED_COLUMNS);
      return;
    }
    observeShot(observer, this.rows, o, v, this.slots, this.body);
  }

}
