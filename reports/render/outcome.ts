import type { BaselineComparison } from '../baseline.ts';
import type { Report } from '../report.ts';

/** What the renderers show for one scenario run: its report and, with --baseline, the comparison. */
export interface ScenarioOutcome {
  report: Report;
  comparison?: BaselineComparison;
}

/** A run fails on a broken budget (the invariant budget included) or a baseline regression. */
export function outcomePasses(o: ScenarioOutcome): boolean {
  return o.report.pass && o.report.budgets.every((b) => b.pass) && (o.comparison?.pass ?? true);
}
