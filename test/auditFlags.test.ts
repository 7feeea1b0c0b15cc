// The per-player flag rules on hand-made shot facts: a shooter's SHOOTER_DEAD rejections that were
// on the wire when it died are races (not counted as rejections); the ones it sent knowing it was
// dead are. Shots claimed well before inputs the room had already stepped are backdated.
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, FlagRule, flagPlayers, type ShotFacts } from '../server/behaviour/flags';
import { TimeSource, VerdictKind, VerdictReason } from '../shared/validate/verdict';
import { HitZone } from '../shared/rig/rig';

function shot(over: Partial<ShotFacts>): ShotFacts {
  return {
    shooter: 0, kind: VerdictKind.MISS, reason: VerdictReason.OK_MISS, zone: -1, target: -1, timeSource: TimeSource.CLAIMED,
    rewindDepthMs: 100, inputAheadMs: -20, reactionMs: NaN, snapDegPerS: NaN, rttMs: 80, sinceShooterDeathMs: NaN, serverGapMs: 15.625, claimOffByMs: 0, ...over,
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

describe('backdated claims', () => {
  it('shots claimed over backdateMs before inputs already stepped flag once there are enough of them; late frames do not', () => {
    const limit = DEFAULT_THRESHOLDS.backdateMs;
    const normal = Array.from({ length: 17 }, () => shot({}));
    // An honest sprayer whose frames came late: its scheduled shots lead its inputs by a frame hitch.
    const [hitches] = flagPlayers([...normal, shot({ inputAheadMs: 160 }), shot({ inputAheadMs: 120 }), shot({ inputAheadMs: limit })], 250);
    expect(hitches!.backdated).toBe(0);
    expect(hitches!.flags).toEqual([]);
    // Two hitches past the limit are not enough; three of twenty are.
    const [two] = flagPlayers([...normal, shot({}), shot({ inputAheadMs: limit + 1 }), shot({ inputAheadMs: 600 })], 250);
    expect(two!.backdated).toBe(2);
    expect(two!.flags).toEqual([]);
    const [three] = flagPlayers([...normal, shot({ inputAheadMs: limit + 1, index: 17 }), shot({ inputAheadMs: 400, index: 18, receivedMs: 5000 }), shot({ inputAheadMs: 700, index: 19 })], 250);
    expect(three!.backdated).toBe(3);
    expect(three!.flags.map((f) => f.rule)).toEqual([FlagRule.BACKDATED]);
    // The report lists them (and links each to the map and the timeline); unflagged players list none.
    expect(three!.backdatedShots.map((o) => o.shot)).toEqual([17, 18, 19]);
    expect(three!.backdatedShots[1]).toEqual({ shot: 18, timeMs: 5000, aheadMs: 400 });
    expect(two!.backdatedShots).toEqual([]);
    // Without stamps there is nothing to compare.
    const [unstamped] = flagPlayers(Array.from({ length: 20 }, () => shot({ inputAheadMs: NaN })), 250);
    expect(unstamped!.backdated).toBe(0);
  });
});

describe('head shots', () => {
  it('a head-shot share flags only when the hits show it: 6 of 9 does not, 16 of 18 and 60 of 62 do', () => {
    const hits = (n: number, head: number) => Array.from({ length: n }, (_, i) => shot({ kind: VerdictKind.HIT, reason: VerdictReason.OK_HIT, zone: i < head ? HitZone.HEAD : HitZone.UPPER_TORSO }));
    const rules = (n: number, head: number) => flagPlayers(hits(n, head), 250)[0]!.flags.map((f) => f.rule);
    expect(rules(9, 6)).toEqual([]);
    expect(rules(18, 16)).toEqual([FlagRule.HEADSHOTS]);
    expect(rules(62, 60)).toEqual([FlagRule.HEADSHOTS]);
    // Under the limit never, however many hits.
    expect(rules(400, 230)).toEqual([]);
  });

  it('counts fights, not hits: a head fight or two of many hits is one choice; many head fights flag', () => {
    // fights[i] = [target, hits, heads]: the hits 200 ms apart on one target, 3 s between fights.
    const play = (fights: [number, number, number][]) => {
      const out: ShotFacts[] = [];
      let t = 0;
      for (const [target, hits, heads] of fights) {
        for (let i = 0; i < hits; i++) out.push(shot({ kind: VerdictKind.HIT, reason: VerdictReason.OK_HIT, target, receivedMs: (t += 200), zone: i < heads ? HitZone.HEAD : HitZone.UPPER_TORSO }));
        t += 3000;
      }
      return flagPlayers(out, 250)[0]!;
    };
    // An honest simulator bot's match: 13 of 14 hits in the head over three fights, two aimed at the head.
    const honest = play([[1, 6, 6], [2, 7, 7], [3, 1, 0]]);
    expect([honest.fights, honest.headFights]).toEqual([3, 2]);
    expect(honest.flags).toEqual([]);
    // Sixteen head fights of eighteen is not one choice.
    const snapper = play(Array.from({ length: 18 }, (_, i) => [i % 3, 2, i < 16 ? 2 : 0] as [number, number, number]));
    expect([snapper.fights, snapper.headFights]).toEqual([18, 16]);
    expect(snapper.flags.map((f) => f.rule)).toEqual([FlagRule.HEADSHOTS]);
    // A pause longer than fightGapMs on the same target starts another fight; a switch of target too.
    const t = DEFAULT_THRESHOLDS.fightGapMs;
    const split = flagPlayers([0, t, 2 * t + 1, 2 * t + 2].map((receivedMs, i) => shot({ kind: VerdictKind.HIT, reason: VerdictReason.OK_HIT, target: i === 3 ? 2 : 1, receivedMs, zone: HitZone.HEAD })), 250)[0]!;
    expect([split.fights, split.headFights]).toEqual([3, 3]);
  });
});
