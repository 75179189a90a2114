import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import type { OutputRecord } from '../output/records.ts';
import { mastersAt, pairCluster, runCluster } from './cluster-harness.ts';

const VIP = '198.18.0.100';
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);
type Garp = Extract<OutputRecord, { type: 'vrrp.garp' }>;
const garpsOf = (rs: readonly OutputRecord[]): Garp[] => rs.filter((r): r is Garp => r.type === 'vrrp.garp');

describe('ClusterSim behaviours', () => {
  test('multicast join: the joiner hears the master at once (no claim, no exposure)', () => {
    const r = runCluster(pairCluster(), [{ at: 30_000, type: 'node.join', node: 'infra-3', ip: '198.18.0.13' }], { durationMs: 60_000 });
    // infra-3 is not in the priorities: default 100, lower than the master: it stays backup, no split brain
    expect(mastersAt(r.records, VIP)).toEqual(['infra-1']);
    expect(r.failover.splitBrainMs).toBe(0);
    expect(r.failover.exposure!.windows).toEqual([]);
    expect(r.failover.traffic!.nodes).toBe(3);
  });

  test.prop([fc.integer({ min: 0, max: 999 }), fc.integer({ min: 100, max: 2600 })], { numRuns: 30 })(
    'a stall shorter than 2A + S never causes a takeover, whatever its phase',
    (phaseMs, stallMs) => {
      // the backup's deadline is ≥ 2A + S(100) = 2.609 s after any instant (last advert ≤ A ago, +3A + S);
      // a stall of at most 2.6 s ends with the woken master's overdue advert before that
      const r = runCluster(pairCluster(), [{ at: 30_000 + phaseMs, type: 'node.stall', node: 'infra-1', durationMs: stallMs }], { durationMs: 50_000 });
      expect(r.records.filter((x) => x.type === 'vrrp.state' && x.node === 'infra-2' && x.to === 'MASTER')).toEqual([]);
    },
  );

  test('a negative track weight drops the master below the backup: takeover within the check interval + 3A + S', () => {
    const r = runCluster(
      pairCluster({ instance: { track: [{ script: 'router-check', weight: -60, intervalMs: 1000 }] } }),
      [{ at: 30_000, type: 'router.fail', node: 'infra-1' }],
      { durationMs: 60_000 },
    );
    // infra-1 advertises 150 − 60 = 90 < 100 after its next check (≤ 1 s); infra-2 then discards its adverts and
    // its down timer, restarted by the last 150 advert (≤ 1 s before the drop), runs out 3A + S(100) later.
    const inc = r.failover.list[0]!;
    expect(inc).toMatchObject({ fault: 'router.fail', oldMaster: 'infra-1', newMaster: 'infra-2' });
    expect(inc.latencyMs! * 1000).toBeGreaterThan(2 * A + S(100));
    expect(inc.latencyMs! * 1000).toBeLessThan(A + 3 * A + S(100) + 1000);
    expect(mastersAt(r.records, VIP)).toEqual(['infra-2']);
    // infra-1 kept serving until it heard the higher priority: no outage
    expect(r.failover.vipUnavailableMs).toBe(0);
  });

  test('a master entering FAULT sends priority 0 twice; the backup takes over S after them', () => {
    const r = runCluster(
      pairCluster({ network: { delayMs: 0, jitterMs: 0 }, instance: { track: [{ script: 'router-check', weight: 0, intervalMs: 1000 }] } }),
      [{ at: 10_000, type: 'router.fail', node: 'infra-1' }],
      { durationMs: 20_000 },
    );
    const states = r.records.filter((x) => x.type === 'vrrp.state');
    const tF = states.find((x) => x.node === 'infra-1' && x.to === 'FAULT')!.atUs;
    const t2 = states.find((x) => x.node === 'infra-2' && x.to === 'MASTER')!.atUs;
    // The first failed check comes within one check interval; priority 0 makes infra-2's timer S(100).
    expect(tF).toBeGreaterThan(10 * A);
    expect(tF).toBeLessThanOrEqual(11 * A);
    expect(t2).toBe(tF + S(100));
    // Adverts: infra-1 from its election at 3A + S(150) every A while master (strictly before tF), then two of
    // priority 0; infra-2 from t2 every A to the end of the run (20 s; none falls on it exactly here).
    const m1 = 3 * A + S(150);
    const before = Math.ceil((tF - m1) / A);
    const after = Math.floor((20 * A - t2) / A) + 1;
    expect((20 * A - t2) % A).not.toBe(0);
    expect(r.failover.traffic!.advertsSent).toBe(before + 2 + after);
  });

  test('delayed GARP bursts: 5 s after answering a lower priority; one due after leaving MASTER stays silent', () => {
    // infra-2 takes over in a partition (its delayed burst due garp_master_delay = 5 s later), and the heal
    // comes before that: infra-1 answers infra-2's lower-priority advert with a burst, infra-2 yields.
    const r = runCluster(
      pairCluster({ network: { delayMs: 0, jitterMs: 0 } }),
      [
        { at: 30_000, type: 'network.partition', groups: [['infra-1'], ['infra-2']] },
        { at: 35_000, type: 'network.heal' },
      ],
      { durationMs: 60_000 },
    );
    const garps = garpsOf(r.records);
    const t2 = garps.find((g) => g.node === 'infra-2' && g.reason === 'master')!.atUs;
    const yielded = r.records.find((x) => x.type === 'vrrp.state' && x.node === 'infra-2' && x.from === 'MASTER')!.atUs;
    expect(yielded).toBeLessThan(t2 + 5 * A);
    const lower = garps.filter((g) => g.node === 'infra-1' && g.reason === 'lower-prio');
    expect(lower.length).toBeGreaterThan(0);
    // Each lower-priority burst has its repeat 5 s later (keepalived's default garp_lower_prio_delay) ...
    const repeats = garps.filter((g) => g.node === 'infra-1' && g.reason === 'repeat' && g.atUs > 30 * A).map((g) => g.atUs);
    expect(repeats).toEqual(lower.map((g) => g.atUs + 5 * A));
    // ... and infra-2's own repeat, due at t2 + 5 s when it was no longer master, was not sent.
    expect(garps.filter((g) => g.node === 'infra-2' && g.reason === 'repeat')).toEqual([]);
  });

  test('a delayed burst armed in an earlier mastership still goes out if the node is master again', () => {
    // garp_master_delay 10 s: infra-1 is elected at 3A + S(150) and its repeat is due 10 s later. A FAULT and
    // its clearing within that time make it master again (preempting infra-2) before the old timer fires.
    const r = runCluster(
      pairCluster({
        network: { delayMs: 0, jitterMs: 0 },
        keepalived: { garpMasterDelayMs: 10_000 },
        instance: { track: [{ script: 'router-check', weight: 0, intervalMs: 1000 }] },
      }),
      [
        { at: 5_000, type: 'router.fail', node: 'infra-1' },
        { at: 6_000, type: 'router.recover', node: 'infra-1' },
      ],
      { durationMs: 30_000 },
    );
    const garps = garpsOf(r.records).filter((g) => g.node === 'infra-1');
    const masters = garps.filter((g) => g.reason === 'master').map((g) => g.atUs);
    expect(masters.length).toBe(2);
    expect(masters[0]).toBe(3 * A + S(150));
    expect(masters[1]).toBeLessThan(masters[0]! + 10 * A);
    expect(garps.filter((g) => g.reason === 'repeat').map((g) => g.atUs)).toEqual([masters[0]! + 10 * A, masters[1]! + 10 * A]);
  });

  test('events naming unknown nodes are ignored with a warning; churn events are ignored', () => {
    const r = runCluster(pairCluster(), [
      { at: 1000, type: 'node.fail', node: 'nope' },
      { at: 2000, type: 'route.delete', namespace: 'a', name: 'b' },
      // Named twice, warned once.
      { at: 3000, type: 'network.partition', groups: [['infra-1'], ['infra-x', 'infra-x']] },
      { at: 3001, type: 'network.heal' },
    ], { durationMs: 10_000 });
    expect(r.records.filter((x) => x.type === 'warning')).toEqual([
      { atUs: 1_000_000, type: 'warning', message: "node.fail: no cluster node 'nope'; ignored" },
      { atUs: 3_000_000, type: 'warning', message: "network.partition: no cluster node 'infra-x'; left out of the groups" },
    ]);
    expect(mastersAt(r.records, VIP)).toEqual(['infra-1']);
  });

  test('the same seed gives the same output log; another seed moves the jitter', () => {
    const ev = [{ at: 20_000, type: 'node.fail' as const, node: 'infra-1' }];
    const a = runCluster(pairCluster(), ev, { durationMs: 40_000, seed: 5 });
    const b = runCluster(pairCluster(), ev, { durationMs: 40_000, seed: 5 });
    expect(b.records).toEqual(a.records);
    // the latency's last digits are the jitter of one packet (100 possible µs values): seeds 1..5 differ
    const latencies = new Set([1, 2, 3, 4, 5].map((seed) => runCluster(pairCluster(), ev, { durationMs: 40_000, seed }).failover.list[0]!.latencyMs));
    expect(latencies.size).toBeGreaterThan(1);
  });

  test('a node.join that reuses a name, a node\'s address or a VIP is a warning, never a silent change', () => {
    const warnings = (events: Parameters<typeof runCluster>[1]) =>
      runCluster(pairCluster(), events, { durationMs: 40_000 }).records.flatMap((x) => (x.type === 'warning' ? [x.message] : []));
    expect(warnings([{ at: 30_000, type: 'node.join', node: 'infra-2', ip: '198.18.0.12' }])).toEqual(["node.join infra-2 198.18.0.12: 'infra-2' is already a member of the cluster; ignored"]);
    expect(warnings([{ at: 30_000, type: 'node.join', node: 'infra-3', ip: '198.18.0.11' }])).toEqual(["node.join infra-3 198.18.0.11: the address is node 'infra-1''s; not joined"]);
    expect(warnings([{ at: 30_000, type: 'node.join', node: 'infra-3', ip: VIP }])).toEqual([`node.join infra-3 ${VIP}: the address is one of the cluster's virtual IPs; not joined`]);
    expect(
      warnings([
        { at: 10_000, type: 'node.leave', node: 'infra-2' },
        { at: 30_000, type: 'node.join', node: 'infra-2', ip: '198.18.0.99' },
      ]),
    ).toEqual(["node.join infra-2 198.18.0.99: 'infra-2' rejoins at its first address 198.18.0.12; a node keeps its address"]);
  });
});
