/**
 * A two-team room a studio might write: its own schema (schema.ts), its own movement (walk toward a
 * wished direction, crouch), its own weapon table, and hitreg/server judging every shot against
 * lag-compensated soldiers. The room is Colyseus hooks plus a message table; the match does the
 * rest: histories, lives, round trips, verdicts, damage and the match log.
 */
import { Room, type Client } from '@colyseus/core';
import { VerdictKind, type Rig, type WeaponSpec, type World } from 'hitreg';
import { HitregMatch, MatchLogRecorder, verdictReply, type AppliedHit, type ProjectileOutcome } from 'hitreg/server';
import { Soldier, TeamState } from './schema.js';
import { SPAWNS } from './level.js';

/**
 * The game's weapons: a carbine whose damage falls off past 25 m, a sidearm, and two projectile
 * weapons the match flies (a rocket that explodes on impact, a grenade that bounces until its fuse).
 */
export const TEAM_WEAPONS: readonly WeaponSpec[] = [
  { id: 0, name: 'carbine', damage: 30, rangeM: 120, fireIntervalMs: 120, magazine: 24, reloadMs: 1800, drawMs: 400, zoneMultipliers: null, falloff: [{ distanceM: 25, multiplier: 1 }, { distanceM: 80, multiplier: 0.6 }] },
  { id: 1, name: 'sidearm', damage: 18, rangeM: 50, fireIntervalMs: 200, magazine: 10, reloadMs: 1200, drawMs: 250, zoneMultipliers: null },
  {
    id: 2, name: 'rocket', damage: 0, rangeM: 100, fireIntervalMs: 900, magazine: 1, reloadMs: 1500, drawMs: 500, zoneMultipliers: null,
    projectile: { speed: 25, gravity: 0, radius: 0.25, lifetimeMs: 4000, fuseMs: 0, bounce: 0, splash: { radius: 3.5, damageMax: 90, damageMin: 10 }, directDamage: 60 },
  },
  {
    id: 3, name: 'grenade', damage: 0, rangeM: 60, fireIntervalMs: 1000, magazine: 1, reloadMs: 1000, drawMs: 400, zoneMultipliers: null,
    projectile: { speed: 12, gravity: 9.81, radius: 0.08, lifetimeMs: 4000, fuseMs: 2000, bounce: 0.4, splash: { radius: 5, damageMax: 100, damageMin: 10 }, directDamage: 5 },
  },
];
export const TICK_RATE = 30;
/** Eye heights of the game's stances, metres. */
export const STANDING_EYE = 1.6;
export const CROUCHED_EYE = 1.05;
const SPEED = 4;
const RESPAWN_MS = 1500;

export interface TeamRoomSetup {
  world: World;
  rig: Rig;
  /** Where match logs go. */
  logDir: string;
  /** Each room's log path once it is known (run.ts audits it). */
  onLog?: (path: string) => void;
  /** What the rooms count, for the run's summary. */
  counters: TeamRoomCounters;
}

/** What the room counts for the run's summary. */
export interface TeamRoomCounters {
  /** Hits that no player present took (a shot landing on someone who had left). */
  ghostHits: number;
}

export class TeamRoom extends Room<{ state: TeamState }> {
  static setup: TeamRoomSetup;
  match!: HitregMatch<string>;
  private readonly wish = new Map<string, { x: number; z: number }>();
  private readonly respawnAt = new Map<string, number>();

  override onCreate(): void {
    const { world, rig, logDir, onLog } = (this.constructor as typeof TeamRoom).setup;
    this.state = new TeamState();
    const recorder = new MatchLogRecorder({ dir: logDir, roomId: this.roomId });
    onLog?.(recorder.path);
    this.match = new HitregMatch<string>({
      world, rig, tickRate: TICK_RATE, maxPlayers: 8, weapons: TEAM_WEAPONS, friendlyFire: 'noDamage',
      recorder, roomId: this.roomId, levelPath: 'examples/team-room (built in code)',
      // The adapter: hitreg reads each soldier from this room's own state once per tick.
      poses: (id, out) => {
        const s = this.state.soldiers.get(id)!;
        out.x = s.x; out.y = s.y; out.z = s.z;
        out.viewX = s.faceX; out.viewY = 0; out.viewZ = s.faceZ; // the body's yaw follows the facing
        out.eyeHeight = s.crouched ? CROUCHED_EYE : STANDING_EYE;
      },
      // A rocket's or grenade's end, at a tick (or at once when its catch-up ended it): its damage
      // and kills are applied like a shot's; everyone is told where it blew up and whom it hurt.
      onProjectile: (o) => this.projectileEnded(o),
    });
    this.onMessage('move', (client, m: unknown) => this.move(client, m));
    this.onMessage('shot', (client, m: unknown) => this.shot(client, m));
    this.onMessageBytes('pong', (client, bytes: unknown) => {
      if (this.match.player(client.sessionId) !== undefined) this.match.pong(client.sessionId, bytes);
    });
    this.setFixedTimestep((ctx) => this.step(ctx.tick, ctx.dtMs), TICK_RATE);
    this.clock.setInterval(() => {
      for (const c of this.clients) {
        const ping = this.match.ping(c.sessionId);
        if (ping !== null) c.sendBytes('ping', ping);
      }
    }, 250);
  }

  override onJoin(client: Client, options: { team?: number; name?: string; interpDelayMs?: number } = {}): void {
    const team = options.team === 1 ? 1 : 0;
    const p = this.match.join(client.sessionId, { team, interpDelayMs: options.interpDelayMs });
    const s = new Soldier();
    s.name = String(options.name ?? client.sessionId).slice(0, 16);
    s.team = team;
    s.life = 0;
    this.place(s, team, p.slot);
    this.state.soldiers.set(client.sessionId, s);
    client.send('welcome', { rules: this.match.rules, tickRate: TICK_RATE, interpDelayMs: p.interpDelayMs });
    const ping = this.match.ping(client.sessionId);
    if (ping !== null) client.sendBytes('ping', ping);
  }

  override onLeave(client: Client): void {
    this.match.leave(client.sessionId);
    this.state.soldiers.delete(client.sessionId);
    this.wish.delete(client.sessionId);
  }

  override onDispose(): Promise<void> {
    return this.match.close();
  }

  private place(s: Soldier, team: number, slot: number): void {
    const at = SPAWNS[team]![slot % SPAWNS[team]!.length]!;
    s.x = at.x; s.y = 0; s.z = at.z;
    s.faceX = 0; s.faceZ = team === 0 ? 1 : -1;
    s.crouched = false;
    s.health = this.match.maxHealth;
    s.alive = true;
  }

  /** `{ x, z, faceX, faceZ, crouch }`: where the soldier wants to walk and look. Anything else is ignored. */
  private move(client: Client, m: unknown): void {
    const s = this.state.soldiers.get(client.sessionId);
    if (s === undefined || m === null || typeof m !== 'object') return;
    const o = m as Record<string, unknown>;
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    let x = num(o.x), z = num(o.z);
    const l = Math.sqrt(x * x + z * z);
    if (l > 1) { x /= l; z /= l; }
    this.wish.set(client.sessionId, { x, z });
    const fx = num(o.faceX), fz = num(o.faceZ);
    if (fx * fx + fz * fz > 1e-6) { s.faceX = fx; s.faceZ = fz; }
    s.crouched = o.crouch === true;
  }

  private step(tick: number, dtMs: number): void {
    const t = this.match.beginTick(tick, dtMs);
    this.state.soldiers.forEach((s, id) => {
      const due = this.respawnAt.get(id);
      if (!s.alive && due !== undefined && t >= due) {
        this.respawnAt.delete(id);
        this.place(s, s.team, this.match.slotOf(id));
        this.match.respawn(id, s);
        s.life++;
      }
      const w = this.wish.get(id);
      if (s.alive && w !== undefined) {
        const speed = s.crouched ? SPEED / 2 : SPEED;
        s.x = Math.max(-28, Math.min(28, s.x + (w.x * speed * dtMs) / 1000));
        s.z = Math.max(-28, Math.min(28, s.z + (w.z * speed * dtMs) / 1000));
      }
    });
    this.match.endTick();
    this.state.time = t;
    this.state.tick = tick >>> 0;
  }

  /** A weapon message (an object; hitreg encodes it canonically and judges it). */
  private shot(client: Client, m: unknown): void {
    const out = this.match.shot(client.sessionId, m);
    const v = out.verdict;
    if (v.kind === VerdictKind.HIT && out.target === null) (this.constructor as typeof TeamRoom).setup.counters.ghostHits++;
    // Every hit the match applied (one per pellet, and the players a bullet passed through).
    for (const h of out.hits) this.applied(h);
    // A launch's projectile flies on in the match: its id (-1 and a reason when the match refused to fly it).
    client.send('verdict', { ...verdictReply(v), targetId: out.target, problem: out.problem, projectile: out.projectile, projectileRefusal: out.projectileRefusal });
  }

  private projectileEnded(o: ProjectileOutcome<string>): void {
    for (const h of o.hits) this.applied(h);
    this.broadcast('projectile', {
      id: o.id, shooterId: o.shooter, weapon: o.weapon, kind: o.kind, x: o.x, y: o.y, z: o.z, exploded: o.exploded,
      hits: o.hits.map((h) => ({ targetId: h.target, damage: h.damage, healthAfter: h.healthAfter, killed: h.killed })),
    });
  }

  /** A hit the match applied, into the room's state (health; a kill schedules the respawn). */
  private applied(h: AppliedHit<string>): void {
    if (h.target === null || h.healthAfter < 0) return;
    const victim = this.state.soldiers.get(h.target);
    if (victim === undefined) return;
    victim.health = h.healthAfter;
    if (h.killed) {
      victim.alive = false;
      this.respawnAt.set(h.target, this.match.now() + RESPAWN_MS);
    }
  }
}
