import { describe, expect, test } from 'vitest';
import { skewUs } from '../../core/vrrp/timers.ts';
import { mastersAt, pairCluster, runCluster } from '../cluster/cluster-harness.ts';

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
