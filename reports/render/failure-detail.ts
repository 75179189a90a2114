import type { BudgetResult, Report } from '../report.ts';
import { formatNumber } from './escape.ts';

/** Invariant violations a failure shows; report.json lists them all. */
export const VIOLATIONS_SHOWN = 5;

/** `n thing` or `n things`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** `invariants.violations = 29, budget == 0`: what broke, in one line. */
export function budgetFailureMessage(b: BudgetResult): string {
  return `${b.name} = ${formatNumber(b.actual)}, budget ${b.limit}`;
}

/**
 * The first violations of the run, each naming the route (request), what it should be served from and what
 * served it (invariants.ts words them so), then how many more there are.
 */
export function violationLines(r: Report, max = VIOLATIONS_SHOWN): string[] {
  const v = r.invariants.violations;
  const lines = v.slice(0, max).map((x) => `at ${formatNumber(x.atMs / 1000)} s, ${x.name}: ${x.detail}`);
  if (v.length > max) lines.push(`… and ${plural(v.length - max, 'more violation')} (report.json lists them all)`);
  return lines;
}

/** A broken budget explained: its message, and for the invariant budget the first violations. */
export function budgetFailureLines(r: Report, b: BudgetResult): string[] {
  const lines = [budgetFailureMessage(b)];
  if (b.name === 'invariants.violations') lines.push(...violationLines(r));
  return lines;
}
