import { failoverWindows } from '../../reports/failover-windows.ts';
import type { RunInput } from '../run-input.ts';

/**
 * How long after the last fault healed and the last churn event the router must have settled and every VIP
 * must have one master (the liveness properties, sim/explore/properties.ts), in ms:
 * - the router: a reload it still wants starts within router.reloadIntervalMs and serves after
 *   router.reloadDurationMs (twice: a change that lands during a reload waits for the next one); the first
 *   runtime change after a reload arms the commit timer, whose reload comes router.commitIntervalMs later
 *   (then as any other); plus 30 s for runtime work still in flight (15 slow replies of 2 s,
 *   sim/haproxy/faulty-transport.ts);
 * - keepalived: the longest failover window after a recovery (reports/failover-windows.ts, RFC 3768/5798
 *   timers as keepalived computes them: rise checks, 2 · Master_Down_Interval, preempt_delay, the longest
 *   link), then one advert interval for a second master to yield (settle), plus, with unicast peers, the
 *   time until the others' configs list a joined node (membership.configRegenDelayMs).
 * The larger of the two, and at least 60 s.
 */
export function livenessBoundMs(input: RunInput): number {
  const r = input.settings.router;
  const reloadMs = r.reloadIntervalMs + r.reloadDurationMs;
  const routerMs = Math.max(2 * reloadMs, r.commitIntervalMs + reloadMs) + 30_000;
  let vrrpMs = 0;
  const c = input.cluster;
  if (c !== undefined) {
    const w = failoverWindows(c);
    const unicast = c.ipfailover ? c.ipfailover.unicastPeers : c.keepalived.unicast;
    vrrpMs = Math.ceil((w.routerRecoverUs + w.settleUs) / 1000) + (unicast ? c.membership.configRegenDelayMs : 0);
  }
  return Math.max(60_000, routerMs, vrrpMs);
}

