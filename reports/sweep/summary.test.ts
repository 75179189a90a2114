import { expect, test } from 'vitest';
import { summarizeSweep, type SummaryInput, type SummaryRow } from './summary.ts';

/** One axis (pool 0..2), 4 seeds; reloads.total per seed given per pool; slot servers = 10 + 3 · pool. */
function rows(reloads: Record<number, number[]>, extra: (pool: number, seed: number) => Record<string, number | null> = () => ({})): SummaryRow[] {
  const out: SummaryRow[] = [];
  for (const pool of [0, 1, 2]) {
    reloads[pool]!.forEach((total, i) => {
      out.push({
        point: { 'router.blueprintPoolSize': pool },
        seed: i + 1,
        metrics: { 'reloads.total': total, 'invariants.violations': 0, ...extra(pool, i + 1) },
        preallocated: { poolBackends: 3 * pool, routeBackends: 10, slotServers: 10 + 3 * pool },
        pass: true,
      });
    });
  }
  return out;
}

const base: SummaryInput = {
  grid: [{ key: 'router.blueprintPoolSize', values: [0, 1, 2] }],
  seeds: [1, 2, 3, 4],
  budgets: ['reloads.total <= 2'],
  statistic: { kind: 'quantile', q: 0.75 },
  ciLevel: 0.95,
  cost: { perBackendBytes: 1000, perServerBytes: 100 },
};
const data = { 0: [5, 5, 6, 7], 1: [1, 2, 2, 9], 2: [1, 1, 2, 2] };

test('quantile mode: the cheapest point whose q-quantile meets the budget', () => {
  // p75 (nearest rank 3 of 4): pool 0 → 6, pool 1 → 2, pool 2 → 2. Pool 1 meets and is cheaper (13 < 16 slots).
  const s = summarizeSweep(base, rows(data));
  expect(s.points.map((p) => p.checks[0]!.value)).toEqual([6, 2, 2]);
  expect(s.recommendation).toMatchObject({ settings: { 'router.blueprintPoolSize': 1 }, metric: 'reloads.total', value: 2, budget: 'reloads.total <= 2' });
  expect(s.recommendation!.cost).toEqual({ poolBackends: 3, routeBackends: 10, slotServers: 13, bytes: 3 * 1000 + 13 * 100, mib: 0 });
  // p95 (rank 4 of 4): pool 1 → 9 misses; pool 2 → 2 meets.
  expect(summarizeSweep({ ...base, statistic: { kind: 'quantile', q: 0.95 } }, rows(data)).recommendation!.settings).toEqual({ 'router.blueprintPoolSize': 2 });
});

test('confidence mode: the upper end of the mean\'s interval must meet an upper bound', () => {
  // Pool 2: mean 1.5, s = 0.57735, t(0.975, 3) = 3.18245 → upper 1.5 + 3.18245 · 0.57735 / 2 = 2.4187 > 2: misses.
  // At 50%: t(0.75, 3) = 0.76489 → upper 1.5 + 0.22080 = 1.7208 ≤ 2: meets. Pool 1 (mean 3.5) misses both.
  const at95 = summarizeSweep({ ...base, statistic: { kind: 'confidence', level: 0.95 } }, rows(data));
  expect(at95.points[2]!.checks[0]!.value).toBeCloseTo(2.4187, 3);
  expect(at95.verdict).toBe('none-meets-budget');
  expect(at95.recommendation).toBeNull();
  const at50 = summarizeSweep({ ...base, statistic: { kind: 'confidence', level: 0.5 } }, rows(data));
  expect(at50.points[2]!.checks[0]!.value).toBeCloseTo(1.7208, 3);
  expect(at50.recommendation!.settings).toEqual({ 'router.blueprintPoolSize': 2 });
});

test('a run without a figure holds an upper bound; an invariant violation disqualifies a point', () => {
  const noFailover = rows(data, (pool, seed) => ({ 'failover.latencyMs.p99': pool === 0 && seed === 1 ? 5000 : null, 'invariants.violations': pool === 1 && seed === 2 ? 1 : 0 }));
  const s = summarizeSweep({ ...base, budgets: ['failover.latencyMs.p99 <= 4000'] }, noFailover);
  // Pool 0: one seed at 5000, three without failover (rank below it): p75 is "no figure" → holds.
  expect(s.points[0]!.checks[0]).toMatchObject({ value: null, pass: true });
  expect(s.points[0]!.metrics['failover.latencyMs.p99']).toMatchObject({ n: 1, mean: 5000 });
  expect(s.points[1]!.meets).toBe(false);
  expect(s.recommendation!.settings).toEqual({ 'router.blueprintPoolSize': 0 });
});

test('no budget: summaries but no recommendation', () => {
  const s = summarizeSweep({ ...base, budgets: [] }, rows(data));
  expect(s.verdict).toBe('no-budget');
  expect(s.points[1]!.metrics['reloads.total']).toMatchObject({ n: 4, mean: 3.5, p50: 2, p95: 9, min: 1, max: 9 });
});
