import { expect, test } from 'vitest';
import { meanInterval, quantileInterval, studentTQuantile, summarize } from './stats.ts';

test('Student t quantiles match the tables', () => {
  // Two-sided 95% critical values: df 1 → 12.706, 9 → 2.262, 19 → 2.093, 1000 → 1.962 (tables to 3 decimals).
  expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
  expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.26216, 4);
  expect(studentTQuantile(0.975, 19)).toBeCloseTo(2.09302, 4);
  expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.96234, 4);
  expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.60409, 4);
  // More of the tables (NIST/SEMATECH e-Handbook 1.3.6.7.2, upper critical values, 3 decimals): df 2 → 4.303,
  // 5 → 2.571, 100 → 1.984; one-sided 95%, df 1 → 6.314; 99.5% and 99.95% at df 1 → 63.657 and 636.619.
  expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.303, 3);
  expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.571, 3);
  expect(studentTQuantile(0.975, 100)).toBeCloseTo(1.984, 3);
  expect(studentTQuantile(0.95, 1)).toBeCloseTo(6.314, 3);
  expect(studentTQuantile(0.995, 1)).toBeCloseTo(63.657, 3);
  expect(studentTQuantile(0.9995, 1)).toBeCloseTo(636.619, 3);
  // Symmetric about 0: the lower quantile is the upper one negated.
  expect(studentTQuantile(0.025, 9)).toBeCloseTo(-studentTQuantile(0.975, 9), 9);
});

test('mean interval: t · s/√n around the mean; none for one seed; zero width for equal values', () => {
  // 1..5: mean 3, s = √2.5 = 1.5811, s/√5 = 0.70711, t(0.975, 4) = 2.77645 → half width 1.96324.
  const i = meanInterval([1, 2, 3, 4, 5], 0.95);
  expect(i.lower).toBeCloseTo(3 - 1.96324, 4);
  expect(i.upper).toBeCloseTo(3 + 1.96324, 4);
  expect(meanInterval([4], 0.95)).toEqual({ level: 0.95, lower: null, upper: null });
  expect(meanInterval([2, 2, 2], 0.95)).toEqual({ level: 0.95, lower: 2, upper: 2 });
});

test('quantile interval from order statistics', () => {
  const xs = Array.from({ length: 20 }, (_, i) => i + 1);
  // Median of 20 at 95%: B ~ Bin(20, 0.5); P(B ≤ 5) = 0.0207 ≤ 0.025 < P(B ≤ 6) = 0.0577, so l = 6;
  // symmetric, u = 15: [x(6), x(15)] = [6, 15].
  expect(quantileInterval(xs, 0.5, 0.95)).toEqual({ level: 0.95, lower: 6, upper: 15 });
  // p95 of 20: P(B = 20) = 0.95^20 = 0.358 > 0.025, so no upper bound; lower: P(B ≤ 16) = 0.0159 ≤ 0.025 <
  // P(B ≤ 17) = 0.0755, so l = 17.
  expect(quantileInterval(xs, 0.95, 0.95)).toEqual({ level: 0.95, lower: 17, upper: null });
  // 72 seeds are the fewest with 0.95^n ≤ 0.025 (0.95^71 = 0.0262, 0.95^72 = 0.0249): then x(72) bounds it.
  const many = Array.from({ length: 72 }, (_, i) => i + 1);
  expect(quantileInterval(many, 0.95, 0.95).upper).toBe(72);
  expect(quantileInterval(many.slice(1), 0.95, 0.95).upper).toBeNull();
});

test('summary: nearest-rank quantiles, nulls left out', () => {
  const s = summarize([3, null, 1, 2, 10], 0.95);
  expect(s).toMatchObject({ n: 4, mean: 4, p50: 2, p95: 10, p99: 10, min: 1, max: 10 });
  expect(summarize([null, null], 0.95)).toMatchObject({ n: 0, mean: null, p50: null, min: null, ci: { lower: null, upper: null } });
});
