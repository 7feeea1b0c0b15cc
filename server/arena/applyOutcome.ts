/**
 * What a judged weapon message does to the arena beyond the match's own bookkeeping (which already
 * took the target's health and recorded any death): the shooter's verdict reply, its hit
 * confirmation and the victim's damage direction, the kill feed and the respawn timer, a bullet
 * hole where the world was hit, and the server's counters.
 */
import type { ArraySchema } from '@colyseus/schema';
import { deadMovesUntilMs, Msg, reasonName, VerdictKind, type DamagedReply, type HitReply, type RewoundPose, type Verdict } from '../../shared/index';
import { verdictReply, type HitregMatch, type ShotOutcome } from '../match/index';
import { BulletHole, KillFeedEntry, type ArenaState } from './schema';
import type { ArenaConfig } from './config';
import type { ArenaPlayer } from './player';
import type { FogHoles } from './fogHoles';

/** The room as outcomes see it. */
export interface OutcomeHost {
  readonly cfg: ArenaConfig;
  readonly match: HitregMatch<string>;
  readonly state: ArenaState;
  /** Arena players by slot (null: free). */
  readonly seats: readonly (ArenaPlayer | null)[];
  syncStatus(p: ArenaPlayer): void;
  /** Whether the player in `enemySlot` is being sent to the one in `viewerSlot` (fog of war; always with it off). */
  sends(viewerSlot: number, enemySlot: number): boolean;
  /** Bullet holes under fog of war (null: off, every client gets every hole). */
  readonly fogHoles: FogHoles | null;
}

const direction = new Float64Array(3);

/** Replies to the shooter `p` (when connected) and applies the rest of `out` to the arena. */
export function applyOutcome(host: OutcomeHost, p: ArenaPlayer, out: ShotOutcome<string>): void {
  const stats = host.cfg.stats;
  const v = out.verdict;
  const client = p.client;
  if (v.kind === VerdictKind.HIT) {
    stats.hits++;
    confirmHits(host, p, out);
  } else if (v.kind === VerdictKind.MISS) {
    stats.misses++;
  } else if (v.kind === VerdictKind.ACTION) {
    stats.actions++;
    host.syncStatus(p);
  } else if (v.kind === VerdictKind.LAUNCH) {
    // The match flies the projectile; its blast reaches the arena through the match's deaths.
    host.syncStatus(p);
  } else {
    const name = reasonName(v.reason);
    stats.rejects[name] = (stats.rejects[name] ?? 0) + 1;
  }
  if (v.kind === VerdictKind.HIT || v.kind === VerdictKind.MISS) host.syncStatus(p);
  for (let i = 0; i < v.impacts.count; i++) addHole(host, p.index, v, i);

  // What the shooter is not sent (fog of war) its reply does not place.
  const reply = verdictReply(v, (slot) => !host.sends(p.index, slot));
  if (v.kind === VerdictKind.LAUNCH) {
    reply.projectile = out.projectile;
    if (out.projectile >= 0) reply.projectileStartMs = out.projectileStartMs;
  }
  if (p.debug && host.cfg.debugVerdicts && Number.isFinite(v.rewindTimeMs)) reply.rewound = rewoundPoses(host, p.sessionId, v.rewindTimeMs);
  client?.send(Msg.VERDICT, reply);
}

/**
 * One hit confirmation to the shooter and one damage direction to each victim per target of the
 * pull (the pellets that struck it summed), for the hits the match applied.
 */
function confirmHits(host: OutcomeHost, p: ArenaPlayer, out: ShotOutcome<string>): void {
  const v = out.verdict;
  const hits = v.hits;
  for (let i = 0; i < out.hits.length; i++) {
    const slot = hits.target[i]!;
    const target = host.seats[slot];
    if (target === null || target === undefined || out.hits[i]!.healthAfter < 0) continue;
    let first = true;
    for (let k = 0; k < i; k++) if (hits.target[k] === slot && out.hits[k]!.healthAfter >= 0) first = false;
    if (!first) continue;
    // This target's hits of the pull: their damage summed, its health after the last, killed by any.
    let damage = 0, health = 0, dead = false, zone = hits.zone[i]!;
    for (let k = i; k < out.hits.length; k++) {
      const a = out.hits[k]!;
      if (hits.target[k] !== slot || a.healthAfter < 0) continue;
      damage += a.damage;
      health = a.healthAfter;
      if (a.killed) dead = true;
      if (hits.zone[k]! < zone) zone = hits.zone[k]!;
    }
    if (dead) killed(host, target, p, v, zone);
    host.syncStatus(target);
    const hit: HitReply = { seq: v.seq, target: slot, zone, damage, killed: dead };
    p.client?.send(Msg.HIT, hit);
    // Toward the shooter only when the victim is sent the shooter: else it would bear on a withheld player.
    if (host.sends(target.index, v.shooter)) damageDirection(direction, host.seats[v.shooter] ?? undefined, target, v);
    else direction.fill(0);
    const dmg: DamagedReply = { from: p.index, damage, health, dx: direction[0]!, dy: direction[1]!, dz: direction[2]! };
    if (target.connected) target.client?.send(Msg.DAMAGED, dmg);
  }
}

/** Every other player's pose at `timeMs` as the rewind sampled it. */
function rewoundPoses(host: OutcomeHost, shooter: string, timeMs: number): RewoundPose[] {
  return host.match.rewoundPoses(shooter, timeMs).map(({ slot, pose: q }) => ({ slot, x: q.x, y: q.y, z: q.z, qx: q.qx, qy: q.qy, qz: q.qz, qw: q.qw, clip: q.clip, time: q.time }));
}

/** Unit vector from the victim's position toward the shooter's (where the damage came from). */
function damageDirection(out: Float64Array, shooter: ArenaPlayer | undefined, target: ArenaPlayer, v: Verdict): void {
  const sx = shooter !== undefined ? shooter.move.x : v.x;
  const sy = shooter !== undefined ? shooter.move.y : v.y;
  const sz = shooter !== undefined ? shooter.move.z : v.z;
  const dx = sx - target.move.x, dy = sy - target.move.y, dz = sz - target.move.z;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (l > 1e-9) {
    out[0] = dx / l; out[1] = dy / l; out[2] = dz / l;
  } else {
    out[0] = 0; out[1] = 0; out[2] = 0;
  }
}

/** The match recorded the death: the victim stops, waits to respawn, and the kill feed shows it. */
function killed(host: OutcomeHost, target: ArenaPlayer, killer: ArenaPlayer, v: Verdict, zone: number): void {
  host.syncStatus(killer);
  recordKill(host, target, killer.index, v.weapon, zone);
}

/** A death the match recorded (by a shot or a blast): the victim waits to respawn, the kill feed shows it. */
export function recordKill(host: OutcomeHost, target: ArenaPlayer, killerSlot: number, weapon: number, zone: number): void {
  const t = host.match.player(target.sessionId)?.diedAtMs ?? host.match.now();
  target.inputs.dropAfter(deadMovesUntilMs(host.match.rules, t));
  target.respawnAtMs = Math.max(t + host.cfg.respawnDelayMs, 1e-9);
  const feed = host.state.killFeed;
  const e = new KillFeedEntry();
  e.killer = killerSlot;
  e.victim = target.index;
  e.weapon = weapon;
  e.zone = zone;
  e.timeMs = t;
  feed.push(e);
  while (feed.length > host.cfg.killFeedLength) feed.shift();
  host.cfg.stats.kills++;
}

/** A bullet hole at impact i of the verdict (an entry, an exit, or where a pellet stopped). */
function addHole(host: OutcomeHost, shooter: number, v: Verdict, i: number): void {
  const m = v.impacts;
  const holes = host.state.holes as ArraySchema<BulletHole>;
  const h = new BulletHole();
  h.x = m.x[i]!; h.y = m.y[i]!; h.z = m.z[i]!;
  // Normals face the pellet's start: an exit hole faces the other way, out of the wall.
  const flip = m.exit[i] === 1 ? -1 : 1;
  h.nx = flip * m.nx[i]!; h.ny = flip * m.ny[i]!; h.nz = flip * m.nz[i]!;
  const s = host.cfg.world.surfaces[m.surface[i]!];
  h.surface = s !== undefined ? `${s.node}/${s.material}` : '';
  h.shooter = shooter;
  h.seq = v.seq >>> 0;
  holes.push(h);
  while (holes.length > host.cfg.maxBulletHoles) holes.shift();
  // Kept (a limit of 0 keeps none): its row in the fog's marks follows.
  if (holes.length > 0 && holes[holes.length - 1] === h) host.fogHoles?.added(h, shooter);
}
