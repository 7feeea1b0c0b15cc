/**
 * The arena room (Colyseus 0.18), hitreg's own game, built on the public entries only: the match
 * (hitreg/server) owns the histories, lives, round trips, the shot judge and the log; this room is
 * the game around it: Colyseus hooks plus a message table (handlers in messages.ts), hitreg's movement (shared/movement) fed
 * by the clients' inputs (inputQueue.ts), its synced state (schema.ts), replies, kill feed and
 * bullet holes (applyOutcome.ts), a budget against floods of refused messages (budget.ts), and a
 * watch that cuts connections that stop reading (hitreg/server StallWatch; their slots are kept).
 *
 * Each fixed tick: the match stamps the tick, the room respawns and moves its players, the match
 * records every pose (read through writePose, rounded as the wire carries it, so what a client
 * receives is exactly what the server rewinds), then the state is synced and patched.
 *
 * Fog of war (cfg.fog 'on', arenaFog.ts): the state is ArenaFogState, whose `players` only reach a
 * client through its StateView: its own player always, the others as the match's FogFilter says after
 * each tick (hitreg/server), everyone for a debug client. Everyone's scoreboard fields go in `roster`. What
 * else the wire carries about a withheld player, and why it may: the welcome (rules and hashes
 * only), the kill feed (slots, weapon, zone, time: no position), hit confirmations and the verdict's
 * hit points (a target the shooter hit, through a wall too), the damage direction (zeroed when the
 * shooter is withheld from the victim; a blast's points at the blast). Bullet holes are filtered per
 * client (fogHoles.ts): a hole made by a withheld shooter reaches a client once its point may be in
 * the client's sight, so it never says where a withheld shooter is busy. Projectiles are filtered per client too
 * (projectiles.ts): a flight is deterministic, so any snapshot of one leads back to its launch (the
 * shooter's eye then), so a client gets one only from when it was sent the shooter at launch or may
 * see the projectile itself, and keeps it until it ends (its launch point, a past position, is then
 * known); an end (centre, time, victims' slots and damage) goes to the shooter, those that may see
 * the centre, and those sent the flight or the shooter unless it struck a player withheld from them,
 * each with only the victims it is sent (projectiles.ts).
 *
 * Hostile input: every handler (messages.ts) catches everything; a refused message changes nothing
 * and gets a reason back (a `verdict` for weapon messages, a `reject` otherwise); rejects are counted by reason.
 *
 * Why not Colyseus's defineInput / Rewind here: the verdict must be replayable from plain logged
 * numbers, so the round trip is the one this room measured against its own send times, shots and
 * inputs are fixed-layout binary frames judged by the shared pipeline, and the history is hitreg's
 * own, rewound with the rig's hitboxes rather than numeric fields (docs/module.md says how a room that
 * uses them plugs their stamps into the match).
 */
import { Room, type Client } from '@colyseus/core';
import { Msg, type WelcomeReply } from '../../shared/index';
import { FogFilter, HitregMatch, StallWatch, playerIdBytes, stallSocketOf, type PoseInput, type StallCut } from '../match/index';
import { ArenaState, PlayerState } from './schema';
import { ArenaFog } from './arenaFog';
import type { FogHoles } from './fogHoles';
import { ArenaPlayer } from './player';
import type { OutcomeHost } from './applyOutcome';
import { policeBudgets } from './budget';
import { ArenaMessages } from './messages';
import { syncPlayerState, syncRoster, syncStatusState, writePose } from './sync';
import { ArenaProjectiles } from './projectiles';
import type { ArenaConfig } from './config';

export type { ArenaConfig, SpawnPoint } from './config';
export { ArenaPlayer } from './player';

export class ArenaRoom extends Room<{ state: ArenaState }> implements OutcomeHost {
  /** Set on the subclass each server defines (arenaRoomFor). */
  static config: ArenaConfig;

  cfg!: ArenaConfig;
  match!: HitregMatch<string>;
  /** Arena players by slot (null: free), and by session. */
  readonly seats: (ArenaPlayer | null)[] = [];
  private readonly bySession = new Map<string, ArenaPlayer>();
  /** The message handlers (messages.ts). */
  private readonly handlers = new ArenaMessages(this);
  /** Connections that stop reading are cut (hitreg/server StallWatch), checked every tick. */
  private stalls!: StallWatch<ArenaPlayer>;
  /** The match's projectiles mirrored into the synced state, and their ends told (projectiles.ts). */
  private projectiles!: ArenaProjectiles;
  /** Fog of war (arenaFog.ts; null: fog off, everyone is sent everyone). */
  private arenaFog: ArenaFog | null = null;

  /** Who is sent whom (null: fog off). */
  get fog(): FogFilter<string> | null {
    return this.arenaFog?.filter ?? null;
  }

  /** Bullet holes filtered per client (null: fog off). */
  get fogHoles(): FogHoles | null {
    return this.arenaFog?.holes ?? null;
  }

  /** Room ms now (the match's clock: 0 at room creation). */
  now(): number {
    return this.match.now();
  }

  override onCreate(_clientOptions: unknown): void {
    // Client-supplied creation options are hostile and ignored: the server's config decides.
    const cfg = (this.constructor as typeof ArenaRoom).config;
    this.cfg = cfg;
    this.maxClients = cfg.maxPlayers;
    this.maxMessagesPerSecond = 2000;
    const rec = cfg.recorder;
    const v = cfg.validation;
    const { weapons, loadout, zoneMultipliers, maxPlayers: _m, weaponRules: _w, friendlyFire: _f, ...rules } = v;
    this.match = new HitregMatch<string>({
      world: cfg.world, rig: cfg.rig, tickRate: cfg.tickRate, maxPlayers: cfg.maxPlayers,
      weapons, loadout, zoneMultipliers: Array.from(zoneMultipliers), rules, maxHealth: cfg.maxHealth,
      defaultInterpDelayMs: cfg.defaultInterpDelayMs, maxInterpDelayMs: cfg.maxInterpDelayMs,
      recorder: rec === undefined ? null : typeof rec === 'function' ? rec(this.roomId) : rec,
      roomId: this.roomId, levelPath: cfg.levelPath, movement: cfg.movement, clock: cfg.clock,
      poses: (id, out) => this.poseOf(id, out), fog: cfg.fog,
      maxProjectiles: cfg.maxProjectiles,
      onProjectile: (o) => this.projectiles.ended(this, o),
      onProblem: (m, e) => {
        cfg.stats.recorderErrors++;
        if (cfg.stats.recorderErrors <= 3) console.error(`arena: ${m} (the match goes on):`, e ?? '');
      },
    });
    for (let i = 0; i < cfg.maxPlayers; i++) this.seats.push(null);
    this.projectiles = new ArenaProjectiles(this.match.projectiles);
    this.stalls = new StallWatch<ArenaPlayer>(cfg.stalls, (c) => this.stalled(c));
    let state = new ArenaState();
    if (cfg.fog === 'on') {
      this.arenaFog = new ArenaFog(this.match, cfg, this.seats, this.projectiles);
      // Same fields as ArenaState with `players`, `holes` and `projectiles` filtered per view, and the roster.
      state = this.arenaFog.state as unknown as ArenaState;
    }
    state.tickRate = cfg.tickRate;
    state.serverTimeMs = 0;
    this.state = state;

    const m = this.handlers;
    this.onMessageBytes(Msg.SHOT, (client: Client, bytes: unknown) => m.guard(client, Msg.SHOT, () => m.handleShot(client, bytes)));
    this.onMessageBytes(Msg.INPUT, (client: Client, bytes: unknown) => m.guard(client, Msg.INPUT, () => m.handleInput(client, bytes)));
    this.onMessageBytes(Msg.PONG, (client: Client, bytes: unknown) => m.guard(client, Msg.PONG, () => m.handlePong(client, bytes)));
    // Anything else, including our message names sent over the JSON/msgpack channel instead of as
    // bytes: those go to their handlers (which refuse non-bytes with a reason), the rest is unknown.
    this.onMessage('*', (client: Client, type: string | number, message: unknown) => m.guard(client, String(type), () => {
      if (type === Msg.SHOT) m.handleShot(client, message);
      else if (type === Msg.INPUT) m.handleInput(client, message);
      else if (type === Msg.PONG) m.handlePong(client, message);
      else m.reject(client, String(type), 'UNKNOWN_MESSAGE');
    }));

    const timed = cfg.onTickTimed;
    this.setFixedTimestep(timed === undefined ? (ctx) => this.step(ctx.tick, ctx.dt, ctx.dtMs) : (ctx) => {
      const t0 = performance.now();
      this.step(ctx.tick, ctx.dt, ctx.dtMs);
      timed(performance.now() - t0);
    }, cfg.tickRate);
    // After the timestep, never before: with no simulation interval yet, a null patch rate starts
    // Colyseus's own clock.tick() interval, and two tickers each take part of the elapsed time
    // from the fixed step's accumulator (the tick then runs at about half its rate).
    // 0: no patch timer; step() sends one patch per tick once every pose of that tick is recorded.
    if (cfg.patchRateMs > 0) this.patchRate = cfg.patchRateMs;
    else this.patchRate = null;
    this.clock.setInterval(() => m.sendPings(), cfg.pingIntervalMs);
    cfg.stats.rooms++;
    cfg.onCreated?.(this);
  }

  override onJoin(client: Client, options?: unknown): void {
    const o = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
    if (this.match.playerCount >= this.cfg.maxPlayers) throw new Error('arena is full; try another room');
    const h = this.match.join(client.sessionId, { interpDelayMs: typeof o.interpDelayMs === 'number' ? o.interpDelayMs : undefined, player: playerOf(client, o) });
    const p = new ArenaPlayer(client, h.slot, this.cfg.tickRate, this.cfg.rejectBudget, this.cfg.debugVerdicts && o.debug === true);
    this.seats[h.slot] = p;
    this.bySession.set(client.sessionId, p);
    const ps = new PlayerState();
    ps.slot = h.slot;
    ps.name = typeof o.name === 'string' ? o.name.slice(0, 24) : `player${h.slot}`;
    ps.connected = true;
    p.state = ps;
    this.spawn(p);
    this.state.players.set(client.sessionId, ps);
    this.arenaFog?.joined(client, p, ps, o.fogBackfill === true);
    this.cfg.stats.players++;
    const welcome: WelcomeReply = {
      slot: h.slot, tickRate: this.cfg.tickRate, interpDelayMs: h.interpDelayMs,
      worldHash: this.cfg.world.hash, rigHash: this.cfg.rig.hash,
      validation: this.match.rules, movement: this.cfg.movement, debug: p.debug,
    };
    client.send(Msg.WELCOME, welcome);
    this.handlers.sendPing(p);
  }

  /**
   * A lost connection (not a consented leave): the player stays in the match, standing still and
   * hittable, while the same session may reconnect within reconnectSeconds and carry on with its
   * slot, health, loadout, seq and history. Otherwise onLeave follows.
   */
  override onDrop(client: Client): void {
    const p = this.bySession.get(client.sessionId);
    if (p === undefined) return;
    this.stalls.forget(p);
    // Colyseus calls onLeave next when no reconnection is allowed (also for a client we disconnected).
    if (!(this.cfg.reconnectSeconds > 0) || p.kicked) return;
    p.connected = false;
    p.inputs.clear();
    p.inputs.hold(p.move.viewX, p.move.viewY, p.move.viewZ);
    if (p.state !== null) p.state.connected = false;
    if (p.roster !== null) p.roster.connected = false;
    this.match.drop(client.sessionId);
    // Rejected when the time runs out (onLeave follows) or the room shuts down: nothing to do here.
    this.allowReconnection(client, this.cfg.reconnectSeconds).catch(() => undefined);
  }

  override onReconnect(client: Client): void {
    const p = this.bySession.get(client.sessionId);
    if (p === undefined) return;
    p.client = client;
    p.connected = true;
    if (p.view !== null) client.view = p.view;
    if (p.state !== null) p.state.connected = true;
    if (p.roster !== null) p.roster.connected = true;
    this.match.reconnect(client.sessionId);
    this.handlers.sendPing(p);
  }

  override onLeave(client: Client): void {
    const p = this.bySession.get(client.sessionId);
    if (p === undefined) return;
    this.stalls.forget(p);
    // Shots still waiting for their inputs are judged now, as the player stands.
    this.handlers.judgeWaitingShots(p);
    p.inputs.clear();
    this.bySession.delete(client.sessionId);
    this.state.players.delete(client.sessionId);
    this.arenaFog?.left(client.sessionId, p);
    // Messages dropped unjudged since the last count are counted before the player goes.
    if (p.budget.dropped > 0) {
      this.match.throttled(client.sessionId, p.budget.dropped);
      p.budget.dropped = 0;
    }
    p.client = null;
    p.state = null;
    this.seats[p.index] = null;
    this.match.leave(client.sessionId);
    this.cfg.stats.players--;
  }

  override onDispose(): void | Promise<unknown> {
    this.cfg.stats.players -= this.bySession.size;
    this.cfg.stats.rooms--;
    this.cfg.onDisposed?.(this);
    return this.match.close();
  }

  /** The arena player of a session, for tests and tools. */
  slotOf(sessionId: string): ArenaPlayer | undefined {
    return this.bySession.get(sessionId);
  }

  // ---------------------------------------------------------------- ticks

  /** Places `p` at its next spawn point: the first life at spawnPoints[slot], later ones rotate. */
  private spawn(p: ArenaPlayer): void {
    const pts = this.cfg.spawnPoints;
    p.placeAt(pts[(p.index + p.respawns) % pts.length]!, this.cfg.movement.clipIdle, this.now());
    this.syncPlayer(p);
  }

  private step(tick: number, dt: number, dtMs: number): void {
    try {
      const t = this.match.beginTick(tick, dtMs);
      for (const p of this.seats) {
        if (p === null) continue;
        const h = this.match.player(p.sessionId)!;
        if (!h.alive && t >= p.respawnAtMs && p.respawnAtMs > 0) {
          p.respawns++;
          p.respawnAtMs = 0;
          const pt = this.cfg.spawnPoints[(p.index + p.respawns) % this.cfg.spawnPoints.length]!;
          this.match.respawn(p.sessionId, pt);
          this.spawn(p);
        }
        // The dead step only the moves their clients made before they could know of the death.
        if (h.alive || p.inputs.length > 0) p.stepInputs(this.cfg.world, this.cfg.movement, dt, h.alive);
      }
      policeBudgets(this.seats, t, this.roomId, (e) => this.match.throttled(this.seats[e.slot]!.sessionId, e.other), this.cfg.onHostile);
      for (const p of this.seats) if (p !== null && p.connected && p.client !== null) this.stalls.check(p, stallSocketOf(p.client.ref), t);
      this.match.endTick();
      for (const p of this.seats) if (p !== null) this.syncPlayer(p);
      this.projectiles.sync(this.state.projectiles);
      // Who is sent whom and which projectiles from this tick's patch on (fogChange and flightSent add to and remove from the views).
      this.arenaFog?.update();
      this.state.serverTimeMs = t;
      this.state.tick = tick >>> 0;
      if (this.handlers.shotsWaiting > 0) this.handlers.judgeWaitingShots(null);
      if (this.cfg.patchRateMs <= 0) this.broadcastPatch();
    } catch (e) {
      this.cfg.stats.internalErrors++;
      console.error('arena: tick failed:', e);
    }
  }

  /** A connection cut for not reading: its drop follows when the socket closes (onDrop keeps the slot). */
  private stalled(c: StallCut<ArenaPlayer>): void {
    this.cfg.stats.stalledCut++;
    this.cfg.onStalled?.({ roomId: this.roomId, sessionId: c.id.sessionId, slot: c.id.index, bytes: c.bytes, overMs: c.overMs, rule: c.rule });
  }

  /** The pose adapter: what the match records of `id` this tick. */
  private poseOf(id: string, out: PoseInput): void {
    const p = this.bySession.get(id);
    if (p !== undefined) writePose(out, p, this.match.player(id)?.alive === true);
  }

  /** Ticks recorded so far. */
  get tickCount(): number {
    return this.match.tickCount;
  }

  /** Ticks per wall-clock second over the last full second; 0 before the first. */
  get ticksPerSecond(): number {
    return this.match.ticksPerSecond;
  }

  /** Pose and status into the synced state (the pose as the match recorded it). */
  private syncPlayer(p: ArenaPlayer): void {
    const h = this.match.player(p.sessionId);
    if (p.state !== null && h !== undefined) syncPlayerState(p.state, p, h);
    if (p.roster !== null && h !== undefined) syncRoster(p.roster, h);
  }

  /** The arena player of a session (projectiles.ts, messages.ts). */
  player(sessionId: string): ArenaPlayer | undefined {
    return this.bySession.get(sessionId);
  }

  /** Whether the player in `enemySlot` is being sent to the one in `viewerSlot`. */
  sends(viewerSlot: number, enemySlot: number): boolean {
    return this.fog === null || this.fog.isSent(viewerSlot, enemySlot);
  }

  /** Status only, between ticks. */
  syncStatus(p: ArenaPlayer): void {
    const h = this.match.player(p.sessionId);
    if (p.state !== null && h !== undefined) syncStatusState(p.state, h);
    if (p.roster !== null && h !== undefined) syncRoster(p.roster, h);
  }
}

/**
 * Who joined, for the log's identity record: the verified token's subject when the server checks
 * tokens (client.auth), else the `playerId` join option, marked unverified (a client may name itself
 * anything; the evidence store keeps the two apart); none when neither is there.
 */
function playerOf(client: Client, o: Record<string, unknown>): { id: string; verified: boolean } | undefined {
  const auth = client.auth as { id?: unknown } | true | undefined;
  if (typeof auth === 'object' && auth !== null && typeof auth.id === 'string') return { id: auth.id, verified: true };
  if (playerIdBytes(o.playerId) !== null) return { id: o.playerId as string, verified: false };
  return undefined;
}

/** A room class bound to one server's config (client options never reach the config). */
export function arenaRoomFor(config: ArenaConfig): typeof ArenaRoom {
  return class BoundArenaRoom extends ArenaRoom {
    static override config = config;
  };
}
