/**
 * A small seeded PRNG (mulberry32) so tests, benchmarks, synthetic matches and simulated players
 * see the same numbers on every run and every machine. Never Math.random. Not used by verdict math:
 * nothing a verdict depends on is random. The players' stream (normals, child streams) is built on
 * it in client-sim/rng.ts.
 */

/** A source of uniform draws in [0, 1). */
export type Uniform = () => number;

/** mulberry32: uniform in [0, 1), 32-bit state, period 2^32. */
export function mulberry32(seed: number): Uniform {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform in [lo, hi). */
export function uniform(rng: Uniform, lo: number, hi: number): number {
  return lo + (hi - lo) * rng();
}
