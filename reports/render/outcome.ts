import type { BaselineComparison } from '../baseline.ts';
import type { Report } from '../report.ts';

/** Where a scenario file states each budget: line numbers (1-based) by canonical metric path, and of `budgets:`. */
export interface BudgetLines {
  section: number;
  byMetric: Record<string, number>;
}

/** What the renderers show for one scenario run: its report and, with --baseline, the comparison. */
export interface ScenarioOutcome {
  report: Report;
  comparison?: BaselineComparison;
  /** The input file as given on the command line: JUnit testcases and CI annotations point at it. */
  file?: string;
  /** Where that file states each budget (a budget from the command line points at `budgets:`, or line 1). */
  budgetLines?: BudgetLines;
  /** Wall time of the run in ms, measured by the CLI (the simulation never reads a clock). */
  wallMs?: number;
}

/** The line a budget's failure points at. */
export function lineOfBudget(where: BudgetLines | undefined, metric: string): number {
  return where?.byMetric[metric] ?? where?.section ?? 1;
}

/** A run fails on a broken budget (the invariant budget included) or a baseline regression. */
export function outcomePasses(o: ScenarioOutcome): boolean {
  return o.report.pass && o.report.budgets.every((b) => b.pass) && (o.comparison?.pass ?? true);
}
