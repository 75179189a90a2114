import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';

/**
 * Worker threads share their process's V8 helper threads: concurrent marking, parallel scavenges and
 * background compilation. With one worker on a two-core machine the helpers run on the idle core (1.2–1.3
 * cores busy for one worker); with a worker on every core they have no idle core and take turns with the
 * workers. A sweep with at least one worker per core therefore runs under `node --single-threaded`, where
 * each thread collects its own garbage: 7–14% more runs/s with 2 workers on the 2-core bench machine
 * (docs/sweeps.md, "Parallelism"), and 20% fewer with 1 worker, hence only then.
 */
export function wantsSingleThreadedV8(workers: number, cores = availableParallelism()): boolean {
  return workers > 1 && workers >= cores;
}

/**
 * The V8 flags of that child. Each worker then also compiles its own optimized code on its own thread, once
 * per isolate, and a sweep of a few hundred short runs per worker pays that warm-up in full: the optimizing
 * compiler took about a third of a worker's instructions over 120 runs of the bench sweep. Inlining less
 * (a cumulative inlined bytecode budget of 200 instead of V8's 920) cuts the compiler's instructions by 36%
 * for 2% more per run once warm (valgrind counts, docs/performance.md), about 9% more runs/s on the bench
 * sweep with 2 workers.
 */
export const SWEEP_V8_FLAGS: readonly string[] = ['--single-threaded', '--max-inlined-bytecode-size-cumulative=200'];

/** Set in the re-run child, so that it never re-runs itself whatever its flags look like. */
const RERUN_MARK = 'ROUTERBENCH_SINGLE_THREADED_V8';

export function runsSingleThreadedV8(): boolean {
  return process.execArgv.includes('--single-threaded') || process.env[RERUN_MARK] === '1';
}

/**
 * Runs this process's command line again in a child `node --single-threaded …` (SWEEP_V8_FLAGS; keeping the loader flags tsx
 * put in execArgv) and resolves with the child's exit code. The child gets its own process group: a Ctrl-C
 * at the terminal reaches this process alone, which passes it on once (a second one would make the sweep
 * quit without writing its rows).
 */
export function rerunSingleThreadedV8(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SWEEP_V8_FLAGS, ...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit',
      detached: process.platform !== 'win32',
      env: { ...process.env, [RERUN_MARK]: '1' },
    });
    const forwarded = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => [signal, () => child.kill(signal)] as const);
    for (const [signal, pass] of forwarded) process.on(signal, pass);
    const done = (): void => {
      for (const [signal, pass] of forwarded) process.off(signal, pass);
    };
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}
