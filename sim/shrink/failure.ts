import { compareWithBaseline, type Tolerance } from '../../reports/baseline.ts';
import type { Report } from '../../reports/report.ts';

/** A baseline to compare every run with, as `run --baseline` does; a regression is a failure. */
export interface BaselineCheck {
  report: Report;
  tolerances: readonly Tolerance[];
}

/**
 * How a run failed, as sorted lines: each budget that failed (`budget reloads.total <= 2`), each invariant
 * with violations (`invariant haproxy-view`), each metric that regressed from the baseline
 * (`baseline reloads.total`). Empty when the run passed. Two runs fail the same way when their lines are
 * equal: the numbers may differ, the budgets, properties and metrics that fail may not.
 */
export function failureOf(report: Report, baseline?: BaselineCheck): string[] {
  const lines = new Set<string>();
  for (const b of report.budgets) if (!b.pass) lines.add(`budget ${b.name} ${b.limit}`);
  for (const v of report.invariants.violations) lines.add(`invariant ${v.name}`);
  if (baseline !== undefined) {
    const c = compareWithBaseline(report, baseline.report, baseline.tolerances);
    for (const r of c.rows) if (r.verdict === 'regressed') lines.add(`baseline ${r.path}`);
  }
  return [...lines].sort();
}

export function sameFailure(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
