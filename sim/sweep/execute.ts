import { getMaxListeners, setMaxListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import { workerUrl } from '../parallel/worker-url.ts';
import { taskAt, type SweepDefinition } from './plan.ts';
import { taskError } from '../parallel/run-task.ts';
import { InputError } from '../eventlog/input-error.ts';
import { isWorkerOutOfMemory, workerResourceLimits } from '../limits.ts';
import { runSweepTask, type RunRow, type SweepTask, type SweepTaskResult } from './task.ts';
import type { GridValue } from './grid.ts';

/** Runs sweep tasks somewhere: in this thread (tests, --workers 0) or on a pool of worker threads. */
export interface SweepExecutor {
  readonly workers: number;
  run(task: SweepTask, point: Record<string, GridValue>, signal?: AbortSignal): Promise<RunRow>;
  close(): Promise<void>;
}

/**
 * Runs in the calling thread. `between` is awaited before each run: the CLI passes a turn of the event loop
 * (setImmediate) so that Ctrl-C is heard between runs; tests need nothing.
 */
export function inThreadExecutor(between?: () => Promise<void>): SweepExecutor {
  return {
    workers: 0,
    run: async (task, point, signal) => {
      if (between !== undefined) await between();
      if (signal?.aborted === true) throw new Error('sweep aborted');
      return runSweepTask(task, point);
    },
    close: async () => {},
  };
}

/**
 * A tinypool of worker threads, each starting from sweep-worker (the compiled module, or from the sources its
 * shim that registers tsx first: see workerUrl).
 */
export function poolExecutor(workers: number): SweepExecutor {
  const pool = new Tinypool({
    filename: fileURLToPath(workerUrl('sweep-worker', import.meta.url)),
    minThreads: workers,
    maxThreads: workers,
    // Sweeps are CPU-bound runs of a second or more: keep the threads for the whole sweep.
    idleTimeout: 60_000,
    ...(workerResourceLimits() !== undefined && { resourceLimits: workerResourceLimits() }),
  });
  return {
    workers,
    run: async (task, point, signal) => {
      let r: SweepTaskResult;
      try {
        r = (await pool.run({ task, point }, signal === undefined ? {} : { signal })) as SweepTaskResult;
      } catch (err) {
        // Said once, as what it is, naming the run: not a bug of ours (exit 3), but a point that asks too much.
        if (isWorkerOutOfMemory(err)) {
          throw new InputError(task.file, `the run of point ${JSON.stringify(point)} seed ${task.seed} ran out of memory: the point asks for more than a worker can hold (docs/limits.md)`);
        }
        throw err;
      }
      if (!r.ok) throw taskError(r);
      return r.row;
    },
    close: () => pool.destroy(),
  };
}

export interface ExecuteOptions {
  /** Canonical positions to run (a shard's share, or all). */
  positions: readonly number[];
  executor: SweepExecutor;
  /** Called as each run finishes (in finishing order, which varies: only the rows' positions are stable). */
  onRow?: (k: number, row: RunRow) => void;
  /** Stops handing out runs and aborts those in flight; finished rows are kept. */
  signal?: AbortSignal;
}

/**
 * Runs the positions with at most 2 × workers in flight (enough to keep every worker busy, few enough that
 * an abort has little to cancel) and returns rows indexed by canonical position, holes where a run did not
 * finish. The order of `rows` never depends on scheduling.
 */
export async function executeSweep(def: SweepDefinition, opts: ExecuteOptions): Promise<{ rows: Array<RunRow | undefined>; interrupted: boolean }> {
  const rows = new Array<RunRow | undefined>(def.seeds.length * def.grid.reduce((n, a) => n * a.values.length, 1));
  const inFlight = Math.max(1, opts.executor.workers * 2);
  // Every run in flight listens on the one signal; Node warns of a leak past 10 listeners (6 workers and up).
  if (opts.signal !== undefined) setMaxListeners(Math.max(getMaxListeners(opts.signal), inFlight + 1), opts.signal);
  let next = 0;
  let failure: unknown;
  const aborted = (): boolean => opts.signal?.aborted === true;
  const lane = async (): Promise<void> => {
    while (next < opts.positions.length && failure === undefined && !aborted()) {
      const k = opts.positions[next++]!;
      const { task, point } = taskAt(def, k);
      try {
        const row = await opts.executor.run(task, point, opts.signal);
        rows[k] = row;
        opts.onRow?.(k, row);
      } catch (err) {
        if (aborted()) return;
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  if (failure !== undefined) throw failure;
  const finished = opts.positions.filter((k) => rows[k] !== undefined).length;
  return { rows, interrupted: aborted() && finished < opts.positions.length };
}
