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
 *   10 u16  reserved, 0
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
 *   ..      shooter state before (SHOOTER_STATE layout below)
 *   ..      n payload bytes
 *   ..      verdict (VERDICT layout below)
 *
 * SHOOTER_STATE: u8 alive, u8 weapon count w, f64 lastSeq, f64 nextFireMs, f64 lastActionMs, f64 equipped,
 *   f64 drawEndMs, f64 carried (bit set), w x f64 ammo, w x f64 reloadEndMs.
 * VERDICT: u8 kind, u8 reason, u8 timeSource, u8 flags (1 worldHit, 2 fired), then f64 for each of
 *   VERDICT_NUMBER_FIELDS in order, then the shooter state after.
 */
import { createShooterState, type ShooterState, type Verdict } from '../validate/verdict';
import type { ShotTiming } from '../validate/shot';
import { LOG_FORMAT_VERSION } from './frame';

/** Offset of the u16 shooter slot in a shot record. */
export const SHOT_SHOOTER_AT = 4;

/** The first format version whose shot records carry the shooter's death time. */
export const LOG_VERSION_WITH_DEATH = 5;

/** The first format version whose shot records carry each target's team and leave time. */
export const LOG_VERSION_WITH_TEAMS = 7;

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
export const VERDICT_OTHER_FIELDS = ['kind', 'reason', 'timeSource', 'worldHit', 'fired', 'after'] as const satisfies readonly (keyof Verdict)[];

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
  };
}

/** Bytes of SHOOTER_STATE before the per-weapon arrays. */
const SHOOTER_HEAD_BYTES = 50;

export function shooterStateBytes(s: ShooterState): number {
  return SHOOTER_HEAD_BYTES + 16 * s.ammo.length;
}

export function verdictBytes(v: Verdict): number {
  return 4 + 8 * VERDICT_NUMBER_FIELDS.length + shooterStateBytes(v.after);
}

/** Upper bound of a shot record's payload, for FrameBuffer.begin. */
export function shotRecordMaxBytes(input: ShotInput, verdict: Verdict): number {
  const payload = input.payload === null ? 32 : Math.min(input.payload.length, MAX_SHOT_PAYLOAD_BYTES) + 4;
  return headBytes(LOG_FORMAT_VERSION) + targetBytes(LOG_FORMAT_VERSION) * Math.min(input.targets.alive.length, MAX_SLOTS) + shooterStateBytes(input.before) + payload + verdictBytes(verdict);
}

function writeShooterState(view: DataView, at: number, s: ShooterState): number {
  const w = Math.min(s.ammo.length, MAX_WEAPONS);
  view.setUint8(at, s.alive ? 1 : 0);
  view.setUint8(at + 1, w);
  view.setFloat64(at + 2, s.lastSeq, true);
  view.setFloat64(at + 10, s.nextFireMs, true);
  view.setFloat64(at + 18, s.lastActionMs, true);
  view.setFloat64(at + 26, s.equipped, true);
  view.setFloat64(at + 34, s.drawEndMs, true);
  view.setFloat64(at + 42, s.carried, true);
  let o = at + SHOOTER_HEAD_BYTES;
  for (let i = 0; i < w; i++, o += 8) view.setFloat64(o, s.ammo[i]!, true);
  for (let i = 0; i < w; i++, o += 8) view.setFloat64(o, s.reloadEndMs[i] ?? 0, true);
  return o;
}

function readShooterState(out: ShooterState, view: DataView, at: number, end: number, slot: number): number {
  if (at + SHOOTER_HEAD_BYTES > end) return -1;
  const w = view.getUint8(at + 1);
  if (at + SHOOTER_HEAD_BYTES + 16 * w > end) return -1;
  out.slot = slot;
  out.alive = view.getUint8(at) === 1;
  out.lastSeq = view.getFloat64(at + 2, true);
  out.nextFireMs = view.getFloat64(at + 10, true);
  out.lastActionMs = view.getFloat64(at + 18, true);
  out.equipped = view.getFloat64(at + 26, true);
  out.drawEndMs = view.getFloat64(at + 34, true);
  out.carried = view.getFloat64(at + 42, true);
  if (out.ammo.length !== w) out.ammo.length = w;
  if (out.reloadEndMs.length !== w) out.reloadEndMs.length = w;
  let o = at + SHOOTER_HEAD_BYTES;
  for (let i = 0; i < w; i++, o += 8) out.ammo[i] = view.getFloat64(o, true);
  for (let i = 0; i < w; i++, o += 8) out.reloadEndMs[i] = view.getFloat64(o, true);
  return o;
}

/** Writes a verdict at `at`; returns the offset after it. */
export function writeVerdict(view: DataView, at: number, v: Verdict): number {
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
  return writeShooterState(view, o + 8 * VERDICT_NUMBER_FIELDS.length, v.after);
}

/** Reads a verdict at `at` into `out`; returns the offset after it, or -1 when it does not fit before `end`. */
export function readVerdict(out: Verdict, view: DataView, at: number, end: number): number {
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
  return readShooterState(out.after, view, o, end, out.shooter);
}

/** Encodes a shot record at `at`; returns its length. Reserve `shotRecordMaxBytes` first. */
export function writeShotRecord(view: DataView, at: number, input: ShotInput, verdict: Verdict): number {
  const p = input.payload;
  const kind = p === null ? 1 : p.length > MAX_SHOT_PAYLOAD_BYTES ? 2 : 0;
  const n = p === null ? Math.min(input.nonBytesType.length, 32) : Math.min(p.length, MAX_SHOT_PAYLOAD_BYTES);
  view.setUint32(at, input.tick >>> 0, true);
  view.setUint16(at + 4, input.shooter & 0xffff, true);
  view.setUint16(at + 6, n, true);
  view.setUint8(at + 8, kind);
  view.setUint8(at + 9, input.killed ? 1 : 0);
  view.setUint16(at + 10, 0, true);
  view.setFloat64(at + 12, input.timing.receiveTimeMs, true);
  view.setFloat64(at + 20, input.timing.rttMs, true);
  view.setFloat64(at + 28, input.timing.interpDelayMs, true);
  view.setFloat64(at + 36, input.timing.newestTickMs, true);
  view.setFloat64(at + 44, input.targetHealthAfter, true);
  const alive = input.targets.alive;
  const m = Math.min(alive.length, MAX_SLOTS);
  view.setUint16(at + 52, m, true);
  view.setFloat64(at + 54, input.timing.shooterDiedMs ?? Number.NaN, true);
  view.setFloat64(at + 62, input.timing.streamFloorMs ?? Number.NaN, true);
  let o = at + headBytes(LOG_FORMAT_VERSION);
  const { lifeStartMs, leftMs, team } = input.targets;
  for (let i = 0; i < m; i++, o += 19) {
    view.setUint8(o, alive[i] ? 1 : 0);
    view.setFloat64(o + 1, lifeStartMs[i] ?? 0, true);
    const tm = team?.[i] ?? -1;
    view.setInt16(o + 9, tm >= 0 && tm <= 0x7fff ? tm : -1, true);
    view.setFloat64(o + 11, leftMs?.[i] ?? Number.NaN, true);
  }
  o = writeShooterState(view, o, input.before);
  if (p === null) for (let i = 0; i < n; i++) view.setUint8(o + i, input.nonBytesType.charCodeAt(i) & 0x7f);
  else for (let i = 0; i < n; i++) view.setUint8(o + i, p[i]!);
  o += n;
  if (kind === 2) {
    view.setUint32(o, p!.length, true);
    o += 4;
  }
  o = writeVerdict(view, o, verdict);
  return o - at;
}

/**
 * Decodes the shot record in `view[at, at + length)` into `input` and `verdict`. The payload is a
 * view into the log's bytes (no copy). Returns false when the record is too short for its own
 * counts (a record that passed its CRC but was written by something else).
 */
export function readShotRecord(input: ShotInput, verdict: Verdict, view: DataView, at: number, length: number, version = LOG_FORMAT_VERSION): boolean {
  const o = readShotInput(input, view, at, length, null, version);
  return o >= 0 && readVerdict(verdict, view, o, at + length) === at + length;
}

/**
 * Decodes everything of a shot record but its verdict into `input`; returns the verdict's offset
 * (it runs to the record's end), or -1 when the record is too short for its own counts. A byte
 * payload is a view into the log, or, when `payloadScratch` is given and has exactly the payload's
 * length, a copy in it (a replay loop allocates nothing per shot; the copy lives until the next call).
 */
export function readShotInput(input: ShotInput, view: DataView, at: number, length: number, payloadScratch: Uint8Array | null = null, version = LOG_FORMAT_VERSION): number {
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
  if (head + per * m > length) return -1;
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
  o = readShooterState(input.before, view, o, end, input.shooter);
  if (o < 0 || o + n > end) return -1;
  if (kind === 0) {
    if (payloadScratch !== null && payloadScratch.length === n) {
      for (let i = 0; i < n; i++) payloadScratch[i] = view.getUint8(o + i);
      input.payload = payloadScratch;
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

/** One field where a replayed verdict differs from the recorded one. */
export interface FieldMismatch {
  field: string;
  recorded: number | boolean;
  replayed: number | boolean;
}

/**
 * Compares two verdicts bit for bit: every number with Object.is (so NaN equals NaN and -0 differs
 * from 0), kind, reason, time source, flags and the shooter state after. Pushes each differing
 * field into `out` (which it returns); an empty list means identical.
 */
export function compareVerdicts(out: FieldMismatch[], recorded: Verdict, replayed: Verdict): FieldMismatch[] {
  if (recorded.kind !== replayed.kind) out.push({ field: 'kind', recorded: recorded.kind, replayed: replayed.kind });
  if (recorded.reason !== replayed.reason) out.push({ field: 'reason', recorded: recorded.reason, replayed: replayed.reason });
  if (recorded.timeSource !== replayed.timeSource) out.push({ field: 'timeSource', recorded: recorded.timeSource, replayed: replayed.timeSource });
  if (recorded.worldHit !== replayed.worldHit) out.push({ field: 'worldHit', recorded: recorded.worldHit, replayed: replayed.worldHit });
  if (recorded.fired !== replayed.fired) out.push({ field: 'fired', recorded: recorded.fired, replayed: replayed.fired });
  for (const f of VERDICT_NUMBER_FIELDS) {
    if (!Object.is(recorded[f], replayed[f])) out.push({ field: f, recorded: recorded[f], replayed: replayed[f] });
  }
  compareStates(out, 'after', recorded.after, replayed.after);
  return out;
}

/** Compares two shooter states field by field (used for `after` and for the reconstructed `before`). */
export function compareStates(out: FieldMismatch[], prefix: string, a: ShooterState, b: ShooterState): FieldMismatch[] {
  if (a.alive !== b.alive) out.push({ field: `${prefix}.alive`, recorded: a.alive, replayed: b.alive });
  if (!Object.is(a.lastSeq, b.lastSeq)) out.push({ field: `${prefix}.lastSeq`, recorded: a.lastSeq, replayed: b.lastSeq });
  if (!Object.is(a.nextFireMs, b.nextFireMs)) out.push({ field: `${prefix}.nextFireMs`, recorded: a.nextFireMs, replayed: b.nextFireMs });
  const w = Math.max(a.ammo.length, b.ammo.length);
  for (let i = 0; i < w; i++) {
    if (!Object.is(a.ammo[i], b.ammo[i])) out.push({ field: `${prefix}.ammo[${i}]`, recorded: a.ammo[i] ?? NaN, replayed: b.ammo[i] ?? NaN });
    if (!Object.is(a.reloadEndMs[i], b.reloadEndMs[i])) out.push({ field: `${prefix}.reloadEndMs[${i}]`, recorded: a.reloadEndMs[i] ?? NaN, replayed: b.reloadEndMs[i] ?? NaN });
  }
  return out;
}
