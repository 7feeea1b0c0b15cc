/**
 * A headless player over a real WebSocket (@colyseus/sdk in Node): it answers the room's pings and
 * keeps the server clock, records every state snapshot into its own view (view.ts), walks the level
 * with movement inputs (the server moves it; the bot only checks the ground ahead with
 * world.groundHeight and keeps a third-person camera out of walls with world.cameraPushBack), picks
 * a visible target in what it renders (line of sight with world.anyHit), reacts after a human delay,
 * aims with human-like noise and shoots. Every shot is predicted first with the shared validateShot
 * against the bot's own interpolated view, and the prediction is kept by sequence number until the
 * server's verdict for the same number comes back.
 *
 * All traffic goes through the bot's Link (net.ts): seeded round trip, jitter and send loss.
 * A profile (cheats/) may take over the trigger; the honest profile is this file's default.
 */
import { Client, type Room } from '@colyseus/sdk';
import { Msg, ROOM_NAME, type VerdictReply, type HitReply, type DamagedReply, type RejectReply } from '../shared/protocol/messages';
import { createPingMessage, decodePing, ServerClockEstimate } from '../shared/protocol/ping';
import { createShotMessage, encodeShot, SHOT_BYTES, type ShotMessage } from '../shared/protocol/shot';
import { createInputMessage, encodeInput, INPUT_BYTES } from '../shared/protocol/input';
import { validateShot, type ValidationConfig, type ShotTiming } from '../shared/validate/shot';
import { createVerdict, createShooterState, reasonName, VerdictKind, VerdictReason, type ShooterState } from '../shared/validate/verdict';
import { createPlayerPose, type PlayerPose } from '../shared/lagcomp/pose';
import { BONE_STRIDE, HitZone, type Rig } from '../shared/rig/rig';
import { transformPoint } from '../shared/rig/posing';
import { WeaponId, weaponById, type WeaponSpec } from '../shared/weapons';
import { createWorldHit, type World } from '../shared/world/world';
import { Link, type NetConditions } from './net';
import { Rng } from './rng';
import { captureState, MatchView, Snap, type StateSnapshot } from './view';

/** What a shot was meant to be, for the report. */
export const Intent = {
  /** An honest player's shot: must be accepted, and the prediction must agree. */
  HONEST: 'honest',
  /** A cheater's ordinary shot (between cheats): valid, not counted as honest. */
  VALID: 'valid',
  /** A cheat the server must reject. */
  INVALID: 'invalid',
  /** Instant perfect aim: valid geometry, counted apart and left to the audit. */
  AIM_SNAP: 'aimSnap',
} as const;
export type Intent = (typeof Intent)[keyof typeof Intent];

/** One shot as the bot saw it: its prediction and, once it arrives, the server's verdict. */
export interface ShotLog {
  bot: number;
  /** Room and slot the shot was sent from. */
  roomId: string;
  slot: number;
  profile: string;
  intent: Intent;
  /** For INVALID shots: the reason the cheat should be rejected with. */
  expected: string | null;
  seq: number;
  /** Local ms when the shot was handed to the link. */
  sentAt: number;
  /** The link dropped it (no verdict will come). */
  dropped: boolean;
  /** The payload as sent (the replay cheat resends it). */
  bytes: Uint8Array;
  /** The bot knew it was dead when it fired (only the dead-shooter cheat does this). */
  deadKnown: boolean;
  predictedKind: number;
  predictedReason: string;
  predictedTarget: number;
  predictedZone: number;
  verdict: VerdictReply | null;
  verdictAt: number;
  /** The bot learned of its own death after sending this shot and before its verdict came back. */
  diedInFlight: boolean;
  /** Claimed render time and the bot's estimate of the server clock at sending, server ms. */
  renderTimeMs: number;
  sentServerMs: number;
  /** The round trip the bot assumed, ms. */
  rttMs: number;
  /** Set by the simulator: the predicted target died on the server between the render time and the shot's arrival. */
  targetDiedInFlight: boolean;
  /** Set by the simulator: the bot fired knowing it was dead, but had respawned on the server by the time the shot arrived. */
  respawnedInFlight: boolean;
}

export interface BotOptions {
  index: number;
  url: string;
  /** Join this room id, else join or create an `arena` room. */
  roomId?: string;
  name: string;
  net: NetConditions;
  seed: number;
  world: World;
  rig: Rig;
  validation: ValidationConfig;
  tickRate: number;
  /** Interpolation delay the bot declares and renders at, ms. */
  interpDelayMs: number;
  /** Frame interval (inputs, aim, trigger), ms. */
  frameMs?: number;
  onShot?: (log: ShotLog) => void;
  /** Called with every kill-feed entry the bot sees (victim slot, server ms); the simulator dedupes. */
  onDeath?: (victim: number, timeMs: number) => void;
}

/** A cheat profile: called every frame while connected; returns true when it handled the trigger. */
export interface Profile {
  readonly name: string;
  frame(bot: Bot, now: number): boolean;
}

// Eye-to-chest aim picks the upper torso mostly, sometimes the head, as players do.
const HEAD_AIM_P = 0.15;
/** Fastest view turn toward a target, radians per second (~170 degrees/s: a brisk human turn). */
const TURN_RATE = 3;
/** View turn while just walking around (looking where one goes), radians per second. */
const WANDER_TURN_RATE = 1.5;
/** The trigger is pulled only when the view is this close to the aim point, radians (~3 degrees). */
const ON_TARGET = 0.05;

export class Bot {
  readonly index: number;
  readonly opts: BotOptions;
  readonly rng: Rng;
  readonly link: Link;
  readonly clock = new ServerClockEstimate();
  view: MatchView;
  room: Room | null = null;
  slot = -1;
  profile: Profile | null = null;
  readonly shots: ShotLog[] = [];
  /** Pending predictions by seq (a replayed seq may have several, in send order). */
  private readonly pending = new Map<number, ShotLog[]>();
  seq = 0;
  /** Server's round-trip estimate for this bot (carried by its pings), ms. */
  rttMs = 0;
  /** Local ms when this bot learned it died (DAMAGED with health 0), -1 while alive. */
  deadSince = -1;
  private ownEpoch = -1;
  cameraPushes = 0;
  /** Non-shot messages (inputs, pongs) the room refused, by reason: an honest client should have none. */
  readonly rejects: Record<string, number> = {};
  /** Frames the trigger was held because the render time was past the newest snapshot. */
  starved = 0;
  frames = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;
  private shooting = false;

  // movement
  private wishX = 0;
  private wishZ = 0;
  private nextTurnAt = 0;
  private homeX = 0;
  private homeZ = 0;
  private homeSet = false;
  private inputSeq = 0;
  /** The view direction sent with inputs; it turns toward the wanted direction at a human rate. */
  viewX = 0;
  viewY = 0;
  viewZ = 1;
  private wantX = 0;
  private wantY = 0;
  private wantZ = 1;
  private lastFrameAt = -1;

  // engagement
  private target = -1;
  private readyAt = 0;
  private acquiredAt = 0;
  private aimErrX = 0;
  private aimErrY = 0;
  private aimErrZ = 0;
  nextShotAt = 0;
  private pendingDamage: Float64Array;

  // magazine, counted from verdicts (the server's truth) so a lost shot never desynchronises it
  private firedSinceReload = 0;
  private inFlight = 0;
  private reloadUntil = 0;

  // scratch
  private readonly pose: PlayerPose = createPlayerPose();
  private readonly bones: Float64Array;
  private readonly pt = new Float64Array(3);
  private readonly cam = new Float64Array(3);
  private readonly camLines = new Float64Array([0.3, 0, 0, 0, 0.3, 0, 0, 0, 0.3]);
  private readonly hit = createWorldHit();
  private readonly shotBuf = new Uint8Array(SHOT_BYTES);
  private readonly inputBuf = new Uint8Array(INPUT_BYTES);
  private readonly input = createInputMessage();
  private readonly pingMsg = createPingMessage();
  private readonly predicted = createVerdict();
  private readonly shooter: ShooterState;
  private readonly timing: ShotTiming = { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0 };
  /** Bone-local centroid of each hitbox (an aim point inside it). */
  private readonly centroids: Float64Array;
  private readonly zoneHitbox = new Map<number, number>();

  constructor(opts: BotOptions) {
    this.index = opts.index;
    this.opts = opts;
    this.rng = new Rng(opts.seed);
    this.link = new Link(opts.net, this.rng.fork(1));
    const v = opts.validation;
    this.view = new MatchView(opts.world, opts.rig, v.maxPlayers, v.rewindWindowMs, opts.tickRate);
    this.pendingDamage = new Float64Array(v.maxPlayers);
    const rig = opts.rig;
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    this.centroids = new Float64Array(rig.hitboxCount * 3);
    for (let h = 0; h < rig.hitboxCount; h++) {
      let x = 0, y = 0, z = 0, n = 0;
      for (let t = rig.triStart[h]!; t < rig.triStart[h + 1]!; t++) {
        for (let k = 0; k < 3; k++) {
          x += rig.triangles[t * 9 + k * 3]!; y += rig.triangles[t * 9 + k * 3 + 1]!; z += rig.triangles[t * 9 + k * 3 + 2]!;
          n++;
        }
      }
      this.centroids[h * 3] = x / n; this.centroids[h * 3 + 1] = y / n; this.centroids[h * 3 + 2] = z / n;
      if (!this.zoneHitbox.has(rig.hitboxZone[h]!)) this.zoneHitbox.set(rig.hitboxZone[h]!, h);
    }
    this.shooter = createShooterState(-1, v.weapons.map(() => 1 << 20));
  }

  get now(): number {
    return performance.now();
  }

  async connect(): Promise<void> {
    const o = this.opts;
    const client = new Client(o.url);
    const options = { name: o.name, interpDelayMs: o.interpDelayMs };
    const room = o.roomId !== undefined ? await client.joinById(o.roomId, options) : await client.joinOrCreate(ROOM_NAME, options);
    this.room = room;
    const maxPlayers = o.validation.maxPlayers;
    room.onMessage(Msg.PING, (bytes: Uint8Array) => {
      const copy = new Uint8Array(bytes);
      this.link.receive(() => {
        if (decodePing(this.pingMsg, copy) !== 0) return;
        this.clock.onPing(this.pingMsg, this.now);
        if (this.pingMsg.rttMs > 0) this.rttMs = this.pingMsg.rttMs;
        this.link.send(() => this.rawSend(Msg.PONG, copy));
      });
    });
    // The rules, world and rig come from the simulator's own copies (in-process or the same files).
    room.onMessage(Msg.WELCOME, () => {});
    room.onMessage(Msg.VERDICT, (v: VerdictReply) => this.link.receive(() => this.onVerdict(v)));
    room.onMessage(Msg.HIT, (v: HitReply) => this.link.receive(() => this.onHit(v)));
    room.onMessage(Msg.DAMAGED, (v: DamagedReply) => this.link.receive(() => this.onDamaged(v)));
    room.onMessage(Msg.REJECT, (r: RejectReply) => this.link.receive(() => {
      this.rejects[r.reason] = (this.rejects[r.reason] ?? 0) + 1;
    }));
    room.onStateChange((state: any) => {
      if (this.slot < 0) {
        const me = state.players?.get(room.sessionId);
        if (me !== undefined) this.slot = me.slot;
      }
      const snap = captureState(state, maxPlayers);
      if (snap !== null) this.link.receive(() => this.onSnapshot(snap));
    });
    this.timer = setInterval(() => this.safeFrame(), o.frameMs ?? 16);
  }

  private rawSend(type: string, bytes: Uint8Array): void {
    if (this.closed || this.room === null) return;
    try {
      this.room.sendBytes(type, bytes);
    } catch {
      // the socket closed while the message was on its way: nothing to deliver
    }
  }

  private onSnapshot(snap: StateSnapshot): void {
    this.view.apply(snap);
    if (this.opts.onDeath !== undefined) for (let i = 0; i < snap.deaths.length; i += 2) this.opts.onDeath(snap.deaths[i]!, snap.deaths[i + 1]!);
    if (this.slot < 0) return;
    const epoch = this.view.latestValue(this.slot, Snap.EPOCH);
    if (epoch !== this.ownEpoch && this.view.present(this.slot)) {
      // A new life: full magazines on the server, no death known.
      if (this.view.latestValue(this.slot, Snap.ALIVE) === 1) {
        this.ownEpoch = epoch;
        this.deadSince = -1;
        this.firedSinceReload = 0;
        this.reloadUntil = 0;
        if (!this.homeSet) {
          this.homeX = this.view.latestValue(this.slot, Snap.X);
          this.homeZ = this.view.latestValue(this.slot, Snap.Z);
          this.homeSet = true;
        }
      }
    }
    if (this.view.latestValue(this.slot, Snap.ALIVE) === 0 && this.deadSince < 0 && this.view.present(this.slot)) this.deadSince = this.now;
    for (let s = 0; s < this.pendingDamage.length; s++) if (!this.view.aliveLatest(s)) this.pendingDamage[s] = 0;
  }

  private onVerdict(v: VerdictReply): void {
    const list = this.pending.get(v.seq);
    const log = list?.shift();
    if (list !== undefined && list.length === 0) this.pending.delete(v.seq);
    if (log === undefined) return;
    log.verdict = v;
    log.verdictAt = this.now;
    log.diedInFlight = this.deadSince >= 0 && this.deadSince > log.sentAt;
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (log.intent !== Intent.INVALID && log.predictedKind === VerdictKind.HIT && log.predictedTarget >= 0) {
      this.pendingDamage[log.predictedTarget] = Math.max(0, this.pendingDamage[log.predictedTarget]! - this.damageOf(log));
    }
    // Rounds are used by every shot that passes the rule and claim checks (hits, misses, wall shots).
    const fired = v.kind !== VerdictKind.REJECTED || v.reason === VerdictReason.OCCLUDED;
    if (fired) {
      this.firedSinceReload++;
      const weapon = this.weapon();
      if (this.firedSinceReload >= weapon.magazine) {
        // The server started the reload when it received this shot (about a one-way trip ago).
        this.reloadUntil = this.now + weapon.reloadMs + 50;
        this.firedSinceReload = 0;
      }
    }
  }

  private damageOf(log: ShotLog): number {
    const w = this.weapon();
    const table = w.zoneMultipliers ?? this.opts.validation.zoneMultipliers;
    return w.damage * (table[log.predictedZone] ?? 1);
  }

  private onHit(h: HitReply): void {
    if (h.killed) this.view.markKilled(h.target);
  }

  private onDamaged(d: DamagedReply): void {
    if (d.health <= 0 && this.deadSince < 0) this.deadSince = this.now;
  }

  weapon(): WeaponSpec {
    return weaponById(this.opts.validation.weapons, WeaponId.RIFLE)!;
  }

  /** Segment length of an honest shot: just inside the weapon's range (the length is computed in floating point). */
  shotLength(): number {
    return this.weapon().rangeM * 0.999;
  }

  /** The server time this bot renders others at. */
  renderTime(now: number): number {
    return this.clock.serverNow(now) - this.opts.interpDelayMs;
  }

  /** True when the bot is in the room, synced, and has a picture of the match. */
  ready(): boolean {
    return this.slot >= 0 && this.clock.measured >= 3 && this.view.snapshots >= 4 && this.view.present(this.slot) && this.rttMs > 0;
  }

  /** The bot believes it is alive (the server may know better). */
  aliveKnown(): boolean {
    return this.deadSince < 0 && this.view.latestValue(this.slot, Snap.ALIVE) === 1;
  }

  /** Eye position from the newest snapshot of itself, into out. */
  eye(out: Float64Array): Float64Array {
    out[0] = this.view.latestValue(this.slot, Snap.X);
    out[1] = this.view.latestValue(this.slot, Snap.Y) + this.opts.rig.eyeHeight;
    out[2] = this.view.latestValue(this.slot, Snap.Z);
    return out;
  }

  /** World point inside `slot`'s hitbox of `zone` at render time `t`; false when not renderable or dead there. */
  zonePoint(out: Float64Array, slot: number, t: number, zone: number): boolean {
    if (!this.view.renderPose(this.pose, slot, t) || !this.pose.alive) return false;
    const h = this.zoneHitbox.get(zone) ?? 0;
    this.view.rewinder.poseBones(this.bones, this.pose);
    transformPoint(out, 0, this.bones, h * BONE_STRIDE, this.centroids[h * 3]!, this.centroids[h * 3 + 1]!, this.centroids[h * 3 + 2]!);
    return true;
  }

  /**
   * Nearest other player rendered alive at time t whose chest is (visible = true) or is not
   * (visible = false) in line of sight from `eye`, within maxDist. -1 when none.
   */
  findTarget(eye: Float64Array, t: number, visible: boolean, maxDist: number, skipDoomed = true): number {
    let best = -1;
    let bestD = maxDist * maxDist;
    const p = this.pt;
    for (let s = 0; s < this.view.maxPlayers; s++) {
      if (s === this.slot || !this.view.present(s) || !this.view.aliveLatest(s)) continue;
      if (skipDoomed && this.view.latestValue(s, Snap.HEALTH) - this.pendingDamage[s]! <= 0) continue;
      if (!this.zonePoint(p, s, t, HitZone.UPPER_TORSO)) continue;
      const dx = p[0]! - eye[0]!, dy = p[1]! - eye[1]!, dz = p[2]! - eye[2]!;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 >= bestD) continue;
      const blocked = this.opts.world.anyHit(eye[0]!, eye[1]!, eye[2]!, p[0]!, p[1]!, p[2]!);
      if (blocked === visible) continue;
      best = s;
      bestD = d2;
    }
    return best;
  }

  /**
   * A shot message from `eye` through `point`, `length` metres long. With `clip` (honest clients) the
   * segment stops where the bullet meets the world, a few centimetres into the surface so the server
   * finds the same impact for the bullet hole: a player behind that wall is never on the segment.
   * Without it the segment runs its full length through whatever is in the way (the wall-shot cheat).
   */
  makeShot(eye: Float64Array, px: number, py: number, pz: number, length: number, renderTimeMs: number, claimedTarget = -1, clip = true): ShotMessage {
    const dx = px - eye[0]!, dy = py - eye[1]!, dz = pz - eye[2]!;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz) || 1;
    const ux = dx / l, uy = dy / l, uz = dz / l;
    let len = length;
    if (clip && this.opts.world.firstHit(this.hit, eye[0]!, eye[1]!, eye[2]!, eye[0]! + ux * length, eye[1]! + uy * length, eye[2]! + uz * length)) {
      len = Math.min(length, this.hit.t * length + 0.05);
    }
    const shot = createShotMessage();
    shot.weapon = WeaponId.RIFLE;
    shot.claimedTarget = claimedTarget;
    shot.seq = ++this.seq;
    shot.timeMs = this.clock.stamp(this.now);
    shot.renderTimeMs = renderTimeMs;
    shot.sx = eye[0]!; shot.sy = eye[1]!; shot.sz = eye[2]!;
    shot.ex = eye[0]! + ux * len; shot.ey = eye[1]! + uy * len; shot.ez = eye[2]! + uz * len;
    return shot;
  }

  /**
   * Predicts `bytes` with the shared pipeline against this bot's view: the arrival is expected half a
   * round trip from now, and the bot's own rules state is assumed fine (it tracks fire rate and
   * magazine itself). Returns the predicted verdict (scratch, valid until the next call).
   */
  predict(bytes: Uint8Array, now: number) {
    const timing = this.timing;
    const serverNow = this.clock.serverNow(now);
    timing.rttMs = this.rttMs;
    timing.receiveTimeMs = serverNow + this.rttMs / 2;
    timing.interpDelayMs = this.opts.interpDelayMs;
    timing.newestTickMs = this.view.newestTimeMs;
    const st = this.shooter;
    st.slot = this.slot;
    st.alive = true;
    st.lastSeq = -1;
    st.lastActionMs = Number.NEGATIVE_INFINITY;
    st.nextFireMs = Number.NEGATIVE_INFINITY;
    st.equipped = WeaponId.RIFLE;
    st.drawEndMs = Number.NEGATIVE_INFINITY;
    return validateShot(this.predicted, this.view, this.opts.validation, bytes, st, timing, this.view.targets);
  }

  /** Encodes, predicts, logs and sends a shot (through the link). Returns the log. */
  fire(shot: ShotMessage | null, intent: Intent, expected: string | null = null, bytesOverride?: Uint8Array): ShotLog {
    const now = this.now;
    if (shot === null && bytesOverride === undefined) throw new Error('fire: pass a shot or the bytes to send');
    const bytes = bytesOverride ?? encodeShot(this.shotBuf, shot!);
    const p = this.predict(bytes, now);
    const seq = bytesOverride !== undefined ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true) : shot!.seq;
    const copy = bytes.slice();
    const log: ShotLog = {
      bot: this.index, roomId: this.room?.roomId ?? '', slot: this.slot, profile: this.profile?.name ?? 'honest', intent, expected, seq, sentAt: now, dropped: false, bytes: copy,
      deadKnown: !this.aliveKnown(), predictedKind: p.kind, predictedReason: reasonName(p.reason), predictedTarget: p.target,
      predictedZone: p.zone, verdict: null, verdictAt: -1, diedInFlight: false,
      renderTimeMs: new DataView(bytes.buffer, bytes.byteOffset).getFloat64(24, true), sentServerMs: this.clock.serverNow(now), rttMs: this.rttMs,
      targetDiedInFlight: false, respawnedInFlight: false,
    };
    this.inFlight++;
    if (intent !== Intent.INVALID) {
      if (p.kind === VerdictKind.HIT && p.target >= 0) this.pendingDamage[p.target]! += this.damageOf(log);
    }
    const list = this.pending.get(seq);
    if (list === undefined) this.pending.set(seq, [log]);
    else list.push(log);
    log.dropped = !this.link.send(() => this.rawSend(Msg.SHOT, copy));
    if (log.dropped) {
      // The bot cannot know; it notices when no verdict comes. Book-keeping only.
      this.pending.get(seq)?.pop();
      this.lostLater(log);
    }
    this.shots.push(log);
    this.opts.onShot?.(log);
    return log;
  }

  /** A lost shot frees its magazine slot after a timeout, as a client would assume. */
  private lostLater(log: ShotLog): void {
    setTimeout(() => {
      this.inFlight = Math.max(0, this.inFlight - 1);
      if (log.intent !== Intent.INVALID && log.predictedKind === VerdictKind.HIT && log.predictedTarget >= 0) {
        this.pendingDamage[log.predictedTarget] = Math.max(0, this.pendingDamage[log.predictedTarget]! - this.damageOf(log));
      }
    }, 1000).unref?.();
  }

  /** Whether an honest trigger pull is allowed now (fire interval with jitter margin, magazine). */
  canFire(now: number): boolean {
    const w = this.weapon();
    return now >= this.nextShotAt && now >= this.reloadUntil && this.firedSinceReload + this.inFlight < w.magazine;
  }

  /** Books an honest shot's fire time: the weapon interval plus twice the jitter (arrivals bunch), plus a human tap cadence. */
  bookShot(now: number, minIntervalMs?: number): void {
    const w = this.weapon();
    const floor = w.fireIntervalMs + 2 * this.opts.net.jitterMs + 10;
    const tap = minIntervalMs ?? Math.max(floor, 180 + 60 * Math.abs(this.rng.normal()));
    this.nextShotAt = now + Math.max(floor, tap);
  }

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

  private frame(): void {
    if (!this.ready()) return;
    this.frames++;
    const now = this.now;
    const dt = this.lastFrameAt < 0 ? 0 : Math.min(100, now - this.lastFrameAt);
    this.lastFrameAt = now;
    const eye = this.eye(new Float64Array(3));
    this.turn(dt);
    this.move(now, eye);
    const handled = !this.shooting || (this.profile !== null && this.profile.frame(this, now));
    if (!handled) this.honestTrigger(now, eye, this.profile === null ? Intent.HONEST : Intent.VALID);
    this.sendInput();
    this.updateCamera(eye);
  }

  /** The honest trigger: nearest visible target, reaction time, noisy aim, tap cadence. */
  honestTrigger(now: number, eye: Float64Array, intent: Intent): void {
    if (!this.aliveKnown()) {
      this.target = -1;
      return;
    }
    const t = this.renderTime(now);
    const target = this.findTarget(eye, t, true, 60);
    if (target !== this.target) {
      this.target = target;
      this.acquiredAt = now;
      // Human reaction: ~230 ms, rarely under 150 ms.
      this.readyAt = now + Math.min(450, Math.max(150, 230 + 50 * this.rng.normal()));
      // The first aim is off by up to about half a metre and converges while tracking.
      this.aimErrX = 0.25 * this.rng.normal();
      this.aimErrY = 0.25 * this.rng.normal();
      this.aimErrZ = 0.25 * this.rng.normal();
    }
    if (target < 0) return;
    // Nothing buffered at the render time yet (the clock or the stream is behind): hold fire, as
    // a client that would otherwise have to extrapolate what it shows.
    if (t > this.view.newestTimeMs) {
      this.starved++;
      return;
    }
    const p = this.pt;
    const zone = this.rng.next() < HEAD_AIM_P ? HitZone.HEAD : HitZone.UPPER_TORSO;
    if (!this.zonePoint(p, target, t, zone)) return;
    const dx = p[0]! - eye[0]!, dy = p[1]! - eye[1]!, dz = p[2]! - eye[2]!;
    const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    this.lookAt(dx, dy, dz);
    if (now < this.readyAt || !this.canFire(now) || this.aimError() > ON_TARGET) return;
    const decay = Math.exp(-(now - this.acquiredAt) / 300);
    const sigma = 0.1 + 0.01 * dist; // residual hand noise, about 0.6 degrees
    const ax = p[0]! + decay * this.aimErrX + sigma * this.rng.normal();
    const ay = p[1]! + decay * this.aimErrY + sigma * this.rng.normal();
    const az = p[2]! + decay * this.aimErrZ + sigma * this.rng.normal();
    const shot = this.makeShot(eye, ax, ay, az, this.shotLength(), t);
    this.fire(shot, intent);
    this.bookShot(now);
  }

  /** Sets the direction to turn the view toward (the view follows at TURN_RATE). */
  lookAt(dx: number, dy: number, dz: number): void {
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 1e-6)) return;
    this.wantX = dx / l; this.wantY = dy / l; this.wantZ = dz / l;
  }

  /** Angle between the view and the wanted direction, radians. */
  aimError(): number {
    const d = this.viewX * this.wantX + this.viewY * this.wantY + this.viewZ * this.wantZ;
    return Math.acos(Math.max(-1, Math.min(1, d)));
  }

  /**
   * Turns the view toward the wanted direction by at most TURN_RATE * dt (a flick, not a teleport:
   * the body's yaw follows the view, and a snap between two ticks would make the snapshots the
   * others interpolate differ from the server's history more than any human turn does).
   */
  private turn(dtMs: number): void {
    const angle = this.aimError();
    const maxStep = (this.target >= 0 ? TURN_RATE : WANDER_TURN_RATE) * (dtMs / 1000);
    if (angle <= maxStep || angle < 1e-6) {
      this.viewX = this.wantX; this.viewY = this.wantY; this.viewZ = this.wantZ;
      return;
    }
    // slerp by maxStep / angle
    const f = maxStep / angle;
    const sa = Math.sin(angle);
    const a = Math.sin((1 - f) * angle) / sa, b = Math.sin(f * angle) / sa;
    let x = a * this.viewX + b * this.wantX, y = a * this.viewY + b * this.wantY, z = a * this.viewZ + b * this.wantZ;
    const l = Math.sqrt(x * x + y * y + z * z) || 1;
    x /= l; y /= l; z /= l;
    this.viewX = x; this.viewY = y; this.viewZ = z;
  }

  /** Wander near home: turn when the ground ahead ends or a wall is close, or every few seconds. */
  private move(now: number, eye: Float64Array): void {
    const world = this.opts.world;
    const x = eye[0]!, z = eye[2]!;
    const feetY = eye[1]! - this.opts.rig.eyeHeight;
    let turn = now >= this.nextTurnAt;
    if (!turn && (this.wishX !== 0 || this.wishZ !== 0)) {
      const ax = x + this.wishX * 1.5, az = z + this.wishZ * 1.5;
      const g = world.groundHeight(ax, feetY + 0.5, az, 1.5);
      if (!(g === g) || world.anyHit(x, feetY + 1.0, z, ax, feetY + 1.0, az)) turn = true;
    }
    if (!turn) return;
    this.nextTurnAt = now + this.rng.uniform(1500, 4000);
    const hx = this.homeX - x, hz = this.homeZ - z;
    const far = hx * hx + hz * hz > 10 * 10;
    for (let tries = 0; tries < 8; tries++) {
      let wx: number, wz: number;
      if (far && tries < 4) {
        const l = Math.sqrt(hx * hx + hz * hz);
        wx = hx / l + 0.4 * this.rng.normal(); wz = hz / l + 0.4 * this.rng.normal();
      } else {
        const a = this.rng.uniform(0, 2 * Math.PI);
        wx = Math.cos(a); wz = Math.sin(a);
      }
      const l = Math.sqrt(wx * wx + wz * wz) || 1;
      wx /= l; wz /= l;
      const ax = x + wx * 1.5, az = z + wz * 1.5;
      const g = world.groundHeight(ax, feetY + 0.5, az, 1.5);
      if (g === g && !world.anyHit(x, feetY + 1.0, z, ax, feetY + 1.0, az)) {
        // Walk at jog speed most of the time (a wish shorter than 1 is a slower walk).
        const speed = this.rng.next() < 0.2 ? 0 : this.rng.uniform(0.5, 1);
        this.wishX = wx * speed; this.wishZ = wz * speed;
        return;
      }
    }
    this.wishX = 0; this.wishZ = 0;
  }

  private sendInput(): void {
    const inp = this.input;
    inp.seq = ++this.inputSeq;
    inp.buttons = 0;
    inp.wishX = this.wishX; inp.wishZ = this.wishZ;
    if (this.target < 0 && (this.wishX !== 0 || this.wishZ !== 0)) this.lookAt(this.wishX, 0, this.wishZ);
    inp.viewX = this.viewX; inp.viewY = this.viewY; inp.viewZ = this.viewZ;
    const bytes = encodeInput(this.inputBuf, inp).slice();
    this.link.send(() => this.rawSend(Msg.INPUT, bytes));
  }

  /** Third-person camera 2.5 m behind the eye, pulled in front of walls and pushed off nearby surfaces. */
  private updateCamera(eye: Float64Array): void {
    const world = this.opts.world;
    let cx = eye[0]! - this.viewX * 2.5, cy = eye[1]! - this.viewY * 2.5 + 0.4, cz = eye[2]! - this.viewZ * 2.5;
    if (world.firstHit(this.hit, eye[0]!, eye[1]!, eye[2]!, cx, cy, cz)) {
      const t = Math.max(0, this.hit.t - 0.05);
      cx = eye[0]! + (cx - eye[0]!) * t; cy = eye[1]! + (cy - eye[1]!) * t; cz = eye[2]! + (cz - eye[2]!) * t;
      this.cameraPushes++;
    }
    if (world.cameraPushBack(this.cam, cx, cy, cz, this.camLines)) this.cameraPushes++;
  }

  /** Shots sent whose verdict never came (lost, or still in flight when the run ended). */
  unresolved(): number {
    let n = 0;
    for (const s of this.shots) if (s.verdict === null) n++;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.link.close();
    try {
      await this.room?.leave(true);
    } catch {
      // already gone
    }
  }
}
