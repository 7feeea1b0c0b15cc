/** Loss chains for tests of the simulator's TCP model (client-sim/net.ts) that lose chosen transmissions. */
import { GilbertElliott, type RandomSource } from '../../client-sim/net';

/** A loss chain that loses exactly the transmissions whose ordinals (0-based) are listed. */
export function scriptedLoss(lost: number[]): GilbertElliott {
  const set = new Set(lost);
  let n = 0;
  // lossGood = 1 and lossBad = 0: a u below pGoodToBad (1) moves to Bad and keeps the transmission,
  // a u of 1.5 (never below 1) stays Good and loses it. The chain returns to Good after each Bad step.
  const src: RandomSource = { next: () => (set.has(n++) ? 1.5 : 0) };
  const chain = new GilbertElliott(1, 1, 1, 0, src);
  const lose = chain.lose.bind(chain);
  chain.lose = () => { chain.bad = false; return lose(); };
  return chain;
}
