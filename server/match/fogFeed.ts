/**
 * FogFeed: feeds FogFilter's FogOfWar from a HitregMatch, slot by slot, after each tick (part of
 * "hitreg/server"). It owns the per-slot state the feed needs (epoch, own velocity, timing set, stall
 * lead) and says when a slot's player teleported, so FogFilter withholds it at once.
 *
 * Fed per slot from the match: the feet from the newest recorded snapshot, the velocity from the
 * newest two when the last tick stepped input (its horizontal part scaled down to movement.maxSpeed
 * when faster: a tick that stepped a stall's backlog moves the player several ticks' worth, and that
 * lead is in the stamp lag below), else the last such velocity in this life (none known:
 * the reach grows from the max speed, FogOfWar.speedFloor), the eye height (the pose's, else the rules'
 * eyeHeightM), the team; per viewer the timing (FogOfWar.setTiming):
 *   one-way = rttMs / 2 (unknownOneWayMs before the first round trip sample), or more: the newest
 *             tick's time less the stamp of the newest input it stepped, when that is larger (under
 *             1 s): the client's screen runs ahead of what the server stepped by its one way plus
 *             the inputs waiting in the server's queue (before the first input of a life is
 *             stepped, from a client that stamped its inputs in an earlier life, the life's first
 *             snapshot stands for that stamp: a client whose inputs are held upstream right after a
 *             respawn moves on from its spawn unseen),
 *   interp  = the viewer's interpolation delay (as the match clamped it). For a viewer that takes
 *             backfills (FogFilter.setBackfill) no patch is added: the snapshot that would send an
 *             enemy again carries its poses back past any render time its screen still lacks, so
 *             only the render times within a patch before a withholding snapshot can miss it
 *             (FogOfWar's module comment), and every body's region holds where its feet were over
 *             that patch (FogOfWar.pastR, pastDrop, pastRise, from the match's histories, this life
 *             only) and reaches one tick ahead of its newest snapshot,
 *   patch   = patchMs: how long a decision stands before the next one reaches the wire (the larger
 *             of the patch interval and the tick, since update() runs once per tick),
 *   safety  = measuredSafetyMs (default 16) for a viewer whose client stamps its inputs: its lead
 *             is measured in the clock its screen renders by, so only that clock's corrections
 *             (a few ms a ping) are left over. Otherwise safetyMs (default 50): the one-way is then
 *             half the round trip (asymmetric paths and jitter put the real one above that), the
 *             round trip is a windowed estimate, and the server steps queued inputs over the next
 *             ticks (a burst arriving late moves a player several ticks at once; a burst after a
 *             stall longer than the margin can outrun it for the tick it lands, after which the
 *             measured speed widens the regions). About three 64 Hz ticks covers these; FogOfWar adds one more
 *             movement tick to every horizon itself. Horizons are capped at MAX_HORIZON_S (1 s), so a
 *             client that inflates its round trip or interpolation only widens its own regions that far;
 *             a measured stamp lag's own part may carry the eye's past it (FogOfWar.stall).
 *             A client whose inputs reach the server a second or more after it stamped them (an
 *             upstream stall) draws from where the server has not put it (the input queue banks at
 *             most a second, so the excess is never stepped): while its link is silent, and for
 *             DRAIN_MS after, its eye's horizon grows by the lag beyond one way (FogOfWar.stall, up
 *             to MAX_STALL_S more). A lag switch buys that much sight while its player stands still
 *             on every other screen; stamps stated late while the link keeps talking buy nothing.
 *             The limit: a stall longer than about 2.5 s may still pop enemies in on that screen.
 * A dead player steps no input but those deadMovesUntilMs lets through (moves its client made
 * before it could know of the kill), so its catch-up is what of those is left to step, and none
 * without honourShotsInFlight: a corpse's region does not grow while it lies. Its client's screen
 * eye stops once the kill's snapshot reaches it (the web page draws from the corpse; the client-sim
 * bots from where their prediction had them), so its eye's lag is read up to the kill plus a tick,
 * a round trip and DEAD_RESEND_MS (the snapshot sent again once), not on while it is dead: a screen
 * that learns of its death later (a longer downstream stall at the kill) may draw from farther, and
 * a client that moves its camera while dead (a free spectator camera) needs to be sent everyone.
 * A respawn or teleport bumps the player's epoch: the feed calls fog.forget(slot) for it (the pair is
 * re-tested from the new spot in the same update). Allocation-free per slot: flat arrays sized for
 * the match's slots at construction.
 */
import { MAX_HORIZON_S, type FogOfWar } from '../../shared/fog/index';
import { SNAPSHOT_FEET } from '../../shared/lagcomp/history';
import { deadMovesUntilMs } from '../../shared/validate/times';
import type { HitregMatch } from './match';
import type { MatchPlayer } from './player';

/** A stamp lag beyond this is not a lead but a stale stamp (a player standing with no input) unless the link is silent (a stall): ms. */
const MAX_LEAD_MS = 1000;
/** How long a stall's lead still counts after the link was last seen silent or its backlog queued, ms. */
const DRAIN_MS = 250;
/** A dead player's eye lag is read up to a round trip and this long after its kill (TCP's least retransmission timeout): its kill's snapshot sent again once, ms. */
const DEAD_RESEND_MS = 200;

/** FogFilter's settings the feed reads (see FogFilterOptions). */
export interface FogFeedSettings {
  /** The movement's max speed: the reach's starting speed when no velocity of the player's own is known. */
  maxSpeed: number;
  patchMs: number;
  safetyMs: number;
  measuredSafetyMs: number;
  unknownOneWayMs: number;
  /** Dead players judged like standing bodies (corpses: 'sight'). */
  corpsesSeen: boolean;
  /** Per viewer slot: 1 when its client takes backfills (FogFilter.setBackfill); read, not copied. */
  backfill: Uint8Array;
}

export class FogFeed<Id extends string | number = string> {
  private readonly maxSpeed: number;
  private readonly patchMs: number;
  private readonly safetyMs: number;
  private readonly measuredSafetyMs: number;
  private readonly unknownOneWayMs: number;
  private readonly corpsesSeen: boolean;
  /** Per slot: the epoch of its last snapshot fed (NaN: none since it changed hands). */
  private readonly epoch: Float64Array;
  /** Per slot: the one-way and interpolation delays its timing was last set from (NaN: not set). */
  private readonly oneWay: Float64Array;
  private readonly interp: Float64Array;
  /** Per slot: the safety margin and backfill its timing was last set with (the backfill also sets every body's look-back: begin()). */
  private readonly safety: Float64Array;
  private readonly timedBackfill: Uint8Array;
  /** Per slot: the velocity of the newest tick that stepped its input (3 numbers), and whether one is known in this epoch. */
  private readonly ownV: Float64Array;
  private readonly ownKnown: Uint8Array;
  /** Per slot: whether an input stamp of this life has been fed (until then its stamp is the life's start, MatchPlayer.lifeStartMs: see feed()). */
  private readonly stampedLife: Uint8Array;
  /** Per slot: its occupant's game stamps inputs (a stamp was fed in any life); a game that stamps none has no lead to measure. */
  private readonly stamps: Uint8Array;
  /** Per slot: match ms until which a stall's lead counts (FogOfWar.stall). */
  private readonly stallUntil: Float64Array;
  private readonly backfill: Uint8Array;
  /** This update's look-back for every body, ms: a patch (and a tick) while any viewer takes backfills, else 0 (begin()). */
  private pastMs = 0;
  /** Scratch: the two newest snapshots of a slot (PlayerHistory.feetInto: time, feet, eye, epoch, alive). */
  private readonly feet = new Float64Array(2 * SNAPSHOT_FEET);

  constructor(private readonly match: HitregMatch<Id>, private readonly fog: FogOfWar, settings: FogFeedSettings) {
    const n = match.maxPlayers;
    this.maxSpeed = settings.maxSpeed;
    this.patchMs = settings.patchMs;
    this.safetyMs = settings.safetyMs;
    this.measuredSafetyMs = settings.measuredSafetyMs;
    this.unknownOneWayMs = settings.unknownOneWayMs;
    this.corpsesSeen = settings.corpsesSeen;
    this.epoch = new Float64Array(n).fill(Number.NaN);
    this.oneWay = new Float64Array(n).fill(Number.NaN);
    this.interp = new Float64Array(n).fill(Number.NaN);
    this.safety = new Float64Array(n).fill(Number.NaN);
    this.timedBackfill = new Uint8Array(n);
    this.ownV = new Float64Array(3 * n);
    this.ownKnown = new Uint8Array(n);
    this.stallUntil = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.stampedLife = new Uint8Array(n);
    this.stamps = new Uint8Array(n);
    this.backfill = settings.backfill;
  }

  /**
   * Before an update's feed() calls: every body's look-back is a patch while a viewer timed by the
   * last update takes backfills (its screen may draw a body from the patch before a withholding
   * snapshot), plus a tick for a timing set during this one.
   */
  begin(): void {
    let any = false;
    for (let s = 0; s < this.timedBackfill.length; s++) if (this.timedBackfill[s] === 1 && this.oneWay[s] === this.oneWay[s]) any = true;
    this.pastMs = any ? this.patchMs + 1000 / this.match.tickRate : 0;
  }

  /**
   * Slot s's past spread (FogOfWar.pastR, pastDrop, pastRise): how far from its feet now (x, y, z)
   * its feet were in its snapshots of this epoch within pastMs before its newest (k snapshots held).
   */
  private past(s: number, k: number, x: number, y: number, z: number, ep: number): void {
    const fog = this.fog, f = this.feet, hist = this.match.scene.histories[s]!;
    let r2 = 0, drop = 0, rise = 0;
    if (this.pastMs > 0) {
      const from = f[0]! - this.pastMs;
      for (let i = k - 2; i >= 0; i--) {
        hist.feetInto(f, SNAPSHOT_FEET, i);
        if (f[SNAPSHOT_FEET + 5] !== ep) break;
        const dx = f[SNAPSHOT_FEET + 1]! - x, dy = f[SNAPSHOT_FEET + 2]! - y, dz = f[SNAPSHOT_FEET + 3]! - z;
        const d2 = dx * dx + dz * dz;
        if (d2 > r2) r2 = d2;
        if (-dy > drop) drop = -dy;
        if (dy > rise) rise = dy;
        if (!(f[SNAPSHOT_FEET]! > from)) break;
      }
    }
    fog.pastR[s] = Math.sqrt(r2);
    fog.pastDrop[s] = drop;
    fog.pastRise[s] = rise;
  }

  /**
   * Slot s (its occupant `id`, undefined when free) into the fog: taken out when free or not recorded
   * yet. Returns true when its player teleported (a new epoch after a known one): the fog forgot its
   * pairs, and the caller withholds it at once.
   */
  feed(s: number, id: Id | undefined): boolean {
    const fog = this.fog, match = this.match;
    const h = id === undefined ? undefined : match.player(id);
    const hist = match.scene.histories[s];
    const k = hist === undefined ? 0 : hist.size();
    if (h === undefined || hist === undefined || k === 0) {
      if (fog.present[s] === 1) fog.removePlayer(s);
      this.oneWay[s] = Number.NaN;
      return false;
    }
    // Read into a typed array (PlayerHistory.feetInto): a pose object's fields written here boxed each double.
    const f = this.feet;
    hist.feetInto(f, 0, k - 1);
    const x = f[1]!, y = f[2]!, z = f[3]!, ep = f[5]!, alive = f[6] === 1;
    // No input of this life stepped yet (a respawn: the stamp is NaN) from a client that stamps its
    // inputs: it may have moved since it learnt of the life, with inputs still on their way (an
    // upstream stall), so its stamp counts as the life's first snapshot and the lead below grows from there.
    if (this.epoch[s] !== ep) this.stampedLife[s] = 0;
    const mp = h as MatchPlayer<Id>;
    if (f[7] === f[7]) {
      this.stampedLife[s] = 1;
      this.stamps[s] = 1;
    } else if (this.stampedLife[s] === 0 && this.stamps[s] === 1 && !mp.lifePending) f[7] = mp.lifeStartMs;
    const eye = f[4]! === f[4]! ? f[4]! : match.rules.eyeHeightM;
    let vx = 0, vy = 0, vz = 0;
    // The velocity is the player's own only when the last tick stepped input (its stamp moved): a
    // tick that stepped none shows it standing while its client still runs it on. Then the last own
    // velocity stands in: the client has moved on from it, by at most the acceleration, since the
    // stamp of the newest input stepped, and the eye's horizon runs from that stamp (the lag below).
    // Without one (a new life, no input yet, a stamp too old to be a lead) the reach starts from the
    // max speed (FogOfWar.speedFloor), as it does when the game stamps no input.
    const lag = match.newestTickMs - f[7]!;
    let own = false;
    if (k >= 2) {
      hist.feetInto(f, SNAPSHOT_FEET, k - 2);
      const dt = (f[0]! - f[SNAPSHOT_FEET]!) / 1000;
      // Velocity over the last tick; none across a teleport or a gap of more than a few ticks.
      if (f[SNAPSHOT_FEET + 5] === ep && dt > 0 && dt < 4 / match.tickRate) {
        vx = (x - f[SNAPSHOT_FEET + 1]!) / dt; vy = (y - f[SNAPSHOT_FEET + 2]!) / dt; vz = (z - f[SNAPSHOT_FEET + 3]!) / dt;
        own = f[7]! > f[SNAPSHOT_FEET + 7]!;
        // A tick that stepped a backlog of inputs (a stall's queue) reads faster than the player runs:
        // no honest speed passes movement.maxSpeed, and the backlog's lead is in the stamp lag below.
        const h2 = vx * vx + vz * vz, cap = this.maxSpeed;
        if (h2 > cap * cap) {
          const k = cap / Math.sqrt(h2);
          vx *= k; vz *= k;
        }
      }
    }
    if (this.epoch[s] !== ep) this.ownKnown[s] = 0;
    const o3 = 3 * s, ov = this.ownV;
    if (own) {
      ov[o3] = vx; ov[o3 + 1] = vy; ov[o3 + 2] = vz;
      this.ownKnown[s] = 1;
      fog.speedFloor[s] = 0;
    } else if (this.ownKnown[s] === 1 && lag < MAX_LEAD_MS) {
      vx = ov[o3]!; vy = ov[o3 + 1]!; vz = ov[o3 + 2]!;
      fog.speedFloor[s] = 0;
    } else fog.speedFloor[s] = this.maxSpeed;
    let teleported = false;
    if (this.epoch[s] !== ep) {
      if (this.epoch[s] === this.epoch[s]) {
        fog.forget(s);
        teleported = true;
      }
      this.epoch[s] = ep;
    }
    // FogOfWar.setPlayer's fields written directly: ten double arguments would be boxed on every call.
    fog.present[s] = 1;
    fog.px[s] = x; fog.py[s] = y; fog.pz[s] = z;
    fog.vx[s] = vx; fog.vy[s] = vy; fog.vz[s] = vz;
    fog.eye[s] = eye;
    fog.alive[s] = alive || this.corpsesSeen ? 1 : 0;
    fog.team[s] = h.team;
    this.past(s, k, x, y, z, ep);
    this.time(s, mp, own);
    return teleported;
  }

  /** Slot s changes hands: out of the fog, its feed state fresh. */
  clear(s: number): void {
    this.fog.removePlayer(s);
    this.epoch[s] = Number.NaN;
    this.oneWay[s] = Number.NaN;
    this.interp[s] = Number.NaN;
    this.safety[s] = Number.NaN;
    this.ownKnown[s] = 0;
    this.stallUntil[s] = Number.NEGATIVE_INFINITY;
    this.stampedLife[s] = 0;
    this.stamps[s] = 0;
    this.timedBackfill[s] = 0;
  }

  /**
   * Slot s's catch-up, stall lead and timing from its round trip and the stamp lag of the snapshot
   * feed() just read (the lag is read again here: a double argument would be boxed on every call).
   */
  private time(s: number, mp: MatchPlayer<Id>, own: boolean): void {
    const fog = this.fog, now = this.match.newestTickMs, stamp = this.feet[7]!;
    // A dead player (the newest snapshot's alive flag) steps no input but those deadMovesUntilMs
    // lets through, and its client's screen eye stops once the kill's snapshot reaches it: its lag is
    // read no later than the kill plus a tick and one retransmission of that snapshot (see the module comment).
    const died = this.feet[6] === 1 ? Number.NaN : mp.diedAtMs;
    const ext = mp.externalRttMs, rtt = ext === ext ? ext : mp.rtt.rttMs;
    const until = died + 1000 / this.match.tickRate + (rtt > 0 ? rtt : 0) + DEAD_RESEND_MS;
    const lag = (died === died && until < now ? until : now) - stamp;
    // The timing only when it changed (a round trip sample, a new interpolation delay).
    // MatchPlayer's fields read directly (above): its rttMs getter returns a double, boxed on every call.
    // The eye's lead: how far the client's screen runs ahead of what the server stepped is its one
    // way plus inputs waiting in the server's queue; the newest stepped input's stamp (the client's
    // clock at the input) measures both. Rounded up to 4 ms so the timing is set only now and then.
    let oneWay = rtt > 0 ? rtt / 2 : this.unknownOneWayMs;
    const rttWay = oneWay;
    // What its link holds back beyond one way (a stall's backlog) the server steps faster than real
    // time when it lands: others see its body make that up, over their body horizon.
    const behind = lag - oneWay;
    if (died === died) {
      // A corpse moves only by its inputs stamped up to deadMovesUntilMs still to be stepped.
      const left = deadMovesUntilMs(this.match.rules, died) - stamp;
      fog.catchUp[s] = left > 0 ? (left < MAX_LEAD_MS ? left : MAX_LEAD_MS) / 1000 : 0;
    } else fog.catchUp[s] = behind > 0 && lag < MAX_LEAD_MS ? behind / 1000 : own ? 0 : fog.catchUp[s];
    if (lag > oneWay && lag < MAX_LEAD_MS) oneWay = 4 * Math.floor((lag + 3.999) / 4);
    // A client that takes backfills lacks a withheld enemy only at render times within a patch before
    // a snapshot that withheld it: its eye moves until its screen renders that snapshot's time
    // (one-way + interp, no patch) and bodies are held over that patch of their past. A client that
    // stamps its inputs has its lead measured in its screen's clock: the smaller margin.
    const interp = mp.interpDelayMs, bf = this.backfill[s] === 1;
    const patch = bf ? 0 : this.patchMs, safety = this.stamps[s] === 1 ? this.measuredSafetyMs : this.safetyMs;
    // An upstream stall: a lag of MAX_LEAD_MS or more counts while the link is silent (the lag less
    // the silence since its last message is an ordinary lead), while inputs it took are still
    // queued (the latest taken is later than the newest stepped: the backlog the stall landed) and for DRAIN_MS
    // after; the eye's horizon grows by the excess (FogOfWar.stall, capped). A client that states
    // old stamps while it keeps talking gains nothing; one that goes silent stands still on every
    // other screen meanwhile, and a backlog moves it late. A measured lead under MAX_LEAD_MS may carry the
    // horizon past MAX_HORIZON_S too (by its own part only: the round trip and interpolation delay
    // a client states stay capped).
    const silence = now - mp.heardMs;
    if (lag >= MAX_LEAD_MS && (lag - silence < MAX_LEAD_MS || mp.stampedMs > this.feet[7]!)) this.stallUntil[s] = now + DRAIN_MS;
    let stall = 0;
    if (lag >= MAX_LEAD_MS && now <= this.stallUntil[s]!) stall = lag - rttWay;
    else if (oneWay > rttWay) {
      const over = oneWay + interp + patch + safety - 1000 * MAX_HORIZON_S;
      if (over > 0) stall = over < oneWay - rttWay ? over : oneWay - rttWay;
    }
    fog.stall[s] = stall / 1000;
    if (oneWay !== this.oneWay[s] || interp !== this.interp[s] || safety !== this.safety[s] || bf !== (this.timedBackfill[s] === 1)) {
      this.oneWay[s] = oneWay;
      this.interp[s] = interp;
      this.safety[s] = safety;
      this.timedBackfill[s] = bf ? 1 : 0;
      fog.setTiming(s, oneWay, interp, this.patchMs, safety, bf);
    }
  }
}
