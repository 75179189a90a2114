import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import type { OutputRecord } from '../output/records.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';
import { ClusterSchema } from './cluster-schema.ts';
import { mastersAt, runCluster } from './cluster-harness.ts';

/**
 * Per-instance VRRP settings of `keepalived.instances`: `version`, `advertIntervalMs` and `masterNodes`
 * (`state MASTER`). The expected times come from RFC 5798/3768's Master_Down_Interval as keepalived computes it
 * (core/vrrp/timers.ts); the same cluster run on keepalived 2.2.7 (bench/keepalived-timeline.ts, network
 * namespaces) gave the VIPs at 0.713 s and 3.429 s after the first node's start, the ~30 ms the harness takes
 * to start both nodes included, and never made the `state MASTER` node master.
 */
const V2 = '198.18.0.100';
const V3 = '198.18.0.101';
const nodes = [
  { name: 'infra-1', ip: '198.18.0.11' },
  { name: 'infra-2', ip: '198.18.0.12' },
];
const cluster = (over: Record<string, unknown> = {}) => ({
  nodes,
  network: { delayMs: 0, jitterMs: 0, loss: 0 },
  keepalived: {
    instances: [
      { vip: V2, vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 }, masterNodes: ['infra-2'] },
      { vip: V3, vrid: 52, priorities: { 'infra-1': 100, 'infra-2': 150 }, version: 3, advertIntervalMs: 200, ...over },
    ],
  },
});
const firstMaster = (rs: readonly OutputRecord[], vip: string) => rs.find((r) => r.type === 'vrrp.state' && r.vip === vip && r.to === 'MASTER');

describe('per-instance VRRP settings', () => {
  test('each instance runs its own version and interval: a v3 200 ms instance beside a v2 1 s one', () => {
    const r = runCluster(cluster(), [], { durationMs: 10_000 });
    // v3: 3 · 200 ms + (256 − 150) · 200 ms / 256 = 682.8 ms; v2: 3 · 1 s + (256 − 150)/256 s = 3.414 s.
    expect(firstMaster(r.records, V3)).toMatchObject({ node: 'infra-2', atUs: 3 * 200_000 + skewUs(3, 150, 200_000) });
    expect(firstMaster(r.records, V2)).toMatchObject({ node: 'infra-1', atUs: 3 * 1_000_000 + skewUs(2, 150, 1_000_000) });
    expect(skewUs(3, 150, 200_000)).toBe(82_812);
  });

  test('`state MASTER` on a lower-priority node starts it as a backup: the higher-priority node still wins', () => {
    const r = runCluster(cluster(), [], { durationMs: 10_000 });
    expect(r.records.some((x) => x.type === 'vrrp.state' && x.vip === V2 && x.node === 'infra-2' && x.to === 'MASTER')).toBe(false);
    expect(mastersAt(r.records, V2)).toEqual(['infra-1']);
  });

  test('a master crash on the 200 ms instance is taken over within 2A + S to 3A + S of A = 200 ms', () => {
    const r = runCluster(cluster(), [{ at: 5_000, type: 'node.fail', node: 'infra-2' }], { durationMs: 10_000 });
    const inc = r.failover.list.find((i) => i.vip === V3)!;
    const S = skewUs(3, 100, 200_000);
    expect(inc).toMatchObject({ oldMaster: 'infra-2', newMaster: 'infra-1' });
    expect(inc.latencyMs! * 1000).toBeGreaterThanOrEqual(2 * 200_000 + S);
    expect(inc.latencyMs! * 1000).toBeLessThanOrEqual(3 * 200_000 + S);
  });

  test('keepalived clears nopreempt for a `state MASTER` node: it takes its VIP back on return, the others would not', () => {
    const r = runCluster(cluster({ preempt: false, masterNodes: ['infra-2'] }), [
      { at: 5_000, type: 'node.fail', node: 'infra-2' },
      { at: 8_000, type: 'node.recover', node: 'infra-2' },
    ], { durationMs: 15_000 });
    expect(mastersAt(r.records, V3)).toEqual(['infra-2']);
    const plain = runCluster(cluster({ preempt: false }), [
      { at: 5_000, type: 'node.fail', node: 'infra-2' },
      { at: 8_000, type: 'node.recover', node: 'infra-2' },
    ], { durationMs: 15_000 });
    expect(mastersAt(plain.records, V3)).toEqual(['infra-1']);
  });

  test('names an unknown node in masterNodes', () => {
    const bad = cluster({ masterNodes: ['infra-9'] });
    const res = ClusterSchema.safeParse(bad);
    expect(res.success).toBe(false);
    expect(res.error!.issues[0]).toMatchObject({ path: ['keepalived', 'instances', 1, 'masterNodes', 0], message: "unknown node 'infra-9'" });
  });
});

describe('a joining node with its own priority and preemption', () => {
  /**
   * The same run on keepalived 2.2.7 (bench/keepalived-timeline.ts): infra-4 (250, nopreempt) joined at 5 s and
   * stayed backup; infra-3 (200) joined at 9.012 s, ignored the master's lower adverts and took the VIP at
   * 12.245 s on its down timer, 3.233 s after its start (3A + S(200) = 3.219 s, plus keepalived's start-up).
   */
  const base = {
    nodes,
    network: { delayMs: 0, jitterMs: 0, loss: 0 },
    keepalived: { instances: [{ vip: V2, vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 } }] },
  };
  const joins = [
    { at: 5_000, type: 'node.join' as const, node: 'infra-4', ip: '198.18.0.14', priority: 250, preempt: false },
    { at: 9_000, type: 'node.join' as const, node: 'infra-3', ip: '198.18.0.13', priority: 200 },
  ];

  test('a higher priority preempts on its down timer; the same with nopreempt stays backup', () => {
    const r = runCluster(base, joins, { durationMs: 15_000 });
    const masters = r.records.flatMap((x) => (x.type === 'vrrp.state' && x.to === 'MASTER' ? [[x.node, x.atUs]] : []));
    expect(masters).toEqual([
      ['infra-1', 3 * 1_000_000 + skewUs(2, 150, 1_000_000)],
      ['infra-3', 9_000_000 + 3 * 1_000_000 + skewUs(2, 200, 1_000_000)],
    ]);
    expect(mastersAt(r.records, V2)).toEqual(['infra-3']);
  });

  test('the event log takes the settings, each checked', () => {
    expect(InputEventSchema.parse(joins[0])).toEqual(joins[0]);
    expect(InputEventSchema.safeParse({ ...joins[1], priority: 0 }).success).toBe(false);
    expect(InputEventSchema.safeParse({ ...joins[1], preemptDelayMs: -1 }).success).toBe(false);
    expect(InputEventSchema.safeParse({ ...joins[1], preempt: 'no' }).success).toBe(false);
  });

  test("the join record carries the joiner's own settings, and its preempt_delay widens the report's window", () => {
    const join = { at: 9_000, type: 'node.join' as const, node: 'infra-3', ip: '198.18.0.13', priority: 200, preemptDelayMs: 20_000 };
    const r = runCluster(base, [join], { durationMs: 40_000 });
    expect(r.records.find((x) => x.type === 'vrrp.membership')).toEqual({ atUs: 9_000_000, type: 'vrrp.membership', node: 'infra-3', change: 'join', ip: '198.18.0.13', priority: 200, preemptDelayMs: 20_000 });
    // infra-1 (150) is master from 3 s + Skew(150) = 3.414062 s (µs, rounded down), advertising every 1 s.
    // infra-3 hears its first lower advert at 9.414062 s and, with preempt_delay 20 s, accepts them until
    // 29.414062 s (exclusive; keepalived's vrrp_backup: a lower advert resets the down timer while the delay
    // runs): the last accepted is at 28.414062 s, and its down timer fires Master_Down_Interval(200) =
    // 3 s + (256 − 200)/256 s later.
    const takeoverUs = 3 * 1_000_000 + skewUs(2, 150, 1_000_000) + 25 * 1_000_000 + 3 * 1_000_000 + skewUs(2, 200, 1_000_000);
    expect(r.records.find((x) => x.type === 'vrrp.state' && x.node === 'infra-3' && x.to === 'MASTER')?.atUs).toBe(takeoverUs);
    // The cluster's own window for a preemption is 2 · MDI(1) + net = 7.99 s, which the takeover 22.6 s after
    // the join exceeds; with the joiner's 20 s it is 27.99 s: one preemption, counted from the join.
    expect(r.failover.list).toEqual([{ atMs: 9_000, fault: 'node.join', vip: V2, vrid: 51, oldMaster: 'infra-1', newMaster: 'infra-3', latencyMs: (takeoverUs - 9_000_000) / 1000 }]);
  });

  test('without its own settings a joiner gets the default priority (100) and stays backup to 150', () => {
    const r = runCluster(base, [{ at: 9_000, type: 'node.join', node: 'infra-3', ip: '198.18.0.13' }], { durationMs: 15_000 });
    expect(mastersAt(r.records, V2)).toEqual(['infra-1']);
  });
});
