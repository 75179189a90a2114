import type { Report } from '../report.ts';
import { warningWhen } from './escape.ts';

const COLUMNS = ['scenario', 'strategy', 'events', 'simulated', 'reloads', 'failover p99', 'black hole', 'verdict'] as const;

/** The summary table `routerbench run` prints: one row per run, verdict last. */
export function renderSummaryTable(reports: readonly Report[]): string {
  const rows = reports.map((r) => [
    r.scenario,
    r.strategy,
    String(r.events),
    formatDuration(r.simulatedMs),
    String(r.reloads.total),
    r.failover.latencyMs.p99 === null ? '-' : `${formatMs(r.failover.latencyMs.p99)}`,
    // Time clients reached a VIP whose holder had no router: as much an outage as no master at all.
    r.failover.blackholeMs > 0 ? formatMs(r.failover.blackholeMs) : '-',
    r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6]);
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [line(COLUMNS), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  const failed = reports.filter((r) => !r.pass);
  const skipped = reports.flatMap((r) => r.budgets.filter((b) => b.skipped !== undefined).map((b) => ({ r, b })));
  out.push('', `${reports.length - failed.length} passed, ${failed.length} failed${skipped.length === 0 ? '' : `, ${skipped.length} budget${skipped.length === 1 ? '' : 's'} not judged`}`);
  for (const { r, b } of skipped) out.push(`not judged: ${r.scenario}: ${b.name} ${b.limit} (${b.skipped})`);
  for (const r of failed) out.push('', ...failureLines(r));
  const warned = reports.filter((r) => r.warnings.total > 0);
  if (warned.length > 0) out.push('');
  for (const r of warned) out.push(...warningLines(r));
  return out.join('\n') + '\n';
}

/** One line per distinct warning, so input the run ignored (a node name with a typo) is seen, not only logged. */
export function warningLines(r: Report): string[] {
  const lines = r.warnings.list.map((w) => `warning: ${r.scenario}: ${w.message} (${warningWhen(w)})`);
  const listed = r.warnings.list.reduce((n, w) => n + w.count, 0);
  if (r.warnings.total > listed) lines.push(`warning: ${r.scenario}: … ${r.warnings.total - listed} more (report.json lists the first ${r.warnings.list.length} distinct messages)`);
  return lines;
}

/** What broke, with the numbers, and the one command that reproduces it. */
export function failureLines(r: Report): string[] {
  const lines = [`FAIL ${r.scenario} (seed ${r.seed}, ${r.strategy})`];
  for (const b of r.budgets.filter((x) => !x.pass)) lines.push(`  budget ${b.name} ${b.limit}: actual ${b.actual ?? 'n/a'}`);
  for (const v of r.invariants.violations.slice(0, 5)) lines.push(`  invariant ${v.name} at ${v.atMs} ms: ${v.detail}`);
  if (r.invariants.violations.length > 5) lines.push(`  … ${r.invariants.violations.length - 5} more invariant violations`);
  for (const m of r.baseline?.rows.filter((x) => x.verdict === 'regressed') ?? []) {
    lines.push(`  baseline ${m.path}: ${m.baseline ?? 'n/a'} → ${m.actual ?? 'n/a'}${m.tolerance === undefined ? '' : ` (tolerance ${m.tolerance})`}`);
  }
  lines.push(`  reproduce: ${r.reproduce}`);
  return lines;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  if (s < 120) return `${trim(s)}s`;
  const m = s / 60;
  if (m < 120) return `${trim(m)}m`;
  return `${trim(m / 60)}h`;
}

function formatMs(ms: number): string {
  return `${trim(ms)}ms`;
}

function trim(x: number): string {
  return String(Math.round(x * 10) / 10);
}
