/**
 * Test harness for the arena: a real game server on an ephemeral port (tests run in parallel
 * workers, so never a fixed port), a small flat test level built as a real World, and TestPlayer,
 * a real @colyseus/sdk client over WebSocket that answers pings, keeps the server clock, buffers
 * state snapshots for interpolation (what a game client renders) and collects replies. Tests wait on
 * what they need (a reply, a snapshot, the client's clock passing a time, a room closed), never for a
 * fixed time: a loaded machine delivers late, it does not deliver less.
 */
import { Client, type Room } from '@colyseus/sdk';
import { createGameServer, type GameServer, type GameServerOptions } from '../../server/index';
import { silentLogger } from '../../server/ops/log';
import { World } from '../../shared/world/world';
import { Msg, ROOM_NAME, type VerdictReply, type HitReply, type DamagedReply, type RejectReply, type WelcomeReply, type ProjectileEndReply } from '../../shared/protocol/messages';
import type { ProjectileSnapshotLike } from '../../shared/client/projectiles';
import { createPingMessage, decodePing, ServerClockEstimate } from '../../shared/protocol/ping';
import { createShotMessage, encodeShot, SHOT_BYTES, SHOT_VERSION, type ShotMessage } from '../../shared/protocol/shot';
import { encodeInput, INPUT_BYTES, type InputMessage } from '../../shared/protocol/input';
import { createPlayerPose, type PlayerPose } from '../../shared/lagcomp/pose';
import type { Rewinder } from '../../shared/lagcomp/rewind';
import { BONE_STRIDE, type Rig } from '../../shared/rig/rig';
import { transformPoint } from '../../shared/rig/posing';
import { WeaponId } from '../../shared/weapons';
import { InputStamper } from '../../shared/client/stamps';
import { sleep, waitFor } from './wait';

export interface TestServer {
  url: string;
  port: number;
  server: GameServer;
  close(): Promise<void>;
}

/**
 * A game server on 127.0.0.1 and an ephemeral port; no match log files unless `matchLogDir` is
 * given, no log output unless `logger` is, and room creation not rate-limited unless `limits` say
 * so (a test file creates many rooms from one address).
 */
export async function startTestServer(options: GameServerOptions = {}): Promise<TestServer> {
  const server = await createGameServer({
    log: () => {}, logger: silentLogger(), onHostile: () => {}, matchLogDir: false, ...options,
    limits: { roomCreateBurst: 10_000, ...options.limits }, port: 0, host: '127.0.0.1',
  });
  return { url: server.url, port: server.port, server, close: () => server.close() };
}

/** Axis-aligned box as 12 triangles (outward CCW). */
export function pushBox(pos: number[], idx: number[], x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void {
  const b = pos.length / 3;
  for (const [x, y, z] of [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] as const) pos.push(x, y, z);
  const f = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5];
  for (const i of f) idx.push(b + i);
}

/**
 * The test level: a floor (top at y = 0, 100 x 100 m) and one wall, 6 m wide, 3 m high, 0.3 m
 * thick, across z = -4 (between the spawn points A (0,0,0) and C (0,0,-8)).
 */
export function buildTestWorld(): World {
  const pos: number[] = [];
  const idx: number[] = [];
  pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
  const floorTris = idx.length / 3;
  pushBox(pos, idx, -3, 0, -4.15, 3, 3, -3.85);
  return World.fromTriangles(new Float64Array(pos), new Uint32Array(idx), [
    { start: 0, count: floorTris, node: 'floor', material: 'concrete' },
    { start: floorTris, count: idx.length / 3 - floorTris, node: 'wall', material: 'brick' },
  ]);
}

/** Spawn points of the test level: A faces B across 8 m of open floor; C is behind the wall from A; D is far away. */
export const TEST_SPAWNS = [
  { x: 0, y: 0, z: 0, dirX: 0, dirZ: 1 },
  { x: 0, y: 0, z: 8, dirX: 0, dirZ: -1 },
  { x: 0, y: 0, z: -8, dirX: 0, dirZ: 1 },
  { x: 20, y: 0, z: 8, dirX: 0, dirZ: -1 },
];

export interface Snapshot {
  timeMs: number;
  poses: Map<number, PlayerPose>;
}

export class TestPlayer {
  readonly room: Room;
  readonly clock = new ServerClockEstimate();
  readonly snapshots: Snapshot[] = [];
  readonly verdicts: VerdictReply[] = [];
  readonly hits: HitReply[] = [];
  readonly damaged: DamagedReply[] = [];
  readonly rejects: RejectReply[] = [];
  /** Every projectile end the room announced, and every synced state of each projectile seen (by id). */
  readonly projectileEnds: ProjectileEndReply[] = [];
  readonly projectileStates = new Map<number, ProjectileSnapshotLike[]>();
  /** Per projectile id: the state's serverTimeMs of the patch it first arrived with. */
  readonly projectileFirstMs = new Map<number, number>();
  /** Every backfill received (a copy), with how many snapshots had been received before it. */
  readonly backfills: { bytes: Uint8Array; snapshotsBefore: number }[] = [];
  pings = 0;
  welcome: WelcomeReply | null = null;
  private waiters: { test: () => boolean; resolve: () => void }[] = [];
  private shotBuf = new Uint8Array(SHOT_BYTES);
  private inputBuf = new Uint8Array(INPUT_BYTES);
  private ping = createPingMessage();

  private constructor(room: Room) {
    this.room = room;
    room.onMessage(Msg.PING, (bytes: Uint8Array) => {
      if (decodePing(this.ping, bytes) === 0) {
        this.clock.onPing(this.ping, performance.now());
        this.pings++;
        if (!this.mute) {
          this.send(Msg.PONG, new Uint8Array(bytes));
          this.stated(this.ping.serverTimeMs);
          this.stamper?.answered(this.ping.serverTimeMs);
        }
      }
      this.wake();
    });
    room.onMessage(Msg.WELCOME, (w: WelcomeReply) => { this.welcome = w; this.wake(); });
    room.onMessage(Msg.VERDICT, (v: VerdictReply) => { this.verdicts.push(v); this.wake(); });
    room.onMessage(Msg.HIT, (v: HitReply) => { this.hits.push(v); this.wake(); });
    room.onMessage(Msg.DAMAGED, (v: DamagedReply) => { this.damaged.push(v); this.wake(); });
    room.onMessage(Msg.REJECT, (v: RejectReply) => { this.rejects.push(v); this.wake(); });
    room.onMessage(Msg.PROJECTILE, (v: ProjectileEndReply) => { this.projectileEnds.push(v); this.wake(); });
    room.onMessage(Msg.BACKFILL, (bytes: Uint8Array) => { this.backfills.push({ bytes: new Uint8Array(bytes), snapshotsBefore: this.snapshots.length }); this.wake(); });
    room.onStateChange((state: any) => {
      const poses = new Map<number, PlayerPose>();
      state.players.forEach((p: any) => {
        const pose = createPlayerPose();
        pose.x = p.x; pose.y = p.y; pose.z = p.z;
        pose.qx = p.qx; pose.qy = p.qy; pose.qz = p.qz; pose.qw = p.qw;
        pose.clip = p.clip; pose.time = p.animTime; pose.alive = p.alive; pose.epoch = p.epoch;
        poses.set(p.slot, pose);
      });
      state.projectiles?.forEach((q: any) => {
        if (!this.projectileFirstMs.has(q.id)) this.projectileFirstMs.set(q.id, state.serverTimeMs);
        const seen = this.projectileStates.get(q.id) ?? [];
        if (seen.at(-1)?.timeMs !== q.timeMs) seen.push({ timeMs: q.timeMs, ageMs: q.ageMs, x: q.x, y: q.y, z: q.z, vx: q.vx, vy: q.vy, vz: q.vz, bounces: q.bounces, mode: q.mode, id: q.id, shooter: q.shooter, weapon: q.weapon, seq: q.seq });
        this.projectileStates.set(q.id, seen);
      });
      const last = this.snapshots[this.snapshots.length - 1];
      if (last === undefined || state.serverTimeMs > last.timeMs) {
        this.snapshots.push({ timeMs: state.serverTimeMs, poses });
        if (this.snapshots.length > 256) this.snapshots.shift();
      }
      this.wake();
    });
  }

  static async create(url: string, options: Record<string, unknown> = {}): Promise<TestPlayer> {
    const room = await new Client(url).create(ROOM_NAME, options);
    return new TestPlayer(room);
  }

  /** The same session back on a new connection (Colyseus reconnection token of a dropped room). */
  static async reconnect(url: string, token: string): Promise<TestPlayer> {
    const room = await new Client(url).reconnect(token);
    return new TestPlayer(room);
  }

  static async join(url: string, roomId: string, options: Record<string, unknown> = {}): Promise<TestPlayer> {
    const room = await new Client(url).joinById(roomId, options);
    return new TestPlayer(room);
  }

  get state(): any {
    return this.room.state;
  }

  /** This player's slot, once the state has it. */
  get slot(): number {
    return this.room.state?.players?.get(this.room.sessionId)?.slot ?? -1;
  }

  serverNow(): number {
    return this.clock.serverNow(performance.now());
  }

  /**
   * The render time serverNow - interpDelayMs, once snapshots up to it have arrived (on a loaded
   * machine patches can come late, and a client cannot draw what it has not received).
   */
  async renderNow(interpDelayMs: number, timeoutMs = 3000): Promise<number> {
    const t = this.serverNow() - interpDelayMs;
    await this.until(() => (this.snapshots.at(-1)?.timeMs ?? Number.NEGATIVE_INFINITY) >= t, timeoutMs, `snapshots up to ${t}`);
    return t;
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) {
      if (w.test()) w.resolve();
      else this.waiters.push(w);
    }
  }

  /** Resolves when `test` holds (checked on every message), rejects after timeoutMs. */
  until(test: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      this.waiters.push({ test, resolve: () => { clearTimeout(timer); resolve(); } });
    });
  }

  /**
   * Resolves once this client's server clock reads past `timeMs`: what a client checks before an
   * action the server judges by claimed time (a fire interval, a draw, a respawn delay).
   */
  async untilServerTime(timeMs: number, timeoutMs = 30_000): Promise<void> {
    await waitFor(() => this.clock.stamp(performance.now()) > timeMs, `the client clock past ${timeMs}`, timeoutMs);
  }

  /** Resolves once `ms` have passed on this client's server clock from now. */
  async serverTimePasses(ms: number, timeoutMs = 30_000): Promise<void> {
    await this.untilServerTime(this.clock.stamp(performance.now()) + ms, timeoutMs);
  }

  /** Claimed time of the newest shot message sent (0 before any). */
  lastShotMs = 0;

  /** Resolves once this client's clock is `intervalMs` past its newest shot (by default the rifle's 100 ms fire interval and 20 ms more). */
  async untilFireReady(intervalMs = 120): Promise<void> {
    await this.untilServerTime(this.lastShotMs + intervalMs);
  }

  /** Resolves once this client has received `n` more snapshots (the room ticked and patched n times). */
  async snapshotsPass(n: number, timeoutMs = 30_000): Promise<void> {
    let seen = 0;
    let last = this.snapshots.at(-1)?.timeMs ?? Number.NEGATIVE_INFINITY;
    await this.until(() => {
      const newest = this.snapshots.at(-1)?.timeMs ?? Number.NEGATIVE_INFINITY;
      if (newest > last) { seen++; last = newest; }
      return seen >= n;
    }, timeoutMs, `${n} snapshots`);
  }

  async verdictFor(seq: number, timeoutMs = 5000): Promise<VerdictReply> {
    await this.until(() => this.verdicts.some((v) => v.seq === seq), timeoutMs, `verdict ${seq}`);
    return this.verdicts.find((v) => v.seq === seq)!;
  }

  /** A fire message stamped now on this client's server clock (fields override). */
  shot(fields: Partial<ShotMessage>): ShotMessage {
    return { ...createShotMessage(), version: SHOT_VERSION, timeMs: this.clock.stamp(performance.now()), ...fields };
  }

  /**
   * Waits until this client's own clock has passed the draw time the server synced for it (what a
   * client checks before it fires a weapon it just switched to: the server judges claimed times).
   */
  async untilDrawn(weapon: number, timeoutMs = 3000): Promise<void> {
    const me = () => this.room.state?.players?.get(this.room.sessionId);
    await this.until(() => me() !== undefined && me().weapon === weapon && me().drawEndMs > 0, timeoutMs, `weapon ${weapon} and its draw time synced`);
    await this.untilServerTime(me().drawEndMs as number);
  }

  /** Sends a switch (or, with action RELOAD, a reload) stamped now and resolves with its verdict. */
  async act(action: number, weapon: number, seq: number): Promise<VerdictReply> {
    return this.shoot({ action, weapon, seq, claimedTarget: 0, renderTimeMs: 0 });
  }

  sendShot(shot: ShotMessage): void {
    if (shot.timeMs > this.lastShotMs) this.lastShotMs = shot.timeMs;
    this.send(Msg.SHOT, encodeShot(this.shotBuf, shot).slice());
  }

  /**
   * A TCP stall from now on: everything this client sends (pongs, inputs, weapon messages) waits,
   * in the order sent, until release() delivers it all at once, as TCP does once a lost segment's
   * retransmission arrives.
   */
  stall(): void {
    this.stalled ??= [];
  }

  release(): void {
    const held = this.stalled ?? [];
    this.stalled = null;
    for (const [type, bytes] of held) this.room.sendBytes(type, bytes);
  }

  private stalled: [string, Uint8Array][] | null = null;

  /** While true, pings are not answered (a client that falls silent; a stall() answers them late). */
  mute = false;

  private send(type: string, bytes: Uint8Array): void {
    if (this.stalled !== null) this.stalled.push([type, bytes]);
    else this.room.sendBytes(type, bytes);
  }

  /**
   * The newest time this client's messages stated (input stamps, pings answered), server ms: the
   * server holds its later actions to it.
   */
  sentFloorMs = Number.NaN;
  private stated(t: number): void {
    if (t > 0 && !(this.sentFloorMs >= t)) this.sentFloorMs = t;
  }

  /** Input stamps as a predicting client keeps them (shared/client/stamps.ts). */
  private stamper: InputStamper | null = null;
  private stamperFor(tickRate: number): InputStamper {
    this.stamper ??= new InputStamper(tickRate);
    return this.stamper;
  }

  async shoot(fields: Partial<ShotMessage>): Promise<VerdictReply> {
    const shot = this.shot(fields);
    this.sendShot(shot);
    return this.verdictFor(shot.seq);
  }

  sendInput(input: InputMessage): void {
    if (input.seq > this.inputSeq) this.inputSeq = input.seq;
    this.send(Msg.INPUT, encodeInput(this.inputBuf, input).slice());
    this.stated(input.timeMs);
  }

  /**
   * Sends `input` as a client predicting itself does: one per tick at `tickRate`, each with the next
   * seq and stamped with its tick's time on this client's server clock (InputStamper: ticks a busy
   * timer runs late keep their spacing, not far before a ping answered since), paced on the wall clock,
   * until stopInputs() or leave().
   */
  holdInput(input: InputMessage, tickRate = 64): void {
    this.stopInputs();
    const held = { ...input };
    const t0 = performance.now();
    let sent = 0;
    const due = (): void => {
      const want = Math.floor(((performance.now() - t0) * tickRate) / 1000) + 1;
      for (; sent < want; sent++) {
        held.seq = this.inputSeq + 1;
        held.timeMs = this.stamperFor(tickRate).stamp(this.clock.serverNow(t0 + (sent * 1000) / tickRate));
        this.sendInput(held);
      }
    };
    due();
    this.inputTimer = setInterval(due, 4);
  }

  /**
   * Sends `inputs` one per tick at `tickRate`, paced on the wall clock, each with the next seq and
   * stamped with its tick's time (InputStamper: spaced, not far before a ping answered); resolves with
   * the stamps after the last. Through a stall() they wait with everything else.
   */
  async sendPaced(inputs: InputMessage[], tickRate = 64): Promise<number[]> {
    const t0 = performance.now();
    const stamps: number[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const at = t0 + (i * 1000) / tickRate;
      const wait = at - performance.now();
      if (wait > 0) await sleep(wait);
      const stamp = this.stamperFor(tickRate).stamp(this.clock.serverNow(at));
      stamps.push(stamp);
      this.sendInput({ ...inputs[i]!, seq: this.inputSeq + 1, timeMs: stamp });
    }
    return stamps;
  }

  stopInputs(): void {
    if (this.inputTimer !== null) clearInterval(this.inputTimer);
    this.inputTimer = null;
  }

  /** Newest input seq sent. */
  inputSeq = 0;
  private inputTimer: ReturnType<typeof setInterval> | null = null;

  /** The pose of `slot` interpolated at server time `timeMs` from received snapshots (null if not bracketed). */
  renderPose(slot: number, timeMs: number): PlayerPose | null {
    const s = this.snapshots;
    for (let i = s.length - 1; i > 0; i--) {
      const a = s[i - 1]!, b = s[i]!;
      if (a.timeMs <= timeMs && timeMs <= b.timeMs) {
        const pa = a.poses.get(slot), pb = b.poses.get(slot);
        if (!pa || !pb) return null;
        const f = (timeMs - a.timeMs) / (b.timeMs - a.timeMs);
        const g = 1 - f;
        const out = createPlayerPose();
        out.x = pa.x * g + pb.x * f; out.y = pa.y * g + pb.y * f; out.z = pa.z * g + pb.z * f;
        out.qx = pb.qx; out.qy = pb.qy; out.qz = pb.qz; out.qw = pb.qw;
        out.clip = pb.clip;
        out.time = pa.clip === pb.clip ? pa.time * g + pb.time * f : pb.time;
        out.alive = pb.alive; out.epoch = pb.epoch;
        return out;
      }
    }
    return null;
  }

  async leave(): Promise<void> {
    this.stopInputs();
    try {
      await this.room.leave(true);
    } catch {
      // already gone
    }
  }
}

/** World-space centroid of the hull of the first hitbox of `zone` at `pose` (a point inside that hitbox). */
export function zoneCenter(rewinder: Rewinder, rig: Rig, pose: PlayerPose, zone: number): [number, number, number] {
  const bones = rewinder.poseBones(new Float64Array(rig.hitboxCount * BONE_STRIDE), pose);
  for (let h = 0; h < rig.hitboxCount; h++) {
    if (rig.hitboxZone[h] !== zone) continue;
    let x = 0, y = 0, z = 0, n = 0;
    for (let t = rig.triStart[h]!; t < rig.triStart[h + 1]!; t++) {
      for (let k = 0; k < 3; k++) {
        x += rig.triangles[t * 9 + k * 3]!;
        y += rig.triangles[t * 9 + k * 3 + 1]!;
        z += rig.triangles[t * 9 + k * 3 + 2]!;
        n++;
      }
    }
    const out = [0, 0, 0];
    transformPoint(out, 0, bones, h * BONE_STRIDE, x / n, y / n, z / n);
    return [out[0]!, out[1]!, out[2]!];
  }
  throw new Error(`rig has no hitbox in zone ${zone}`);
}

export { sleep, waitFor };

/** Resolves once room `roomId` is disposed and its match closed (its recorder has written the end and closed the log). */
/**
 * Resolves once room `roomId` is disposed and its match log closed (end record written, flushed).
 * Call it while the room is live (before its last player leaves): a room disposes as its last
 * player leaves, and from then on the server no longer lists it.
 */
export function roomClosed(ts: TestServer, roomId: string, timeoutMs = 30_000): Promise<void> {
  const room = ts.server.rooms.get(roomId);
  if (room === undefined) throw new Error(`roomClosed: room ${roomId} is not live; take hold of it before its players leave`);
  return (async () => {
    await waitFor(() => !ts.server.rooms.has(roomId), `room ${roomId} disposed`, timeoutMs);
    // The room's dispose started match.close(); the same promise resolves when the log is closed.
    await room.match.close();
  })();
}

/** Two players in one new room (options per player), each with a synced clock, a slot and a few snapshots. */
export async function joinPair(url: string, aOptions: Record<string, unknown> = { interpDelayMs: 100 }, bOptions = aOptions): Promise<[TestPlayer, TestPlayer]> {
  const a = await TestPlayer.create(url, aOptions);
  const b = await TestPlayer.join(url, a.room.roomId, bOptions);
  for (const p of [a, b]) await p.until(() => p.clock.synced && p.slot >= 0 && p.snapshots.length > 4, 5000, 'ready');
  // Each renders the other 150 ms back (past any interpolation delay a test uses): a shot at once
  // must not aim at a time before the other joined (a busy machine slows the first snapshots).
  for (const [p, q] of [[a, b], [b, a]] as const) await p.until(() => p.renderPose(q.slot, p.serverNow() - 150) !== null, 5000, 'the other player rendered');
  return [a, b];
}

/**
 * `shooter` fires a 30 m shot from its own eye (its newest snapshot) through the centre of `zone` of
 * player `target` as it renders it now (interpolation delay 100 ms); `extra` overrides shot fields.
 */
export async function shootAtZone(
  shooter: TestPlayer, ts: TestServer, target: number, seq: number, zone: number,
  weapon: number = WeaponId.RIFLE, extra: Partial<ShotMessage> = {},
): Promise<VerdictReply> {
  const room = ts.server.rooms.get(shooter.room.roomId)!;
  const rt = await shooter.renderNow(100);
  const pose = shooter.renderPose(target, rt);
  const [cx, cy, cz] = pose ? zoneCenter(room.match.scene.rewinder, ts.server.rig, pose, zone) : [0, 1, 8];
  const me = shooter.snapshots.at(-1)!.poses.get(shooter.slot)!;
  const sx = me.x, sy = me.y + ts.server.rig.eyeHeight, sz = me.z;
  const dx = cx - sx, dy = cy - sy, dz = cz - sz;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  return shooter.shoot({ seq, weapon, claimedTarget: target, renderTimeMs: rt, sx, sy, sz, ex: sx + (dx / l) * 30, ey: sy + (dy / l) * 30, ez: sz + (dz / l) * 30, ...extra });
}

/** A room of `n` players on the test spawns (slot i at TEST_SPAWNS[i]) with synced clocks and a few patches each. */
export async function joinSpawned(url: string, n: number, interpDelayMs = 100): Promise<TestPlayer[]> {
  const first = await TestPlayer.create(url, { interpDelayMs });
  const players = [first];
  for (let i = 1; i < n; i++) players.push(await TestPlayer.join(url, first.room.roomId, { interpDelayMs }));
  for (const p of players) await p.until(() => p.clock.synced && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'clock and state');
  const slots = players.map((p) => p.slot);
  if (slots.some((s, i) => s !== i)) throw new Error(`players took slots ${slots.join(', ')}, not 0..${n - 1} in join order`);
  return players;
}
