// Synthetic persons (SynthMatchOptions.persons, server/behaviour/synth/synthPlayer.ts createPlayer):
// a slot given a person seed brings the same make-up to every match (round trip, human traits,
// interpolation delay, idle pitch, input link), whatever the match's seed and slot; without one, a
// slot's make-up is drawn from the match and differs between matches. The cross-match detection
// (npm run detect -- --matches N) rests on this: an honest player's quirks repeat from match to match.
import { describe, expect, it } from 'vitest';
import { Rng } from '../client-sim/rng';
import { createPlayer } from '../server/behaviour/synth/synthPlayer';
import { Behaviour } from '../server/behaviour/synth/synthMatch';

const spawn = { x: 0, y: 0, z: 0, dirX: 0, dirZ: 1 };

/** What a player brings to a match of its own, as numbers. */
function makeUp(matchSeed: number, slot: number, person?: number): number[] {
  const pl = createPlayer(slot, Behaviour.HONEST, false, spawn, 1, matchSeed, new Rng(matchSeed), 250, [30, 8], person);
  const link = pl.inputs as unknown as { frameMs: number; jitterMs: number; loss: number };
  const t = pl.traits;
  return [pl.baseRttMs, pl.interpMs, pl.idlePitch, t.reactionMedianMs, t.pursuitTauMs, t.noiseRad, t.headAimP, t.rttNoiseMs, link.frameMs, link.jitterMs, link.loss];
}

describe('synthetic persons', () => {
  it('a person brings the same make-up to matches of other seeds and slots', () => {
    for (const person of [1, 77, 4242]) {
      const a = makeUp(10, 3, person), b = makeUp(99, 11, person);
      expect(b).toEqual(a);
      expect(a.every((x) => Number.isFinite(x))).toBe(true);
    }
    expect(makeUp(10, 3, 1)).not.toEqual(makeUp(10, 3, 2));
  });

  it('without a person the make-up is the match\'s draw: another seed, another player; the same seed, the same player', () => {
    expect(makeUp(10, 3)).not.toEqual(makeUp(99, 3));
    expect(makeUp(10, 3)).toEqual(makeUp(10, 3));
    // The match's other draws (the wander heading, the clock error) still come from the match with a person.
    const a = createPlayer(3, Behaviour.HONEST, false, spawn, 1, 10, new Rng(10), 250, [30, 8], 5);
    const b = createPlayer(3, Behaviour.HONEST, false, spawn, 1, 99, new Rng(99), 250, [30, 8], 5);
    expect(a.clockErrMs).not.toBe(b.clockErrMs);
  });
});
