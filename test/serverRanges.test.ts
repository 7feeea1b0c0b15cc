/**
 * The settings given both as environment variables (server/ops/env.ts) and as createGameServer
 * options (server/ops/limits.ts resolveLimits, server/ops/ranges.ts) read one table of ranges:
 * at each end of each range, a value just inside is accepted and one just outside refused, the
 * same way by both.
 */
import { describe, expect, it } from 'vitest';
import { readServerEnv } from '../server/ops/env';
import { resolveLimits } from '../server/ops/limits';
import { jwtVerifier } from '../server/ops/auth';
import { HS256_SECRET_MIN_BYTES, LIMIT_RANGES, MONITOR_PASSWORD_MIN_LENGTH, TICK_RATE_RANGE, resolveMonitorPassword, resolveTickRate, type IntRange, type NumericLimit } from '../server/ops/ranges';

const base = { MATCH_LOG_DIR: 'off' };

function accepts(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

/** Just outside, just inside, at both ends. */
function probes(r: IntRange): { value: number; inside: boolean }[] {
  return [
    { value: r.lo - 1, inside: false }, { value: r.lo, inside: true },
    { value: r.hi, inside: true }, { value: r.hi + 1, inside: false },
  ];
}

const LIMIT_VARS: Record<NumericLimit, string> = {
  maxRooms: 'MAX_ROOMS',
  roomCreateBurst: 'ROOM_CREATE_BURST',
  roomCreatePerMinute: 'ROOM_CREATE_PER_MINUTE',
  maxBodyBytes: 'MAX_BODY_BYTES',
  seatReservationSeconds: 'SEAT_RESERVATION_SECONDS',
  hostileLogPerMinute: 'HOSTILE_LOG_PER_MINUTE',
  stallMaxBytes: 'STALL_MAX_BYTES',
  stallMaxMs: 'STALL_MAX_MS',
};

describe('one table of ranges for the environment and the options', () => {
  for (const name of Object.keys(LIMIT_RANGES) as NumericLimit[]) {
    const range = LIMIT_RANGES[name];
    it(`limits.${name} and ${LIMIT_VARS[name]}: ${range.lo}..${range.hi}`, () => {
      for (const { value, inside } of probes(range)) {
        const byEnv = accepts(() => readServerEnv({ ...base, [LIMIT_VARS[name]]: String(value) }));
        const byOptions = accepts(() => resolveLimits({ [name]: value }));
        expect({ value, byEnv, byOptions }).toEqual({ value, byEnv: inside, byOptions: inside });
      }
    });
  }

  it(`tickRate and TICK_RATE: ${TICK_RATE_RANGE.lo}..${TICK_RATE_RANGE.hi}`, () => {
    for (const { value, inside } of probes(TICK_RATE_RANGE)) {
      const byEnv = accepts(() => readServerEnv({ ...base, TICK_RATE: String(value) }));
      const byOptions = accepts(() => resolveTickRate(value));
      expect({ value, byEnv, byOptions }).toEqual({ value, byEnv: inside, byOptions: inside });
    }
  });

  it(`monitor.password and MONITOR_PASSWORD: at least ${MONITOR_PASSWORD_MIN_LENGTH} characters`, () => {
    for (const [length, inside] of [[MONITOR_PASSWORD_MIN_LENGTH - 1, false], [MONITOR_PASSWORD_MIN_LENGTH, true]] as const) {
      const password = 'p'.repeat(length);
      const byEnv = accepts(() => readServerEnv({ ...base, MONITOR_PASSWORD: password }));
      const byOptions = accepts(() => resolveMonitorPassword({ password }));
      expect({ length, byEnv, byOptions }).toEqual({ length, byEnv: inside, byOptions: inside });
    }
  });

  it(`an HS256 secret, by jwtVerifier and AUTH_JWT_SECRET: at least ${HS256_SECRET_MIN_BYTES} bytes`, () => {
    for (const [length, inside] of [[HS256_SECRET_MIN_BYTES - 1, false], [HS256_SECRET_MIN_BYTES, true]] as const) {
      const secret = 's'.repeat(length);
      const byEnv = accepts(() => readServerEnv({ ...base, AUTH_JWT_SECRET: secret }));
      const byOptions = accepts(() => jwtVerifier({ secret }));
      expect({ length, byEnv, byOptions }).toEqual({ length, byEnv: inside, byOptions: inside });
    }
  });
});
