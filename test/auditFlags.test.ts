// The per-player flag rules on hand-made shot facts: a shooter's SHOOTER_DEAD rejections that were
// on the wire when it died are races (not counted as rejections); the ones it sent knowing it was
// dead are.
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, FlagRule, flagPlayers, type ShotFacts } from '../server/audit/flags';
import { TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';

function shot(over: Partial<ShotFacts>): ShotFacts {
  return {
    shooter: 0, kind: VerdictKind.MISS, reason: VerdictReason.OK_MISS, zone: -1, target: -1, timeSource: TimeSource.CLAIMED,
    rewindDepthMs: 100, reactionMs: NaN, snapDegPerS: NaN, rttMs: 80, sinceShooterDeathMs: NaN, serverGapMs: 15.625, claimOffByMs: 0, ...over,
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

describe('server stalls', () => {
  it('timing verdicts on shots that arrived right after a server stall are counted apart, not held against the shooter', () => {
    // Claims 80-100 ms past the tolerance: what a 120 ms pause of the server does to an honest claim.
    const est = (gap: number, off = 80) => shot({ timeSource: TimeSource.ESTIMATED, serverGapMs: gap, claimOffByMs: off });
    const old = (gap: number, off = 100) => shot({ kind: VerdictKind.REJECTED, reason: VerdictReason.TIME_TOO_OLD, timeSource: TimeSource.NONE, serverGapMs: gap, claimOffByMs: off });
    const normal = Array.from({ length: 6 }, () => shot({}));
    const gap = DEFAULT_THRESHOLDS.stallGapMs;
    // Four of 13 shots overruled and three too old, all right after a 120 ms pause of the server's ticks.
    const [stalled] = flagPlayers([...normal, est(120), est(120), est(120), est(120), old(120), old(120), old(120)], 250);
    expect(stalled!.stalled).toBe(7);
    expect(stalled!.overruled).toBe(0);
    expect(stalled!.rejected).toBe(0);
    expect(stalled!.byReason.TIME_TOO_OLD).toBe(3);
    expect(stalled!.flags).toEqual([]);
    // The same with the server keeping time: overruled, too old, rejected.
    const [steady] = flagPlayers([...normal, est(gap), est(gap), est(gap), est(gap), old(gap), old(gap), old(gap)], 250);
    expect(steady!.stalled).toBe(0);
    expect(steady!.flags.map((f) => f.rule).sort()).toEqual([FlagRule.OVERRULED_TIME, FlagRule.REASON, FlagRule.REJECTIONS].sort());
    // A pause does not cover a claim further off than the pause itself (a backtracker's 170 ms).
    const [far] = flagPlayers([...normal, est(120, 170), est(120, 170), est(120, 170), est(120, 170), old(120, 170), old(120, 170), old(120, 170)], 250);
    expect(far!.stalled).toBe(0);
    expect(far!.flags.map((f) => f.rule).sort()).toEqual([FlagRule.OVERRULED_TIME, FlagRule.REASON, FlagRule.REJECTIONS].sort());
  });
});
