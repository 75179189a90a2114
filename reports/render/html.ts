import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BudgetResult } from '../report.ts';
import type { Timeline } from '../timeline.ts';
import { escapeHtml as h, formatDelta, formatNumber, jsonForScript, warningWhen } from './escape.ts';
import { outcomePasses, type ScenarioOutcome } from './outcome.ts';
import { pageHead } from './page-head.ts';

/**
 * report.html: one self-contained page (no network: chart.js is inlined and a CSP forbids fetching) with
 * the verdict, budgets, baseline comparison, reloads by reason, a timeline of faults, reloads and VIP
 * masters, and charts of reloads over time and the failover latency distribution. Everything taken from
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
  const data = {
    simulatedMs: timeline.simulatedMs,
    bucketMs: timeline.bucketMs,
    inputsPerBucket: timeline.inputsPerBucket,
    reloadsPerBucket: timeline.reloadsPerBucket,
    markers: timeline.markers,
    vips: timeline.vips,
    latencyHistogram: histogram(latencies),
  };
  const title = `routerbench: ${r.scenario}`;
  return `${pageHead(title, {
    maxWidthPx: 1100,
    cellPadding: '.25rem .6rem',
    css: `.verdict { display: inline-block; padding: .1rem .6rem; border-radius: .3rem; color: #fff; font-weight: 600; }
.pass { background: #1f883d; } .fail { background: #cf222e; }
.chart { position: relative; height: 320px; margin: .5rem 0 1.5rem; } .chart.tall { height: ${Math.max(200, 60 + 34 * (timeline.vips.length + 2))}px; }`,
  })}
<body>
<h1>${h(r.scenario)} <span class="verdict ${ok ? 'pass' : 'fail'}">${ok ? 'PASS' : 'FAIL'}</span></h1>
<p class="muted">strategy ${h(r.strategy)} · seed ${r.seed} · ${formatNumber(r.events)} events · ${formatNumber(r.simulatedMs / 1000)} s simulated · ${r.reloads.total} reloads · ${r.failover.incidents} failover incidents</p>
<p>Reproduce: <code>${h(r.reproduce)}</code></p>
${budgetsTable(outcome)}
${violationsTable(outcome)}
${warningsList(outcome)}
${baselineTable(outcome)}
<h2>Reloads over time</h2>
<div class="chart"><canvas id="reloads-chart" aria-label="Reloads and input events over time"></canvas></div>
<h2>Failover latency distribution</h2>
${latencies.length === 0 ? '<p class="muted">No failover took place in this run.</p>' : ''}
<div class="chart"><canvas id="latency-chart" aria-label="Failover latency histogram"></canvas></div>
<h2>Timeline: faults, reloads and VIP masters</h2>
${timeline.markersDropped > 0 ? `<p class="muted">${timeline.markersDropped} further markers not shown.</p>` : ''}
${timeline.vipsDropped > 0 ? `<p class="muted">${timeline.vipsDropped} further VIPs not shown (the first ${timeline.vips.length} are).</p>` : ''}
<div class="chart tall"><canvas id="timeline-chart" aria-label="Timeline"></canvas></div>
${reasonsTable(outcome)}
${faultsTable(timeline)}
${failoverFigures(outcome)}
${incidentsTable(outcome)}
${ownersTable(outcome)}
<script type="application/json" id="routerbench-data">${jsonForScript(data)}</script>
<script>${chartJsBundle()}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
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

/** The outage figures side by side: no master, a master without a router (black hole), two masters. */
function failoverFigures(o: ScenarioOutcome): string {
  const f = o.report.failover;
  if ((f.owners ?? []).length === 0) return '';
  const row = (label: string, v: number) => `<tr><td>${label}</td><td class="num">${formatNumber(v)}</td></tr>`;
  return `<h2>VIP outages</h2>\n<table><thead><tr><th>Figure</th><th>ms (summed over VIPs)</th></tr></thead><tbody>\n${[
    row('No live master (failover.vipUnavailableMs)', f.vipUnavailableMs),
    row('Master with no serving router: traffic black-holed (failover.blackholeMs)', f.blackholeMs),
    row('Two or more masters (failover.splitBrainMs)', f.splitBrainMs),
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

/** Latency histogram with about 10 bins of a round width (or one bin when all latencies are equal). */
export function histogram(values: readonly number[]): { binMs: number; fromMs: number; counts: number[] } {
  if (values.length === 0) return { binMs: 1000, fromMs: 0, counts: [] };
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min;
  const raw = span === 0 ? 1 : span / 10;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const binMs = [1, 2, 5, 10].map((m) => m * pow).find((w) => w >= raw)!;
  const fromMs = Math.floor(min / binMs) * binMs;
  const counts = new Array<number>(Math.floor((max - fromMs) / binMs) + 1).fill(0);
  for (const v of values) counts[Math.floor((v - fromMs) / binMs)]!++;
  return { binMs, fromMs, counts };
}

/** Runs in the page: builds the three charts from the embedded JSON. No animation, so they draw at once. */
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('routerbench-data').textContent);
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  var secs = function (ms) { return Math.round(ms / 10) / 100; };
  var labels = data.reloadsPerBucket.map(function (_, i) { return secs(i * data.bucketMs); });
  new Chart(document.getElementById('reloads-chart'), {
    data: {
      labels: labels,
      datasets: [
        { type: 'bar', label: 'reloads started', data: data.reloadsPerBucket, backgroundColor: '#cf222e', yAxisID: 'y' },
        { type: 'line', label: 'input events', data: data.inputsPerBucket, borderColor: '#0969da', pointRadius: 0, yAxisID: 'y2' }
      ]
    },
    options: { scales: {
      x: { title: { display: true, text: 'simulated time (s), buckets of ' + secs(data.bucketMs) + ' s' } },
      y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'reloads' } },
      y2: { beginAtZero: true, ticks: { precision: 0 }, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'input events' } }
    } }
  });
  var hist = data.latencyHistogram;
  new Chart(document.getElementById('latency-chart'), {
    type: 'bar',
    data: {
      labels: hist.counts.map(function (_, i) { var a = hist.fromMs + i * hist.binMs; return a + '–' + (a + hist.binMs) + ' ms'; }),
      datasets: [{ label: 'failover incidents', data: hist.counts, backgroundColor: '#8250df' }]
    },
    options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'incidents' } },
      x: { title: { display: true, text: 'fault to new master\\u2019s first GARP' } } } }
  });
  var rows = ['faults', 'reloads'].concat(data.vips.map(function (v) { return 'VIP ' + v.vip; }));
  var minW = Math.max(data.simulatedMs / 400, 1);
  var palette = ['#1f883d', '#0969da', '#bf8700', '#8250df', '#1b7c83', '#953800', '#6e7781'];
  var byNode = {};
  var sets = [];
  function dataset(label, color) { var d = { label: label, data: [], backgroundColor: color, grouped: false, categoryPercentage: 0.9, barPercentage: 0.8 }; sets.push(d); return d; }
  var faults = dataset('faults', '#cf222e'), reloads = dataset('reloads', '#fb8f44');
  var none = dataset('no master', '#ffebe9'), split = dataset('split brain', '#a40e26');
  data.markers.forEach(function (m) {
    var end = m.kind === 'reload' && m.endMs != null ? Math.max(m.endMs, m.atMs + minW) : m.atMs + minW;
    (m.kind === 'fault' ? faults : reloads).data.push({ x: [secs(m.atMs), secs(end)], y: m.kind === 'fault' ? 'faults' : 'reloads', note: m.label });
  });
  data.vips.forEach(function (v) {
    v.segments.forEach(function (s) {
      var target;
      if (s.masters.length === 0) target = none;
      else if (s.masters.length > 1) target = split;
      else {
        var n = s.masters[0];
        if (!byNode[n]) byNode[n] = dataset('master ' + n, palette[Object.keys(byNode).length % palette.length]);
        target = byNode[n];
      }
      target.data.push({ x: [secs(s.fromMs), secs(Math.max(s.toMs, s.fromMs + minW))], y: 'VIP ' + v.vip, note: s.masters.join(' + ') || 'no master' });
    });
  });
  new Chart(document.getElementById('timeline-chart'), {
    type: 'bar',
    data: { labels: rows, datasets: sets },
    options: {
      indexAxis: 'y',
      plugins: { tooltip: { callbacks: { label: function (c) { var r = c.raw; return (r.note || c.dataset.label) + ': ' + r.x[0] + '–' + r.x[1] + ' s'; } } } },
      scales: { x: { type: 'linear', min: 0, max: secs(Math.max(data.simulatedMs, 1)), title: { display: true, text: 'simulated time (s)' } },
                y: { type: 'category', labels: rows } }
    }
  });
  window.routerbenchChartsReady = true;
})();
`;
