/**
 * The arena's projectiles on the wire. Each tick the live flights of the match (hitreg/server
 * HitregMatch.projectiles) are mirrored into the synced state: a snapshot is written when a
 * projectile appears and again when it bounced or changed mode, and removed when it ends; between
 * writes clients re-fly it from the snapshot against the level. Each end (the match's onProjectile)
 * becomes one `projectile` message, a hit confirmation per victim to the shooter, a damage direction
 * to each victim, and for each kill a kill-feed entry and the victim's respawn timer.
 *
 * Fog of war (the room's FogFilter): `projectiles` is filtered per client like `players`; a snapshot
 * enters a client's view when the filter sends it the flight (to its shooter, to a viewer sent the
 * shooter at launch, to one that may see it before the next patch is drawn) and stays until the
 * flight ends. The end goes only to the clients FogFilter.tellEnd names, and is logged so (endSeen:
 * its shooter, those that may see the centre, those sent the flight or the shooter unless it struck
 * a player withheld from them), each with the victims it is sent (all of them for the shooter, who is confirmed each hit anyway):
 * a victim's damage falls with its distance from the centre, so it would place a withheld one. A
 * victim's damage direction (toward the centre) is zeroed unless endSeen names it too. What an end
 * still says of a withheld player: none of its position (its slot only as the shooter's).
 * Fog off: everything to everyone.
 */
import type { MapSchema } from '@colyseus/schema';
import { Msg, type DamagedReply, type HitReply, type ProjectileEndReply, type ProjectileFlights } from '../../shared/index';
import { END_STRUCK_MASKED, END_VICTIMS_MASKED, type FogFilter, type ProjectileOutcome } from '../match/index';
import { ProjectileSnapshot } from './schema';
import { recordKill, type OutcomeHost } from './applyOutcome';
import type { ArenaPlayer } from './player';

/** The room as the projectiles see it. */
export interface ProjectileHost extends OutcomeHost {
  player(sessionId: string): ArenaPlayer | undefined;
  broadcast(type: string, message: unknown): void;
  /** Fog of war (null: off). */
  readonly fog: FogFilter<string> | null;
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

  /** The snapshot of flight index i in `map` (undefined: none shown). */
  snapshotOf(map: MapSchema<ProjectileSnapshot>, i: number): ProjectileSnapshot | undefined {
    const shown = i >= 0 && i < this.shown.length ? this.shown[i]! : -1;
    return shown >= 0 ? map.get(String(shown)) : undefined;
  }

  /** A flight ended (the match already applied its damage): tell those who may know, confirm, feed, respawn. */
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
      if (target.connected) target.client?.send(Msg.DAMAGED, damagedBy(o, target, a.damage, a.healthAfter, towardEnd(host.fog, o, target.index)));
    }
    if (shooter !== undefined) host.syncStatus(shooter);
    const reply: ProjectileEndReply = {
      id: o.id, shooter: o.shooterSlot, weapon: o.weapon, seq: o.seq, kind: o.kind,
      x: o.x, y: o.y, z: o.z, timeMs: o.timeMs, player: o.player, exploded: o.exploded, victims,
    };
    const fog = host.fog;
    if (fog === null) {
      host.broadcast(Msg.PROJECTILE, reply);
      return;
    }
    const told = fog.endTold, count = fog.tellEnd(o, o.slots);
    for (let i = 0; i < count; i++) {
      const p = host.seats[told.viewer[i]!];
      if (p === null || p === undefined || p.client === null || !p.connected) continue;
      const flags = told.flags[i]!;
      if (flags === 0) { p.client.send(Msg.PROJECTILE, reply); continue; }
      const index = p.index;
      p.client.send(Msg.PROJECTILE, {
        ...reply,
        player: (flags & END_STRUCK_MASKED) !== 0 ? -1 : o.player,
        victims: (flags & END_VICTIMS_MASKED) !== 0 ? victims.filter((x) => fog.isSent(index, x.slot)) : victims,
      });
    }
  }
}

/** Whether the victim in `slot` may be given the direction toward the end's centre: fog off, or it may be told the end. */
function towardEnd(fog: FogFilter<string> | null, o: ProjectileOutcome<string>, slot: number): boolean {
  return fog === null || fog.endSeen(slot, o.id, o.shooterSlot, o.player, o.weapon, o.x, o.y, o.z, o.exploded);
}

/** The victim's damage with the direction toward the end's centre (where it came from; zero when not `toward`). */
function damagedBy(o: ProjectileOutcome<string>, target: ArenaPlayer, damage: number, health: number, toward: boolean): DamagedReply {
  const dx = o.x - target.move.x, dy = o.y - target.move.y, dz = o.z - target.move.z;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const k = toward && l > 1e-9 ? 1 / l : 0;
  return { from: o.shooterSlot, damage, health, dx: dx * k, dy: dy * k, dz: dz * k };
}
