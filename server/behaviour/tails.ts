/**
 * Tail probabilities the behaviour score combines its measures with, in log10 so the smallest stay
 * finite: the standard normal's upper tail and its inverse, the count of events in a tail (beta-
 * binomial: players differ in how often they land there), the sum of squared positive parts of
 * independent normals, and the chi-square with an even number of degrees.
 */

/** log10 of the standard normal upper tail at z (Abramowitz and Stegun 7.1.26 for erfc; the asymptotic series beyond z = 6). */
export function normalTailLog10(z: number): number {
  if (!(z > 0)) return Math.log10(z === z ? 0.5 : 1);
  if (z > 6) {
    // Asymptotic series: phi(z) / z x (1 - 1/z^2 + 3/z^4 - 15/z^6).
    const r = 1 / (z * z);
    return (-z * z / 2 - Math.log(z * Math.sqrt(2 * Math.PI)) + Math.log(1 - r + 3 * r * r - 15 * r * r * r)) / Math.LN10;
  }
  const x = z / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return Math.log10(erfc / 2);
}

/**
 * log10 P(Z_1+^2 + ... + Z_m+^2 >= x) for m independent standard normals Z (Z+ = max(0, Z)): each
 * term is 0 or a chi-square with one degree, half and half, so the sum is chi-square with j degrees
 * for j ~ Binomial(m, 1/2): sum_j C(m, j) 2^-m P(chi2_j >= x). Tails by the recurrence
 * P(chi2_{k+2} >= x) = P(chi2_k >= x) + (x/2)^(k/2) e^(-x/2) / Gamma(k/2 + 1), from
 * P(chi2_1 >= x) = 2 P(Z >= sqrt x) and P(chi2_2 >= x) = e^(-x/2); in logs throughout.
 */
export function positiveChiTailLog10(x: number, m: number): number {
  if (!(x > 0)) return 0;
  const h = x / 2, lh = Math.log(h);
  const logAdd = (a: number, b: number) => (a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b))));
  // logQ[k] = ln P(chi2_k >= x); lgamma(k/2 + 1) by a + 1 = a (a) from Gamma(1) = 1, Gamma(3/2) = sqrt(pi) / 2.
  const logQ = new Float64Array(m + 1);
  logQ[0] = -Infinity;
  if (m >= 1) logQ[1] = Math.log(2) + normalTailLog10(Math.sqrt(x)) * Math.LN10;
  if (m >= 2) logQ[2] = -h;
  let lgOdd = Math.log(Math.sqrt(Math.PI) / 2), lgEven = 0;
  for (let k = 1; k + 2 <= m; k++) {
    const half = k / 2;
    let lg: number;
    if (k % 2 === 1) { lg = lgOdd; lgOdd += Math.log(half + 1); } else { lgEven += Math.log(half); lg = lgEven; }
    logQ[k + 2] = logAdd(logQ[k]!, half * lh - h - lg);
  }
  let total = -Infinity, logC = -m * Math.LN2;
  for (let j = 0; j <= m; j++) {
    if (j > 0) logC += Math.log((m - j + 1) / j);
    total = logAdd(total, logC + logQ[j]!);
  }
  return Math.min(0, total / Math.LN10);
}

/** log10 P(chi-square with an even `k` degrees >= x): e^(-x/2) sum_{j < k/2} (x/2)^j / j!. */
export function chiSquareTailLog10(x: number, k: number): number {
  if (!(x > 0)) return 0;
  const h = x / 2;
  let term = 1, sum = 1;
  for (let j = 1; j < k / 2; j++) { term *= h / j; sum += term; }
  return (-h + Math.log(sum)) / Math.LN10;
}

/**
 * log10 P(K >= k) for K beta-binomial over n trials with mean share p and intra-player correlation
 * rho (0: binomial): the count of a player's events in a tail the honest population lands in with
 * share p, when players differ in that share with variance rho p (1 - p). Summed exactly from the
 * pmf's ratio recurrence (n is a player's event count: tens to hundreds), so a player with a few
 * events is not judged by a normal approximation that puts 5 of 9 events in a 10% tail at 1 in a
 * million (it is 1 in a thousand).
 */
export function betaBinomialTailLog10(k: number, n: number, p: number, rho: number): number {
  if (!(k > 0)) return 0;
  if (k > n) return -Infinity;
  if (!(p > 0)) return -Infinity;
  if (!(p < 1)) return 0;
  // The pmf at j, in logs: ln pmf(0), then pmf(j + 1) / pmf(j).
  let lp0: number;
  let ratio: (j: number) => number;
  if (rho > 1e-9) {
    const ab = (1 - rho) / rho, a = p * ab, b = (1 - p) * ab;
    lp0 = 0;
    for (let i = 0; i < n; i++) lp0 += Math.log((b + i) / (ab + i));
    ratio = (j) => Math.log(((n - j) * (j + a)) / ((j + 1) * (n - j - 1 + b)));
  } else {
    lp0 = n * Math.log1p(-p);
    const odds = Math.log(p / (1 - p));
    ratio = (j) => Math.log((n - j) / (j + 1)) + odds;
  }
  let lpj = lp0;
  for (let j = 0; j < k; j++) lpj += ratio(j);
  // Sum pmf(k..n) relative to pmf(k) (the terms fall fast past the mode; all n - k are added).
  let sum = 1, rel = 0;
  for (let j = k; j < n; j++) {
    rel += ratio(j);
    sum += Math.exp(rel);
  }
  return Math.min(0, (lpj + Math.log(sum)) / Math.LN10);
}

/**
 * The z whose standard normal upper tail is 10^log10p (log10p <= 0): the inverse of normalTailLog10,
 * by bisection on it (so the two agree to 1e-9 wherever it is used), 0 at log10p >= log10 0.5.
 */
export function normalUpperQuantile(log10p: number): number {
  if (!(log10p < Math.log10(0.5))) return 0;
  let lo = 0, hi = 1;
  while (normalTailLog10(hi) > log10p) hi *= 2;
  for (let i = 0; i < 80 && hi - lo > 1e-9; i++) {
    const mid = (lo + hi) / 2;
    if (normalTailLog10(mid) > log10p) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}
