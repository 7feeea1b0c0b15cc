/**
 * A headless soldier of the team room: a real @colyseus/sdk client that predicts its shots with
 * hitreg's browser entry. The PredictingClient reads the room's own schema through TEAM_READER,
 * keeps the server clock from hitreg's pings, and predicts each shot with the server's pipeline
 * against exactly the poses it received; the shot goes out as an object, the verdict comes back.
 */
import { Client, type Room } from '@colyseus/sdk';
import {
  BONE_STRIDE, HitZone, PredictingClient, Snap, createPlayerPose, reasonName, transformPoint,
  type Rig, type SnapshotReader, type ValidationConfig, type VerdictReply, type World,
} from 'hitreg';
import { CROUCHED_EYE, STANDING_EYE } from './room.js';

/** How a client reads the team room's state: ids are session ids, facing is a direction. */
export const TEAM_READER: SnapshotReader = {
  tick: (s) => s.tick >>> 0,
  timeMs: (s) => s.time,
  players(s, visit) {
    if (s?.soldiers === undefined) return false;
    s.soldiers.forEach(visit);
    return true;
  },
  read(p, o) {
    o.x = p.x; o.y = p.y; o.z = p.z;
    o.viewX = p.faceX; o.viewY = 0; o.viewZ = p.faceZ; // the yaw comes from the facing, as on the server
    o.eyeHeight = p.crouched ? CROUCHED_EYE : STANDING_EYE;
    o.alive = p.alive; o.epoch = p.life; o.health = p.health; o.team = p.team;
  },
};

/** A rocket's or grenade's end as the room tells everyone (room.ts projectileEnded). */
export interface ProjectileEnd {
  id: number; shooterId: string | null; weapon: number; kind: number; x: number; y: number; z: number; exploded: boolean;
  hits: { targetId: string | null; damage: number; healthAfter: number; killed: boolean }[];
}

export interface Judged {
  seq: number;
  predicted: { kind: number; reason: string; target: string | number | null; zone: number };
  verdict: VerdictReply & { targetId: string | null; problem: string; projectile: number; projectileRefusal: string };
}

export class Soldier {
  readonly room: Room;
  predicting!: PredictingClient;
  readonly judged: Judged[] = [];
  /** Every verdict the server sent this soldier (a message that could not be one included). */
  readonly replies: Judged['verdict'][] = [];
  /** Every projectile end the room announced. */
  readonly projectiles: ProjectileEnd[] = [];
  private left = false;
  private readonly pending = new Map<number, Judged['predicted']>();
  private waiters: (() => void)[] = [];
  private rules!: ValidationConfig;

  private constructor(room: Room, private readonly world: World, private readonly rig: Rig) {
    this.room = room;
  }

  static async join(url: string, world: World, rig: Rig, options: { team: number; name: string }): Promise<Soldier> {
    const room = await new Client(url).joinOrCreate('team', { ...options, interpDelayMs: 100 });
    const s = new Soldier(room, world, rig);
    await s.start();
    return s;
  }

  private start(): Promise<void> {
    const room = this.room;
    room.onMessage('ping', (bytes: Uint8Array) => {
      if (this.predicting?.onPing(bytes, performance.now())) room.sendBytes('pong', new Uint8Array(bytes));
      this.wake();
    });
    room.onMessage('verdict', (v: Judged['verdict']) => {
      this.replies.push(v);
      const predicted = this.pending.get(v.seq);
      this.pending.delete(v.seq);
      this.predicting.settle(v.seq, v);
      if (predicted !== undefined) this.judged.push({ seq: v.seq, predicted, verdict: v });
      this.wake();
    });
    room.onMessage('projectile', (e: ProjectileEnd) => {
      this.projectiles.push(e);
      this.wake();
    });
    room.onStateChange((state) => {
      this.predicting?.onState(state);
      this.wake();
    });
    return new Promise((resolve) => {
      room.onMessage('welcome', (w: { rules: ValidationConfig; tickRate: number; interpDelayMs: number }) => {
        this.rules = w.rules;
        this.predicting = new PredictingClient({
          world: this.world, rig: this.rig, rules: w.rules, tickRate: w.tickRate, interpDelayMs: w.interpDelayMs,
          reader: TEAM_READER, selfId: room.sessionId,
        });
        resolve();
      });
    });
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  /** Resolves once `test` holds (checked on every message), or rejects after `ms`. */
  until(test: () => boolean, what: string, ms = 5000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.room.sessionId}: timed out waiting for ${what}`)), ms);
      const check = (): void => {
        if (test()) { clearTimeout(timer); resolve(); } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Synced clock, and the others (by id) in view with poses to draw at the render time. */
  async ready(others: string[]): Promise<void> {
    await this.until(() => this.predicting !== undefined && this.predicting.clock.synced && this.predicting.slot >= 0, 'clock and own slot');
    await this.until(() => others.every((id) => this.drawn(id) !== null), `the others drawn (${others.join(', ')})`);
  }

  /** The render time now, once snapshots up to it arrived. */
  async renderNow(): Promise<number> {
    const p = this.predicting;
    await this.until(() => p.view.newestTimeMs >= p.renderTime(performance.now()), 'snapshots up to the render time');
    return p.renderTime(performance.now());
  }

  /** Where player `id` is drawn now (its pose at the render time), or null. */
  drawn(id: string, at = this.predicting?.renderTime(performance.now())): ReturnType<typeof createPlayerPose> | null {
    const slot = this.predicting?.snapshots.slotOf(id) ?? -1;
    const pose = createPlayerPose();
    return slot >= 0 && this.predicting.view.renderPose(pose, slot, at!) && pose.alive ? pose : null;
  }

  /** This soldier's eye as its own newest snapshot has it. */
  eye(): [number, number, number] {
    const v = this.predicting.view;
    const me = this.predicting.slot;
    const eye = v.latestValue(me, Snap.EYE);
    return [v.latestValue(me, Snap.X), v.latestValue(me, Snap.Y) + (eye === eye ? eye : this.rules.eyeHeightM), v.latestValue(me, Snap.Z)];
  }

  /** The centre of `zone` of a pose (the first hitbox of that zone: its bounding sphere's centre). */
  zonePoint(pose: ReturnType<typeof createPlayerPose>, zone: number): [number, number, number] {
    const rig = this.rig;
    const bones = this.predicting.view.rewinder.poseBones(new Float64Array(rig.hitboxCount * BONE_STRIDE), pose);
    for (let h = 0; h < rig.hitboxCount; h++) {
      if (rig.hitboxZone[h] !== zone) continue;
      const out = [0, 0, 0];
      transformPoint(out, 0, bones, h * BONE_STRIDE, rig.hitboxSpheres[h * 4]!, rig.hitboxSpheres[h * 4 + 1]!, rig.hitboxSpheres[h * 4 + 2]!);
      return [out[0]!, out[1]!, out[2]!];
    }
    throw new Error(`no hitbox in zone ${zone}`);
  }

  /**
   * Fires from the eye toward `point` (40 m), predicted at once, sent as an object; resolves with the
   * server's verdict. `targetId`: who the client thinks it aims at (for the audit only).
   */
  async fireAt(point: [number, number, number], targetId: string | null): Promise<Judged> {
    await this.renderNow();
    const [sx, sy, sz] = this.eye();
    const d = [point[0] - sx, point[1] - sy, point[2] - sz];
    const l = Math.sqrt(d[0]! * d[0]! + d[1]! * d[1]! + d[2]! * d[2]!);
    const e = [sx + (d[0]! / l) * 40, sy + (d[1]! / l) * 40, sz + (d[2]! / l) * 40] as const;
    const now = performance.now();
    const pr = this.predicting.fire(now, sx, sy, sz, e[0], e[1], e[2]);
    const v = pr.verdict;
    const hit = v.target >= 0 ? this.predicting.snapshots.idOf(v.target) ?? null : null;
    const m = pr.message;
    this.pending.set(pr.seq, { kind: v.kind, reason: reasonName(v.reason), target: hit, zone: v.zone });
    this.room.send('shot', {
      seq: m.seq, weapon: m.weapon, timeMs: m.timeMs, renderTimeMs: m.renderTimeMs,
      start: [m.sx, m.sy, m.sz], end: [m.ex, m.ey, m.ez], target: targetId,
    });
    return this.verdictFor(pr.seq);
  }

  /** Switches to `weapon` (an object message) and resolves with the verdict, once the weapon is drawn on the client's clock. */
  async switchTo(weapon: number): Promise<Judged> {
    const pr = this.predicting.shooter.switchTo(this.predicting.clockAt(performance.now()), weapon);
    const m = pr.message;
    this.pending.set(pr.seq, { kind: pr.verdict.kind, reason: reasonName(pr.verdict.reason), target: null, zone: -1 });
    this.room.send('shot', { seq: m.seq, action: 'switch', weapon, timeMs: m.timeMs });
    const j = await this.verdictFor(pr.seq);
    const drawn = this.predicting.shooter.weapons.head.drawEndMs;
    await this.until(() => this.predicting.clock.serverNow(performance.now()) > drawn, 'the draw');
    return j;
  }

  /** A message that cannot be a weapon message at all (its seq is not a number). */
  sendMalformed(): void {
    this.room.send('shot', { seq: 'seven', weapon: 0, timeMs: 0 });
  }

  verdictFor(seq: number): Promise<Judged> {
    const found = (): Judged | undefined => this.judged.find((j) => j.seq === seq);
    return this.until(() => found() !== undefined, `verdict ${seq}`).then(() => found()!);
  }

  move(x: number, z: number, faceX: number, faceZ: number, crouch = false): void {
    this.room.send('move', { x, z, faceX, faceZ, crouch });
  }

  leave(): Promise<unknown> {
    if (this.left) return Promise.resolve();
    this.left = true;
    return this.room.leave(true).catch(() => undefined);
  }
}

export { HitZone };
