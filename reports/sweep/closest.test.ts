import { expect, test } from 'vitest';
import { closestPoint } from './closest.ts';
import type { BudgetCheck, PointSummary } from './summary.ts';

const check = (pass: boolean): BudgetCheck => ({ budget: 'b', metric: 'm', statistic: 'p95 across seeds', value: 1, lower: null, upper: null, pass });
const point = (pool: number, passes: boolean[]): PointSummary => ({
  settings: { 'router.blueprintPoolSize': pool },
  seeds: 3,
  runsPassed: 0,
  cost: { poolBackends: 0, routeBackends: 0, slotServers: 0, bytes: 0, mib: 0 },
  metrics: {},
  checks: passes.map(check),
  meets: false,
});

test('the point meeting the most budgets; the first in grid order on a tie', () => {
  expect(closestPoint([point(0, [false, false]), point(1, [true, false]), point(2, [false, true]), point(3, [false, false])])?.settings).toEqual({ 'router.blueprintPoolSize': 1 });
  // None meets any budget: the first point.
  expect(closestPoint([point(0, [false]), point(1, [false])])?.settings).toEqual({ 'router.blueprintPoolSize': 0 });
  expect(closestPoint([])).toBeUndefined();
});
