/**
 * What judging a weapon message did (HitregMatch.shot): the verdict, who was hit, the damage the
 * match applied and whether it killed (also written into the shot's log record); and the verdict as
 * the JSON reply a shooter's client reads (the shape hitreg's own clients and prediction use).
 */
import { createVerdict, reasonName, VerdictKind, VerdictReason, type Verdict } from '../../shared/validate/verdict';
import type { MatchPlayer } from './player';
import type { VerdictReply } from '../../shared/protocol/messages';
import type { ShotRecord } from './recorder';

export interface ShotOptions {
  /** Match ms when the message arrived (default: now). A message held back to be judged later keeps its arrival time. */
  receiveTimeMs?: number;
  /**
   * Render time for an object message without one, server ms: e.g. the stamp Colyseus's own input
   * stream gives (`this.inputs.get(sessionId).renderTime` on the room's clock; see docs/module.md, Messages).
   * Default: the action time less the player's interpolation delay.
   */
  renderTimeMs?: number;
  /** false: only byte frames are weapon messages; an object is MALFORMED like any other non-frame. Default true. */
  objects?: boolean;
  /**
   * The player's stream floor when the message arrived (match.streamFloor(id) then), for a message
   * held back and judged later: what arrives after it must not count against it. Default: now.
   */
  streamFloorMs?: number;
}

/** What the match did with one of a verdict's hits (verdict.hits, same index). */
export interface AppliedHit<Id> {
  target: Id | null;
  /** Damage taken (0: a teammate, a player already dead or gone). */
  damage: number;
  /** The target's health after (-1 when it took no damage). */
  healthAfter: number;
  killed: boolean;
}

export interface ShotOutcome<Id> {
  /** The verdict (shared/validate/verdict.ts): kind, reason, target slot, zone, damage, point, ... */
  verdict: Verdict;
  shooter: Id;
  /** The player whose hitbox decided the verdict (a hit, or one behind a wall), null when none. */
  target: Id | null;
  /** Damage applied by every hit of the pull (0 when none: a miss, a teammate, a player already dead). */
  damage: number;
  /** The target's health after its last hit (-1 when it took no damage). */
  healthAfter: number;
  /** Whether any hit killed. */
  killed: boolean;
  /** Each of verdict.hits as applied, in order (pellets, players passed through): reused, read at once. */
  hits: AppliedHit<Id>[];
  /** Why an object message could not be a frame (the verdict is MALFORMED); '' otherwise. */
  problem: string;
  /**
   * A launch (verdict LAUNCH): the projectile's id (its end comes later, through the match's
   * onProjectile hook), -1 otherwise; when the launch was not flown, why (PROJECTILE_LIMIT), else ''.
   */
  projectile: number;
  projectileRefusal: string;
  /** A flown launch: the server time its flight started (the catch-up's start), NaN otherwise. */
  projectileStartMs: number;
}

export function createShotOutcome<Id>(): ShotOutcome<Id> {
  return { verdict: createVerdict(), shooter: undefined as unknown as Id, target: null, damage: 0, healthAfter: -1, killed: false, hits: [], problem: '', projectile: -1, projectileRefusal: '', projectileStartMs: Number.NaN };
}

/**
 * Applies each of the verdict's hits in order to the players by slot: a living target's health
 * falls by the hit's damage, and the hit that takes it to 0 kills through `die` (later pellets find
 * it dead). Fills out.hits, damage, healthAfter (of the top-level target) and killed (by any hit).
 */
export function applyHits<Id>(
  out: ShotOutcome<Id>, bySlot: readonly (MatchPlayer<Id> | null)[], shooter: MatchPlayer<Id>,
  die: (victim: MatchPlayer<Id>, killer: MatchPlayer<Id>) => void,
): void {
  const v = out.verdict;
  const hits = v.hits;
  const applied = out.hits;
  applied.length = v.kind === VerdictKind.HIT ? hits.count : 0;
  for (let i = 0; i < applied.length; i++) {
    const a = applied[i] ?? (applied[i] = { target: null, damage: 0, healthAfter: -1, killed: false });
    const victim = bySlot[hits.target[i]!];
    a.target = victim?.id ?? null;
    a.damage = 0;
    a.healthAfter = -1;
    a.killed = false;
    if (victim === null || victim === undefined || !victim.alive || hits.reason[i] !== VerdictReason.OK_HIT) continue;
    const damage = hits.damage[i]!;
    victim.health = Math.max(0, victim.health - damage);
    a.damage = damage;
    a.healthAfter = victim.health;
    out.damage += damage;
    if (victim.slot === v.target) out.healthAfter = victim.health;
    if (victim.health <= 0) {
      a.killed = true;
      out.killed = true;
      die(victim, shooter);
    }
  }
}

/** What applyHits did, into the shot's log record: the target's health after, any kill, each hit's health after and kill. */
export function recordApplied<Id>(rec: ShotRecord, out: ShotOutcome<Id>): void {
  rec.targetHealthAfter = out.healthAfter;
  rec.killed = out.killed;
  const hh = rec.hitHealthAfter, hk = rec.hitKilled;
  hh.length = out.hits.length;
  hk.length = out.hits.length;
  for (let i = 0; i < out.hits.length; i++) {
    hh[i] = out.hits[i]!.healthAfter;
    hk[i] = out.hits[i]!.killed;
  }
}

/**
 * The verdict as the JSON reply hitreg's clients read (VerdictReply). With fog of war, `withheld(slot)`
 * says whether that player is withheld from the shooter now (FogFilter: `!fog.isSent(shooter, slot)`):
 * the reply then tells nothing of where a withheld player is (see maskWithheld).
 */
export function verdictReply(v: Verdict, withheld?: (slot: number) => boolean): VerdictReply {
  const reply: VerdictReply = {
    seq: v.seq, kind: v.kind, reason: v.reason, reasonName: reasonName(v.reason), target: v.target, zone: v.zone,
    t: v.t, damage: v.damage, rewindTimeMs: Number.isFinite(v.rewindTimeMs) ? v.rewindTimeMs : -1, timeSource: v.timeSource,
    originOffsetM: Number.isFinite(v.originOffsetM) ? v.originOffsetM : -1,
  };
  const p = v.pellets;
  const passedWall = p.count === 1 && p.walls[0]! > 0;
  if (p.count > 1 || passedWall) {
    reply.pellets = [];
    for (let k = 0; k < p.count; k++) reply.pellets.push({ reason: p.reason[k]!, walls: p.walls[k]!, target: p.target[k]!, x: p.px[k]!, y: p.py[k]!, z: p.pz[k]! });
    const m = v.impacts;
    reply.impacts = [];
    for (let i = 0; i < m.count; i++) reply.impacts.push({ x: m.x[i]!, y: m.y[i]!, z: m.z[i]!, nx: m.nx[i]!, ny: m.ny[i]!, nz: m.nz[i]!, exit: m.exit[i] === 1 });
  }
  if (withheld !== undefined) maskWithheld(reply, v, withheld);
  return reply;
}

/**
 * Takes out of a reply what would place a player withheld from the shooter (fog of war). A pellet
 * that met one (first, or after passing players it is sent) names it only when it hit, and stops,
 * in the reply, at the last hole in the level or hit on a player the shooter is sent before the
 * first such player (at its end when there is none). A shot refused because such a player stood
 * behind a wall (OCCLUDED) or around a corner (NOT_VISIBLE) reads as the miss it is on the
 * shooter's screen (MISS, OK_MISS, no target or zone, t where its first pellet stopped as above;
 * the round was used either way). A hit on one keeps its target, zone and damage (the hit marker a
 * game shows) but not where along the shot (t -1). The verdict itself, the log and the audit keep
 * the truth.
 */
function maskWithheld(reply: VerdictReply, v: Verdict, withheld: (slot: number) => boolean): void {
  const p = v.pellets, m = v.impacts, h = v.hits;
  let firstT = p.count > 0 && p.stopT[0]! < 1 ? p.stopT[0]! : -1;
  for (let k = 0; k < p.count; k++) {
    const limit = withheldFrom(v, k, withheld);
    if (limit === Infinity) continue;
    // The last place up to there the shooter may be told of: a hole in the level, or a hit on a player it is sent.
    let t = -1, x = p.ex[k]!, y = p.ey[k]!, z = p.ez[k]!;
    for (let i = 0; i < m.count; i++) {
      if (m.pellet[i] === k && m.t[i]! <= limit && m.t[i]! > t) { t = m.t[i]!; x = m.x[i]!; y = m.y[i]!; z = m.z[i]!; }
    }
    for (let i = 0; i < h.count; i++) {
      if (h.pellet[i] === k && h.t[i]! < limit && h.t[i]! > t && !withheld(h.target[i]!)) { t = h.t[i]!; x = h.x[i]!; y = h.y[i]!; z = h.z[i]!; }
    }
    if (k === 0) firstT = t;
    const out = reply.pellets?.[k];
    if (out === undefined) continue;
    out.x = x; out.y = y; out.z = z;
    if (out.reason !== VerdictReason.OK_HIT && p.target[k]! >= 0 && withheld(p.target[k]!)) {
      out.reason = VerdictReason.OK_MISS;
      out.target = -1;
    }
  }
  if (!(v.target >= 0 && withheld(v.target))) return;
  if (v.kind === VerdictKind.HIT) {
    reply.t = -1;
    return;
  }
  if (v.reason === VerdictReason.OCCLUDED || v.reason === VerdictReason.NOT_VISIBLE) {
    reply.kind = VerdictKind.MISS;
    reply.reason = VerdictReason.OK_MISS;
    reply.reasonName = reasonName(VerdictReason.OK_MISS);
    reply.t = firstT;
  } else reply.t = -1;
  reply.target = -1;
  reply.zone = -1;
}

/**
 * Where along pellet k it first met a player withheld from the shooter: its earliest hit on one, or
 * where it stopped when the first player it met (refused behind a wall or a corner) is one;
 * Infinity when it met none.
 */
function withheldFrom(v: Verdict, k: number, withheld: (slot: number) => boolean): number {
  const h = v.hits, first = v.pellets.target[k]!;
  let limit = Infinity, firstHit = false;
  for (let i = 0; i < h.count; i++) {
    if (h.pellet[i] !== k) continue;
    if (h.target[i] === first) firstHit = true;
    if (h.t[i]! < limit && withheld(h.target[i]!)) limit = h.t[i]!;
  }
  // Refused at the first player it met (no hit on it): where it stopped.
  const stop = v.pellets.stopT[k]!;
  if (first >= 0 && !firstHit && stop < limit && withheld(first)) limit = stop;
  return limit;
}
