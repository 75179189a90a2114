import type { MetricComparison } from '../report.ts';
import { escapeMarkdownCell as cell, formatDelta, formatNumber, warningWhen } from './escape.ts';
import { plural, violationLines } from './failure-detail.ts';
import { outcomePasses, type ScenarioOutcome } from './outcome.ts';

/**
 * summary.md, fit for a CI step summary ($GITHUB_STEP_SUMMARY): failed scenarios first, each with its
 * table (metric, budget, actual, Δ against the baseline when there is one, verdict), its first invariant
 * violations and the command that reproduces it; passed scenarios folded in a <details> below.
 */
export function renderMarkdownSummary(outcomes: readonly ScenarioOutcome[]): string {
  const failed = outcomes.filter((o) => !outcomePasses(o));
  const passed = outcomes.filter((o) => outcomePasses(o));
  const skipped = outcomes.reduce((n, o) => n + o.report.budgets.filter((b) => b.skipped !== undefined).length, 0);
  const verdict = failed.length === 0 ? (outcomes.length === 1 ? 'passed' : 'all passed') : `${formatNumber(failed.length)} failed`;
  const lines: string[] = [`## routerbench: ${plural(outcomes.length, 'scenario')}, ${verdict}${skipped > 0 ? `, ${plural(skipped, 'budget')} not judged` : ''}`, ''];
  for (const o of failed) lines.push(...scenarioSection(o), '');
  if (passed.length > 0) {
    // Folded only beside failures: a page of passes alone is what the reader came for.
    const fold = failed.length > 0;
    if (fold) lines.push('<details>', `<summary>✅ ${formatNumber(passed.length)} passed</summary>`, '');
    for (const o of passed) lines.push(...scenarioSection(o), '');
    if (fold) lines.push('</details>', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function scenarioSection(o: ScenarioOutcome): string[] {
  const r = o.report;
  const ok = outcomePasses(o);
  const withBaseline = o.comparison !== undefined;
  const failover = r.failover.latencyMs.p99 === null ? 'no failover' : `failover p99 ${formatNumber(r.failover.latencyMs.p99)} ms`;
  const out = [
    `### ${ok ? '✅' : '❌'} ${cell(r.scenario)} — ${cell(r.strategy)}, seed ${r.seed}${o.file === undefined ? '' : ` (\`${o.file.replace(/`/g, "'")}\`)`}`,
    '',
    `${plural(r.events, 'event')}, ${formatNumber(r.simulatedMs / 1000)} s simulated, ${plural(r.reloads.total, 'reload')}, ${failover}${r.failover.blackholeMs > 0 ? `, traffic black-holed ${formatNumber(r.failover.blackholeMs)} ms` : ''}${(r.failover.staleVipMs ?? 0) > 0 ? `, stale VIP beside its master ${formatNumber(r.failover.staleVipMs)} ms` : ''}`,
    '',
    withBaseline ? '| Metric | Budget | Actual | Δ vs baseline | Verdict |' : '| Metric | Budget | Actual | Verdict |',
    withBaseline ? '|---|---|---:|---:|---|' : '|---|---|---:|---|',
  ];
  const byPath = new Map<string, MetricComparison>((o.comparison?.rows ?? []).map((row) => [row.path, row]));
  const shown = new Set<string>();
  for (const b of r.budgets) {
    const cmp = byPath.get(b.name);
    shown.add(b.name);
    const delta = withBaseline ? ` ${cmp ? formatDelta(cmp.delta, cmp.deltaRatio) : '—'} |` : '';
    const verdict = b.skipped !== undefined ? `⏭️ not judged: ${cell(b.skipped)}` : b.pass ? '✅ pass' : '❌ fail';
    out.push(`| ${cell(b.name)} | ${limitCell(b.limit)} | ${formatNumber(b.actual)} |${delta} ${verdict} |`);
  }
  for (const row of o.comparison?.rows ?? []) {
    if (shown.has(row.path) || row.verdict === 'same') continue;
    const budget = row.tolerance === undefined ? 'baseline' : `baseline ± ${cell(row.tolerance.split('=')[1]!)}`;
    out.push(`| ${cell(row.path)} | ${budget} | ${formatNumber(row.actual)} | ${formatDelta(row.delta, row.deltaRatio)} | ${verdictText(row.verdict)} |`);
  }
  for (const w of o.comparison?.warnings ?? []) out.push('', `> ⚠️ ${cell(w)}`);
  if (r.invariants.violations.length > 0) {
    out.push('', `Invariant violations (${formatNumber(r.invariants.violations.length)}):`, '');
    for (const v of violationLines(r)) out.push(`- ${cell(v)}`);
  }
  if (r.warnings.total > 0) {
    out.push('', `Warnings (${formatNumber(r.warnings.total)}):`, '');
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
