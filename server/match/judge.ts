/**
 * Judging one weapon message for a match: the payload made a frame (a byte frame as it came, an
 * object encoded once, canonically), the shooter's timing and rules state handed to validateShot,
 * and everything the pipeline read captured for the match log, so the audit replays it bit for
 * bit. Reuses its scratch objects: nothing is allocated per shot.
 */
import { validateShot } from '../../shared/validate/shot';
import type { ShotTiming, ValidationConfig } from '../../shared/validate/rules';
import { copyShooterState, createShooterState, createVerdict, type ShooterState, type Verdict } from '../../shared/validate/verdict';
import { encodeShotObject, type ShotObjectContext } from '../../shared/protocol/shotObject';
import { SHOT_MAX_BYTES, shotBytes } from '../../shared/protocol/shot';
import type { MatchScene } from '../../shared/validate/scene';
import type { ShotInputTargets } from '../../shared/matchlog/shotRecord';
import type { MatchPlayer } from './player';
import type { ShotRecord } from './recorder';

/** The players as the pipeline sees them, by slot (the match keeps these up to date). */
export interface TargetArrays {
  alive: boolean[];
  lifeStartMs: number[];
  leftMs: number[];
  team: number[];
}

/** How a match hands a message to the judge. */
export interface JudgeRequest<Id> {
  shooter: MatchPlayer<Id>;
  payload: unknown;
  /** Match ms when the message arrived. */
  receiveTimeMs: number;
  /** Match ms of the newest recorded tick (-Infinity before the first). */
  newestTickMs: number;
  /** Objects are encoded into frames; false: anything but a byte frame is MALFORMED. */
  objects: boolean;
  /** Render time for an object without one (NaN: action time - interpolation delay). */
  renderTimeMs: number;
  /** The shooter's stream floor when the message arrived. */
  streamFloorMs: number;
  slotOf(id: Id): number;
}

export class ShotJudge {
  readonly verdict: Verdict = createVerdict();
  /** Why an object could not be a frame ('' when it could, or was bytes). */
  problem = '';
  private readonly before: ShooterState = createShooterState(-1, []);
  private readonly timing: ShotTiming = { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, shooterDiedMs: Number.NaN, streamFloorMs: Number.NaN };
  private readonly frame = new Uint8Array(SHOT_MAX_BYTES);
  private readonly seen: ShotInputTargets = { alive: [], lifeStartMs: [], leftMs: [], team: [] };
  private readonly ctx: ShotObjectContext<unknown> = { renderTimeMs: Number.NaN, interpDelayMs: 0, slotOf: () => -1 };
  /** The record handed to the recorder (its arrays and objects are the judge's scratch). */
  readonly record: ShotRecord = {
    bytes: null, nonBytesType: null, shooterBefore: this.before, timing: this.timing, targets: this.seen,
    verdict: this.verdict, targetHealthAfter: -1, killed: false, hitHealthAfter: [], hitKilled: [],
  };

  /** The frame's first shotBytes(n) bytes, one view per pellet count n (made once). */
  private readonly frames: Uint8Array[] = [];
  private frameOf(n: number): Uint8Array {
    return this.frames[n] ?? (this.frames[n] = this.frame.subarray(0, shotBytes(n)));
  }

  constructor(private readonly scene: MatchScene, private readonly rules: ValidationConfig, private readonly targets: TargetArrays) {}

  /**
   * Judges `req` into `this.verdict` and writes the shooter's state after into its weapons. Fills
   * `this.record` with what the log needs (the caller adds what applying the verdict did).
   */
  judge<Id>(req: JudgeRequest<Id>): Verdict {
    const p = req.shooter;
    let payload: unknown = req.payload;
    this.problem = '';
    if (!(payload instanceof Uint8Array) && req.objects && payload !== null && typeof payload === 'object') {
      const ctx = this.ctx as ShotObjectContext<Id>;
      ctx.renderTimeMs = req.renderTimeMs;
      ctx.interpDelayMs = p.interpDelayMs;
      ctx.slotOf = req.slotOf;
      const problem = encodeShotObject(this.frame, payload, ctx);
      if (problem === null) payload = this.frameOf(this.frame[3]!);
      else this.problem = problem;
    }
    const timing = this.timing;
    timing.receiveTimeMs = req.receiveTimeMs;
    // The largest round trip the client was told lately: its clock may run ahead by half of it.
    timing.rttMs = p.toldRttMs();
    timing.interpDelayMs = p.interpDelayMs;
    timing.newestTickMs = req.newestTickMs === Number.NEGATIVE_INFINITY ? req.receiveTimeMs : req.newestTickMs;
    timing.shooterDiedMs = p.diedAtMs; // NaN while alive
    timing.streamFloorMs = req.streamFloorMs;
    p.weapons.alive = p.alive;
    p.weapons.slot = p.slot;
    copyShooterState(this.before, p.weapons);
    // The targets as the pipeline sees them, for the log: taken before a kill changes them.
    const seen = this.seen, t = this.targets;
    copyInto(seen.alive, t.alive);
    copyInto(seen.lifeStartMs, t.lifeStartMs);
    copyInto(seen.leftMs, t.leftMs);
    copyInto(seen.team, t.team);
    const v = this.verdict;
    validateShot(v, this.scene, this.rules, payload, p.weapons, timing, t);
    copyShooterState(p.weapons, v.after);
    // An action carried out states its time: later messages of this stream cannot claim earlier.
    if (v.fired) p.raiseFloor(v.after.lastActionMs);
    const r = this.record;
    const isBytes = payload instanceof Uint8Array;
    // Oversized payloads are kept too (the socket caps them): the replay needs the length.
    r.bytes = isBytes ? (payload as Uint8Array) : null;
    r.nonBytesType = isBytes ? null : typeof payload;
    r.targetHealthAfter = -1;
    r.killed = false;
    return v;
  }
}

function copyInto<T>(out: T[], src: readonly T[]): void {
  if (out.length !== src.length) out.length = src.length;
  for (let i = 0; i < src.length; i++) out[i] = src[i]!;
}
