/**
 * Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input", 2002): the
 * smallest failing subsequence it can find of a failing sequence, 1-minimal (removing any one item of the
 * result makes the test pass). Pure: no clock, no random; the same items and test give the same result.
 * Async so that a caller can let signals (Ctrl-C) through between tests.
 */
export interface DdminOptions {
  /** After every test: tests run so far and the size of the smallest failing sequence known. */
  onProgress?: (p: { tests: number; size: number }) => void;
  /**
   * Asked before each test; true stops the search with the smallest failing sequence found so far. It may
   * be async: a CLI yields to its event loop there so that a signal handler can run between tests.
   */
  shouldStop?: () => boolean | Promise<boolean>;
}

export interface DdminResult<T> {
  /** A subsequence of the input (order kept) that still fails; 1-minimal unless `stopped`. */
  items: T[];
  /** Tests run (each distinct subsequence is tested once). */
  tests: number;
  stopped: boolean;
}

/**
 * `fails(items)` must hold for the whole input (the caller has checked). Subsets are tested first (a
 * failure inside one part halves the work), then complements, then the granularity doubles, until every
 * single item has been tried away.
 */
export async function ddmin<T>(items: readonly T[], fails: (subset: T[]) => boolean | Promise<boolean>, options: DdminOptions = {}): Promise<DdminResult<T>> {
  let current = items.map((_, i) => i);
  let tests = 0;
  let stopped = false;
  const seen = new Map<string, boolean>();
  const test = async (indices: number[]): Promise<boolean | undefined> => {
    const key = indices.join(',');
    const known = seen.get(key);
    if (known !== undefined) return known;
    if (options.shouldStop !== undefined && (await options.shouldStop())) {
      stopped = true;
      return undefined;
    }
    const r = await fails(indices.map((i) => items[i]!));
    tests++;
    seen.set(key, r);
    options.onProgress?.({ tests, size: r ? indices.length : current.length });
    return r;
  };
  const done = (): DdminResult<T> => ({ items: current.map((i) => items[i]!), tests, stopped });
  if (current.length === 0) return done();
  // A failure that needs no item at all: nothing else is smaller.
  const empty = await test([]);
  if (empty === undefined) return done();
  if (empty) {
    current = [];
    return done();
  }
  let n = 2;
  while (current.length >= 2) {
    const parts = split(current, n);
    let next: number[] | undefined;
    for (const part of parts) {
      const r = await test(part);
      if (r === undefined) return done();
      if (r) {
        next = part;
        n = 2;
        break;
      }
    }
    // With two parts each complement is the other part, already tested.
    if (next === undefined && n > 2) {
      for (let i = 0; i < parts.length; i++) {
        const complement = parts.flatMap((p, j) => (j === i ? [] : p));
        const r = await test(complement);
        if (r === undefined) return done();
        if (r) {
          next = complement;
          n = Math.max(n - 1, 2);
          break;
        }
      }
    }
    if (next !== undefined) {
      current = next;
      continue;
    }
    // Every single item has been tried away and the rest passed: 1-minimal.
    if (n >= current.length) break;
    n = Math.min(current.length, 2 * n);
  }
  return done();
}

/** `n` contiguous parts whose sizes differ by at most one, the longer ones first. */
export function split<T>(items: readonly T[], n: number): T[][] {
  const parts: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const size = Math.floor(items.length / n) + (i < items.length % n ? 1 : 0);
    parts.push(items.slice(start, start + size));
    start += size;
  }
  return parts.filter((p) => p.length > 0);
}
