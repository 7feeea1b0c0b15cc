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
export const SNAP_STRIDE = 16;
export const Snap = {
  PRESENT: 0, X: 1, Y: 2, Z: 3, QX: 4, QY: 5, QZ: 6, QW: 7, CLIP: 8, TIME: 9, ALIVE: 10, EPOCH: 11, HEALTH: 12,
  VX: 13, VY: 14, VZ: 15,
} as const;

export interface StateSnapshot {
  tick: number;
  timeMs: number;
  /** maxPlayers * SNAP_STRIDE numbers. */
  players: Float64Array;
  /** The kill feed as pairs: victim slot, server ms of the death. */
  deaths: number[];
}

/** Copies what a bot needs out of the synced state (it mutates in place on the next patch). */
export function captureState(state: any, maxPlayers: number): StateSnapshot | null {
  if (state === undefined || state === null || state.players === undefined) return null;
  const players = new Float64Array(maxPlayers * SNAP_STRIDE);
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
  });
  const deaths: number[] = [];
  state.killFeed?.forEach((k: any) => { deaths.push(k.victim, k.timeMs); });
  return { tick: state.tick >>> 0, timeMs: state.serverTimeMs, players, deaths };
}

export class MatchView implements ShotScene {
  readonly world: World;
  readonly rewinder: Rewinder;
  readonly histories: PlayerHistory[] = [];
  readonly eyePolicy: RewindPolicy;
  readonly maxPlayers: number;
  /** Latest snapshot's per-slot numbers (what the bot knows "now"). */
  latest: Float64Array;
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

  constructor(world: World, rig: Rig, maxPlayers: number, windowMs: number, tickRate: number) {
    this.world = world;
    this.maxPlayers = maxPlayers;
    this.eyePolicy = createRewindPolicy(windowMs, OutOfWindow.CLAMP);
    this.rewinder = new Rewinder(rig, { policy: this.eyePolicy });
    // A second of history covers the window, the interpolation delay and the backtracking cheat.
    const cap = PlayerHistory.capacityFor(tickRate, 1000) + 8;
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
      pose.x = p[o + Snap.X]!; pose.y = p[o + Snap.Y]!; pose.z = p[o + Snap.Z]!;
      pose.qx = p[o + Snap.QX]!; pose.qy = p[o + Snap.QY]!; pose.qz = p[o + Snap.QZ]!; pose.qw = p[o + Snap.QW]!;
      pose.clip = p[o + Snap.CLIP]!; pose.time = p[o + Snap.TIME]!; pose.alive = alive; pose.epoch = epoch;
      this.histories[s]!.record(snap.tick, snap.timeMs, pose);
      this.aliveNow[s] = alive && this.killedEpoch[s] !== epoch;
    }
    this.latest = p;
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
