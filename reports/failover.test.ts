import { describe, expect, test } from 'vitest';
import type { OutputRecord, VrrpStateName } from '../sim/output/records.ts';
import { createFailoverProjection } from './failover.ts';

const VIP = '10.0.0.1';
const st = (atMs: number, node: string, from: VrrpStateName, to: VrrpStateName): OutputRecord => ({ atUs: atMs * 1000, type: 'vrrp.state', node, vrid: 1, vip: VIP, from, to, priority: 100 });
const garp = (atMs: number, node: string, reason: 'master' | 'repeat' = 'master'): OutputRecord => ({ atUs: atMs * 1000, type: 'vrrp.garp', node, vrid: 1, vip: VIP, reason });
const input = (atMs: number, event: 'node.fail' | 'node.recover' | 'network.partition' | 'node.stall' | 'router.fail' | 'router.recover', subject: string): OutputRecord => ({ atUs: atMs * 1000, type: 'input', event, subject });
const live = (atMs: number, node: string, isLive: boolean): OutputRecord => ({ atUs: atMs * 1000, type: 'vrrp.node', node, live: isLive, cause: 'test' });

function project(records: OutputRecord[], endMs: number) {
  const p = createFailoverProjection();
  for (const r of records) p.add(r);
  return p.result(endMs * 1000);
}

const elected = [st(0, 'a', 'INIT', 'BACKUP'), st(0, 'b', 'INIT', 'BACKUP'), st(3000, 'a', 'BACKUP', 'MASTER'), garp(3000, 'a')];

describe('failover projection', () => {
  test('a crash: incident from the fault to the new master’s first GARP; the VIP down in between', () => {
    const r = project([...elected, input(10_000, 'node.fail', 'a'), st(10_000, 'a', 'MASTER', 'INIT'), live(10_000, 'a', false), st(13_500, 'b', 'BACKUP', 'MASTER'), garp(13_500, 'b'), garp(18_500, 'b', 'repeat')], 20_000);
    expect(r.list).toEqual([{ atMs: 10_000, fault: 'node.fail', vip: VIP, vrid: 1, oldMaster: 'a', newMaster: 'b', latencyMs: 3500 }]);
    expect(r.latencyMs).toEqual({ p50: 3500, p95: 3500, p99: 3500, max: 3500 });
    // the initial election (0–3 s) is not an outage
    expect(r.vipUnavailableMs).toBe(3500);
    expect(r.splitBrainMs).toBe(0);
    expect(r.spread).toEqual({ mastersByNode: { a: 0, b: 1 }, min: 0, max: 1, cv: 1 });
  });

  test('two live masters count as split brain; a stalled master is not live; MASTER → BACKUP is a flap', () => {
    const r = project(
      [...elected, st(5000, 'b', 'BACKUP', 'MASTER'), garp(5000, 'b'), st(6000, 'b', 'MASTER', 'BACKUP'), input(7000, 'node.stall', 'a'), live(7000, 'a', false), live(9000, 'a', true)],
      10_000,
    );
    expect(r.splitBrainMs).toBe(1000);
    expect(r.vipUnavailableMs).toBe(2000);
    expect(r.flaps).toBe(1);
    // the stall opened an incident nobody resolved: listed with no new master
    expect(r.list).toEqual([{ atMs: 7000, fault: 'node.stall', vip: VIP, vrid: 1, oldMaster: 'a', newMaster: null, latencyMs: null }]);
    expect(r.latencyMs.max).toBeNull();
  });

  test('a partition counts only if someone new becomes master; a recovery only if the recovered node takes over', () => {
    const r = project([...elected, input(10_000, 'network.partition', 'a|b'), st(13_000, 'b', 'BACKUP', 'MASTER'), garp(13_000, 'b'), input(20_000, 'node.recover', 'a')], 30_000);
    expect(r.list.map((i) => [i.fault, i.newMaster, i.latencyMs])).toEqual([['network.partition', 'b', 3000]]);
    expect(r.incidents).toBe(1);
  });

  test('traffic and exposure come from vrrp.stats and vrrp.exposure; result() can be called twice', () => {
    const p = createFailoverProjection();
    for (const r of [
      ...elected,
      { atUs: 1000, type: 'vrrp.exposure', node: 'c', open: true, vips: 4 },
      { atUs: 31_000_000, type: 'vrrp.exposure', node: 'c', open: false, vips: 4 },
      { atUs: 60_000_000, type: 'vrrp.stats', advertsSent: 57, packetsSent: 114, deliveries: 114, dropped: 0, mode: 'unicast', nodes: 3 },
    ] as OutputRecord[])
      p.add(r);
    const a = p.result(60_000_000);
    expect(a.traffic).toMatchObject({ mode: 'unicast', nodes: 3, advertsSent: 57, packetsSent: 114, advertsPerSec: 0.95, packetsPerSec: 1.9 });
    expect(a.exposure).toEqual({ windows: [{ node: 'c', fromMs: 1, toMs: 31_000, vips: 4 }], totalMs: 30_999 });
    expect(p.result(60_000_000)).toEqual(a);
  });

  test('two nodes take over at once: the new master is the one that kept the VIP, the latency the first takeover', () => {
    const r = project(
      [...elected, st(0, 'c', 'INIT', 'BACKUP'), input(10_000, 'node.fail', 'a'), st(10_000, 'a', 'MASTER', 'INIT'), live(10_000, 'a', false), st(13_500, 'c', 'BACKUP', 'MASTER'), garp(13_500, 'c'), st(13_501, 'b', 'BACKUP', 'MASTER'), garp(13_501, 'b'), st(13_502, 'c', 'MASTER', 'BACKUP')],
      20_000,
    );
    // c answered ARP first (13.5 s), then yielded to b's advert: b holds the VIP.
    expect(r.list).toEqual([{ atMs: 10_000, fault: 'node.fail', vip: VIP, vrid: 1, oldMaster: 'a', newMaster: 'b', latencyMs: 3500 }]);
    expect(r.owners).toEqual([{ vip: VIP, vrid: 1, masters: ['b'] }]);
  });

  test('a dead router behind a live master black-holes the VIP until the master gives it up', () => {
    const r = project(
      [...elected, input(10_000, 'router.fail', 'a'), st(11_500, 'a', 'MASTER', 'FAULT'), st(12_000, 'b', 'BACKUP', 'MASTER'), garp(12_000, 'b'), input(20_000, 'router.recover', 'a'), st(21_000, 'a', 'FAULT', 'BACKUP')],
      30_000,
    );
    // 10 → 11.5 s: a is master with no router (black hole); 11.5 → 12 s: no master (unavailable).
    expect(r.blackholeMs).toBe(1500);
    expect(r.vipUnavailableMs).toBe(500);
    expect(r.list).toEqual([{ atMs: 10_000, fault: 'router.fail', vip: VIP, vrid: 1, oldMaster: 'a', newMaster: 'b', latencyMs: 2000 }]);
    expect(r.owners).toEqual([{ vip: VIP, vrid: 1, masters: ['b'] }]);
  });

  test('a dead router on one of two masters is no black hole; on a backup, none either', () => {
    const r = project([...elected, st(5000, 'b', 'BACKUP', 'MASTER'), garp(5000, 'b'), input(6000, 'router.fail', 'b'), input(7000, 'router.fail', 'a'), st(8000, 'b', 'MASTER', 'BACKUP')], 10_000);
    // 6–7 s: a serves beside b; 7–8 s: neither serves (1 s); 8–10 s: a alone, router dead (2 s).
    expect(r.blackholeMs).toBe(3000);
    expect(r.splitBrainMs).toBe(3000);
    expect(r.owners).toEqual([{ vip: VIP, vrid: 1, masters: ['a'] }]);
  });
});
