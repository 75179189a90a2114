import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { pairCluster, runCluster } from '../cluster/cluster-harness.ts';

/**
 * The address owner (priority 255) as keepalived 2.2.7 runs it (vrrp.c vrrp_complete_instance,
 * vrrp_scheduler.c vrrp_init_state):
 * - it starts as master at once only when it wants MASTER (`state MASTER`, or no state line): the quick start
 *   is `wantstate == MASTER`; with `state BACKUP` it starts in BACKUP with a full down timer, discards the
 *   lower adverts and takes over when the timer runs out;
 * - `nopreempt` is cleared for it ("nopreempt is incompatible with priority 255"), also when a reload gives a
 *   node priority 255.
 * A v2 pair at A = 1 s, no link delay; Master_Down_Interval at 255 is 3A + Skew(255) = 3 s + 3,906 µs.
 */
const A = 1_000_000;
const MD255 = 3 * A + skewUs(2, 255, A);
const net = { delayMs: 0, jitterMs: 0 };
const takeovers = (records: ReturnType<typeof runCluster>['records']) =>
  records.flatMap((x) => (x.type === 'vrrp.state' && x.to === 'MASTER' ? [[x.node, x.atUs]] : []));

describe('the address owner', () => {
  test('with `state MASTER` it is master at once, and takes its VIP back at once when it recovers', () => {
    const r = runCluster(pairCluster({ infra1: 255, network: net, instance: { masterNodes: ['infra-1'] } }), [
      { at: 10_000, type: 'node.fail', node: 'infra-1' },
      { at: 20_000, type: 'node.recover', node: 'infra-1' },
    ], { durationMs: 30_000 });
    const t = takeovers(r.records);
    expect(t[0]).toEqual(['infra-1', 0]);
    expect(t[1]![0]).toBe('infra-2');
    expect(t[2]).toEqual(['infra-1', 20_000_000]);
    expect(t).toHaveLength(3);
  });

  test('with `state BACKUP` it waits a whole Master_Down_Interval, at start and after it recovers', () => {
    const r = runCluster(pairCluster({ infra1: 255, network: net }), [
      { at: 10_000, type: 'node.fail', node: 'infra-1' },
      { at: 20_000, type: 'node.recover', node: 'infra-1' },
    ], { durationMs: 30_000 });
    const t = takeovers(r.records);
    // At start both are backups; the owner's timer (3A + Skew(255)) runs out first.
    expect(t[0]).toEqual(['infra-1', MD255]);
    expect(t[1]![0]).toBe('infra-2');
    // Recovered: it discards infra-2's lower adverts and preempts when its own down timer runs out.
    expect(t[2]).toEqual(['infra-1', 20_000_000 + MD255]);
    expect(t).toHaveLength(3);
  });

  test('configured `nopreempt`, it still preempts: keepalived clears nopreempt for priority 255', () => {
    const r = runCluster(pairCluster({ infra1: 255, network: net, instance: { preempt: false } }), [
      { at: 10_000, type: 'link.down', node: 'infra-1' },
      { at: 20_000, type: 'link.up', node: 'infra-1' },
    ], { durationMs: 30_000 });
    const t = takeovers(r.records);
    expect(t[0]).toEqual(['infra-1', MD255]);
    expect(t[1]![0]).toBe('infra-2');
    // Out of FAULT as a backup with a full down timer; lower adverts discarded; master again MD255 later.
    expect(t[2]).toEqual(['infra-1', 20_000_000 + MD255]);
  });

  test('a node reloaded to priority 255 under nopreempt preempts; reloaded back below, nopreempt holds again', () => {
    const r = runCluster(pairCluster({ infra1: 100, infra2: 150, network: net, instance: { preempt: false } }), [
      { at: 10_000, type: 'keepalived.reload', node: 'infra-1', priority: 255 },
      { at: 20_000, type: 'keepalived.reload', node: 'infra-1', priority: 100 },
      { at: 20_500, type: 'keepalived.reload', node: 'infra-2', priority: 200 },
    ], { durationMs: 30_000 });
    const t = takeovers(r.records);
    // infra-2 (150) won the start at 3A + Skew(150); infra-1's reload at 10 s restarts its down timer at 255,
    // and with nopreempt cleared it discards infra-2's lower adverts: master 3A + Skew(255) after the reload.
    expect(t[0]).toEqual(['infra-2', 3 * A + skewUs(2, 150, A)]);
    expect(t[1]).toEqual(['infra-1', 10_000_000 + MD255]);
    // Back at 100 (nopreempt again) infra-1 is the master; infra-2 at 200 under nopreempt accepts its adverts
    // and stays backup: no more takeovers.
    expect(t).toHaveLength(2);
  });
});
