import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { vipsOf } from '../core/vrrp/instance-spec.ts';
import { skewUs } from '../core/vrrp/timers.ts';
import { evaluateBudgets } from '../reports/budgets.ts';
import { sampleReport } from '../reports/report-fixture.ts';
import type { Report } from '../reports/report.ts';
import { runCluster } from '../sim/cluster/cluster-harness.ts';
import { resolveCluster } from '../sim/cluster/resolve.ts';
import { RandomStreams } from '../sim/random-streams.ts';
import { loadScenario } from '../sim/scenario/load-scenario.ts';

/**
 * The shipped VRRP scenarios, run on the ClusterSim alone, against figures derived from the timers.
 * Notation: A = 1 s (advert interval), S(p) = (256 − p)/256 s (v2 Skew), d = one network delay, 0.2 ms plus
 * jitter in [0, 0.1) ms. Times in µs unless a name ends in Ms.
 */
const dir = fileURLToPath(new URL('.', import.meta.url));
const A = 1_000_000;
const S = (p: number) => skewUs(2, p, A);
const D_MIN = 200;
const D_MAX = 300;

function run(file: string) {
  const input = loadScenario(join(dir, file));
  const r = runCluster(input.cluster, [...input.events()], { durationMs: input.settings.sim.durationMs!, seed: input.settings.seed, keepRecords: false });
  const budgets = evaluateBudgets(sampleReport({ failover: r.failover }), input.budgets.filter((b) => b.startsWith('failover')));
  return { ...r, input, budgets, fo: r.failover };
}

const inRange = (x: number | null, lo: number, hi: number) => {
  expect(x).not.toBeNull();
  expect(x!).toBeGreaterThanOrEqual(lo);
  expect(x!).toBeLessThan(hi);
};
const passes = (budgets: Report['budgets']) => expect(budgets.filter((b) => !b.pass)).toEqual([]);

/**
 * What a 3-node generated (ipfailover) cluster does when nothing fails: each instance's top priority wins
 * (the higher IP on a tie), times out at 3A + S(top) and advertises every A to the end; a tie adds two
 * adverts (the loser's own on becoming master, and the winner's immediate answer to it: equal priority from
 * a lower IP counts as lower), then the loser yields. The spread counts each master's VIPs.
 */
function generatedElections(resolved: ReturnType<typeof resolveCluster>, endUs: number) {
  const ips: Record<string, number> = { 'infra-1': 11, 'infra-2': 12, 'infra-3': 13 };
  const mastersByNode: Record<string, number> = { 'infra-1': 0, 'infra-2': 0, 'infra-3': 0 };
  let adverts = 0;
  let ties = 0;
  for (const inst of resolved.instances) {
    const [winner] = Object.entries(inst.priorities).sort(([a, pa], [b, pb]) => pb - pa || ips[b]! - ips[a]!);
    mastersByNode[winner![0]]! += vipsOf(inst).length;
    const top = winner![1];
    if (Object.values(inst.priorities).filter((p) => p === top).length > 1) ties++;
    adverts += Math.floor((endUs - (3 * A + S(top))) / A) + 1;
  }
  return { mastersByNode, adverts: adverts + 2 * ties, ties };
}

/** infra-1 (150) wins the election at tm = 3A + S(150) and advertises at tm + k·A. */
const tm = 3 * A + S(150);

describe('shipped VRRP scenarios agree with the formulas', () => {
  test('master crash: the backup takes over 3A + S(100) after the last advert it heard', () => {
    const { fo, budgets } = run('vrrp-master-crash.yaml');
    // fault at 60 s; last advert sent at tm + 56·A = 59.414062 s; takeover at that + d + 3A + S(100)
    const last = tm + 56 * A;
    const base = last + 3 * A + S(100) - 60_000_000; // 3,023,437 µs
    expect(fo.incidents).toBe(1);
    expect(fo.list[0]).toMatchObject({ fault: 'node.fail', oldMaster: 'infra-1', newMaster: 'infra-2' });
    inRange(fo.list[0]!.latencyMs! * 1000, base + D_MIN, base + D_MAX);
    expect(fo.vipUnavailableMs).toBe(fo.list[0]!.latencyMs);
    expect(fo.splitBrainMs).toBe(0);
    passes(budgets);
  });

  test('graceful drain: priority 0, the backup takes over after S(100) + d', () => {
    const { fo, budgets } = run('vrrp-graceful-drain.yaml');
    inRange(fo.list[0]!.latencyMs! * 1000, S(100) + D_MIN, S(100) + D_MAX);
    passes(budgets);
  });

  test('router death with the default check: up to one check interval to detect, then S of the backup', () => {
    const { fo, budgets, input } = run('vrrp-router-death.yaml');
    const prio = resolveCluster(input.cluster!, new RandomStreams(input.settings.seed)).instances[0]!.priorities;
    // The generator: infra-2 (.12) is the preferred master with 255 − 12 = 243; infra-1 gets 11 + random(0..31).
    expect(prio['infra-2']).toBe(243);
    expect(prio['infra-1']).toBeGreaterThanOrEqual(11);
    expect(prio['infra-1']).toBeLessThanOrEqual(42);
    const [fail, back] = fo.list;
    expect(fail).toMatchObject({ fault: 'router.fail', oldMaster: 'infra-2', newMaster: 'infra-1' });
    // detection in (0, 2 s] (check every 2 s, fall 1), then FAULT → priority 0 → S(infra-1) + d
    inRange(fail!.latencyMs! * 1000, S(prio['infra-1']!) + D_MIN, 2 * A + S(prio['infra-1']!) + D_MAX);
    // the outage is only the Skew wait after the resignation
    inRange(fo.vipUnavailableMs * 1000, S(prio['infra-1']!) + D_MIN, S(prio['infra-1']!) + D_MAX);
    // before it, from the router's death to the failed check (FAULT), infra-2 held the VIP with no router:
    // black-holed for the detection time, in (0, 2 s]; the rest of the latency is the outage above
    const holeUs = Math.round(fo.blackholeMs * 1000);
    expect(holeUs).toBe(Math.round(fail!.latencyMs! * 1000) - Math.round(fo.vipUnavailableMs * 1000));
    inRange(holeUs, 1, 2 * A + 1);
    // recovery seen within 2 s, BACKUP, then its own down timer 3A + S(243) (preempt_delay cleared for state MASTER)
    expect(back).toMatchObject({ fault: 'router.recover', newMaster: 'infra-2' });
    inRange(back!.latencyMs! * 1000, 3 * A + S(243), 2 * A + 3 * A + S(243) + 1);
    passes(budgets);
  });

  test('partition and heal: split brain from the takeover until two adverts cross after the heal', () => {
    const { fo, budgets } = run('vrrp-partition-heal.yaml');
    // infra-2 takes over at 59.414062 s + d + 3.609375 s = 63.023437 s + d and advertises every A from there;
    // its advert at 90.023437 s + d reaches infra-1, which answers at once (lower priority heard) and infra-2
    // yields one more delay later: split = 27 s + d2 + d3.
    inRange(fo.splitBrainMs * 1000, 27_000_000 + 2 * D_MIN, 27_000_000 + 2 * D_MAX);
    expect(fo.flaps).toBe(1);
    expect(fo.vipUnavailableMs).toBe(0);
    passes(budgets);
  });

  test('lossy link: a flap per run of three lost adverts, N(1 − p)p³ ≈ 68 per hour', () => {
    const { fo, budgets } = run('vrrp-lossy-link.yaml');
    // runs of ≥ 3 losses among N ≈ 3600 adverts at p = 0.3: mean 3600 · 0.7 · 0.027 = 68, sd ≈ √68 ≈ 8.2;
    // a fixed seed gives one count, which must lie within 4 sd of the mean.
    expect(fo.flaps).toBeGreaterThanOrEqual(68 - 33);
    expect(fo.flaps).toBeLessThanOrEqual(68 + 33);
    expect(fo.splitBrainMs).toBeGreaterThan(0);
    expect(fo.vipUnavailableMs).toBe(0);
    passes(budgets);
  });

  test('200 VIPs over 3 nodes: masters where the generator put the top priority; one advert per VIP per second', () => {
    const { fo, budgets, input, endUs } = run('vrrp-200-vips-3-nodes.yaml');
    const { mastersByNode, adverts, ties } = generatedElections(resolveCluster(input.cluster!, new RandomStreams(input.settings.seed)), endUs);
    expect(fo.spread!.mastersByNode).toEqual(mastersByNode);
    expect(fo.traffic!.advertsSent).toBe(adverts);
    expect(fo.traffic!.packetsSent).toBe(adverts); // multicast: one packet per advert
    expect(fo.traffic!.packetsPerSec).toBeCloseTo(adverts / 600, 9);
    // ties time out together: both master until the lower IP hears the other, one delay
    expect(fo.flaps).toBe(ties);
    inRange(fo.splitBrainMs * 1000, ties * D_MIN, ties * D_MAX + 1);
    passes(budgets);
  });

  for (const n of [3, 10, 50]) {
    test(`unicast against multicast at ${n} nodes: packets n − 1 times the adverts`, () => {
      const mc = run(`vrrp-multicast-${n}-nodes.yaml`);
      const uc = run(`vrrp-unicast-${n}-nodes.yaml`);
      // Same generated priorities (same seed, node names), so the same elections and adverts.
      expect(uc.fo.traffic!.advertsSent).toBe(mc.fo.traffic!.advertsSent);
      expect(mc.fo.traffic!.packetsSent).toBe(mc.fo.traffic!.advertsSent);
      expect(uc.fo.traffic!.packetsSent).toBe(uc.fo.traffic!.advertsSent * (n - 1));
      // every advert reaches the n − 1 others either way
      expect(mc.fo.traffic!.deliveries).toBe(mc.fo.traffic!.advertsSent * (n - 1));
      expect(uc.fo.traffic!.deliveries).toBe(mc.fo.traffic!.deliveries);
      // 10 VIPs, A = 1 s: ~10 adverts/s; unicast 10 · (n − 1) packets/s in steady state
      expect(mc.fo.traffic!.advertsPerSec).toBeGreaterThan(9.9);
      expect(mc.fo.traffic!.advertsPerSec).toBeLessThanOrEqual(10);
      expect(uc.fo.traffic!.packetsPerSec / mc.fo.traffic!.packetsPerSec).toBeCloseTo(n - 1, 9);
      passes(mc.budgets);
      passes(uc.budgets);
    });
  }

  test('ipfailover VIP groups: one instance, one advert stream and one election per 20 VIPs', () => {
    const { fo, budgets, input, endUs } = run('vrrp-ipfailover-vip-groups.yaml');
    const resolved = resolveCluster(input.cluster!, new RandomStreams(input.settings.seed));
    // 200 VIPs in 10 groups: ⌊200 / 10⌋ = 20 each, vrids 1..10.
    expect(resolved.instances.map((i) => [i.vrid, vipsOf(i).length])).toEqual(Array.from({ length: 10 }, (_, k) => [k + 1, 20]));
    // The spread counts VIPs (an instance's master holds its 20), the adverts count instances.
    const { mastersByNode, adverts } = generatedElections(resolved, endUs);
    expect(fo.spread!.mastersByNode).toEqual(mastersByNode);
    expect(fo.traffic!.advertsSent).toBe(adverts);
    // about 10 adverts per second, where one instance per VIP sends 200
    expect(fo.traffic!.packetsPerSec).toBeLessThan(11);
    passes(budgets);
  });

  test('unicast join: the joiner hears no master until the peers are regenerated', () => {
    const { fo, budgets } = run('vrrp-unicast-join.yaml');
    expect(fo.exposure!.windows).toEqual([{ node: 'infra-3', fromMs: 60_000, toMs: 90_000, vips: 1 }]);
    // infra-3 (default priority 100) claims the VIP at 60 s + 3A + S(100) = 63.609375 s and advertises every
    // A from then on, to both peers. infra-1 reads each of those adverts (lower priority: it answers with
    // its own at once) and restarts its advert timer from it, so from then on it advertises d after infra-3
    // does, in step with it (as keepalived 2.2.7 does: docs/fidelity-keepalived.md). Its first advert after
    // the regeneration at 90 s therefore leaves at 90.609375 s + d and reaches infra-3 d later: the split
    // brain lasts 27 s + 2d.
    const start = 60_000_000 + 3 * A + S(100);
    const end = start + 27 * A;
    inRange(fo.splitBrainMs * 1000, end - start + 2 * D_MIN, end - start + 2 * D_MAX);
    expect(fo.flaps).toBe(1);
    // infra-1 never gave the VIP up: the claim was split brain, not a failover
    expect(fo.list).toEqual([]);
    expect(fo.owners).toEqual([{ vip: '198.18.0.100', vrid: 51, masters: ['infra-1'] }]);
    passes(budgets);
  });

  test('stall longer than 3A + S: takeover, then the woken master preempts at once', () => {
    const { fo, sim, budgets } = run('vrrp-stall-flap.yaml');
    const base = tm + 56 * A + 3 * A + S(100) - 60_000_000;
    expect(fo.list[0]).toMatchObject({ fault: 'node.stall', oldMaster: 'infra-1', newMaster: 'infra-2' });
    inRange(fo.list[0]!.latencyMs! * 1000, base + D_MIN, base + D_MAX);
    // the stalled master is not live: the VIP is down from the stall to the takeover
    expect(fo.vipUnavailableMs).toBe(fo.list[0]!.latencyMs);
    // at 65 s infra-1 reads infra-2's queued adverts and answers them; infra-2 yields one delay later
    expect(fo.flaps).toBe(1);
    inRange(fo.splitBrainMs * 1000, D_MIN, D_MAX);
    // Adverts: infra-1 at tm + k·A for k = 0..56 (57, the last at 59.41 s). infra-2 takes over at
    // tm + 59·A + S(100) + d = 63.02 s and sends 2 (63.02, 64.02 s). On waking at 65 s infra-1 reads those 2
    // before its overdue timer and answers each (2), and each answer restarts the timer, so the overdue one
    // never runs: then 66 s, 67 s, …, 120 s (55, the run's last instant included). 57 + 2 + 2 + 55. (On
    // keepalived 2.2.7: 2 queued adverts, 2 adverts on waking; 7 queued, 7.)
    expect(sim.counters().advertsSent).toBe(57 + 2 + 2 + 55);
    passes(budgets);
  });

  test('a stalled backup reads the queued adverts before its overdue down timer: no takeover', () => {
    const { fo, sim, budgets } = run('vrrp-stall-backup.yaml');
    // infra-2 stalls at 60 s; its down deadline, 3A + S(100) after infra-1's advert at tm + 56·A = 59.4140625 s
    // arrived, passes at about 63.02 s, but infra-1's next advert (tm + 57·A = 60.4140625 s) arrived before
    // it and waits in the socket. On waking at 66 s that advert is read first and restarts the down timer:
    // nothing changes hands.
    expect(tm + 57 * A + D_MAX).toBeLessThan(tm + 56 * A + D_MIN + 3 * A + S(100));
    expect(fo.flaps).toBe(0);
    expect(fo.splitBrainMs).toBe(0);
    expect(fo.incidents).toBe(0);
    // Queued adverts are delivered late, not lost: 6 s of adverts at 1 per second reach infra-2.
    expect(sim.counters().dropped).toBe(0);
    passes(budgets);
  });

  test('advert interval mismatch on three nodes: the silent long-interval master makes the other flap', () => {
    const { fo, budgets } = run('vrrp-interval-mismatch-flap.yaml');
    // infra-2 (A' = 2 s, 100) drops infra-1's adverts and becomes master at 3A' + S(100) = 6.609375 s; its
    // advert timer is then pushed back by each of infra-1's adverts, so it sends that one advert only.
    // infra-3 (A' = 2 s, 90) accepted it (d later) and times out 3A' + S(90) = 6.6484375 s after; as master it
    // advertises, infra-2 answers (a lower priority advert: one at once), and infra-3 yields d after that.
    // Each answer restarts infra-3's down timer, so it flaps every 6.6484375 s + 2d: at 6.609375 s + k · that,
    // k = 1..8 before 60 s (k = 9 would be 66.4 s). Each flap is a split brain of about 2d.
    const first = 3 * 2 * A + S(100);
    const period = 3 * 2 * A + S(90);
    expect(first + 8 * period + 16 * D_MAX).toBeLessThan(60_000_000);
    expect(first + 9 * period).toBeGreaterThan(60_000_000);
    expect(fo.flaps).toBe(8);
    // The split brain: infra-1 and infra-2 both master from 6.609375 s to the end (infra-3's flaps overlap it).
    expect(fo.splitBrainMs * 1000).toBe(60_000_000 - first);
    passes(budgets);
  });

  test('advert interval mismatch: both master from the second election to the end', () => {
    const { fo, sim } = run('vrrp-interval-mismatch.yaml');
    // infra-2 (A = 2 s) times out at 3 · 2 s + S(100) = 6.609375 s, never having accepted an advert
    expect(fo.splitBrainMs).toBe((60_000_000 - (6 * A + S(100))) / 1000);
    expect(sim.counters().intervalDrops).toBeGreaterThan(0);
    // Each master restarts its advert timer on every advert it reads, dropped ones included (keepalived 2.2.7
    // does; docs/fidelity-keepalived.md). infra-2 sends one advert on becoming master at 6.609375 s; from
    // then on infra-1's adverts, every 1 s, keep pushing its 2 s timer back, so it never sends again.
    // infra-1 sends at tm = 3.4140625 s and tm + 1, 2, 3 s; infra-2's advert reaches it d after 6.609375 s
    // and restarts its timer, so it sends at 7.609375 s + d + k·A for k = 0..52 (the last at 59.6 s): 4 + 53.
    expect(sim.counters().advertsSent).toBe(4 + 53 + 1);
  });
});
