import { createHash } from 'node:crypto';
import { existsSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventLogHeader, writeEventLogFile } from '../sim/cli/event-log-writer.ts';
import { expandGeneratorInput } from '../sim/generate/expand.ts';
import type { GenerateSpecInput } from '../sim/generate/spec.ts';
import { benchCommand, isMainModule, parseBenchArgs } from './lib/cli.ts';

/**
 * The benchmark's churn: 1,000 routes over 1,000 services at start, then endpoint scaling (one pod at a
 * time, 1..7 pods, so dcm-slots' 5 slots suffice), rolling deployments and route creations/deletions,
 * about 1,000,000 events over four simulated hours.
 */
export const BENCH_CHURN: GenerateSpecInput = {
  durationMs: 4 * 3_600_000,
  world: { namespaces: 20, services: 1000, endpointsPerService: 3, workers: 20 },
  routes: { initial: 1000, createPerHour: 600, deletePerHour: 600, mix: { http: 2, edge: 1, passthrough: 1 }, max: 1400 },
  scale: { perHour: 250_000, min: 1, max: 7, step: 1 },
  rollouts: { perHour: 60, batchSize: 1, batchIntervalMs: 10_000, readyAfterMs: 5_000 },
};

/**
 * A saturated day of a busy router: about 2,000 live routes over 2,000 services, endpoints.set with 1 to 8
 * addresses (scaled up to 3 pods at a time, so dcm-slots' 5 slots overflow now and then), and a route
 * created or deleted every 4.5 s on average, within the 5 s reload interval: the router reloads back to
 * back all day. About 1,000,000 events over 24 simulated hours; `days` stretches it at the same rates
 * (3 days: about 3,000,000 events), to show that memory does not grow with the log.
 */
export function saturatedDay(days = 1): GenerateSpecInput {
  return {
    durationMs: days * 24 * 3_600_000,
    world: { namespaces: 40, services: 2000, endpointsPerService: 3, workers: 40 },
    routes: { initial: 2000, createPerHour: 400, deletePerHour: 400, mix: { http: 2, edge: 1, passthrough: 1 }, max: 2200 },
    scale: { perHour: 41_000, min: 1, max: 8, step: 3 },
    rollouts: { perHour: 20, batchSize: 1, batchIntervalMs: 10_000, readyAfterMs: 5_000 },
  };
}

export const BENCH_SEED = 42;

/** The bench logs by name: `churn` (four busy hours), `day` (a saturated day), `day3` (three of them). */
export const BENCH_LOGS = {
  churn: BENCH_CHURN,
  day: saturatedDay(1),
  day3: saturatedDay(3),
} as const satisfies Record<string, GenerateSpecInput>;
export type BenchLogName = keyof typeof BENCH_LOGS;

/**
 * The log's path, generated first if it is not cached yet: deterministic (the spec and the seed), cached
 * in the temporary directory under a name derived from both, so a changed spec regenerates it. Written
 * under a partial name and renamed, so an interrupted generation is never taken for a log.
 */
export function benchLog(name: BenchLogName): string {
  const spec = BENCH_LOGS[name];
  const path = benchLogPath(name);
  if (existsSync(path)) return path;
  const partial = `${path}.partial`;
  writeEventLogFile(partial, eventLogHeader({ source: `bench/churn-log.ts ${name}`, seed: BENCH_SEED }), expandGeneratorInput(spec, BENCH_SEED));
  renameSync(partial, path);
  return path;
}

export function benchLogPath(name: BenchLogName): string {
  const spec = BENCH_LOGS[name];
  // The first log's name hashes the spec as it always did, so a cached copy stays valid.
  const key = name === 'churn' ? { BENCH_CHURN: spec, BENCH_SEED } : { name, spec, BENCH_SEED };
  const specHash = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 12);
  return join(tmpdir(), `routerbench-bench-${name}-${specHash}.jsonl`);
}

/** The four-hour churn log (bench/instructions.ts and older callers). */
export function benchChurnLogPath(): string {
  return benchLogPath('churn');
}

export function writeBenchChurnLog(path: string): void {
  if (existsSync(path)) return;
  writeEventLogFile(path, eventLogHeader({ source: 'bench/churn-log.ts', seed: BENCH_SEED }), expandGeneratorInput(BENCH_CHURN, BENCH_SEED));
}

// Run as a script: make the named logs ready (generated on first use) and say where they are.
if (isMainModule(import.meta.url)) {
  const names = Object.keys(BENCH_LOGS) as BenchLogName[];
  const cli = parseBenchArgs(
    benchCommand(
      'churn-log.ts',
      `generate the bench event logs (deterministic: the spec and seed ${BENCH_SEED}) into the temporary directory, where the benchmarks find them; a cached log is kept`,
      'per log: its name, path and size in MiB',
    ).argument('[log...]', `which logs: ${names.join(', ')} (default: churn)`),
  );
  for (const name of cli.args) {
    if (!(names as string[]).includes(name)) {
      console.error(`error: unknown log '${name}'; one of ${names.join(', ')}`);
      process.exit(2);
    }
  }
  for (const name of (cli.args.length > 0 ? cli.args : ['churn']) as BenchLogName[]) {
    const path = benchLog(name);
    console.log(`${name}: ${path} (${(statSync(path).size / 2 ** 20).toFixed(0)} MiB)`);
  }
}
