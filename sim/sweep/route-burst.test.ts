import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { executeSweep, inThreadExecutor } from './execute.ts';
import { parseGrid } from './grid.ts';
import { buildSweepResult } from './outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks } from './plan.ts';

const SCENARIO = fileURLToPath(new URL('../../scenarios/route-burst.yaml', import.meta.url));

/*
 * Derivation (scenarios/route-burst.yaml, dcm-slots, RELOAD_INTERVAL 5 s, reloads take 1 s):
 *
 * t = 0: the initial sync (3 routes: one http, one edge, one passthrough; 3 services of 2 pods each) and the
 *        initial reload, which ends at 1 s and frees every pool slot.
 * t = 60 s, burst A: 12 http, 5 edge, 2 passthrough routes in that order, all at once. Each takes a free slot
 *        of its blueprint's pool and fills its 2 pods into `_dynamic-pod-N` slots.
 * t = 300 s: an edge route with its own certificate. No blueprint matches its TLS material: a reload
 *        (no-blueprint-match), which frees every pool slot again.
 * t = 600 s, burst B: 4 http, 8 edge, 3 passthrough.
 * No commit-interval reload: the run ends at 660 s, before the 1 h timer armed at 60 s.
 *
 * Routes of each kind between two reloads: http 12 / 4, edge 5 / 8, passthrough 2 / 3. One pool size serves
 * every blueprint, so the smallest pool with no pool-exhausted reload is max(12, 5, 2, 4, 8, 3) = 12.
 *
 * With P < 12 (and 2 slots), the (P+1)th http route of burst A finds no free slot: pool-exhausted, and the
 * reload starts at once (the last one started 60 s ago). The other 18 − P routes of the burst arrive while it
 * runs: each is refused (reload-in-progress), and they fold into one more reload after it. Reloads: initial,
 * pool-exhausted, the folded one, no-blueprint-match = 4. Burst B fits (8 ≤ P for P ≥ 8).
 * With P ≥ 12: initial + no-blueprint-match = 2.
 * With 1 slot, every pooled route's 2 pods overflow its slots (dynamic-slots-exhausted): more reloads.
 *
 * Budget (the scenario's): reloads.total <= 2 and pool-exhausted == 0. The cheapest point meeting it is
 * pool 12 with 2 slots: 3 blueprints × 12 = 36 pool backends; peak routes 3 + 19 + 1 + 15 = 38; empty slot
 * servers (36 + 38) × 2 = 148; bytes 36 × 11000 + 148 × 6700 = 1,387,600.
 */
test('route-burst: the recommendation is the pool size the rules predict', async () => {
  const def = defineSweep({
    file: SCENARIO,
    grid: parseGrid(['router.blueprintPoolSize=10..13', 'router.maxDynamicServers=1,2']),
    seeds: 2,
    set: {},
    budgets: [],
    statistic: { kind: 'quantile', q: 0.95 },
    cost: DEFAULT_COST_MODEL,
  });
  expect(def.budgets).toEqual(['reloads.total <= 2', 'reloads.requests.pool-exhausted == 0']);
  expect(def.seeds).toEqual([1, 2]); // the scenario's seed 1 and the next
  const { rows } = await executeSweep(def, { positions: shardTasks(def, undefined), executor: inThreadExecutor() });
  const { json } = buildSweepResult(def, rows);

  const at = (pool: number, slots: number) =>
    json.points.find((p) => p.settings['router.blueprintPoolSize'] === pool && p.settings['router.maxDynamicServers'] === slots)!;
  for (const pool of [10, 11]) {
    const p = at(pool, 2);
    expect(p.metrics['reloads.total']).toMatchObject({ mean: 4, min: 4, max: 4, ci: { lower: 4, upper: 4 } });
    expect(p.metrics['reloads.requests.pool-exhausted']!.mean).toBe(1);
    expect(p.metrics['reloads.requests.reload-in-progress']!.mean).toBe(18 - pool);
    expect(p.meets).toBe(false);
  }
  for (const pool of [12, 13]) {
    expect(at(pool, 2).metrics['reloads.total']!.mean).toBe(2);
    expect(at(pool, 2).metrics['reloads.requests.pool-exhausted']!.max).toBe(0);
    expect(at(pool, 2).meets).toBe(true);
  }
  for (const pool of [10, 11, 12, 13]) {
    expect(at(pool, 1).metrics['reloads.requests.dynamic-slots-exhausted']!.min).toBeGreaterThanOrEqual(1);
    expect(at(pool, 1).meets).toBe(false);
  }

  expect(json.verdict).toBe('recommended');
  expect(json.recommendation).toMatchObject({
    settings: { 'router.blueprintPoolSize': 12, 'router.maxDynamicServers': 2 },
    metric: 'reloads.total',
    value: 2,
    budget: 'reloads.total <= 2',
    cost: { poolBackends: 36, routeBackends: 38, slotServers: 148, bytes: 1_387_600 },
  });
  // Pool 13 with 2 slots also meets the budget but costs (39 + 38) × 2 = 154 slot servers.
  expect(at(13, 2).cost.slotServers).toBe(154);
});
