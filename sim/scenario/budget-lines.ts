import { isMap, isPair, isScalar, LineCounter, parseDocument } from 'yaml';
import { canonicalMetricPath } from '../../reports/budgets.ts';
import type { BudgetLines } from '../../reports/render/outcome.ts';

/**
 * Where a scenario file states each budget: the line of its key under `budgets:`, by canonical metric
 * path, and the `budgets:` key's own line as `section` (or 1 with none). CI annotations and test
 * failures point there; a budget given on the command line, or the built-in one, points at the section.
 * Reads a file loadScenario already accepted: what it cannot place it leaves out, never throws.
 */

export function budgetLines(yamlText: string): BudgetLines {
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lines });
  const out: BudgetLines = { section: 1, byMetric: {} };
  if (!isMap(doc.contents)) return out;
  const section = doc.contents.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === 'budgets');
  if (section === undefined || !isScalar(section.key)) return out;
  out.section = lines.linePos(section.key.range?.[0] ?? 0).line;
  if (!isMap(section.value)) return out;
  for (const pair of section.value.items) {
    if (!isScalar(pair.key)) continue;
    const metric = canonicalMetricPath(String(pair.key.value));
    if (metric !== null) out.byMetric[metric] ??= lines.linePos(pair.key.range?.[0] ?? 0).line;
  }
  return out;
}
