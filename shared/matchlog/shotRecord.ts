/**
 * Codecs for the match log's shot records and the verdicts they carry. A shot record holds
 * everything the validation pipeline read to decide that shot, so an audit replays it bit for bit:
 * the payload bytes exactly as received, the receive time, the round-trip estimate and the
 * interpolation delay the server used, and the shooter's rules state before the shot; then the
 * verdict the server reached. Numbers are stored as float64 so -1, NaN and -0 survive unchanged.
 * Pure (DataView only) so a browser tool can decode logs too.
 *
 * Layout (little-endian):
 *   0  u32  tick: the last tick recorded when the shot was handled
 *   4  u16  shooter slot
 *   6  u16  payload length n (<= MAX_SHOT_PAYLOAD_BYTES)
 *   8  u8   payload kind: 0 bytes; 1 not bytes at all (n bytes of ASCII: what typeof said);
 *           2 bytes longer than MAX_SHOT_PAYLOAD_BYTES (the first n, then u32 the full length)
 *   9  u8   flags: 1 = the shot killed its target
 *   10 u16  k: per-hit results after the targets (format 8 on; reserved, 0, before)
 *   12 f64  receive time, server ms           (ShotTiming.receiveTimeMs)
 *   20 f64  round-trip estimate, ms            (ShotTiming.rttMs)
 *   28 f64  interpolation delay, ms            (ShotTiming.interpDelayMs)
 *   36 f64  newest tick time, server ms        (ShotTiming.newestTickMs)
 *   44 f64  target health after the verdict was applied (-1 when no target)
 *   52 u16  slot count m (ShotTargets as the pipeline saw it)
 *   54 f64  when a dead shooter was killed, server ms (ShotTiming.shooterDiedMs; NaN alive; format 5 on)
 *   62 f64  the shooter's stream floor, server ms (ShotTiming.streamFloorMs; NaN none; format 7 on)
 *   70      m x (u8 alive, f64 life start ms, i16 team (-1 none), f64 leave time ms (NaN present))
 *           (at 54 before format 5, at 62 before format 7; without team and leave time before format 7)
 *   ..      k x (f64 health after, u8 killed): each of the verdict's hits as the room applied it
 *           (health -1: not applied; format 8 on)
 *   ..      shooter state before (SHOOTER_STATE layout below)
 *   ..      n payload bytes
 *   ..      verdict (VERDICT layout below)
 *
 * SHOOTER_STATE: u8 alive, u8 weapon count w, f64 lastSeq, f64 nextFireMs, f64 lastActionMs, f64 equipped,
 *   f64 drawEndMs, f64 carried (bit set), f64 sprayHeat, f64 sprayAtMs, f64 pulls (format 8 on:
 *   before, read as 0, -Infinity and 0), w x f64 ammo, w x f64 reloadEndMs.
 * VERDICT: u8 kind, u8 reason, u8 timeSource, u8 flags (1 worldHit, 2 fired), then f64 for each of
 *   VERDICT_NUMBER_FIELDS in order, then the shooter state after, then (format 8 on) the pellet
 *   section: each pellet's result, every hit, every impact (pelletRecord.ts; before, counts 0).
 */
import { createShooterState, type ShooterState, type Verdict } from '../validate/verdict';
import type { ShotTiming } from '../validate/shot';
import { MAX_PELLETS } from '../weapons';
import { MAX_HITS_PER_PELLET, MAX_IMPACTS_PER_PELLET } from '../validate/pelletVerdict';
import { LOG_FORMAT_VERSION } from './frame';
import { HIT_ENTRY_BYTES, IMPACT_ENTRY_BYTES, PELLET_ENTRY_BYTES, PELLET_SECTION_HEAD_BYTES, pelletSectionBytes, readPelletSection, writePelletSection } from './pelletRecord';

/** Offset of the u16 shooter slot in a shot record. */
export const SHOT_SHOOTER_AT = 4;

/** The first format version whose shot records carry the shooter's death time. */
export const LOG_VERSION_WITH_DEATH = 5;

/** The first format version whose shot records carry each target's team and leave time. */
export const LOG_VERSION_WITH_TEAMS = 7;

/**
 * The first format version whose shooter states carry the spray heat, whose verdicts carry each
 * pellet's result, the hits and the impacts, and whose shot records carry each hit's health after.
 */
export const LOG_VERSION_WITH_PELLETS = 8;

/** Bytes of one per-hit result in a shot record (f64 health after, u8 killed). */
const HIT_RESULT_BYTES = 9;

/** Bytes of a shot record's fixed head in a log of format `version`. */
function headBytes(version: number): number {
  return version >= LOG_VERSION_WITH_TEAMS ? 70 : version >= LOG_VERSION_WITH_DEATH ? 62 : 54;
}

/** Bytes per target slot in a log of format `version`. */
function targetBytes(version: number): number {
  return version >= LOG_VERSION_WITH_TEAMS ? 19 : 9;
}

/**
 * Shots are 64 bytes; malformed and oversized payloads are kept whole up to this (the socket caps
 * messages at 4 KB). Longer ones keep their first bytes and their length, which is all the
 * pipeline reads of a payload over MAX_CLIENT_MESSAGE_BYTES.
 */
export const MAX_SHOT_PAYLOAD_BYTES = 65535;
/** Weapon tables longer than this cannot be logged (the format stores the count in a byte). */
export const MAX_WEAPONS = 255;
/** Player slots a shot record can describe. */
export const MAX_SLOTS = 1024;

/** The verdict's numeric fields, in log order. Comparing verdicts walks the same list. */
export const VERDICT_NUMBER_FIELDS = [
  'seq', 'shooter', 'weapon', 'target', 'zone', 'bone', 'hitbox', 't', 'x', 'y', 'z', 'nx', 'ny', 'nz',
  'worldT', 'surface', 'damage', 'targetRewindStatus', 'rewindTimeMs', 'estimateMs', 'originOffsetM',
] as const satisfies readonly (keyof Verdict)[];

/** Verdict fields stored outside VERDICT_NUMBER_FIELDS (bytes, flags, the state after). */
export const VERDICT_OTHER_FIELDS = ['kind', 'reason', 'timeSource', 'worldHit', 'fired', 'after', 'pellets', 'hits', 'impacts'] as const satisfies readonly (keyof Verdict)[];

/** What the pipeline read besides the world, the history and the rules, and what the room did. */
export interface ShotInput {
  tick: number;
  shooter: number;
  /** The payload exactly as received (may be malformed: that is part of what is audited); null when not bytes. */
  payload: Uint8Array | null;
  /** When payload is null: typeof of what arrived. */
  nonBytesType: string;
  timing: ShotTiming;
  /** Who could be hit, since when, until when and on which team, by slot (ShotTargets). */
  targets: ShotInputTargets;
  before: ShooterState;
  targetHealthAfter: number;
  killed: boolean;
  /** Per hit of the verdict as the room applied it: the target's health after (-1 not applied) and whether it killed (empty before format 8). */
  hitHealthAfter: number[];
  hitKilled: boolean[];
}

/** ShotTargets as a shot record keeps them (teams -1 and leave times NaN in logs before format 7). */
export interface ShotInputTargets {
  alive: boolean[];
  lifeStartMs: number[];
  leftMs: number[];
  team: number[];
}

export function createShotInput(): ShotInput {
  return {
    tick: 0, shooter: 0, payload: null, nonBytesType: '',
    timing: { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, shooterDiedMs: Number.NaN, streamFloorMs: Number.NaN },
    targets: { alive: [], lifeStartMs: [], leftMs: [], team: [] }, before: createShooterState(-1, []), targetHealthAfter: -1, killed: false,
    hitHealthAfter: [], hitKilled: [],
  };
}

/** Bytes of SHOOTER_STATE before the per-weapon arrays in a log of format `version`. */
function shooterHeadBytes(version: number): number {
  return version >= LOG_VERSION_WITH_PELLETS ? 74 : 50;
}

export function shooterStateBytes(s: ShooterState, version = LOG_FORMAT_VERSION): number {
  return shooterHeadBytes(version) + 16 * Math.min(s.ammo.length, MAX_WEAPONS);
}

/** Bytes of the verdict part before the shooter state after. */
const VERDICT_HEAD_BYTES = 4 + 8 * VERDICT_NUMBER_FIELDS.length;

export function verdictBytes(v: Verdict, version = LOG_FORMAT_VERSION): number {
  return VERDICT_HEAD_BYTES + shooterStateBytes(v.after, version) + (version >= LOG_VERSION_WITH_PELLETS ? pelletSectionBytes(v) : 0);
}

/** The longest verdict of the current format with createVerdict's capacities (MAX_WEAPONS weapons, MAX_PELLETS pellets). */
export const VERDICT_MAX_BYTES = VERDICT_HEAD_BYTES + shooterHeadBytes(LOG_FORMAT_VERSION) + 16 * MAX_WEAPONS + PELLET_SECTION_HEAD_BYTES
  + MAX_PELLETS * (PELLET_ENTRY_BYTES + MAX_HITS_PER_PELLET * HIT_ENTRY_BYTES + MAX_IMPACTS_PER_PELLET * IMPACT_ENTRY_BYTES);

/** Per-hit results a shot record holds (the u16 count). */
function hitResultCount(input: ShotInput): number {
  const k = Math.min(input.hitHealthAfter?.length ?? 0, input.hitKilled?.length ?? 0);
  return k < 0xffff ? k : 0xffff;
}

/** Upper bound of a shot record's payload in format `version`, for FrameBuffer.begin. */
export function shotRecordMaxBytes(input: ShotInput, verdict: Verdict, version = LOG_FORMAT_VERSION): number {
  const payload = input.payload === null ? 32 : Math.min(input.payload.length, MAX_SHOT_PAYLOAD_BYTES) + 4;
  const hits = version >= LOG_VERSION_WITH_PELLETS ? HIT_RESULT_BYTES * hitResultCount(input) : 0;
  return headBytes(version) + targetBytes(version) * Math.min(input.targets.alive.length, MAX_SLOTS) + hits
    + shooterStateBytes(input.before, version) + payload + verdictBytes(verdict, version);
}

function writeShooterState(view: DataView, at: number, s: ShooterState, version: number): number {
  const w = Math.min(s.ammo.length, MAX_WEAPONS);
  view.setUint8(at, s.alive ? 1 : 0);
  view.setUint8(at + 1, w);
  view.setFloat64(at + 2, s.lastSeq, true);
  view.setFloat64(at + 10, s.nextFireMs, true);
  view.setFloat64(at + 18, s.lastActionMs, true);
  view.setFloat64(at + 26, s.equipped, true);
  view.setFloat64(at + 34, s.drawEndMs, true);
  view.setFloat64(at + 42, s.carried, true);
  let o = at + 50;
  if (version >= LOG_VERSION_WITH_PELLETS) {
    view.setFloat64(o, s.sprayHeat, true);
    view.setFloat64(o + 8, s.sprayAtMs, true);
    view.setFloat64(o + 16, s.pulls, true);
    o += 24;
  }
  for (let i = 0; i < w; i++, o += 8) view.setFloat64(o, s.ammo[i]!, true);
  for (let i = 0; i < w; i++, o += 8) view.setFloat64(o, s.reloadEndMs[i] ?? 0, true);
  return o;
}

function readShooterState(out: ShooterState, view: DataView, at: number, end: number, slot: number, version: number): number {
  const head = shooterHeadBytes(version);
  if (at + head > end) return -1;
  const w = view.getUint8(at + 1);
  if (at + head + 16 * w > end) return -1;
  out.slot = slot;
  out.alive = view.getUint8(at) === 1;
  out.lastSeq = view.getFloat64(at + 2, true);
  out.nextFireMs = view.getFloat64(at + 10, true);
  out.lastActionMs = view.getFloat64(at + 18, true);
  out.equipped = view.getFloat64(at + 26, true);
  out.drawEndMs = view.getFloat64(at + 34, true);
  out.carried = view.getFloat64(at + 42, true);
  const spray = head > 50;
  out.sprayHeat = spray ? view.getFloat64(at + 50, true) : 0;
  out.sprayAtMs = spray ? view.getFloat64(at + 58, true) : Number.NEGATIVE_INFINITY;
  out.pulls = spray ? view.getFloat64(at + 66, true) : 0;
  if (out.ammo.length !== w) out.ammo.length = w;
  if (out.reloadEndMs.length !== w) out.reloadEndMs.length = w;
  let o = at + head;
  for (let i = 0; i < w; i++, o += 8) out.ammo[i] = view.getFloat64(o, true);
  for (let i = 0; i < w; i++, o += 8) out.reloadEndMs[i] = view.getFloat64(o, true);
  return o;
}

/** Writes a verdict at `at` in the layout of format `version`; returns the offset after it. */
export function writeVerdict(view: DataView, at: number, v: Verdict, version = LOG_FORMAT_VERSION): number {
  view.setUint8(at, v.kind);
  view.setUint8(at + 1, v.reason);
  view.setUint8(at + 2, v.timeSource);
  view.setUint8(at + 3, (v.worldHit ? 1 : 0) | (v.fired ? 2 : 0));
  // VERDICT_NUMBER_FIELDS in order, spelled out: the audit encodes every replayed verdict, and a
  // loop of keyed reads over varying names is a megamorphic lookup per field.
  const o = at + 4;
  view.setFloat64(o, v.seq, true); view.setFloat64(o + 8, v.shooter, true); view.setFloat64(o + 16, v.weapon, true);
  view.setFloat64(o + 24, v.target, true); view.setFloat64(o + 32, v.zone, true); view.setFloat64(o + 40, v.bone, true);
  view.setFloat64(o + 48, v.hitbox, true); view.setFloat64(o + 56, v.t, true); view.setFloat64(o + 64, v.x, true);
  view.setFloat64(o + 72, v.y, true); view.setFloat64(o + 80, v.z, true); view.setFloat64(o + 88, v.nx, true);
  view.setFloat64(o + 96, v.ny, true); view.setFloat64(o + 104, v.nz, true); view.setFloat64(o + 112, v.worldT, true);
  view.setFloat64(o + 120, v.surface, true); view.setFloat64(o + 128, v.damage, true); view.setFloat64(o + 136, v.targetRewindStatus, true);
  view.setFloat64(o + 144, v.rewindTimeMs, true); view.setFloat64(o + 152, v.estimateMs, true);
  view.setFloat64(o + 160, v.originOffsetM, true);
  const after = writeShooterState(view, o + 8 * VERDICT_NUMBER_FIELDS.length, v.after, version);
  return version >= LOG_VERSION_WITH_PELLETS ? writePelletSection(view, after, v) : after;
}

/**
 * Reads a verdict of format `version` at `at` into `out`; returns the offset after it, or -1 when
 * it does not fit before `end`. Before format 8 the pellet results, hits and impacts read as none.
 */
export function readVerdict(out: Verdict, view: DataView, at: number, end: number, version = LOG_FORMAT_VERSION): number {
  if (at + 4 + 8 * VERDICT_NUMBER_FIELDS.length > end) return -1;
  out.kind = view.getUint8(at) as Verdict['kind'];
  out.reason = view.getUint8(at + 1) as Verdict['reason'];
  out.timeSource = view.getUint8(at + 2) as Verdict['timeSource'];
  const flags = view.getUint8(at + 3);
  out.worldHit = (flags & 1) !== 0;
  out.fired = (flags & 2) !== 0;
  let o = at + 4;
  const rec = out as unknown as Record<string, number>;
  for (let i = 0; i < VERDICT_NUMBER_FIELDS.length; i++, o += 8) rec[VERDICT_NUMBER_FIELDS[i]] = view.getFloat64(o, true);
  o = readShooterState(out.after, view, o, end, out.shooter, version);
  if (o < 0) return -1;
  if (version >= LOG_VERSION_WITH_PELLETS) return readPelletSection(out, view, o, end);
  out.pellets.count = 0;
  out.hits.count = 0;
  out.impacts.count = 0;
  return o;
}

/**
 * Encodes a shot record at `at` in the layout of format `version` (the current one unless a tool
 * rewrites a log for an older reader); returns its length. Reserve `shotRecordMaxBytes` first.
 */
export function writeShotRecord(view: DataView, at: number, input: ShotInput, verdict: Verdict, version = LOG_FORMAT_VERSION): number {
  const p = input.payload;
  const kind = p === null ? 1 : p.length > MAX_SHOT_PAYLOAD_BYTES ? 2 : 0;
  const n = p === null ? Math.min(input.nonBytesType.length, 32) : Math.min(p.length, MAX_SHOT_PAYLOAD_BYTES);
  view.setUint32(at, input.tick >>> 0, true);
  view.setUint16(at + 4, input.shooter & 0xffff, true);
  view.setUint16(at + 6, n, true);
  view.setUint8(at + 8, kind);
  view.setUint8(at + 9, input.killed ? 1 : 0);
  const k = version >= LOG_VERSION_WITH_PELLETS ? hitResultCount(input) : 0;
  view.setUint16(at + 10, k, true);
  view.setFloat64(at + 12, input.timing.receiveTimeMs, true);
  view.setFloat64(at + 20, input.timing.rttMs, true);
  view.setFloat64(at + 28, input.timing.interpDelayMs, true);
  view.setFloat64(at + 36, input.timing.newestTickMs, true);
  view.setFloat64(at + 44, input.targetHealthAfter, true);
  const alive = input.targets.alive;
  const m = Math.min(alive.length, MAX_SLOTS);
  view.setUint16(at + 52, m, true);
  const head = headBytes(version);
  if (head > 54) view.setFloat64(at + 54, input.timing.shooterDiedMs ?? Number.NaN, true);
  if (head > 62) view.setFloat64(at + 62, input.timing.streamFloorMs ?? Number.NaN, true);
  let o = at + head;
  const { lifeStartMs, leftMs, team } = input.targets;
  const per = targetBytes(version);
  for (let i = 0; i < m; i++, o += per) {
    view.setUint8(o, alive[i] ? 1 : 0);
    view.setFloat64(o + 1, lifeStartMs[i] ?? 0, true);
    if (per === 9) continue;
    const tm = team?.[i] ?? -1;
    view.setInt16(o + 9, tm >= 0 && tm <= 0x7fff ? tm : -1, true);
    view.setFloat64(o + 11, leftMs?.[i] ?? Number.NaN, true);
  }
  for (let i = 0; i < k; i++, o += HIT_RESULT_BYTES) {
    view.setFloat64(o, input.hitHealthAfter[i]!, true);
    view.setUint8(o + 8, input.hitKilled[i] ? 1 : 0);
  }
  o = writeShooterState(view, o, input.before, version);
  if (p === null) for (let i = 0; i < n; i++) view.setUint8(o + i, input.nonBytesType.charCodeAt(i) & 0x7f);
  else for (let i = 0; i < n; i++) view.setUint8(o + i, p[i]!);
  o += n;
  if (kind === 2) {
    view.setUint32(o, p!.length, true);
    o += 4;
  }
  o = writeVerdict(view, o, verdict, version);
  return o - at;
}

/**
 * Decodes the shot record in `view[at, at + length)` into `input` and `verdict`. The payload is a
 * view into the log's bytes (no copy). Returns false when the record is too short for its own
 * counts (a record that passed its CRC but was written by something else).
 */
export function readShotRecord(input: ShotInput, verdict: Verdict, view: DataView, at: number, length: number, version = LOG_FORMAT_VERSION): boolean {
  const o = readShotInput(input, view, at, length, null, version);
  return o >= 0 && readVerdict(verdict, view, o, at + length, version) === at + length;
}

/**
 * Scratch byte arrays by length for readShotInput: entry n, when present, is an n-byte array a
 * payload of n bytes is copied into. createPayloadScratch builds them as views of one buffer.
 */
export type PayloadScratch = readonly (Uint8Array | undefined)[];

/** A PayloadScratch with an entry for each of `lengths`, all views of one buffer. */
export function createPayloadScratch(lengths: readonly number[]): PayloadScratch {
  const max = Math.max(0, ...lengths);
  const buffer = new Uint8Array(max);
  const out: (Uint8Array | undefined)[] = Array.from({ length: max + 1 }, () => undefined);
  for (const n of lengths) out[n] = buffer.subarray(0, n);
  return out;
}

/**
 * Decodes everything of a shot record but its verdict into `input`; returns the verdict's offset
 * (it runs to the record's end), or -1 when the record is too short for its own counts. A byte
 * payload is a view into the log, or, when `payloadScratch` has an entry of the payload's length, a
 * copy in it (a replay loop allocates nothing per shot; the copy lives until the next call).
 */
export function readShotInput(input: ShotInput, view: DataView, at: number, length: number, payloadScratch: PayloadScratch | null = null, version = LOG_FORMAT_VERSION): number {
  const end = at + length;
  const head = headBytes(version);
  if (length < head) return -1;
  input.tick = view.getUint32(at, true);
  input.shooter = view.getUint16(at + 4, true);
  const n = view.getUint16(at + 6, true);
  const kind = view.getUint8(at + 8);
  input.killed = (view.getUint8(at + 9) & 1) !== 0;
  const t = input.timing;
  t.receiveTimeMs = view.getFloat64(at + 12, true);
  t.rttMs = view.getFloat64(at + 20, true);
  t.interpDelayMs = view.getFloat64(at + 28, true);
  t.newestTickMs = view.getFloat64(at + 36, true);
  input.targetHealthAfter = view.getFloat64(at + 44, true);
  const m = view.getUint16(at + 52, true);
  t.shooterDiedMs = head > 54 ? view.getFloat64(at + 54, true) : Number.NaN;
  t.streamFloorMs = head > 62 ? view.getFloat64(at + 62, true) : Number.NaN;
  const per = targetBytes(version);
  const k = version >= LOG_VERSION_WITH_PELLETS ? view.getUint16(at + 10, true) : 0;
  if (head + per * m + HIT_RESULT_BYTES * k > length) return -1;
  const { alive, lifeStartMs: life, leftMs: left, team } = input.targets;
  // Only when it changes: setting a JS array's length is a runtime call even when it stays the same.
  if (alive.length !== m) alive.length = m;
  if (life.length !== m) life.length = m;
  if (left.length !== m) left.length = m;
  if (team.length !== m) team.length = m;
  const teams = per === 19;
  let o = at + head;
  for (let i = 0; i < m; i++, o += per) {
    alive[i] = view.getUint8(o) === 1;
    life[i] = view.getFloat64(o + 1, true);
    team[i] = teams ? view.getInt16(o + 9, true) : -1;
    left[i] = teams ? view.getFloat64(o + 11, true) : Number.NaN;
  }
  const hh = input.hitHealthAfter, hk = input.hitKilled;
  if (hh.length !== k) hh.length = k;
  if (hk.length !== k) hk.length = k;
  for (let i = 0; i < k; i++, o += HIT_RESULT_BYTES) {
    hh[i] = view.getFloat64(o, true);
    hk[i] = view.getUint8(o + 8) === 1;
  }
  o = readShooterState(input.before, view, o, end, input.shooter, version);
  if (o < 0 || o + n > end) return -1;
  if (kind === 0) {
    const scratch = payloadScratch === null || n >= payloadScratch.length ? undefined : payloadScratch[n];
    if (scratch !== undefined) {
      for (let i = 0; i < n; i++) scratch[i] = view.getUint8(o + i);
      input.payload = scratch;
    } else {
      input.payload = new Uint8Array(view.buffer, view.byteOffset + o, n);
    }
    input.nonBytesType = '';
  } else if (kind === 2) {
    if (o + n + 4 > end) return -1;
    const full = new Uint8Array(Math.max(n, view.getUint32(o + n, true)));
    full.set(new Uint8Array(view.buffer, view.byteOffset + o, n));
    input.payload = full;
    input.nonBytesType = '';
    return o + n + 4;
  } else {
    input.payload = null;
    let name = '';
    for (let i = 0; i < n; i++) name += String.fromCharCode(view.getUint8(o + i));
    input.nonBytesType = name;
  }
  return o + n;
}
