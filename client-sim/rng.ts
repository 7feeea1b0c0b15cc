/**
 * Seeded randomness for the simulator: every bot draws its network conditions, movement, reaction
 * times and aim noise from its own stream (the project's mulberry32, shared/util/prng.ts), so a run
 * with the same seed makes the same decisions (socket timing still varies run to run). Adds what
 * the bots need on top: normal deviates and forked child streams.
 */
import { mulberry32, type Rng as Uniform } from '../shared/util/prng';

export class Rng {
  private readonly u: Uniform;

  constructor(seed: number) {
    this.u = mulberry32(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u();
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  int(lo: number, hiExclusive: number): number {
    return lo + Math.floor(this.next() * (hiExclusive - lo));
  }

  /** Standard normal (Box-Muller; fine here: the client sim is not verdict math). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A child stream whose seed depends on this one and a label (bots, links, cheat profiles). */
  fork(label: number): Rng {
    return new Rng(Math.imul((this.next() * 4294967296) >>> 0, 0x9e3779b1) ^ Math.imul(label + 1, 0x85ebca6b));
  }
}
