/**
 * Sweep throughput: a 10 × 4 grid (router.blueprintPoolSize 0..18:2 × router.maxDynamicServers 1,2,5,10)
 * × 10 seeds = 400 runs of the one-hour churn scenario (scenarios/churn-with-failover.yaml under dcm-slots),
 * on a tinypool of 1 and then 2 worker threads. Prints runs/s for each and the speed-up, and checks that
 * both give the same runs.json and sweep.json.
 *
 *   npx tsx bench/sweep.ts [--seeds 10] [--workers 1,2] [--rounds 3] [--warmup 1]
 *
 * `--workers` lists pools to compare, first against last: a worker count as `routerbench sweep --workers N`
 * runs it, or `1s` for one worker under the V8 flags a sweep with a worker per core uses (SWEEP_V8_FLAGS: no
 * V8 helper threads, so the cost of one worker on one core, which is what each of two workers on two cores
 * gets). `--warmup N` runs N rounds of one run per
 * worker before the clock starts (1 by default, as a sweep pays its own warm-up; 60 shows the steady state).
 *
 * Each round of each worker count runs in a child process started as `routerbench sweep` would run it:
 * under `node --single-threaded …` (SWEEP_V8_FLAGS) when every core has a worker (sim/cli/single-threaded-v8.ts). Each pool is
 * warmed up first (one run per worker: tsx registration and module loading happen once per thread), so the
 * figures are the steady rate a long sweep sees. The worker counts alternate over several rounds and the
 * best round of each is reported (on a shared machine other load only ever slows a round down), with the
 * CPU time the process got per wall second: the cores the sweep actually had.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, Option } from 'commander';
import { SWEEP_V8_FLAGS, wantsSingleThreadedV8 } from '../sim/cli/single-threaded-v8.ts';
import { executeSweep, poolExecutor } from '../sim/sweep/execute.ts';
import { parseGrid } from '../sim/sweep/grid.ts';
import { buildSweepResult } from '../sim/sweep/outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks, taskAt } from '../sim/sweep/plan.ts';
import { benchCommand, intIn, parseBenchArgs } from './lib/cli.ts';

interface Options {
  seeds: number;
  workers: Config[];
  rounds: number;
  warmup: number;
  child?: boolean;
}
const opts = parseBenchArgs(
  benchCommand(
    'sweep.ts',
    'sweep throughput: 400 runs (a 10 × 4 grid × 10 seeds) of churn-with-failover under dcm-slots on pools of worker threads, each round of each pool in a child process started as routerbench sweep would run it',
    'per round and pool: runs, seconds, runs/s and cores busy; the best round of each pool; the speed-up of the last pool against the first; and whether every pool gave the same runs.json and sweep.json',
  )
    .option('--seeds <n>', 'seeds per grid point', intIn(1, 1000), 10)
    .option('--workers <list>', 'pools to compare, first against last: a worker count as routerbench sweep --workers N runs it, or 1s for one worker under the V8 flags a sweep with a worker per core uses', workerList, workerList('1,2'))
    .option('--rounds <n>', 'rounds (the best of each pool is shown)', intIn(1, 100), 3)
    .option('--warmup <n>', 'rounds of one run per worker before the clock starts', intIn(0, 10_000), 1)
    .addOption(new Option('--child', 'measure one pool of --workers in this process (how each round runs)').hideHelp()),
).opts<Options>();
const seeds = opts.seeds;

function workerList(value: string): Config[] {
  try {
    return value.split(',').map(configOf);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

interface Round {
  rate: number;
  cores: number;
  /** sha256 of runs.json + sweep.json: every worker count must give the same. */
  outputs: string;
}

if (opts.child === true) {
  process.stdout.write(JSON.stringify(await measure(opts.workers[0]!.workers)) + '\n');
} else {
  await main();
}

/** One pool of `workers` threads over the whole sweep, in this process. */
async function measure(workers: number): Promise<Round> {
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
  const executor = poolExecutor(workers);
  try {
    const warmup = opts.warmup;
    for (let w = 0; w < warmup; w++) {
      const warm = taskAt(def, w % positions.length);
      await Promise.all(Array.from({ length: workers }, () => executor.run(warm.task, warm.point)));
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { rows } = await executeSweep(def, { positions, executor });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const result = buildSweepResult(def, rows);
    return {
      rate: positions.length / seconds,
      cores: (cpu.user + cpu.system) / 1e6 / seconds,
      outputs: createHash('sha256').update(result.files['runs.json'] + result.files['sweep.json']).digest('hex'),
    };
  } finally {
    await executor.close();
  }
}

/** A pool to measure: `2` as `routerbench sweep --workers 2` runs it; `1s` is one worker under `--single-threaded`. */
interface Config {
  name: string;
  workers: number;
  singleThreaded: boolean;
}

function configOf(spec: string): Config {
  const m = /^(\d+)(s?)$/.exec(spec.trim());
  if (m === null || Number(m[1]) < 1) throw new Error(`--workers: '${spec}' is not a worker count (2) or a count under --single-threaded (1s)`);
  const workers = Number(m[1]);
  return { name: spec.trim(), workers, singleThreaded: m[2] === 's' || wantsSingleThreadedV8(workers) };
}

async function main(): Promise<void> {
  const configs = opts.workers;
  const rounds = opts.rounds;
  const warmup = String(opts.warmup);
  const runs = 40 * seeds;
  console.log(`churn-with-failover: router.blueprintPoolSize 10 × router.maxDynamicServers 4 × ${seeds} seeds = ${runs} runs; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  const self = fileURLToPath(import.meta.url);
  const best = new Map<string, Round>();
  const outputs: string[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const inRound: string[] = [];
    outputs.push(inRound);
    for (const c of configs) {
      const v8 = c.singleThreaded ? SWEEP_V8_FLAGS : [];
      const args = [...v8, ...process.execArgv, self, '--child', '--workers', String(c.workers), '--seeds', String(seeds), '--warmup', warmup];
      const out = execFileSync(process.execPath, args, { encoding: 'utf8' });
      const r = JSON.parse(out.trim().split('\n').pop()!) as Round;
      inRound.push(r.outputs);
      if ((best.get(c.name)?.rate ?? 0) < r.rate) best.set(c.name, r);
      console.log(
        `round ${round}, ${label(c)}: ${runs} runs in ${(runs / r.rate).toFixed(1)} s = ${r.rate.toFixed(2)} runs/s, ${r.cores.toFixed(2)} cores busy (load average ${loadavg()[0]!.toFixed(1)})`,
      );
    }
  }
  for (const c of configs) {
    const b = best.get(c.name)!;
    console.log(`best of ${rounds}, ${label(c)}: ${b.rate.toFixed(2)} runs/s (${b.cores.toFixed(2)} cores busy)`);
  }
  if (configs.length >= 2) {
    const a = configs[0]!;
    const b = configs[configs.length - 1]!;
    console.log(`speed-up ${label(b).trim()} vs ${label(a).trim()}: ${(best.get(b.name)!.rate / best.get(a.name)!.rate).toFixed(2)}×`);
  }
  // Each child loads the sources afresh: if others change them during the bench, rounds may differ while each
  // round's worker counts (run back to back) still agree.
  const sameInRound = outputs.every((r) => new Set(r).size === 1);
  const sameOverall = new Set(outputs.flat()).size === 1;
  console.log(`same runs.json and sweep.json for every worker count within each round: ${sameInRound ? 'yes' : 'NO'}; across rounds: ${sameOverall ? 'yes' : 'no (did the sources change during the bench?)'}`);
}

function label(c: Config): string {
  return `${c.workers} worker${c.workers === 1 ? ' ' : 's'}${c.singleThreaded ? ' (V8 single-threaded)' : ''}`;
}
