/**
 * The bench sweep's first N runs (bench/sweep.ts: churn-with-failover under dcm-slots, a 10 × 4 grid × 10
 * seeds, in canonical order), one after another in this thread: what one sweep worker does, without the pool.
 * For profiles and instruction counts of a worker (bench/sweep-instructions.ts); prints runs/s.
 *
 *   npx tsx bench/sweep-tasks.ts [N=400]
 *   node --single-threaded --cpu-prof --import tsx bench/sweep-tasks.ts 200
 */
import { fileURLToPath } from 'node:url';
import { executeSweep, inThreadExecutor } from '../sim/sweep/execute.ts';
import { parseGrid } from '../sim/sweep/grid.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks } from '../sim/sweep/plan.ts';
import { benchCommand, intIn, parseBenchArgs } from './lib/cli.ts';

const cli = parseBenchArgs(
  benchCommand(
    'sweep-tasks.ts',
    'the bench sweep\'s first N runs (churn-with-failover under dcm-slots, a 10 × 4 grid × 10 seeds, in canonical order) one after another in this thread: what one sweep worker does, without the pool; for profiles and instruction counts',
    'the runs, the seconds they took and runs/s',
  ).argument('[n]', 'runs, 1 to 400 (default: 400)', intIn(1, 400)),
);
const n = (cli.processedArgs[0] as number | undefined) ?? 400;
const def = defineSweep({
  file: fileURLToPath(new URL('../scenarios/churn-with-failover.yaml', import.meta.url)),
  grid: parseGrid(['router.blueprintPoolSize=0..18:2', 'router.maxDynamicServers=1,2,5,10']),
  seeds: 10,
  set: { 'router.strategy': 'dcm-slots' },
  budgets: ['reloads.requests.pool-exhausted==0'],
  statistic: { kind: 'quantile', q: 0.95 },
  cost: DEFAULT_COST_MODEL,
});
const positions = shardTasks(def, undefined).slice(0, n);
const t0 = performance.now();
await executeSweep(def, { positions, executor: inThreadExecutor() });
const seconds = (performance.now() - t0) / 1000;
console.log(`${n} runs in ${seconds.toFixed(2)} s = ${(n / seconds).toFixed(1)} runs/s`);
