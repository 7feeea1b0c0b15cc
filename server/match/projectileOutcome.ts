/**
 * What a projectile's end did (HitregMatch flies them, shared/projectile/flights.ts): the direct hit
 * and the blast's share for each victim, applied to the players by slot the way shot hits are
 * (outcome.ts applyHits): health falls by the damage, the hit that takes it to 0 kills through
 * `die` (the shooter is the killer; its own blast hurts and may kill it). Friendly fire follows the
 * rules: 'off' spares teammates, 'noDamage' applies 0 to them; the shooter itself always takes its
 * share. What was applied is written back into the end and blast records for the log.
 */
import type { ProjectileBlastData, ProjectileEndData } from '../../shared/projectile/flights';
import { FlightEventKind } from '../../shared/projectile/flight';
import type { FriendlyFire } from '../../shared/validate/rules';
import type { MatchPlayer } from './player';
import type { AppliedHit } from './outcome';

export interface ProjectileOutcome<Id> {
  /** The projectile's id (the log's), its shooter (null once gone) and weapon. */
  id: number;
  shooter: Id | null;
  weapon: number;
  /** The launch's seq (the shooter's weapon message). */
  seq: number;
  /** How the flight ended (FlightEventKind: PLAYER, LEVEL, FUSE, EXPIRED). */
  kind: FlightEventKind;
  /** Where and when, match ms. */
  x: number; y: number; z: number; timeMs: number;
  /** Whether it exploded (every end but EXPIRED, for a weapon with a splash). */
  exploded: boolean;
  /** The player the projectile itself struck (kind PLAYER), -1 for none. */
  player: number;
  /** The shooter's slot when it launched (its projectile flies on after it leaves). */
  shooterSlot: number;
  /** The direct hit first (when kind is PLAYER), then each blast victim (read at once). */
  hits: AppliedHit<Id>[];
  /** Per entry of hits: the victim's slot and the HitZone struck (the blast's: the part that saw the centre). */
  slots: number[];
  zones: number[];
  /** Damage applied in all, and whether any of it killed. */
  damage: number;
  killed: boolean;
}

export function createProjectileOutcome<Id>(): ProjectileOutcome<Id> {
  return { id: -1, shooter: null, weapon: -1, seq: -1, kind: FlightEventKind.NONE, x: NaN, y: NaN, z: NaN, timeMs: NaN, player: -1, shooterSlot: -1, exploded: false, hits: [], slots: [], zones: [], damage: 0, killed: false };
}

type Die<Id> = (victim: MatchPlayer<Id>, killer: MatchPlayer<Id>) => void;

/** Applies `end` (and `blast`) of a projectile of `shooter` into `out`, `end` and `blast`. */
export function applyProjectileEnd<Id>(
  out: ProjectileOutcome<Id>, end: ProjectileEndData, blast: ProjectileBlastData | null,
  bySlot: readonly (MatchPlayer<Id> | null)[], shooter: MatchPlayer<Id>, friendlyFire: FriendlyFire, die: Die<Id>,
): void {
  out.id = end.id;
  out.shooter = shooter.id;
  out.weapon = end.weapon;
  out.seq = end.seq;
  out.kind = end.kind;
  out.x = end.x; out.y = end.y; out.z = end.z; out.timeMs = end.timeMs;
  out.exploded = blast !== null;
  out.damage = 0;
  out.killed = false;
  out.shooterSlot = end.shooter;
  out.player = end.kind === FlightEventKind.PLAYER ? end.player : -1;
  out.hits.length = 0;
  out.slots.length = 0;
  out.zones.length = 0;
  if (end.player >= 0 && end.damage > 0) {
    out.slots.push(end.player);
    out.zones.push(end.zone);
    const a = applyOne(out, bySlot[end.player] ?? null, end.damage, shooter, friendlyFire, die);
    end.applied = a.damage; end.healthAfter = a.healthAfter; end.killed = a.killed;
  }
  if (blast === null) return;
  const h = blast.hits;
  for (let k = 0; k < h.count; k++) {
    out.slots.push(h.player[k]!);
    out.zones.push(h.zone[k]!);
    const a = applyOne(out, bySlot[h.player[k]!] ?? null, h.damage[k]!, shooter, friendlyFire, die);
    blast.applied[k] = a.damage; blast.healthAfter[k] = a.healthAfter; blast.killed[k] = a.killed ? 1 : 0;
  }
}

function applyOne<Id>(out: ProjectileOutcome<Id>, victim: MatchPlayer<Id> | null, damage: number, shooter: MatchPlayer<Id>, ff: FriendlyFire, die: Die<Id>): AppliedHit<Id> {
  const a: AppliedHit<Id> = { target: victim?.id ?? null, damage: 0, healthAfter: -1, killed: false };
  out.hits.push(a);
  if (victim === null || !victim.alive || !(damage > 0)) return a;
  const mate = victim !== shooter && victim.team >= 0 && victim.team === shooter.team;
  if (mate && ff !== 'full') return a;
  victim.health = Math.max(0, victim.health - damage);
  a.damage = damage;
  a.healthAfter = victim.health;
  out.damage += damage;
  if (victim.health <= 0) {
    a.killed = true;
    out.killed = true;
    die(victim, shooter);
  }
  return a;
}
