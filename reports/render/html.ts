import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BudgetResult } from '../report.ts';
import type { Timeline } from '../timeline.ts';
import { escapeHtml as h, formatDelta, formatNumber, jsonForScript, warningWhen } from './escape.ts';
import { outcomePasses, type ScenarioOutcome } from './outcome.ts';
import { pageHead } from './page-head.ts';
import { DENSITY_THRESHOLD, REPORT_PAGE_SCRIPT, reportCharts, type ReportCharts } from './report-charts.ts';

export { histogram } from './report-charts.ts';

/**
 * report.html: one self-contained page (no network: chart.js is inlined and a CSP forbids fetching) with
 * the verdict, budgets, baseline comparison, reloads by reason, and the charts of reports/render/report-charts.ts
 * (reload rate by reason, failover latency, a timeline of faults, reloads and VIP masters), each only when it
 * has something to show (docs/report.md says what each one draws). Everything taken from
 * the input is escaped: HTML text through escapeHtml, chart data as script-safe JSON (charts draw text on
 * a canvas, never as HTML).
 */
let chartJsSource: string | undefined;

/** chart.js's UMD bundle (dist/chart.umd.js), read once. */
export function chartJsBundle(): string {
  if (chartJsSource === undefined) {
    const require = createRequire(import.meta.url);
    const main = require.resolve('chart.js'); // …/chart.js/dist/chart.cjs
    const text = readFileSync(join(dirname(main), 'chart.umd.js'), 'utf8');
    if (/<\/script/i.test(text)) throw new Error('chart.umd.js contains </script: cannot inline it');
    chartJsSource = text;
  }
  return chartJsSource;
}

export function renderHtmlReport(outcome: ScenarioOutcome, timeline: Timeline): string {
  const r = outcome.report;
  const ok = outcomePasses(outcome);
  const latencies = r.failover.list.map((i) => i.latencyMs).filter((x): x is number => x !== null);
  const charts = reportCharts(latencies, timeline);
  const title = `routerbench: ${r.scenario}`;
  const timelineRows = charts.timeline?.rows.length ?? 0;
  return `${pageHead(title, {
    maxWidthPx: 1100,
    cellPadding: '.25rem .6rem',
    css: `.verdict { display: inline-block; padding: .1rem .6rem; border-radius: .3rem; color: #fff; font-weight: 600; }
.pass { background: #1f883d; } .fail { background: #cf222e; }
.chart { position: relative; height: 340px; margin: .5rem 0 1.5rem; } .chart.tall { height: ${Math.max(200, 110 + 34 * timelineRows)}px; }`,
  })}
<body>
<h1>${h(r.scenario)} <span class="verdict ${ok ? 'pass' : 'fail'}">${ok ? 'PASS' : 'FAIL'}</span></h1>
<p class="muted">strategy ${h(r.strategy)} · seed ${r.seed} · ${formatNumber(r.events)} events · ${formatNumber(r.simulatedMs / 1000)} s simulated · ${r.reloads.total} reloads · ${r.failover.incidents} failover incidents</p>
<p>Reproduce: <code>${h(r.reproduce)}</code></p>
${budgetsTable(outcome)}
${violationsTable(outcome)}
${warningsList(outcome)}
${baselineTable(outcome)}
${rateSection(charts)}
${latencySection(charts, timeline)}
${timelineSection(charts, timeline)}
${reasonsTable(outcome)}
${faultsTable(timeline)}
${failoverFigures(outcome)}
${incidentsTable(outcome)}
${ownersTable(outcome)}
<script type="application/json" id="routerbench-data">${jsonForScript(charts)}</script>
<script>${chartJsBundle()}</script>
<script>${REPORT_PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function rateSection(c: ReportCharts): string {
  if (c.rate === null) return '';
  return `<h2>Reloads over time</h2>
<p class="muted">Each reload counted once, under the reason of the first request it served; the dashed line is the input events applied.</p>
<div class="chart"><canvas id="reloads-chart" role="img" aria-label="Reloads per minute by reason, and input events per minute, over simulated time"></canvas></div>`;
}

/** A run with a VRRP cluster but no takeover says so; a run without one has no failover section at all. */
function latencySection(c: ReportCharts, t: Timeline): string {
  if (c.latency !== null) {
    return `<h2>Failover latency distribution</h2>
<div class="chart"><canvas id="latency-chart" role="img" aria-label="Failover latency histogram"></canvas></div>`;
  }
  return t.vips.length > 0 ? '<h2>Failover latency distribution</h2>\n<p class="muted">No failover took place in this run.</p>' : '';
}

function timelineSection(c: ReportCharts, t: Timeline): string {
  const tl = c.timeline;
  if (tl === null) return '';
  const notes: string[] = [];
  for (const row of tl.markerRows) {
    if (row.mode === 'density') {
      const what = row.kind === 'reload' ? 'reloads' : 'faults';
      notes.push(`${formatNumber(row.total)} ${what}, more than ${DENSITY_THRESHOLD}: the ${what} row shows how many fall in each ${row.bucket} bucket, darker for more (at most ${formatNumber(row.max)}).`);
    }
  }
  if (t.vipsDropped > 0) notes.push(`${t.vipsDropped} further VIPs not shown (the first ${t.vips.length} are).`);
  return `<h2>Timeline: ${h(tl.title)}</h2>
${notes.map((n) => `<p class="muted">${h(n)}</p>`).join('\n')}
<div class="chart tall"><canvas id="timeline-chart" role="img" aria-label="Timeline of faults, reloads and VIP masters"></canvas></div>`;
}

/** The invariant violations, each naming the route, what should serve it and what did; the first 500. */
function violationsTable(o: ScenarioOutcome): string {
  const all = o.report.invariants.violations;
  if (all.length === 0) return '';
  const rows = all
    .slice(0, 500)
    .map((v) => `<tr><td class="num">${formatNumber(v.atMs / 1000)}</td><td>${h(v.name)}</td><td>${h(v.detail)}</td></tr>`)
    .join('\n');
  const more = all.length > 500 ? `\n<p class="muted">${all.length - 500} more (report.json lists them all).</p>` : '';
  return `<h2>Invariant violations (${all.length})</h2>\n<table><thead><tr><th>Time (s)</th><th>Invariant</th><th>Route: expected and served</th></tr></thead><tbody>\n${rows}\n</tbody></table>${more}`;
}

function warningsList(o: ScenarioOutcome): string {
  const w = o.report.warnings;
  if (w.total === 0) return '';
  const items = w.list.map((x) => `<li>${h(x.message)} <span class="muted">(${warningWhen(x)})</span></li>`).join('\n');
  return `<h2>Warnings (${w.total})</h2>\n<ul>\n${items}\n</ul>`;
}

function budgetsTable(o: ScenarioOutcome): string {
  const rows = o.report.budgets
    .map((b) => `<tr><td>${h(b.name)}</td><td>${h(b.limit)}</td><td class="num">${formatNumber(b.actual)}</td>${verdictCell(b)}</tr>`)
    .join('\n');
  return `<h2>Budgets</h2>\n<table><thead><tr><th>Metric</th><th>Budget</th><th>Actual</th><th>Verdict</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

function verdictCell(b: BudgetResult): string {
  if (b.skipped !== undefined) return `<td class="muted">not judged: ${h(b.skipped)}</td>`;
  return `<td class="${b.pass ? 'good' : 'bad'}">${b.pass ? 'pass' : 'FAIL'}</td>`;
}

function baselineTable(o: ScenarioOutcome): string {
  const c = o.comparison;
  if (c === undefined) return '';
  const changed = c.rows.filter((row) => row.verdict !== 'same');
  const rows = changed
    .map(
      (row) =>
        `<tr><td>${h(row.path)}</td><td class="num">${formatNumber(row.baseline)}</td><td class="num">${formatNumber(row.actual)}</td><td class="num">${h(formatDelta(row.delta, row.deltaRatio))}</td><td>${h(row.tolerance ?? 'exact')}</td><td class="${row.verdict === 'regressed' ? 'bad' : 'good'}">${h(row.verdict)}</td></tr>`,
    )
    .join('\n');
  const warnings = c.warnings.map((w) => `<p class="bad">Warning: ${h(w)}</p>`).join('\n');
  const same = c.rows.length - changed.length;
  const summary = `<p class="muted">${c.regressions} regression${c.regressions === 1 ? '' : 's'}; ${same} of ${c.rows.length} metrics unchanged${changed.length > 0 ? ', the rest below' : ''}.</p>`;
  if (changed.length === 0) return `<h2>Against the baseline</h2>\n${warnings}\n${summary}`;
  return `<h2>Against the baseline</h2>\n${warnings}\n${summary}\n<table><thead><tr><th>Metric</th><th>Baseline</th><th>Actual</th><th>Δ</th><th>Tolerance</th><th>Verdict</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

function reasonsTable(o: ScenarioOutcome): string {
  const entries = Object.entries(o.report.reloads.requests).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return '';
  const rows = entries.map(([reason, n]) => `<tr><td>${h(reason)}</td><td class="num">${n}</td></tr>`).join('\n');
  return `<h2>Reload requests by reason</h2>\n<table><thead><tr><th>Reason</th><th>Requests</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

function faultsTable(t: Timeline): string {
  const faults = t.markers.filter((m) => m.kind === 'fault').slice(0, 500);
  if (faults.length === 0) return '';
  const rows = faults.map((m) => `<tr><td class="num">${formatNumber(m.atMs / 1000)}</td><td>${h(m.label)}</td></tr>`).join('\n');
  return `<h2>Faults</h2>\n<table><thead><tr><th>Time (s)</th><th>Event</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

/** The outage figures side by side: no master, a master without a router (black hole), two masters, a stale copy. */
function failoverFigures(o: ScenarioOutcome): string {
  const f = o.report.failover;
  if ((f.owners ?? []).length === 0) return '';
  const row = (label: string, v: number) => `<tr><td>${label}</td><td class="num">${formatNumber(v)}</td></tr>`;
  return `<h2>VIP outages</h2>\n<table><thead><tr><th>Figure</th><th>ms (summed over VIPs)</th></tr></thead><tbody>\n${[
    row('No live master (failover.vipUnavailableMs)', f.vipUnavailableMs),
    row('Master with no serving router: traffic black-holed (failover.blackholeMs)', f.blackholeMs),
    row('Two or more masters (failover.splitBrainMs)', f.splitBrainMs),
    row('A stale copy left by a crashed keepalived beside the master (failover.staleVipMs)', f.staleVipMs ?? 0),
  ].join('\n')}\n</tbody></table>`;
}

function ownersTable(o: ScenarioOutcome): string {
  const owners = (o.report.failover.owners ?? []).slice(0, 500);
  if (owners.length === 0) return '';
  const rows = owners.map((v) => `<tr><td>${h(v.vip)}</td><td class="num">${v.vrid}</td><td>${h(v.masters.length === 0 ? '— (no master)' : v.masters.join(', '))}</td></tr>`).join('\n');
  return `<h2>VIP owners at the end</h2>\n<table><thead><tr><th>VIP</th><th>VRID</th><th>Master</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

function incidentsTable(o: ScenarioOutcome): string {
  const list = o.report.failover.list.slice(0, 500);
  if (list.length === 0) return '';
  const rows = list
    .map(
      (i) =>
        `<tr><td class="num">${formatNumber(i.atMs / 1000)}</td><td>${h(i.fault)}</td><td>${h(i.vip)}</td><td class="num">${i.vrid}</td><td>${h(i.oldMaster ?? '—')}</td><td>${h(i.newMaster ?? '—')}</td><td class="num">${formatNumber(i.latencyMs)}</td></tr>`,
    )
    .join('\n');
  return `<h2>Failover incidents</h2>\n<table><thead><tr><th>Time (s)</th><th>Fault</th><th>VIP</th><th>VRID</th><th>Old master</th><th>New master</th><th>Latency (ms)</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}
