import { summarizeSweep, type SummaryRow } from '../sweep/summary.ts';
import type { SweepPageInput } from './sweep-html.ts';

export const HOSTILE = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';

/**
 * A 5 × 2 grid over 3 seeds: reloads fall with the pool (6 − pool, floored at 2), 3 more with 1 slot, plus
 * the seed's jitter. `slots` adds slot counts: every count above 1 reloads alike, so their lines coincide
 * (what sweep.html must still show apart).
 */
export function fixture(name = 'route-burst', budgets = ['reloads.total <= 3'], slots: number[] = [1, 2]): SweepPageInput {
  const grid = [
    { key: 'router.blueprintPoolSize', spec: '0..4', values: [0, 1, 2, 3, 4] },
    { key: 'router.maxDynamicServers', spec: slots.join(','), values: slots },
  ];
  const seeds = [1, 2, 3];
  const rows: SummaryRow[] = [];
  for (const pool of grid[0]!.values) {
    for (const slots of grid[1]!.values) {
      for (const seed of seeds) {
        const total = Math.max(2, 6 - pool) + (slots === 1 ? 3 : 0) + (seed % 2);
        rows.push({
          point: { 'router.blueprintPoolSize': pool, 'router.maxDynamicServers': slots },
          seed,
          metrics: { 'reloads.total': total, 'reloads.requests.pool-exhausted': Math.max(0, 4 - pool), 'invariants.violations': 0, 'failover.latencyMs.p99': null },
          preallocated: { poolBackends: 3 * pool, routeBackends: 10, slotServers: (3 * pool + 10) * slots },
          pass: total <= 3,
        });
      }
    }
  }
  const def = { grid, seeds, budgets, statistic: { kind: 'quantile', q: 0.95 } as const, ciLevel: 0.95, cost: { perBackendBytes: 11000, perServerBytes: 6700 } };
  const s = summarizeSweep(def, rows);
  return {
    definition: { ...def, scenario: { path: 'x.yaml', name } },
    runs: { expected: rows.length, completed: rows.length },
    complete: true,
    verdict: s.verdict,
    reproduce: `routerbench sweep x.yaml --set 'a=${HOSTILE}'`,
    points: s.points,
    recommendation: s.recommendation,
  };
}
