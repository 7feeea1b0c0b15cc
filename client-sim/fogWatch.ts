/**
 * Fog of war as the honest bots' screens and the in-process server's truth see it: hooks
 * each bot's frame and snapshot intake (own-property wrappers on the instance, as serverProbe.ts
 * wraps the room; nothing the bot does changes) and reads the server's true history of every
 * player (room.match.scene.histories) at the times in question. Measures (FogTally,
 * fogMeasure.ts; client-sim/README.md "Fog of war" has them in full):
 * - popIn: screen samples (an honest bot's frame, every `sampleEvery`-th, per enemy) in which the
 *   enemy, posed from the server's history at the bot's render time, is in line of sight from the
 *   bot's rendered eye (its predicted eye on its screen) at any sampled hitbox point, or (looked at
 *   only for such samples) at any point of its outline (BodyPoints.outline), while the
 *   enemy is absent from the received snapshots bracketing that render time, with a snapshot at or
 *   after the render time received (one not yet received for anyone: fogDetail.stalledPopIn); not
 *   in sight at a render time between two of its lives (the history's SNAPPED_EPOCH: no client draws
 *   a pose across a respawn or teleport); a dead bot's frames too, from the eye it stopped at
 *   (fogDetail.deadPopIn of them, over deadScreenSamples);
 * - withheldShare: over the enemy-ticks a client received (every `tickStride`-th tick), with both
 *   alive on the server and no line of sight from the client's server eye to the enemy's sampled
 *   points at that tick, the share in which that tick's snapshot lacked the enemy;
 * - wallhackLeadMs: at each onset of visibility on an honest screen (as for popIn; the sample
 *   before, at most ONSET_GAP_MS earlier, not visible), how long the enemy had been in every
 *   snapshot received without a break (what a wallhack reading every received enemy had);
 * - diedBehindCoverRate: of the honest bots' deaths with a killer (the room's death event), those
 *   where the bot's last screen sample before the death had it in cover from the killer: no line of
 *   sight from the killer's rendered eye (as the bot's screen drew the killer; not drawn counts as
 *   cover) to its own predicted eye or its predicted body's sampled points.
 * Costs: about 8 World.anyHit per (observer, enemy) per sample for hidden pairs, 1 for visible ones,
 * and up to the outline's 238 for a hidden pair whose data had not arrived.
 */
import type { GameServer } from '../server/index';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { Rewinder } from '../shared/lagcomp/rewind';
import { createRewindPolicy, OutOfWindow, RewindStatus, rewindStatusUsable, type PlayerHistory } from '../shared/lagcomp/history';
import { SNAP_STRIDE, Snap, type StateSnapshot } from '../shared/client/snapshot';
import { Bf, type Backfill } from '../shared/protocol/backfill';
import type { Rig } from '../shared/rig/rig';
import type { World } from '../shared/world/world';
import type { Bot } from './bot';
import type { SimReport } from './report';
import { anyClear, BodyPoints, FogTally, leadSummary, ReceiptLog, type FogMeasures } from './fogMeasure';

/** An event record's numbers: times to 0.1 ms, places to 1 mm. */
const tenth = (x: number): number => Math.round(x * 10) / 10;
const milli = (x: number): number => Math.round(x * 1000) / 1000;

/** An enemy drawn within this long of its life's start appeared by a respawn or teleport, not through fog, ms. */
const NEW_LIFE_MS = 100;

/** The server's side of one room: its histories by slot and who holds a slot. */
interface RoomTruth {
  histories: readonly PlayerHistory[];
  occupied(slot: number): boolean;
}

export interface FogWatchOptions {
  /** Take a screen sample every this many frames of a bot (default 2). */
  sampleEvery?: number;
  /** Judge every this many server ticks for withheldShare (default 4). */
  tickStride?: number;
}

export class FogWatch {
  readonly tally = new FogTally();
  private readonly points: BodyPoints;
  private readonly rewinder: Rewinder;
  private readonly eyeHeight: number;
  private readonly pose = createPlayerPose();
  private readonly other = createPlayerPose();
  /** Scratch for a pop-in's record (the frame's loop keeps using pose and other). */
  private readonly eventPose = createPlayerPose();
  private readonly drawnPose = createPlayerPose();
  private readonly pts: Float64Array;
  private readonly own: Float64Array;
  /** The body's outline, looked at before a sample counts as clean (FogTally.screen's `outline`). */
  private readonly outline: BodyPoints;
  private readonly outlinePts: Float64Array;
  /** The server's history holds far more than any render delay; REJECT: never a clamped pose. */
  private readonly policy = createRewindPolicy(2000, OutOfWindow.REJECT);
  private readonly frameCount = new Map<Bot, number>();
  /** The first pop-ins, with their times (fogDetail.popInEvents), and the first enemies drawn already in sight (fogDetail.appearedEvents). */
  private readonly popInEvents: Record<string, number | boolean>[] = [];
  private readonly appearedEvents: Record<string, number | boolean>[] = [];
  private readonly bySlot = new Map<string, Bot>();
  private readonly unhook: (() => void)[] = [];
  readonly sampleEvery: number;
  readonly tickStride: number;

  constructor(private readonly gs: GameServer, private readonly world: World, rig: Rig, private readonly maxPlayers: number, options: FogWatchOptions = {}) {
    this.points = new BodyPoints(rig);
    this.outline = BodyPoints.outline(rig);
    this.outlinePts = new Float64Array(this.outline.count * 3);
    this.rewinder = new Rewinder(rig);
    this.eyeHeight = rig.eyeHeight;
    this.pts = new Float64Array(this.points.count * 3);
    this.own = new Float64Array((this.points.count + 1) * 3);
    this.sampleEvery = Math.max(1, Math.floor(options.sampleEvery ?? 2));
    this.tickStride = Math.max(1, Math.floor(options.tickStride ?? 4));
  }

  /** Starts watching a bot that has joined (its slot is known). */
  attach(bot: Bot): void {
    const receipt = new ReceiptLog(this.maxPlayers);
    if (bot.profile === null && !this.tally.popInBy.has(bot.index)) this.tally.popInBy.set(bot.index, 0);
    const roomId = bot.conn.room?.roomId ?? '';
    this.bySlot.set(`${roomId}:${bot.slot}`, bot);
    const view = bot.view as unknown as { apply(s: StateSnapshot): void; backfill(b: Backfill): void; newestTimeMs: number };
    const apply = view.apply, backfill = view.backfill;
    view.backfill = (b: Backfill): void => {
      if (b.count > 0) receipt.backfill(b.slot, b.samples[Bf.TIME]!);
      backfill.call(view, b);
    };
    view.apply = (snap: StateSnapshot): void => {
      if (snap.timeMs > view.newestTimeMs) {
        receipt.record(snap.timeMs, performance.now(), snap.players);
        if (snap.tick % this.tickStride === 0) this.judgeTick(bot, snap);
      }
      apply.call(view, snap);
    };
    const b = bot as unknown as { frame(): void };
    const frame = b.frame;
    b.frame = (): void => {
      frame.call(bot);
      if (bot.profile === null) this.screenFrame(bot, receipt);
    };
    this.unhook.push(() => {
      delete (view as { apply?: unknown }).apply;
      delete (view as { backfill?: unknown }).backfill;
      delete (b as { frame?: unknown }).frame;
    });
  }

  detach(): void {
    for (const u of this.unhook) u();
    this.unhook.length = 0;
  }

  /** The server's death event: `victim` killed by `killer` in room `roomId`. */
  death(roomId: string, victim: number, killer: number): void {
    const bot = this.bySlot.get(`${roomId}:${victim}`);
    if (bot === undefined || bot.profile !== null || killer < 0 || killer === victim) return;
    this.tally.death(bot.index, killer);
  }

  private truth(bot: Bot): RoomTruth | null {
    const roomId = bot.conn.room?.roomId;
    const room = roomId !== undefined ? (this.gs.rooms.get(roomId) as unknown as { match?: { scene: { histories: PlayerHistory[] }; idOfSlot(s: number): unknown } }) : undefined;
    const match = room?.match;
    if (match === undefined) return null;
    return { histories: match.scene.histories, occupied: (s) => match.idOfSlot(s) !== undefined };
  }

  /** The eye of a pose: its root raised by its eye height (the rules' when unknown). */
  private eyeY(p: { y: number; eyeHeight: number }): number {
    return p.y + (Number.isFinite(p.eyeHeight) ? p.eyeHeight : this.eyeHeight);
  }

  /** withheldShare: every enemy at this snapshot's tick, covered or not from the client's server eye, and present or not. */
  private judgeTick(bot: Bot, snap: StateSnapshot): void {
    const truth = bot.slot >= 0 ? this.truth(bot) : null;
    if (truth === null) return;
    const ownH = truth.histories[bot.slot];
    if (ownH === undefined || !rewindStatusUsable(ownH.sampleAt(this.other, snap.timeMs, this.policy)) || !this.other.alive) return;
    const ex = this.other.x, ey = this.eyeY(this.other), ez = this.other.z;
    for (let s = 0; s < this.maxPlayers; s++) {
      if (s === bot.slot || !truth.occupied(s)) continue;
      const h = truth.histories[s]!;
      if (h.size() === 0 || !rewindStatusUsable(h.sampleAt(this.pose, snap.timeMs, this.policy)) || !this.pose.alive) continue;
      const n = this.points.fill(this.pts, this.rewinder, this.pose);
      this.tally.tick(!anyClear(this.world, ex, ey, ez, this.pts, n), snap.players[s * SNAP_STRIDE + Snap.PRESENT] !== 1);
    }
  }

  /** One frame of an honest bot's screen: pop-ins and onsets per enemy, and whether it is in cover from each (a dead bot's: pop-ins only). */
  private screenFrame(bot: Bot, receipt: ReceiptLog): void {
    if (!bot.ready()) return;
    const k = (this.frameCount.get(bot) ?? 0) + 1;
    this.frameCount.set(bot, k);
    if (k % this.sampleEvery !== 0) return;
    // A dead bot still draws the enemies, from the eye it stopped at when its death reached it: pop-ins only.
    const dead = !bot.aliveKnown();
    const truth = this.truth(bot);
    if (truth === null) return;
    const now = performance.now();
    const t = bot.renderTime(now);
    const eye = bot.eyeNow;
    const nOwn = dead ? 0 : this.ownPoints(bot);
    for (let s = 0; s < this.maxPlayers; s++) {
      if (s === bot.slot || !truth.occupied(s)) continue;
      // Right after its own join or respawn a client draws no one else at render times before it
      // (MatchView.drawsOthersAt): no rendered scene of others to pop into.
      if (!bot.view.drawsOthersAt(s, t)) continue;
      const h = truth.histories[s]!;
      const status = h.size() === 0 ? RewindStatus.EMPTY : h.sampleAt(this.pose, t, this.policy);
      if (!rewindStatusUsable(status)) continue;
      let visible = false;
      // Between the last snapshot of one life and the first of the next (a respawn, a teleport) the
      // truth is the nearer life whole (SNAPPED_EPOCH), but no client draws a pose across an epoch
      // change (MatchView.renderPose): nothing is on any screen to pop in.
      const onScreen = this.pose.alive && status !== RewindStatus.SNAPPED_EPOCH;
      if (onScreen) {
        const n = this.points.fill(this.pts, this.rewinder, this.pose);
        visible = anyClear(this.world, eye[0]!, eye[1]!, eye[2]!, this.pts, n);
      }
      if (dead && !onScreen) continue;
      const arrived = receipt.arrived(s, t), behind = receipt.behind(t);
      // A second look before a sample counts as clean: the body's outline (extreme points of every hitbox).
      let outline = false;
      if (onScreen && !visible && !arrived && !behind) {
        this.tally.outlineSamples++;
        const n = this.outline.fill(this.outlinePts, this.rewinder, this.pose);
        outline = anyClear(this.world, eye[0]!, eye[1]!, eye[2]!, this.outlinePts, n);
      }
      const before = this.tally.popIn;
      if (dead) this.tally.deadScreen(bot.index, visible, arrived, behind, outline);
      else this.tally.screen(bot.index, s, now, visible, arrived, receipt.receivedSince(s), behind, outline);
      if (this.tally.popIn > before && this.popInEvents.length < 20) this.popInEvents.push(this.popInEvent(bot, s, t, truth));
      if (dead) continue;
      // A stream behind the screen draws no one: not a sample of what fog sends.
      if (!behind) this.drawn(bot, s, t, now, h, visible);
      this.tally.cover(bot.index, s, this.inCover(bot, s, t, nOwn));
    }
  }

  /**
   * The client's own view of enemy `s` at render time t (FogTally.drawnSample): drawn (as the screen
   * draws it, MatchView.renderPose: a withheld enemy's received tail too), and then in
   * sight from the rendered eye; a new life when the truth NEW_LIFE_MS earlier was another life.
   */
  private drawn(bot: Bot, s: number, t: number, now: number, h: PlayerHistory, truthVisible: boolean): void {
    const drawn = bot.view.renderPose(this.drawnPose, s, t) && this.drawnPose.alive;
    let inSight = false, newLife = false;
    if (drawn) {
      const eye = bot.eyeNow;
      const n = this.points.fill(this.pts, this.rewinder, this.drawnPose);
      inSight = anyClear(this.world, eye[0]!, eye[1]!, eye[2]!, this.pts, n);
      const before = h.sampleAt(this.other, t - NEW_LIFE_MS, this.policy);
      newLife = !rewindStatusUsable(before) || before === RewindStatus.SNAPPED_EPOCH || this.other.epoch !== this.drawnPose.epoch;
    }
    const before = this.tally.appearedInSight;
    this.tally.drawnSample(bot.index, s, now, drawn, inSight, newLife);
    if (this.tally.appearedInSight > before && this.appearedEvents.length < 20) {
      const r = tenth, m = milli, eye = bot.eyeNow;
      // Where: the screen's eye, the enemy as drawn and as the server had it at the render time (this.pose).
      this.appearedEvents.push({
        bot: bot.index, enemy: s, renderMs: r(t), newestSnapMs: r(bot.view.newestTimeMs), presentSinceMs: r(bot.view.presentSinceMs[s]!), truthVisible,
        eyeX: m(eye[0]!), eyeY: m(eye[1]!), eyeZ: m(eye[2]!), drawnX: m(this.drawnPose.x), drawnZ: m(this.drawnPose.z), enemyX: m(this.pose.x), enemyZ: m(this.pose.z),
      });
    }
  }

  /** What a pop-in looked like (fogDetail.popInEvents): times against the view's newest snapshot and the server's newest input stamp of the bot. */
  private popInEvent(bot: Bot, enemy: number, t: number, truth: RoomTruth): Record<string, number | boolean> {
    const own = truth.histories[bot.slot];
    const newestTick = own !== undefined && own.size() > 0 ? own.newestTimeMs() : Number.NaN;
    let stamp = Number.NaN, sx = Number.NaN, sz = Number.NaN;
    const q = this.eventPose;
    if (own !== undefined && own.size() > 0 && rewindStatusUsable(own.sampleAt(q, newestTick, this.policy))) {
      stamp = q.stampMs; sx = q.x; sz = q.z;
    }
    const foe = truth.histories[enemy];
    let ex = Number.NaN, ez = Number.NaN;
    if (foe !== undefined && foe.size() > 0 && rewindStatusUsable(foe.sampleAt(q, t, this.policy))) { ex = q.x; ez = q.z; }
    const r = tenth, m = milli, eye = bot.eyeNow;
    return {
      bot: bot.index, enemy, renderMs: r(t), newestSnapMs: r(bot.view.newestTimeMs), serverTickMs: r(newestTick), inputLagMs: r(newestTick - stamp),
      presentNewest: bot.view.present(enemy), presentSinceMs: r(bot.view.presentSinceMs[enemy]!), rttMs: r(bot.clock.rttMs),
      // Where: the screen's eye, the viewer's feet on the server at its newest tick, the enemy's on the server at the render time.
      eyeX: m(eye[0]!), eyeY: m(eye[1]!), eyeZ: m(eye[2]!), serverX: m(sx), serverZ: m(sz), enemyX: m(ex), enemyZ: m(ez),
    };
  }

  /** The bot's own predicted eye and body points into `own` (the eye first); their count. */
  private ownPoints(bot: Bot): number {
    const e = bot.eyeNow;
    this.own[0] = e[0]!; this.own[1] = e[1]!; this.own[2] = e[2]!;
    const ring = bot.view.histories[bot.slot];
    if (ring === undefined || ring.size() === 0) return 1;
    if (!rewindStatusUsable(ring.sampleAt(this.other, ring.newestTimeMs(), this.policy))) return 1;
    const n = this.points.fill(this.pts, this.rewinder, this.other);
    this.own.set(this.pts.subarray(0, n * 3), 3);
    return n + 1;
  }

  /** In cover from `enemy` on the bot's screen: the enemy not drawn alive, or no line from its drawn eye to the bot's own points. */
  private inCover(bot: Bot, enemy: number, t: number, nOwn: number): boolean {
    if (!bot.view.renderPose(this.other, enemy, t) || !this.other.alive) return true;
    return !anyClear(this.world, this.other.x, this.eyeY(this.other), this.other.z, this.own, nOwn);
  }

  /** The report's fog fields. */
  measures(rewindWindowMs: number, botName: (bot: number) => string): FogMeasures {
    const t = this.tally;
    const popInByBot: Record<string, number> = {};
    for (const [b, n] of t.popInBy) popInByBot[botName(b)] = n;
    return {
      popIn: t.popIn,
      withheldShare: t.withheldShare,
      wallhackLeadMs: leadSummary(t.leadsMs),
      diedBehindCoverRate: t.diedBehindCoverRate,
      fogDetail: {
        popInByBot, popInEvents: this.popInEvents, appearedEvents: this.appearedEvents, stalledPopIn: t.stalledPopIn, deadScreenSamples: t.deadScreenSamples, deadPopIn: t.deadPopIn, wallhackLeadAfterHiddenMs: leadSummary(t.leadsAfterHiddenMs), screenSamples: t.screenSamples, visibleSamples: t.visibleSamples,
        coveredTicks: t.coveredTicks, withheldCoveredTicks: t.withheldCoveredTicks, visibleTicks: t.visibleTicks, withheldVisibleTicks: t.withheldVisibleTicks,
        coverSamples: t.coverSamples, inCoverSamples: t.inCoverSamples, appearances: t.appearances, appearedInSight: t.appearedInSight, deaths: t.deaths, deathsBehindCover: t.deathsBehindCover, rewindWindowMs,
        sampleEvery: this.sampleEvery, tickStride: this.tickStride, pointsPerBody: this.points.count, outlinePointsPerBody: this.outline.count, outlineSamples: t.outlineSamples, outlinePopIn: t.outlinePopIn,
      },
    };
  }
}

/** The in-process server's fog setting (its config's `fog`; the option asked for when the server has none), null for a remote one. */
export function fogSettingOf(gs: GameServer | null, asked: 'on' | 'off' | undefined): 'on' | 'off' | null {
  if (gs === null) return null;
  const f = (gs.config as { fog?: unknown }).fog;
  return f === 'on' || f === 'off' ? f : (asked ?? 'off');
}

/** The report's fog fields: the watch's measures, or nulls (a remote server, or the watch off). */
export function fogFields(watch: FogWatch | null, setting: 'on' | 'off' | null, gs: GameServer | null, rewindWindowMs: number, bots: readonly Bot[]): Pick<SimReport, 'fog' | 'popIn' | 'withheldShare' | 'wallhackLeadMs' | 'diedBehindCoverRate' | 'fogDetail'> {
  if (watch === null || gs === null) return { fog: setting, popIn: null, withheldShare: null, wallhackLeadMs: null, diedBehindCoverRate: null, fogDetail: null };
  const m = watch.measures(rewindWindowMs, (i) => bots[i]?.opts.name ?? `bot${i}`);
  let taken = 0, dropped = 0;
  for (const b of bots) {
    taken += b.view.backfillsTaken;
    dropped += b.view.backfillsDropped;
  }
  const st = gs.stats;
  const preciseShare = st.fogViewerUpdates > 0 ? st.fogPreciseViewerUpdates / st.fogViewerUpdates : null;
  const fogUpdateMs = st.fogTimedUpdates > 0 ? st.fogTimedMs / st.fogTimedUpdates : null;
  return { fog: setting, ...m, fogDetail: { ...m.fogDetail, serverHasFog: 'fog' in gs.config, backfillsTaken: taken, backfillsDropped: dropped, preciseShare, fogUpdateMs } };
}
