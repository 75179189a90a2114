import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { mastersAt, pairCluster, runCluster } from '../cluster/cluster-harness.ts';

/**
 * link.down / link.up: the node's carrier goes. The same run on keepalived 2.2.7 (bench/keepalived-timeline.ts,
 * the node's bridge port set down): the master removed its VIP 6 ms after the command returned (FAULT on the
 * kernel's netlink message); its priority-0 adverts could not leave, so the backup took over on its down
 * timer, 3A + S(100) after the last advert (5.430 → 9.040 s); at link.up the old master left FAULT as a backup
 * and took the VIP back 3A + S(150) later (12.300 → 15.719 s); a backup losing carrier logged FAULT and
 * nothing moved.
 */
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);
const VIP = '198.18.0.100';

describe('loss of carrier', () => {
  const r = runCluster(pairCluster({ network: { delayMs: 0, jitterMs: 0 } }), [
    { at: 6_300, type: 'link.down', node: 'infra-1' },
    { at: 12_300, type: 'link.up', node: 'infra-1' },
    { at: 18_500, type: 'link.down', node: 'infra-2' },
  ], { durationMs: 22_000 });
  const states = r.records.flatMap((x) => (x.type === 'vrrp.state' ? [x] : []));
  // infra-1 is master at 3A + S(150) = 3.414 s and advertises then and every A: the last before 6.3 s is at 5.414 s.
  const lastAdvertUs = 3 * A + S(150) + 2 * A;

  test('the master goes FAULT at once and its VIP leaves with it', () => {
    expect(states.find((x) => x.node === 'infra-1' && x.to === 'FAULT')).toMatchObject({ atUs: 6_300_000, from: 'MASTER' });
  });

  test('the backup takes over on its down timer: no priority-0 advert gets out', () => {
    expect(states.find((x) => x.node === 'infra-2' && x.to === 'MASTER')!.atUs).toBe(lastAdvertUs + 3 * A + S(100));
  });

  test('link.up: the old master leaves FAULT as a backup and preempts 3A + S(150) later; a backup losing carrier goes FAULT', () => {
    expect(states.find((x) => x.node === 'infra-1' && x.from === 'FAULT')).toMatchObject({ atUs: 12_300_000, to: 'BACKUP' });
    expect(states.find((x) => x.node === 'infra-1' && x.to === 'MASTER' && x.atUs > 12_300_000)!.atUs).toBe(12_300_000 + 3 * A + S(150));
    expect(states.find((x) => x.node === 'infra-2' && x.to === 'FAULT')).toMatchObject({ atUs: 18_500_000, from: 'BACKUP' });
    expect(mastersAt(r.records, VIP)).toEqual(['infra-1']);
    expect(r.failover.list[0]).toMatchObject({ fault: 'link.down', oldMaster: 'infra-1', newMaster: 'infra-2' });
  });

  test('keepalived started without carrier starts in FAULT', () => {
    const s = runCluster(pairCluster(), [
      { at: 1_000, type: 'node.fail', node: 'infra-2' },
      { at: 2_000, type: 'link.down', node: 'infra-2' },
      { at: 3_000, type: 'node.recover', node: 'infra-2' },
    ], { durationMs: 5_000 });
    expect(s.records.flatMap((x) => (x.type === 'vrrp.state' && x.node === 'infra-2' && x.atUs === 3_000_000 ? [x.to] : []))).toEqual(['FAULT']);
  });
});
