/**
 * Synced states shaped like the arena's schema (server/arena/schema.ts) as ARENA_READER reads them,
 * built by hand for client-side tests: players keyed by slot in a Map (forEach gives value, key as
 * a MapSchema does), a kill feed, the tick and server time. A player left out of `players` is
 * absent from that state, as the server's fog of war withholds an enemy.
 */

export interface StatePlayer {
  slot: number;
  x: number;
  z: number;
  y?: number;
  epoch?: number;
  alive?: boolean;
  health?: number;
  /** The body faces this horizontal direction (default +z). */
  viewX?: number;
  viewZ?: number;
  /** A rotation of the body's own (default none: the yaw comes from the view direction), its clip and animation time (default 0). */
  qy?: number;
  qw?: number;
  clip?: number;
  animTime?: number;
}

export interface ArenaState {
  tick: number;
  serverTimeMs: number;
  players: Map<number, Record<string, number | boolean>>;
  killFeed: { victim: number; timeMs: number }[];
}

/** An arena state at `tick`, server ms `timeMs`, with these players (and kill feed entries). */
export function arenaState(tick: number, timeMs: number, players: readonly StatePlayer[], killFeed: { victim: number; timeMs: number }[] = []): ArenaState {
  const map = new Map<number, Record<string, number | boolean>>();
  for (const p of players) {
    map.set(p.slot, {
      slot: p.slot, x: p.x, y: p.y ?? 0, z: p.z,
      qx: 0, qy: p.qy ?? 0, qz: 0, qw: p.qw ?? Number.NaN, // NaN: the yaw comes from the view direction
      clip: p.clip ?? 0, animTime: p.animTime ?? 0, alive: p.alive ?? true, epoch: p.epoch ?? 0, health: p.health ?? 100,
      viewX: p.viewX ?? 0, viewY: 0, viewZ: p.viewZ ?? 1,
      weapon: 0, ammo: 30, reloadEndMs: 0, drawEndMs: 0, inputSeq: 0,
    });
  }
  return { tick, serverTimeMs: timeMs, players: map, killFeed };
}
