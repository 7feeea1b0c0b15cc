/**
 * The weapon table: what a shot may claim (range), how often it may happen (fire interval,
 * magazine, reload, draw time) and what it does when it lands (base damage times the hit zone's
 * multiplier), and the loadout a player spawns with. Plain data shared by the server, clients and
 * the audit replay, so all three agree on the rules. The table's content goes into the audit log
 * header, so a replay uses the rules of its match.
 */

export const WeaponId = {
  RIFLE: 0,
  PISTOL: 1,
  SNIPER: 2,
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
}

/** Indexed by WeaponId. */
export const WEAPONS: readonly WeaponSpec[] = [
  { id: WeaponId.RIFLE, name: 'rifle', damage: 25, rangeM: 200, fireIntervalMs: 100, magazine: 30, reloadMs: 2000, drawMs: 500, zoneMultipliers: null },
  { id: WeaponId.PISTOL, name: 'pistol', damage: 20, rangeM: 80, fireIntervalMs: 250, magazine: 12, reloadMs: 1500, drawMs: 300, zoneMultipliers: null },
  { id: WeaponId.SNIPER, name: 'sniper', damage: 60, rangeM: 500, fireIntervalMs: 1200, magazine: 5, reloadMs: 3000, drawMs: 800, zoneMultipliers: null },
];

/**
 * What a player carries, as weapon ids; the first is equipped (and drawn) at every spawn. A shot,
 * switch or reload may name only a carried weapon.
 */
export const DEFAULT_LOADOUT: readonly number[] = [WeaponId.RIFLE, WeaponId.PISTOL, WeaponId.SNIPER];

/** The weapon with this id, or undefined for anything that is not a known integer id. */
export function weaponById(table: readonly WeaponSpec[], id: number): WeaponSpec | undefined {
  if (!Number.isInteger(id) || id < 0 || id >= table.length) return undefined;
  const w = table[id];
  return w !== undefined && w.id === id ? w : undefined;
}
