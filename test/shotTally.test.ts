/**
 * The simulator's account of a cheat's message (client-sim/shotTally.ts cheatOutcome) when the reply
 * and the server's own verdict differ: fog of war reads a refusal about a player withheld from the
 * cheater as a miss in its reply, and the server's record (client-sim/races.ts, from the probe's
 * arrival facts) decides how the cheat came out.
 */
import { describe, expect, it } from 'vitest';
import { classifyRaces } from '../client-sim/races';
import { ServerProbe } from '../client-sim/serverProbe';
import { cheatOutcome } from '../client-sim/shotTally';
import { Intent, type ShotLog } from '../client-sim/shots';
import type { VerdictReply } from '../shared/protocol/messages';
import { reasonName, VerdictKind, VerdictReason } from '../shared/validate/verdict';

function reply(kind: number, reason: number, target: number): VerdictReply {
  return { seq: 7, kind, reason, reasonName: reasonName(reason), target, zone: -1, t: 0.1, damage: 0, rewindTimeMs: 900, timeSource: 1, originOffsetM: 0 };
}

/** A wall shot's log as the cheater kept it, answered by `v`. */
function wallShot(v: VerdictReply): ShotLog {
  return {
    bot: 0, roomId: 'r', slot: 3, profile: 'wallShot', strength: 0, intent: Intent.INVALID, expected: 'OCCLUDED', action: 0, weapon: 0, seq: 7,
    timeMs: 1000, renderTimeMs: 900, sentAt: 0, sentServerMs: 1000, rttMs: 100, dropped: false, bytes: new Uint8Array(0), deadKnown: false, epochAtSend: 0,
    predictedKind: VerdictKind.REJECTED, predictedReason: 'OCCLUDED', predictedTarget: 1, predictedZone: 3, predictedDamage: 0, predictedOriginOffsetM: 0,
    predictedFired: true, predictedPellets: null, unseen: [], verdict: v, verdictAt: 1, diedInFlight: false, targetDiedInFlight: false, respawnedInFlight: false,
    floorLeadMs: Number.NaN,
  };
}

function probeWith(kind: number, reason: number): ServerProbe {
  const probe = new ServerProbe();
  probe.arrivals.set('r:3:7', [{ receiveTimeMs: 1050, shooterAlive: true, shooterEpoch: 0, targetsAlive: [true, true, true, true], lifeStartMs: [0, 0, 0, 0], streamFloorMs: 1000, kind, reason }]);
  return probe;
}

describe('a cheat judged by the server\'s own verdict', () => {
  it('a wall shot refused about a withheld player, read as a miss by its reply, came out as built', () => {
    const log = wallShot(reply(VerdictKind.MISS, VerdictReason.OK_MISS, -1));
    // By the reply alone it would be a rule-breaking message accepted.
    expect(cheatOutcome(log)).toBe('accepted');
    classifyRaces([log], probeWith(VerdictKind.REJECTED, VerdictReason.OCCLUDED), new Map(), 0);
    expect(log.serverVerdict?.reasonName).toBe('OCCLUDED');
    expect(log.verdict!.reasonName).toBe('OK_MISS');
    expect(cheatOutcome(log)).toBe('expected');
  });

  it('a reply that reads as the server judged keeps no second verdict', () => {
    const log = wallShot(reply(VerdictKind.REJECTED, VerdictReason.OCCLUDED, 1));
    classifyRaces([log], probeWith(VerdictKind.REJECTED, VerdictReason.OCCLUDED), new Map(), 0);
    expect(log.serverVerdict).toBeUndefined();
    expect(cheatOutcome(log)).toBe('expected');
    // A miss the server really gave stays an accepted cheat.
    const missed = wallShot(reply(VerdictKind.MISS, VerdictReason.OK_MISS, -1));
    classifyRaces([missed], probeWith(VerdictKind.MISS, VerdictReason.OK_MISS), new Map(), 0);
    expect(cheatOutcome(missed)).toBe('accepted');
  });
});
