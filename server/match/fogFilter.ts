/**
 * FogFilter: server-side fog of war for a HitregMatch (part of "hitreg/server"). It owns one
 * FogOfWar (shared/fog: per ordered pair (viewer, enemy), whether the enemy must be sent now) for the
 * match's slots, feeds it from the match after each tick, and tells the game which enemies each
 * viewer starts or stops being sent, as a change list (and an optional callback), so a room maps
 * them onto its own per-client filter (Colyseus: StateView add / remove). The changes go to the
 * match log (fog records, format 13), so the audit can say per pair when an enemy was withheld.
 *
 * Fed per slot from the match by ./fogFeed (feet, velocity, eye, team, and per viewer the timing:
 * one way, interpolation, patch, safety, stall lead; its module comment says how and why).
 *
 * Precision: updateTimed() is update() timed now and then; while its work leaves room in
 * precisionBudgetMs, viewers are made precise one by one (shared/fog/precision: their pairs decided
 * on the plain regions, more withheld at more rays), and over it the newest loses it. update() alone
 * leaves them as they are (and reads no clock).
 *
 * Withdrawal waits one patch: a pair judged hidden stays sent until it has been judged hidden for
 * patchMs (withdrawDelayMs to change it). The client draws `interp` behind the server and keeps
 * drawing (and hitting) a withheld enemy's received tail up to its last snapshot (MatchView), so
 * what a removal takes from its screen are the render times after the last patch that carried the
 * enemy; that patch went out at or after the first hidden verdict, which covers the body from its
 * own time on, so those render times are covered. A client that drops a player on the first
 * snapshot without it (nothing drawn from its tail) needs withdrawDelayMs = its interpolation delay.
 * Sending again is immediate (with a backfill ahead of it for a viewer marked setBackfill: backfillFor
 * gives the enemy's history over the viewer's delay, which the client draws from at once, so the
 * feed covers that viewer's eye without the patch and bodies over their last patch only: ./fogFeed); so is withholding a player that teleported (a new epoch: the
 * client draws nothing across it, and waiting would send where it landed).
 * A respawn or teleport bumps the player's epoch: the feed forgets its pairs in the fog (re-tested
 * from the new spot in the same update). A player whose slot changes hands (leave, join) is taken
 * out and put back fresh.
 *
 * Corpses: FogOfWar hides a dead enemy. With `corpses: 'sight'` (the default) a dead player is judged
 * like a standing body instead, so a killer that saw it alive sees it fall (its position reveals only
 * where it died); 'hidden' withholds every corpse from enemies.
 *
 * Projectiles (the match's flights, ./fogFlightSends): a flight is sent to a viewer from the first
 * update at which the viewer is its shooter, is sent everyone, was sent the shooter at the flight's
 * first update (its launch, seen), or may see it before the next patch is on screen
 * (FogOfWar.seesPoint); once sent it stays sent until it ends (a flight lives seconds; its snapshot
 * already led back to its launch). A flight that lags the tick is covered for the lag too. The new sends of an
 * update are listed (flightChangeCount, flightChangeViewer, flightChangeIndex: the flight's index in
 * match.projectiles, flightChangeId: its id) and go to onFlightSent and the match log (fog flights
 * records, format 14). endSeen says who may be told a flight's end: its
 * shooter, those who may see its centre (any of its blast, when it exploded), and those sent it or
 * its shooter unless it struck a player withheld from them (a direct hit's centre places the struck
 * player); a game tells a viewer the struck player only when it is sent that player. tellEnd asks
 * endSeen for every viewer at once, says which are told the struck player and victims, and logs it
 * (fog ends records, format 15), so the audit can say who was told each end. The backfills handed
 * out (backfillFor) go to the match log too (fog backfills records, format 16: viewer, enemy and the
 * first pose's time), after the fog record of the update whose onChange asked for them.
 *
 * Changes: after update(), changeCount entries (changeViewer[i], changeEnemy[i], changeSent[i]: 1
 * sent from now on, 0 withheld), for every ordered pair of present players other than self whose
 * verdict changed, teammates included (FogOfWar sends them: they appear as sent once). A new pair
 * starts withheld, so a joiner's enemies arrive as changes at the next update. A viewer marked
 * setSeeAll (a debug client, a spectator) is sent everyone. Pairs of a player that left are dropped
 * without a change (the game removes the player itself). Allocation-free per update: flat arrays
 * sized for the match's slots at construction.
 *
 *   const fog = new FogFilter(match, { movement, patchMs: 1000 / 64 });
 *   tick:  match.endTick(); fog.updateTimed();   // or update(): no precise viewers
 *          for (let i = 0; i < fog.changeCount; i++) apply(fog.changeViewer[i], fog.changeEnemy[i], fog.changeSent[i] === 1);
 */
import { buildClimbMap, FogOfWar, FogPrecision, fogConfigOf, fogMotionOf, Q_GRAVITY, Q_LEAD, Q_RADIUS, Q_TURNS, Q_VX, Q_VY, Q_VZ, Q_X, Q_Y, Q_Z } from '../../shared/fog/index';
import { weaponById } from '../../shared/weapons';
import { FogBackfills } from './fogBackfills';
import type { HitregMatch } from './match';
import type { World } from '../../shared/world/world';
import { createEndTold, decideEndTold, type EndTold, type ProjectileEndLike } from './fogEnds';
import { FogFeed } from './fogFeed';
import { FogFlightSends } from './fogFlightSends';
import { DEFAULT_FOG_PRECISION_MS, DEFAULT_FOG_RAYS_PER_UPDATE, finiteAtLeast, walkGridOf, type FogFilterOptions } from './fogOptions';

const NO_SLOTS: readonly number[] = [];

export class FogFilter<Id extends string | number = string> {
  readonly fog: FogOfWar;
  /** Which viewers are precise, from the timed updates (precisionBudgetMs). */
  readonly precision: FogPrecision;
  readonly capacity: number;
  /** Per ordered pair (viewer * capacity + enemy): 1 when the enemy is being sent to the viewer. */
  readonly sent: Uint8Array;
  /** The last update's changes (see the module comment). */
  readonly changeViewer: Uint16Array;
  readonly changeEnemy: Uint16Array;
  readonly changeSent: Uint8Array;
  changeCount = 0;
  /** Projectiles (the match's ProjectileFlights, by flight index): who is sent which (./fogFlightSends). */
  readonly flights: FogFlightSends;
  /** Per viewer slot, since it joined: enemy-ticks sent and withheld (updates x enemies present, dead or alive). */
  readonly enemyTicksSent: Float64Array;
  readonly enemyTicksWithheld: Float64Array;
  /** Per viewer slot: sent everyone (setSeeAll). */
  readonly seeAll: Uint8Array;
  /** Per viewer slot: its client takes backfills (setBackfill); the messages and their log (./fogBackfills). */
  private readonly backfills: FogBackfills;
  readonly patchMs: number;
  readonly safetyMs: number;
  readonly measuredSafetyMs: number;
  readonly unknownOneWayMs: number;
  /** Recorder calls that threw. */
  problems = 0;
  /** The last tellEnd's told viewers and their flags (./fogEnds). */
  readonly endTold: EndTold;
  private readonly occupant: (Id | undefined)[];
  /** Feeds the fog from the match, slot by slot (./fogFeed). */
  private readonly feeder: FogFeed<Id>;
  /** Per pair: server ms of the first hidden verdict of the current run of them while still sent (NaN: none). */
  private readonly hiddenSince: Float64Array;
  private readonly withdrawDelayMs: number;
  private readonly onChange: FogFilterOptions['onChange'];
  private readonly onFlightSent: FogFilterOptions['onFlightSent'];
  private readonly onProblem: (message: string, error?: unknown) => void;
  private readonly record = { timeMs: 0, count: 0, viewer: null as unknown as Uint16Array, enemy: null as unknown as Uint16Array, sent: null as unknown as Uint8Array };
  private readonly flightRecord = { timeMs: 0, count: 0, viewer: null as unknown as Uint16Array, id: null as unknown as Float64Array };

  constructor(private readonly match: HitregMatch<Id>, options: FogFilterOptions) {
    const n = match.maxPlayers;
    const tickMs = 1000 / match.tickRate;
    const m = options.movement;
    const climb = options.climb === false ? undefined : options.climb === true || options.climb === undefined ? buildClimbMap(match.world, m.stepHeight) : options.climb;
    const walk = options.walk === false || options.walk === null ? undefined : options.walk === true || options.walk === undefined ? walkGridOf(match.world, m) : options.walk;
    this.fog = new FogOfWar(match.world, fogConfigOf(fogMotionOf(m, tickMs / 1000), match.rig, { climb, walk, maxRaysPerUpdate: DEFAULT_FOG_RAYS_PER_UPDATE, ...options.config }), n);
    this.capacity = n;
    this.precision = new FogPrecision(n, finiteAtLeast(options.precisionBudgetMs, DEFAULT_FOG_PRECISION_MS, 0));
    this.patchMs = finiteAtLeast(options.patchMs, tickMs, tickMs);
    this.safetyMs = finiteAtLeast(options.safetyMs, 50, 0);
    this.measuredSafetyMs = finiteAtLeast(options.measuredSafetyMs, 16, 0);
    this.unknownOneWayMs = finiteAtLeast(options.unknownOneWayMs, 150, 0);
    this.onProblem = options.onProblem ?? ((msg, e) => console.error(`hitreg fog: ${msg}`, e ?? ''));
    this.backfills = new FogBackfills(n, (m, e) => {
      this.problems++;
      if (this.problems <= 3) this.onProblem(m, e);
    });
    this.feeder = new FogFeed(match, this.fog, {
      maxSpeed: m.maxSpeed, patchMs: this.patchMs, safetyMs: this.safetyMs, measuredSafetyMs: this.measuredSafetyMs,
      unknownOneWayMs: this.unknownOneWayMs, corpsesSeen: options.corpses !== 'hidden', backfill: this.backfills.on,
    });
    this.withdrawDelayMs = finiteAtLeast(options.withdrawDelayMs, Number.NaN, 0);
    this.hiddenSince = new Float64Array(n * n).fill(Number.NaN);
    this.onChange = options.onChange;
    this.sent = new Uint8Array(n * n);
    this.changeViewer = new Uint16Array(n * n);
    this.changeEnemy = new Uint16Array(n * n);
    this.changeSent = new Uint8Array(n * n);
    this.onFlightSent = options.onFlightSent;
    this.flights = new FogFlightSends(match.projectiles, n);
    this.enemyTicksSent = new Float64Array(n);
    this.enemyTicksWithheld = new Float64Array(n);
    this.seeAll = new Uint8Array(n);
    this.endTold = createEndTold(n);
    this.occupant = new Array<Id | undefined>(n).fill(undefined);
    this.record.viewer = this.changeViewer;
    this.record.enemy = this.changeEnemy;
    this.record.sent = this.changeSent;
    this.flightRecord.viewer = this.flights.changeViewer;
    this.flightRecord.id = this.flights.changeId;
  }

  /** The flights' rows (./fogFlightSends): the id each is for (-1: none), per row and viewer 1 once sent. */
  get flightId(): Float64Array { return this.flights.id; }
  get flightSent(): Uint8Array { return this.flights.sent; }
  /** The last update's flights newly sent (see the module comment). */
  get flightChangeViewer(): Uint16Array { return this.flights.changeViewer; }
  get flightChangeIndex(): Uint16Array { return this.flights.changeIndex; }
  get flightChangeId(): Float64Array { return this.flights.changeId; }
  get flightChangeCount(): number { return this.flights.changeCount; }

  /**
   * Decides who may be told a projectile's end (./fogEnds: endSeen for every viewer, and whether the
   * struck player and `victims`, by slot, are told) and logs it (a fog ends record, format 15).
   * Returns the count; endTold.viewer[i] and endTold.flags[i] (END_STRUCK_MASKED: tell it struck no
   * one; END_VICTIMS_MASKED: tell only the victims it is sent) until the next call. A game sends the
   * end to exactly these.
   */
  tellEnd(end: ProjectileEndLike, victims: ArrayLike<number> = NO_SLOTS): number {
    const count = decideEndTold(this.endTold, this, end, victims);
    const rec = this.match.recorder;
    if (rec === null || rec.fogEnds === undefined) return count;
    try {
      rec.fogEnds(this.endTold);
    } catch (e) {
      this.problems++;
      if (this.problems <= 3) this.onProblem('the recorder failed on a fog ends record (the match goes on)', e);
    }
    return count;
  }

  /** Whether `slot` is a viewer in the fog now (its player is in the match and was fed). */
  hasViewer(slot: number): boolean {
    return slot >= 0 && slot < this.capacity && this.occupant[slot] !== undefined && this.fog.present[slot] === 1;
  }

  /** Whether the player in `enemySlot` is being sent to the one in `viewerSlot` (self: always). */
  isSent(viewerSlot: number, enemySlot: number): boolean {
    if (!(viewerSlot >= 0 && viewerSlot < this.capacity && enemySlot >= 0 && enemySlot < this.capacity)) return false;
    return viewerSlot === enemySlot || this.sent[viewerSlot * this.capacity + enemySlot] === 1;
  }

  /** The viewer in `slot` is sent everyone (true) or filtered (false) from the next update on; set it at each join (a slot keeps it). */
  setSeeAll(slot: number, on: boolean): void {
    if (slot >= 0 && slot < this.capacity) this.seeAll[slot] = on ? 1 : 0;
  }

  /**
   * The viewer in `slot` takes backfills (true) or not (false), from the next update on; set it at
   * each join (a slot keeps it). For such a viewer the game sends backfillFor(viewer, enemy) ahead of
   * the first patch that carries an enemy again (on the same ordered connection), and the client
   * begins the enemy's run with it (MatchView.backfill); the fog then covers its eye without the
   * patch, and bodies only over where they were in the last patch (./fogFeed). A viewer marked so
   * whose client drops backfills may see enemies pop in.
   */
  setBackfill(slot: number, on: boolean): void {
    if (slot >= 0 && slot < this.capacity) this.backfills.on[slot] = on ? 1 : 0;
  }

  /**
   * The backfill for a viewer newly sent `enemySlot` (shared/protocol/backfill.ts): the enemy's
   * history of its current life over the viewer's interpolation delay plus a tick before the newest
   * tick, that tick excluded (the patch carries it). A view of a buffer the next call reuses: send
   * it before calling again. Null when there is nothing to send (no viewer, no history, no backfills
   * for it).
   */
  backfillFor(viewerSlot: number, enemySlot: number): Uint8Array | null {
    if (!(viewerSlot >= 0 && viewerSlot < this.capacity && enemySlot >= 0 && enemySlot < this.capacity)) return null;
    const viewer = this.occupant[viewerSlot], match = this.match;
    const mp = viewer === undefined ? undefined : match.player(viewer);
    const h = match.scene.histories[enemySlot];
    if (mp === undefined || this.occupant[enemySlot] === undefined || h === undefined) return null;
    return this.backfills.encode(viewerSlot, enemySlot, mp.interpDelayMs, h, 1000 / match.tickRate, match.recorder, match.newestTickMs);
  }

  /** Drops what the fog remembers of player `id`'s pairs (a teleport the epoch does not mark). */
  forget(id: Id): void {
    const s = this.match.slotOf(id);
    if (s >= 0) this.fog.forget(s);
  }

  /**
   * update(), timed now and then: within precisionBudgetMs, viewers are made precise (./precision)
   * from those times. Call it instead of update() for that; update() alone leaves them as they are.
   */
  updateTimed(): number {
    return this.run(true);
  }

  /** FogOfWar.update timed for the precision (./precision). */
  private timedFog(): void {
    const prec = this.precision;
    clockInto(prec.ms, 0);
    this.fog.update();
    clockInto(prec.ms, 1);
    prec.adjust(this.fog);
  }

  /**
   * Once per tick, after match.endTick(): feeds every player, decides every pair and lists the
   * changes (also to onChange and the match's recorder). Returns changeCount.
   */
  update(): number {
    return this.run(false);
  }

  private run(timed: boolean): number {
    const n = this.capacity, match = this.match, fog = this.fog;
    this.feeder.begin();
    for (let s = 0; s < n; s++) this.feed(s);
    if (timed && this.precision.timing()) this.timedFog();
    else fog.update();
    let count = 0;
    const sent = this.sent, vis = fog.visible, since = this.hiddenSince, t = match.newestTickMs;
    for (let v = 0; v < n; v++) {
      if (this.occupant[v] === undefined || fog.present[v] === 0) continue;
      const row = v * n, all = this.seeAll[v] === 1;
      const wd = this.withdrawDelayMs, delay = wd === wd ? wd : this.patchMs;
      let on = 0, off = 0;
      for (let e = 0; e < n; e++) {
        if (e === v || this.occupant[e] === undefined || fog.present[e] === 0) continue;
        let now = all || vis[row + e] === 1 ? 1 : 0;
        if (now === 1) since[row + e] = Number.NaN;
        else if (sent[row + e] === 1) {
          // Hidden while sent: withheld only once hidden for the delay (see the module comment).
          const s0 = since[row + e]!;
          if (s0 !== s0) since[row + e] = t;
          if (!(t - since[row + e]! >= delay)) now = 1;
        }
        if (now === 1) on++; else off++;
        if (now === sent[row + e]) continue;
        sent[row + e] = now;
        since[row + e] = Number.NaN;
        this.changeViewer[count] = v;
        this.changeEnemy[count] = e;
        this.changeSent[count] = now;
        count++;
      }
      this.enemyTicksSent[v] += on;
      this.enemyTicksWithheld[v] += off;
    }
    this.changeCount = count;
    const fl = this.flights, flightCount = fl.update(this, match.newestTickMs);
    const fcb = this.onFlightSent;
    if (fcb !== undefined) for (let i = 0; i < flightCount; i++) fcb(fl.changeViewer[i]!, fl.changeIndex[i]!);
    const cb = this.onChange;
    this.backfills.begin();
    try {
      if (cb !== undefined) for (let i = 0; i < count; i++) cb(this.changeViewer[i]!, this.changeEnemy[i]!, this.changeSent[i] === 1);
    } finally {
      this.backfills.end();
    }
    const rec = match.recorder;
    if (rec === null) return count;
    try {
      // The pairs' record first: a flight sent with its shooter reads after the shooter's send.
      if (count > 0 && rec.fog !== undefined) {
        this.record.timeMs = match.newestTickMs;
        this.record.count = count;
        rec.fog(this.record);
      }
      if (flightCount > 0 && rec.fogFlights !== undefined) {
        this.flightRecord.timeMs = match.newestTickMs;
        this.flightRecord.count = flightCount;
        rec.fogFlights(this.flightRecord);
      }
    } catch (e) {
      this.problems++;
      if (this.problems <= 3) this.onProblem('the recorder failed on a fog record (the match goes on)', e);
    }
    // The backfills handed out with this update's sends, after the fog record that sent them.
    this.backfills.flush(rec, match.newestTickMs);
    return count;
  }

  /**
   * Whether the flight `flightId` was sent to the viewer in `viewerSlot` (its row is kept until the
   * next update after the flight ended, so a game's end handler can ask).
   */
  isFlightSent(viewerSlot: number, flightId: number): boolean {
    return this.flights.isSent(viewerSlot, flightId);
  }

  /**
   * Whether a projectile's end (its centre x y z, the player it struck: `struck`, -1 for none) may be
   * told to the viewer in `viewerSlot`: a see-all viewer, its shooter, one whose eye region may see
   * the centre (grown by the weapon's projectile radius), or one sent the flight or the shooter when
   * the end struck nobody or a player the viewer is sent (a direct hit's centre is on the struck
   * player: it would place a withheld one). For end events only (its numbers cross the call).
   */
  endSeen(viewerSlot: number, flightId: number, shooterSlot: number, struck: number, weapon: number, x: number, y: number, z: number, exploded = false): boolean {
    if (!(viewerSlot >= 0 && viewerSlot < this.capacity)) return false;
    if (this.seeAll[viewerSlot] === 1 || viewerSlot === shooterSlot) return true;
    const known = struck < 0 || this.isSent(viewerSlot, struck);
    if (known && (this.isSent(viewerSlot, shooterSlot) || this.isFlightSent(viewerSlot, flightId))) return true;
    const q = this.fog.point;
    q[Q_X] = x; q[Q_Y] = y; q[Q_Z] = z; q[Q_VX] = 0; q[Q_VY] = 0; q[Q_VZ] = 0; q[Q_GRAVITY] = 0; q[Q_LEAD] = 0; q[Q_TURNS] = 0;
    // What may be seen of it: the projectile, or the whole blast when it exploded (a game draws the splash).
    const spec = weaponById(this.match.projectiles.weapons, weapon)?.projectile;
    const r = spec?.radius ?? 0, blast = exploded ? (spec?.splash?.radius ?? 0) : 0;
    q[Q_RADIUS] = blast > r ? blast : r;
    return this.fog.seesPoint(viewerSlot);
  }


  /** Slot s into the fog from the match (./fogFeed), fresh when its occupant changed. */
  private feed(s: number): void {
    const id = this.match.idOfSlot(s);
    if (id !== this.occupant[s]) {
      this.clearSlot(s);
      this.occupant[s] = id;
    }
    if (this.feeder.feed(s, id)) {
      // A teleport: withheld from where it lands at once (the client draws no pose across an
      // epoch change, and a delay would send where it respawned).
      for (let v = 0, n = this.capacity; v < n; v++) this.hiddenSince[v * n + s] = Number.NEGATIVE_INFINITY;
    }
  }

  /** Slot s changes hands: its pairs forgotten and withheld, its counts zeroed (no change is reported). */
  private clearSlot(s: number): void {
    const n = this.capacity;
    this.feeder.clear(s);
    for (let o = 0; o < n; o++) {
      this.sent[s * n + o] = 0;
      this.sent[o * n + s] = 0;
      this.hiddenSince[s * n + o] = Number.NaN;
      this.hiddenSince[o * n + s] = Number.NaN;
    }
    for (let i = 0; i < this.flightId.length; i++) this.flightSent[i * n + s] = 0;
    this.enemyTicksSent[s] = 0;
    this.enemyTicksWithheld[s] = 0;
  }
}

/** performance.now() into a[i] (a small function V8 compiles to write the double unboxed). */
function clockInto(a: Float64Array, i: number): void {
  a[i] = performance.now();
}
