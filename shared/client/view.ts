/**
 * A predicting client's view of the match, built only from what it received: every state snapshot
 * is recorded into one PlayerHistory ring per slot, the same structure the server keeps. Sampling
 * a ring at the render time (server clock estimate minus the interpolation delay) is the
 * interpolated pose the client renders, and the rings together with the shared Rewinder and World
 * form a ShotScene, so the client predicts a shot with the server's own validateShot against
 * exactly what it rendered. Used by the browser client (web/) and the headless bots (client-sim/).
 */
import { PlayerHistory, createRewindPolicy, OutOfWindow, type RewindPolicy, rewindStatusUsable } from '../lagcomp/history';
import { Rewinder } from '../lagcomp/rewind';
import { createPlayerPose, type PlayerPose } from '../lagcomp/pose';
import type { World } from '../world/world';
import type { Rig } from '../rig/rig';
import type { ShotScene, ShotTargets } from '../validate/shot';

/** Numbers captured per player per snapshot. */
export const SNAP_STRIDE = 21;
export const Snap = {
  PRESENT: 0, X: 1, Y: 2, Z: 3, QX: 4, QY: 5, QZ: 6, QW: 7, CLIP: 8, TIME: 9, ALIVE: 10, EPOCH: 11, HEALTH: 12,
  VX: 13, VY: 14, VZ: 15,
  /** Weapon in hand, its rounds, reload end and draw end (server ms), the newest input seq applied. */
  WEAPON: 16, AMMO: 17, RELOAD_END: 18, DRAW_END: 19, INPUT_SEQ: 20,
} as const;

export interface StateSnapshot {
  tick: number;
  timeMs: number;
  /** maxPlayers * SNAP_STRIDE numbers. */
  players: Float64Array;
  /** The kill feed as pairs (victim slot, server ms of the death); `deathCount` pairs are valid. */
  deaths: Float64Array;
  deathCount: number;
  /** Held by a link queue (not yet applied); a pooled snapshot still in use is never handed out. */
  inUse: boolean;
}

function createSnapshot(maxPlayers: number): StateSnapshot {
  return { tick: 0, timeMs: 0, players: new Float64Array(maxPlayers * SNAP_STRIDE), deaths: new Float64Array(16), deathCount: 0, inUse: false };
}

/**
 * Snapshots for one bot, reused: a patch is copied out of the synced state (which mutates in place
 * on the next patch) into a pooled record that waits in the link's downstream queue until applied.
 * A record still queued (a long retransmission wait) is skipped and a fresh one made, so nothing
 * is overwritten while in flight; at the patch rate the pool is not allocated from in steady state.
 */
export class SnapshotPool {
  private readonly pool: StateSnapshot[] = [];
  private next = 0;

  constructor(private readonly maxPlayers: number, size = 128) {
    for (let i = 0; i < size; i++) this.pool.push(createSnapshot(maxPlayers));
  }

  /** Copies what a bot needs out of the synced state; null when it has no players yet. */
  capture(state: any): StateSnapshot | null {
    if (state === undefined || state === null || state.players === undefined) return null;
    let snap = this.pool[this.next]!;
    if (snap.inUse) {
      snap = createSnapshot(this.maxPlayers);
      this.pool[this.next] = snap;
    }
    this.next = (this.next + 1) % this.pool.length;
    snap.inUse = true;
    const players = snap.players;
    players.fill(0);
    const maxPlayers = this.maxPlayers;
    state.players.forEach((p: any) => {
      const s = p.slot;
      if (!(s >= 0 && s < maxPlayers)) return;
      const o = s * SNAP_STRIDE;
      players[o + Snap.PRESENT] = 1;
      players[o + Snap.X] = p.x; players[o + Snap.Y] = p.y; players[o + Snap.Z] = p.z;
      players[o + Snap.QX] = p.qx; players[o + Snap.QY] = p.qy; players[o + Snap.QZ] = p.qz; players[o + Snap.QW] = p.qw;
      players[o + Snap.CLIP] = p.clip; players[o + Snap.TIME] = p.animTime;
      players[o + Snap.ALIVE] = p.alive ? 1 : 0; players[o + Snap.EPOCH] = p.epoch; players[o + Snap.HEALTH] = p.health;
      players[o + Snap.VX] = p.viewX; players[o + Snap.VY] = p.viewY; players[o + Snap.VZ] = p.viewZ;
      players[o + Snap.WEAPON] = p.weapon; players[o + Snap.AMMO] = p.ammo; players[o + Snap.RELOAD_END] = p.reloadEndMs;
      players[o + Snap.DRAW_END] = p.drawEndMs; players[o + Snap.INPUT_SEQ] = p.inputSeq;
    });
    let n = 0;
    state.killFeed?.forEach((k: any) => {
      if (2 * n + 2 > snap.deaths.length) {
        const grown = new Float64Array(snap.deaths.length * 2);
        grown.set(snap.deaths);
        snap.deaths = grown;
      }
      snap.deaths[2 * n] = k.victim;
      snap.deaths[2 * n + 1] = k.timeMs;
      n++;
    });
    snap.deathCount = n;
    snap.tick = state.tick >>> 0;
    snap.timeMs = state.serverTimeMs;
    return snap;
  }
}

export class MatchView implements ShotScene {
  readonly world: World;
  readonly rewinder: Rewinder;
  readonly histories: PlayerHistory[] = [];
  readonly eyePolicy: RewindPolicy;
  readonly maxPlayers: number;
  /** Latest snapshot's per-slot numbers (what the bot knows "now"). */
  readonly latest: Float64Array;
  latestTick = -1;
  newestTimeMs = Number.NEGATIVE_INFINITY;
  snapshots = 0;
  /** Per slot: epoch of the life seen and the server time of its first snapshot (life start). */
  readonly epoch: Int32Array;
  readonly lifeStartMs: Float64Array;
  /** Targets as the pipeline wants them: alive now (latest snapshot, minus kills this bot caused). */
  readonly targets: ShotTargets;
  private readonly aliveNow: boolean[] = [];
  private readonly pose = createPlayerPose();
  /** Rendering may reach further back than the rewind window (the backtracking cheat draws old poses). */
  private readonly renderPolicy: RewindPolicy = createRewindPolicy(1000, OutOfWindow.CLAMP);
  /** Kills this bot's own confirmed hits caused, by slot -> epoch (cleared by a respawn). */
  private readonly killedEpoch: Int32Array;
  /**
   * The bot's own slot: its ring holds the bot's own predicted poses (OwnMovement records them), not
   * the server's snapshots, so a prediction's eye path is where the bot really shot from.
   */
  ownSlot = -1;

  /** `reachMs`: the server's rewind reach (window plus the oldest action time), its eye and rewind policy. */
  constructor(world: World, rig: Rig, maxPlayers: number, reachMs: number, tickRate: number) {
    this.world = world;
    this.maxPlayers = maxPlayers;
    this.eyePolicy = createRewindPolicy(reachMs, OutOfWindow.CLAMP);
    this.rewinder = new Rewinder(rig, { policy: this.eyePolicy });
    // The reach plus a second covers the interpolation delay and the backtracking cheats; own
    // predicted poses are recorded at the tick rate too.
    const cap = Math.min(4096, PlayerHistory.capacityFor(tickRate, reachMs + 1000) + 8);
    for (let i = 0; i < maxPlayers; i++) {
      this.histories.push(new PlayerHistory(cap));
      this.aliveNow.push(false);
    }
    this.latest = new Float64Array(maxPlayers * SNAP_STRIDE);
    this.epoch = new Int32Array(maxPlayers).fill(-1);
    this.lifeStartMs = new Float64Array(maxPlayers).fill(Number.POSITIVE_INFINITY);
    this.killedEpoch = new Int32Array(maxPlayers).fill(-1);
    this.targets = { alive: this.aliveNow, lifeStartMs: this.lifeStartMs };
  }

  /** Records a delivered snapshot into the rings. */
  apply(snap: StateSnapshot): void {
    if (!(snap.timeMs > this.newestTimeMs)) return; // a repeat of the same tick
    const pose = this.pose;
    const p = snap.players;
    for (let s = 0; s < this.maxPlayers; s++) {
      const o = s * SNAP_STRIDE;
      if (p[o + Snap.PRESENT] !== 1) {
        if (this.latest[o + Snap.PRESENT] === 1) this.histories[s]!.clear(); // left: forget them
        this.aliveNow[s] = false;
        this.epoch[s] = -1;
        continue;
      }
      const epoch = p[o + Snap.EPOCH]!;
      const alive = p[o + Snap.ALIVE] === 1;
      if (epoch !== this.epoch[s]) {
        // A life this view saw begin starts at its first snapshot (within a patch of the server's
        // first tick of it); one already under way when this view started began at an unknown time.
        const known = this.epoch[s] !== -1 || this.snapshots > 0;
        this.epoch[s] = epoch;
        this.lifeStartMs[s] = known ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
      }
      if (alive && this.lifeStartMs[s] === Number.POSITIVE_INFINITY) this.lifeStartMs[s] = snap.timeMs;
      this.aliveNow[s] = alive && this.killedEpoch[s] !== epoch;
      if (s === this.ownSlot) continue;
      pose.x = p[o + Snap.X]!; pose.y = p[o + Snap.Y]!; pose.z = p[o + Snap.Z]!;
      pose.qx = p[o + Snap.QX]!; pose.qy = p[o + Snap.QY]!; pose.qz = p[o + Snap.QZ]!; pose.qw = p[o + Snap.QW]!;
      pose.clip = p[o + Snap.CLIP]!; pose.time = p[o + Snap.TIME]!; pose.alive = alive; pose.epoch = epoch;
      this.histories[s]!.record(snap.tick, snap.timeMs, pose);
    }
    this.latest.set(p);
    this.latestTick = snap.tick;
    this.newestTimeMs = snap.timeMs;
    this.snapshots++;
  }

  /** This bot's hit killed `slot` (server said so): treat it as dead until its next life. */
  markKilled(slot: number): void {
    if (slot < 0 || slot >= this.maxPlayers) return;
    this.killedEpoch[slot] = this.epoch[slot]!;
    this.aliveNow[slot] = false;
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

  /** The pose of `slot` as rendered at server time `timeMs` (interpolated from the ring); false if none. */
  renderPose(out: PlayerPose, slot: number, timeMs: number): boolean {
    const h = this.histories[slot];
    if (h === undefined || h.size() === 0) return false;
    return rewindStatusUsable(h.sampleAt(out, timeMs, this.renderPolicy));
  }
}
