/**
 * Honest players through TCP stalls: the simulator's bots (moving, firing at the weapon's full rate,
 * stamping their inputs and predicting every message with the shared pipeline) over links that
 * every 2.5 s hold everything each way for 200 or 600 ms -- a lost segment and its retransmissions
 * (net.ts stalls) -- then deliver it at once. Nothing they send is refused: not an input (its stamp
 * is never before what the stream already said), not a ping answer, not a shot (its claim is never
 * before the stream's floor, its eye path ends at its claim, and a shot fired before a death that
 * the stall held back until after it counts as fired alive). No loss besides the stalls: a random
 * loss on top of a 600 ms stall can hold a message past maxFireLagMs (TIME_TOO_OLD, the rules' bound).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation } from '../../client-sim/simulate';
import type { ShotLog } from '../../client-sim/bot';
import { ORIGIN_TOLERANCE_M, STREAM_SLACK_MS } from '../../shared/validate/rules';
import { VerdictKind } from '../../shared/validate/verdict';
import { ShotAction } from '../../shared/protocol/shot';
import { WEAPONS } from '../../shared/weapons';

// The match log is on: the simulator reads each arrival's facts (the shooter dead or alive, the
// stream floor) from the room's recorder calls.
const logDir = mkdtempSync(join(tmpdir(), 'stalls-test-'));
afterAll(() => rmSync(logDir, { recursive: true, force: true }));

/** Whether some honest shot was claimed exactly one fire interval after its shooter's last with the same weapon (the report's honestFullRateShots). */
function fullRate(logs: readonly ShotLog[]): boolean {
  const last = new Map<string, ShotLog>();
  for (const s of logs) {
    if (s.profile !== 'honest' || s.action !== ShotAction.FIRE) continue;
    const key = `${s.roomId}:${s.slot}`;
    const prev = last.get(key);
    if (prev !== undefined && prev.weapon === s.weapon && Math.abs(s.timeMs - prev.timeMs - WEAPONS[s.weapon]!.fireIntervalMs) < 1e-6) return true;
    last.set(key, s);
  }
  return false;
}

describe('honest bots through TCP stalls', () => {
  for (const forMs of [200, 600]) {
    it(`${forMs} ms stalls every 2.5 s: no honest message refused, shots held by the stalls accepted`, async () => {
      const logs: ShotLog[] = [];
      const r = await runSimulation({
        bots: 8, seconds: 12, rttMs: 100, jitterMs: 20, loss: 0, seed: 5 + forMs, audit: false, minHonestJudged: 30,
        // Until a verdict has come back held by a stall (a loaded machine fires fewer shots into them)
        // and an honest shot came a fire interval after the last (half the bots hold a slow shotgun).
        until: (l) => l.some((x) => x.verdict !== null && x.verdictAt - x.sentAt >= forMs) && fullRate(l),
        stalls: { everyMs: 2500, forMs }, server: { matchLogDir: logDir }, onShots: (l) => logs.push(...l),
      });
      const refused = logs.filter((l) => l.profile === 'honest' && l.verdict?.kind === VerdictKind.REJECTED)
        .map((l) => ({ bot: l.bot, seq: l.seq, action: l.action, reason: l.verdict!.reasonName, at: l.timeMs, sent: l.sentServerMs, heldMs: l.verdictAt - l.sentAt, deadKnown: l.deadKnown, diedInFlight: l.diedInFlight, respawnedInFlight: l.respawnedInFlight, floorLeadMs: l.floorLeadMs }));
      const why = JSON.stringify({ rejected: r.honestRejectedByReason, refused, messages: r.messageRejects });
      expect(r.serverErrors, why).toBe(0);
      expect(r.honestJudged).toBeGreaterThanOrEqual(30);
      // Only the death races the server's own record of each arrival confirms: the shooter died (or
      // died and respawned elsewhere) on the server while its message was on the way.
      expect(refused.filter((x) => !x.diedInFlight && !x.respawnedInFlight), why).toEqual([]);
      expect(r.honestRejectedByReason.SHOOTER_DEAD ?? 0, why).toBe(r.honestRejectedDiedInFlight);
      // No input stamp or ping answer refused.
      expect(r.messageRejects, why).toEqual({});
      // The bots fired at full rate, and through the stalls: verdicts held back by the stall's length.
      expect(r.honestFullRateShots).toBeGreaterThan(0);
      const held = logs.filter((l) => l.verdict !== null && l.verdictAt - l.sentAt >= forMs);
      expect(held.length).toBeGreaterThan(0);
      expect(held.filter((l) => l.verdict!.kind === VerdictKind.REJECTED && !l.diedInFlight)).toEqual([]);
      expect(r.originOffsetM.max).toBeLessThan(ORIGIN_TOLERANCE_M);
      // Claims never fell behind their stream by the slack: measured on every judged message.
      expect(r.floorLeadMs.n).toBe(r.honestJudged);
      expect(r.floorLeadMs.max).toBeLessThan(STREAM_SLACK_MS);
    });
  }
});
