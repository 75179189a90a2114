import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { executeSweep, type SweepExecutor } from './execute.ts';
import { parseGrid } from './grid.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks } from './plan.ts';
import type { RunRow } from './task.ts';

const def = defineSweep({
  file: fileURLToPath(new URL('../../scenarios/route-burst.yaml', import.meta.url)),
  grid: parseGrid(['router.blueprintPoolSize=0..9']),
  seeds: 3,
  set: {},
  budgets: [],
  statistic: { kind: 'quantile', q: 0.95 },
  cost: DEFAULT_COST_MODEL,
});

test('runs in flight on 8 workers (16) share the abort signal without a listener-leak warning', async () => {
  // Like tinypool, each run listens on the signal until it finishes; the rows are not looked at.
  const executor: SweepExecutor = {
    workers: 8,
    run: (_task, _point, signal) =>
      new Promise<RunRow>((resolve) => {
        const onAbort = (): void => undefined;
        signal?.addEventListener('abort', onAbort);
        setImmediate(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve({} as RunRow);
        });
      }),
    close: async () => undefined,
  };
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const { rows } = await executeSweep(def, { positions: shardTasks(def, undefined), executor, signal: new AbortController().signal });
    // 10 grid points × 3 seeds.
    expect(rows.filter((r) => r !== undefined)).toHaveLength(30);
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings).not.toContain('MaxListenersExceededWarning');
});
