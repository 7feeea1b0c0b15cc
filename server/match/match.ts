/**
 * HitregMatch: everything a game room needs to judge shots against lag-compensated players, as one
 * object the room composes (it stays hooks plus a message table). It owns the snapshot histories and
 * the scene, the players' lives (join, death, respawn, leave), their round trips and weapon rules
 * state, the shot judge and the match log. Players are keyed by the room's own ids (session ids or
 * numbers); slots are the match's business. Poses come from the game's state through its adapter
 * (poses.ts), once per tick; shots come as byte frames or as objects.
 *
 * Time is match ms on a monotonic clock, 0 at creation: ticks are stamped exactly dt apart
 * (tickClock.ts), messages with the clock when they are handed in. Nothing here touches the network.
 */
import type { World } from '../../shared/world/world';
import type { Rig } from '../../shared/rig/rig';
import { createPlayerPose, type PlayerPose } from '../../shared/lagcomp/pose';
import { rewindStatusUsable } from '../../shared/lagcomp/history';
import { createMatchScene, sceneOptionsFor, type MatchScene } from '../../shared/validate/scene';
import type { ValidationConfig } from '../../shared/validate/rules';
import { decodePing, createPingMessage, PING_BYTES } from '../../shared/protocol/ping';
import { FrameStatus } from '../../shared/protocol/shot';
import { MatchPlayer, type HitregPlayer } from './player';
import { TickClock } from './tickClock';
import { ShotJudge } from './judge';
import { Roster } from './roster';
import { TickPoses } from './tickPoses';
import { clampInterp, matchHeader, matchRules, numberOption, teamNumber, type HitregMatchOptions, type JoinOptions } from './options';
import { playerIdBytes } from '../../shared/matchlog/identityRecord';
import { MatchEventKind, type MatchEvent, type MatchRecorder } from './recorder';
import { applyHits, createShotOutcome, recordApplied, type ShotOptions, type ShotOutcome } from './outcome';
import { VerdictKind } from '../../shared/validate/verdict';
import { VolumeRewinder } from '../../shared/lagcomp/rewindVolume';
import { DEFAULT_MAX_PROJECTILES, ProjectileFlights } from '../../shared/projectile/flights';
import { MatchProjectiles } from './projectiles';

export class HitregMatch<Id extends string | number = string> {
  readonly world: World;
  readonly rig: Rig;
  readonly tickRate: number;
  readonly maxPlayers: number;
  readonly maxHealth: number;
  /** The rules every shot is judged by (written into the log header). */
  readonly rules: ValidationConfig;
  /** Histories by slot, the rewinder and the eye policy (read-only for the game: debug views). */
  readonly scene: MatchScene;
  readonly defaultInterpDelayMs: number;
  readonly maxInterpDelayMs: number;
  /** Match ms of the newest recorded tick, -Infinity before the first. */
  newestTickMs = Number.NEGATIVE_INFINITY;
  /** Where the match log goes (as given), null for none. */
  readonly recorder: MatchRecorder | null;
  private readonly clock: () => number;
  private readonly t0: number;
  private readonly onProblem: (message: string, error?: unknown) => void;
  private readonly roster: Roster<Id>;
  private readonly byId: Map<Id, MatchPlayer<Id>>;
  private readonly bySlot: (MatchPlayer<Id> | null)[];
  private readonly tickClock = new TickClock();
  private readonly judge: ShotJudge;
  private readonly outcome: ShotOutcome<Id> = createShotOutcome<Id>();
  /** Each tick's poses through the game's adapter into the histories and the tick record. */
  private readonly tickPoses: TickPoses<Id>;
  private readonly pingOut = new Uint8Array(PING_BYTES);
  private readonly pingIn = createPingMessage();
  private pingCounter = 0;
  private tickNo = 0;
  private tickMs = Number.NaN;
  private closed: Promise<void> | null = null;
  /** Recorder calls that threw and poses the history refused (the match went on). */
  problems = 0;
  /** Live projectiles (rockets, grenades) in flat arrays, flown at each endTick (shared/projectile/flights.ts). */
  readonly projectiles: ProjectileFlights;
  private readonly flights: MatchProjectiles<Id>;

  constructor(options: HitregMatchOptions<Id>) {
    this.rules = matchRules(options);
    this.world = options.world;
    this.rig = options.rig;
    this.tickRate = options.tickRate;
    this.maxPlayers = options.maxPlayers;
    this.maxHealth = numberOption('maxHealth', options.maxHealth, 100, Number.MIN_VALUE, 1e9);
    this.defaultInterpDelayMs = numberOption('defaultInterpDelayMs', options.defaultInterpDelayMs, 100, 0, 2000);
    this.maxInterpDelayMs = numberOption('maxInterpDelayMs', options.maxInterpDelayMs, 250, 0, 2000);
    this.recorder = options.recorder ?? null;
    this.clock = options.clock ?? (() => performance.now());
    this.t0 = this.clock();
    this.onProblem = options.onProblem ?? ((m, e) => console.error(`hitreg: ${m}`, e ?? ''));
    this.scene = createMatchScene(this.world, this.rig, sceneOptionsFor(this.tickRate, this.rules));
    this.roster = new Roster<Id>(this.maxPlayers, this.rules, this.maxHealth);
    this.byId = this.roster.byId;
    this.bySlot = this.roster.bySlot;
    this.tickPoses = new TickPoses<Id>(options.poses, this.maxPlayers, (m, e) => this.problem(m, e));
    this.judge = new ShotJudge(this.scene, this.rules, this.roster.targets);
    const maxProjectiles = numberOption('maxProjectiles', options.maxProjectiles, DEFAULT_MAX_PROJECTILES, 0, 65536);
    this.projectiles = new ProjectileFlights(this.rules.weapons, this.rules.zoneMultipliers, this.world, new VolumeRewinder(this.scene.rewinder), Math.floor(maxProjectiles), this.maxPlayers);
    this.flights = new MatchProjectiles<Id>(this.projectiles, {
      bySlot: this.bySlot, friendlyFire: this.rules.friendlyFire ?? 'full',
      die: (victim, killer) => this.die(victim, killer), outsider: (id) => this.outsider(id),
      record: (fn) => this.safeRecord(() => { if (this.recorder !== null) fn(this.recorder); }),
      problem: (m, e) => this.problem(m, e),
    }, this.maxPlayers, options.onProjectile ?? null);
    this.safeRecord(() => this.recorder?.header(matchHeader(options, this.rules, this.scene.options, this.projectiles.capacity)));
  }

  /** Match ms now. */
  now(): number {
    return this.clock() - this.t0;
  }

  // ------------------------------------------------------------------ players

  /**
   * A player joins and its first life begins (alive, full health, the loadout's first weapon in
   * hand): the first free slot, an empty history. Throws when the id is already in or the match is full.
   */
  join(id: Id, options: JoinOptions = {}): HitregPlayer<Id> {
    const p = this.roster.seat(id, teamNumber(options.team), clampInterp(options.interpDelayMs, this.defaultInterpDelayMs, this.maxInterpDelayMs));
    this.scene.histories[p.slot]!.clear();
    this.flights.setPresent(p.slot, this.scene.histories[p.slot]);
    this.event(MatchEventKind.JOIN, p, this.now());
    const who = options.player;
    if (who !== undefined) {
      if (playerIdBytes(who.id) === null) this.problem(`join: player id ${JSON.stringify(String(who.id).slice(0, 40))} not logged (1..128 UTF-8 bytes, no control characters)`);
      else this.safeRecord(() => this.recorder?.identity?.({ slot: p.slot, playerId: who.id, verified: who.verified === true }));
    }
    return p;
  }

  /** The player left for good: not a target from now on (its history stays for shots already in flight). */
  leave(id: Id): void {
    const p = this.byId.get(id);
    if (p === undefined) return;
    const t = this.now();
    this.roster.unseat(p, t);
    this.flights.setPresent(p.slot, undefined);
    this.event(MatchEventKind.LEAVE, p, t);
  }

  /** The connection is lost but the player stays (standing, hittable) while it may reconnect. */
  drop(id: Id): void {
    const p = this.byId.get(id);
    if (p === undefined || !p.connected) return;
    p.connected = false;
    this.event(MatchEventKind.DROP, p, this.now());
  }

  /** The same player is back after a drop. */
  reconnect(id: Id): void {
    const p = this.byId.get(id);
    if (p === undefined || p.connected) return;
    p.connected = true;
    this.event(MatchEventKind.RECONNECT, p, this.now());
  }

  /**
   * A new life: alive, full health, full magazines, the loadout's first weapon in hand and drawn, a
   * new epoch (the history never interpolates across it). `at` is the spawn point, for the log.
   * Its seq and action clocks carry on. Between beginTick and endTick it happens at the tick's time.
   */
  respawn(id: Id, at?: { x: number; y: number; z: number }): void {
    const p = this.byId.get(id);
    if (p === undefined) return;
    this.roster.beginLife(p);
    this.event(MatchEventKind.RESPAWN, p, this.eventTime(), at?.x, at?.y, at?.z);
  }

  /** The player was moved discontinuously (a teleporter): no interpolation across it. */
  teleport(id: Id): void {
    const p = this.byId.get(id);
    if (p !== undefined) this.roster.teleport(p);
  }

  /** Damage from outside any shot (a fall, the zone): returns the health after; 0 health kills. */
  damage(id: Id, amount: number, by?: Id): number {
    const p = this.byId.get(id);
    if (p === undefined || !p.alive || !(amount >= 0)) return p?.health ?? -1;
    p.health = Math.max(0, p.health - amount);
    if (p.health <= 0) this.kill(id, by);
    return p.health;
  }

  /** Sets a living player's health (a heal), within 0..maxHealth; 0 kills. */
  setHealth(id: Id, health: number): void {
    const p = this.byId.get(id);
    if (p === undefined || !p.alive || !(health === health)) return;
    p.health = Math.max(0, Math.min(this.maxHealth, health));
    if (p.health <= 0) this.kill(id);
  }

  /** The player dies now (by `by`, or by nothing: the world, a suicide). */
  kill(id: Id, by?: Id): void {
    const p = this.byId.get(id);
    if (p === undefined || !p.alive) return;
    const killer = by !== undefined ? this.byId.get(by) : undefined;
    this.die(p, killer ?? p);
  }

  /** Team number >= 0, or -1 for none (a team change counts from the next shot). */
  setTeam(id: Id, team: number): void {
    const p = this.byId.get(id);
    if (p === undefined) return;
    this.roster.setTeam(p, teamNumber(team));
  }

  player(id: Id): HitregPlayer<Id> | undefined {
    return this.byId.get(id);
  }

  /** The slot of a player (-1 when not in the match): what the log and the wire call it. */
  slotOf(id: Id): number {
    return this.byId.get(id)?.slot ?? -1;
  }

  /** The player in a slot now (undefined for a free slot). */
  idOfSlot(slot: number): Id | undefined {
    return this.bySlot[slot]?.id;
  }

  get players(): IterableIterator<HitregPlayer<Id>> {
    return this.byId.values();
  }

  get playerCount(): number {
    return this.byId.size;
  }

  // ------------------------------------------------------------------ round trips

  /** A ping for the player (PING_BYTES, reused: send it at once), or null when it is not connected. */
  ping(id: Id): Uint8Array | null {
    const p = this.byId.get(id);
    if (p === undefined || !p.connected) return null;
    return p.rtt.ping(this.pingOut, ++this.pingCounter >>> 0, this.now());
  }

  /** A pong from the player: null when taken (or harmlessly late), else why it was refused. */
  pong(id: Id, bytes: unknown): string | null {
    const p = this.byId.get(id);
    if (p === undefined) return 'PONG_NO_PLAYER';
    p.heardMs = this.now();
    const status = decodePing(this.pingIn, bytes);
    if (status !== FrameStatus.OK) return `PONG_${frameStatusName(status)}`;
    return p.takePong(this.pingIn, this.now()) ? null : 'PONG_UNKNOWN_ID';
  }

  /**
   * A stamped message of the game's own (a movement input) arrived: its stamp, the client's
   * estimate of the server clock, ms. Null when it stands (it raises the stream floor that later
   * actions are held to), else why not: NO_PLAYER, NON_FINITE, TIME_FUTURE or BACKDATED
   * (MatchPlayer.takeStamp).
   */
  stamp(id: Id, stampMs: number): string | null {
    const p = this.byId.get(id);
    if (p === undefined) return 'NO_PLAYER';
    p.heardMs = this.now();
    const why = p.takeStamp(stampMs, this.now(), this.rules);
    if (why === null) p.stampedMs = stampMs;
    return why;
  }

  /** The newest time a player's stream has stated, match ms (NaN: nothing yet, or not in the match). */
  streamFloor(id: Id): number {
    return this.byId.get(id)?.streamFloorMs ?? Number.NaN;
  }

  /** The game measures round trips itself: this player's, ms (NaN: back to hitreg's pings). */
  setRoundTrip(id: Id, rttMs: number): void {
    const p = this.byId.get(id);
    if (p !== undefined) p.externalRttMs = rttMs >= 0 && rttMs < 60_000 ? rttMs : Number.NaN;
  }

  // ------------------------------------------------------------------ ticks

  /** Ticks recorded so far, and ticks per wall-clock second over the last full second. */
  get tickCount(): number {
    return this.tickClock.count;
  }

  get ticksPerSecond(): number {
    return this.tickClock.ticksPerSecond;
  }

  /**
   * Starts tick `tick` (default: the next) of `dtMs` (default 1000 / tickRate) and returns its match
   * time; move the players, then endTick() records them. Ticks are stamped exactly dt apart and
   * catch up with the clock after a stall.
   */
  beginTick(tick: number = this.tickNo, dtMs: number = 1000 / this.tickRate): number {
    this.tickNo = tick;
    this.tickMs = this.tickClock.stamp(tick, dtMs, this.now());
    return this.tickMs;
  }

  /** Records every player's pose (read through the adapter) at the tick's time and logs the tick. */
  endTick(): void {
    const t = this.tickMs;
    if (!(t === t)) throw new Error('HitregMatch.endTick: call beginTick first');
    const tick = this.tickNo;
    const poses = this.tickPoses;
    poses.clear();
    for (const p of this.bySlot) if (p !== null && poses.record(p, this.scene.histories[p.slot]!, tick, t)) this.roster.recorded(p, t);
    this.newestTickMs = t;
    this.safeRecord(() => this.recorder?.tick({ tick, timeMs: t, poses: poses.rows }));
    // Projectiles fly to the tick's time against the poses just recorded (deaths happen at it).
    this.flights.step(tick, t);
    this.tickMs = Number.NaN;
    this.tickNo = tick + 1;
  }

  /** beginTick and endTick at once, for games that move their players before it. */
  tick(tick?: number, dtMs?: number): number {
    const t = this.beginTick(tick, dtMs);
    this.endTick();
    return t;
  }

  // ------------------------------------------------------------------ shots

  /**
   * Judges a weapon message of player `id` (a byte frame, or an object when `options.objects` is
   * not false) and applies it: a hit takes the target's health and may kill it. Returns the
   * outcome (reused by the next call: read it at once). A message of a player not in the match is
   * refused (NO_SHOOTER) and not logged.
   */
  shot(id: Id, payload: unknown, options: ShotOptions = {}): ShotOutcome<Id> {
    const out = this.outcome;
    const p = this.byId.get(id);
    out.shooter = id;
    out.target = null;
    out.damage = 0;
    out.healthAfter = -1;
    out.killed = false;
    const v = this.judge.judge({
      shooter: p ?? this.outsider(id), payload, receiveTimeMs: options.receiveTimeMs ?? this.now(), newestTickMs: this.newestTickMs,
      objects: options.objects !== false, renderTimeMs: options.renderTimeMs ?? Number.NaN, slotOf: (t: Id) => this.slotOf(t),
      streamFloorMs: options.streamFloorMs ?? p?.streamFloorMs ?? Number.NaN,
    });
    out.verdict = v;
    out.problem = this.judge.problem;
    if (p === undefined) return out;
    p.heardMs = this.now();
    out.target = v.target >= 0 ? (this.bySlot[v.target]?.id ?? null) : null;
    applyHits(out, this.bySlot, p, (victim, killer) => this.die(victim, killer));
    const rec = this.judge.record;
    recordApplied(rec, out);
    this.safeRecord(() => this.recorder?.shot(rec));
    out.projectile = -1;
    out.projectileRefusal = '';
    out.projectileStartMs = Number.NaN;
    if (v.kind === VerdictKind.LAUNCH) this.flights.launch(out, p, this.newestTickMs, 1000 / this.tickRate);
    return out;
  }

  /** Launches not flown because the match already kept maxProjectiles (their round was used). */
  get projectilesRefused(): number {
    return this.flights.refused;
  }

  /**
   * Every other player's pose at `timeMs` as a rewind samples it (for a debug view of a verdict:
   * it reveals where everyone is, so never send it to players in a real match).
   */
  rewoundPoses(shooter: Id, timeMs: number): { id: Id; slot: number; pose: PlayerPose }[] {
    const out: { id: Id; slot: number; pose: PlayerPose }[] = [];
    const self = this.slotOf(shooter);
    const { histories, eyePolicy } = this.scene;
    for (let s = 0; s < histories.length; s++) {
      const occupant = this.bySlot[s];
      if (s === self || occupant === null || occupant === undefined || histories[s]!.size() === 0) continue;
      const pose = createPlayerPose();
      if (!rewindStatusUsable(histories[s]!.sampleAt(pose, timeMs, eyePolicy)) || !pose.alive) continue;
      out.push({ id: occupant.id, slot: s, pose });
    }
    return out;
  }

  /** Messages of a player that were dropped unjudged (over a budget of the game's), for the log. */
  throttled(id: Id, count: number): void {
    const p = this.byId.get(id);
    if (p !== undefined && count > 0) this.event(MatchEventKind.THROTTLED, p, this.eventTime(), undefined, undefined, undefined, count);
  }

  /** Ends the match log (flushed, closed). Safe to call more than once. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      try {
        await this.recorder?.close();
      } catch (e) {
        this.problem('the recorder failed to close', e);
      }
    })();
    return this.closed;
  }

  // ------------------------------------------------------------------ internals

  private die(p: MatchPlayer<Id>, killer: MatchPlayer<Id>): void {
    const t = this.eventTime();
    this.roster.die(p, killer, t);
    this.event(MatchEventKind.DEATH, p, t, undefined, undefined, undefined, killer.slot);
  }

  /** Between beginTick and endTick, the tick's time (what the game does there happens at it); else now. */
  private eventTime(): number {
    return this.tickMs === this.tickMs ? this.tickMs : this.now();
  }

  /** A shooter record for an id not in the match (its message is refused: NO_SHOOTER). */
  private outsider(id: Id): MatchPlayer<Id> {
    return new MatchPlayer<Id>(id, -1, [], this.rules.loadout);
  }

  private event(kind: MatchEventKind, p: MatchPlayer<Id>, timeMs: number, x?: number, y?: number, z?: number, other?: number): void {
    const e: MatchEvent = { kind, slot: p.slot, timeMs };
    if (x !== undefined) { e.x = x; e.y = y; e.z = z; }
    if (other !== undefined) e.other = other;
    this.safeRecord(() => this.recorder?.event(e));
  }

  private safeRecord(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.problem('the recorder failed (the match goes on)', e);
    }
  }

  private problem(message: string, error?: unknown): void {
    this.problems++;
    if (this.problems <= 3) this.onProblem(message, error);
  }
}

function frameStatusName(s: number): string {
  for (const [k, v] of Object.entries(FrameStatus)) if (v === s) return k;
  return String(s);
}

