/**
 * The server a simulated run plays on (simulate.ts): the in-process game server it starts (its
 * loadout, fog setting and spawn points from the run's options), or a remote one at a url played
 * with the level loaded here and the room's default rules. Either way the level, rig, rules and
 * timing the bots predict with.
 */
import { createGameServer, type GameServer, type GameServerOptions } from '../server/index';
import { spreadSpawnPoints } from '../server/level/spawnPoints';
import { silentLogger } from '../server/ops/log';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { World } from '../shared/world/world';
import { FOG_NO_CACHES } from '../shared/fog/index';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';
import { defaultMoveConfig, type MoveConfig } from '../shared/movement/step';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, type Rig } from '../shared/rig/rig';
import { ARENA_LOADOUT, WEAPONS } from '../shared/weapons';
import { defaultValidationConfig, type ValidationConfig } from '../shared/validate/shot';

/** The run's options the in-process arena reads (simulate.ts SimOptions says what each means). */
export interface ArenaOptions {
  server?: GameServerOptions;
  fog?: 'on' | 'off';
  fogCaches?: boolean;
  fogTight?: number;
  fogHold?: number;
  fogPrecisionMs?: number;
  spawns?: 'centre' | 'spread';
  onServer?: (server: GameServer) => void;
}

/** The server the bots play on, with the level, rig and rules they predict with. */
export interface Arena {
  /** The in-process server (null: a remote one at url). */
  gs: GameServer | null;
  url: string;
  world: World;
  rig: Rig;
  validation: ValidationConfig;
  tickRate: number;
  /** Time between state patches, ms. */
  patchMs: number;
  /** The room's largest interpolation delay, ms. */
  maxInterp: number;
  movement: MoveConfig;
}

/**
 * The loadout of the in-process arena unless options.server names one: the default loadout plus
 * the rocket and the grenade (honest players launch them now and then; the projectile cheats need them).
 */
export const SIM_LOADOUT: readonly number[] = ARENA_LOADOUT;

/** Starts the in-process server; its hostile-client events count into `hostile`. */
export async function inProcessArena(options: ArenaOptions, hostile: { events: number }): Promise<Arena> {
  // The room's hostile-client lines are the cheaters doing their job: counted, not printed.
  const fogConfig = { ...(options.fogTight !== undefined ? { hiddenTight: options.fogTight } : {}), ...(options.fogHold !== undefined ? { visibleHoldTicks: options.fogHold } : {}), ...(options.fogCaches === false ? FOG_NO_CACHES : {}) };
  const fog = { ...(options.fog !== undefined ? { fog: options.fog } : {}), ...(Object.keys(fogConfig).length > 0 ? { fogConfig } : {}), ...(options.fogPrecisionMs !== undefined ? { fogPrecisionMs: options.fogPrecisionMs } : {}) };
  const spawns = options.spawns === 'spread' && options.server?.spawnPoints === undefined ? await spreadOver(options.server) : {};
  const gs = await createGameServer({ log: () => {}, logger: silentLogger(), onHostile: () => { hostile.events++; }, loadout: SIM_LOADOUT, ...fog, ...spawns, ...options.server, port: 0, host: '127.0.0.1' });
  options.onServer?.(gs);
  const tickRate = gs.config.tickRate;
  return {
    gs, url: gs.url, world: gs.world, rig: gs.rig, validation: gs.config.validation, tickRate,
    patchMs: gs.config.patchRateMs > 0 ? gs.config.patchRateMs : 1000 / tickRate,
    maxInterp: gs.config.maxInterpDelayMs, movement: gs.config.movement,
  };
}

/** The server's level (loaded here once, handed to it) and spawn points spread over it for every player it takes. */
async function spreadOver(server: GameServerOptions | undefined): Promise<Pick<GameServerOptions, 'level' | 'spawnPoints'>> {
  const lv = server?.level;
  const world = lv instanceof World ? lv : await loadWorld(typeof lv === 'string' ? lv : DEFAULT_LEVEL_PATH);
  return { level: world, spawnPoints: spreadSpawnPoints(world, server?.maxPlayers ?? 16) };
}

/** A remote server at `url`, played with the level loaded here and the room's default rules. */
export async function remoteArena(url: string, level: string | World | undefined): Promise<Arena> {
  const world = level instanceof World ? level : await loadWorld(level ?? DEFAULT_LEVEL_PATH);
  const rig = MANNEQUIN_RIG;
  const zm: number[] = [];
  for (let z = 0; z < HIT_ZONE_COUNT; z++) zm.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const tickRate = 64;
  return {
    gs: null, url, world, rig, validation: defaultValidationConfig(WEAPONS, zm, rig.eyeHeight, 16), tickRate,
    patchMs: 1000 / tickRate, // the room's default: one patch per tick
    maxInterp: 250,
    movement: defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, rig.clips.map((c) => c.duration)),
  };
}
