import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { mastersAt, pairCluster, runCluster } from './cluster-harness.ts';

const VIP = '198.18.0.100';
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);

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
});
