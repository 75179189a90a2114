import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { mastersAt, runCluster } from '../cluster/cluster-harness.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';

/**
 * Tracked scripts other than the router check, failed and recovered by `script.fail` / `script.recover`.
 * Bounds from keepalived's rules (a script's status changes after `fall` failing runs, one run per interval;
 * a backup ignores lower-priority adverts and takes over when its down timer, 3A + Skew after the last
 * accepted advert, runs out; a FAULT master sends priority 0, after which a backup waits Skew). The same
 * scenario on keepalived 2.2.7 (bench/keepalived-timeline.ts, the scripts testing flag files): weight −60
 * took .100 over 3.036 s after the fault (infra-1's last advert of 150 at 5.428 s, takeover at 9.037 s);
 * weight 0 with fall 2 put infra-1 in FAULT 1.014 s after the fault and infra-2 held .101 0.610 s later;
 * after `script.recover` infra-1 took .100 back 2.452 s later, its last accepted advert + 3A + S(150).
 */
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);
const cluster = {
  nodes: [
    { name: 'infra-1', ip: '198.18.0.11' },
    { name: 'infra-2', ip: '198.18.0.12' },
  ],
  network: { delayMs: 0.2, jitterMs: 0.1, loss: 0 },
  keepalived: {
    instances: [
      { vip: '198.18.0.100', vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 }, track: [{ script: 'dns-check', weight: -60, intervalMs: 1000 }] },
      { vip: '198.18.0.101', vrid: 52, priorities: { 'infra-1': 150, 'infra-2': 100 }, track: [{ script: 'disk-check', weight: 0, intervalMs: 1000, fall: 2 }] },
    ],
  },
};
const FAULT_US = 30_000_000;
const events = [
  { at: 30_000, type: 'script.fail' as const, node: 'infra-1', script: 'dns-check' },
  { at: 30_000, type: 'script.fail' as const, node: 'infra-1', script: 'disk-check' },
  { at: 50_000, type: 'script.recover' as const, node: 'infra-1', script: 'dns-check' },
];

describe('script.fail and script.recover', () => {
  const r = runCluster(cluster, events, { durationMs: 70_000 });
  const states = r.records.flatMap((x) => (x.type === 'vrrp.state' ? [x] : []));

  test('a negative weight drops the master below the backup: takeover within 2A + S to I + 3A + S of the fault', () => {
    const t = states.find((x) => x.vip === '198.18.0.100' && x.node === 'infra-2' && x.to === 'MASTER')!.atUs - FAULT_US;
    // The priority drops at the first failing run (≤ I = 1 s); the last advert of 150 came at most A before.
    expect(t).toBeGreaterThan(2 * A + S(100));
    expect(t).toBeLessThanOrEqual(A + 3 * A + S(100) + 1000);
    expect(r.failover.list.find((i) => i.vip === '198.18.0.100')).toMatchObject({ fault: 'script.fail', oldMaster: 'infra-1', newMaster: 'infra-2' });
  });

  test('weight 0 with fall 2: FAULT after the second failing run, the backup master S after the priority-0 adverts', () => {
    const fault = states.find((x) => x.vip === '198.18.0.101' && x.node === 'infra-1' && x.to === 'FAULT')!.atUs - FAULT_US;
    expect(fault).toBeGreaterThan(A);
    expect(fault).toBeLessThanOrEqual(2 * A);
    const taken = states.find((x) => x.vip === '198.18.0.101' && x.node === 'infra-2' && x.to === 'MASTER')!.atUs - FAULT_US;
    expect(taken - fault).toBeGreaterThanOrEqual(S(100));
    expect(taken - fault).toBeLessThanOrEqual(S(100) + 1000);
  });

  test('script.recover restores the priority: infra-1 takes .100 back within I + 3A + S(150); .101 stays in FAULT', () => {
    const back = states.find((x) => x.vip === '198.18.0.100' && x.node === 'infra-1' && x.to === 'MASTER' && x.atUs > 50_000_000)!.atUs - 50_000_000;
    expect(back).toBeLessThanOrEqual(A + 3 * A + S(150) + 1000);
    expect(mastersAt(r.records, '198.18.0.100')).toEqual(['infra-1']);
    expect(mastersAt(r.records, '198.18.0.101')).toEqual(['infra-2']);
  });

  test('a script the node does not track is a warning; router-check is driven by router.fail, not script.fail', () => {
    const w = runCluster(cluster, [{ at: 1_000, type: 'script.fail', node: 'infra-1', script: 'nosuch' }], { durationMs: 2_000 });
    expect(w.records.filter((x) => x.type === 'warning').map((x) => (x as { message: string }).message)).toEqual([
      "script.fail: node 'infra-1' tracks no script 'nosuch'; ignored",
    ]);
    const bad = InputEventSchema.safeParse({ at: 1, type: 'script.fail', node: 'infra-1', script: 'router-check' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toBe('router-check follows the router: use router.fail / router.recover');
  });
});
