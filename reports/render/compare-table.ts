import { RELOAD_REASONS } from '../../core/reload-reason.ts';
import type { Report } from '../report.ts';

/**
 * One event log under several strategies, side by side: reloads run, then reload requests by reason (only
 * the reasons some strategy asked for), runtime API traffic, invariant violations, warnings and the verdict.
 */
export function renderCompareTable(reports: readonly Report[]): string {
  const reasons = RELOAD_REASONS.filter((r) => reports.some((rep) => (rep.reloads.requests[r] ?? 0) > 0));
  const rows: string[][] = [
    ['reloads run', ...reports.map((r) => String(r.reloads.total))],
    ['reloads per hour', ...reports.map((r) => String(r.reloads.perHour))],
    ...reasons.map((reason) => [`  requests: ${reason}`, ...reports.map((r) => String(r.reloads.requests[reason] ?? 0))]),
    ['runtime API commands', ...reports.map((r) => String(r.runtimeApi.commands))],
    ['runtime API errors', ...reports.map((r) => String(r.runtimeApi.errors))],
    ['invariant violations', ...reports.map((r) => String(r.invariants.violations.length))],
    ['warnings', ...reports.map((r) => String(r.warnings.total))],
    ['verdict', ...reports.map((r) => (r.pass ? 'pass' : 'FAIL'))],
  ];
  const header = ['', ...reports.map((r) => r.strategy)];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}
