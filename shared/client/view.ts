/**
 * A predicting client's view of the match, built only from what it received: every state snapshot
 * is recorded into one PlayerHistory ring per slot, the same structure the server keeps. Sampling
 * a ring at the render time (server clock estimate minus the interpolation delay) is the
 * interpolated pose the client renders, and the rings together with the shared Rewinder and World
 * form a ShotScene, so the client predicts a shot with the server's own validateShot against
 * exactly what it rendered. Used by the browser client (web/) and the headless bots (client-sim/).
 *
 * A player may be absent from a snapshot and present again later: one that left, or an enemy the
 * server withholds (fog of war). The view draws and predicts only from what it received:
 * - absent from the newest snapshot: its received tail stays: it is drawn and a target at render
 *   times up to its last snapshot (dataUntilMs), not after (no pose is held past it), so the server
 *   can stop sending a player as soon as it is hidden from render times from then on, without the
 *   screen losing it while it still draws earlier times;
 * - present again: a new run begins at that snapshot (presentSinceMs), never joined to the old one:
 *   nothing is interpolated across the gap, and like a new life (epoch) it is drawn and can be hit
 *   only from the run's first snapshot on (an earlier render time predicts a miss on it); a backfill
 *   (backfill(): the server's poses of that life from before the snapshot, sent just ahead of it)
 *   begins the run at its first pose instead, so the enemy is drawn as soon as it is sent;
 * - renderPose draws a player only between two received snapshots of one epoch, exactly at one, or
 *   holding the newest while the newest snapshot still has it; never before the run, after its tail, across an
 *   epoch change, or older than the ring holds; and others never at a render time before this
 *   client's own life began (a join, a respawn: fog of war chose what it was sent before for where
 *   it was then).
 * The server judges every shot with its own history: a hit it finds on a player the client had no
 * data for is its verdict (the client takes it like any other).
 */
import { PlayerHistory, RecordResult, RewindStatus, createRewindPolicy, OutOfWindow, MAX_REWIND_WINDOW_MS, type RewindPolicy } from '../lagcomp/history';
import { Rewinder } from '../lagcomp/rewind';
import { VolumeRewinder } from '../lagcomp/rewindVolume';
import { createPlayerPose, type PlayerPose } from '../lagcomp/pose';
import type { World } from '../world/world';
import type { Rig } from '../rig/rig';
import type { ShotScene, ShotTargets } from '../validate/shot';
import { Snap, SNAP_STRIDE, type StateSnapshot } from './snapshot';
import { Bf, BF_STRIDE, BACKFILL_MAX_SAMPLES, type Backfill } from '../protocol/backfill';

export { ARENA_READER, Snap, SNAP_STRIDE, SnapshotPool, type SnapPlayer, type SnapshotReader, type StateSnapshot } from './snapshot';

export class MatchView implements ShotScene {
  readonly world: World;
  readonly rewinder: Rewinder;
  /** The volume queries over `rewinder`, for predicting melee swings. */
  readonly volumes: VolumeRewinder;
  readonly histories: PlayerHistory[] = [];
  readonly eyePolicy: RewindPolicy;
  readonly maxPlayers: number;
  /** Latest snapshot's per-slot numbers (what the bot knows "now"). */
  readonly latest: Float64Array;
  latestTick = -1;
  newestTimeMs = Number.NEGATIVE_INFINITY;
  snapshots = 0;
  /**
   * Player poses the rings refused (a number that is not finite, a rotation that is not one, a clip
   * that is not an index): a reader that leaves a field unset shows here, and that player cannot be
   * drawn or predicted.
   */
  refusedPoses = 0;
  /**
   * Per slot: epoch of the life seen, and the server time from which it is a target (its life
   * start): the first snapshot alive in that epoch within the current run, so never before data
   * this view received (+Infinity while absent or dead since the run began).
   */
  readonly epoch: Int32Array;
  readonly lifeStartMs: Float64Array;
  /** Per slot: server time of the first snapshot of its current (or, while absent, last) unbroken run of snapshots (+Infinity before any). */
  readonly presentSinceMs: Float64Array;
  /** Per slot: server time of the last snapshot of its run while absent from the newest (its tail's end; -Infinity once its slot went to another id); +Infinity while the newest has it. */
  readonly dataUntilMs: Float64Array;
  /** Targets as the pipeline wants them: alive now (latest snapshot, minus kills this client caused), their lives and teams. */
  readonly targets: ShotTargets;
  private readonly aliveNow: boolean[] = [];
  private readonly teams: number[] = [];
  private readonly pose = createPlayerPose();
  /**
   * Rendering may reach further back than the rewind window (the backtracking cheat draws old
   * poses): as far as the ring holds (renderPose refuses a clamped time).
   */
  private readonly renderPolicy: RewindPolicy = createRewindPolicy(MAX_REWIND_WINDOW_MS, OutOfWindow.CLAMP);
  /** Kills this bot's own confirmed hits caused, by slot -> epoch (cleared by a respawn). */
  private readonly killedEpoch: Int32Array;
  /**
   * The bot's own slot: its ring holds the bot's own predicted poses (OwnMovement records them), not
   * the server's snapshots, so a prediction's eye path is where the bot really shot from.
   */
  ownSlot = -1;
  /** Per slot, a backfill waiting for the next snapshot: its samples (a buffer made at the slot's first) and count (0: none). */
  private readonly pending: (Float64Array | undefined)[] = [];
  private readonly pendingCount: Int32Array;
  private pendingAny = false;
  /** Backfills taken into a run, and those dropped (the next snapshot did not begin a run of that slot, or no pose fit before it). */
  backfillsTaken = 0;
  backfillsDropped = 0;

  /** `reachMs`: the server's rewind reach (window plus the oldest action time), its eye and rewind policy. */
  constructor(world: World, rig: Rig, maxPlayers: number, reachMs: number, tickRate: number) {
    this.world = world;
    this.maxPlayers = maxPlayers;
    this.eyePolicy = createRewindPolicy(reachMs, OutOfWindow.CLAMP);
    this.rewinder = new Rewinder(rig, { policy: this.eyePolicy });
    this.volumes = new VolumeRewinder(this.rewinder);
    // The reach plus a second covers the interpolation delay and the backtracking cheats; own
    // predicted poses are recorded at the tick rate too.
    const cap = Math.min(4096, PlayerHistory.capacityFor(tickRate, reachMs + 1000) + 8);
    for (let i = 0; i < maxPlayers; i++) {
      this.histories.push(new PlayerHistory(cap));
      this.aliveNow.push(false);
      this.teams.push(-1);
    }
    this.latest = new Float64Array(maxPlayers * SNAP_STRIDE);
    this.epoch = new Int32Array(maxPlayers).fill(-1);
    this.lifeStartMs = new Float64Array(maxPlayers).fill(Number.POSITIVE_INFINITY);
    this.presentSinceMs = new Float64Array(maxPlayers).fill(Number.POSITIVE_INFINITY);
    this.dataUntilMs = new Float64Array(maxPlayers).fill(Number.POSITIVE_INFINITY);
    this.killedEpoch = new Int32Array(maxPlayers).fill(-1);
    this.pendingCount = new Int32Array(maxPlayers);
    this.targets = { alive: this.aliveNow, lifeStartMs: this.lifeStartMs, team: this.teams, dataUntilMs: this.dataUntilMs };
  }

  /**
   * An enemy's poses from before the next snapshot (Msg.BACKFILL, decoded): kept until that snapshot,
   * which begins the enemy's new run with them when it holds the enemy as a new run (else they are
   * dropped). One per enemy: a later backfill of the same enemy replaces an unused one.
   */
  backfill(b: Backfill): void {
    const s = b.slot;
    if (!(s >= 0 && s < this.maxPlayers && s !== this.ownSlot && b.count > 0 && b.count <= BACKFILL_MAX_SAMPLES)) return;
    if (this.pendingCount[s]! > 0) this.backfillsDropped++;
    const buf = this.pending[s] ?? (this.pending[s] = new Float64Array(BACKFILL_MAX_SAMPLES * BF_STRIDE));
    buf.set(b.samples.subarray(0, b.count * BF_STRIDE));
    this.pendingCount[s] = b.count;
    this.pendingAny = true;
  }

  /** Records a delivered snapshot into the rings. */
  apply(snap: StateSnapshot): void {
    if (!(snap.timeMs > this.newestTimeMs)) return; // a repeat of the same tick
    const pose = this.pose;
    const p = snap.players;
    for (let s = 0; s < this.maxPlayers; s++) {
      const o = s * SNAP_STRIDE;
      if (p[o + Snap.PRESENT] !== 1) {
        // Left or withheld: its tail ends at the snapshot before (a return starts a new run).
        if (this.latest[o + Snap.PRESENT] === 1) {
          this.dataUntilMs[s] = this.newestTimeMs;
          // Its own ring holds predicted poses, not received ones: nothing of it to keep.
          if (s === this.ownSlot) this.histories[s]!.clear();
        }
        if (p[o + Snap.OWNER] !== this.latest[o + Snap.OWNER]) {
          // Its slot went to another id (in a capture this view skipped as a repeat): the tail is not that id's.
          this.histories[s]!.clear();
          this.dataUntilMs[s] = Number.NEGATIVE_INFINITY;
        }
        continue;
      }
      if (this.latest[o + Snap.PRESENT] !== 1 || this.latest[o + Snap.RUN] !== p[o + Snap.RUN]) {
        // A new run: after an absence (one in a capture this view skipped as a repeat included), or another id in the slot.
        if (s !== this.ownSlot || this.latest[o + Snap.PRESENT] === 1) this.histories[s]!.clear();
        this.epoch[s] = -1;
        this.killedEpoch[s] = -1;
        this.presentSinceMs[s] = snap.timeMs;
        this.dataUntilMs[s] = Number.POSITIVE_INFINITY;
        if (this.pendingCount[s]! > 0) this.takeBackfill(s, snap);
      }
      const team = p[o + Snap.TEAM]!;
      this.teams[s] = team >= 0 ? team : -1;
      const epoch = p[o + Snap.EPOCH]!;
      const alive = p[o + Snap.ALIVE] === 1;
      if (epoch !== this.epoch[s]) {
        // A life (or a run: the epoch was -1 while absent) is a target from its first snapshot
        // alive: within a patch of the server's first tick of it, and the first this view holds of
        // one already under way when the run began (nothing earlier was received).
        this.epoch[s] = epoch;
        this.lifeStartMs[s] = Number.POSITIVE_INFINITY;
      }
      if (alive && this.lifeStartMs[s] === Number.POSITIVE_INFINITY) this.lifeStartMs[s] = snap.timeMs;
      this.aliveNow[s] = alive && this.killedEpoch[s] !== epoch;
      if (s === this.ownSlot) continue;
      pose.x = p[o + Snap.X]!; pose.y = p[o + Snap.Y]!; pose.z = p[o + Snap.Z]!;
      pose.qx = p[o + Snap.QX]!; pose.qy = p[o + Snap.QY]!; pose.qz = p[o + Snap.QZ]!; pose.qw = p[o + Snap.QW]!;
      pose.clip = p[o + Snap.CLIP]!; pose.time = p[o + Snap.TIME]!; pose.alive = alive; pose.epoch = epoch; pose.eyeHeight = p[o + Snap.EYE]!;
      if (this.histories[s]!.record(snap.tick, snap.timeMs, pose) !== RecordResult.OK) this.refusedPoses++;
    }
    if (this.pendingAny) {
      for (let s = 0; s < this.maxPlayers; s++) {
        if (this.pendingCount[s]! > 0) this.backfillsDropped++;
        this.pendingCount[s] = 0;
      }
      this.pendingAny = false;
    }
    this.latest.set(p);
    this.latestTick = snap.tick;
    this.newestTimeMs = snap.timeMs;
    this.snapshots++;
  }

  /**
   * Slot s begins a new run at `snap`: the pending backfill's poses of the snapshot's life, older
   * than it, go into the ring first; the run (and the life, from its first pose alive) begins at the
   * first of them. The epoch and life start are set here, so apply() keeps them for the snapshot.
   */
  private takeBackfill(s: number, snap: StateSnapshot): void {
    const b = this.pending[s]!, pose = this.pose, h = this.histories[s]!, o = s * SNAP_STRIDE;
    const epoch = snap.players[o + Snap.EPOCH]!;
    let taken = 0;
    for (let k = 0; k < this.pendingCount[s]!; k++) {
      const q = k * BF_STRIDE;
      if (b[q + Bf.EPOCH] !== epoch || !(b[q + Bf.TIME]! < snap.timeMs && b[q + Bf.TICK]! < snap.tick)) continue;
      pose.x = b[q + Bf.X]!; pose.y = b[q + Bf.Y]!; pose.z = b[q + Bf.Z]!;
      pose.qx = b[q + Bf.QX]!; pose.qy = b[q + Bf.QY]!; pose.qz = b[q + Bf.QZ]!; pose.qw = b[q + Bf.QW]!;
      pose.clip = b[q + Bf.CLIP]!; pose.time = b[q + Bf.ANIM]!; pose.alive = b[q + Bf.ALIVE] === 1; pose.epoch = epoch; pose.eyeHeight = b[q + Bf.EYE]!;
      // The server's history as recorded, its rotation already renormalised: kept bit for bit.
      if (h.record(b[q + Bf.TICK]!, b[q + Bf.TIME]!, pose, true) !== RecordResult.OK) continue;
      if (taken === 0) {
        this.presentSinceMs[s] = b[q + Bf.TIME]!;
        this.epoch[s] = epoch;
        this.lifeStartMs[s] = Number.POSITIVE_INFINITY;
      }
      if (pose.alive && this.lifeStartMs[s] === Number.POSITIVE_INFINITY) this.lifeStartMs[s] = b[q + Bf.TIME]!;
      taken++;
    }
    if (taken > 0) this.backfillsTaken++;
    else this.backfillsDropped++;
    this.pendingCount[s] = 0;
  }

  /**
   * The rings of the players whose current run of snapshots began at or before `timeMs` (others
   * undefined): what something flown from that time on may meet, as the shot pipeline's targets
   * are masked by lifeStartMs. Scratch, rewritten by the next call.
   */
  historiesFrom(timeMs: number): readonly (PlayerHistory | undefined)[] {
    const out = this.fromScratch;
    for (let s = 0; s < this.maxPlayers; s++) out[s] = (this.present(s) && this.presentSinceMs[s]! <= timeMs) || s === this.ownSlot ? this.histories[s] : undefined;
    return out;
  }
  private readonly fromScratch: (PlayerHistory | undefined)[] = [];

  /** This bot's hit killed `slot` (server said so): treat it as dead until its next life. */
  markKilled(slot: number): void {
    if (!(slot >= 0 && slot < this.maxPlayers) || !this.present(slot)) return; // a withheld victim: nothing drawn to mark
    this.killedEpoch[slot] = this.epoch[slot]!;
    this.aliveNow[slot] = false;
  }

  /** Whether this view holds `slot`'s data at server time `timeMs`: its run (current, or its tail while absent) begun by then and not ended before. */
  holdsAt(slot: number, timeMs: number): boolean {
    return this.presentSinceMs[slot]! <= timeMs && timeMs <= this.dataUntilMs[slot]!;
  }

  /**
   * Whether others are drawn at render time `timeMs`: not before this client's own current life
   * began (its first snapshot alive after joining or respawning). What the server sent of others
   * for earlier times was chosen for where this player was then (fog of war), not for the spot it
   * now sees from; its own slot is always drawn.
   */
  drawsOthersAt(slot: number, timeMs: number): boolean {
    const own = this.ownSlot;
    return own < 0 || slot === own || !(timeMs < this.lifeStartMs[own]!);
  }

  present(slot: number): boolean {
    return this.latest[slot * SNAP_STRIDE + Snap.PRESENT] === 1;
  }

  aliveLatest(slot: number): boolean {
    return this.aliveNow[slot] === true;
  }

  latestValue(slot: number, field: number): number {
    return this.latest[slot * SNAP_STRIDE + field]!;
  }

  /**
   * The pose of `slot` as rendered at server time `timeMs`, from received snapshots only (see the
   * module comment); false when there is none to draw (`out` may have been written).
   */
  renderPose(out: PlayerPose, slot: number, timeMs: number): boolean {
    const h = this.histories[slot];
    if (h === undefined || h.size() === 0 || !(timeMs <= this.dataUntilMs[slot]!) || !this.drawsOthersAt(slot, timeMs)) return false;
    const status = h.sampleAt(out, timeMs, this.renderPolicy);
    return status === RewindStatus.EXACT || status === RewindStatus.INTERPOLATED || status === RewindStatus.CLAMPED_NEW;
  }
}
