import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import type { OutputRecord } from '../output/records.ts';
import { mastersAt, pairCluster, runCluster } from './cluster-harness.ts';

/**
 * Failover timing against the RFC formulas, on two nodes and one VIP with a zero-delay network so every
 * figure is exact. A = advert interval, S = Skew of the backup, all in µs; v2 (S = (256 − p)/256 s).
 *
 * Start: both nodes enter BACKUP at 0; the higher priority p1 times out first, at tm = 3A + S1, and then
 * advertises at tm + kA.
 */
const VIP = '198.18.0.100';
const garps = (rs: OutputRecord[], node: string) =>
  rs.filter((r): r is Extract<OutputRecord, { type: 'vrrp.garp' }> => r.type === 'vrrp.garp' && r.node === node && r.reason === 'master');
const exact = { delayMs: 0, jitterMs: 0 };

const prioArb = fc.integer({ min: 2, max: 254 }).chain((p1) => fc.record({ p1: fc.constant(p1), p2: fc.integer({ min: 1, max: p1 - 1 }) }));
const intervalArb = fc.constantFrom(1000, 2000, 3000);

describe('failover latency agrees with the formulas', () => {
  /**
   * Hard failure at tf. The last advert left at tl, the last tm + kA before tf (an advert due at tf itself is
   * not sent: input events apply before timers of the same instant), so 0 < tf − tl ≤ A. The backup's down
   * timer then fires at tl + 3A + S2: latency = 3A + S2 − (tf − tl), in [2A + S2, 3A + S2). That is the
   * issue's (2A + S, 3A + S] with the endpoint convention flipped; with a network delay d both ends move up
   * by d. The first GARP goes out at the takeover instant.
   */
  test.prop([prioArb, intervalArb, fc.integer({ min: 0, max: 5999 })], { numRuns: 60 })('hard failure: within [2A+S, 3A+S) for any advert phase', ({ p1, p2 }, aMs, offsetMs) => {
    const A = aMs * 1000;
    const tf = 30_000_000 + offsetMs * 1000;
    const run = runCluster(pairCluster({ infra1: p1, infra2: p2, network: exact, keepalived: { advertIntervalMs: aMs } }), [{ at: tf / 1000, type: 'node.fail', node: 'infra-1' }], { durationMs: 60_000 });
    const S1 = skewUs(2, p1, A);
    const S2 = skewUs(2, p2, A);
    const tm = 3 * A + S1;
    const tl = tm + Math.floor((tf - 1 - tm) / A) * A;
    const takeover = garps(run.records, 'infra-2')[0]!.atUs;
    expect(takeover).toBe(tl + 3 * A + S2);
    const latency = takeover - tf;
    expect(latency).toBeGreaterThanOrEqual(2 * A + S2);
    expect(latency).toBeLessThan(3 * A + S2);
    expect(run.failover.list).toEqual([{ atMs: tf / 1000, fault: 'node.fail', vip: VIP, vrid: 51, oldMaster: 'infra-1', newMaster: 'infra-2', latencyMs: latency / 1000 }]);
    // The VIP had no master from the fault to the takeover; never two masters.
    expect(run.failover.vipUnavailableMs).toBe(latency / 1000);
    expect(run.failover.splitBrainMs).toBe(0);
  });

  /** Graceful stop: the master sends priority 0; the backup's timer becomes Skew: latency = S2 (+ d). */
  test.prop([prioArb, intervalArb, fc.integer({ min: 0, max: 5999 }), fc.constantFrom(0, 0.2)], { numRuns: 40 })('graceful shutdown: S (+ the network delay)', ({ p1, p2 }, aMs, offsetMs, delayMs) => {
    const tf = 30_000 + offsetMs;
    const run = runCluster(pairCluster({ infra1: p1, infra2: p2, network: { delayMs, jitterMs: 0 }, keepalived: { advertIntervalMs: aMs } }), [{ at: tf, type: 'node.shutdown', node: 'infra-1' }], { durationMs: 60_000 });
    expect(run.failover.list[0]!.latencyMs).toBe((skewUs(2, p2, aMs * 1000) + delayMs * 1000) / 1000);
  });

  /**
   * A recovering higher-priority node enters BACKUP at tr. With preemption and no delay it discards the
   * lower master's adverts, so its own full down timer fires: latency = 3A + S1 exactly. With preempt_delay
   * D (a multiple of A here), the first lower advert, at t1 ∈ [tr, tr + A), starts the clock; adverts before
   * t1 + D are accepted, the last at t1 + D − A, so the timer fires at t1 + D − A + 3A + S1:
   * latency = (t1 − tr) + D + 2A + S1, in [D + 2A + S1, D + 3A + S1).
   */
  test.prop([prioArb, intervalArb, fc.constantFrom(0, 1, 3), fc.integer({ min: 0, max: 5999 })], { numRuns: 60 })(
    'recovery preempts after 3A + S1 (+ preempt_delay)',
    ({ p1, p2 }, aMs, delayAdverts, offsetMs) => {
      const A = aMs * 1000;
      const D = delayAdverts * A;
      const tr = 40_000_000 + offsetMs * 1000;
      const run = runCluster(
        pairCluster({ infra1: p1, infra2: p2, network: exact, keepalived: { advertIntervalMs: aMs }, instance: { preemptDelayMs: D / 1000 } }),
        [
          { at: 1_000, type: 'node.fail', node: 'infra-1' },
          { at: tr / 1000, type: 'node.recover', node: 'infra-1' },
        ],
        { durationMs: 120_000 },
      );
      const S1 = skewUs(2, p1, A);
      const S2 = skewUs(2, p2, A);
      // infra-2 took over at 1 s + (3A + S2 − (1 s − last advert)); find its advert schedule from the record.
      const t2 = garps(run.records, 'infra-2')[0]!.atUs;
      const t1 = t2 + Math.ceil((tr - t2) / A) * A; // first infra-2 advert at or after tr
      const back = garps(run.records, 'infra-1').find((g) => g.atUs > tr)!.atUs;
      const expected = D === 0 ? tr + 3 * A + S1 : t1 + D - A + 3 * A + S1;
      expect(back).toBe(expected);
      const latency = back - tr;
      if (D === 0) expect(latency).toBe(3 * A + S1);
      else {
        expect(latency).toBeGreaterThanOrEqual(D + 2 * A + S1);
        expect(latency).toBeLessThan(D + 3 * A + S1);
      }
      const inc = run.failover.list.find((i) => i.fault === 'node.recover')!;
      expect(inc).toMatchObject({ oldMaster: 'infra-2', newMaster: 'infra-1', latencyMs: latency / 1000 });
      expect(S2).toBeGreaterThan(S1);
    },
  );

  /**
   * Partition [tp, th): the cut-off backup takes over after [2A + S2, 3A + S2) as for a crash; both are master
   * until the first advert crosses after the heal: the lower master yields to a higher advert, and a higher
   * master answering a lower advert at once, so within one interval: split brain ∈ (L − 3A − S2, L − 2A − S2 + A].
   */
  test.prop([prioArb, intervalArb, fc.integer({ min: 0, max: 5999 }), fc.integer({ min: 12_000, max: 60_000 })], { numRuns: 50 })(
    'partition: split brain for its length, one master within an interval of the heal',
    ({ p1, p2 }, aMs, offsetMs, lengthMs) => {
      const A = aMs * 1000;
      const tp = 30_000_000 + offsetMs * 1000;
      const th = tp + lengthMs * 1000;
      const run = runCluster(
        pairCluster({ infra1: p1, infra2: p2, network: exact, keepalived: { advertIntervalMs: aMs } }),
        [
          { at: tp / 1000, type: 'network.partition', groups: [['infra-1'], ['infra-2']] },
          { at: th / 1000, type: 'network.heal' },
        ],
        { durationMs: th / 1000 + 20_000 },
      );
      const S2 = skewUs(2, p2, A);
      const L = th - tp;
      const split = run.failover.splitBrainMs * 1000;
      expect(split).toBeGreaterThan(L - 3 * A - S2);
      expect(split).toBeLessThanOrEqual(L - 2 * A - S2 + A);
      expect(mastersAt(run.records, VIP, th + A)).toEqual(['infra-1']);
      expect(mastersAt(run.records, VIP)).toEqual(['infra-1']);
    },
  );
});
