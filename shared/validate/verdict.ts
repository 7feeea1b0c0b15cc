/**
 * The verdict of one shot: what the server decided and why, in a flat record of plain numbers that
 * the room applies, sends back to the shooter and writes to the audit log. Reasons are named codes
 * of one const object so logs, tests and clients agree on them.
 */
import { createImpacts, createPelletResults, createShotHits, hitsToJson, impactsToJson, pelletsToJson, type Impacts, type PelletResults, type ShotHits } from './pelletVerdict';

export const VerdictKind = {
  HIT: 0,
  MISS: 1,
  REJECTED: 2,
  /** A switch or reload that was carried out. */
  ACTION: 3,
  /**
   * A projectile weapon fired: no hit test here; the match flies the projectile (shared/projectile)
   * from the eye point (x, y, z) along the unit direction (nx, ny, nz) from rewindTimeMs on.
   */
  LAUNCH: 4,
} as const;
export type VerdictKind = (typeof VerdictKind)[keyof typeof VerdictKind];

export const VerdictReason = {
  /** A hitbox was hit before the world. */
  OK_HIT: 0,
  /** Nothing hit, or the world was hit first and no hitbox lay behind it along the segment. */
  OK_MISS: 1,
  /** Not a shot frame: wrong type, length or version, or oversized. */
  MALFORMED: 2,
  /** A number in the shot is NaN or infinite. */
  NON_FINITE: 3,
  /** A coordinate or time is finite but absurdly large (beyond ValidationConfig.maxCoordinate / maxTimeMs). */
  OUT_OF_BOUNDS: 4,
  UNKNOWN_WEAPON: 5,
  /** The claimed target slot is neither -1 nor a valid slot. */
  BAD_TARGET: 6,
  /** seq not strictly greater than the last accepted seq of this shooter. */
  SEQ_REPLAYED: 7,
  /** The claimed target is the shooter itself. */
  SELF_TARGET: 8,
  SHOOTER_DEAD: 9,
  FIRE_RATE: 10,
  NO_AMMO: 11,
  /** Claimed action time later than the receive time plus futureSlackMs, or a render time later than the action time plus it. */
  TIME_FUTURE: 12,
  /** Claimed action time more than maxFireLagMs before its arrival, or a render time older than the window plus oldSlackMs before the action. */
  TIME_TOO_OLD: 13,
  /** Segment longer than the weapon's range. */
  OUT_OF_RANGE: 14,
  /** Segment start too far from where the shooter's eye was. */
  ORIGIN_MISMATCH: 15,
  /** World geometry between the shooter's eye and the claimed segment start. */
  START_BLOCKED: 16,
  /** A zero-length segment. */
  DEGENERATE: 17,
  /** The segment reaches a hitbox only after passing through the world: a shot through a wall. */
  OCCLUDED: 18,
  /** Shooter slot unknown to the room (not joined). */
  NO_SHOOTER: 19,
  /** Payload larger than MAX_CLIENT_MESSAGE_BYTES: refused unread. */
  OVERSIZED: 20,
  /** The weapon is not in the shooter's loadout. */
  NOT_CARRIED: 21,
  /** A shot or reload of a weapon other than the equipped one. */
  NOT_EQUIPPED: 22,
  /** A shot or reload before the equipped weapon's draw time has passed. */
  WEAPON_DRAWING: 23,
  /** A shot (or a second reload) while the magazine reloads. */
  RELOADING: 24,
  /** An action time earlier than the shooter's previous accepted action. */
  ACTION_ORDER: 25,
  /** The hitbox hit is not visible from the shooter's eye as the server recorded it (a shot around a corner). */
  NOT_VISIBLE: 26,
  /** A switch to the weapon already equipped. */
  ALREADY_EQUIPPED: 27,
  /** A reload with a full magazine. */
  MAGAZINE_FULL: 28,
  /** A switch was carried out. */
  OK_SWITCH: 29,
  /** A reload was started. */
  OK_RELOAD: 30,
  /** A teammate was hit under friendly fire 'noDamage': the bullet stopped there, no damage. */
  OK_FRIENDLY: 31,
  /** A switch or reload sent to a match whose weapon rules are the game's (ValidationConfig.weaponRules false). */
  RULES_OFF: 32,
  /** An action claimed earlier than what its own stream had already stated (an input, a ping reply, an action), beyond streamSlackMs. */
  BACKDATED: 33,
  /** A pellet that does not follow the pull's spread pattern (rebuilt from the spread seed, the shooter, the seq and the aim): the whole pull is refused. */
  SPREAD_MISMATCH: 34,
  /** A pull claiming a number of pellets other than its weapon fires (none for a weapon without a pattern). */
  PELLET_COUNT: 35,
  /** A projectile was launched (verdict LAUNCH): the match flies it and its impact or blast does the damage. */
  OK_LAUNCH: 36,
} as const;
export type VerdictReason = (typeof VerdictReason)[keyof typeof VerdictReason];

const REASON_NAMES: string[] = [];
for (const [name, code] of Object.entries(VerdictReason)) REASON_NAMES[code] = name;
export const VERDICT_REASON_COUNT = REASON_NAMES.length;

export function reasonName(reason: number): string {
  return REASON_NAMES[reason] ?? `UNKNOWN_${reason}`;
}

/** Where the rewind time came from (Source-style resolution, see shared/validate/shot.ts). */
export const TimeSource = {
  /** No time resolved (rejected before step 3). */
  NONE: 0,
  /** The client's claimed render time, within tolerance of the server's estimate. */
  CLAIMED: 1,
  /** The server's estimate: the claim was overruled. */
  ESTIMATED: 2,
  /** Either of the above, moved into the rewind window. */
  CLAMPED: 3,
} as const;
export type TimeSource = (typeof TimeSource)[keyof typeof TimeSource];

/**
 * The shooter's rules state: read before a weapon message, written (as the state after) into the
 * verdict. Times are claimed action times (the client's server-clock stamps, bounded against
 * arrival by the pipeline), so bunched arrival after a network stall changes nothing.
 */
export interface ShooterState {
  slot: number;
  alive: boolean;
  /** Last seq that passed the structure checks, -1 before the first. */
  lastSeq: number;
  /** Action time of the latest accepted action (shot fired, switch, reload), server ms; -Infinity before the first. */
  lastActionMs: number;
  /** Earliest action time of the next shot (the fire clock), server ms. */
  nextFireMs: number;
  /** Weapon id in hand. */
  equipped: number;
  /** Action time from which the equipped weapon is drawn (may fire or reload), server ms. */
  drawEndMs: number;
  /** Carried weapons as a bit set (bit w = weapon id w). */
  carried: number;
  /** Rounds left, by weapon id. */
  ammo: number[];
  /** Action time at which each weapon's reload completes, server ms; 0 = not reloading. */
  reloadEndMs: number[];
  /** Shots of the current spray not yet recovered from, as of sprayAtMs (spread.ts); 0 after a switch. */
  sprayHeat: number;
  /** Action time of the last shot fired, server ms (-Infinity before the first). */
  sprayAtMs: number;
  /**
   * Pulls fired so far (every life): the index of the next pull's spread pattern (spread.ts). Only a
   * pull that fires moves it, so no client can shop for a pattern without firing.
   */
  pulls: number;
}

/** Bit set of a loadout (weapon ids < 31). */
export function loadoutBits(loadout: readonly number[]): number {
  let bits = 0;
  for (const w of loadout) if (Number.isInteger(w) && w >= 0 && w < 31) bits |= 1 << w;
  return bits;
}

/**
 * A fresh state: every weapon's magazine full, the loadout's first weapon equipped and drawn.
 * Without a loadout every weapon of the table is carried.
 */
export function createShooterState(slot: number, magazines: readonly number[], loadout?: readonly number[]): ShooterState {
  const carried = loadout ?? magazines.map((_, i) => i);
  return {
    slot, alive: true, lastSeq: -1, lastActionMs: Number.NEGATIVE_INFINITY, nextFireMs: 0,
    equipped: carried[0] ?? 0, drawEndMs: 0, carried: loadoutBits(carried),
    ammo: magazines.slice(), reloadEndMs: magazines.map(() => 0), sprayHeat: 0, sprayAtMs: Number.NEGATIVE_INFINITY, pulls: 0,
  };
}

export function copyShooterState(out: ShooterState, src: ShooterState): ShooterState {
  out.slot = src.slot;
  out.alive = src.alive;
  out.lastSeq = src.lastSeq;
  out.lastActionMs = src.lastActionMs;
  out.nextFireMs = src.nextFireMs;
  out.equipped = src.equipped;
  out.drawEndMs = src.drawEndMs;
  out.carried = src.carried;
  out.sprayHeat = src.sprayHeat;
  out.sprayAtMs = src.sprayAtMs;
  out.pulls = src.pulls;
  out.ammo.length = src.ammo.length;
  out.reloadEndMs.length = src.reloadEndMs.length;
  for (let i = 0; i < src.ammo.length; i++) out.ammo[i] = src.ammo[i]!;
  for (let i = 0; i < src.reloadEndMs.length; i++) out.reloadEndMs[i] = src.reloadEndMs[i]!;
  return out;
}

export interface Verdict {
  kind: VerdictKind;
  reason: VerdictReason;
  /** The shot's seq when readable, else -1. */
  seq: number;
  shooter: number;
  weapon: number;
  /** Slot hit (HIT) or the player behind the wall (OCCLUDED), else -1. */
  target: number;
  /** HitZone of the hit, -1 when none. */
  zone: number;
  bone: number;
  hitbox: number;
  /** Fraction along the segment of the deciding hit (hitbox for HIT, world for MISS/OCCLUDED), -1 when none. */
  t: number;
  /** Point and unit normal of the deciding hit. */
  x: number;
  y: number;
  z: number;
  nx: number;
  ny: number;
  nz: number;
  /** True when the world was hit; worldT and the surface index describe that hit (bullet hole). */
  worldHit: boolean;
  worldT: number;
  /** Index into world.surfaces of the world hit, -1 when none. */
  surface: number;
  damage: number;
  /** RewindStatus of the sample of the hit (or occluded) player's history, -1 when none (audits). */
  targetRewindStatus: number;
  /** The time every target was rewound to, server ms (NaN before step 3). */
  rewindTimeMs: number;
  /** The server's estimate of the shooter's render time (action time - interpolation delay), NaN before step 3. */
  estimateMs: number;
  /** Distance from the segment's start to the shooter's eye path, metres (NaN before the geometry step). */
  originOffsetM: number;
  timeSource: TimeSource;
  /** True when the shot counted as fired (it used a round and the fire interval), or the switch or reload was carried out. */
  fired: boolean;
  /** The shooter's rules state after this shot (equal to the state before unless seq/ammo/fire clock moved). */
  after: ShooterState;
  /**
   * Each pellet of a fired pull (one for a single segment), every hit that deals damage (the room
   * applies these, in order) and every impact on the world (bullet holes). Top-level fields above
   * describe the first hit (or, with none, the first pellet's end); damage is the sum of the hits'.
   */
  pellets: PelletResults;
  hits: ShotHits;
  impacts: Impacts;
}

export function createVerdict(): Verdict {
  return {
    kind: VerdictKind.REJECTED, reason: VerdictReason.MALFORMED, seq: -1, shooter: -1, weapon: -1,
    target: -1, zone: -1, bone: -1, hitbox: -1, t: -1, x: 0, y: 0, z: 0, nx: 0, ny: 0, nz: 0,
    worldHit: false, worldT: -1, surface: -1, damage: 0, targetRewindStatus: -1, rewindTimeMs: Number.NaN, estimateMs: Number.NaN, originOffsetM: Number.NaN,
    timeSource: TimeSource.NONE, fired: false, after: createShooterState(-1, []),
    pellets: createPelletResults(), hits: createShotHits(), impacts: createImpacts(),
  };
}

/** A plain JSON-friendly copy of a verdict (NaN written as null by JSON; the audit log compares these). */
export function verdictToRecord(v: Verdict): Record<string, unknown> {
  return {
    kind: v.kind, reason: v.reason, reasonName: reasonName(v.reason), seq: v.seq, shooter: v.shooter, weapon: v.weapon,
    target: v.target, zone: v.zone, bone: v.bone, hitbox: v.hitbox, t: v.t, x: v.x, y: v.y, z: v.z,
    nx: v.nx, ny: v.ny, nz: v.nz, worldHit: v.worldHit, worldT: v.worldT, surface: v.surface, damage: v.damage,
    targetRewindStatus: v.targetRewindStatus, rewindTimeMs: v.rewindTimeMs, estimateMs: v.estimateMs, originOffsetM: v.originOffsetM, timeSource: v.timeSource, fired: v.fired,
    after: { ...v.after, ammo: v.after.ammo.slice(), reloadEndMs: v.after.reloadEndMs.slice() },
    pellets: pelletsToJson(v.pellets), hits: hitsToJson(v.hits), impacts: impactsToJson(v.impacts),
  };
}
