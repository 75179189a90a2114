import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { skewUs } from '../core/vrrp/timers.ts';
import { pairCluster, runCluster } from '../sim/cluster/cluster-harness.ts';
import { NetnsCluster, netnsUnavailableReason } from './netns-harness.ts';
import { wallUs } from './real-time.ts';

/**
 * keepalived.crash, keepalived.restart and keepalived.reload with new VIPs on a real keepalived 2.2 in network
 * namespaces, against the simulator given the same events at the same offsets. The cluster is
 * pairCluster's: infra-1 (150) and infra-2 (100), one VRRPv2 instance, vrid 51, A = 1 s, VIP 198.18.0.100;
 * the confs are written here as fidelity/keepalived-conf.ts renders that cluster, plus the reload's VIP list.
 * About 20 s of real time. Needs root, `ip netns` and keepalived (skipped otherwise, outside CI).
 *
 * NOISE_MS as in keepalived-compare.test.ts: a tenth of A, for keepalived's start-up and timer loop and the
 * stamps of `ip monitor`.
 */
const NOISE_MS = 100;
/**
 * What "at once" allows for a keepalived that acts as it starts or re-reads its conf (the restart's removal
 * of the stale VIP, a reload's add and removal): the process's own start-up on a machine busy with the rest
 * of the test suite, where 101 ms was seen in CI (2 Dec 2026). Still well below A, the next timescale.
 */
const START_MS = 300;
const A_MS = 1000;
const S = (p: number) => skewUs(2, p, A_MS * 1000) / 1000;
const V100 = '198.18.0.100';
const V102 = '198.18.0.102';
const PRIORITY: Record<string, number> = { 'infra-1': 150, 'infra-2': 100 };

function conf(node: string, vips: readonly string[]): string {
  return [
    'global_defs {',
    `  router_id ${node}`,
    '  enable_script_security',
    '  script_user root',
    '}',
    'vrrp_instance VI_51 {',
    '  state BACKUP',
    '  interface eth0',
    '  virtual_router_id 51',
    `  priority ${PRIORITY[node]}`,
    '  advert_int 1',
    '  virtual_ipaddress {',
    ...vips.map((v) => `    ${v}/24 dev eth0`),
    '  }',
    '}',
    '',
  ].join('\n');
}

const unavailable = netnsUnavailableReason();

if (unavailable !== null && process.env.CI !== 'true') {
  test.skip(`real keepalived crash/reload check skipped: ${unavailable}`, () => {});
} else {
  describe('keepalived crash, restart and VIP reload: real keepalived 2.2 and the simulator', () => {
    let c: NetnsCluster;
    const t: Record<string, number> = {};
    /** ms after t0 of the first address event matching, at or after `fromUs`. */
    const when = (node: string, address: string, added: boolean, fromUs = 0): number | null => {
      const e = c.events.find((x) => x.node === node && x.address === address && x.added === added && x.atUs >= fromUs);
      return e === undefined ? null : (e.atUs - t.t0!) / 1000;
    };
    let sim: ReturnType<typeof runCluster>;

    beforeAll(async () => {
      if (unavailable !== null) throw new Error(`CI must run the keepalived crash/reload check, but: ${unavailable}`);
      c = await NetnsCluster.create({
        nodes: [
          { name: 'infra-1', ip: '198.18.0.11' },
          { name: 'infra-2', ip: '198.18.0.12' },
        ],
        vips: [V100, V102],
        conf: (n) => conf(n, [V100]),
      });
      t.t0 = wallUs();
      await c.start('infra-1');
      await c.start('infra-2');
      if (!(await c.waitFor(() => c.holders(V100).includes('infra-1'), 6000))) throw new Error(`infra-1 never took ${V100}:\n${c.logTail('infra-1')}`);
      await c.waitFor(() => false, 1500);
      t.crash = await c.crash('infra-1');
      await c.waitFor(() => c.holders(V100).includes('infra-2'), 5000);
      t.heldBoth = c.holders(V100).join(',') === 'infra-1,infra-2' ? 1 : 0;
      await c.waitFor(() => false, 1000);
      t.restart = wallUs();
      await c.start('infra-1');
      await c.waitFor(() => c.holders(V100).join(',') === 'infra-1', 6000);
      await c.waitFor(() => false, 1000);
      t.reload1 = c.reload('infra-1', conf('infra-1', [V100, V102]));
      await c.waitFor(() => c.holders(V102).includes('infra-1'), 2000);
      await c.waitFor(() => false, 1000);
      t.reload2 = c.reload('infra-1', conf('infra-1', [V102]));
      await c.waitFor(() => !c.holders(V100).includes('infra-1'), 2000);
      // infra-2 still runs [.100]: it discards every advert since the first reload's second one, and takes over.
      await c.waitFor(() => c.holders(V100).includes('infra-2'), 5000);
      await c.waitFor(() => false, 300);
      t.end = wallUs();
      const at = (k: string) => Math.round((t[k]! - t.t0!) / 1000);
      sim = runCluster(
        pairCluster({ network: { delayMs: 0, jitterMs: 0 } }),
        [
          { at: at('crash'), type: 'keepalived.crash', node: 'infra-1' },
          { at: at('restart'), type: 'keepalived.restart', node: 'infra-1' },
          { at: at('reload1'), type: 'keepalived.reload', node: 'infra-1', instances: [{ vrid: 51, vips: [V100, V102] }] },
          { at: at('reload2'), type: 'keepalived.reload', node: 'infra-1', instances: [{ vrid: 51, vips: [V102] }] },
        ],
        { durationMs: at('end') },
      );
    }, 60_000);

    afterAll(async () => {
      await c?.destroy();
    });

    const ms = (k: string) => (t[k]! - t.t0!) / 1000;
    /** The simulator's time (ms) of a record for the node and VIP. */
    const simAt = (pred: (r: (typeof sim.records)[number]) => boolean, after: number): number | null => {
      const r = sim.records.find((x) => x.atUs / 1000 >= after && pred(x));
      return r === undefined ? null : r.atUs / 1000;
    };

    test('a crashed keepalived leaves its VIP; the backup adds its own within [2A + S, 3A + S] of the crash, as simulated', () => {
      expect(t.heldBoth, 'both hosts had the VIP once the backup took over').toBe(1);
      expect(when('infra-1', V100, false, t.crash!)! > ms('restart') || when('infra-1', V100, false, t.crash!) === null).toBe(true);
      const real = when('infra-2', V100, true, t.crash!)! - ms('crash');
      expect(real).toBeGreaterThan(2 * A_MS + S(100) - NOISE_MS);
      expect(real).toBeLessThanOrEqual(3 * A_MS + S(100) + NOISE_MS);
      const simulated = simAt((x) => x.type === 'vrrp.state' && x.node === 'infra-2' && x.to === 'MASTER', ms('crash'))! - Math.round(ms('crash'));
      expect(Math.abs(simulated - real)).toBeLessThanOrEqual(NOISE_MS);
      expect(sim.records.some((x) => x.type === 'vrrp.address' && x.change === 'stale' && x.node === 'infra-1')).toBe(true);
    });

    test('keepalived restarting removes the stale VIP at once, then takes it back 3A + S(150) after its start', () => {
      const removed = when('infra-1', V100, false, t.crash!)! - ms('restart');
      expect(removed).toBeLessThanOrEqual(START_MS);
      const back = when('infra-1', V100, true, t.restart!)! - ms('restart');
      expect(Math.abs(back - (3 * A_MS + S(150)))).toBeLessThanOrEqual(NOISE_MS);
      const simulated = simAt((x) => x.type === 'vrrp.state' && x.node === 'infra-1' && x.to === 'MASTER', ms('restart'))! - Math.round(ms('restart'));
      expect(Math.abs(simulated - back)).toBeLessThanOrEqual(NOISE_MS);
      // infra-2 gives its copy up on hearing infra-1.
      expect(when('infra-2', V100, false, t.restart!)! - ms('restart')).toBeLessThanOrEqual(back + NOISE_MS);
    });

    test('a reload adds the new VIP and removes the dropped one on the master within START_MS, as simulated', () => {
      expect(when('infra-1', V102, true, t.reload1!)! - ms('reload1')).toBeLessThanOrEqual(START_MS);
      expect(when('infra-1', V100, false, t.reload1!)! - ms('reload2')).toBeLessThanOrEqual(START_MS);
      expect(when('infra-1', V100, false, t.reload1!)! - ms('reload2')).toBeGreaterThanOrEqual(0);
      expect(sim.records.filter((x) => x.type === 'vrrp.address' && x.node === 'infra-1' && x.cause === 'keepalived.reload').map((x) => (x as { vip: string; change: string }).vip + ' ' + (x as { change: string }).change)).toEqual([
        `${V102} added`,
        `${V100} removed`,
      ]);
    });

    test('a backup whose VIP list differs discards the adverts: it takes over 3A + S(100) after the last one it accepted, as simulated', () => {
      // infra-1's first advert at the first reload still carried [.100]; every later one did not.
      const real = when('infra-2', V100, true, t.reload1!)! - ms('reload1');
      expect(Math.abs(real - (3 * A_MS + S(100)))).toBeLessThanOrEqual(NOISE_MS);
      const simulated = simAt((x) => x.type === 'vrrp.state' && x.node === 'infra-2' && x.to === 'MASTER', ms('reload1'))! - Math.round(ms('reload1'));
      expect(Math.abs(simulated - real)).toBeLessThanOrEqual(NOISE_MS);
      expect(c.holders(V100)).toEqual(['infra-2']);
      expect(sim.failover.owners?.find((o) => o.vip === V100)?.masters).toEqual(['infra-2']);
    });
  });
}
