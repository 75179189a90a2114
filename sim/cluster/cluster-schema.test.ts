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
});
