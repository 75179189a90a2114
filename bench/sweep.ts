/**
 * Sweep throughput: a 10 × 4 grid (router.blueprintPoolSize 0..18:2 × router.maxDynamicServers 1,2,5,10)
 * × 10 seeds = 400 runs of the one-hour churn scenario (scenarios/churn-with-failover.yaml under dcm-slots),
 * on a tinypool of 1 and then 2 worker threads. Prints runs/s for each and the speed-up, and checks that
 * both give the same runs.json and sweep.json.
 *
 *   npx tsx bench/sweep.ts [--seeds 10] [--workers 1,2]
 *
 * Each pool is warmed up first (one run per worker: tsx registration and module loading happen once per
 * thread), so the figures are the steady rate a long sweep sees.
 */
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { executeSweep, poolExecutor } from '../sim/sweep/execute.ts';
import { parseGrid } from '../sim/sweep/grid.ts';
import { buildSweepResult } from '../sim/sweep/outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks, taskAt } from '../sim/sweep/plan.ts';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : dflt;
};
const seeds = Number(opt('seeds', '10'));
const workerCounts = opt('workers', '1,2').split(',').map(Number);

const def = defineSweep({
  file: fileURLToPath(new URL('../scenarios/churn-with-failover.yaml', import.meta.url)),
  grid: parseGrid(['router.blueprintPoolSize=0..18:2', 'router.maxDynamicServers=1,2,5,10']),
  seeds,
  set: { 'router.strategy': 'dcm-slots' },
  budgets: ['reloads.requests.pool-exhausted==0'],
  statistic: { kind: 'quantile', q: 0.95 },
  cost: DEFAULT_COST_MODEL,
});
const positions = shardTasks(def, undefined);
console.log(`${def.scenario.name}: ${def.grid.map((a) => `${a.key} ${a.values.length}`).join(' × ')} × ${seeds} seeds = ${positions.length} runs; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);

const results: Array<{ workers: number; rate: number; files: string }> = [];
for (const workers of workerCounts) {
  const executor = poolExecutor(workers);
  try {
    const warm = taskAt(def, 0);
    await Promise.all(Array.from({ length: workers }, () => executor.run(warm.task, warm.point)));
    const t0 = performance.now();
    const { rows } = await executeSweep(def, { positions, executor });
    const seconds = (performance.now() - t0) / 1000;
    const result = buildSweepResult(def, rows);
    const rate = positions.length / seconds;
    results.push({ workers, rate, files: result.files['runs.json'] + result.files['sweep.json'] });
    console.log(`${workers} worker${workers === 1 ? ' ' : 's'}: ${positions.length} runs in ${seconds.toFixed(1)} s = ${rate.toFixed(2)} runs/s (load average now ${loadavg()[0]!.toFixed(1)})`);
  } finally {
    await executor.close();
  }
}
if (results.length >= 2) {
  const [a, b] = [results[0]!, results[results.length - 1]!];
  console.log(`speed-up ${b.workers} vs ${a.workers} workers: ${(b.rate / a.rate).toFixed(2)}×`);
  console.log(`same runs.json and sweep.json: ${results.every((r) => r.files === a.files) ? 'yes' : 'NO'}`);
}
