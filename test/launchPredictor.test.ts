/**
 * LaunchPredictor.drop: the page drops the prediction of a launch whose server end arrived first.
 * Two rockets fly side by side over the test level's open floor; the one dropped ends nowhere (no
 * predicted end, its entry free), the other flies on to its own end, where a predictor that dropped
 * nothing ends both at the same times (the drop changes nothing else).
 */
import { describe, expect, it } from 'vitest';
import { LaunchPredictor } from '../shared/client/projectiles';
import { FlightEventKind } from '../shared/projectile/flight';
import { MatchView } from '../shared/client/view';
import { defaultValidationConfig, rewindReachMs } from '../shared/validate/rules';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { HIT_ZONE_COUNT } from '../shared/rig/rig';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { buildTestWorld } from './helpers/server';

const world = buildTestWorld();
const rules = defaultValidationConfig(WEAPONS, new Array<number>(HIT_ZONE_COUNT).fill(1), MANNEQUIN_RIG.eyeHeight, 4, [WeaponId.ROCKET]);

/** Flies two rockets along +x at heights 1 and 2 m (seq 1 and 2), dropping `dropSeq` after 200 ms; the ends by seq. */
function fly(dropSeq: number): Map<number, { timeMs: number; kind: number }> {
  const view = new MatchView(world, MANNEQUIN_RIG, 4, rewindReachMs(rules), 64);
  const p = new LaunchPredictor(view, rules, 64);
  const ends = new Map<number, { timeMs: number; kind: number }>();
  const onEnd = (e: { seq: number; timeMs: number; kind: number }) => { ends.set(e.seq, { timeMs: e.timeMs, kind: e.kind }); };
  expect(p.launch(0, WeaponId.ROCKET, 1, 0, 1, 10, 1, 0, 0, 1000, onEnd)).toBeGreaterThanOrEqual(0);
  expect(p.launch(0, WeaponId.ROCKET, 2, 0, 2, 10, 1, 0, 0, 1000, onEnd)).toBeGreaterThanOrEqual(0);
  p.advance(1200, onEnd);
  expect(p.flights.count).toBe(2);
  expect(p.drop(dropSeq)).toBe(dropSeq > 0);
  expect(p.drop(dropSeq)).toBe(false);
  expect(p.flights.count).toBe(dropSeq > 0 ? 1 : 2);
  for (let t = 1200; t <= 7000; t += 50) p.advance(t, onEnd);
  expect(p.flights.count).toBe(0);
  return ends;
}

describe('LaunchPredictor.drop', () => {
  it('stops one prediction without an end and leaves the others flying as before', () => {
    const all = fly(0);
    const dropped = fly(1);
    // Over the open floor both rockets live out their 5 s (EXPIRED).
    expect([...all.keys()].sort()).toEqual([1, 2]);
    expect([all.get(1)!.kind, all.get(2)!.kind]).toEqual([FlightEventKind.EXPIRED, FlightEventKind.EXPIRED]);
    expect(dropped.has(1)).toBe(false);
    expect(dropped.get(2)).toEqual(all.get(2));
  });
});
