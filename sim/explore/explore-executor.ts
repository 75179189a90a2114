import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import { workerResourceLimits } from '../limits.ts';
import { workerUrl } from '../parallel/worker-url.ts';
import type { ExploreExecutor } from './explore.ts';
import type { ExploreMessage } from './explore-worker.ts';
import { exploreRun, shrinkFinding, type ExploreStrategy, type RunOutcome, type ShrunkFinding } from './task.ts';

/**
 * Runs and shrinks in the calling thread. `between` is awaited before each run: the CLI passes a turn of the
 * event loop so that Ctrl-C is heard; tests need nothing. The only executor for test strategies, whose
 * factories cannot cross to a worker thread.
 */
export function inThreadExploreExecutor(between?: () => Promise<void>): ExploreExecutor {
  return {
    workers: 0,
    run: async (run, seed, strategy) => {
      if (between !== undefined) await between();
      return exploreRun(run, seed, strategy);
    },
    shrink: (seed, strategy, property, first) => shrinkFinding(seed, strategy, property, first),
  };
}

/** A tinypool of worker threads starting from explore-worker (from the sources, its tsx shim: see workerUrl). */
export function poolExploreExecutor(workers: number): ExploreExecutor & { close(): Promise<void> } {
  const pool = new Tinypool({
    filename: fileURLToPath(workerUrl('explore-worker', import.meta.url)),
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: 60_000,
    ...(workerResourceLimits() !== undefined && { resourceLimits: workerResourceLimits() }),
  });
  const named = (s: ExploreStrategy): ExploreStrategy['base'] => {
    if (s.createStrategy !== undefined) throw new Error(`explore: strategy ${s.name} has its own factory and runs only in this thread (--workers 0)`);
    return s.base;
  };
  return {
    workers,
    run: async (run, seed, strategy) => (await pool.run({ kind: 'run', run, seed, strategy: named(strategy) } satisfies ExploreMessage)) as RunOutcome,
    shrink: async (seed, strategy, property, first) => (await pool.run({ kind: 'shrink', seed, strategy: named(strategy), property, first } satisfies ExploreMessage)) as ShrunkFinding,
    close: () => pool.destroy(),
  };
}
