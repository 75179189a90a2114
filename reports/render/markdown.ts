import type { MetricComparison } from '../report.ts';
import { escapeMarkdownCell as cell, formatDelta, formatNumber, warningWhen } from './escape.ts';
import { outcomePasses, type ScenarioOutcome } from './outcome.ts';

/**
 * summary.md: one Markdown table per scenario (metric, budget, actual, delta against baseline, verdict),
 * fit for a CI step summary ($GITHUB_STEP_SUMMARY). Budget rows first, then baseline rows that changed.
 */
export function renderMarkdownSummary(outcomes: readonly ScenarioOutcome[]): string {
  const failed = outcomes.filter((o) => !outcomePasses(o)).length;
  const lines: string[] = [
    `## routerbench: ${outcomes.length} scenario${outcomes.length === 1 ? '' : 's'}, ${failed === 0 ? 'all passed' : `${failed} failed`}`,
    '',
  ];
  for (const o of outcomes) lines.push(...scenarioSection(o), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

function scenarioSection(o: ScenarioOutcome): string[] {
  const r = o.report;
  const ok = outcomePasses(o);
  const out = [
    `### ${ok ? '✅' : '❌'} ${cell(r.scenario)} — ${cell(r.strategy)}, seed ${r.seed}`,
    '',
    `${formatNumber(r.events)} events, ${formatNumber(r.simulatedMs / 1000)} s simulated, ${r.reloads.total} reloads, ${r.failover.latencyMs.p99 === null ? 'no failover' : `failover p99 ${formatNumber(r.failover.latencyMs.p99)} ms`}`,
    '',
    '| Metric | Budget | Actual | Δ vs baseline | Verdict |',
    '|---|---|---:|---:|---|',
  ];
  const byPath = new Map<string, MetricComparison>((o.comparison?.rows ?? []).map((row) => [row.path, row]));
  const shown = new Set<string>();
  for (const b of r.budgets) {
    const cmp = byPath.get(b.name);
    shown.add(b.name);
    out.push(`| ${cell(b.name)} | ${limitCell(b.limit)} | ${formatNumber(b.actual)} | ${cmp ? formatDelta(cmp.delta, cmp.deltaRatio) : '—'} | ${b.pass ? '✅ pass' : '❌ fail'} |`);
  }
  for (const row of o.comparison?.rows ?? []) {
    if (shown.has(row.path) || row.verdict === 'same') continue;
    const budget = row.tolerance === undefined ? 'baseline' : `baseline ± ${cell(row.tolerance.split('=')[1]!)}`;
    out.push(`| ${cell(row.path)} | ${budget} | ${formatNumber(row.actual)} | ${formatDelta(row.delta, row.deltaRatio)} | ${verdictText(row.verdict)} |`);
  }
  for (const w of o.comparison?.warnings ?? []) out.push('', `> ⚠️ ${cell(w)}`);
  if (r.warnings.total > 0) {
    out.push('', `Warnings (${r.warnings.total}):`, '');
    for (const w of r.warnings.list) out.push(`- ${cell(w.message)} (${warningWhen(w)})`);
  }
  if (!ok) out.push('', `Reproduce: \`${r.reproduce.replace(/`/g, "'")}\``);
  return out;
}

/** A bound as parseBudget writes it (`<= 2`) is shown as is (GitHub does not read `<=` as a tag); anything else escaped. */
function limitCell(limit: string): string {
  return /^(<=|>=|==|!=|<|>) -?[0-9.e+-]+$/.test(limit) ? limit : cell(limit);
}

function verdictText(v: MetricComparison['verdict']): string {
  switch (v) {
    case 'regressed':
      return '❌ regressed';
    case 'improved':
      return '✅ improved';
    case 'within-tolerance':
      return '✅ within tolerance';
    case 'changed':
      return 'ℹ️ changed';
    case 'same':
      return '✅ same';
  }
}
