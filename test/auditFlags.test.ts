// The per-player flag rules on hand-made shot facts: a shooter's SHOOTER_DEAD rejections that were
// on the wire when it died are races (not counted as rejections); the ones it sent knowing it was
// dead are.
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, FlagRule, flagPlayers, type ShotFacts } from '../server/audit/flags';
import { TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';

function shot(over: Partial<ShotFacts>): ShotFacts {
  return {
    shooter: 0, kind: VerdictKind.MISS, reason: VerdictReason.OK_MISS, zone: -1, target: -1, timeSource: TimeSource.CLAIMED,
    rewindDepthMs: 100, reactionMs: NaN, snapDegPerS: NaN, rttMs: 80, sinceShooterDeathMs: NaN, ...over,
  };
}

describe('flag rules', () => {
  it('SHOOTER_DEAD within the round trip plus the race slack of a death is a race, later it is a rejection', () => {
    const slack = DEFAULT_THRESHOLDS.raceSlackMs;
    const misses = Array.from({ length: 9 }, () => shot({}));
    const dead = (since: number) => shot({ kind: VerdictKind.REJECTED, reason: VerdictReason.SHOOTER_DEAD, sinceShooterDeathMs: since });
    // Three of twelve shots on the wire at the death (the shape a loaded honest client produced).
    const [racy] = flagPlayers([...misses, dead(1), dead(40), dead(80 + slack)], 250);
    expect(racy!.raced).toBe(3);
    expect(racy!.rejected).toBe(0);
    expect(racy!.flags).toEqual([]);
    // The same three a moment later: fired after the news of the death had arrived.
    const [late] = flagPlayers([...misses, dead(80 + slack + 1), dead(400), dead(900)], 250);
    expect(late!.raced).toBe(0);
    expect(late!.rejected).toBe(3);
    expect(late!.flags.map((f) => f.rule)).toEqual([FlagRule.REJECTIONS]);
  });
});
