/**
 * What an arena room is given by the server that defines it: the level, rig, rules, timing and
 * hooks. Fixed per server; client options never reach it.
 */
import type { MoveConfig, Rig, ValidationConfig, World } from '../../shared/index';
import type { ClimbMap, FogFilterOptions, MatchRecorder, StallLimits, WalkGrid } from '../match/index';
import type { ServerStats } from './stats';
import type { HostileEvent, RejectBudgetConfig } from './budget';

export type { HostileEvent } from './budget';

export interface SpawnPoint {
  x: number;
  y: number;
  z: number;
  /** Facing as a horizontal direction (need not be unit). */
  dirX: number;
  dirZ: number;
}

export interface ArenaConfig {
  world: World;
  levelPath: string;
  rig: Rig;
  tickRate: number;
  maxPlayers: number;
  spawnPoints: readonly SpawnPoint[];
  respawnDelayMs: number;
  maxHealth: number;
  /** The rules the match judges by (weapons, loadout, zone multipliers, tolerances). */
  validation: ValidationConfig;
  movement: MoveConfig;
  recorder?: MatchRecorder | ((roomId: string) => MatchRecorder);
  patchRateMs: number;
  pingIntervalMs: number;
  defaultInterpDelayMs: number;
  maxInterpDelayMs: number;
  maxBulletHoles: number;
  killFeedLength: number;
  /**
   * Debug verdicts allowed: a client that joins with `debug: true` gets, in each verdict, every other
   * player's pose as rewound for that shot (for a debug view; extra bytes per verdict, so off by default).
   */
  debugVerdicts: boolean;
  /**
   * Server-side fog of war: 'on' sends each client only the enemies it could see before the next
   * patch (hitreg/server FogFilter; room.ts), 'off' sends everyone to everyone (the state and bytes
   * of a room without fog).
   */
  fog: 'on' | 'off';
  /** The level's climb map for the fog, built once for every room (shared/fog buildClimbMap). */
  fogClimb?: ClimbMap;
  /** The level's walk grid for the fog, built once for every room (hitreg/server walkGridOf; null: none). */
  fogWalk?: WalkGrid | null;
  /** FogOfWar settings over its defaults (the caches, the sampling; hitreg/server FogFilterOptions.config). */
  fogConfig?: FogFilterOptions['config'];
  /** The fog update time precise viewers may fill, ms (hitreg/server FogFilterOptions.precisionBudgetMs; undefined: its default, 0: none). */
  fogPrecisionMs?: number;
  /** Projectiles the room's match flies at once at most (undefined: the match's default). */
  maxProjectiles?: number;
  /** Seconds a dropped client may take to reconnect and keep its slot, health, loadout and history (0: never). */
  reconnectSeconds: number;
  /** Refused messages a client may send before its messages are dropped unjudged, then it is disconnected. */
  rejectBudget: RejectBudgetConfig;
  /** One structured event per hostile client per second at most (refused messages, throttling, disconnects). */
  onHostile?: (e: HostileEvent) => void;
  /**
   * Clients that stop reading (hitreg/server StallWatch): unsent data over `maxBytes` for longer than
   * `maxMs` closes the connection with CLOSE_STALLED; the slot is kept for reconnection as for any drop.
   */
  stalls: StallLimits;
  /** Called once per connection cut for not reading. */
  onStalled?: (e: StalledEvent) => void;
  /** Monotonic ms source (performance.now by default); the room subtracts its creation time. */
  clock: () => number;
  stats: ServerStats;
  /** Called after each fixed tick with the wall time it took, ms (the server's tick statistics and metrics). */
  onTickTimed?: (wallMs: number) => void;
  /** Registry hooks so the server (and tests) can reach room instances. */
  onCreated?: (room: ArenaRoomLike) => void;
  onDisposed?: (room: ArenaRoomLike) => void;
}

/** A connection cut for not reading (its player stays, disconnected, for reconnectSeconds). */
export interface StalledEvent {
  roomId: string;
  sessionId: string;
  slot: number;
  /** Unsent bytes when it was cut. */
  bytes: number;
  /** How long they had been over the bound, ms. */
  overMs: number;
  /** Which bound it crossed (server/match/stalls.ts StallCut). */
  rule: 'held' | 'hard';
}

/** What the registry hooks see of a room (room.ts ArenaRoom). */
export interface ArenaRoomLike {
  readonly roomId: string;
}
