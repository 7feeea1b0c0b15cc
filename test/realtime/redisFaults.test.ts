/**
 * Redis comes and goes under a playing cluster (test/bench/faults/redisOutage.ts): two real game
 * server processes on a redis-server of the test's own, six simulator bots in a room of one of
 * them; Redis killed with SIGKILL and restarted empty, and, separately, every key erased with
 * FLUSHALL. In both: the match ticks on for every bot, both processes stay up, matchmaking through
 * EITHER process reaches the surviving room within 5 s of Redis answering, joins during the outage
 * are refused with 503 and Retry-After (none hangs), each process prints one "redis lost" and one
 * "redis back" line per outage and no unhandled error event, and /metrics shows hitreg_redis_up.
 * Needs the redis-server binary (Debian package redis-server).
 */
import { describe, expect, it } from 'vitest';
import { redisOutageScenario } from '../bench/faults/redisOutage';

/** Nominal 64 Hz; the cluster test's floor for a loaded machine. */
const TICKS_FLOOR = 56;

describe('Redis outage under a playing cluster', () => {
  it('killed and restarted empty: joins refused retryably while away, matchmaking back within 5 s, the match never stops', async () => {
    const r = await redisOutageScenario({ mode: 'restart', playMs: 3000, outageMs: 6000 });
    const why = JSON.stringify(r);
    expect(r.processesAlive, why).toBe(2);
    expect(r.botsConnected, why).toBe(r.bots);
    expect(r.secondsToRecover, why).not.toBeNull();
    expect(r.secondsToRecover!, why).toBeLessThan(5);
    expect(r.joinsDuringOutage.attempts, why).toBeGreaterThan(0);
    expect(r.joinsDuringOutage.refusedRetryable, why).toBe(r.joinsDuringOutage.attempts);
    expect(r.joinsDuringOutage.hung, why).toBe(0);
    expect(r.ticksPerSecondMin, why).toBeGreaterThan(TICKS_FLOOR);
    expect(r.unhandledErrorLines, why).toBe(0);
    expect(r.redisLostLines, why).toBe(2);
    expect(r.redisBackLines, why).toBe(2);
    expect(r.redisUpMetric, why).toEqual({ during: [0, 0], after: [1, 1] });
  });

  it('FLUSHALL: each process writes its entries back and matchmaking reaches the surviving room within 5 s', async () => {
    const r = await redisOutageScenario({ mode: 'flushall', playMs: 3000 });
    const why = JSON.stringify(r);
    expect(r.processesAlive, why).toBe(2);
    expect(r.botsConnected, why).toBe(r.bots);
    expect(r.secondsToRecover, why).not.toBeNull();
    expect(r.secondsToRecover!, why).toBeLessThan(5);
    expect(r.ticksPerSecondMin, why).toBeGreaterThan(TICKS_FLOOR);
    expect(r.unhandledErrorLines, why).toBe(0);
    // Redis never stopped answering: no state change to report.
    expect(r.redisLostLines, why).toBe(0);
    expect(r.redisUpMetric.after, why).toEqual([1, 1]);
  });
});
