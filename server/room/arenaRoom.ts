/**
 * The authoritative arena room (Colyseus 0.18): Colyseus hooks plus a message table. Clients send
 * inputs, weapon messages (fire, switch, reload) and pongs; the room alone moves players
 * (shared/movement), records every player's pose into their snapshot history each fixed tick,
 * judges weapon messages with the validation pipeline (shared/validate) against the rewound
 * histories and the world, and hands verdicts to applyVerdict.ts (damage, kills, bullet holes,
 * replies). Round trips: roundTrip.ts; per-player data: slot.ts.
 *
 * Time: server ms on the room's monotonic clock (0 at room creation). Snapshots are stamped by
 * tickClock.ts (exactly dt apart, re-anchored after a stall); messages are stamped with the clock
 * when they are handled.
 *
 * Synced state = history: each tick's pose is rounded where the wire rounds it (float32 rotation and
 * animation time; the animation time wrapped into its clip by the movement step) before it is
 * recorded and synced, so what a client receives is exactly what the server rewinds.
 *
 * Hostile input: every handler catches everything; a refused message changes nothing and gets a
 * reason back (a `verdict` for weapon messages, a `reject` otherwise); rejects are counted by reason.
 *
 * Why not Colyseus's defineInput / RoomClock / Rewind: the verdict must be replayable from plain
 * logged numbers, so the round trip is the one this room measured against its own send times
 * (never a client-reported clock), shots and inputs are fixed-layout binary frames judged by the
 * shared pipeline (a schema-decoded input would hide malformed fields from it), and the history is
 * the project's own (shared/lagcomp), rewound with the rig's hitboxes rather than numeric fields.
 */
import { Room, type Client } from '@colyseus/core';
import { createPlayerPose, type PlayerPose } from '../../shared/lagcomp/pose';
import { Msg, type RejectReply, type WelcomeReply } from '../../shared/protocol/messages';
import { decodeInput, createInputMessage, InputStatus, type InputMessage } from '../../shared/protocol/input';
import { decodePing, createPingMessage, PING_BYTES } from '../../shared/protocol/ping';
import { FrameStatus } from '../../shared/protocol/shot';
import { ArenaState, PlayerState } from '../state/schema';
import { createMatchScene, type MatchScene } from './scene';
import { TICK_POSE_STRIDE, MatchEventKind, type MatchEvent, type MatchRecorder } from './recorder';
import { ShotJudge, type JudgeHost } from './judgeShot';
import { PongResult } from './roundTrip';
import { Slot } from './slot';
import { chargeRefusal, policeBudgets } from './budget';
import { syncPlayerState, syncStatusState, wirePose, writeTickPose } from './sync';
import { TickClock } from './tickClock';
import { WaitingShots } from './waitingShots';
import type { ArenaConfig } from './config';

export type { ArenaConfig, SpawnPoint } from './config';
export { Slot } from './slot';

// scratch
const pingBytes = new Uint8Array(PING_BYTES);
const pingIn = createPingMessage();

function clampNumber(v: unknown, lo: number, hi: number, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : fallback;
}

export class ArenaRoom extends Room<{ state: ArenaState }> implements JudgeHost {
  /** Set on the subclass each server defines (arenaRoomFor). */
  static config: ArenaConfig;

  cfg!: ArenaConfig;
  scene!: MatchScene;
  slots: Slot[] = [];
  bySession = new Map<string, Slot>();
  recorder: MatchRecorder | null = null;
  /** Server ms of the newest recorded snapshot, -Infinity before the first. */
  newestTickMs = Number.NEGATIVE_INFINITY;
  private readonly tickClock = new TickClock();
  private t0 = 0;
  private pose: PlayerPose = createPlayerPose();
  private tickPoses!: Float64Array;
  readonly targetsAlive: boolean[] = [];
  readonly targetsLife: number[] = [];
  private pingCounter = 0;

  /** Server ms now on this room's clock. */
  now(): number {
    return this.cfg.clock() - this.t0;
  }

  override onCreate(_clientOptions: unknown): void {
    // Client-supplied creation options are hostile and ignored: the server's config decides.
    const cfg = (this.constructor as typeof ArenaRoom).config;
    this.cfg = cfg;
    this.t0 = cfg.clock();
    this.maxClients = cfg.maxPlayers;
    this.maxMessagesPerSecond = 2000;
    this.scene = createMatchScene(cfg.world, cfg.rig, cfg.scene);
    const magazines = cfg.validation.weapons.map((w) => w.magazine);
    for (let i = 0; i < cfg.maxPlayers; i++) {
      this.slots.push(new Slot(i, magazines, cfg.validation.loadout, cfg.rejectBudget, cfg.tickRate));
      this.targetsAlive.push(false);
      this.targetsLife.push(0);
    }
    this.tickPoses = new Float64Array(cfg.maxPlayers * TICK_POSE_STRIDE);
    const state = new ArenaState();
    state.tickRate = cfg.tickRate;
    state.serverTimeMs = 0;
    this.state = state;

    const rec = cfg.recorder;
    this.recorder = rec === undefined ? null : typeof rec === 'function' ? rec(this.roomId) : rec;
    this.safeRecord(() => this.recorder?.header({
      formatVersion: 2,
      roomId: this.roomId,
      startedAtIso: new Date().toISOString(),
      tickRate: cfg.tickRate,
      maxPlayers: cfg.maxPlayers,
      levelPath: cfg.levelPath,
      worldHash: cfg.world.hash,
      rigHash: cfg.rig.hash,
      validation: cfg.validation,
      scene: cfg.scene,
      movement: cfg.movement,
    }));

    this.onMessageBytes(Msg.SHOT, (client: Client, bytes: unknown) => this.guard(client, Msg.SHOT, () => this.handleShot(client, bytes)));
    this.onMessageBytes(Msg.INPUT, (client: Client, bytes: unknown) => this.guard(client, Msg.INPUT, () => this.handleInput(client, bytes)));
    this.onMessageBytes(Msg.PONG, (client: Client, bytes: unknown) => this.guard(client, Msg.PONG, () => this.handlePong(client, bytes)));
    // Anything else, including our message names sent over the JSON/msgpack channel instead of as
    // bytes: those go to their handlers (which refuse non-bytes with a reason), the rest is unknown.
    this.onMessage('*', (client: Client, type: string | number, message: unknown) => this.guard(client, String(type), () => {
      if (type === Msg.SHOT) this.handleShot(client, message);
      else if (type === Msg.INPUT) this.handleInput(client, message);
      else if (type === Msg.PONG) this.handlePong(client, message);
      else this.reject(client, String(type), 'UNKNOWN_MESSAGE');
    }));

    this.setFixedTimestep((ctx) => this.step(ctx.tick, ctx.dt, ctx.dtMs), cfg.tickRate);
    // After the timestep, never before: with no simulation interval yet, a null patch rate starts
    // Colyseus's own clock.tick() interval, and two tickers each take part of the elapsed time
    // from the fixed step's accumulator (the tick then runs at about half its rate).
    // 0: no patch timer; step() sends one patch per tick once every pose of that tick is recorded.
    if (cfg.patchRateMs > 0) this.patchRate = cfg.patchRateMs;
    else this.patchRate = null;
    this.clock.setInterval(() => this.sendPings(), cfg.pingIntervalMs);
    cfg.stats.rooms++;
    cfg.onCreated?.(this);
  }

  override onJoin(client: Client, options?: unknown): void {
    const slot = this.slots.find((s) => s.client === null);
    if (slot === undefined) throw new Error('arena is full; try another room');
    const o = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
    slot.seat(client, clampNumber(o.interpDelayMs, 0, this.cfg.maxInterpDelayMs, this.cfg.defaultInterpDelayMs), this.cfg.debugVerdicts && o.debug === true, this.cfg.validation, this.cfg.rejectBudget);
    this.scene.histories[slot.index]!.clear();
    const ps = new PlayerState();
    ps.slot = slot.index;
    ps.name = typeof o.name === 'string' ? o.name.slice(0, 24) : `player${slot.index}`;
    ps.connected = true;
    slot.state = ps;
    this.bySession.set(client.sessionId, slot);
    this.spawn(slot);
    this.state.players.set(client.sessionId, ps);
    this.cfg.stats.players++;
    this.recordEvent({ kind: MatchEventKind.JOIN, slot: slot.index, timeMs: this.now() });
    const welcome: WelcomeReply = {
      slot: slot.index, tickRate: this.cfg.tickRate, interpDelayMs: slot.interpDelayMs,
      worldHash: this.cfg.world.hash, rigHash: this.cfg.rig.hash,
      validation: this.cfg.validation, movement: this.cfg.movement, debug: slot.debug,
    };
    client.send(Msg.WELCOME, welcome);
    this.sendPing(slot);
  }

  /**
   * A lost connection (not a consented leave): the player stays in the match, standing still and
   * hittable, while the same session may reconnect within reconnectSeconds and carry on with its
   * slot, health, loadout, seq and history. Otherwise onLeave follows.
   */
  override onDrop(client: Client): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot === undefined) return;
    // Colyseus calls onLeave next when no reconnection is allowed (also for a client we disconnected).
    if (!(this.cfg.reconnectSeconds > 0) || slot.kicked) return;
    slot.connected = false;
    slot.inputs.clear();
    slot.inputs.hold(slot.move.viewX, slot.move.viewY, slot.move.viewZ);
    if (slot.state !== null) slot.state.connected = false;
    this.recordEvent({ kind: MatchEventKind.DROP, slot: slot.index, timeMs: this.now() });
    // Rejected when the time runs out (onLeave follows) or the room shuts down: nothing to do here.
    this.allowReconnection(client, this.cfg.reconnectSeconds).catch(() => undefined);
  }

  override onReconnect(client: Client): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot === undefined) return;
    slot.client = client;
    slot.connected = true;
    if (slot.state !== null) slot.state.connected = true;
    this.recordEvent({ kind: MatchEventKind.RECONNECT, slot: slot.index, timeMs: this.now() });
    this.sendPing(slot);
  }

  override onLeave(client: Client): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot === undefined) return;
    // Shots still waiting for their inputs are judged now, as the player stands.
    this.judgeWaitingShots(slot);
    slot.inputs.clear();
    this.bySession.delete(client.sessionId);
    this.state.players.delete(client.sessionId);
    // Messages dropped unjudged since the last count are counted before the slot is freed.
    if (slot.budget.dropped > 0) {
      this.recordEvent({ kind: MatchEventKind.THROTTLED, slot: slot.index, timeMs: this.now(), other: slot.budget.dropped });
      slot.budget.dropped = 0;
    }
    slot.client = null;
    slot.connected = true;
    slot.state = null;
    slot.alive = false;
    this.targetsAlive[slot.index] = false;
    this.cfg.stats.players--;
    this.recordEvent({ kind: MatchEventKind.LEAVE, slot: slot.index, timeMs: this.now() });
  }

  override onDispose(): void | Promise<unknown> {
    this.cfg.stats.players -= this.bySession.size;
    this.cfg.stats.rooms--;
    this.cfg.onDisposed?.(this);
    const rec = this.recorder;
    this.recorder = null;
    if (rec !== null) {
      try {
        return Promise.resolve(rec.close()).catch((e) => console.error('arena: recorder close failed:', e));
      } catch (e) {
        console.error('arena: recorder close failed:', e);
      }
    }
  }

  /** The slot of a session, for tests and tools. */
  slotOf(sessionId: string): Slot | undefined {
    return this.bySession.get(sessionId);
  }

  // ---------------------------------------------------------------- ticks

  private spawn(slot: Slot): void {
    const pts = this.cfg.spawnPoints;
    // Deterministic: first life at spawnPoints[slot], later lives rotate (slot + lives).
    slot.spawnAt(pts[(slot.index + slot.lives) % pts.length]!, this.cfg.movement.clipIdle, this.cfg.maxHealth, this.cfg.validation);
    this.syncPlayer(slot);
  }

  private step(tick: number, dt: number, dtMs: number): void {
    try {
      const t = this.tickClock.stamp(tick, dtMs, this.now());
      const poses = this.tickPoses;
      poses.fill(0);
      for (const slot of this.slots) {
        if (slot.client === null) continue;
        if (!slot.alive && t >= slot.respawnAtMs && slot.respawnAtMs > 0) {
          slot.lives++;
          slot.respawnAtMs = 0;
          this.spawn(slot);
          this.recordEvent({ kind: MatchEventKind.RESPAWN, slot: slot.index, timeMs: t, x: slot.move.x, y: slot.move.y, z: slot.move.z });
        }
        if (slot.alive) slot.stepInputs(this.cfg.world, this.cfg.movement, dt);
        const pose = wirePose(this.pose, slot);
        this.scene.histories[slot.index]!.record(tick, t, pose);
        if (slot.lifePending && slot.alive) {
          slot.lifeStartMs = t;
          slot.lifePending = false;
        }
        this.targetsAlive[slot.index] = slot.alive;
        this.targetsLife[slot.index] = slot.lifePending ? Number.POSITIVE_INFINITY : slot.lifeStartMs;
        writeTickPose(poses, slot.index, pose, slot);
        this.syncPlayer(slot, pose);
      }
      policeBudgets(this.slots, t, this.roomId, (e) => this.recordEvent(e), this.cfg.onHostile);
      this.newestTickMs = t;
      this.state.serverTimeMs = t;
      this.state.tick = tick >>> 0;
      this.safeRecord(() => this.recorder?.tick({ tick, timeMs: t, poses }));
      if (this.waiting.length > 0) this.judgeWaitingShots(null);
      if (this.cfg.patchRateMs <= 0) this.broadcastPatch();
    } catch (e) {
      this.cfg.stats.internalErrors++;
      console.error('arena: tick failed:', e);
    }
  }

  /** Ticks recorded so far. */
  get tickCount(): number {
    return this.tickClock.count;
  }

  /** Ticks per wall-clock second over the last full second (tickClock.ts); 0 before the first. */
  get ticksPerSecond(): number {
    return this.tickClock.ticksPerSecond;
  }

  /** Pose and status into the synced state: at a tick (the pose just recorded) and at a spawn. */
  private syncPlayer(slot: Slot, pose: PlayerPose | null = null): void {
    if (slot.state !== null) syncPlayerState(slot.state, slot, pose);
  }

  /** Status only, between ticks (sync.ts says why the pose stays). */
  syncStatus(slot: Slot): void {
    if (slot.state !== null) syncStatusState(slot.state, slot);
  }

  recordEvent(e: MatchEvent): void {
    this.safeRecord(() => this.recorder?.event(e));
  }

  // ---------------------------------------------------------------- messages

  /**
   * Runs a handler so that nothing escapes: an exception is counted, logged and answered. A client
   * over its budget of refused messages gets nothing judged (budget.ts).
   */
  private guard(client: Client, type: string, fn: () => void): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot !== undefined && slot.kicked) return; // disconnected by the room: whatever still arrives is ignored
    if (slot !== undefined && !slot.budget.admit(this.now())) {
      this.cfg.stats.throttled++;
      return;
    }
    try {
      fn();
    } catch (e) {
      this.cfg.stats.internalErrors++;
      console.error(`arena: handler for "${type}" failed:`, e);
      try {
        this.reject(client, type, 'INTERNAL_ERROR');
      } catch {
        // the client may be gone; nothing else to do
      }
    }
  }

  private reject(client: Client, type: string, reason: string): void {
    const stats = this.cfg.stats;
    stats.rejects[reason] = (stats.rejects[reason] ?? 0) + 1;
    this.refused(client, reason);
    const reply: RejectReply = { type: type.slice(0, 32), reason };
    client.send(Msg.REJECT, reply);
  }

  /** A judged message was refused: it costs the client's budget and feeds its hostile-event line. */
  refused(client: Client, reason: string): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot !== undefined) chargeRefusal(slot, reason, this.now());
  }

  private handleInput(client: Client, bytes: unknown): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot === undefined) return;
    const scratch = this.inputScratch;
    const status = decodeInput(scratch, bytes);
    if (status !== InputStatus.OK) {
      this.reject(client, Msg.INPUT, `INPUT_${inputStatusName(status)}`);
      return;
    }
    if (scratch.seq <= slot.lastInputSeq) {
      this.reject(client, Msg.INPUT, 'INPUT_STALE');
      return;
    }
    slot.takeInput(scratch);
  }
  private inputScratch: InputMessage = createInputMessage();

  private sendPings(): void {
    for (const slot of this.slots) if (slot.client !== null && slot.connected) this.sendPing(slot);
  }

  private sendPing(slot: Slot): void {
    const id = ++this.pingCounter >>> 0;
    slot.client?.sendBytes(Msg.PING, slot.rtt.ping(pingBytes, id, this.now()));
  }

  private handlePong(client: Client, bytes: unknown): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot === undefined) return;
    const status = decodePing(pingIn, bytes);
    if (status !== FrameStatus.OK) {
      this.reject(client, Msg.PONG, `PONG_${frameStatusName(status)}`);
      return;
    }
    if (slot.rtt.pong(pingIn, this.now()) === PongResult.UNKNOWN_ID) this.reject(client, Msg.PONG, 'PONG_UNKNOWN_ID');
  }

  /**
   * A weapon message is judged once the inputs sent before it are stepped, so the shooter's eye path
   * includes the moves the client made before firing: at once when none wait, otherwise at the end
   * of the tick that steps the last of them (waitingShots.ts). Its arrival time is kept.
   */
  private handleShot(client: Client, bytes: unknown): void {
    const slot = this.bySession.get(client.sessionId);
    if (slot === undefined) return;
    this.cfg.stats.shots++;
    const at = this.now();
    if (slot.inputs.length === 0 && !this.waiting.holds(slot)) this.judge.judge(slot, bytes, at);
    else this.waiting.push(slot, bytes, at);
  }
  private readonly waiting = new WaitingShots();
  private readonly judge = new ShotJudge(this);

  /** Judges the waiting shots whose inputs are stepped (all of `only`'s when given), in arrival order. */
  private judgeWaitingShots(only: Slot | null): void {
    this.waiting.drain(only, (slot, bytes, at) => {
      try {
        this.judge.judge(slot, bytes, at);
      } catch (e) {
        this.cfg.stats.internalErrors++;
        console.error('arena: judging a waiting shot failed:', e);
      }
    });
  }

  safeRecord(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.cfg.stats.recorderErrors++;
      if (this.cfg.stats.recorderErrors <= 3) console.error('arena: recorder failed (the match goes on):', e);
    }
  }
}

function inputStatusName(s: number): string {
  for (const [k, v] of Object.entries(InputStatus)) if (v === s) return k;
  return String(s);
}

function frameStatusName(s: number): string {
  for (const [k, v] of Object.entries(FrameStatus)) if (v === s) return k;
  return String(s);
}

/** A room class bound to one server's config (client options never reach the config). */
export function arenaRoomFor(config: ArenaConfig): typeof ArenaRoom {
  return class BoundArenaRoom extends ArenaRoom {
    static override config = config;
  };
}
