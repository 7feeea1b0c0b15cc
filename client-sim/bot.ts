/**
 * A headless player over a real WebSocket: the parts wired together and run once per frame. The
 * parts, one job each: connection.ts (socket and link glue), clock.ts (server clock, round trip,
 * observed tick rate), view.ts (what the bot rendered: one history ring per player),
 * ownMovement.ts (own-movement prediction and reconciliation), steering.ts (where it wants to go),
 * sight.ts (target picking and points inside hitboxes), aim.ts (the view as the human model, human/,
 * has a person aim), camera.ts, shared/client/weaponState.ts (the rules state mirrored with the
 * server's own rules), shots.ts (prediction and the log of every weapon message), outbox.ts (the
 * messages sent, up to their verdicts), honest.ts (how an honest player fights; the bot is its
 * Fighter). A cheat profile (cheats/, profile.ts) may take over the trigger, the inputs or the
 * pongs; without one the bot plays honestly.
 *
 * The frame loop allocates nothing: eye, aim and camera work in scratch arrays, inputs go through a
 * preallocated ring, snapshots through a pool. Weapon messages allocate their log entry.
 */
import type { VerdictReply, HitReply, DamagedReply } from '../shared/protocol/messages';
import { createShotMessage, type ShotMessage } from '../shared/protocol/shot';
import { InputSender } from './inputSender';
import { VerdictKind, type Verdict } from '../shared/validate/verdict';
import type { WeaponSpec } from '../shared/weapons';
import { rewindReachMs, type ValidationConfig } from '../shared/validate/shot';
import { Link } from './net';
import { Rng } from './rng';
import { MatchView, Snap, type StateSnapshot } from './view';
import { BotClock } from './clock';
import { Connection } from './connection';
import { OwnMovement } from './ownMovement';
import { Steering } from './steering';
import { Aim } from './aim';
import { Sight } from './sight';
import { SnapSpeed } from './snapSpeed';
import { Camera } from './camera';
import { WeaponState } from '../shared/client/weaponState';
import { fillAction, fillFire, Intent, type ShotLog } from './shots';
import { ShotOutbox } from './outbox';
import { ShotPredictor } from '../shared/client/predictor';
import { PING_MARGIN_MS } from '../shared/client/stamps';
import { HonestPlay, type Fighter } from './honest';
import { wallsBetween } from './walls';
import { ShotFramer, takeWelcomeRules } from './framer';
import { LaunchWatch } from './launches';
import type { BotOptions } from './botOptions';
import type { CheatProfile } from './profile';

export { Intent, OVERRULED, type ShotLog } from './shots';
export type { BotOptions } from './botOptions';

/** A cheat profile driving a Bot (./profile). */
export type Profile = CheatProfile<Bot>;

export class Bot implements Fighter {
  readonly index: number;
  readonly opts: BotOptions;
  /**
   * The rules it predicts with: the run's, with what the match chose for itself (the spread seed,
   * the material table) taken from the room's welcome.
   */
  readonly rules: ValidationConfig;
  /** The room's welcome arrived (its rules are in `rules`). */
  welcomed = false;
  /** The interpolation delay it declares and renders with, ms (the profile may add to the options'). */
  get interpDelayMs(): number {
    return this.opts.interpDelayMs + (this.profile?.extraInterpDelayMs ?? 0);
  }
  readonly rng: Rng;
  readonly link: Link;
  readonly conn: Connection;
  readonly clock = new BotClock();
  readonly view: MatchView;
  readonly weapons: WeaponState;
  readonly move: OwnMovement;
  readonly steer: Steering;
  readonly aim: Aim;
  readonly sight: Sight;
  readonly camera: Camera;
  readonly honest: HonestPlay;
  private readonly predictor: ShotPredictor;
  /** Its rockets and grenades predicted from the moment they fly, and the server's ends beside them. */
  private readonly launches: LaunchWatch;
  slot = -1;
  profile: Profile | null = null;
  /** Last seq used (every weapon message takes the next one). */
  seq = 0;
  /** Local ms when this bot learned it died (DAMAGED with health 0 or a dead snapshot), -1 while alive. */
  deadSince = -1;
  /** The own life (epoch) the bot knows. */
  ownEpoch = -1;
  /** Non-shot messages (inputs, pongs) the room refused, by reason: an honest client should have none. */
  readonly rejects: Record<string, number> = {};
  frames = 0;
  /** Its weapon messages up to their verdicts, and the damage on its way to each slot from its predicted hits. */
  readonly outbox: ShotOutbox;
  /** The eye now (predicted), updated at the start of each frame. */
  readonly eyeNow = new Float64Array(3);
  /** Movement inputs on the wire (its wishScale is the speed cheat's lever). */
  readonly inputs: InputSender;
  /** The own speed the server moved the bot at (the speed cheat's measure). */
  private readonly snapSpeed: SnapSpeed;
  private shooting = false;
  private closed = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  readonly msg: ShotMessage = createShotMessage();
  /** Frames weapon messages: a pattern weapon's pellets filled for the seq it goes out with, unless a cheat set them. */
  private readonly framer: ShotFramer;
  private readonly viewAt = new Float64Array(3);
  private readonly serverAt = (local: number): number => this.clock.serverNow(local) + this.clock.rttMs / 2;

  constructor(opts: BotOptions) {
    this.index = opts.index;
    this.opts = opts;
    this.rng = new Rng(opts.seed);
    this.link = new Link(opts.net, this.rng.fork(1));
    const v: ValidationConfig = { ...opts.validation };
    this.rules = v;
    this.framer = new ShotFramer(v, this.msg);
    this.conn = new Connection(this.link, v.maxPlayers, opts.tickRate);
    this.snapSpeed = new SnapSpeed(opts.tickRate);
    this.view = new MatchView(opts.world, opts.rig, v.maxPlayers, rewindReachMs(v), opts.tickRate);
    this.weapons = new WeaponState(v);
    this.outbox = new ShotOutbox(this.view, this.weapons);
    this.move = new OwnMovement(opts.world, opts.movement, opts.tickRate, () => (this.slot >= 0 ? this.view.histories[this.slot] : undefined), () => this.clock.ticksPerSecond,
      () => this.conn.stamper.newest);
    this.steer = new Steering(opts.world, this.rng.fork(2), opts.rig.eyeHeight);
    this.aim = new Aim(this.rng.fork(3));
    this.sight = new Sight(opts.rig, opts.world, this.view);
    this.inputs = new InputSender(this.conn, this.steer, this.aim, this.move);
    this.camera = new Camera(opts.world);
    this.predictor = new ShotPredictor(this.view, v, this.view.targets);
    this.launches = new LaunchWatch(this.view, v, opts.tickRate);
    this.honest = new HonestPlay(this, this.rng.fork(4), opts.launcherShare);
  }

  get now(): number {
    return performance.now();
  }

  async connect(): Promise<void> {
    const o = this.opts;
    await this.conn.join(o.url, o.roomId, { name: o.name, interpDelayMs: this.interpDelayMs, fogBackfill: o.fogBackfill !== false }, {
      joined: (slot) => {
        this.slot = slot;
        this.view.ownSlot = slot;
        this.weapons.slot = slot;
      },
      welcome: (w) => {
        takeWelcomeRules(this.rules, w);
        this.welcomed = true;
      },
      ping: (bytes) => {
        if (!this.clock.onPing(bytes, this.now)) return false;
        return this.profile?.ping?.(this, bytes, this.now) ?? true;
      },
      snapshot: (snap) => this.onSnapshot(snap),
      verdict: (v) => this.onVerdict(v),
      hit: (h) => this.onHit(h),
      damaged: (d) => this.onDamaged(d),
      reject: (r) => { this.rejects[r.reason] = (this.rejects[r.reason] ?? 0) + 1; },
      projectile: (e) => this.launches.serverEnd(e, this.slot),
      backfill: (b) => this.view.backfill(b),
    });
    this.timer = setInterval(() => this.safeFrame(), o.frameMs ?? 16);
  }

  private onSnapshot(snap: StateSnapshot): void {
    try {
      const now = this.now;
      this.view.apply(snap);
      this.clock.onTick(snap.tick, now);
      const onDeath = this.opts.onDeath;
      if (onDeath !== undefined) for (let i = 0; i < snap.deathCount; i++) onDeath(snap.deaths[2 * i]!, snap.deaths[2 * i + 1]!);
      const s = this.slot;
      if (s < 0 || !this.view.present(s)) return;
      const v = this.view;
      const epoch = v.latestValue(s, Snap.EPOCH);
      const alive = v.latestValue(s, Snap.ALIVE) === 1;
      if (epoch !== this.ownEpoch && alive) {
        // A new life: full magazines on the server, no death known.
        this.ownEpoch = epoch;
        this.deadSince = -1;
        this.weapons.respawn();
        if (!this.steer.homeSet) this.steer.setHome(v.latestValue(s, Snap.X), v.latestValue(s, Snap.Z));
      }
      if (!alive && this.deadSince < 0) this.deadSince = now;
      const x = v.latestValue(s, Snap.X), z = v.latestValue(s, Snap.Z);
      this.snapSpeed.observe(snap.tick, x, z, alive, epoch, v.latestValue(s, Snap.INPUT_SEQ));
      this.move.reconcile(x, v.latestValue(s, Snap.Y), z, v.latestValue(s, Snap.VX), v.latestValue(s, Snap.VY), v.latestValue(s, Snap.VZ), alive, epoch, v.latestValue(s, Snap.INPUT_SEQ), snap.timeMs);
      if (alive) this.weapons.check(v.latestValue(s, Snap.WEAPON), v.latestValue(s, Snap.AMMO), v.latestValue(s, Snap.RELOAD_END), v.latestValue(s, Snap.DRAW_END));
      this.outbox.clearDead();
    } finally {
      snap.inUse = false;
    }
  }

  private onVerdict(v: VerdictReply): void {
    const log = this.outbox.answer(v, this.now);
    if (log !== null && v.kind === VerdictKind.LAUNCH) this.launches.verdict(log, v);
  }

  private onHit(h: HitReply): void {
    if (h.killed) this.view.markKilled(h.target);
  }

  private onDamaged(d: DamagedReply): void {
    if (d.health <= 0 && this.deadSince < 0) this.deadSince = this.now;
  }

  // ------------------------------------------------------------------ what the bot knows

  /** In the room, synced, with a picture of the match and of itself. */
  ready(): boolean {
    return this.slot >= 0 && this.welcomed && this.clock.synced && this.view.snapshots >= 4 && this.view.present(this.slot) && this.move.active;
  }

  /** The bot believes it is alive (the server may know better). */
  aliveKnown(): boolean {
    return this.deadSince < 0 && this.view.latestValue(this.slot, Snap.ALIVE) === 1;
  }

  serverNow(now: number): number {
    return this.clock.serverNow(now);
  }

  /** The server time this bot renders others at. */
  renderTime(now: number): number {
    return this.clock.serverNow(now) - this.interpDelayMs;
  }

  /** Largest own horizontal speed per stepped input seen in the snapshots, m/s. */
  get maxSnapSpeed(): number {
    return this.snapSpeed.max;
  }

  get weapon(): WeaponSpec {
    return this.weapons.equipped;
  }

  /** Segment length of an honest shot: just inside the weapon's range (the length is computed in floating point). */
  shotLength(w: WeaponSpec = this.weapon): number {
    return w.rangeM * 0.999;
  }

  /** An action time stamped now on the bot's server clock, held to its stream floor as a predicting client's (ServerClockEstimate.stamp). */
  stamp(now: number): number {
    return this.clock.stamp(now, this.conn.stamper.floor - PING_MARGIN_MS);
  }

  newestSnapshotMs(): number {
    return this.view.newestTimeMs;
  }

  zonePoint(out: Float64Array, slot: number, t: number, zone: number): boolean {
    return this.sight.zonePoint(out, slot, t, zone);
  }

  findTarget(eye: Float64Array, t: number, visible: boolean, maxDist: number, skipDoomed = true, accept?: (slot: number) => boolean): number {
    return this.sight.findTarget(this.slot, eye, t, visible, maxDist, skipDoomed ? this.outbox.doomed : null, accept);
  }

  // ------------------------------------------------------------------ weapon messages

  /** A shot in the bot's message scratch with its equipped weapon (shots.ts fillFire). */
  fireMessage(eye: Float64Array, px: number, py: number, pz: number, length: number, renderTimeMs: number, timeMs: number, claimedTarget = -1, clip = true): ShotMessage {
    this.framer.fresh();
    return fillFire(this.msg, clip ? this.opts.world : null, eye, px, py, pz, length, renderTimeMs, timeMs, this.weapons.head.equipped, claimedTarget);
  }

  /**
   * Fills `msg`'s pellets with the pattern of seq `seq` (its weapon's pellets around its aim, the
   * rules state before the shot): what the server rebuilds when `seq` is the seq it goes out with.
   * Returns the pellet count (0 for a weapon without a pattern).
   */
  fillPattern(msg: ShotMessage): number {
    return this.framer.fillPattern(msg, this.weapons.head);
  }

  /** The message scratch's pellets are the caller's (a cheat's): sent as they are until the next fireMessage. */
  customPellets(): void {
    this.framer.custom();
  }

  /** A switch (to `weapon`) or reload (of the equipped weapon) at action time `timeMs`, in the scratch. */
  actionMessage(action: number, weapon: number, timeMs: number): ShotMessage {
    this.framer.fresh();
    return fillAction(this.msg, action, weapon, timeMs);
  }

  /** Whether the link holds (or just held) this player's inputs back (OwnMovement.linkStalled). */
  linkStalled(now: number): boolean {
    return this.move.linkStalled(now, this.clock.rttMs);
  }

  /** A shot of the equipped weapon along the view of the last input sent (what the server holds), unless predicted refused. */
  fireAlongView(now: number, t: number, at: number, intent: Intent): boolean {
    const a = this.inputs.viewPoint(this.viewAt, this.eyeNow);
    const msg = this.fireMessage(this.eyeNow, a[0]!, a[1]!, a[2]!, this.shotLength(), t, at);
    if (this.predict(msg, now).kind === VerdictKind.REJECTED) return false;
    this.send(msg, intent);
    return true;
  }

  /**
   * A shot of the equipped weapon along the view of the last input sent, its full length through
   * whatever is in the way (a wall-bang), sent only when the prediction says it hits a player
   * behind a wall it passed.
   */
  fireThroughView(now: number, t: number, at: number, intent: Intent): boolean {
    const a = this.inputs.viewPoint(this.viewAt, this.eyeNow);
    const msg = this.fireMessage(this.eyeNow, a[0]!, a[1]!, a[2]!, this.shotLength(), t, at, -1, false);
    const p = this.predict(msg, now);
    if (p.kind !== VerdictKind.HIT || !(p.hits.count > 0 && p.hits.walls[0]! > 0)) return false;
    this.send(msg, intent);
    return true;
  }

  wallCost(eye: Float64Array, p: Float64Array): number {
    return wallsBetween(this.walls, this.view, this.rules, eye, p)[1]!;
  }
  private readonly walls = new Float64Array(2);

  carries(weapon: number): boolean {
    return this.rules.loadout.includes(weapon);
  }

  act(action: number, weapon: number, at: number, intent: Intent): void {
    this.send(this.actionMessage(action, weapon, at), intent);
  }

  /** Newest server time the prediction assumes (the own predicted ring reaches the message's arrival). */
  private newestForPrediction(): number {
    const own = this.slot >= 0 ? this.view.histories[this.slot] : undefined;
    const ownNewest = own !== undefined && own.size() > 0 ? own.newestTimeMs() : Number.NEGATIVE_INFINITY;
    return Math.max(this.view.newestTimeMs, ownNewest);
  }

  /** Predicts `msg` (seq 0 = the next free seq) with the bot's rules state. The verdict is scratch. */
  predict(msg: ShotMessage, now = this.now): Verdict {
    const seq = msg.seq;
    if (seq === 0) msg.seq = this.seq + 1;
    const bytes = this.framer.encode(msg, this.weapons.head);
    msg.seq = seq;
    return this.predictBytes(bytes, now);
  }

  private predictBytes(bytes: Uint8Array, now: number): Verdict {
    const st = this.weapons.head;
    st.slot = this.slot;
    st.alive = this.aliveKnown();
    return this.predictor.predict(bytes, st, this.clock.serverNow(now), this.clock.rttMs, this.interpDelayMs, this.newestForPrediction(), this.conn.stamper.floor);
  }

  /**
   * Predicts, logs and sends a weapon message through the link. `msg.seq` 0 takes the next seq;
   * `bytes` sends those exact bytes instead (the replay cheat). Returns the log.
   */
  send(msg: ShotMessage | null, intent: Intent, expected: string | null = null, bytes?: Uint8Array): ShotLog {
    const now = this.now;
    let payload: Uint8Array;
    if (bytes !== undefined) payload = bytes.slice();
    else if (msg !== null) {
      if (msg.seq === 0) msg.seq = this.seq + 1;
      payload = this.framer.encode(msg, this.weapons.head).slice();
    } else throw new Error('send: pass a message or the bytes to send');
    const seq = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(4, true);
    if (seq > this.seq) this.seq = seq;
    const headSeq = this.weapons.head.lastSeq;
    const p = this.predictBytes(payload, now);
    const log = this.outbox.log(payload, p, {
      bot: this.index, roomId: this.conn.room?.roomId ?? '', slot: this.slot, profile: this.profile?.name ?? 'honest', strength: this.profile?.strength ?? 0,
      serverMs: this.clock.serverNow(now), rttMs: this.clock.rttMs, deadKnown: !this.aliveKnown(), epoch: this.ownEpoch,
    }, intent, expected, now);
    if (p.fired) this.conn.stamper.acted(log.timeMs);
    this.outbox.sending(log, p, seq > headSeq && p.seq === seq);
    if (p.kind === VerdictKind.LAUNCH && p.seq === seq) this.launches.launched(log, p, this.slot, this.serverAt(now));
    // Inputs held back go first: the server judges a weapon message after the inputs sent before it.
    this.inputs.flush();
    log.dropped = !this.conn.sendShot(payload);
    this.outbox.sent(log);
    this.opts.onShot?.(log);
    return log;
  }

  // ------------------------------------------------------------------ the frame

  private safeFrame(): void {
    if (this.closed) return;
    try {
      this.frame();
    } catch (e) {
      console.error(`bot ${this.index}: frame failed:`, e);
    }
  }

  /** Keeps moving and answering, never fires again (the end of a run). */
  stopShooting(): void {
    this.shooting = false;
  }

  /** The match is on: everyone has joined (the simulator calls this). */
  startShooting(): void {
    this.shooting = true;
  }

  get isShooting(): boolean {
    return this.shooting;
  }

  private frame(): void {
    if (!this.ready()) return;
    this.frames++;
    const now = this.now;
    // One input per movement step, sent before the step is predicted (the server steps them in
    // order); the view turns step by step, so every input carries its own (a frame that runs two
    // steps does not send one view twice and then jump).
    this.move.advance(now, this.serverAt, this.emitInput);
    this.move.eye(this.eyeNow, this.opts.rig.eyeHeight);
    this.steer.update(now, this.eyeNow, this.aim.viewX, this.aim.viewZ, this.aim.target);
    const handled = !this.shooting || (this.profile !== null && this.profile.frame(this, now));
    if (!handled) this.honest.frame(now, this.profile === null ? Intent.HONEST : Intent.VALID);
    this.camera.update(this.eyeNow, this.aim.viewX, this.aim.viewY, this.aim.viewZ);
    this.launches.frame(this.renderTime(now));
  }

  /**
   * One movement step's input (inputSender.ts), stamped with the step's time on the bot's server
   * clock: sent, or kept back while the profile holds inputs.
   */
  private readonly emitInput = (localMs: number): void => {
    this.aim.turn(1000 / this.opts.tickRate);
    const hold = this.profile?.input !== undefined && !this.profile.input(this, this.now);
    // Stamped with the step's time on the bot's server clock (InputStamper), 0 before it is synced.
    this.inputs.step(this.clock.synced ? this.conn.stamper.stamp(this.clock.serverNow(localMs)) : 0, hold);
  };

  get shots(): readonly ShotLog[] {
    return this.outbox.book.logs;
  }

  /** Shots sent whose verdict never came (lost, or still in flight when the run ended). */
  unresolved(): number {
    return this.outbox.book.unresolved();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.conn.close();
  }
}

