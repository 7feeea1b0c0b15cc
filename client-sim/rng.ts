/**
 * Seeded randomness for the simulator: every bot draws its network conditions, movement, reaction
 * times and aim noise from its own stream, so a run with the same seed makes the same decisions
 * (socket timing still varies run to run). Client-side only: shared/ never uses randomness.
 */
export class Rng {
  private a: number;

  constructor(seed: number) {
    this.a = seed >>> 0;
  }

  /** mulberry32: uniform in [0, 1). */
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
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
