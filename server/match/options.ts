/**
 * What a game gives a match (HitregMatchOptions) and the rules it makes of them: the weapon table
 * and loadout, weapon rules on or off, friendly fire, tolerances, health. Every option is checked
 * once, at construction, with a message that says what to give instead. Also the match log's header
 * made of them, and what a join's options become (team number, interpolation delay).
 */
import type { ProjectileOutcome } from './projectileOutcome';
import type { World } from '../../shared/world/world';
import type { Rig } from '../../shared/rig/rig';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../../shared/rig/rig';
import { WEAPONS, weaponTableProblem, type WeaponSpec } from '../../shared/weapons';
import { defaultValidationConfig, FRIENDLY_FIRE_POLICIES, type FriendlyFire, type ValidationConfig } from '../../shared/validate/rules';
import type { MoveConfig } from '../../shared/movement/step';
import { webcrypto } from 'node:crypto';
import { HEADER_LAYOUT_VERSION, type MatchHeader, type MatchRecorder } from './recorder';
import type { SceneOptions } from '../../shared/validate/scene';
import type { PoseAdapter } from './poses';

export interface HitregMatchOptions<Id> {
  /** The level's collision world and the characters' hitbox rig. */
  world: World;
  rig: Rig;
  /** Fixed ticks per second of the game's simulation (snapshots are taken once per tick). */
  tickRate: number;
  /** Players at once (history slots). */
  maxPlayers: number;
  /** Reads a player's pose from the game's own state, once per tick (poses.ts). */
  poses: PoseAdapter<Id>;
  /** The weapon table (ids 0..n-1 in order); hitreg's rifle, pistol, sniper and shotgun by default. */
  weapons?: readonly WeaponSpec[];
  /** Weapon ids every player carries; the first is in hand at each spawn. Default: the whole table. */
  loadout?: readonly number[];
  /** false: the game enforces its own weapon rules (fire rate, ammo, reloads, draws); hitreg judges time and geometry. Default true. */
  weaponRules?: boolean;
  /** What a shot does to a teammate: 'full' (default), 'noDamage' (hit, no damage) or 'off' (not hittable). */
  friendlyFire?: FriendlyFire;
  /**
   * The seed of every pull's spread pattern (an integer 0..2^32-1; shared/validate/spread.ts), sent
   * to clients with the rules and written into the log. Default: a fresh random one per match, so
   * no client can learn a pattern before the match begins.
   */
  spreadSeed?: number;
  /** Penetration resistance by the level's glTF material names (power per metre); others cost rules.defaultResistance (default 1). */
  materials?: Readonly<Record<string, number>>;
  /** Health of a new life. Default 100. */
  maxHealth?: number;
  /** Damage multipliers by hit zone (a weapon's own table wins). Default: the rig's defaults. */
  zoneMultipliers?: readonly number[];
  /** Tolerances and windows (shared/validate/rules.ts); the defaults suit most games. */
  rules?: Partial<Omit<ValidationConfig, 'weapons' | 'loadout' | 'maxPlayers' | 'weaponRules' | 'friendlyFire' | 'zoneMultipliers'>>;
  /** Interpolation delay of a player that does not say, and the most one may declare, ms. Defaults 100 and 250. */
  defaultInterpDelayMs?: number;
  maxInterpDelayMs?: number;
  /** Where the match log goes (server/matchlog MatchLogRecorder), or none. */
  recorder?: MatchRecorder | null;
  /** For the log header: the room's id, the level's path and, when the game uses hitreg's movement, its rules. */
  roomId?: string;
  levelPath?: string;
  movement?: MoveConfig;
  /** For the log header: whether the game withholds enemies per viewer (a FogFilter) or sends everyone; absent: not said. */
  fog?: 'on' | 'off';
  /** Monotonic ms (performance.now by default); the match counts from its creation. */
  clock?: () => number;
  /** A recorder call that throws, or a pose the history refuses: told here (default console.error), the match goes on. */
  onProblem?: (message: string, error?: unknown) => void;
  /** Live projectiles the match keeps at most (default 256); a launch beyond is refused (PROJECTILE_LIMIT). */
  maxProjectiles?: number;
  /**
   * Called when a projectile's flight ends (at a tick, or at once when its catch-up ended it) with
   * what its impact and blast did (damage applied, kills): for the game's kill feed and effects.
   * The outcome is reused: read it at once.
   */
  onProjectile?: (out: ProjectileOutcome<Id>) => void;
}

/** Checks the options and builds the match's rules (what the log header keeps). */
export function matchRules<Id>(o: HitregMatchOptions<Id>): ValidationConfig {
  if (o === null || typeof o !== 'object') throw new Error('HitregMatch: options must be an object');
  if (o.world === undefined || typeof o.world.firstHit !== 'function') throw new Error('HitregMatch: options.world must be a World (World.fromBuffer, World.fromTriangles or loadWorld)');
  if (o.rig === undefined || !(o.rig.hitboxCount > 0)) throw new Error('HitregMatch: options.rig must be a Rig (rigFromBuffer, or the server\'s rig)');
  if (!(Number.isInteger(o.tickRate) && o.tickRate >= 1 && o.tickRate <= 256)) throw new Error(`HitregMatch: tickRate ${String(o.tickRate)}: use an integer 1..256`);
  if (!(Number.isInteger(o.maxPlayers) && o.maxPlayers >= 1 && o.maxPlayers <= 1024)) throw new Error(`HitregMatch: maxPlayers ${String(o.maxPlayers)}: use an integer 1..1024`);
  if (typeof o.poses !== 'function') throw new Error('HitregMatch: options.poses must be a function (id, out) => void that writes the player\'s pose');
  const weapons = o.weapons ?? WEAPONS;
  const problem = weaponTableProblem(weapons);
  if (problem !== null) throw new Error(`HitregMatch: weapons: ${problem}`);
  const loadout = o.loadout ?? weapons.map((w) => w.id);
  for (const w of loadout) if (!(Number.isInteger(w) && w >= 0 && w < weapons.length)) throw new Error(`HitregMatch: loadout names weapon ${String(w)}, not an id of the table (0..${weapons.length - 1})`);
  if (loadout.length === 0) throw new Error('HitregMatch: loadout is empty: name at least one weapon id');
  const friendlyFire = o.friendlyFire ?? 'full';
  if (!FRIENDLY_FIRE_POLICIES.includes(friendlyFire)) throw new Error(`HitregMatch: friendlyFire ${JSON.stringify(friendlyFire)}: use ${FRIENDLY_FIRE_POLICIES.map((p) => `'${p}'`).join(', ')}`);
  const zones = o.zoneMultipliers ?? Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const rules: ValidationConfig = { ...defaultValidationConfig(weapons, zones, o.rig.eyeHeight, o.maxPlayers, loadout), ...o.rules };
  if (o.weaponRules === false) rules.weaponRules = false;
  rules.spreadSeed = spreadSeedOption(o.spreadSeed ?? o.rules?.spreadSeed);
  if (o.materials !== undefined) rules.materials = o.materials;
  const mats = rules.materials;
  if (mats !== undefined && (mats === null || typeof mats !== 'object' || !Object.values(mats).every((r) => typeof r === 'number' && Number.isFinite(r) && r >= 0))) {
    throw new Error('HitregMatch: materials must map material names to finite resistances >= 0 (power per metre)');
  }
  for (const k of ['defaultResistance', 'playerPenetrationCost', 'meleeOriginToleranceM', 'tradeSlackMs', 'streamSlackMs', 'eyeStampSlackMs', 'fireLagPerRtt'] as const) {
    const v = rules[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) throw new Error(`HitregMatch: rules.${k} ${String(v)}: use a finite number >= 0`);
  }
  if (friendlyFire !== 'full') rules.friendlyFire = friendlyFire;
  for (const k of ['rewindWindowMs', 'claimToleranceMs', 'futureSlackMs', 'maxRttMs', 'oldSlackMs', 'maxFireLagMs', 'originToleranceM', 'eyeHeightM', 'maxCoordinate', 'maxTimeMs'] as const) {
    const v = rules[k];
    if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0)) throw new Error(`HitregMatch: rules.${k} ${String(v)}: use a finite number >= 0`);
  }
  return rules;
}

/** A checked spread seed, or a fresh random one. */
function spreadSeedOption(v: number | undefined): number {
  if (v === undefined) return webcrypto.getRandomValues(new Uint32Array(1))[0]!;
  if (!(Number.isInteger(v) && v >= 0 && v <= 0xffffffff)) throw new Error(`HitregMatch: spreadSeed ${String(v)}: use an integer 0..4294967295`);
  return v;
}

/** A checked positive number option, or its default. */
export function numberOption(name: string, v: number | undefined, fallback: number, lo: number, hi: number): number {
  if (v === undefined) return fallback;
  if (!(typeof v === 'number' && v >= lo && v <= hi)) throw new Error(`HitregMatch: ${name} ${String(v)}: use a number ${lo}..${hi}`);
  return v;
}

/** The match log's header: the options as checked, the rules, how the scene was built, the projectile cap. */
export function matchHeader<Id>(o: HitregMatchOptions<Id>, rules: ValidationConfig, scene: SceneOptions, maxProjectiles: number): MatchHeader {
  return {
    formatVersion: HEADER_LAYOUT_VERSION,
    roomId: o.roomId ?? '',
    startedAtIso: new Date().toISOString(),
    tickRate: o.tickRate,
    maxPlayers: o.maxPlayers,
    levelPath: o.levelPath ?? '',
    worldHash: o.world.hash,
    rigHash: o.rig.hash,
    validation: rules,
    scene,
    maxProjectiles,
    ...(o.movement !== undefined ? { movement: o.movement } : {}),
    ...(o.fog === 'on' || o.fog === 'off' ? { fog: o.fog } : {}),
  };
}

/** What HitregMatch.join takes beside the id. */
export interface JoinOptions {
  /** Team number (>= 0); absent or -1: no team. */
  team?: number;
  /** The interpolation delay the client declared, ms (clamped to the match's bounds). */
  interpDelayMs?: number;
  /**
   * Who the player is, for evidence across matches: logged as the slot's identity record. `verified`
   * when `id` is the subject of a token the server checked (auth on); otherwise the client named
   * itself and the audit treats it as unverified. 1..128 UTF-8 bytes, no control characters (else
   * not logged, and the match's onProblem says so).
   */
  player?: { id: string; verified: boolean };
}

/** A join's declared interpolation delay held to 0..max, ms; `fallback` when it is not a finite number. */
export function clampInterp(v: unknown, fallback: number, max: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(0, v)) : fallback;
}

/** A team number 0..0x7fff, or -1 (no team) for anything else. */
export function teamNumber(team: unknown): number {
  return typeof team === 'number' && Number.isInteger(team) && team >= 0 && team <= 0x7fff ? team : -1;
}
