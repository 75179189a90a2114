import { describe, expect, test } from 'vitest';
import { ClusterConfigError } from './instance-spec.ts';
import { vipsOf } from './instance-spec.ts';
import { expandIpfailover, expandVirtualIps, groupVips, nodePriorities, parsePreemption } from './ipfailover.ts';

const opts = { virtualIps: '10.0.2.100-102,10.0.2.42', vrrpIdOffset: 0, watchPort: 80, checkIntervalMs: 2000, preemption: 'preempt_delay 300' };
const zero = () => () => 0;

describe('ipfailover expansion', () => {
  test('VIP ranges vary the last octet; comma or space separated', () => {
    expect(expandVirtualIps('10.0.2.100-102,10.0.2.42')).toEqual(['10.0.2.100', '10.0.2.101', '10.0.2.102', '10.0.2.42']);
    expect(expandVirtualIps('1.1.1.1, 2.2.2.2 3.3.3.3-3.3.3.4')).toEqual(['1.1.1.1', '2.2.2.2', '3.3.3.3', '3.3.3.4']);
  });

  test.each([
    ['10.0.2.102-100', /end 100 is before its start 102/],
    ['10.0.2.1-2-3', /exactly one '-'/],
    ['10.0.2', /not an IPv4 address/],
    ['10.0.2.1,10.0.2.1', /duplicate virtual IP/],
  ])('%s is an input error naming the key', (text, message) => {
    expect(() => expandVirtualIps(text)).toThrow(ClusterConfigError);
    expect(() => expandVirtualIps(text)).toThrow(message);
    expect(() => expandVirtualIps(text)).toThrow(/^cluster\.ipfailover\.virtualIps: /);
  });

  test('vrid = offset + 1, 2, …; more than 255 ids is an input error', () => {
    const specs = expandIpfailover({ ...opts, vrrpIdOffset: 10 }, [{ name: 'a', ip: '10.0.0.11' }], zero);
    expect(specs.map((s) => s.vrid)).toEqual([11, 12, 13, 14]);
    expect(() => expandIpfailover({ ...opts, virtualIps: '10.0.1.1-200', vrrpIdOffset: 100 }, [{ name: 'a', ip: '10.0.0.11' }], zero)).toThrow(
      /need VRRP ids up to 300; at most 255/,
    );
  });

  test('VIP groups (OPENSHIFT_HA_VIP_GROUPS) share the VIPs out as config-generators.sh does', () => {
    const v = (n: number) => Array.from({ length: n }, (_, i) => `10.0.3.${i + 1}`);
    // ⌊n / groups⌋ each, one more for the first n mod groups; 0 groups is one VIP per instance.
    expect(groupVips(v(5), 2).map((g) => g.length)).toEqual([3, 2]);
    expect(groupVips(v(7), 3).map((g) => g.length)).toEqual([3, 2, 2]);
    expect(groupVips(v(2), 5).map((g) => g.length)).toEqual([1, 1]);
    expect(groupVips(v(3), 0).map((g) => g.length)).toEqual([1, 1, 1]);
    expect(groupVips(v(5), 2)[1]).toEqual(['10.0.3.4', '10.0.3.5']);
    // One instance per group: vrids count groups, and each node draws one priority per instance.
    const draws: string[] = [];
    const counting = (node: string) => () => (draws.push(node), 0);
    const specs = expandIpfailover({ ...opts, vipGroups: 2 }, [{ name: 'a', ip: '10.0.0.11' }], counting);
    expect(specs.map((s) => [s.vrid, vipsOf(s)])).toEqual([
      [1, ['10.0.2.100', '10.0.2.101']],
      [2, ['10.0.2.102', '10.0.2.42']],
    ]);
    expect(draws).toEqual(['a', 'a']);
    // The id limit counts instances, not VIPs: 200 VIPs in 10 groups from offset 100 fit.
    expect(expandIpfailover({ ...opts, virtualIps: '10.0.1.1-200', vrrpIdOffset: 100, vipGroups: 10 }, [{ name: 'a', ip: '10.0.0.11' }], zero)).toHaveLength(10);
  });

  test('the check script: TCP to the watch port, weight 0, rise = fall = 1, whole-second interval; port 0 means none', () => {
    const [s] = expandIpfailover(opts, [{ name: 'a', ip: '10.0.0.11' }], zero);
    expect(s!.track).toEqual([{ script: 'router-check', weight: 0, rise: 1, fall: 1, intervalMs: 2000 }]);
    expect(expandIpfailover({ ...opts, watchPort: 0 }, [{ name: 'a', ip: '10.0.0.11' }], zero)[0]!.track).toEqual([]);
  });

  test('preemption strings', () => {
    expect(parsePreemption('preempt_delay 300')).toEqual({ preempt: true, preemptDelayMs: 300_000 });
    expect(parsePreemption('nopreempt')).toEqual({ preempt: false, preemptDelayMs: 0 });
    expect(() => parsePreemption('sometimes')).toThrow(/cluster\.ipfailover\.preemption/);
  });

  test('ipslot heuristic: preferred masters alternate 255 − ipslot and ipslot + 1, others ipslot mod 64 + random', () => {
    // ip .12, 3 replicas: ipslot 12, idx = 12 mod 3 + 1 = 1 → every instance is "master": 243, 13, 243, 13
    expect(nodePriorities('10.0.0.12', 4, 3, () => 5).map((p) => p.priority)).toEqual([243, 13, 243, 13]);
    // ip .13: idx = 13 mod 3 + 1 = 2 → even instances preferred (242, then 14); odd ones 13 + random
    expect(nodePriorities('10.0.0.13', 4, 3, () => 7).map((p) => p.priority)).toEqual([20, 242, 20, 14]);
    // ip .139: ipslot 139 mod 128 = 11
    expect(nodePriorities('10.0.0.139', 1, 1, () => 0)[0]!.priority).toBe(244);
  });

  test('a generated priority of 0 becomes keepalived\'s default, 100', () => {
    // ip .64, 3 replicas: idx = 64 mod 3 + 1 = 2, so instance 1 is not preferred: 64 mod 64 + 0 = 0, which
    // keepalived's vrrp_prio_handler refuses and replaces with VRRP_PRIO_DFL = 100.
    const [first] = expandIpfailover({ ...opts, replicas: 3 }, [{ name: 'n64', ip: '10.0.0.64' }], zero);
    expect(first!.priorities['n64']).toBe(100);
  });

  test('nopreempt: no preferred masters and no flip-flop, every preferred instance at 255 - ipslot', () => {
    // ip .12, 1 replica: idx = 12 mod 1 + 1 = 1, so every instance is "preferred". With preemption they
    // alternate 255 - 12 = 243 and 12 + 1 = 13 (flip-flop) and the node is `state MASTER`; under nopreempt
    // the generator (OCPBUGS-33629) writes no `state MASTER`, so "previous" never reads master: 243 each time.
    const node = [{ name: 'n12', ip: '10.0.0.12' }];
    const flip = expandIpfailover({ ...opts, replicas: 1 }, node, zero);
    expect(flip.map((s) => s.priorities['n12'])).toEqual(flip.map((_, i) => (i % 2 === 0 ? 243 : 13)));
    expect(flip.every((s) => s.initialMasterNodes.includes('n12'))).toBe(true);
    const still = expandIpfailover({ ...opts, replicas: 1, preemption: 'nopreempt' }, node, zero);
    expect(still.map((s) => s.priorities['n12'])).toEqual(still.map(() => 243));
    expect(still.every((s) => s.initialMasterNodes.length === 0 && !s.preempt)).toBe(true);
  });

  test('an address owner without a state line wants MASTER: keepalived derives it from priority 255', () => {
    // ip .128: ipslot 0, so its preferred instances get 255 - 0 = 255. Under nopreempt the generator writes no
    // state line, and keepalived's vrrp_complete_instance then sets wantstate MASTER from the priority (and
    // clears nopreempt): the node counts as an initial master. Node .12 at 243 does not.
    const nodes = [{ name: 'n128', ip: '10.0.0.128' }, { name: 'n12', ip: '10.0.0.12' }];
    const specs = expandIpfailover({ ...opts, replicas: 1, preemption: 'nopreempt' }, nodes, zero);
    expect(specs.map((s) => s.priorities['n128'])).toEqual(specs.map(() => 255));
    expect(specs.every((s) => s.initialMasterNodes.length === 1 && s.initialMasterNodes[0] === 'n128')).toBe(true);
  });
});
