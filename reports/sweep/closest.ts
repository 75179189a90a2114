import type { PointSummary } from './summary.ts';

/**
 * When no point meets the budget, the one closest to it: the point meeting the most budgets, the earlier
 * in grid order on a tie. `sweep` prints it and sweep.html shows it, so both name the same point.
 */
export function closestPoint(points: readonly PointSummary[]): PointSummary | undefined {
  let best: PointSummary | undefined;
  let bestMet = -1;
  for (const p of points) {
    const met = p.checks.filter((c) => c.pass).length;
    if (met > bestMet) {
      best = p;
      bestMet = met;
    }
  }
  return best;
}
