// How long before its arrival an action may claim to have happened (shared/validate/rules.ts
// fireLagLimitMs): flat maxFireLagMs up to a 100 ms round trip, then growing with it, capped at
// maxRttMs; checked against the simulator's TCP model (a segment lost twice) and through the time
// step of the judge (checkActionTime), where the bound is inclusive.
import { describe, expect, it } from 'vitest';
import { TcpStream } from '../client-sim/net';
import { scriptedLoss } from './helpers/scriptedLoss';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { PlayerHistory } from '../shared/lagcomp/history';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../shared/rig/rig';
import { defaultValidationConfig, FIRE_LAG_BASE_RTT_MS, FIRE_LAG_PER_RTT, fireLagLimitMs, rewindReachMs, type ShotScene, type ShotTiming, type ValidationConfig } from '../shared/validate/shot';
import { checkActionTime } from '../shared/validate/times';
import { createShooterState, VerdictReason } from '../shared/validate/verdict';
import { WEAPONS } from '../shared/weapons';
import type { ShotMessage } from '../shared/protocol/shot';

const zones = Array.from({ length: HIT_ZONE_COUNT }, (_, z) => (DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
const rules = defaultValidationConfig(WEAPONS, zones, MANNEQUIN_RIG.eyeHeight, 2);

/** Send-to-delivery of a message whose first `losses` transmissions are lost, the one-way delay at its longest. */
function heldMs(rttMs: number, jitterMs: number, losses: number): number {
  const s = new TcpStream({ rttMs, jitterMs, loss: 0 }, { next: () => 1 }, scriptedLoss(Array.from({ length: losses }, (_, i) => i)));
  const d = s.push(0);
  s.advance(Infinity);
  return d.deliveredAt - d.sentAt;
}

describe('fire lag bound', () => {
  it('is maxFireLagMs up to the base round trip, then grows by fireLagPerRtt per ms, up to maxRttMs', () => {
    expect(rules.fireLagPerRtt).toBe(FIRE_LAG_PER_RTT);
    for (const rtt of [0, 20, 50, FIRE_LAG_BASE_RTT_MS, Number.NaN, -5]) expect(fireLagLimitMs(rules, rtt)).toBe(rules.maxFireLagMs);
    expect(fireLagLimitMs(rules, 200)).toBe(rules.maxFireLagMs + FIRE_LAG_PER_RTT * 100);
    expect(fireLagLimitMs(rules, 200)).toBe(1150);
    expect(fireLagLimitMs(rules, rules.maxRttMs)).toBe(1500);
    for (const rtt of [301, 5000, Infinity]) expect(fireLagLimitMs(rules, rtt)).toBe(1500);
    // Without the rule (logs written before it, or switched off): flat.
    for (const per of [undefined, 0, -1, Number.NaN]) expect(fireLagLimitMs({ ...rules, fireLagPerRtt: per }, 250)).toBe(rules.maxFireLagMs);
    // Histories reach back the window plus the bound at the largest round trip.
    expect(rewindReachMs(rules)).toBe(rules.rewindWindowMs + 1500);
    expect(rewindReachMs({ ...rules, fireLagPerRtt: undefined })).toBe(rules.rewindWindowMs + rules.maxFireLagMs);
  });

  it('covers a segment lost twice on the simulator\'s TCP at every round trip up to maxRttMs, with 100 ms to spare', () => {
    let least = Infinity;
    for (let rtt = 0; rtt <= rules.maxRttMs; rtt += 5) {
      for (const jitter of [0, 10, 20, 25]) {
        const twice = heldMs(rtt, jitter, 2);
        // A second method: RFC 6298's timeout, max(200, rtt + 4 jitter), waited out three times.
        const rto = Math.max(200, rtt + 4 * jitter);
        expect(twice).toBeCloseTo(3 * rto + rtt / 2 + jitter / 2, 9);
        least = Math.min(least, fireLagLimitMs(rules, rtt) - twice);
      }
    }
    expect(least).toBeGreaterThanOrEqual(100);
    // The flat bound did not: at 200 ms a segment lost twice is held 950 ms.
    expect(heldMs(200, 20, 2)).toBeGreaterThan(rules.maxFireLagMs);
    // Three losses in a row are beyond it (a stall the rules do not cover).
    expect(heldMs(100, 20, 3)).toBeGreaterThan(fireLagLimitMs(rules, 100));
  });

  it('the judge refuses TIME_TOO_OLD exactly past the bound for the shooter\'s round trip', () => {
    const scene = { histories: [new PlayerHistory(8), new PlayerHistory(8)] } as unknown as ShotScene;
    const now = 100_000;
    const judge = (config: ValidationConfig, rttMs: number, lagMs: number): number => {
      const timing: ShotTiming = { receiveTimeMs: now, rttMs, interpDelayMs: 100, newestTickMs: now };
      const shot = { timeMs: now - lagMs } as ShotMessage;
      return checkActionTime(scene, config, shot, createShooterState(0, [30, 12, 5]), timing);
    };
    for (const [config, rtt, limit] of [
      [rules, 50, 800], [rules, 100, 800], [rules, 200, 1150], [rules, 300, 1500], [rules, 900, 1500],
      [{ ...rules, fireLagPerRtt: undefined }, 200, 800], [{ ...rules, maxFireLagMs: 500, fireLagPerRtt: 2 }, 150, 600],
    ] as const) {
      expect(judge(config, rtt, limit), `rtt ${rtt}, at the bound ${limit}`).not.toBe(VerdictReason.TIME_TOO_OLD);
      expect(judge(config, rtt, limit + 1e-6), `rtt ${rtt}, past the bound ${limit}`).toBe(VerdictReason.TIME_TOO_OLD);
    }
  });
});
