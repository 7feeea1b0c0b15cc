/**
 * The project's seeded random stream for everything that plays: the simulator's bots (network
 * conditions, movement, reactions, aim) and the synthetic players of the detection harness
 * (server/behaviour/synth/synth*.ts) draw from it, through the one human model (./human/). Uniform draws are
 * shared/util/prng.ts mulberry32; on top of it, the one normal deviate (Box-Muller) and child
 * streams derived from a seed and a label. The same seed gives the same draws on every machine.
 * Not verdict math: nothing a verdict depends on is random.
 */
import { mulberry32, type Uniform } from '../shared/util/prng';

export class Rng {
  /** Uniform in [0, 1) (a plain function: it may be passed on where only uniform draws are wanted). */
  readonly next: Uniform;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** A stream of its own for `label` under `seed` (a player's slot, a link direction, a profile). */
  static derive(seed: number, label: number): Rng {
    return new Rng(Math.imul(seed, 0x9e3779b1) ^ Math.imul(label + 1, 0x85ebca6b));
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  int(lo: number, hiExclusive: number): number {
    return lo + Math.floor(this.next() * (hiExclusive - lo));
  }

  /** Standard normal (Box-Muller, two uniform draws). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** A child stream whose seed is the next draw of this one, under `label` (bots, links, cheat profiles). */
  fork(label: number): Rng {
    return Rng.derive((this.next() * 4294967296) >>> 0, label);
  }
}
