import { describe, expect, test } from 'vitest';
import { ClusterSchema } from './cluster-schema.ts';

const nodes = [
  { name: 'infra-1', ip: '198.18.0.11' },
  { name: 'infra-2', ip: '198.18.0.12' },
];
const instance = { vip: '198.18.0.100', vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 } };
const issues = (input: unknown) => {
  const r = ClusterSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('ClusterSchema', () => {
  test('the issue example parses with keepalived defaults', () => {
    const c = ClusterSchema.parse({
      nodes,
      network: { delayMs: 0.2, jitterMs: 0.1, loss: 0 },
      keepalived: {
        version: 2,
        advertIntervalMs: 1000,
        downTimerAdverts: 3,
        garpMasterDelayMs: 5000,
        unicast: false,
        instances: [{ ...instance, preempt: true, preemptDelayMs: 0, track: [{ script: 'router-check', weight: 0, fall: 1, rise: 1, intervalMs: 2000 }] }],
      },
    });
    expect(c.keepalived.instances[0]!.track[0]!.intervalMs).toBe(2000);
    expect(c.membership.configRegenDelayMs).toBe(30_000);
  });

  test('defaults: keepalived 2, 1 s adverts, 3 down-timer adverts, GARP repeat after 5 s, preempt on', () => {
    const c = ClusterSchema.parse({ nodes, keepalived: { instances: [instance] } });
    expect(c.keepalived).toMatchObject({ version: 2, advertIntervalMs: 1000, downTimerAdverts: 3, garpMasterDelayMs: 5000, unicast: false, defaultPriority: 100 });
    expect(c.keepalived.instances[0]).toMatchObject({ preempt: true, preemptDelayMs: 0, track: [] });
    expect(c.network).toEqual({ delayMs: 0.2, jitterMs: 0.1, loss: 0, links: [] });
  });

  test('the ipfailover form with its defaults', () => {
    const c = ClusterSchema.parse({ nodes, ipfailover: { virtualIps: '10.0.2.100-102,10.0.2.42' } });
    expect(c.ipfailover).toEqual({ virtualIps: '10.0.2.100-102,10.0.2.42', vrrpIdOffset: 0, watchPort: 80, checkIntervalMs: 2000, preemption: 'preempt_delay 300', unicastPeers: false, vipGroups: 0 });
  });

  test.each([
    [{ nodes, keepalived: { instances: [instance] }, extra: 1 }, /Unrecognized key/],
    [{ nodes, keepalived: { instances: [{ ...instance, priority: 3 }] } }, /keepalived\.instances\.0: Unrecognized key/],
    [{ nodes, keepalived: { instances: [{ ...instance, priorities: { 'infra-1': 256 } }] } }, /keepalived\.instances\.0\.priorities\.infra-1: Too big/],
    [{ nodes, keepalived: { instances: [{ ...instance, priorities: { 'infra-9': 100 } }] } }, /keepalived\.instances\.0\.priorities\.infra-9: unknown node 'infra-9'/],
    [{ nodes, keepalived: { instances: [instance, { ...instance, vip: '198.18.0.101' }] } }, /keepalived\.instances\.1\.vrid: duplicate vrid 51/],
    [{ nodes, keepalived: { instances: [{ ...instance, vrid: 256 }] } }, /keepalived\.instances\.0\.vrid: Too big/],
    [{ nodes }, /keepalived\.instances: no VRRP instances/],
    [{ nodes, keepalived: { instances: [instance] }, ipfailover: { virtualIps: '10.0.0.1' } }, /ipfailover: give either/],
    [{ nodes: [...nodes, nodes[0]] , keepalived: { instances: [instance] } }, /nodes\.2\.name: duplicate node/],
    [{ nodes: [...nodes, { name: 'infra-9', ip: nodes[0]!.ip }], keepalived: { instances: [instance] } }, /nodes\.2\.ip: duplicate address .* \(also node 'infra-1'\)/],
    [{ nodes, network: { links: [{ from: 'infra-1', to: 'nope', loss: 0.5 }] }, keepalived: { instances: [instance] } }, /network\.links\.0\.to: unknown node 'nope'/],
    [{ nodes, ipfailover: { virtualIps: '10.0.0.1', vrrpIdOffset: 255 } }, /ipfailover\.vrrpIdOffset: Too big/],
    [{ nodes, ipfailover: { virtualIps: '10.0.2.102-100' } }, /ipfailover\.virtualIps: '10\.0\.2\.102-100': range end 100 is before its start 102/],
    [{ nodes, ipfailover: { virtualIps: '10.0.1.1-200', vrrpIdOffset: 100 } }, /ipfailover\.virtualIps: 200 VIPs from vrrpIdOffset 100 need VRRP ids up to 300/],
    [{ nodes, ipfailover: { virtualIps: '10.0.0.1', preemption: 'preempt_delay' } }, /ipfailover\.preemption: 'preempt_delay': expected/],
  ])('input error %#', (input, message) => {
    expect(issues(input).join('\n')).toMatch(message);
  });

  test('refuses a VIP held by two instances, or that is a node\'s own address (split brain by design)', () => {
    expect(issues({ nodes, keepalived: { instances: [instance, { ...instance, vrid: 52 }] } })).toEqual([
      'keepalived.instances.1.vip: duplicate VIP 198.18.0.100 (also instances[0]); one instance holds a VIP',
    ]);
    expect(issues({ nodes, keepalived: { instances: [{ ...instance, vip: '198.18.0.12' }] } })).toEqual(["keepalived.instances.0.vip: the VIP 198.18.0.12 is node 'infra-2''s own address"]);
    expect(issues({ nodes, ipfailover: { virtualIps: '10.0.2.100-102,10.0.2.101' } })).toEqual(['ipfailover.virtualIps: duplicate virtual IP 10.0.2.101']);
    expect(issues({ nodes, ipfailover: { virtualIps: '198.18.0.11' } })).toEqual(["ipfailover.virtualIps: 198.18.0.11 is node 'infra-1''s own address"]);
  });

  test('refuses an advert interval the VRRP version cannot carry, rather than rounding it', () => {
    // VRRPv2: whole seconds (RFC 3768 §5.3.7); 10 ms and 1500 ms would be rounded.
    for (const ms of [10, 1500]) {
      expect(issues({ nodes, keepalived: { advertIntervalMs: ms, instances: [instance] } })).toEqual([
        `keepalived.advertIntervalMs: VRRPv2 carries the advert interval in whole seconds (1 to 255), so ${ms} ms cannot be sent as it is: give a multiple of 1000, or keepalived.version: 3 for centiseconds`,
      ]);
    }
    expect(issues({ nodes, keepalived: { advertIntervalMsByNode: { 'infra-2': 2500 }, instances: [instance] } })).toHaveLength(1);
    // VRRPv3: centiseconds up to 4095 (RFC 5798 §5.2.7): 10 ms and 40950 ms are fine, 15 ms and 41000 ms are not.
    expect(issues({ nodes, keepalived: { version: 3, advertIntervalMs: 10, instances: [instance] } })).toEqual([]);
    expect(issues({ nodes, keepalived: { version: 3, advertIntervalMs: 40_950, instances: [instance] } })).toEqual([]);
    expect(issues({ nodes, keepalived: { version: 3, advertIntervalMs: 15, instances: [instance] } })).toHaveLength(1);
    expect(issues({ nodes, keepalived: { version: 3, advertIntervalMs: 41_000, instances: [instance] } })).toHaveLength(1);
    // An instance's own version and interval: 200 ms is 20 cs for a v3 instance, no whole second for a v2 one.
    expect(issues({ nodes, keepalived: { instances: [{ ...instance, version: 3, advertIntervalMs: 200 }] } })).toEqual([]);
    expect(issues({ nodes, keepalived: { instances: [{ ...instance, advertIntervalMs: 200 }] } })).toEqual([
      'keepalived.instances.0.advertIntervalMs: VRRPv2 carries the advert interval in whole seconds (1 to 255), so 200 ms cannot be sent as it is: give a multiple of 1000, or keepalived.version: 3 for centiseconds',
    ]);
    // A node's own interval goes out on every instance it runs: a v2 one among them needs whole seconds.
    const v3 = { ...instance, version: 3 as const };
    expect(issues({ nodes, keepalived: { advertIntervalMsByNode: { 'infra-2': 500 }, instances: [v3] } })).toEqual([]);
    expect(issues({ nodes, keepalived: { advertIntervalMsByNode: { 'infra-2': 500 }, instances: [v3, { ...instance, vrid: 52, vip: '198.18.0.101' }] } })).toHaveLength(1);
  });

  test('refuses a garp_master_delay keepalived would not read: it takes whole seconds and ignores a fraction', () => {
    expect(issues({ nodes, keepalived: { garpMasterDelayMs: 2000, instances: [instance] } })).toEqual([]);
    expect(issues({ nodes, keepalived: { garpMasterDelayMs: 0, instances: [instance] } })).toEqual([]);
    expect(issues({ nodes, keepalived: { garpMasterDelayMs: 1500, instances: [instance] } })).toEqual([
      'keepalived.garpMasterDelayMs: keepalived reads garp_master_delay in whole seconds (a fraction is ignored, leaving 5 s): give a multiple of 1000',
    ]);
  });
});
