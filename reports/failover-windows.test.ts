import { describe, expect, test } from 'vitest';
import { ClusterSchema } from '../sim/cluster/cluster-schema.ts';
import { failoverWindows } from './failover-windows.ts';

const nodes = [
  { name: 'a', ip: '10.0.0.1' },
  { name: 'b', ip: '10.0.0.2' },
];

describe('failover windows from the RFC timers', () => {
  test('explicit v2 instance, defaults: A = 1 s, net = 0.2 + 0.1 ms, no check, no preempt_delay', () => {
    const w = failoverWindows(ClusterSchema.parse({ nodes, keepalived: { instances: [{ vip: '10.0.0.100', vrid: 1 }] } }));
    // MDI at priority 1: 3 · 1 s + ⌊255 · 10⁶ / 256⌋ µs = 3,996,093 µs.
    const mdi = 3_996_093;
    expect(w).toEqual({ faultUs: 300 + mdi, routerFailUs: 300 + mdi, partitionUs: 300 + mdi, preemptUs: 300 + 2 * mdi, routerRecoverUs: 300 + 2 * mdi, settleUs: 1_000_300 });
  });

  test('v3 at 500 ms with a misconfigured 2 s node, a slow link, a check and preempt_delay', () => {
    const w = failoverWindows(
      ClusterSchema.parse({
        nodes,
        network: { delayMs: 0.2, jitterMs: 0.1, links: [{ from: 'a', to: 'b', delayMs: 5 }] },
        keepalived: {
          version: 3,
          advertIntervalMs: 500,
          advertIntervalMsByNode: { b: 2000 },
          instances: [{ vip: '10.0.0.100', vrid: 1, preemptDelayMs: 4000, track: [{ weight: -10, fall: 3, rise: 2, intervalMs: 1500 }] }],
        },
      }),
    );
    // A = 2 s (the longest, which a v3 backup may learn); Skew(1) = 255 · 200 cs · 625 / 16 µs = 1,992,187.5 → 1,992,187.
    const mdi = 6_000_000 + 1_992_187;
    const net = 5100;
    const fault = net + mdi + 2_000_000 + 4_000_000;
    expect(w).toEqual({
      faultUs: fault,
      routerFailUs: 3 * 1_500_000 + fault,
      partitionUs: fault,
      preemptUs: net + 2 * mdi + 4_000_000,
      routerRecoverUs: 2 * 1_500_000 + net + 2 * mdi + 4_000_000,
      settleUs: 2_000_000 + net,
    });
  });

  test('per-instance versions and intervals: the longest Master_Down_Interval of them', () => {
    const w = failoverWindows(
      ClusterSchema.parse({
        nodes,
        keepalived: {
          instances: [
            { vip: '10.0.0.100', vrid: 1, version: 3, advertIntervalMs: 200 },
            { vip: '10.0.0.101', vrid: 2, advertIntervalMs: 3000 },
          ],
        },
      }),
    );
    // v2 at 3 s: 9 s + Skew(1) = 9 s + ⌊255 · 10⁶ / 256⌋ µs (v2 Skew ignores the interval); v3 at 20 cs: 0.6 s + 199,218 µs.
    expect(w.faultUs).toBe(300 + 9_000_000 + 996_093);
    expect(w.settleUs).toBe(3_000_300);
  });

  test('ipfailover: 1 s adverts, the check every 2 s (rise = fall = 1), preempt_delay 300 s by default', () => {
    const w = failoverWindows(ClusterSchema.parse({ nodes, ipfailover: { virtualIps: '10.0.0.100' } }));
    const mdi = 3_996_093;
    expect(w.faultUs).toBe(300 + mdi + 1_000_000 + 300_000_000);
    expect(w.routerFailUs).toBe(2_000_000 + w.faultUs);
    expect(w.routerRecoverUs).toBe(2_000_000 + 300 + 2 * mdi + 300_000_000);
  });
});
