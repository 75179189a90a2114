/**
 * Nearest-rank quantile (the smallest value with at least q of the sample at or below it): always a value
 * that occurred, so simulated latencies are reported exactly rather than interpolated.
 */
export function quantile(sortedAscending: readonly number[], q: number): number | null {
  const n = sortedAscending.length;
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(q * n));
  return sortedAscending[Math.min(n, rank) - 1]!;
}
