/**
 * A predicting client in one object, for any game's schema: its snapshots (snapshot.ts, read with
 * the game's SnapshotReader), its view of the match (view.ts), its server clock and round trip
 * from hitreg's pings (protocol/ping.ts), and its shooter (predictor.ts: seq, frames, predictions,
 * the rules state mirrored with the server's rules). The game feeds it what arrives (states,
 * pings, verdicts) with its own local clock, and asks it for weapon messages to send. It holds no
 * socket and reads no clock.
 */
import type { World } from '../world/world';
import type { Rig } from '../rig/rig';
import { rewindReachMs, type ValidationConfig } from '../validate/rules';
import { createPingMessage, decodePing, ServerClockEstimate } from '../protocol/ping';
import { createBackfill, decodeBackfill } from '../protocol/backfill';
import { FrameStatus } from '../protocol/shot';
import { MatchView } from './view';
import { ARENA_READER, SnapshotPool, type SnapshotReader } from './snapshot';
import { PredictingShooter, type ClientClock, type Prediction } from './predictor';
import { InputStamper, PING_MARGIN_MS } from './stamps';

export interface PredictingClientOptions {
  world: World;
  rig: Rig;
  /** The match's rules (the server's HitregMatch.rules, sent at join). */
  rules: ValidationConfig;
  tickRate: number;
  /** The interpolation delay this client renders others with and told the server at join, ms. */
  interpDelayMs: number;
  /** How to read the game's synced state (ARENA_READER: hitreg's arena schema). */
  reader?: SnapshotReader;
  /** This client's player id as the reader names it (its session id, say). */
  selfId: string | number;
}

export class PredictingClient {
  readonly view: MatchView;
  readonly snapshots: SnapshotPool;
  readonly shooter: PredictingShooter;
  readonly clock = new ServerClockEstimate();
  readonly interpDelayMs: number;
  readonly selfId: string | number;
  /** The round trip the server measured and told in its pings, ms (0 before the first). */
  rttMs = 0;
  private readonly ping = createPingMessage();
  private readonly at: ClientClock = { serverNowMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, streamFloorMs: Number.NaN };
  /** This client's input stamps and ping answers: what the server holds its actions to. */
  readonly stamper: InputStamper;
  private lastEpoch = -1;
  private readonly backfillIn = createBackfill();

  constructor(o: PredictingClientOptions) {
    this.view = new MatchView(o.world, o.rig, o.rules.maxPlayers, rewindReachMs(o.rules), o.tickRate);
    this.snapshots = new SnapshotPool(o.rules.maxPlayers, 2, o.reader ?? ARENA_READER);
    this.shooter = new PredictingShooter(this.view, o.rules);
    this.interpDelayMs = o.interpDelayMs;
    this.selfId = o.selfId;
    this.stamper = new InputStamper(o.tickRate);
  }

  /** This client's slot in its view (-1 until a state with it arrived). */
  get slot(): number {
    return this.snapshots.slotOf(this.selfId);
  }

  /** A state patch arrived: its players go into the view's rings; a new life of this client resets its weapons. */
  onState(state: unknown): void {
    const snap = this.snapshots.capture(state);
    if (snap === null) return;
    this.view.apply(snap);
    snap.inUse = false;
    const me = this.slot;
    if (me < 0) return;
    this.shooter.slot = me;
    const alive = this.view.aliveLatest(me);
    this.shooter.alive = alive;
    const epoch = this.view.epoch[me]!;
    if (alive && epoch !== this.lastEpoch) {
      if (this.lastEpoch >= 0) this.shooter.respawn();
      this.lastEpoch = epoch;
    }
  }

  /**
   * A backfill arrived (Msg.BACKFILL bytes, for a client that joined with `fogBackfill: true`): the
   * view begins that enemy's run with it at the next state (MatchView.backfill). It names the
   * server's slot: for a reader that states slots (SnapPlayer.slot, as ARENA_READER does). True when
   * it was one.
   */
  onBackfill(bytes: unknown): boolean {
    if (!decodeBackfill(this.backfillIn, bytes)) return false;
    this.view.backfill(this.backfillIn);
    return true;
  }

  /** A ping arrived at local ms `nowMs`: true when it was one (answer it with the same bytes). */
  onPing(bytes: unknown, nowMs: number): boolean {
    if (decodePing(this.ping, bytes) !== FrameStatus.OK) return false;
    this.clock.onPing(this.ping, nowMs);
    if (this.ping.rttMs > 0) this.rttMs = this.ping.rttMs;
    this.stamper.answered(this.ping.serverTimeMs); // answered at once: later messages come after it
    return true;
  }

  /**
   * The stamp for a movement input of the tick at local ms `tickMs` (the game sends it with the
   * input): the tick's time on the server clock, kept apart from the last and not far before a
   * ping answered (stamps.ts). 0 before the clock is synced: send the input unstamped.
   */
  inputStamp(tickMs: number): number {
    return this.clock.synced ? this.stamper.stamp(this.clock.serverNow(tickMs)) : 0;
  }

  /** The server time this client draws the others at, local ms `nowMs`. */
  renderTime(nowMs: number): number {
    return this.clock.serverNow(nowMs) - this.interpDelayMs;
  }

  /** The clock as a weapon message stamped at local ms `nowMs` sees it (scratch). */
  clockAt(nowMs: number): ClientClock {
    const c = this.at;
    c.serverNowMs = this.clock.stamp(nowMs, this.stamper.floor - PING_MARGIN_MS);
    c.rttMs = this.rttMs;
    c.interpDelayMs = this.interpDelayMs;
    c.newestTickMs = this.view.newestTimeMs;
    c.streamFloorMs = this.stamper.floor;
    return c;
  }

  /** A fire along S -> E at local ms `nowMs`, seen at the render time; `target`: the slot it aims at (-1 none). */
  fire(nowMs: number, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, target = -1): Prediction {
    return this.shooter.fire(this.clockAt(nowMs), this.renderTime(nowMs), sx, sy, sz, ex, ey, ez, target);
  }

  /** The verdict of `seq` arrived. */
  settle(seq: number, verdict: { kind: number; reason: number } | null): void {
    this.shooter.settle(seq, verdict);
  }
}
