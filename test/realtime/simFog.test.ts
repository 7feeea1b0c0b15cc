/**
 * The simulator's fog-of-war report end to end (client-sim/fogWatch.ts, peek.ts): a few honest bots
 * for a few seconds against an in-process arena with `--fog on` asked for, then one scripted peek.
 * The report's last line carries fog, popIn, withheldShare, wallhackLeadMs, peekersAdvantageMs
 * and diedBehindCoverRate, with screen samples taken. On the walled level with spread spawns the bots
 * meet enemies out of cover and take backfills, and drop none: a client still joining is sent none
 * (Colyseus holds its messages until its full state, which already holds the enemy). With the server's
 * fog off (or a server without the option) nothing is withheld, so withheldShare is 0, no enemy pops
 * in and no backfill comes. With it on, the report carries the server's share of viewers precise and
 * its mean timed fog update.
 */
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../client-sim/simulate';
import { roomsLevel } from '../../server/level/rooms';

describe('simulator fog of war report', () => {
  const level = roomsLevel();
  it('reports the fog measures and a peek at the run\'s round trip', async () => {
    const r = await runSimulation({ bots: 6, seconds: 5, rttMs: 60, jitterMs: 10, loss: 0, seed: 3, audit: false, fog: 'on', peeks: 1, spawns: 'spread', level, server: { level, matchLogDir: false } });
    const line = JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
    for (const k of ['fog', 'popIn', 'withheldShare', 'wallhackLeadMs', 'peekersAdvantageMs', 'diedBehindCoverRate']) expect(line).toHaveProperty(k);
    expect(typeof r.popIn).toBe('number');
    expect(r.fog === 'on' || r.fog === 'off').toBe(true);
    const d = r.fogDetail!;
    expect(d.screenSamples).toBeGreaterThan(0);
    expect(d.coveredTicks + d.visibleTicks).toBeGreaterThan(0);
    expect(d.rewindWindowMs).toBe(250);
    expect(d.outlinePointsPerBody).toBe(238);
    expect(d.outlinePopIn).toBeLessThanOrEqual(r.popIn!);
    expect(r.wallhackLeadMs).toHaveProperty('p50');
    expect(r.wallhackLeadMs).toHaveProperty('p90');
    if (!d.serverHasFog || r.fog === 'off') {
      expect(r.popIn).toBe(0);
      expect(r.withheldShare === null || r.withheldShare === 0).toBe(true);
      expect(d.backfillsTaken).toBe(0);
    } else {
      // The bots take backfills: an enemy sent again comes with its poses from before the patch.
      expect(d.backfillsTaken).toBeGreaterThan(0);
      expect(d.backfillsDropped).toBe(0);
      // The server's fog work: a share of its viewers precise, its updates timed.
      expect(d.preciseShare).toBeGreaterThanOrEqual(0);
      expect(d.preciseShare).toBeLessThanOrEqual(1);
      expect(d.fogUpdateMs).toBeGreaterThan(0);
    }
    const pk = r.peekersAdvantageMs!;
    expect(pk.rttMs).toBe(60);
    expect(pk.modelMs).toBeGreaterThan(60);
    expect(pk.peeks).toBeGreaterThanOrEqual(0);
  });
});
