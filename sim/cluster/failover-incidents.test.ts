import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import type { OutputRecord } from '../output/records.ts';
import { mastersAt, pairCluster, runCluster } from './cluster-harness.ts';

/**
 * What the failover report counts as one incident, on clusters run for real. A zero-delay network makes every
 * figure exact. v2, A = 1 s: Skew S(p) = ⌊(256 − p) · 10⁶ / 256⌋ µs, Master_Down_Interval 3A + S(p); the first
 * election ends at tm = 3A + S(150) and the master advertises at tm + kA.
 */
const VIP = '198.18.0.100';
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);
const exact = { delayMs: 0, jitterMs: 0 };
const tm = 3 * A + S(150);
const stateAt = (rs: readonly OutputRecord[], node: string, to: string) =>
  rs.filter((r) => r.type === 'vrrp.state' && r.node === node && r.to === to).map((r) => r.atUs);

describe('one takeover, one incident', () => {
  test('preempt: false, the old master returns and stays backup; the next takeover is the shutdown’s alone', () => {
    const r = runCluster(
      pairCluster({ network: exact, instance: { preempt: false } }),
      [
        { at: 10_000, type: 'node.fail', node: 'infra-1' },
        { at: 20_000, type: 'node.recover', node: 'infra-1' },
        { at: 40_000, type: 'node.shutdown', node: 'infra-2' },
      ],
      { durationMs: 60_000 },
    );
    // Crash at 10 s: infra-1's last advert left at tm + 6A = 9.414 s; infra-2's timer runs out 3A + S(100) later.
    const crash = tm + 6 * A + 3 * A + S(100) - 10 * A;
    // infra-1 comes back at 20 s, accepts infra-2's lower adverts (no preemption) and never takes over by itself.
    // infra-2 resigns at 40 s with priority 0: infra-1 takes over S(150) later. Before, the recovery's pending
    // incident was closed by that takeover too, 20.414 s after the recovery.
    expect(r.failover.list).toEqual([
      { atMs: 10_000, fault: 'node.fail', vip: VIP, vrid: 51, oldMaster: 'infra-1', newMaster: 'infra-2', latencyMs: crash / 1000 },
      { atMs: 40_000, fault: 'node.shutdown', vip: VIP, vrid: 51, oldMaster: 'infra-2', newMaster: 'infra-1', latencyMs: S(150) / 1000 },
    ]);
  });

  test('a one-way partition that blocks only backup → master changes nothing; a later partition is its own incident', () => {
    const r = runCluster(
      pairCluster({ network: exact }),
      [
        // oneWay blocks earlier → later groups: infra-2 (backup) → infra-1 (master). Backups send nothing.
        { at: 10_000, type: 'network.partition', groups: [['infra-2'], ['infra-1']], oneWay: true },
        { at: 40_000, type: 'network.partition', groups: [['infra-1'], ['infra-2']] },
      ],
      { durationMs: 60_000 },
    );
    // The second cuts infra-2 off: last advert heard at tm + 36A = 39.414 s, its timer runs out 3A + S(100) later.
    const cut = tm + 36 * A + 3 * A + S(100) - 40 * A;
    expect(r.failover.list).toEqual([{ atMs: 40_000, fault: 'network.partition', vip: VIP, vrid: 51, oldMaster: 'infra-1', newMaster: 'infra-2', latencyMs: cut / 1000 }]);
  });

  test('a lower-priority node recovering 40 s before the master crashes: the crash’s incident only', () => {
    const r = runCluster(
      pairCluster({ network: exact }),
      [
        { at: 5_000, type: 'node.fail', node: 'infra-2' },
        { at: 20_000, type: 'node.recover', node: 'infra-2' },
        { at: 60_000, type: 'node.fail', node: 'infra-1' },
      ],
      { durationMs: 80_000 },
    );
    // infra-1's last advert before 60 s left at tm + 56A = 59.414 s.
    const crash = tm + 56 * A + 3 * A + S(100) - 60 * A;
    expect(r.failover.list).toEqual([{ atMs: 60_000, fault: 'node.fail', vip: VIP, vrid: 51, oldMaster: 'infra-1', newMaster: 'infra-2', latencyMs: crash / 1000 }]);
  });

  test('a unicast joiner that claims a VIP its master keeps makes split brain, not a failover', () => {
    const cluster = { ...pairCluster({ network: exact }), keepalived: { unicast: true, instances: [{ vip: VIP, vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 } }] } };
    const r = runCluster(cluster, [{ at: 60_000, type: 'node.join', node: 'infra-3', ip: '198.18.0.13' }], { durationMs: 120_000 });
    // infra-3 (default 100) hears nobody and claims the VIP at 60 s + 3A + S(100); infra-1 hears its lower
    // adverts and stays master, so the master never changed.
    expect(stateAt(r.records, 'infra-3', 'MASTER')).toEqual([60 * A + 3 * A + S(100)]);
    expect(stateAt(r.records, 'infra-1', 'BACKUP').filter((t) => t > 60 * A)).toEqual([]);
    expect(r.failover.list).toEqual([]);
    expect(r.failover.splitBrainMs).toBeGreaterThan(0);
    expect(mastersAt(r.records, VIP)).toEqual(['infra-1']);
  });

  test('a unicast joiner with the higher priority that the master yields to is a preemption', () => {
    const cluster = { ...pairCluster({ network: exact }), keepalived: { unicast: true, defaultPriority: 200, instances: [{ vip: VIP, vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 } }] } };
    const r = runCluster(cluster, [{ at: 60_000, type: 'node.join', node: 'infra-3', ip: '198.18.0.13' }], { durationMs: 120_000 });
    // infra-3 gets the default priority, 200. It claims at 60 s + 3A + S(200); its first advert (priority 200) reaches infra-1, which yields at once.
    expect(r.failover.list).toEqual([{ atMs: 60_000, fault: 'node.join', vip: VIP, vrid: 51, oldMaster: 'infra-1', newMaster: 'infra-3', latencyMs: (3 * A + S(200)) / 1000 }]);
  });
});
