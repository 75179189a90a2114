/**
 * The module a worker thread starts from, beside the module at `base` (its import.meta.url). Compiled (the
 * installed package), that is `<name>.js`. From the TypeScript sources (tests, `tsx`), it is the
 * `<name>-tsx.mjs` shim that registers tsx first: worker threads do not inherit the main thread's loader.
 */
export function workerUrl(name: string, base: string): URL {
  return new URL(base.endsWith('.ts') ? `./${name}-tsx.mjs` : `./${name}.js`, base);
}

/** The run pool's worker (`run` with several inputs). */
export const RUN_WORKER = workerUrl('run-worker', import.meta.url);
