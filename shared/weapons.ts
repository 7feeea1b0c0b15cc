/**
 * The weapon table: what a shot may claim (range), how often it may happen (fire interval,
 * magazine, reload, draw time) and what it does when it lands (base damage times the hit zone's
 * multiplier), whether its trace is thin (a bullet) or has a radius (melee), and the loadout a
 * player spawns with. Plain data shared by the server, clients and
 * the audit replay, so all three agree on the rules. The table's content goes into the audit log
 * header, so a replay uses the rules of its match.
 */

export const WeaponId = {
  RIFLE: 0,
  PISTOL: 1,
  SNIPER: 2,
  SHOTGUN: 3,
  KNIFE: 4,
  ROCKET: 5,
  GRENADE: 6,
} as const;
export type WeaponId = (typeof WeaponId)[keyof typeof WeaponId];

export interface WeaponSpec {
  readonly id: number;
  readonly name: string;
  /** Damage of a hit before the zone multiplier. */
  readonly damage: number;
  /** Longest segment a shot of this weapon may claim, metres. */
  readonly rangeM: number;
  /** Minimum time between two shots, ms (the fire rate is 1000 / fireIntervalMs per second). */
  readonly fireIntervalMs: number;
  /** Rounds per magazine; a reload (started by the last round, or asked for) takes reloadMs. */
  readonly magazine: number;
  readonly reloadMs: number;
  /** Time from a switch to this weapon until it can fire or reload, ms. */
  readonly drawMs: number;
  /**
   * Per-zone multipliers indexed by HitZone, or null for the rig's defaults. A weapon can, for
   * example, make heads worth less for a shotgun; the validation pipeline reads this table only.
   */
  readonly zoneMultipliers: readonly number[] | null;
  /**
   * Damage falloff by distance along the segment (from its start to the hit), as points sorted by
   * distance: the multiplier is linear between two points and that of the nearest end outside them.
   * Absent or empty: no falloff.
   */
  readonly falloff?: readonly FalloffPoint[] | null;
  /**
   * Pellets per trigger pull (1..MAX_PELLETS; absent: 1). A pull is one action (one round, one fire
   * interval, one log record); each pellet is judged and damages on its own.
   */
  readonly pellets?: number;
  /**
   * Radius of the spread pattern one metre from the muzzle, metres (the tangent of the half-angle);
   * absent or 0: every pellet flies along the aim. A weapon with spread (or more than one pellet)
   * fires pellets drawn from a pattern the client can compute but not choose (shared/validate/spread.ts).
   */
  readonly spread?: number;
  /** Spray: the radius grows by this for each shot of a burst (absent: 0), up to spreadMax. */
  readonly spreadPerShot?: number;
  readonly spreadMax?: number;
  /** Spray: one shot of the burst is forgotten per this many ms without firing (absent: 1000). */
  readonly spreadRecoverMs?: number;
  /**
   * Penetration power: what a bullet can spend going through walls, in metres of a material of
   * resistance 1 (ValidationConfig.materials). A wall costs its thickness x its material's
   * resistance; a player costs ValidationConfig.playerPenetrationCost. Damage beyond falls in
   * proportion to the power left. Absent or 0: the bullet stops at the first thing it meets.
   */
  readonly penetration?: number;
  /**
   * Radius of the trace, metres: absent or 0, a thin bullet (a segment); above 0, a melee weapon,
   * whose swing is a capsule of this radius around the claimed segment (a sphere swept along it),
   * so it reaches a body within the radius of the line a bullet would miss. Its reach is rangeM from
   * the start; radius / rangeM is the tangent of the half-angle it covers at full reach. A melee
   * weapon uses no rounds (magazine and reloadMs are not read), has no pattern and no penetration,
   * and the level is tested with the thin segment from the start to the body's contact point
   * (shared/validate/melee.ts).
   */
  readonly radius?: number;
  /**
   * A projectile weapon: the shot is a sphere flown by shared/projectile (not a hitscan segment) and
   * may explode. Absent: hitscan. `damage` is then unused by the flight; directDamage is the impact's.
   */
  readonly projectile?: ProjectileSpec;
}

/** The widest trace a melee weapon may have, metres. */
export const MAX_MELEE_RADIUS = 1;

/** Whether `w` is a melee weapon (its trace has a radius): no rounds, no pattern, no penetration. */
export function isMelee(w: WeaponSpec): boolean {
  return (w.radius ?? 0) > 0;
}

/**
 * How a projectile flies and what it does (shared/projectile/flight.ts, explosion.ts). Units:
 * metres, seconds for speeds (m/s, m/s^2), milliseconds for times.
 */
export interface ProjectileSpec {
  /** Launch speed along the aim, m/s (> 0). */
  readonly speed: number;
  /** Downward acceleration, m/s^2 (>= 0; 0 flies straight). */
  readonly gravity: number;
  /** Radius of the flying sphere, m (>= 0). */
  readonly radius: number;
  /** The projectile vanishes (no explosion) this long after launch, ms (> 0). */
  readonly lifetimeMs: number;
  /** Explodes where it is this long after launch, ms; 0: explodes on impact instead. */
  readonly fuseMs: number;
  /**
   * 0: a contact with the level ends the flight (explodes when fuseMs is 0). Otherwise the
   * restitution (0..1] of a bounce: the velocity's normal component is reversed and scaled by it,
   * the tangential one kept.
   */
  readonly bounce: number;
  /** The blast, absent: no explosion (direct damage only). Damage falls linearly with distance. */
  readonly splash?: SplashSpec;
  /**
   * Damage to the player a flight ends on (before the zone multiplier), >= 0: an impact projectile
   * (fuseMs 0) striking a player. A fused one bounces off or sticks to a player without direct
   * damage; its blast at the fuse does the harm.
   */
  readonly directDamage: number;
  /**
   * The shooter cannot be touched by its own projectile during this much of the flight, ms
   * (absent: DEFAULT_SHOOTER_GRACE_MS); later it can (a grenade bouncing back).
   */
  readonly shooterGraceMs?: number;
}

/** A blast: damageMax at distance 0 falling linearly to damageMin at `radius`, nothing beyond. */
export interface SplashSpec {
  /** m, > 0. */
  readonly radius: number;
  readonly damageMax: number;
  readonly damageMin: number;
}

/** Time during which a projectile cannot touch its shooter when the spec names none, ms. */
export const DEFAULT_SHOOTER_GRACE_MS = 250;

/** The most pellets one pull may fire (the message carries each pellet's stop point). */
export const MAX_PELLETS = 16;

/** Pellets of one pull of `w` (1 when the spec names none). */
export function pelletsOf(w: WeaponSpec): number {
  return w.pellets ?? 1;
}

/** Whether `w` fires from a spread pattern: the client then sends its aim and each pellet's stop. */
export function hasPattern(w: WeaponSpec): boolean {
  return (w.pellets ?? 1) > 1 || (w.spread ?? 0) > 0 || (w.spreadPerShot ?? 0) > 0;
}

/** A point of a weapon's falloff curve: at `distanceM` metres the damage is multiplied by `multiplier`. */
export interface FalloffPoint {
  readonly distanceM: number;
  readonly multiplier: number;
}

/**
 * The falloff multiplier of `points` at `distanceM` (1 without points): piecewise linear, held
 * constant beyond either end. Only + - * / and comparisons: the same bits in every engine.
 */
export function falloffAt(points: readonly FalloffPoint[] | null | undefined, distanceM: number): number {
  if (points === null || points === undefined || points.length === 0) return 1;
  const first = points[0]!;
  if (!(distanceM > first.distanceM)) return first.multiplier;
  for (let i = 1; i < points.length; i++) {
    const b = points[i]!;
    if (distanceM <= b.distanceM) {
      const a = points[i - 1]!;
      const span = b.distanceM - a.distanceM;
      return span > 0 ? a.multiplier + ((b.multiplier - a.multiplier) * (distanceM - a.distanceM)) / span : b.multiplier;
    }
  }
  return points[points.length - 1]!.multiplier;
}

/**
 * Why a weapon table cannot be used, or null when it can: ids 0..n-1 in order, positive finite
 * numbers where a rule needs them, falloff points sorted by distance with finite multipliers.
 */
export function weaponTableProblem(table: readonly WeaponSpec[]): string | null {
  if (!Array.isArray(table) || table.length === 0) return 'the weapon table is empty';
  if (table.length > 31) return `${table.length} weapons: at most 31 (a loadout is a bit set)`;
  for (let i = 0; i < table.length; i++) {
    const w = table[i]!;
    const at = `weapon ${i} (${typeof w?.name === 'string' ? w.name : '?'})`;
    if (w === null || typeof w !== 'object') return `${at} is not an object`;
    if (w.id !== i) return `${at} has id ${String(w.id)}: ids must be 0..${table.length - 1} in table order`;
    const positive = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
    const nonNegative = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
    if (!nonNegative(w.damage)) return `${at}: damage ${String(w.damage)} must be a finite number >= 0`;
    if (!positive(w.rangeM)) return `${at}: rangeM ${String(w.rangeM)} must be > 0`;
    if (!nonNegative(w.fireIntervalMs) || !nonNegative(w.reloadMs) || !nonNegative(w.drawMs)) return `${at}: fireIntervalMs, reloadMs and drawMs must be finite numbers >= 0`;
    if (!(Number.isInteger(w.magazine) && w.magazine >= 1)) return `${at}: magazine ${String(w.magazine)} must be an integer >= 1`;
    if (w.zoneMultipliers !== null && w.zoneMultipliers !== undefined && !(Array.isArray(w.zoneMultipliers) && w.zoneMultipliers.every(nonNegative))) return `${at}: zoneMultipliers must be null or finite numbers >= 0 by hit zone`;
    const f = w.falloff;
    if (f !== null && f !== undefined) {
      if (!Array.isArray(f)) return `${at}: falloff must be a list of { distanceM, multiplier }`;
      for (let k = 0; k < f.length; k++) {
        const p = f[k];
        if (p === null || typeof p !== 'object' || !nonNegative(p.distanceM) || !nonNegative(p.multiplier)) return `${at}: falloff[${k}] must have finite distanceM >= 0 and multiplier >= 0`;
        if (k > 0 && !(p.distanceM > f[k - 1]!.distanceM)) return `${at}: falloff distances must increase (falloff[${k}])`;
      }
    }
    const pattern = patternProblem(w, at) ?? projectileProblem(w.projectile, at);
    if (pattern !== null) return pattern;
  }
  return null;
}

/** The pattern, penetration and radius fields of one weapon (weaponTableProblem's second half). */
function patternProblem(w: WeaponSpec, at: string): string | null {
  const optional = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0);
  if (w.pellets !== undefined && !(Number.isInteger(w.pellets) && w.pellets >= 1 && w.pellets <= MAX_PELLETS)) return `${at}: pellets ${String(w.pellets)} must be an integer 1..${MAX_PELLETS}`;
  if (!optional(w.spread) || !optional(w.spreadPerShot) || !optional(w.spreadMax) || !optional(w.penetration)) return `${at}: spread, spreadPerShot, spreadMax and penetration must be finite numbers >= 0`;
  if ((w.spread ?? 0) > 1 || (w.spreadMax ?? 0) > 1) return `${at}: spread and spreadMax must be at most 1 (a 45-degree cone)`;
  if (w.spreadRecoverMs !== undefined && !(typeof w.spreadRecoverMs === 'number' && Number.isFinite(w.spreadRecoverMs) && w.spreadRecoverMs > 0)) return `${at}: spreadRecoverMs must be > 0`;
  if (!optional(w.radius) || (w.radius ?? 0) > MAX_MELEE_RADIUS) return `${at}: radius ${String(w.radius)} must be a finite number from 0 to ${MAX_MELEE_RADIUS}`;
  if (isMelee(w) && (hasPattern(w) || (w.penetration ?? 0) > 0)) return `${at}: a melee weapon (radius > 0) has no pellets, spread or penetration`;
  return null;
}

/** The projectile fields of one weapon, or null when absent or valid. */
function projectileProblem(p: ProjectileSpec | undefined, at: string): string | null {
  if (p === undefined) return null;
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (p === null || typeof p !== 'object') return `${at}: projectile must be an object`;
  if (!(finite(p.speed) && p.speed > 0) || !(finite(p.lifetimeMs) && p.lifetimeMs > 0)) return `${at}: projectile speed and lifetimeMs must be > 0`;
  if (!(finite(p.gravity) && p.gravity >= 0) || !(finite(p.radius) && p.radius >= 0) || !(finite(p.fuseMs) && p.fuseMs >= 0) || !(finite(p.directDamage) && p.directDamage >= 0)) {
    return `${at}: projectile gravity, radius, fuseMs and directDamage must be finite numbers >= 0`;
  }
  if (!(finite(p.bounce) && p.bounce >= 0 && p.bounce <= 1)) return `${at}: projectile bounce must be 0..1`;
  if (p.shooterGraceMs !== undefined && !(finite(p.shooterGraceMs) && p.shooterGraceMs >= 0)) return `${at}: projectile shooterGraceMs must be >= 0`;
  const s = p.splash;
  if (s !== undefined) {
    if (s === null || typeof s !== 'object' || !(finite(s.radius) && s.radius > 0)) return `${at}: splash radius must be > 0`;
    if (!(finite(s.damageMax) && s.damageMax >= 0) || !(finite(s.damageMin) && s.damageMin >= 0)) return `${at}: splash damageMax and damageMin must be finite numbers >= 0`;
  }
  return null;
}

/** Indexed by WeaponId. */
export const WEAPONS: readonly WeaponSpec[] = [
  { id: WeaponId.RIFLE, name: 'rifle', damage: 25, rangeM: 200, fireIntervalMs: 100, magazine: 30, reloadMs: 2000, drawMs: 500, zoneMultipliers: null },
  { id: WeaponId.PISTOL, name: 'pistol', damage: 20, rangeM: 80, fireIntervalMs: 250, magazine: 12, reloadMs: 1500, drawMs: 300, zoneMultipliers: null },
  // The sniper's round goes through up to 0.6 m of a material of resistance 1 (the default: the
  // shipped level's walls are 0.4 m and thicker) or 0.3 m of one of resistance 2.
  { id: WeaponId.SNIPER, name: 'sniper', damage: 60, rangeM: 500, fireIntervalMs: 1200, magazine: 5, reloadMs: 3000, drawMs: 800, zoneMultipliers: null, penetration: 0.6 },
  {
    id: WeaponId.SHOTGUN, name: 'shotgun', damage: 12, rangeM: 40, fireIntervalMs: 900, magazine: 6, reloadMs: 2500, drawMs: 500,
    zoneMultipliers: null, pellets: 8, spread: 0.06, falloff: [{ distanceM: 8, multiplier: 1 }, { distanceM: 30, multiplier: 0.25 }],
  },
  // The knife: a 0.25 m thick swing reaching 2 m (radius / range: about 7 degrees either side of the
  // aim at full reach, wider up close), no rounds.
  { id: WeaponId.KNIFE, name: 'knife', damage: 55, rangeM: 2, fireIntervalMs: 450, magazine: 1, reloadMs: 0, drawMs: 250, zoneMultipliers: null, radius: 0.25 },
  // Projectiles (not in the default loadout; the arena's carries them). rangeM: the farthest the flight can carry.
  {
    id: WeaponId.ROCKET, name: 'rocket', damage: 100, rangeM: 100, fireIntervalMs: 800, magazine: 1, reloadMs: 1500, drawMs: 600, zoneMultipliers: null,
    projectile: { speed: 20, gravity: 0, radius: 0.3, lifetimeMs: 5000, fuseMs: 0, bounce: 0, splash: { radius: 4, damageMax: 100, damageMin: 10 }, directDamage: 100 },
  },
  {
    id: WeaponId.GRENADE, name: 'grenade', damage: 10, rangeM: 60, fireIntervalMs: 1000, magazine: 1, reloadMs: 1000, drawMs: 400, zoneMultipliers: null,
    projectile: { speed: 15, gravity: 9.81, radius: 0.08, lifetimeMs: 4000, fuseMs: 2500, bounce: 0.45, splash: { radius: 5, damageMax: 120, damageMin: 15 }, directDamage: 10 },
  },
];

/**
 * What a player carries, as weapon ids; the first is equipped (and drawn) at every spawn. A shot,
 * switch or reload may name only a carried weapon.
 */
export const DEFAULT_LOADOUT: readonly number[] = [WeaponId.RIFLE, WeaponId.PISTOL, WeaponId.SNIPER, WeaponId.SHOTGUN, WeaponId.KNIFE];

/**
 * The game server's loadout when its options name none (createGameServer, `npm start`, the
 * simulator's in-process arena): the default loadout, then the rocket and the grenade (keys 6 and 7 on the page).
 */
export const ARENA_LOADOUT: readonly number[] = [...DEFAULT_LOADOUT, WeaponId.ROCKET, WeaponId.GRENADE];

/** The weapon with this id, or undefined for anything that is not a known integer id. */
export function weaponById(table: readonly WeaponSpec[], id: number): WeaponSpec | undefined {
  if (!Number.isInteger(id) || id < 0 || id >= table.length) return undefined;
  const w = table[id];
  return w !== undefined && w.id === id ? w : undefined;
}
