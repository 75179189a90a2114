import { expect, test } from 'vitest';
import type { OutputRecord } from '../../sim/output/records.ts';
import { sampleReport } from '../report-fixture.ts';
import { projectTimeline } from '../timeline.ts';
import { chartJsBundle, renderHtmlReport } from './html.ts';
import { sampleRecords } from './html-fixture.ts';
import { DENSITY_THRESHOLD, reportCharts, timeUnitFor } from './report-charts.ts';

/** `n` reloads of 1 s, one every 5 s from 0 (reload-always at its 5 s interval), each asked for by a route change. */
function reloads(n: number): OutputRecord[] {
  const out: OutputRecord[] = [];
  for (let i = 0; i < n; i++) {
    const atUs = i * 5_000_000;
    out.push({ atUs, type: 'reload.request', reason: 'route-change' }, { atUs, type: 'reload.start', n: i + 1 }, { atUs: atUs + 1_000_000, type: 'reload.end', n: i + 1 });
  }
  out.push({ atUs: n * 5_000_000, type: 'run.end', events: 0, simulatedMs: n * 5000 });
  return out;
}

test('a run without failover has no latency chart, no VIP rows and no VIP legend entries', () => {
  const t = projectTimeline(reloads(3));
  const c = reportCharts([], t);
  expect(c.latency).toBeNull();
  expect(c.timeline?.rows).toEqual(['reloads']);
  expect(c.timeline?.title).toBe('reloads');
  expect(c.timeline?.vipSets).toEqual([]);
  const noFailover = sampleReport({ failover: { ...sampleReport().failover, incidents: 0, list: [], owners: [] } });
  const page = renderHtmlReport({ report: noFailover }, t).replace(chartJsBundle(), '');
  expect(page).not.toContain('id="latency-chart"');
  expect(page).not.toContain('<h2>Failover latency');
  expect(page).not.toContain('split brain');
  expect(page).toContain('id="reloads-chart"');
  expect(page).toContain('id="timeline-chart"');
});

test('a cluster whose VIP never changed hands says so instead of drawing an empty histogram', () => {
  const t = projectTimeline([
    { atUs: 0, type: 'vrrp.state', node: 'a', vrid: 1, vip: 'v', from: 'BACKUP', to: 'MASTER', priority: 100 },
    { atUs: 10_000_000, type: 'run.end', events: 0, simulatedMs: 10_000 },
  ] as OutputRecord[]);
  const page = renderHtmlReport({ report: sampleReport({ failover: { ...sampleReport().failover, incidents: 0, list: [] } }) }, t);
  expect(page).toContain('<p class="muted">No failover took place in this run.</p>');
  expect(page).not.toContain('id="latency-chart"');
  // One VIP, one master all along: one legend entry, no "no master" and no "split brain".
  expect(reportCharts([], t).timeline?.vipSets.map((s) => s.label)).toEqual(['master a']);
});

test('a row switches to density past the threshold: marks one by one up to it, counts per bucket beyond', () => {
  const at = projectTimeline(reloads(DENSITY_THRESHOLD));
  const row = reportCharts([], at).timeline!.markerRows[0]!;
  expect(row.mode).toBe('markers');
  expect(row.mode === 'markers' && row.markers).toHaveLength(DENSITY_THRESHOLD);

  const past = projectTimeline(reloads(DENSITY_THRESHOLD + 1));
  const dense = reportCharts([], past).timeline!.markerRows[0]!;
  expect(dense.mode).toBe('density');
  if (dense.mode !== 'density') return;
  // 201 reloads 5 s apart: 1,005 s in 1 s buckets doubled to 8 s (126 buckets ≤ 240; 4 s would give 252),
  // so most buckets hold 8 / 5 → one or two reloads; every reload is in some cell.
  expect(past.bucketMs).toBe(8000);
  expect(dense.bucket).toBe('8 s');
  expect(dense.cells.reduce((a, c) => a + c.n, 0)).toBe(DENSITY_THRESHOLD + 1);
  expect(dense.max).toBe(2);
  // The darkest cell is opaque, a cell of half the maximum 0.15 + 0.85 / 2.
  expect(new Set(dense.cells.map((c) => c.alpha))).toEqual(new Set([1, 0.575]));
  expect(renderHtmlReport({ report: sampleReport() }, past)).toContain('201 reloads, more than 200: the reloads row shows how many fall in each 8 s bucket, darker for more (at most 2).');
});

test('faults keep their own markers when reloads run past the cap', () => {
  // 2,500 reloads, then one fault: the fault row still has its marker.
  const records = reloads(2500);
  records.splice(records.length - 1, 0, { atUs: 2500 * 5_000_000 - 1000, type: 'input', event: 'node.fail', subject: 'infra-1' });
  const c = reportCharts([], projectTimeline(records)).timeline!;
  expect(c.rows).toEqual(['faults', 'reloads']);
  expect(c.title).toBe('faults and reloads');
  const faults = c.markerRows[0]!;
  expect(faults.mode === 'markers' && faults.markers.map((m) => m.label)).toEqual(['node.fail infra-1']);
});

test('the reload rate chart stacks reasons per minute; a run with nothing in it has none', () => {
  const c = reportCharts([], projectTimeline(sampleRecords()));
  // sampleRecords: 60 s, one minute bucket; reload 1 asked for as initial, reload 2 with no request.
  expect(c.rate?.reasons.map((r) => [r.reason, r.perMinute])).toEqual([
    ['initial', [1]],
    ['no request recorded', [1]],
  ]);
  expect(c.rate?.labels).toEqual(['0', '1']);
  expect(reportCharts([], projectTimeline([{ atUs: 0, type: 'run.end', events: 0, simulatedMs: 0 }] as OutputRecord[]))).toEqual({ rate: null, timeline: null, latency: null });
});

test('time axes use hours from 3 h, minutes from 3 min', () => {
  expect(timeUnitFor(3 * 3_600_000).name).toBe('h');
  expect(timeUnitFor(3 * 3_600_000 - 1).name).toBe('min');
  expect(timeUnitFor(180_000).name).toBe('min');
  expect(timeUnitFor(179_999).name).toBe('s');
});

test('the time before a VIP first has a master is its election, apart from a lost master', () => {
  const vs = (atUs: number, node: string, from: 'BACKUP' | 'MASTER', to: 'BACKUP' | 'MASTER' | 'FAULT'): OutputRecord => ({ atUs, type: 'vrrp.state', node, vrid: 1, vip: 'v', from, to, priority: 100 });
  // Elected at 3 s, lost at 6 s, b master from 9 s.
  const t = projectTimeline([vs(3_000_000, 'a', 'BACKUP', 'MASTER'), vs(6_000_000, 'a', 'MASTER', 'FAULT'), vs(9_000_000, 'b', 'BACKUP', 'MASTER'), { atUs: 10_000_000, type: 'run.end', events: 0, simulatedMs: 10_000 }] as OutputRecord[]);
  const sets = reportCharts([], t).timeline!.vipSets.map((s) => [s.label, s.bars.map((b) => [b.from, b.to])]);
  expect(sets).toEqual([
    ['first election (no master yet)', [[0, 3]]],
    ['no master', [[6, 9]]],
    ['master a', [[3, 6]]],
    ['master b', [[9, 10]]],
  ]);
});
