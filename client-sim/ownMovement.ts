/**
 * Own-movement prediction: the bot runs the server's movement step (shared/movement/step.ts
 * stepMovement) on its own inputs at the tick rate, so it knows where it is now rather than where
 * the last snapshot said it was half a round trip ago, and reconciles with the server: each state
 * patch carries the newest input seq the server applied (PlayerState.inputSeq) and the position it
 * produced; the bot takes that position with its own velocity at the step that used the same
 * input, and replays its later steps on top. Inputs are rounded to float32 as the wire carries them.
 *
 * Every predicted pose goes into the bot's own ring of its MatchView, stamped with the server time
 * at which the server will have applied the input behind it (the bot's server clock plus half the
 * round trip): a prediction's eye path (shared/validate/shot.ts step 5) is then where the bot
 * really was when it fired, as on the server once the inputs arrive.
 *
 * Per-step data live in flat typed-array rings; nothing is allocated per step or per frame.
 */
import { createMoveState, setView, stepMovement, type MoveConfig, type MoveInputLike, type MoveState, type MoveWorld } from '../shared/movement/step';
import { createPlayerPose, type PlayerPose } from '../shared/lagcomp/pose';
import type { PlayerHistory } from '../shared/lagcomp/history';

/** Inputs unapplied beyond a round trip's worth that mean the link holds them back (linkStalled). */
const STALL_SLACK_INPUTS = 8;
/** How long after a stall the server's eye path may still stray, ms (linkStalled). */
const STALL_HOLD_MS = 400;

/** Steps kept for reconciliation (4 s at 64 Hz): a patch older than that finds no step and resets to the server. */
const RING = 256;
/** Per-step numbers: input seq, wish x z, view x y z, jump, then the state after: x y z vx vy vz onGround, and the server time it is stamped with. */
const S = 15;
const enum F { SEQ = 0, WX, WZ, VX, VY, VZ, JUMP, X, Y, Z, VELX, VELY, VELZ, GROUND, AT }

const f32 = Math.fround;

export class OwnMovement {
  readonly state: MoveState = createMoveState(0, 0, 0);
  /** Whether the state follows a life of the own player (false until the first alive snapshot of it). */
  active = false;
  epoch = -1;
  alive = false;
  /** Corrections applied and the largest position error seen at one, metres. */
  corrections = 0;
  maxErrorM = 0;
  /** Sum and count of position errors at reconciliation (mean error), metres. */
  errorSumM = 0;
  errorN = 0;
  private readonly ring = new Float64Array(RING * S);
  private steps = 0;
  private readonly dtMs: number;
  private accMs = 0;
  private lastNow = -1;
  private readonly input: MoveInputLike = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };
  private inputSeq = 0;
  /** The newest input seq the server said it applied (the last patch's). */
  private appliedSeq = 0;
  private jumpPending = false;
  private readonly pose: PlayerPose = createPlayerPose();
  private lastRecordMs = Number.NEGATIVE_INFINITY;
  private tick = 0;

  /**
   * `observedRate()`: ticks per second the server is seen to run (0 when not measured yet). Steps
   * are paced at that rate, each of one nominal tick's dt, as the server's are: a server that falls
   * behind its nominal rate under load moves its players less per wall-clock second, and a client
   * stepping on the wall clock would run ahead of it.
   */
  /**
   * `stampOf(localMs)`: the stamp the input of the step at that local time carries (NaN: none), so
   * the own predicted ring ends a shot's eye path where the server's does (asked right after the
   * step's input was emitted).
   */
  constructor(private readonly world: MoveWorld, private readonly cfg: MoveConfig, private readonly tickRate: number, private readonly history: () => PlayerHistory | undefined, private readonly observedRate: () => number = () => 0, private readonly stampOf: (localMs: number) => number = () => Number.NaN) {
    this.dtMs = 1000 / tickRate;
  }

  /**
   * Inputs sent that the newest patch does not say were applied: about a round trip's worth on a
   * flowing link, many more while the link holds them back (the server then moves this player on
   * the last input it has, away from where this prediction puts it).
   */
  get unapplied(): number {
    return this.inputSeq - this.appliedSeq;
  }

  /**
   * Whether the link holds this player's inputs back at local ms `now` or did within STALL_HOLD_MS:
   * more inputs unapplied than a round trip of `rttMs` explains (plus STALL_SLACK_INPUTS). The
   * server's eye path then strays from where this prediction puts the eye.
   */
  linkStalled(now: number, rttMs: number): boolean {
    if (this.unapplied > (rttMs * this.tickRate) / 1000 + STALL_SLACK_INPUTS) this.stalledAt = now;
    return now - this.stalledAt < STALL_HOLD_MS;
  }
  private stalledAt = Number.NEGATIVE_INFINITY;

  /** The input just sent (values as the wire rounds them). */
  setInput(seq: number, wishX: number, wishZ: number, viewX: number, viewY: number, viewZ: number, jump: boolean): void {
    this.inputSeq = seq;
    this.input.wishX = f32(wishX); this.input.wishZ = f32(wishZ);
    this.input.viewX = f32(viewX); this.input.viewY = f32(viewY); this.input.viewZ = f32(viewZ);
    if (jump) this.jumpPending = true;
    // The server turns the view with the step that uses the input.
    if (this.active && this.alive) setView(this.state, this.input.viewX, this.input.viewY, this.input.viewZ);
  }

  /**
   * Runs the fixed steps due by local time `now` and records each predicted pose, stamped with
   * `serverAt(local ms)` (the server time the pose will exist at on the server). `emit(local ms of
   * the step)` is called before each step: it sends that step's input and hands it over with
   * setInput (the server steps one input per tick, in order).
   */
  advance(now: number, serverAt: (localMs: number) => number, emit: (localMs: number) => void = () => undefined): void {
    if (this.lastNow < 0) this.lastNow = now;
    this.accMs += Math.min(250, now - this.lastNow);
    this.lastNow = now;
    const dt = this.dtMs / 1000;
    const seen = this.observedRate();
    const rate = seen > 0 ? Math.min(this.tickRate * 1.02, Math.max(this.tickRate * 0.5, seen)) : this.tickRate;
    const stepMs = 1000 / rate;
    while (this.accMs >= stepMs) {
      this.accMs -= stepMs;
      emit(now - this.accMs);
      if (!this.active) continue;
      const jump = this.alive && this.jumpPending;
      if (this.alive) {
        this.jumpPending = false;
        this.input.jump = jump;
        stepMovement(this.state, this.input, this.world, this.cfg, dt);
        this.input.jump = false;
      }
      const at = serverAt(now - this.accMs);
      this.store(jump, at);
      this.record(at, this.stampOf(now - this.accMs));
    }
  }

  private store(jump: boolean, at: number): void {
    const o = (this.steps % RING) * S, r = this.ring, i = this.input;
    r[o + F.SEQ] = this.inputSeq;
    r[o + F.AT] = at;
    r[o + F.WX] = i.wishX; r[o + F.WZ] = i.wishZ; r[o + F.VX] = i.viewX; r[o + F.VY] = i.viewY; r[o + F.VZ] = i.viewZ;
    r[o + F.JUMP] = jump ? 1 : 0;
    this.storeState(o);
    this.steps++;
  }

  private storeState(o: number): void {
    const r = this.ring, s = this.state;
    r[o + F.X] = s.x; r[o + F.Y] = s.y; r[o + F.Z] = s.z;
    r[o + F.VELX] = s.vx; r[o + F.VELY] = s.vy; r[o + F.VELZ] = s.vz; r[o + F.GROUND] = s.onGround ? 1 : 0;
  }

  private record(serverMs: number, stampMs: number): void {
    const h = this.history();
    if (h === undefined) return;
    const t = serverMs > this.lastRecordMs ? serverMs : this.lastRecordMs + 1e-3;
    const p = this.pose, s = this.state;
    p.x = s.x; p.y = s.y; p.z = s.z;
    p.qx = f32(s.qx); p.qy = f32(s.qy); p.qz = f32(s.qz); p.qw = f32(s.qw);
    p.clip = s.clip; p.time = f32(s.animTime); p.alive = this.alive; p.epoch = this.epoch; p.stampMs = stampMs;
    if (h.record(++this.tick, t, p) === 0) this.lastRecordMs = t;
  }

  /**
   * A state patch of the own player: position, view, alive, epoch and the newest input seq the
   * server applied. A new life (or the first) resets to the server's state; otherwise the step that
   * used the same input is corrected to the server's position and the later steps are replayed.
   */
  reconcile(x: number, y: number, z: number, viewX: number, viewY: number, viewZ: number, alive: boolean, epoch: number, inputSeq: number, serverMs: number): void {
    if (inputSeq > this.appliedSeq) this.appliedSeq = inputSeq;
    if (epoch !== this.epoch || !this.active) {
      if (!alive) {
        this.alive = false;
        return;
      }
      const s = this.state;
      s.x = x; s.y = y; s.z = z; s.vx = 0; s.vy = 0; s.vz = 0; s.onGround = true;
      setView(s, viewX, viewY, viewZ);
      this.epoch = epoch;
      this.alive = true;
      this.active = true;
      this.steps = 0;
      // The history must not interpolate from the old life into this one: the epoch marks it.
      return;
    }
    this.alive = alive;
    if (!alive) return;
    // The step matching the server's tick: of the steps that used the newest input the server had
    // applied (frames and ticks drift, so an input may drive one, two or no steps on either side),
    // the one stamped nearest the tick's time; else the newest step of an older input.
    const oldest = Math.max(0, this.steps - RING);
    const r = this.ring;
    let j = this.steps - 1;
    while (j >= oldest && r[(j % RING) * S + F.SEQ]! > inputSeq) j--;
    if (j < oldest) return; // no step of ours used that input yet (the snapshot is from before our first step)
    if (r[(j % RING) * S + F.SEQ] === inputSeq) {
      let best = j;
      for (let k = j - 1; k >= oldest && r[(k % RING) * S + F.SEQ] === inputSeq; k--) {
        if (Math.abs(r[(k % RING) * S + F.AT]! - serverMs) < Math.abs(r[(best % RING) * S + F.AT]! - serverMs)) best = k;
      }
      j = best;
    }
    const o = (j % RING) * S;
    const ex = x - r[o + F.X]!, ey = y - r[o + F.Y]!, ez = z - r[o + F.Z]!;
    const err = Math.sqrt(ex * ex + ey * ey + ez * ez);
    this.errorSumM += err;
    this.errorN++;
    if (!(err > 1e-6)) return;
    this.corrections++;
    if (err > this.maxErrorM) this.maxErrorM = err;
    // Replay from the server's position at that step, with our own velocity there.
    const s = this.state;
    s.x = x; s.y = y; s.z = z;
    s.vx = r[o + F.VELX]!; s.vy = r[o + F.VELY]!; s.vz = r[o + F.VELZ]!; s.onGround = r[o + F.GROUND] === 1;
    this.storeState(o);
    const inp = this.replayInput;
    const dt = this.dtMs / 1000;
    for (let k = j + 1; k < this.steps; k++) {
      const q = (k % RING) * S;
      inp.wishX = r[q + F.WX]!; inp.wishZ = r[q + F.WZ]!; inp.viewX = r[q + F.VX]!; inp.viewY = r[q + F.VY]!; inp.viewZ = r[q + F.VZ]!;
      inp.jump = r[q + F.JUMP] === 1;
      stepMovement(s, inp, this.world, this.cfg, dt);
      this.storeState(q);
    }
    // The view stays the newest one sent.
    setView(s, this.input.viewX, this.input.viewY, this.input.viewZ);
  }
  private readonly replayInput: MoveInputLike = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };

  /** Eye position now (feet + eye height), into out. */
  eye(out: Float64Array, eyeHeight: number): Float64Array {
    out[0] = this.state.x; out[1] = this.state.y + eyeHeight; out[2] = this.state.z;
    return out;
  }

  /** Horizontal speed now, m/s. */
  speed(): number {
    const s = this.state;
    return Math.sqrt(s.vx * s.vx + s.vz * s.vz);
  }
}
