import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { mastersAt, pairCluster, runCluster } from '../cluster/cluster-harness.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';

/**
 * keepalived.reload: a node's keepalived rereads its configuration with a new priority. The same run on
 * keepalived 2.2.7 (bench/keepalived-timeline.ts: conf rewritten, SIGHUP): at the master's reload to 50 it sent
 * an advert of 150 then one of 50 and re-phased its adverts from there (6.302, 6.303, 7.303 s...); the backup
 * (100) took over 3A + S(100) after that last 150 (9.912 s); infra-1 reloaded to 200 as a backup at 14.300 s
 * and took the VIP 3A + S(200) later (17.521 s); infra-2 reloaded to 120 as a backup at 20.302 s and nothing
 * moved.
 */
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);

describe('keepalived.reload with a new priority', () => {
  const r = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [
    { at: 6_300, type: 'keepalived.reload', node: 'infra-1', priority: 50 },
    { at: 14_300, type: 'keepalived.reload', node: 'infra-1', priority: 200 },
    { at: 20_300, type: 'keepalived.reload', node: 'infra-2', priority: 120 },
  ], { durationMs: 26_000 });
  const masters = r.records.flatMap((x) => (x.type === 'vrrp.state' && x.to === 'MASTER' ? [[x.node, x.atUs]] : []));

  test('a master reloaded below the backup sends its last advert at the old priority: the backup takes over 3A + S after it', () => {
    expect(masters[1]).toEqual(['infra-2', 6_300_000 + 3 * A + S(100)]);
  });

  test('a backup reloaded above the master restarts its down timer with the new priority; one reloaded below stays backup', () => {
    expect(masters[2]).toEqual(['infra-1', 14_300_000 + 3 * A + S(200)]);
    expect(masters).toHaveLength(3);
    expect(mastersAt(r.records, '198.18.0.100')).toEqual(['infra-1']);
  });

});

/**
 * keepalived.reload with new VIP lists. Measured on keepalived 2.2.7 in network namespaces (infra-1 150 master
 * of VIPs .100 and .101, infra-2 100; both confs rewritten to .100 and .102 and SIGHUP, infra-1 at 6.120 s,
 * infra-2 at 6.627 s): infra-1 sent two adverts (6.122 s), removed .101, added .102 and sent one GARP burst for
 * .100 and .102 ("setting VIPs"), with no repeat 5 s later (nor the repeat still due from its takeover at
 * 3.439 s); its adverts went on every second from 6.122 s; infra-2 changed nothing it showed. Killed at 14.631
 * s, infra-1 was replaced by infra-2 at 17.733 s with .100 and .102. A reload that changed only the priority
 * (5.091 s) sent no GARPs and likewise dropped the repeat due at 8.462 s.
 */
describe('keepalived.reload with new VIP lists', () => {
  const V100 = '198.18.0.100';
  const V102 = '198.18.0.102';
  const r = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [
    { at: 6_000, type: 'keepalived.reload', node: 'infra-1', instances: [{ vrid: 51, vips: [V100, V102] }] },
    { at: 6_500, type: 'keepalived.reload', node: 'infra-2', instances: [{ vrid: 51, vips: [V100, V102] }] },
    { at: 10_000, type: 'keepalived.reload', node: 'infra-1', instances: [{ vrid: 51, vips: [V102] }] },
    { at: 10_500, type: 'keepalived.reload', node: 'infra-2', instances: [{ vrid: 51, vips: [V102] }] },
    { at: 14_500, type: 'node.fail', node: 'infra-1' },
  ], { durationMs: 20_000 });
  const takeoverUs = 14_000_000 + 3 * A + S(100); // infra-1 re-phased at 10 s: its last advert at 14 s

  test('the master removes the dropped VIPs, adds the new ones and announces them all once; a backup shows nothing', () => {
    expect(r.records.filter((x) => x.type === 'vrrp.address').map((x) => [x.atUs, x.node, x.vip, x.change])).toEqual([
      [6_000_000, 'infra-1', V102, 'added'],
      [10_000_000, 'infra-1', V100, 'removed'],
    ]);
    expect(r.records.flatMap((x) => (x.type === 'vrrp.garp' && x.node === 'infra-1' ? [[x.atUs, x.vip, x.reason]] : []))).toEqual([
      [3 * A + S(150), V100, 'master'],
      // The repeat due at 8.414 s (garp_master_delay 5 s after the takeover) died with the reload.
      [6_000_000, V100, 'reload'],
      [6_000_000, V102, 'reload'],
      [10_000_000, V102, 'reload'],
    ]);
  });

  test("the backup takes over with its own list; a VIP the reload retired is not an outage", () => {
    const taken = r.records.filter((x) => x.type === 'vrrp.state' && x.node === 'infra-2' && x.to === 'MASTER').map((x) => [x.atUs, (x as { vip: string }).vip]);
    expect(taken).toEqual([[takeoverUs, V102]]);
    // .102 had no master from the host loss to the takeover; .100 was nobody's since infra-1's second reload.
    expect(r.failover.vipUnavailableMs).toBe((takeoverUs - 14_500_000) / 1000);
    expect(r.failover.list.map((i) => [i.fault, i.vip, i.newMaster, i.latencyMs])).toEqual([['node.fail', V102, 'infra-2', (takeoverUs - 14_500_000) / 1000]]);
  });

  test('a reload of the master alone to another VIP count: the backup discards its adverts, takes over 3A + S(100) after the last old one, and both stay master', () => {
    // Measured on keepalived 2.2.7 (bench/keepalived-timeline.ts, scenarios/vrrp-keepalived-crash.yaml before
    // its second reload): infra-1 reloaded to two VIPs at 40.004 s and added the second at 40.015 s;
    // infra-2 logged "received an unexpected ip number count 2, expected 1!" for each advert after it and
    // added the VIP at 43.624 s (40.015 + 3A + S(100)); infra-1 discarded infra-2's adverts in turn.
    const m = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [
      { at: 6_000, type: 'keepalived.reload', node: 'infra-1', instances: [{ vrid: 51, vips: [V100, V102] }] },
    ], { durationMs: 20_000 });
    const masters = m.records.flatMap((x) => (x.type === 'vrrp.state' && x.to === 'MASTER' && x.vip === V100 ? [[x.node, x.atUs]] : []));
    // infra-1's first advert at the reload still carries the old list and is accepted; the next is not.
    expect(masters).toEqual([
      ['infra-1', 3 * A + S(150)],
      ['infra-2', 6_000_000 + 3 * A + S(100)],
    ]);
    expect(mastersAt(m.records, V100)).toEqual(['infra-1', 'infra-2']);
    expect(m.failover.splitBrainMs).toBe((20_000_000 - (6_000_000 + 3 * A + S(100))) / 1000);
    expect(m.sim.counters().addressDrops).toBeGreaterThan(0);
  });

  test('a priority-only reload also drops the pending GARP repeat, and sends no GARP', () => {
    const p = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [{ at: 5_000, type: 'keepalived.reload', node: 'infra-1', priority: 160 }], { durationMs: 12_000 });
    expect(p.records.filter((x) => x.type === 'vrrp.garp').map((x) => [x.atUs, x.reason])).toEqual([[3 * A + S(150), 'master']]);
  });

  test('what keepalived.conf could not say is a warning and left out', () => {
    const w = runCluster(pairCluster(), [
      { at: 5_000, type: 'keepalived.reload', node: 'infra-1', instances: [{ vrid: 9, vips: ['198.18.0.109'] }, { vrid: 51, vips: ['198.18.0.12'] }] },
    ], { durationMs: 6_000 });
    expect(w.records.filter((x) => x.type === 'warning').map((x) => (x as { message: string }).message)).toEqual([
      'keepalived.reload infra-1: the node runs no instance with vrid 9; left out',
      "keepalived.reload infra-1: vrid 51: 198.18.0.12 is node 'infra-2''s address; left out",
    ]);
    expect(w.records.some((x) => x.type === 'vrrp.address')).toBe(false);
  });
});

test('the event log refuses a reload that changes nothing, or lists a vrid or a VIP twice', () => {
  const base = { at: 0, type: 'keepalived.reload', node: 'infra-1' };
  expect(InputEventSchema.safeParse(base).error?.issues[0]).toMatchObject({ path: ['priority'] });
  expect(InputEventSchema.safeParse({ ...base, instances: [{ vrid: 1, vips: ['198.18.0.1'] }, { vrid: 1, vips: ['198.18.0.2'] }] }).error?.issues[0]).toMatchObject({ path: ['instances', 1, 'vrid'] });
  expect(InputEventSchema.safeParse({ ...base, instances: [{ vrid: 1, vips: ['198.18.0.1', '198.18.0.1'] }] }).error?.issues[0]).toMatchObject({ path: ['instances', 0, 'vips', 1] });
  expect(InputEventSchema.safeParse({ ...base, instances: [{ vrid: 1, vips: [] }] }).success).toBe(false);
  expect(InputEventSchema.safeParse({ ...base, priority: 120, instances: [{ vrid: 1, vips: ['198.18.0.1'] }] }).success).toBe(true);
});
