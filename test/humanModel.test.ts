// The one human model (client-sim/human/) as its two populations draw from it: honest synthetic
// players (server/audit/synthPlayer*.ts, the detection harness) and honest simulator bots
// (client-sim/aim.ts). Each population's own code path draws a few thousand players' traits and
// one engagement each (reaction time, confirmation delay, flick overshoot), and a second of the
// hand's wobble; a two-sample Kolmogorov-Smirnov test at alpha 0.001 says the two samples of each
// output come from one distribution, so either path drifting from the model fails here. (The
// draws are seeded: the result is the same on every run; the critical distance comes from the
// sample sizes.) Also the seeded stream itself: one uniform sequence with shared/util/prng.ts
// mulberry32, and Box-Muller normals.
import { describe, expect, it } from 'vitest';
import { Rng } from '../client-sim/rng';
import { Aim } from '../client-sim/aim';
import { mulberry32 } from '../shared/util/prng';
import { CheatKind, engageTarget, Phase, stepView } from '../server/behaviour/synth/synthPlayers';
import { createPlayer, type Player } from '../server/behaviour/synth/synthPlayer';
import { defaultRules } from '../server/behaviour/synth/synthRules';

const N = 6000;
const DT = 1000 / 64;
/** Kolmogorov-Smirnov critical distance for samples of n and m at alpha 0.001: c(alpha) sqrt((n + m) / (n m)). */
const ksCritical = (n: number, m: number) => Math.sqrt(-0.5 * Math.log(0.001 / 2)) * Math.sqrt((n + m) / (n * m));

/** Two-sample Kolmogorov-Smirnov distance: the largest gap between the empirical distribution functions. */
function ksDistance(a: number[], b: number[]): number {
  const x = Float64Array.from(a).sort(), y = Float64Array.from(b).sort();
  let i = 0, j = 0, d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i]!, y[j]!);
    while (i < x.length && x[i]! <= v) i++;
    while (j < y.length && y[j]! <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  return d;
}

interface Draws {
  reactionMedianMs: number[]; pursuitTauMs: number[]; noiseRad: number[]; headAimP: number[];
  /** The reaction time, and its lognormal part over the player's own median's (1 at the median: the draw uses the player's trait). */
  reactionMs: number[]; reactionOfMedian: number[];
  confirmMs: number[]; overshoot: number[]; wobbleRad: number[];
}
const empty = (): Draws => ({ reactionMedianMs: [], pursuitTauMs: [], noiseRad: [], headAimP: [], reactionMs: [], reactionOfMedian: [], confirmMs: [], overshoot: [], wobbleRad: [] });

/** Honest synthetic players as a match makes them (createPlayer from the match's stream), engaged and stepped as the match does. */
function synthetic(): Draws {
  const d = empty();
  const { validation } = defaultRules(16, 64);
  const magazines = validation.weapons.map((w) => w.magazine);
  const match = new Rng(101);
  for (let i = 0; i < N; i++) {
    const pl: Player = createPlayer(i % 16, CheatKind.HONEST, false, { x: 0, y: 0, z: 0, dirX: 0, dirZ: 1 }, 1, 101 + i, match, validation.rewindWindowMs, magazines);
    d.reactionMedianMs.push(pl.traits.reactionMedianMs); d.pursuitTauMs.push(pl.traits.pursuitTauMs); d.noiseRad.push(pl.traits.noiseRad); d.headAimP.push(pl.traits.headAimP);
    // A second of the hand's wobble without a target, then an engagement and its flick plan.
    for (let k = 0; k < 64; k++) stepView(pl, k * DT, DT, NaN, NaN, 0, 0, pl.prand);
    d.wobbleRad.push(pl.noise);
    const e = engageTarget(pl, 1, 1000, pl.prand);
    pl.engagement = e;
    d.reactionMs.push(e.reactAtMs - 1000); d.confirmMs.push(e.confirmMs);
    d.reactionOfMedian.push((e.reactAtMs - 1000 - 140) / (pl.traits.reactionMedianMs - 140));
    stepView(pl, e.reactAtMs, DT, 0.5, 0, 0, 0, pl.prand);
    expect(e.phase).toBe(Phase.FLICK);
    d.overshoot.push(e.overshoot);
  }
  return d;
}

/** Honest simulator bots' aims as a bot makes them (its seed, the aim's fork), turned and engaged as a bot does. */
function simulated(): Draws {
  const d = empty();
  const run = new Rng(202);
  for (let i = 0; i < N; i++) {
    const aim = new Aim(new Rng((run.next() * 4294967296) >>> 0).fork(3));
    d.reactionMedianMs.push(aim.traits.reactionMedianMs); d.pursuitTauMs.push(aim.traits.pursuitTauMs); d.noiseRad.push(aim.traits.noiseRad); d.headAimP.push(aim.traits.headAimP);
    for (let k = 0; k < 64; k++) aim.turn(DT);
    d.wobbleRad.push(aim.wobbleAcross());
    aim.engage(1, 1000);
    d.reactionMs.push(aim.readyAt - 1000); d.confirmMs.push(aim.confirmMs); d.overshoot.push(aim.overshoot);
    d.reactionOfMedian.push((aim.readyAt - 1000 - 140) / (aim.traits.reactionMedianMs - 140));
  }
  return d;
}

describe('the one human model: synthetic players and simulator bots draw the same', () => {
  const a = synthetic(), b = simulated();
  const crit = ksCritical(N, N);
  for (const key of Object.keys(a) as (keyof Draws)[]) {
    it(`${key}: two-sample KS distance under ${crit.toFixed(4)}`, () => {
      expect(a[key].length).toBe(N);
      expect(b[key].length).toBe(N);
      expect(ksDistance(a[key], b[key])).toBeLessThan(crit);
    });
  }

  it('the KS check sees a drift of the size the two copies once had (confirmation spread 0.4 against 0.5)', () => {
    const r = new Rng(7);
    const drifted: number[] = [];
    for (let i = 0; i < N; i++) drifted.push(60 + 70 * Math.exp(0.4 * r.normal()));
    expect(ksDistance(a.confirmMs, drifted)).toBeGreaterThan(crit);
  });
});

describe('the seeded stream', () => {
  it('draws mulberry32\'s uniform sequence; derive and fork mix the seed and label as documented', () => {
    const r = new Rng(42), u = mulberry32(42);
    for (let i = 0; i < 100; i++) expect(r.next()).toBe(u());
    const d = Rng.derive(5, 3), v = mulberry32((Math.imul(5, 0x9e3779b1) ^ Math.imul(4, 0x85ebca6b)) >>> 0);
    for (let i = 0; i < 10; i++) expect(d.next()).toBe(v());
    const p = new Rng(9), q = new Rng(9);
    const f = p.fork(2), g = Rng.derive((q.next() * 4294967296) >>> 0, 2);
    for (let i = 0; i < 10; i++) expect(f.next()).toBe(g.next());
  });

  it('normals: Box-Muller over two uniform draws, mean 0 and variance 1', () => {
    const r = new Rng(3), u = mulberry32(3);
    const a = 1 - u(), b = u();
    expect(r.normal()).toBe(Math.sqrt(-2 * Math.log(a)) * Math.cos(2 * Math.PI * b));
    let s = 0, s2 = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) { const z = r.normal(); s += z; s2 += z * z; }
    // Standard errors: 1/sqrt(n) for the mean, sqrt(2/n) for the variance; five of them.
    expect(Math.abs(s / n)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(s2 / n - 1)).toBeLessThan(5 * Math.sqrt(2 / n));
  });
});
