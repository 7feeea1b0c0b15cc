/**
 * The accepted range of every setting that can be given both as an environment variable (env.ts,
 * `npm start`) and as a createGameServer option (limits.ts, ../index.ts): one table that both
 * checks read, so a value the environment accepts is one the options accept, and the other way round.
 */

/** Integers lo..hi, both ends included. */
export interface IntRange {
  readonly lo: number;
  readonly hi: number;
}

/** The numeric limits (LimitOptions in limits.ts, environment variables MAX_ROOMS, ...). */
export const LIMIT_RANGES = {
  maxRooms: { lo: 1, hi: 10_000 },
  roomCreateBurst: { lo: 1, hi: 10_000 },
  roomCreatePerMinute: { lo: 0, hi: 100_000 },
  maxBodyBytes: { lo: 256, hi: 1_048_576 },
  seatReservationSeconds: { lo: 1, hi: 300 },
  hostileLogPerMinute: { lo: 0, hi: 100_000 },
  stallMaxBytes: { lo: 1024, hi: 1_073_741_824 },
  stallMaxMs: { lo: 0, hi: 600_000 },
} as const satisfies Record<string, IntRange>;

export type NumericLimit = keyof typeof LIMIT_RANGES;

/** Fixed timestep, Hz (option tickRate, variable TICK_RATE). */
export const TICK_RATE_RANGE: IntRange = { lo: 1, hi: 128 };

/** Players per room (option maxPlayers, variable MAX_PLAYERS; HitregMatch takes up to 1024). */
export const MAX_PLAYERS_RANGE: IntRange = { lo: 1, hi: 1024 };

/** Rays after which a fog update tests no more pairs (variable FOG_MAX_RAYS; 0: no cap; createGameServer's fogConfig.maxRaysPerUpdate). */
export const FOG_MAX_RAYS_RANGE: IntRange = { lo: 0, hi: 100_000_000 };

/** Shortest password of the Colyseus monitor (option monitor.password, variable MONITOR_PASSWORD): it can dispose rooms. */
export const MONITOR_PASSWORD_MIN_LENGTH = 12;

/** Shortest HS256 secret, bytes (jwtVerifier's secret, variable AUTH_JWT_SECRET). */
export const HS256_SECRET_MIN_BYTES = 32;

export function inRange(v: number, r: IntRange): boolean {
  return Number.isInteger(v) && v >= r.lo && v <= r.hi;
}

/** The tick rate option (rounded to whole Hz, default 64), checked against TICK_RATE_RANGE. */
export function resolveTickRate(tickRate: number | undefined): number {
  const r = Math.round(tickRate ?? 64);
  if (!inRange(r, TICK_RATE_RANGE)) throw new Error(`tickRate ${tickRate}: use ${TICK_RATE_RANGE.lo}..${TICK_RATE_RANGE.hi} Hz (64 default, 128 for competitive play)`);
  return r;
}

/** The monitor option's password, checked against MONITOR_PASSWORD_MIN_LENGTH; null = no monitor. */
export function resolveMonitorPassword(monitor: { password: string } | false | undefined): string | null {
  const password = monitor ? monitor.password : null;
  if (password !== null && password.length < MONITOR_PASSWORD_MIN_LENGTH) throw new Error(`monitor.password: use at least ${MONITOR_PASSWORD_MIN_LENGTH} characters`);
  return password;
}
