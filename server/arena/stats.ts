/** Counters a game server keeps across its rooms, for the status line and tests. */
export interface ServerStats {
  rooms: number;
  players: number;
  shots: number;
  hits: number;
  misses: number;
  /** Switches and reloads carried out. */
  actions: number;
  kills: number;
  /** Rejections by reason name (verdict reasons for shots, INPUT_/PONG_/UNKNOWN_MESSAGE otherwise). */
  rejects: Record<string, number>;
  /** Messages dropped unjudged from clients over their budget of refused messages. */
  throttled: number;
  /** Connections cut for not reading (unsent data over the stall bound). */
  stalledCut: number;
  internalErrors: number;
  recorderErrors: number;
  /** Room ticks run, every room (counted by the server's fixed-timestep wrapper, server/index.ts). */
  ticks: number;
  /** Fog of war, every room: rays its updates cast, and enemy pairs they sent untested for the ray cap (FOG_MAX_RAYS). */
  fogRays: number;
  fogPairsOverBudget: number;
  /**
   * Fog of war, every room: viewers present summed over its updates, and of them those decided
   * precisely (FogFilter precisionBudgetMs: their ratio is the share of the time a viewer was precise).
   */
  fogViewerUpdates: number;
  fogPreciseViewerUpdates: number;
  /** Fog of war, every room: the updates timed for its precision budget (one in eight), and their summed time, ms. */
  fogTimedUpdates: number;
  fogTimedMs: number;
}

export function createServerStats(): ServerStats {
  return { rooms: 0, players: 0, shots: 0, hits: 0, misses: 0, actions: 0, kills: 0, rejects: {}, throttled: 0, stalledCut: 0, internalErrors: 0, recorderErrors: 0, ticks: 0, fogRays: 0, fogPairsOverBudget: 0, fogViewerUpdates: 0, fogPreciseViewerUpdates: 0, fogTimedUpdates: 0, fogTimedMs: 0 };
}

export function totalRejects(s: ServerStats): number {
  let n = 0;
  for (const k in s.rejects) n += s.rejects[k]!;
  return n;
}
