import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { pairCluster, runCluster } from '../cluster/cluster-harness.ts';

/**
 * keepalived.crash / keepalived.restart: the keepalived process dies while its host runs on. The same run on
 * keepalived 2.2.7 in network namespaces (SIGKILL of the VRRP child, `ip monitor address` on both nodes;
 * infra-1 150, infra-2 100, A = 1 s): infra-1 took the VIP at 3.428 s; killed at 6.047 s, it kept the address
 * on its interface (no removal seen); infra-2 added its own at 9.038 s (its last advert heard ~5.43 s, plus
 * 3A + Skew(100) = 3.609 s) with its GARP bursts; restarted at 14.069 s, infra-1's keepalived logged
 * "removing VIPs" and the address went at 14.085 s, before it entered BACKUP; it took the VIP back 3A +
 * Skew(150) later, at 17.499 s, and infra-2 removed its copy on hearing it.
 */
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);
const VIP = '198.18.0.100';

describe('a keepalived process crash leaves its VIP behind', () => {
  const r = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [
    { at: 6_000, type: 'keepalived.crash', node: 'infra-1' },
    { at: 14_000, type: 'keepalived.restart', node: 'infra-1' },
  ], { durationMs: 24_000 });
  const lastAdvertUs = 3 * A + S(150) + 2 * A; // infra-1's adverts: at 3 A + S(150), then every A; the last before 6 s
  const takeoverUs = lastAdvertUs + 3 * A + S(100);
  const backUs = 14_000_000 + 3 * A + S(150);

  test('the stale address stays until keepalived starts again, which removes it before anything else', () => {
    const addresses = r.records.filter((x) => x.type === 'vrrp.address');
    expect(addresses).toEqual([
      { atUs: 6_000_000, type: 'vrrp.address', node: 'infra-1', vrid: 51, vip: VIP, change: 'stale', cause: 'keepalived.crash' },
      { atUs: 14_000_000, type: 'vrrp.address', node: 'infra-1', vrid: 51, vip: VIP, change: 'removed', cause: 'keepalived.restart' },
    ]);
    const masters = r.records.flatMap((x) => (x.type === 'vrrp.state' && x.to === 'MASTER' ? [[x.node, x.atUs]] : []));
    expect(masters).toEqual([
      ['infra-1', 3 * A + S(150)],
      ['infra-2', takeoverUs],
      ['infra-1', backUs],
    ]);
  });

  test('the report: no outage while the stale copy serves, the duplicate as staleVipMs, a takeover and a preemption', () => {
    // The stale copy takes the traffic from the crash to the takeover; the duplicate lasts from the takeover
    // to the restart's removal.
    expect(r.failover.vipUnavailableMs).toBe(0);
    expect(r.failover.blackholeMs).toBe(0);
    expect(r.failover.staleVipMs).toBe((14_000_000 - takeoverUs) / 1000);
    expect(r.failover.splitBrainMs).toBe(0);
    expect(r.failover.list.map((i) => [i.fault, i.oldMaster, i.newMaster, i.latencyMs])).toEqual([
      ['keepalived.crash', 'infra-1', 'infra-2', (takeoverUs - 6_000_000) / 1000],
      ['keepalived.restart', 'infra-2', 'infra-1', (backUs - 14_000_000) / 1000],
    ]);
  });

  test('a host loss after the crash takes the stale address with it; a crash of a backup leaves nothing', () => {
    const lost = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [
      { at: 6_000, type: 'keepalived.crash', node: 'infra-1' },
      { at: 6_000, type: 'keepalived.crash', node: 'infra-2' },
      { at: 12_000, type: 'node.fail', node: 'infra-1' },
    ], { durationMs: 14_000 });
    expect(lost.records.filter((x) => x.type === 'vrrp.address').map((x) => [x.atUs, x.node, x.change])).toEqual([
      [6_000_000, 'infra-1', 'stale'],
      [12_000_000, 'infra-1', 'removed'],
    ]);
    // No live master from 6 s on, but the stale copy serves until the host goes at 12 s.
    expect(lost.failover.vipUnavailableMs).toBe(2_000);
  });

  test('a crash of a keepalived that is not running, or a restart of one that is, is a warning', () => {
    const w = runCluster(pairCluster(), [
      { at: 1_000, type: 'keepalived.restart', node: 'infra-1' },
      { at: 2_000, type: 'node.fail', node: 'infra-2' },
      { at: 3_000, type: 'keepalived.crash', node: 'infra-2' },
    ], { durationMs: 4_000 });
    expect(w.records.filter((x) => x.type === 'warning').map((x) => (x as { message: string }).message)).toEqual([
      "keepalived.restart: keepalived already runs on 'infra-1'; ignored",
      "keepalived.crash: keepalived is not running on 'infra-2'; ignored",
    ]);
  });
});
