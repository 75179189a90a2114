/** Escaping for every output format: whatever came from the input (names, hosts, subjects) goes through here. */

import type { ReportWarning } from '../report.ts';

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML[c]!);
}

/** XML 1.0 text and attribute values; characters XML cannot carry at all are replaced by U+FFFD. */
export function escapeXml(s: string): string {
  // eslint-disable-next-line no-control-regex
  return escapeHtml(s).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
}

/** A Markdown table cell: no line breaks, pipes escaped, HTML neutralised (GitHub renders inline HTML). */
export function escapeMarkdownCell(s: string): string {
  return escapeHtml(s).replace(/\|/g, '\\|').replace(/`/g, '\\`').replace(/[\r\n]+/g, ' ');
}

/** JSON safe to embed in a <script> element: no `</script>`, no `<!--`, no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Numbers as people read them: integers plainly, others to 3 significant decimals; null as a dash. */
export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (Number.isInteger(n)) return String(n);
  return String(Math.round(n * 1000) / 1000);
}

/** "at 1000 ms, 3 times": when a warning came, in the same words in every renderer. */
export function warningWhen(w: ReportWarning): string {
  return `at ${formatNumber(w.atMs)} ms${w.count > 1 ? `, ${w.count} times` : ''}`;
}

export function formatDelta(delta: number | null, ratio: number | null): string {
  if (delta === null) return '—';
  if (delta === 0) return '0';
  const sign = delta > 0 ? '+' : '−';
  const pct = ratio === null ? '' : ` (${sign}${formatNumber(Math.abs(ratio * 100))}%)`;
  return `${sign}${formatNumber(Math.abs(delta))}${pct}`;
}
