import { quantile } from '../quantile.ts';

/**
 * Statistics across a point's seeds. Every function is a pure function of its (sorted) input, summing in
 * order, so the same rows give the same bytes whichever worker or shard produced them.
 *
 * Why the Student-t quantile (and the log-gamma and incomplete beta under it and under the binomial order
 * statistics) are written here rather than taken from a library, measured on 1 December 2026 against
 * commit 0982517 with the npm registry's current releases:
 * - @stdlib/stats-base-dists-t-quantile 0.2.3, the well-kept choice, installs 232 packages and 27 MB: more
 *   than all of routerbench's runtime dependencies together (15 packages, 21 MB), which every project that
 *   adds routerbench to its CI would install, for one function called once per sweep point and metric.
 *   Its quantiles and these agree to 1.1e-13 (relative, at worst) over the table below.
 * - jstat 1.9.6 is one package (1.2 MB) but untyped, last released in 2022, and further from the exact
 *   values than this code: 1e-8 to 2e-8 relative at df 19 to 1000.
 * - simple-statistics 7.12 has no inverse t distribution.
 * studentTQuantile against the tables (stats.test.ts: NIST/SEMATECH e-Handbook 1.3.6.7.2, to their 3
 * decimals; more digits where checked against the stdlib package): 12.706205 (df 1), 4.302653 (2),
 * 2.262157 (9), 2.093024 (19), 1.983972 (100), 63.656741 (0.995, df 1), 636.619249 (0.9995, df 1).
 */
export interface Interval {
  /** Confidence level, e.g. 0.95. */
  level: number;
  /** null where the sample cannot bound it (one seed; or too few seeds for a quantile's bound). */
  lower: number | null;
  upper: number | null;
}

export interface MetricSummary {
  /** Seeds with a figure (failover latency has none in a run without failover). */
  n: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  min: number | null;
  max: number | null;
  /** Student-t confidence interval of the mean across seeds. */
  ci: Interval;
}

export function summarize(values: readonly (number | null)[], level: number): MetricSummary {
  const xs = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  const n = xs.length;
  return {
    n,
    mean: n === 0 ? null : mean(xs),
    p50: quantile(xs, 0.5),
    p95: quantile(xs, 0.95),
    p99: quantile(xs, 0.99),
    min: n === 0 ? null : xs[0]!,
    max: n === 0 ? null : xs[n - 1]!,
    ci: meanInterval(xs, level),
  };
}

export function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** mean ± t(1 − α/2, n − 1) · s / √n; a single seed gives no interval; equal values a zero-width one. */
export function meanInterval(xs: readonly number[], level: number): Interval {
  const n = xs.length;
  if (n < 2) return { level, lower: null, upper: null };
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  const sd = Math.sqrt(ss / (n - 1));
  if (sd === 0) return { level, lower: m, upper: m };
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * (sd / Math.sqrt(n));
  return { level, lower: m - half, upper: m + half };
}

/**
 * Distribution-free confidence interval of the q-quantile from order statistics: [x(l), x(u)] with
 * P(x(l) ≤ ξq ≤ x(u)) ≥ level, B ~ Binomial(n, q) counting seeds below ξq; l is the largest rank with
 * P(B < l) ≤ α/2 and u the smallest with P(B ≥ u) ≤ α/2. A bound that would need rank 0 or n + 1 is null:
 * that many seeds cannot bound the quantile on that side (a 95% upper bound on p95 needs 72 seeds).
 */
export function quantileInterval(sortedAscending: readonly number[], q: number, level: number): Interval {
  const n = sortedAscending.length;
  if (n === 0) return { level, lower: null, upper: null };
  const alpha = (1 - level) / 2;
  const pmf = binomialPmf(n, q);
  let l = 0;
  let below = 0; // P(B < l + 1) as l grows
  for (let r = 1; r <= n; r++) {
    below += pmf[r - 1]!;
    if (below <= alpha + 1e-12) l = r;
    else break;
  }
  let u = n + 1;
  let above = 0; // P(B ≥ u − 1)
  for (let r = n; r >= 1; r--) {
    above += pmf[r]!;
    if (above <= alpha + 1e-12) u = r;
    else break;
  }
  return { level, lower: l >= 1 ? sortedAscending[l - 1]! : null, upper: u <= n ? sortedAscending[u - 1]! : null };
}

function binomialPmf(n: number, p: number): number[] {
  const out: number[] = [];
  if (p <= 0 || p >= 1) {
    for (let k = 0; k <= n; k++) out.push((p <= 0 ? k === 0 : k === n) ? 1 : 0);
    return out;
  }
  const lp = Math.log(p);
  const lq = Math.log(1 - p);
  for (let k = 0; k <= n; k++) out.push(Math.exp(logChoose(n, k) + k * lp + (n - k) * lq));
  return out;
}

function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/** Lanczos approximation (g = 7, 9 terms), good to ~15 digits for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularized incomplete beta I_x(a, b) by Lentz's continued fraction. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x > (a + 1) / (a + b + 2)) return 1 - (front / b) * betaFraction(1 - x, b, a);
  return (front / a) * betaFraction(x, a, b);
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** P(T ≤ t) for Student's t with df degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t (p in (0, 1)), by bisection on the CDF: deterministic to the last bit. */
export function studentTQuantile(p: number, df: number): number {
  if (p === 0.5) return 0;
  let lo = -1e4;
  let hi = 1e4;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
    if (hi - lo < 1e-12) break;
  }
  return (lo + hi) / 2;
}
