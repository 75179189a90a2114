import type { RunInput } from '../run-input.ts';

/** A directory name per input (`run --out` and baselines share the layout): sanitised, duplicates numbered. */
export function outputDirNames(inputs: readonly RunInput[]): string[] {
  const seen = new Map<string, number>();
  return inputs.map((i) => {
    // Dots alone ('.', '..') would name the output directory itself or its parent: never a folder of its own.
    const safe = i.name.replace(/[^A-Za-z0-9._-]+/g, '-');
    const base = /^\.*$/.test(safe) ? `scenario${safe.replace(/\./g, '-')}` : safe;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}
