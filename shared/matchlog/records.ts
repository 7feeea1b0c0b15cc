/**
 * The match log's record types and the codecs of everything but shots (see ./shotRecord): the
 * header (JSON: hashes, rules, scene options; written once), tick snapshots (every present
 * player's pose exactly as the room recorded it into the history) and match events (join, leave,
 * death, respawn). Pure (DataView, TextEncoder) so a browser tool can read logs too.
 *
 * TICK layout: u32 tick, f64 time ms, u16 count n, then n x (u16 slot, 11 x f64: x y z qx qy qz qw
 *   clip time alive epoch, 3 x f32: the view direction the room applied (unit; NaN when the game
 *   does not say), u16 input messages taken since the previous tick, u16 movement steps the tick
 *   took (both 0xFFFF when unknown, from format 7), f64 the stamp of the newest input stepped (the
 *   client's estimate of the server clock, ms: where a shot's eye path ends, and when the view was
 *   aimed; NaN when unknown), f64 the eye height above the root, metres (NaN: the rules'
 *   eyeHeightM)) -- the match's TICK_POSE_STRIDE numbers minus "present" (only present slots are
 *   written). Version 3 logs lack the last 32 bytes of a slot (TICK_SLOT_BYTES_V3), versions 4 and 5
 *   the last 16 (TICK_SLOT_BYTES_V4); version 6 logs have a f32 in their place: the stamp less the
 *   tick's time (TICK_SLOT_BYTES_V6), and no eye height.
 * EVENT layout: u8 kind, u8 reserved, u16 slot, f64 time ms, f64 x, f64 y, f64 z, f64 other
 *   (NaN when the event has no such field).
 * END layout: u32 ticks, u32 shots, u32 events, f64 time ms of the last tick (a log without END was
 *   cut short: the server died or the file was truncated).
 */
import type { ValidationConfig } from '../validate/shot';
import type { MoveConfig } from '../movement/step';

/**
 * The header record's own layout version, written in its `formatVersion` field: the JSON header has
 * kept its layout since format 2 of the log. The log's format version (frame.ts LOG_FORMAT_VERSION)
 * is in the file's preamble, not here.
 */
export const HEADER_LAYOUT_VERSION = 2;

/** The header record: everything a replay needs to rebuild the room's scene and rules. */
export interface MatchHeader {
  /** HEADER_LAYOUT_VERSION. */
  formatVersion: typeof HEADER_LAYOUT_VERSION;
  roomId: string;
  /** Wall-clock start, informational only (verdicts use server ms from the room's monotonic clock). */
  startedAtIso: string;
  tickRate: number;
  maxPlayers: number;
  levelPath: string;
  worldHash: string;
  rigHash: string;
  /** The rules: weapons, zone multipliers, window and tolerances. */
  validation: ValidationConfig;
  /** How histories and the rewinder are built: ring capacity in ticks, rewind reach in ms. */
  scene: { maxPlayers: number; capacityTicks: number; windowMs: number };
  /** Projectiles the match flew at once at most (format 11 on; launches past it were refused PROJECTILE_LIMIT). */
  maxProjectiles?: number;
  /** The movement rules of hitreg's own movement step, when the game uses it (absent otherwise). */
  movement?: MoveConfig;
  /**
   * Server-side fog of war (format 13 on): 'on' when enemies were withheld per viewer (the log's fog
   * records say which, when), 'off' when every client was sent everyone; absent when the game did not say.
   */
  fog?: 'on' | 'off';
}

export const RecordType = {
  HEADER: 1,
  TICK: 2,
  SHOT: 3,
  EVENT: 4,
  END: 5,
  /** Projectiles (format 10 on, ./projectileRecord): a spawn, a flight's end, a blast. */
  PROJECTILE_SPAWN: 6,
  PROJECTILE_END: 7,
  PROJECTILE_BLAST: 8,
  /** Who joined on a slot (format 12 on, ./identityRecord). */
  IDENTITY: 9,
  /** What a server-side fog of war started or stopped sending to whom (format 13 on, ./fogRecord). */
  FOG: 10,
  /** Which projectiles a server-side fog of war newly sent to whom (format 14 on, ./fogFlightRecord). */
  FOG_FLIGHTS: 11,
  /** Who a server-side fog of war let the game tell a projectile's end (format 15 on, ./fogEndRecord). */
  FOG_ENDS: 12,
  /** The backfills a server-side fog of war handed the game for viewers sent an enemy again (format 16 on, ./fogBackfillRecord). */
  FOG_BACKFILLS: 13,
} as const;
export type RecordType = (typeof RecordType)[keyof typeof RecordType];

export const RECORD_TYPE_NAMES: Readonly<Record<number, string>> = Object.freeze({
  1: 'header', 2: 'tick', 3: 'shot', 4: 'event', 5: 'end', 6: 'projectile spawn', 7: 'projectile end', 8: 'projectile blast', 9: 'identity', 10: 'fog', 11: 'fog flights', 12: 'fog ends', 13: 'fog backfills', 254: 'note', 255: 'gap',
});

/** f64 numbers per present player in a tick record (x y z qx qy qz qw clip time alive epoch). */
export const TICK_SLOT_NUMBERS = 11;
/** Bytes of a slot in a version 3 tick record: the f64 numbers only. */
export const TICK_SLOT_BYTES_V3 = 2 + 8 * TICK_SLOT_NUMBERS;
/**
 * Offset in a slot of the view (3 x f32), the inputs taken (u16), the movement steps (u16) and the
 * view's time relative to the tick (f32).
 */
export const TICK_SLOT_VIEW_AT = TICK_SLOT_BYTES_V3;
export const TICK_SLOT_INPUTS_AT = TICK_SLOT_VIEW_AT + 12;
export const TICK_SLOT_STEPS_AT = TICK_SLOT_INPUTS_AT + 2;
/** Bytes of a slot in a version 4 or 5 tick record: no view time. */
export const TICK_SLOT_BYTES_V4 = TICK_SLOT_STEPS_AT + 2;
export const TICK_SLOT_VIEW_TIME_AT = TICK_SLOT_BYTES_V4;
/** Bytes of a slot in a version 6 tick record: the stamp as a f32 offset from the tick, no eye height. */
export const TICK_SLOT_BYTES_V6 = TICK_SLOT_VIEW_TIME_AT + 4;
/** Format 7 on: the newest input's stamp (f64, absolute) where version 6 has its offset, then the eye height. */
export const TICK_SLOT_STAMP_AT = TICK_SLOT_BYTES_V4;
export const TICK_SLOT_EYE_AT = TICK_SLOT_STAMP_AT + 8;
export const TICK_SLOT_BYTES = TICK_SLOT_EYE_AT + 8;
export const TICK_HEAD_BYTES = 14;
/** Offsets in a tick record's head: the f64 tick time and the u16 slot count (after the u32 tick number). */
export const TICK_TIME_AT = 4;
export const TICK_COUNT_AT = 12;
/**
 * Numbers of a decoded tick slot (TickData.numbers): the 11 f64, the view x y z, inputs, steps, the
 * view's time (absolute ms), the eye height.
 */
export const TICK_SLOT_VALUES = TICK_SLOT_NUMBERS + 7;
/** A tick slot's u16 inputs or steps field when the game did not say (format 7 on). */
export const TICK_U16_UNKNOWN = 0xffff;

/** Bytes of one tick slot in a log of format `version`. */
export function tickSlotBytes(version: number): number {
  if (version <= 3) return TICK_SLOT_BYTES_V3;
  if (version < LOG_VERSION_WITH_VIEW_TIME) return TICK_SLOT_BYTES_V4;
  return version < LOG_VERSION_WITH_EYE ? TICK_SLOT_BYTES_V6 : TICK_SLOT_BYTES;
}

/**
 * Event kinds. drop: the connection was lost and the slot waits for a reconnection (the player
 * stays in the match); reconnect: the same session is back; throttled: `other` messages of this
 * slot were dropped unjudged since the last such record (over its budget of refused messages).
 */
export const EventCode = { join: 1, leave: 2, death: 3, respawn: 4, drop: 5, reconnect: 6, throttled: 7 } as const;
export type EventName = keyof typeof EventCode;
const EVENT_NAMES: Record<number, EventName> = { 1: 'join', 2: 'leave', 3: 'death', 4: 'respawn', 5: 'drop', 6: 'reconnect', 7: 'throttled' };
export const EVENT_BYTES = 44;
export const END_BYTES = 20;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON payload bytes of the header. Typed arrays become plain arrays; the numbers JSON cannot hold
 * exactly (NaN, +-Infinity, -0) become {"$f64": "NaN" | "Infinity" | "-Infinity" | "-0"}, so the
 * rules a replay reads are the rules the room used, to the bit.
 */
export function encodeHeader(header: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(header, function (this: unknown, k: string, v: unknown) {
    // The replacer sees numbers already unwrapped; -0 must be read from the holder.
    const raw = k === '' ? v : (this as Record<string, unknown>)[k];
    if (typeof raw === 'number' && (!Number.isFinite(raw) || Object.is(raw, -0))) return { $f64: Object.is(raw, -0) ? '-0' : String(raw) };
    return ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v;
  }));
}

export function decodeHeader<T = Record<string, unknown>>(bytes: Uint8Array): T {
  return JSON.parse(decoder.decode(bytes), (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && keys[0] === '$f64' && typeof o.$f64 === 'string') return o.$f64 === '-0' ? -0 : Number(o.$f64);
    }
    return v;
  }) as T;
}

/** A count as a u16 field: NaN (unknown) as TICK_U16_UNKNOWN, others clamped below it. */
const countU16 = (v: number) => (v >= 0 ? Math.min(TICK_U16_UNKNOWN - 1, Math.floor(v)) : v === v ? 0 : TICK_U16_UNKNOWN);

/**
 * Writes a tick record from the match's pose array (`stride` numbers per slot: present, the 11
 * numbers, then the view x y z, inputs taken, movement steps, the view's time in server ms and the
 * eye height, NaN unknown; server/match/recorder.ts TickPose). Returns the payload length. Reserve
 * `tickRecordMaxBytes(slots)` first.
 */
export function writeTick(view: DataView, at: number, tick: number, timeMs: number, poses: ArrayLike<number>, slots: number, stride: number): number {
  view.setUint32(at, tick >>> 0, true);
  view.setFloat64(at + 4, timeMs, true);
  let n = 0;
  let o = at + TICK_HEAD_BYTES;
  for (let s = 0; s < slots; s++) {
    const base = s * stride;
    if (poses[base] !== 1) continue;
    view.setUint16(o, s, true);
    o += 2;
    for (let k = 1; k <= TICK_SLOT_NUMBERS; k++, o += 8) view.setFloat64(o, poses[base + k]!, true);
    const v = base + TICK_SLOT_NUMBERS + 1;
    for (let k = 0; k < 3; k++, o += 4) view.setFloat32(o, poses[v + k]!, true);
    view.setUint16(o, countU16(poses[v + 3]!), true);
    view.setUint16(o + 2, countU16(poses[v + 4]!), true);
    view.setFloat64(o + 4, poses[v + 5]!, true);
    view.setFloat64(o + 12, poses[v + 6]!, true);
    o += 20;
    n++;
  }
  view.setUint16(at + 12, n, true);
  return o - at;
}

export function tickRecordMaxBytes(slots: number): number {
  return TICK_HEAD_BYTES + slots * TICK_SLOT_BYTES;
}

/**
 * A decoded tick: which slots were present and their numbers (x y z qx qy qz qw clip time alive
 * epoch, view x y z, inputs taken, steps, view time, eye height; NaN where the log's version or the
 * game does not carry them).
 */
export interface TickData {
  tick: number;
  timeMs: number;
  count: number;
  slots: Uint16Array;
  /** count x TICK_SLOT_VALUES. */
  numbers: Float64Array;
}

export function createTickData(maxSlots: number): TickData {
  return { tick: 0, timeMs: 0, count: 0, slots: new Uint16Array(maxSlots), numbers: new Float64Array(maxSlots * TICK_SLOT_VALUES) };
}

/**
 * Reads a tick record of a log of format `version` into `out` (grows its arrays if needed).
 * Returns false when the sizes disagree.
 */
export function readTick(out: TickData, view: DataView, at: number, length: number, version = LOG_VERSION_WITH_EYE): boolean {
  if (length < TICK_HEAD_BYTES) return false;
  const n = view.getUint16(at + TICK_COUNT_AT, true);
  const slotBytes = tickSlotBytes(version);
  if (length !== TICK_HEAD_BYTES + n * slotBytes) return false;
  out.tick = view.getUint32(at, true);
  out.timeMs = view.getFloat64(at + TICK_TIME_AT, true);
  out.count = n;
  if (out.slots.length < n) {
    out.slots = new Uint16Array(n);
    out.numbers = new Float64Array(n * TICK_SLOT_VALUES);
  }
  for (let i = 0, o = at + TICK_HEAD_BYTES; i < n; i++, o += slotBytes) {
    out.slots[i] = view.getUint16(o, true);
    const b = i * TICK_SLOT_VALUES;
    for (let k = 0; k < TICK_SLOT_NUMBERS; k++) out.numbers[b + k] = view.getFloat64(o + 2 + 8 * k, true);
    const hasView = slotBytes !== TICK_SLOT_BYTES_V3;
    for (let k = 0; k < 3; k++) out.numbers[b + TICK_SLOT_NUMBERS + k] = hasView ? view.getFloat32(o + TICK_SLOT_VIEW_AT + 4 * k, true) : NaN;
    out.numbers[b + TICK_SLOT_NUMBERS + 3] = hasView ? readCountU16(view, o + TICK_SLOT_INPUTS_AT, version) : NaN;
    out.numbers[b + TICK_SLOT_NUMBERS + 4] = hasView ? readCountU16(view, o + TICK_SLOT_STEPS_AT, version) : NaN;
    out.numbers[b + TICK_SLOT_NUMBERS + 5] = slotBytes === TICK_SLOT_BYTES ? view.getFloat64(o + TICK_SLOT_STAMP_AT, true)
      : slotBytes === TICK_SLOT_BYTES_V6 ? out.timeMs + view.getFloat32(o + TICK_SLOT_VIEW_TIME_AT, true) : NaN;
    out.numbers[b + TICK_SLOT_NUMBERS + 6] = slotBytes === TICK_SLOT_BYTES ? view.getFloat64(o + TICK_SLOT_EYE_AT, true) : NaN;
  }
  return true;
}

/** A u16 count of a tick slot: NaN when the log says unknown (format 7 on). */
export function readCountU16(view: DataView, at: number, version: number): number {
  const v = view.getUint16(at, true);
  return v === TICK_U16_UNKNOWN && version >= LOG_VERSION_WITH_EYE ? NaN : v;
}

/** Ticks each slot was present in, and of those the ticks that carried a view and input counts. */
export interface TickFields {
  ticks: Float64Array;
  viewTicks: Float64Array;
  inputTicks: Float64Array;
}

/**
 * Counts, per slot, the tick records a player was in and how many carried its view and its input
 * counts: a game that does not give them (its pose adapter leaves them unknown) gets no measure that
 * needs them. `frames` are the log's (readFrames), `version` its format.
 */
export function countTickFields(bytes: Uint8Array, frames: readonly { type: number; payloadOffset: number; payloadLength: number }[], version: number, slots: number): TickFields {
  const out: TickFields = { ticks: new Float64Array(slots), viewTicks: new Float64Array(slots), inputTicks: new Float64Array(slots) };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const slotBytes = tickSlotBytes(version);
  const hasView = version >= LOG_VERSION_WITH_VIEW;
  for (const f of frames) {
    if (f.type !== RecordType.TICK || f.payloadLength < TICK_HEAD_BYTES) continue;
    const n = view.getUint16(f.payloadOffset + 12, true);
    if (f.payloadLength !== TICK_HEAD_BYTES + n * slotBytes) continue;
    for (let i = 0, o = f.payloadOffset + TICK_HEAD_BYTES; i < n; i++, o += slotBytes) {
      const s = view.getUint16(o, true);
      if (s >= slots) continue;
      out.ticks[s]!++;
      if (!hasView) continue;
      const vx = view.getFloat32(o + TICK_SLOT_VIEW_AT, true);
      if (vx === vx) out.viewTicks[s]!++;
      if (readCountU16(view, o + TICK_SLOT_INPUTS_AT, version) === readCountU16(view, o + TICK_SLOT_INPUTS_AT, version)) out.inputTicks[s]!++;
    }
  }
  return out;
}

/** The first format version whose tick slots carry the view (TICK_SLOT_BYTES_V4). */
export const LOG_VERSION_WITH_VIEW = 4;
/** The first format version whose tick slots carry the view's time (TICK_SLOT_BYTES_V6). */
export const LOG_VERSION_WITH_VIEW_TIME = 6;
/**
 * The first format version whose tick slots carry the newest input's exact stamp and the eye height
 * (TICK_SLOT_BYTES) and mark unknown counts, and whose shot records carry the shooter's stream floor
 * and each target's team and leave time.
 */
export const LOG_VERSION_WITH_EYE = 7;

export interface EventData {
  kind: EventName;
  slot: number;
  timeMs: number;
  x: number;
  y: number;
  z: number;
  other: number;
}

export function writeEvent(view: DataView, at: number, e: { kind: string; slot: number; timeMs: number; x?: number; y?: number; z?: number; other?: number }): number {
  view.setUint8(at, EventCode[e.kind as EventName] ?? 0);
  view.setUint8(at + 1, 0);
  view.setUint16(at + 2, e.slot & 0xffff, true);
  view.setFloat64(at + 4, e.timeMs, true);
  view.setFloat64(at + 12, e.x ?? Number.NaN, true);
  view.setFloat64(at + 20, e.y ?? Number.NaN, true);
  view.setFloat64(at + 28, e.z ?? Number.NaN, true);
  view.setFloat64(at + 36, e.other ?? Number.NaN, true);
  return EVENT_BYTES;
}

export function readEvent(view: DataView, at: number, length: number): EventData | null {
  if (length !== EVENT_BYTES) return null;
  const kind = EVENT_NAMES[view.getUint8(at)];
  if (kind === undefined) return null;
  return {
    kind, slot: view.getUint16(at + 2, true), timeMs: view.getFloat64(at + 4, true),
    x: view.getFloat64(at + 12, true), y: view.getFloat64(at + 20, true), z: view.getFloat64(at + 28, true), other: view.getFloat64(at + 36, true),
  };
}

export interface EndData {
  ticks: number;
  shots: number;
  events: number;
  lastTickMs: number;
}

export function writeEnd(view: DataView, at: number, e: EndData): number {
  view.setUint32(at, e.ticks >>> 0, true);
  view.setUint32(at + 4, e.shots >>> 0, true);
  view.setUint32(at + 8, e.events >>> 0, true);
  view.setFloat64(at + 12, e.lastTickMs, true);
  return END_BYTES;
}

export function readEnd(view: DataView, at: number, length: number): EndData | null {
  if (length !== END_BYTES) return null;
  return { ticks: view.getUint32(at, true), shots: view.getUint32(at + 4, true), events: view.getUint32(at + 8, true), lastTickMs: view.getFloat64(at + 12, true) };
}
