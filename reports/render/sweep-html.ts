import { closestPoint } from '../sweep/closest.ts';
import type { MetricSummary } from '../sweep/stats.ts';
import type { BudgetCheck, PointSummary, Recommendation } from '../sweep/summary.ts';
import { escapeHtml as h, formatNumber, jsonForScript } from './escape.ts';
import { chartJsBundle } from './html.ts';
import { pageHead } from './page-head.ts';

/** The part of sweep.json the page reads (reports/ does not import the runtime's types). */
export interface SweepPageInput {
  definition: {
    scenario: { path: string; name: string };
    grid: ReadonlyArray<{ key: string; spec: string; values: ReadonlyArray<number | string | boolean> }>;
    seeds: readonly number[];
    budgets: readonly string[];
    statistic: { kind: 'quantile'; q: number } | { kind: 'confidence'; level: number };
    ciLevel: number;
    cost: { perBackendBytes: number; perServerBytes: number };
    /** The router's own settings the sweep ran under (`--router-deployment`, `--env`), if any. */
    env?: { deployment?: { path: string; sha256: string }; vars: readonly string[]; settings: Readonly<Record<string, string>> };
  };
  runs: { expected: number; completed: number };
  complete: boolean;
  verdict: string;
  reproduce: string;
  points: readonly PointSummary[];
  recommendation: Recommendation | null;
}

/**
 * Series of the charts: one per combination of the other axes, points along the x axis. With a single
 * axis there is one series and its label is empty (each chart names it: mean reloads, MiB).
 */
export interface SweepChartData {
  xKey: string;
  xNumeric: boolean;
  xLabels: string[];
  series: Array<{ label: string; points: Array<{ x: number | string; mean: number | null; lower: number | null; upper: number | null; mib: number }> }>;
  ciLevel: number;
}

const POOL_KEY = 'router.blueprintPoolSize';

/** The x axis is the pool size when swept, else the first numeric axis, else the first axis. */
export function sweepChartData(input: SweepPageInput): SweepChartData {
  const grid = input.definition.grid;
  const numeric = (a: (typeof grid)[number]) => a.values.every((v) => typeof v === 'number');
  const xAxis = grid.find((a) => a.key === POOL_KEY && numeric(a)) ?? grid.find(numeric) ?? grid[0];
  const xKey = xAxis?.key ?? '(scenario settings)';
  const others = grid.filter((a) => a !== xAxis);
  const series = new Map<string, SweepChartData['series'][number]>();
  for (const p of input.points) {
    const label = others.length === 0 ? '' : others.map((a) => `${a.key}=${String(p.settings[a.key])}`).join(', ');
    let s = series.get(label);
    if (s === undefined) series.set(label, (s = { label, points: [] }));
    const m: MetricSummary | undefined = p.metrics['reloads.total'];
    const x = xAxis === undefined ? 0 : p.settings[xAxis.key]!;
    s.points.push({ x: typeof x === 'boolean' ? String(x) : x, mean: m?.mean ?? null, lower: m?.ci.lower ?? null, upper: m?.ci.upper ?? null, mib: p.cost.mib });
  }
  return {
    xKey,
    xNumeric: xAxis !== undefined && numeric(xAxis),
    xLabels: xAxis === undefined ? ['0'] : xAxis.values.map(String),
    series: [...series.values()],
    ciLevel: input.definition.ciLevel,
  };
}

/** Which router env every run had: with it the page tells its reader the settings behind each row. */
function envSection(env: SweepPageInput['definition']['env']): string {
  if (env === undefined) return '';
  const from: string[] = [];
  if (env.deployment !== undefined) from.push(`Deployment <code>${h(env.deployment.path)}</code> (sha256 ${h(env.deployment.sha256.slice(0, 12))}…)`);
  for (const v of env.vars) from.push(`<code>--env ${h(v)}</code>`);
  const settings = Object.entries(env.settings).map(([k, v]) => `<code>${h(k)}=${h(v)}</code>`);
  return `<p>Router env: ${from.join(', ')}${settings.length === 0 ? '' : ` → ${settings.join(' ')}`} (under every grid point; the grid wins for the keys it sweeps).</p>\n`;
}

/** sweep.html: self-contained (chart.js inlined, CSP forbids fetching); every input-derived string escaped. */
export function renderSweepHtml(input: SweepPageInput): string {
  const d = input.definition;
  const title = `routerbench sweep: ${d.scenario.name}`;
  const stat = d.statistic.kind === 'quantile' ? `p${formatNumber(d.statistic.q * 100)} across seeds` : `${formatNumber(d.statistic.level * 100)}% confidence bound of the mean`;
  return `${pageHead(title, {
    maxWidthPx: 1200,
    cellPadding: '.2rem .5rem',
    css: `tr.recommended td { background: #dafbe1; font-weight: 600; } tr.closest td { background: #fff8c5; font-weight: 600; }
.chart { position: relative; height: 400px; margin: .5rem 0 1.5rem; }
.table-scroll { max-width: 100%; overflow-x: auto; } .table-scroll table { margin: 0; }
.table-scroll td.num, .table-scroll td { white-space: nowrap; } .table-scroll th { vertical-align: bottom; }`,
  })}
<body>
<h1>${h(title)}</h1>
<p class="muted">${input.points.length} points × ${d.seeds.length} seeds (${d.seeds.length === 0 ? '' : `${d.seeds[0]}..${d.seeds[d.seeds.length - 1]}`}) · ${input.runs.completed} of ${input.runs.expected} runs${input.complete ? '' : ' · <span class="bad">incomplete</span>'} · budgets judged on the ${h(stat)}</p>
<p>Reproduce: <code>${h(input.reproduce)}</code></p>
${envSection(d.env)}${recommendationSection(input)}
<h2>Reloads against ${h(sweepChartData(input).xKey)}</h2>
<p class="muted">Mean reloads across seeds${d.grid.length > 1 ? ', one line per setting of the other axes (each its own colour, dash and point shape; numeric x values drawn slightly apart so that equal lines stay visible)' : ''}, with the ${formatNumber(d.ciLevel * 100)}% confidence interval of the mean as a band.</p>
<div class="chart"><canvas id="reloads-chart" role="img" aria-label="Reloads against the swept setting"></canvas></div>
<h2>Memory cost of pre-allocation</h2>
<p class="muted">${formatNumber(d.cost.perBackendBytes)} bytes per pool backend and ${formatNumber(d.cost.perServerBytes)} bytes per empty slot server (docs/sweeps.md).</p>
<div class="chart"><canvas id="cost-chart" role="img" aria-label="Memory cost against the swept setting"></canvas></div>
${pointsTable(input)}
<script type="application/json" id="routerbench-data">${jsonForScript(sweepChartData(input))}</script>
<script>${chartJsBundle()}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function recommendationSection(input: SweepPageInput): string {
  const r = input.recommendation;
  if (r === null) {
    const why =
      input.verdict === 'none-meets-budget'
        ? noneMeets(input)
        : input.verdict === 'no-budget'
          ? '<p class="muted">No budget was given (scenario budgets or --budget), so there is no recommendation.</p>'
          : '<p class="muted">The sweep is incomplete (a shard, or stopped early): merge the shards for a recommendation.</p>';
    return `<h2>Recommendation</h2>\n${why}`;
  }
  return `<h2>Recommendation</h2>
<p class="good">${settingsCode(r.settings)}: ${r.cost.slotServers} pre-allocated slot servers, ${r.cost.poolBackends} pool backends, about ${formatNumber(r.cost.mib)} MiB.</p>
${checksTable(r.checks)}`;
}

/** No point meets the budget: which budgets, and the closest point with its figures (as `sweep` prints it). */
function noneMeets(input: SweepPageInput): string {
  const budgets = input.definition.budgets.map((b) => `<code>${h(b)}</code>`).join(', ');
  const closest = closestPoint(input.points);
  const head = `<p class="bad">No point of the grid meets the budget (${budgets}): widen the grid.</p>`;
  if (closest === undefined) return head;
  const met = closest.checks.filter((c) => c.pass).length;
  return `${head}
<p>Closest: ${settingsCode(closest.settings)}, meeting ${met} of ${closest.checks.length} budget${closest.checks.length === 1 ? '' : 's'} (highlighted in the points table): ${closest.cost.slotServers} pre-allocated slot servers, ${closest.cost.poolBackends} pool backends, about ${formatNumber(closest.cost.mib)} MiB.</p>
${checksTable(closest.checks)}`;
}

function settingsCode(settings: Record<string, number | string | boolean>): string {
  return Object.entries(settings).map(([k, v]) => `<code>${h(k)}=${h(String(v))}</code>`).join(' ') || 'the scenario settings';
}

function checksTable(checks: readonly BudgetCheck[]): string {
  const rows = checks
    .map((c) => `<tr><td>${h(c.budget)}</td><td>${h(c.statistic)}</td><td class="num">${formatNumber(c.value)}</td><td class="num">${formatNumber(c.lower)}</td><td class="num">${formatNumber(c.upper)}</td><td class="${c.pass ? 'good' : 'bad'}">${c.pass ? 'meets' : 'misses'}</td></tr>`)
    .join('\n');
  return `<table><thead><tr><th>Budget</th><th>Judged on</th><th>Value</th><th>Lower</th><th>Upper</th><th>Verdict</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

function pointsTable(input: SweepPageInput): string {
  const keys = input.definition.grid.map((a) => a.key);
  const reasons = Object.keys(input.points[0]?.metrics ?? {}).filter((m) => m.startsWith('reloads.requests.'));
  const rec = input.recommendation === null ? null : JSON.stringify(input.recommendation.settings);
  const near = input.verdict === 'none-meets-budget' ? closestPoint(input.points) : undefined;
  const head = [...keys, 'reloads mean', 'p50', 'p95', 'p99', 'min', 'max', `CI ${formatNumber(input.definition.ciLevel * 100)}%`, ...reasons.map((r) => `${r.slice('reloads.requests.'.length)} (mean)`), 'failover p99 (p99 across seeds)', 'slot servers', 'pool backends', 'MiB', 'runs passed', 'meets budget'];
  const rows = input.points.map((p) => {
    const t = p.metrics['reloads.total'];
    const cells = [
      ...keys.map((k) => `<td>${h(String(p.settings[k]))}</td>`),
      num(t?.mean),
      num(t?.p50),
      num(t?.p95),
      num(t?.p99),
      num(t?.min),
      num(t?.max),
      `<td class="num">${t === undefined || t.ci.lower === null ? '—' : `${formatNumber(t.ci.lower)}–${formatNumber(t.ci.upper)}`}</td>`,
      ...reasons.map((r) => num(p.metrics[r]?.mean)),
      num(p.metrics['failover.latencyMs.p99']?.p99),
      num(p.cost.slotServers),
      num(p.cost.poolBackends),
      num(p.cost.mib),
      `<td class="num">${p.runsPassed}/${p.seeds}</td>`,
      `<td class="${p.meets ? 'good' : 'bad'}">${input.definition.budgets.length === 0 ? '—' : p.meets ? 'yes' : 'no'}</td>`,
    ];
    const cls = rec !== null && JSON.stringify(p.settings) === rec ? ' class="recommended"' : p === near ? ' class="closest"' : '';
    return `<tr${cls}>${cells.join('')}</tr>`;
  });
  return `<h2>Points</h2>\n<div class="table-scroll"><table><thead><tr>${head.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>`;
}

function num(v: number | null | undefined): string {
  return `<td class="num">${formatNumber(v)}</td>`;
}

/**
 * Runs in the page: one line per series with its confidence band (an upper edge filled down to the lower).
 * Series differ in colour, dash and point shape, and on a numeric x axis each is drawn a little apart
 * (a twelfth of the narrowest step, shared out), so that series with equal values stay visible.
 */
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('routerbench-data').textContent);
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  var palette = ['#0969da', '#cf222e', '#1f883d', '#8250df', '#bf8700', '#1b7c83', '#953800', '#6e7781'];
  var dashes = [[], [8, 4], [2, 3], [12, 3, 2, 3], [5, 5], [1, 6], [16, 4], [6, 2, 2, 2, 2, 2]];
  var shapes = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star', 'rectRounded', 'cross'];
  function rgba(hex, a) { var n = parseInt(hex.slice(1), 16); return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')'; }
  var n = data.series.length;
  var step = Infinity;
  var xs = [];
  if (data.xNumeric) {
    xs = data.xLabels.map(Number).sort(function (a, b) { return a - b; });
    for (var k = 1; k < xs.length; k++) if (xs[k] > xs[k - 1]) step = Math.min(step, xs[k] - xs[k - 1]);
  }
  function shift(i) { return data.xNumeric && n > 1 && isFinite(step) ? (step / 12) * (i - (n - 1) / 2) / Math.max(1, (n - 1) / 2) : 0; }
  function pts(s, i, f) { var d = shift(i); return s.points.map(function (p) { return { x: typeof p.x === 'number' ? p.x + d : p.x, y: f(p), trueX: p.x }; }); }
  function style(i) { var c = palette[i % palette.length]; return { borderColor: c, backgroundColor: c, borderDash: dashes[i % dashes.length], pointStyle: shapes[i % shapes.length], pointRadius: 4, pointHoverRadius: 6, borderWidth: 2 }; }
  function title(text) { return { display: true, text: text, font: { size: 14, weight: 'bold' } }; }
  var xTitle = { display: true, text: data.xKey + ' (swept setting)' };
  // Ticks at the swept values only, and half a step of margin for the series drawn apart.
  var xScale = data.xNumeric && isFinite(step)
    ? { type: 'linear', title: xTitle, min: xs[0] - step / 2, max: xs[xs.length - 1] + step / 2,
        afterBuildTicks: function (scale) { scale.ticks = xs.map(function (v) { return { value: v }; }); } }
    : data.xNumeric ? { type: 'linear', title: xTitle } : { type: 'category', labels: data.xLabels, title: xTitle, offset: true };
  var tooltip = { callbacks: { title: function (items) { return data.xKey + ' = ' + items[0].raw.trueX; } } };
  var legend = { labels: { usePointStyle: true, boxWidth: 10, filter: function (item, chart) { return !chart.datasets[item.datasetIndex].band; } } };
  var sets = [];
  data.series.forEach(function (s, i) {
    var c = palette[i % palette.length];
    sets.push({ label: (s.label || 'mean reloads') + ' (CI upper)', data: pts(s, i, function (p) { return p.upper === null ? p.mean : p.upper; }), borderWidth: 0, pointRadius: 0, backgroundColor: rgba(c, 0.12), fill: '+1', band: true });
    sets.push({ label: (s.label || 'mean reloads') + ' (CI lower)', data: pts(s, i, function (p) { return p.lower === null ? p.mean : p.lower; }), borderWidth: 0, pointRadius: 0, fill: false, band: true });
    sets.push(Object.assign({ label: s.label || 'mean reloads', data: pts(s, i, function (p) { return p.mean; }), fill: false }, style(i)));
  });
  new Chart(document.getElementById('reloads-chart'), {
    type: 'line',
    data: { datasets: sets },
    options: { parsing: true, scales: { x: xScale, y: { beginAtZero: true, title: { display: true, text: 'reloads per run (mean across seeds)' } } },
      plugins: { title: title('Reloads per run against ' + data.xKey + ', with the ' + Math.round(data.ciLevel * 100) + '% confidence interval of the mean'), legend: legend, tooltip: tooltip } }
  });
  new Chart(document.getElementById('cost-chart'), {
    type: 'line',
    data: { datasets: data.series.map(function (s, i) { return Object.assign({ label: s.label || 'MiB pre-allocated', data: pts(s, i, function (p) { return p.mib; }) }, style(i)); }) },
    options: { scales: { x: xScale, y: { beginAtZero: true, title: { display: true, text: 'MiB pre-allocated (pool backends + empty slot servers)' } } },
      plugins: { title: title('Memory cost of pre-allocation against ' + data.xKey), legend: legend, tooltip: tooltip } }
  });
  window.routerbenchChartsReady = true;
})();
`;
