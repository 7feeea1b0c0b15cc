/**
 * The arena's projectiles on the wire. Each tick the live flights of the match (hitreg/server
 * HitregMatch.projectiles) are mirrored into the synced state: a snapshot is written when a
 * projectile appears and again when it bounced or changed mode, and removed when it ends; between
 * writes clients re-fly it from the snapshot against the level. Each end (the match's onProjectile)
 * becomes one `projectile` message to everyone, a hit confirmation per victim to the shooter, a
 * damage direction to each victim, and for each kill a kill-feed entry and the victim's respawn timer.
 */
import type { MapSchema } from '@colyseus/schema';
import { Msg, type DamagedReply, type HitReply, type ProjectileEndReply, type ProjectileFlights } from '../../shared/index';
import type { ProjectileOutcome } from '../match/index';
import { ProjectileSnapshot } from './schema';
import { recordKill, type OutcomeHost } from './applyOutcome';
import type { ArenaPlayer } from './player';

/** The room as the projectiles see it. */
export interface ProjectileHost extends OutcomeHost {
  player(sessionId: string): ArenaPlayer | undefined;
  broadcast(type: string, message: unknown): void;
}

export class ArenaProjectiles {
  /** Per flight index: the id its snapshot shows (-1: none), and the bounces and mode written. */
  private readonly shown: Float64Array;
  private readonly shownBounces: Int32Array;
  private readonly shownMode: Uint8Array;

  constructor(private readonly flights: ProjectileFlights) {
    this.shown = new Float64Array(flights.capacity).fill(-1);
    this.shownBounces = new Int32Array(flights.capacity);
    this.shownMode = new Uint8Array(flights.capacity);
  }

  /** Mirrors the live flights into `map` (after the tick flew them). */
  sync(map: MapSchema<ProjectileSnapshot>): void {
    const f = this.flights;
    for (let i = 0; i < f.capacity; i++) {
      const shown = this.shown[i]!;
      if (f.live[i] !== 1) {
        if (shown >= 0) {
          map.delete(String(shown));
          this.shown[i] = -1;
        }
        continue;
      }
      const id = f.id[i]!;
      if (shown === id && this.shownBounces[i] === f.bounces[i] && this.shownMode[i] === f.mode[i]) continue;
      if (shown >= 0 && shown !== id) map.delete(String(shown));
      let s = shown === id ? map.get(String(id)) : undefined;
      if (s === undefined) {
        s = new ProjectileSnapshot();
        s.id = id >>> 0; s.shooter = f.shooter[i]!; s.weapon = f.weapon[i]!; s.seq = f.seq[i]! >>> 0;
        map.set(String(id), s);
      }
      s.timeMs = f.timeMs[i]!; s.ageMs = f.ageMs[i]!;
      s.x = f.x[i]!; s.y = f.y[i]!; s.z = f.z[i]!; s.vx = f.vx[i]!; s.vy = f.vy[i]!; s.vz = f.vz[i]!;
      s.bounces = f.bounces[i]! & 0xffff; s.mode = f.mode[i]!;
      this.shown[i] = id; this.shownBounces[i] = f.bounces[i]!; this.shownMode[i] = f.mode[i]!;
    }
  }

  /** A flight ended (the match already applied its damage): tell everyone, confirm, feed, respawn. */
  ended(host: ProjectileHost, o: ProjectileOutcome<string>): void {
    const shooter = o.shooter === null ? undefined : host.player(o.shooter);
    const victims: ProjectileEndReply['victims'] = [];
    for (let k = 0; k < o.hits.length; k++) {
      const a = o.hits[k]!;
      const slot = o.slots[k]!;
      victims.push({ slot, damage: a.damage, killed: a.killed });
      const target = a.target === null ? undefined : host.player(a.target);
      if (target === undefined || a.healthAfter < 0) continue;
      if (a.killed) recordKill(host, target, o.shooterSlot, o.weapon, o.zones[k]!);
      host.syncStatus(target);
      if (shooter !== undefined && shooter !== target) {
        const hit: HitReply = { seq: o.seq, target: slot, zone: o.zones[k]!, damage: a.damage, killed: a.killed };
        shooter.client?.send(Msg.HIT, hit);
      }
      if (target.connected) target.client?.send(Msg.DAMAGED, damagedBy(o, target, a.damage, a.healthAfter));
    }
    if (shooter !== undefined) host.syncStatus(shooter);
    const reply: ProjectileEndReply = {
      id: o.id, shooter: o.shooterSlot, weapon: o.weapon, seq: o.seq, kind: o.kind,
      x: o.x, y: o.y, z: o.z, timeMs: o.timeMs, player: o.player, exploded: o.exploded, victims,
    };
    host.broadcast(Msg.PROJECTILE, reply);
  }
}

/** The victim's damage with the direction toward the blast's centre (where it came from). */
function damagedBy(o: ProjectileOutcome<string>, target: ArenaPlayer, damage: number, health: number): DamagedReply {
  const dx = o.x - target.move.x, dy = o.y - target.move.y, dz = o.z - target.move.z;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const k = l > 1e-9 ? 1 / l : 0;
  return { from: o.shooterSlot, damage, health, dx: dx * k, dy: dy * k, dz: dz * k };
}
