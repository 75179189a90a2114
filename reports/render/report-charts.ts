import { perMinute, UNREQUESTED } from '../reload-rate.ts';
import type { Timeline, TimelineMarker } from '../timeline.ts';

/**
 * What report.html's charts draw, decided here rather than in the page so that it can be tested: each
 * chart's data, or null when it would be empty (a run without failover has no latency chart; a timeline
 * draws only the rows and legend entries that have something in them).
 */

/**
 * Past this many markers in a row (reloads or faults) the timeline draws that row as density: one bar per
 * time bucket, darker the more it holds. A row ~1,000 px wide shows 200 marks about 5 px apart on average;
 * many more merge into a solid block, and the cap on markers kept (reports/timeline.ts) would cut the row.
 */
export const DENSITY_THRESHOLD = 200;

/** One colour per reload reason, the same in every run, so two reports read alike. */
export const REASON_COLOURS: Readonly<Record<string, string>> = {
  initial: '#6e7781',
  'route-change': '#0969da',
  'endpoints-change': '#1f883d',
  'blueprint-change': '#8250df',
  'no-blueprint-match': '#bf8700',
  'pool-exhausted': '#cf222e',
  'dynamic-slots-exhausted': '#fb8f44',
  'reload-in-progress': '#1b7c83',
  'commit-interval': '#953800',
  'runtime-api-error': '#a40e26',
  forced: '#d4a72c',
  [UNREQUESTED]: '#afb8c1',
};

/** The time axis's unit: hours from 3 h on, minutes from 3 min on, else seconds. */
export interface TimeUnit {
  name: 'h' | 'min' | 's';
  ms: number;
}

export function timeUnitFor(simulatedMs: number): TimeUnit {
  if (simulatedMs >= 3 * 3_600_000) return { name: 'h', ms: 3_600_000 };
  if (simulatedMs >= 3 * 60_000) return { name: 'min', ms: 60_000 };
  return { name: 's', ms: 1000 };
}

export interface RateChart {
  bucketMs: number;
  /** Start of each bucket (h:mm from 3 h on, else whole minutes), and one more for the end of the last. */
  labels: string[];
  /** The labels' unit, for the axis title. */
  unitName: string;
  reasons: Array<{ reason: string; colour: string; perMinute: number[] }>;
  inputsPerMinute: number[];
}

/** A row of the timeline: markers one by one, or how many fall in each bucket. */
export type MarkerRow =
  | { kind: TimelineMarker['kind']; mode: 'markers'; total: number; markers: Array<{ from: number; to: number; label: string }> }
  | { kind: TimelineMarker['kind']; mode: 'density'; total: number; bucket: string; max: number; cells: Array<{ from: number; to: number; n: number; alpha: number }> };

export interface TimelineChart {
  /** What the rows show, e.g. "faults, reloads and VIP masters". */
  title: string;
  unit: TimeUnit;
  end: number;
  rows: string[];
  markerRows: MarkerRow[];
  /** Legend entries with something to show: VIP states that occurred, masters by node. */
  vipSets: Array<{ label: string; colour: string; bars: Array<{ from: number; to: number; row: string; note: string }> }>;
}

export interface LatencyChart {
  binMs: number;
  fromMs: number;
  counts: number[];
}

export interface ReportCharts {
  rate: RateChart | null;
  timeline: TimelineChart | null;
  latency: LatencyChart | null;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function reloadRateChart(t: Timeline): RateChart | null {
  const r = t.reloadRate;
  const reloads = r.byReason.reduce((a, s) => a + s.counts.reduce((x, y) => x + y, 0), 0);
  const inputs = r.inputs.reduce((a, b) => a + b, 0);
  if (reloads === 0 && inputs === 0) return null;
  const hours = timeUnitFor(r.simulatedMs).name === 'h';
  // Buckets are whole minutes (one, doubled), so minutes label them exactly.
  const label = (ms: number) => {
    const min = Math.round(ms / 60_000);
    return hours ? `${Math.floor(min / 60)}:${String(min % 60).padStart(2, '0')}` : String(min);
  };
  return {
    bucketMs: r.bucketMs,
    labels: [...r.inputs.map((_, i) => label(i * r.bucketMs)), label(r.simulatedMs)],
    unitName: hours ? 'h:mm' : 'min',
    reasons: r.byReason.map((s) => ({ reason: s.reason, colour: REASON_COLOURS[s.reason] ?? '#57606a', perMinute: perMinute(s.counts, r.bucketMs, r.simulatedMs) })),
    inputsPerMinute: perMinute(r.inputs, r.bucketMs, r.simulatedMs),
  };
}

/** A bucket's width as people say it: seconds under an hour (the timeline's buckets are 2^k s), else hours. */
export function duration(ms: number): string {
  return ms < 3_600_000 ? `${round(ms / 1000)} s` : `${round(ms / 3_600_000)} h`;
}

const ROW_OF = { fault: 'faults', reload: 'reloads' } as const;
const NODE_PALETTE = ['#1f883d', '#0969da', '#bf8700', '#8250df', '#1b7c83', '#953800', '#6e7781'];

export function timelineChart(t: Timeline): TimelineChart | null {
  const unit = timeUnitFor(t.simulatedMs);
  const at = (ms: number) => round(ms / unit.ms);
  // A mark narrower than 1/400 of the run would not show: widen it to that.
  const minW = Math.max(t.simulatedMs / 400, 1);
  const markerRows: MarkerRow[] = [];
  for (const kind of ['fault', 'reload'] as const) {
    const perBucket = kind === 'fault' ? t.faultsPerBucket : t.reloadsPerBucket;
    const total = perBucket.reduce((a, b) => a + b, 0);
    if (total === 0) continue;
    if (total <= DENSITY_THRESHOLD) {
      const markers = t.markers
        .filter((m) => m.kind === kind)
        .map((m) => {
          const endMs = m.kind === 'reload' && m.endMs != null ? Math.max(m.endMs, m.atMs + minW) : m.atMs + minW;
          return { from: at(m.atMs), to: at(endMs), label: m.label };
        });
      markerRows.push({ kind, mode: 'markers', total, markers });
    } else {
      const max = Math.max(...perBucket);
      const cells = perBucket.flatMap((n, i) =>
        n === 0 ? [] : [{ from: at(i * t.bucketMs), to: at(Math.min((i + 1) * t.bucketMs, Math.max(t.simulatedMs, i * t.bucketMs + minW))), n, alpha: round(0.15 + (0.85 * n) / max) }],
      );
      markerRows.push({ kind, mode: 'density', total, bucket: duration(t.bucketMs), max, cells });
    }
  }
  const vipSets: TimelineChart['vipSets'] = [];
  // Before a VIP's first master it is being elected, not lost: report.json counts no outage there either.
  const electing: TimelineChart['vipSets'][number] = { label: 'first election (no master yet)', colour: '#d0d7de', bars: [] };
  const none: TimelineChart['vipSets'][number] = { label: 'no master', colour: '#ffcecb', bars: [] };
  const split: TimelineChart['vipSets'][number] = { label: 'split brain (two or more masters)', colour: '#a40e26', bars: [] };
  const byNode = new Map<string, TimelineChart['vipSets'][number]>();
  for (const v of t.vips) {
    const row = `VIP ${v.vip}`;
    let hadMaster = false;
    for (const s of v.segments) {
      let set;
      if (s.masters.length === 0) set = hadMaster ? none : electing;
      else if (s.masters.length > 1) set = split;
      else {
        const node = s.masters[0]!;
        set = byNode.get(node);
        if (set === undefined) byNode.set(node, (set = { label: `master ${node}`, colour: NODE_PALETTE[byNode.size % NODE_PALETTE.length]!, bars: [] }));
      }
      hadMaster ||= s.masters.length > 0;
      set.bars.push({ from: at(s.fromMs), to: at(Math.max(s.toMs, s.fromMs + minW)), row, note: s.masters.join(' + ') || set.label });
    }
  }
  for (const set of [electing, none, split, ...byNode.values()]) if (set.bars.length > 0) vipSets.push(set);
  const rows = [...markerRows.map((r) => ROW_OF[r.kind]), ...t.vips.map((v) => `VIP ${v.vip}`)];
  if (rows.length === 0) return null;
  const parts = [...markerRows.map((r) => ROW_OF[r.kind]), ...(t.vips.length > 0 ? ['VIP masters'] : [])];
  const title = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return { title, unit, end: at(Math.max(t.simulatedMs, 1)), rows, markerRows, vipSets };
}

/** Latency histogram with about 10 bins of a round width (or one bin when all latencies are equal). */
export function histogram(values: readonly number[]): LatencyChart {
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

export function reportCharts(latenciesMs: readonly number[], t: Timeline): ReportCharts {
  return {
    rate: reloadRateChart(t),
    timeline: timelineChart(t),
    latency: latenciesMs.length === 0 ? null : histogram(latenciesMs),
  };
}

/** Runs in the page: draws the charts present in the embedded JSON. No animation, so they draw at once. */
export const REPORT_PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('routerbench-data').textContent);
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  function title(text) { return { display: true, text: text, font: { size: 14, weight: 'bold' } }; }
  function axis(text) { return { display: true, text: text }; }
  function span(a, b, u) { return a + '\\u2013' + b + ' ' + u; }
  var rate = data.rate;
  if (rate) {
    var u = rate.unitName;
    var width = rate.bucketMs >= 3600000 ? (rate.bucketMs / 3600000) + ' h' : (rate.bucketMs / 60000) + ' min';
    var sets = rate.reasons.map(function (s) {
      return { type: 'bar', label: s.reason, data: s.perMinute, backgroundColor: s.colour, stack: 'reloads', yAxisID: 'y', barPercentage: 1, categoryPercentage: 0.9 };
    });
    sets.push({ type: 'line', label: 'input events (right axis)', data: rate.inputsPerMinute, borderColor: '#24292f', borderWidth: 1, borderDash: [4, 3], pointRadius: 0, yAxisID: 'y2', order: -1 });
    new Chart(document.getElementById('reloads-chart'), {
      data: { labels: rate.labels.slice(0, -1), datasets: sets },
      options: {
        plugins: {
          title: title('Reloads per minute by reason (the first request each reload served), buckets of ' + width),
          tooltip: { mode: 'index', callbacks: { title: function (items) { var i = items[0].dataIndex; return span(rate.labels[i], rate.labels[i + 1], u); } } }
        },
        scales: {
          x: { stacked: true, title: axis('simulated time (' + u + '), start of each ' + width + ' bucket'), ticks: { maxRotation: 0, autoSkipPadding: 12 } },
          y: { stacked: true, beginAtZero: true, title: axis('reloads per minute') },
          y2: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: axis('input events per minute') }
        }
      }
    });
  }
  var hist = data.latency;
  if (hist) {
    new Chart(document.getElementById('latency-chart'), {
      type: 'bar',
      data: {
        labels: hist.counts.map(function (_, i) { var a = hist.fromMs + i * hist.binMs; return span(a, a + hist.binMs, 'ms'); }),
        datasets: [{ label: 'failover incidents', data: hist.counts, backgroundColor: '#8250df' }]
      },
      options: {
        plugins: { legend: { display: false }, title: title('Failover latency: from the fault to the new master\\u2019s first GARP') },
        scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: axis('incidents') }, x: { title: axis('latency (ms)') } }
      }
    });
  }
  var tl = data.timeline;
  if (tl) {
    var tu = tl.unit.name;
    var sets2 = [];
    var rowOf = { fault: 'faults', reload: 'reloads' };
    var colourOf = { fault: [207, 34, 46], reload: [251, 143, 68] };
    tl.markerRows.forEach(function (r) {
      var c = colourOf[r.kind], rgb = 'rgb(' + c.join(',') + ')';
      if (r.mode === 'markers') {
        sets2.push({ label: rowOf[r.kind], backgroundColor: rgb, grouped: false, barPercentage: 0.8,
          data: r.markers.map(function (m) { return { x: [m.from, m.to], y: rowOf[r.kind], note: m.label }; }) });
      } else {
        sets2.push({ label: rowOf[r.kind] + ' per ' + r.bucket + ' (darker: more, up to ' + r.max + ')', grouped: false, barPercentage: 0.8,
          backgroundColor: r.cells.map(function (x) { return 'rgba(' + c.join(',') + ',' + x.alpha + ')'; }),
          data: r.cells.map(function (x) { return { x: [x.from, x.to], y: rowOf[r.kind], note: x.n + ' ' + rowOf[r.kind] }; }) });
      }
    });
    tl.vipSets.forEach(function (s) {
      sets2.push({ label: s.label, backgroundColor: s.colour, grouped: false, barPercentage: 0.8,
        data: s.bars.map(function (b) { return { x: [b.from, b.to], y: b.row, note: b.note }; }) });
    });
    new Chart(document.getElementById('timeline-chart'), {
      type: 'bar',
      data: { labels: tl.rows, datasets: sets2 },
      options: {
        indexAxis: 'y',
        plugins: {
          title: title('Timeline: ' + tl.title + ' over simulated time'),
          legend: { labels: { boxWidth: 14 } },
          tooltip: { callbacks: { label: function (c) { var r = c.raw; return (r.note || c.dataset.label) + ': ' + span(r.x[0], r.x[1], tu); } } }
        },
        scales: { x: { type: 'linear', min: 0, max: tl.end, title: axis('simulated time (' + tu + ')') },
                  y: { type: 'category', labels: tl.rows } }
      }
    });
  }
  window.routerbenchChartsReady = true;
})();
`;
