import { expect, test } from 'vitest';
import type { OutputRecord } from '../sim/output/records.ts';
import { sampleRecords } from './render/html-fixture.ts';
import { MAX_BUCKETS, MAX_MARKERS, projectTimeline } from './timeline.ts';

test('projects faults, reloads, counts per bucket and VIP master segments', () => {
  const t = projectTimeline(sampleRecords());
  expect(t.simulatedMs).toBe(60_000);
  // 60 s with 1 s buckets: 61 buckets (the end instant included).
  expect(t.bucketMs).toBe(1000);
  expect(t.inputsPerBucket).toHaveLength(61);
  expect(t.inputsPerBucket.reduce((a, b) => a + b, 0)).toBe(4);
  expect(t.reloadsPerBucket[0]).toBe(1);
  expect(t.reloadsPerBucket[7]).toBe(1);
  expect(t.markers).toEqual([
    { atMs: 0, kind: 'reload', label: 'reload #1', endMs: 1000 },
    { atMs: 7000, kind: 'reload', label: 'reload #2', endMs: 8000 },
    { atMs: 10_000, kind: 'fault', label: 'node.fail infra-1' },
    { atMs: 30_000, kind: 'fault', label: 'node.recover infra-1' },
  ]);
  // infra-1 master from 0 until its failure at 10 s, nobody until infra-2 takes over at 13.1 s.
  expect(t.vips).toEqual([
    {
      vip: '198.18.0.100',
      segments: [
        { fromMs: 0, toMs: 10_000, masters: ['infra-1'] },
        { fromMs: 10_000, toMs: 13_100, masters: [] },
        { fromMs: 13_100, toMs: 60_000, masters: ['infra-2'] },
      ],
    },
  ]);
});

test('two masters at once show as a split-brain segment', () => {
  const vs = (atUs: number, node: string, from: 'BACKUP' | 'MASTER', to: 'BACKUP' | 'MASTER'): OutputRecord => ({ atUs, type: 'vrrp.state', node, vrid: 1, vip: 'v', from, to, priority: 100 });
  const t = projectTimeline([vs(0, 'a', 'BACKUP', 'MASTER'), vs(5_000_000, 'b', 'BACKUP', 'MASTER'), vs(8_000_000, 'a', 'MASTER', 'BACKUP'), { atUs: 10_000_000, type: 'run.end', events: 0, simulatedMs: 10_000 }]);
  expect(t.vips[0]!.segments).toEqual([
    { fromMs: 0, toMs: 5000, masters: ['a'] },
    { fromMs: 5000, toMs: 8000, masters: ['a', 'b'] },
    { fromMs: 8000, toMs: 10_000, masters: ['b'] },
  ]);
});

test('a long busy run stays bounded: buckets widen, markers are capped', () => {
  const records: OutputRecord[] = [];
  // 100,000 fault inputs over 10 simulated days.
  const days = 10 * 86_400_000;
  for (let i = 0; i < 100_000; i++) records.push({ atUs: Math.floor((i * days) / 100_000) * 1000, type: 'input', event: 'router.fail', subject: 'n' });
  records.push({ atUs: days * 1000, type: 'run.end', events: 100_000, simulatedMs: days });
  const t = projectTimeline(records);
  expect(t.inputsPerBucket.length).toBeLessThanOrEqual(MAX_BUCKETS + 1);
  expect(t.inputsPerBucket.reduce((a, b) => a + b, 0)).toBe(100_000);
  // router.fail is a fault: every one counted in the density buckets, though only MAX_MARKERS are kept.
  expect(t.faultsPerBucket.reduce((a, b) => a + b, 0)).toBe(100_000);
  expect(t.markers).toHaveLength(MAX_MARKERS);
  expect(t.markersDropped).toBe(100_000 - MAX_MARKERS);
});

test('VIPs beyond the cap are counted, not drawn', () => {
  const records: OutputRecord[] = [];
  // 30 VIPs, each changing state twice: 24 drawn, 6 counted once each.
  for (let v = 0; v < 30; v++) {
    for (const [from, to] of [['BACKUP', 'MASTER'], ['MASTER', 'BACKUP']] as const) {
      records.push({ atUs: v * 1000, type: 'vrrp.state', node: 'a', vrid: v + 1, vip: `10.0.0.${v}`, from, to, priority: 100 });
    }
  }
  const t = projectTimeline(records);
  expect(t.vips).toHaveLength(24);
  expect(t.vipsDropped).toBe(6);
});

test('a master that is not live holds nothing: a stall shows as no master, then the new master, not as split brain', () => {
  // vrrp-stall-flap's records: infra-1 master, stalled at 60 s (still MASTER in its own state), infra-2
  // takes over at 63.023735 s, infra-1 runs again at 65 s and its advert sends infra-2 back 217 µs later.
  const vs = (atUs: number, node: string, from: 'BACKUP' | 'MASTER', to: 'BACKUP' | 'MASTER'): OutputRecord => ({ atUs, type: 'vrrp.state', node, vrid: 51, vip: 'v', from, to, priority: 100 });
  const t = projectTimeline([
    vs(3_414_062, 'infra-1', 'BACKUP', 'MASTER'),
    { atUs: 60_000_000, type: 'vrrp.node', node: 'infra-1', live: false, cause: 'node.stall' },
    vs(63_023_735, 'infra-2', 'BACKUP', 'MASTER'),
    { atUs: 65_000_000, type: 'vrrp.node', node: 'infra-1', live: true, cause: 'stall-end' },
    vs(65_000_217, 'infra-2', 'MASTER', 'BACKUP'),
    { atUs: 120_000_000, type: 'run.end', events: 1, simulatedMs: 120_000 },
  ]);
  expect(t.vips[0]!.segments).toEqual([
    { fromMs: 0, toMs: 3414.062, masters: [] },
    { fromMs: 3414.062, toMs: 60_000, masters: ['infra-1'] },
    { fromMs: 60_000, toMs: 63_023.735, masters: [] },
    { fromMs: 63_023.735, toMs: 65_000, masters: ['infra-2'] },
    // 0.217 ms of two live masters: report.json's failover.splitBrainMs for this run.
    { fromMs: 65_000, toMs: 65_000.217, masters: ['infra-1', 'infra-2'] },
    { fromMs: 65_000.217, toMs: 120_000, masters: ['infra-1'] },
  ]);
});
