import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventLogHeader, writeEventLogFile } from '../sim/cli/event-log-writer.ts';
import { expandGeneratorInput } from '../sim/generate/expand.ts';
import type { GenerateSpecInput } from '../sim/generate/spec.ts';

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

export const BENCH_SEED = 42;

export function writeBenchChurnLog(path: string): void {
  if (existsSync(path)) return;
  writeEventLogFile(path, eventLogHeader({ source: 'bench/churn-log.ts', seed: BENCH_SEED }), expandGeneratorInput(BENCH_CHURN, BENCH_SEED));
}

/** Where the log is cached between runs, under a name derived from the spec, so a changed spec regenerates it. */
export function benchChurnLogPath(): string {
  const specHash = createHash('sha256').update(JSON.stringify({ BENCH_CHURN, BENCH_SEED })).digest('hex').slice(0, 12);
  return join(tmpdir(), `routerbench-bench-churn-${specHash}.jsonl`);
}
