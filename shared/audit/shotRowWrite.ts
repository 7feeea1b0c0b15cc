/**
 * One replayed shot's row (shotRows.ts ShotCol), filled by the audit replay (replay.ts) from the
 * shot record and its verdict: the verdict and rules-state columns, the columns of what the message
 * claims (action, target, times, segment), and the ObservedShot handed to a replay observer. The
 * decoded message and the observed shot are module scratch, reused shot after shot: a replay
 * allocates nothing per shot.
 */
import { checkFrame, createShotMessage, decodeShot, FrameStatus, ShotAction, ShotAt, shotBytes, SHOT_VERSION } from '../protocol/shot';
import { LOG_VERSION_WITH_PELLETS, type PayloadScratch, type ShotInput } from '../matchlog/shotRecord';
import { VerdictKind, type Verdict } from '../validate/verdict';
import { ShotCol } from './shotRows';
import type { ObservedShot, ReplayObserver } from './observer';
import type { BodyPoints } from './bodyPoint';

// scratch: one shot decode, and what the shot message claims (readMessage)
const scratchShot = createShotMessage();
const msg = { action: -1, claimedTarget: -1, actionTimeMs: NaN, claimedMs: NaN, sx: NaN, sy: NaN, sz: NaN, ex: NaN, ey: NaN, ez: NaN };
// scratch: the shot as an observer sees it (readMessage and observeShot fill it)
const observed: ObservedShot = {
  shooter: 0, fired: false, hitTarget: -1, claimedTarget: -1, receivedMs: NaN, actionTimeMs: NaN, rewindTimeMs: NaN, sx: NaN, sy: NaN, sz: NaN, ex: NaN, ey: NaN, ez: NaN, pellets: null, body: null,
};

/** The row's columns from the record's timing and state and the verdict (replayed, or the recorded one when they differ). */
export function writeVerdictColumns(rows: Float64Array, o: number, offset: number, index: number, input: ShotInput, v: Verdict, mismatched: boolean, version: number): void {
  rows[o + ShotCol.INDEX] = index;
  rows[o + ShotCol.OFFSET] = offset;
  rows[o + ShotCol.SHOOTER] = input.shooter;
  rows[o + ShotCol.SEQ] = v.seq;
  rows[o + ShotCol.WEAPON] = v.weapon;
  rows[o + ShotCol.RECEIVED_MS] = input.timing.receiveTimeMs;
  rows[o + ShotCol.RTT_MS] = input.timing.rttMs;
  rows[o + ShotCol.INTERP_MS] = input.timing.interpDelayMs;
  rows[o + ShotCol.KIND] = v.kind;
  rows[o + ShotCol.REASON] = v.reason;
  rows[o + ShotCol.ZONE] = v.zone;
  rows[o + ShotCol.TARGET] = v.target;
  rows[o + ShotCol.TIME_SOURCE] = v.timeSource;
  // How far back from the moment the shooter acted (action time = estimate + interpolation delay).
  rows[o + ShotCol.REWIND_DEPTH_MS] = v.estimateMs + input.timing.interpDelayMs - v.rewindTimeMs;
  rows[o + ShotCol.REWIND_TIME_MS] = v.rewindTimeMs;
  rows[o + ShotCol.DAMAGE] = v.damage;
  rows[o + ShotCol.MISMATCH] = mismatched ? 1 : 0;
  rows[o + ShotCol.PX] = v.x; rows[o + ShotCol.PY] = v.y; rows[o + ShotCol.PZ] = v.z;
  rows[o + ShotCol.HOLED] = v.worldHit ? 1 : 0;
  rows[o + ShotCol.BEFORE_SEQ] = input.before.lastSeq;
  rows[o + ShotCol.AFTER_SEQ] = v.after.lastSeq;
  rows[o + ShotCol.BEFORE_NEXT_FIRE] = input.before.nextFireMs;
  rows[o + ShotCol.AFTER_NEXT_FIRE] = v.after.nextFireMs;
  // Logs before format 8 keep no pull count or spray heat: NaN, which the chain check passes.
  const spray = version >= LOG_VERSION_WITH_PELLETS;
  rows[o + ShotCol.BEFORE_PULLS] = spray ? input.before.pulls : NaN;
  rows[o + ShotCol.AFTER_PULLS] = spray ? v.after.pulls : NaN;
  rows[o + ShotCol.BEFORE_SPRAY_HEAT] = spray ? input.before.sprayHeat : NaN;
  rows[o + ShotCol.AFTER_SPRAY_HEAT] = spray ? v.after.sprayHeat : NaN;
  rows[o + ShotCol.BEFORE_SPRAY_AT] = spray ? input.before.sprayAtMs : NaN;
  rows[o + ShotCol.AFTER_SPRAY_AT] = spray ? v.after.sprayAtMs : NaN;
}

/**
 * What the message claims, into `msg` and `observed`: its action, target, times and segment
 * (NaN where it did not decode; a switch or reload carries no segment and no render time).
 */
function readMessage(view: DataView, vAt: number, input: ShotInput, payloads: PayloadScratch): void {
  const m = msg;
  m.action = -1; m.claimedTarget = -1; m.actionTimeMs = NaN; m.claimedMs = NaN;
  m.sx = NaN; m.sy = NaN; m.sz = NaN; m.ex = NaN; m.ey = NaN; m.ez = NaN;
  const pl = input.payload;
  if (pl !== null && payloads[pl.length] === pl && checkFrame(pl, shotBytes(pl[3]!), SHOT_VERSION) === FrameStatus.OK) {
    m.action = pl[1]!;
    // A well-formed shot sits just before the verdict in the log: read it there as decodeShot
    // does, without a DataView per shot.
    const po = vAt - pl.length;
    m.claimedTarget = view.getInt32(po + ShotAt.CLAIMED_TARGET, true);
    m.actionTimeMs = view.getFloat64(po + ShotAt.TIME, true);
    m.claimedMs = view.getFloat64(po + ShotAt.RENDER_TIME, true);
    m.sx = view.getFloat64(po + ShotAt.START, true); m.sy = view.getFloat64(po + ShotAt.START + 8, true); m.sz = view.getFloat64(po + ShotAt.START + 16, true);
    m.ex = view.getFloat64(po + ShotAt.STOP, true); m.ey = view.getFloat64(po + ShotAt.STOP + 8, true); m.ez = view.getFloat64(po + ShotAt.STOP + 16, true);
  } else if (decodeShot(scratchShot, pl) === FrameStatus.OK) {
    const d = scratchShot;
    m.action = d.action; m.claimedTarget = d.claimedTarget; m.actionTimeMs = d.timeMs; m.claimedMs = d.renderTimeMs;
    m.sx = d.sx; m.sy = d.sy; m.sz = d.sz; m.ex = d.ex; m.ey = d.ey; m.ez = d.ez;
  }
  if (m.action !== ShotAction.FIRE) {
    m.sx = NaN; m.sy = NaN; m.sz = NaN; m.ex = NaN; m.ey = NaN; m.ez = NaN; m.claimedMs = NaN;
  }
  const s = observed;
  s.shooter = input.shooter; s.claimedTarget = m.claimedTarget; s.receivedMs = input.timing.receiveTimeMs; s.actionTimeMs = m.actionTimeMs;
  s.sx = m.sx; s.sy = m.sy; s.sz = m.sz; s.ex = m.ex; s.ey = m.ey; s.ez = m.ez;
}

/**
 * The row's columns from the message before the verdict at `vAt` (`payloads`: the scratch the
 * record's payload was read into, where a well-formed shot is read in place).
 */
export function writeMessageColumns(rows: Float64Array, o: number, view: DataView, vAt: number, input: ShotInput, payloads: PayloadScratch): void {
  readMessage(view, vAt, input, payloads);
  const m = msg;
  rows[o + ShotCol.SX] = m.sx; rows[o + ShotCol.SY] = m.sy; rows[o + ShotCol.SZ] = m.sz;
  rows[o + ShotCol.EX] = m.ex; rows[o + ShotCol.EY] = m.ey; rows[o + ShotCol.EZ] = m.ez;
  rows[o + ShotCol.ACTION] = m.action;
  rows[o + ShotCol.CLAIMED_MS] = m.claimedMs;
  rows[o + ShotCol.ACTION_TIME_MS] = m.actionTimeMs;
}

/**
 * Hands `observer` the shot whose row was just written at `o` (writeMessageColumns first): whether
 * it fired, the player it hit, the rewind time, its pellets and the rewound bodies.
 */
export function observeShot(observer: ReplayObserver, rows: Float64Array, o: number, v: Verdict, slots: number, body: BodyPoints | null): void {
  observed.fired = observed.shooter < slots && msg.action === ShotAction.FIRE;
  observed.hitTarget = v.kind === VerdictKind.HIT ? v.target : -1;
  observed.rewindTimeMs = v.rewindTimeMs;
  observed.pellets = v.pellets;
  observed.body = body;
  observer.shot(rows, o, observed);
}
