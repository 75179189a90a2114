import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 may grow the old generation past what survived the last full collection, in percent. A
 * replay keeps little alive (about 35 MB for a saturated day of 2,000 routes, flat in the log's length)
 * and makes much short-lived garbage; with a heap limit of 2 GiB or more (every 64-bit machine of 8 GiB
 * and up) V8 lets the old generation grow to four times the live data before it marks again, so a
 * dcm-slots replay of that day peaked at 250-280 MiB of RSS, over 300 MiB at three days. Growing by at
 * most 100% took the same replay to 173 MiB at the same speed (docs/performance.md, 1 Dec 2026). It is no
 * limit: a run that keeps more still gets the memory it needs.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Sets V8's growth factor for this process and its worker threads. V8 reads the flag at every full
 * collection, so setting it at start-up works where a heap-size flag (read once, at start) would not.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
