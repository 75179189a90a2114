import { beforeAll, describe, expect, test } from 'vitest';
import { skewUs } from '../core/vrrp/timers.ts';
import { FIDELITY_ADVERT_MS, FIDELITY_CHECK_INTERVAL_MS, basePriority, rfcBound, simulateIncident, type FaultKind, type SimulatedIncident } from './keepalived-fidelity.ts';
import { DEFAULT_PLAN, measureRealKeepalived, type RealRun } from './keepalived-real.ts';
import { fidelityRows, renderFidelityTable, type FidelityRow } from './keepalived-table.ts';
import { netnsUnavailableReason } from './netns-harness.ts';

/**
 * The simulator against a real keepalived 2.2 on the same configuration and faults (fidelity/
 * keepalived-fidelity.ts: 3 nodes, 2 VIPs, VRRPv2, A = 1 s, priorities 150/100/50, router check every 1 s).
 * About 100 s of real time: DEFAULT_PLAN's 13 incidents, each followed by the recovery and a settle.
 *
 * Needs root, `ip netns` and keepalived (CI runs as root and installs them: there a missing piece fails the
 * test instead of skipping it). python3 is optional: it runs the advert observer that puts each simulated
 * fault at the same phase of the master's advert interval as the real one; without it the phase comes from
 * the time the master took the VIP, which keepalived's slightly-over-1-s advert period drifts away from.
 *
 * Measurement noise, the margins below. The fault is stamped with Date.now() right before the signal, file
 * write or command (≤ 1 ms early; a partition's `bridge` command takes ~2-5 ms to start); `ip -ts monitor`
 * stamps the VIP when it reads the netlink event; keepalived's timer loop, its VIP add and (shutdown) its
 * SIGTERM handling take 1-30 ms. keepalived, the monitors and the observer run at SCHED_RR (netns-harness.ts):
 * without that, the other test files on 2 cores delayed takeovers by up to 190 ms; with it, hard failures
 * agree to ~2 ms under that load. Measured: most pairs differ by 0.5-6 ms, shutdowns by the 2-26 ms keepalived
 * takes to send its priority-0 advert, router check failures by up to ~45 ms (two priority-0 adverts, see
 * docs/fidelity-keepalived.md). Hence:
 * - NOISE_MS = 100 ms for any single incident or spread end (a tenth of A; a modelling error in the down
 *   timer or the Skew of one priority step of 50 is ≥ 195 ms and still shows),
 * - SYSTEMATIC_MS = 20 ms for the median difference over all incidents (a systematic offset shows there).
 */
const NOISE_MS = 100;
const SYSTEMATIC_MS = 20;
const A = FIDELITY_ADVERT_MS;
const I = FIDELITY_CHECK_INTERVAL_MS;
const S = (node: string, vip: string) => skewUs(2, basePriority(node, vip), A * 1000) / 1000;
/** The simulated network delay (0.05 ms + up to 0.05 ms jitter) can add up to 0.1 ms to a simulated latency. */
const SIM_NET_MS = 0.1;

const unavailable = netnsUnavailableReason();

if (unavailable !== null && process.env.CI !== 'true') {
  console.warn(`fidelity/keepalived-compare.test.ts: real keepalived comparison skipped: ${unavailable}`);
  test.skip(`real keepalived comparison skipped: ${unavailable}`, () => {});
} else {
  describe('the simulator against real keepalived 2.2 in network namespaces', () => {
    let real: RealRun;
    let sim: SimulatedIncident[];
    let rows: FidelityRow[];

    beforeAll(async () => {
      if (unavailable !== null) throw new Error(`CI must run the keepalived comparison, but: ${unavailable}`);
      real = await measureRealKeepalived(DEFAULT_PLAN);
      sim = real.incidents.map((i) => simulateIncident(i));
      rows = fidelityRows(real.incidents, sim);
      const pairs = real.incidents.map(
        (r, k) => `${r.kind} #${r.index} ${r.vip}: real ${r.latencyMs} ms, simulated ${sim[k]!.latencyMs} ms (fault ${r.sinceAdvertMs} ms after the last advert${r.altSinceAdvertMs !== null ? ` or ${r.altSinceAdvertMs}` : ''})`,
      );
      console.log(`${real.keepalivedVersion}, ${real.realSeconds.toFixed(1)} s of real time\n${renderFidelityTable(rows)}\n${[...pairs, ...real.remeasured].join('\n')}`);
    }, 240_000);

    test('every planned fault made the expected node master in both worlds, and nothing else moved', () => {
      const expected: Record<FaultKind, number> = { ...DEFAULT_PLAN, partition: DEFAULT_PLAN.partition * 2 };
      for (const kind of Object.keys(expected) as FaultKind[]) expect(real.incidents.filter((i) => i.kind === kind).length, kind).toBe(expected[kind]);
      for (const [k, r] of real.incidents.entries()) {
        // .100: infra-2 (100) beats infra-3 (50): its Skew is 196 ms shorter. In a partition, the cut-off infra-1
        // (50, alone) takes .101 from infra-2.
        const want = r.vip === '198.18.0.100' ? 'infra-2' : 'infra-1';
        expect(r.newMaster, `${r.kind} #${r.index} ${r.vip}`).toBe(want);
        expect(sim[k]!.newMaster, `${r.kind} #${r.index} ${r.vip} (simulated)`).toBe(want);
      }
      expect(real.notes).toEqual([]);
    });

    /** Without the advert observer (no python3) the phase is only approximate: the pairwise checks say so and skip. */
    const unphased = (): string | null =>
      real.incidents.some((i) => i.sinceAdvertMs === null) ? 'no advert observer (python3 missing): simulated faults are not in phase with the real ones' : null;

    test('each simulated latency is within NOISE_MS of its real counterpart at the same advert phase', (ctx) => {
      if (unphased()) return ctx.skip(unphased()!);
      for (const [k, r] of real.incidents.entries()) {
        const diff = sim[k]!.latencyMs! - r.latencyMs!;
        expect(Math.abs(diff), `${r.kind} #${r.index} ${r.vip}: real ${r.latencyMs} ms, simulated ${sim[k]!.latencyMs} ms`).toBeLessThanOrEqual(NOISE_MS);
      }
    });

    test('no systematic offset: the median |simulated − real| is within SYSTEMATIC_MS', (ctx) => {
      if (unphased()) return ctx.skip(unphased()!);
      const diffs = real.incidents.map((r, k) => Math.abs(sim[k]!.latencyMs! - r.latencyMs!)).sort((a, b) => a - b);
      expect(diffs[Math.floor(diffs.length / 2)]!).toBeLessThanOrEqual(SYSTEMATIC_MS);
    });

    test('the simulated spread lies within the real spread, widened by NOISE_MS', (ctx) => {
      if (unphased()) return ctx.skip(unphased()!);
      for (const row of rows) {
        const what = `${row.kind} ${row.vip}`;
        expect(row.sim.minMs, what).toBeGreaterThanOrEqual(row.real.minMs - NOISE_MS);
        expect(row.sim.maxMs, what).toBeLessThanOrEqual(row.real.maxMs + NOISE_MS);
      }
    });

    /**
     * RFC 3768 with A = 1 s, S = (256 − p)/256 s of the winner (p = 100: 609.4 ms; p = 50: 804.7 ms):
     * - crash, host loss, partition: the backup's down timer, restarted by the last advert at tl (tf − A < tl ≤ tf),
     *   fires at tl + 3A + S, so latency = 3A + S − (tf − tl) ∈ [2A + S, 3A + S) — the issue's (2A+S, 3A+S]
     *   with the endpoint convention flipped; an exact 2A + S needs a fault at an advert instant.
     * - shutdown: the priority-0 advert sets the backup's timer to S: latency = S (+ the network delay).
     * - router check failure (weight 0, fall 1, interval I): the first failing check comes d ∈ (0, I] after the
     *   fault, the master goes to FAULT and resigns with priority 0, then S: latency = d + S ∈ (S, I + S].
     * The simulator must meet them exactly (plus its ≤ 0.1 ms network delay); the real keepalived within NOISE_MS.
     */
    test('both worlds meet the RFC bounds', () => {
      for (const [k, r] of real.incidents.entries()) {
        const b = rfcBound(r.kind, r.vip, r.newMaster!);
        const s = sim[k]!.latencyMs!;
        const what = `${r.kind} #${r.index} ${r.vip}: real ${r.latencyMs} ms, simulated ${s} ms, bound ${b.formula}`;
        if (r.kind === 'shutdown') {
          expect(s, what).toBeGreaterThanOrEqual(S(r.newMaster!, r.vip));
          expect(s, what).toBeLessThanOrEqual(S(r.newMaster!, r.vip) + SIM_NET_MS);
          expect(Math.abs(r.latencyMs! - S(r.newMaster!, r.vip)), what).toBeLessThanOrEqual(NOISE_MS);
        } else {
          expect(s, what).toBeGreaterThanOrEqual(b.loMs);
          expect(s, what).toBeLessThanOrEqual(b.hiMs + SIM_NET_MS);
          expect(r.latencyMs!, what).toBeGreaterThan(b.loMs - NOISE_MS);
          expect(r.latencyMs!, what).toBeLessThanOrEqual(b.hiMs + NOISE_MS);
        }
      }
      expect(rfcBound('router-fail', '198.18.0.100', 'infra-2').hiMs).toBe(I + S('infra-2', '198.18.0.100'));
    });

    /**
     * What node.fail leaves behind differs between a process crash and a host loss: SIGKILL leaves the VIP on the
     * dead keepalived's interface (no priority-0 advert, no cleanup), so the old node keeps answering for it
     * until keepalived restarts there and removes it; a graceful stop removes it within a few ms; a router
     * check failure removes it when the master enters FAULT (d after the fault, then S more for the backup).
     */
    test('who drops the VIP: crash and host loss keep it, shutdown and FAULT release it', () => {
      for (const r of real.incidents) {
        const what = `${r.kind} #${r.index} ${r.vip}`;
        if (r.kind === 'crash' || r.kind === 'host-loss' || r.kind === 'partition') expect(r.resignMs, what).toBeNull();
        if (r.kind === 'shutdown') {
          expect(r.resignMs!, what).toBeLessThanOrEqual(NOISE_MS);
          // keepalived needs a few ms after SIGTERM to send its priority-0 advert (the simulator: none); from that
          // advert on, the takeover takes S as simulated. One incident, so NOISE_MS: a fresh-clone run on a busy
          // machine measured 26.5 ms here, past the 20 ms that bounds only the median.
          if (r.zeroAdvertMs !== null) expect(Math.abs(r.latencyMs! - r.zeroAdvertMs - S(r.newMaster!, r.vip)), what).toBeLessThanOrEqual(NOISE_MS);
        }
        if (r.kind === 'router-fail') {
          expect(r.resignMs!, what).toBeGreaterThan(0);
          expect(r.resignMs!, what).toBeLessThanOrEqual(I + NOISE_MS);
          // After the resignation, the takeover took S, as the simulator has it.
          expect(Math.abs(r.latencyMs! - r.resignMs! - S(r.newMaster!, r.vip)), what).toBeLessThanOrEqual(NOISE_MS);
        }
      }
    });
  });
}
