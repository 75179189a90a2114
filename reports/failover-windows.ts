import { parsePreemption } from '../core/vrrp/ipfailover.ts';
import { effectiveAdvertIntervalUs, masterDownUs, type VrrpVersion } from '../core/vrrp/timers.ts';
import type { ClusterConfig } from '../sim/cluster/cluster-schema.ts';

/**
 * How long after an event a takeover it causes can still come, in µs, from the RFC 3768/5798 timers as
 * keepalived computes them (core/vrrp/timers.ts). Past its window an event can no longer be the cause: the
 * failover projection drops a pending preemption or partition incident then, and lists a fault nobody took
 * over from as unresolved. Each window is the worst case over the cluster:
 *
 * - MDI = Master_Down_Interval at the longest interval A any instance or node uses (a v3 backup learns its
 *   master's), in that instance's version, and the lowest priority (1), the largest Skew:
 *   downTimerAdverts · A + Skew(1, A).
 * - net = the longest one-way delay (delay + jitter) of any link: the last advert sent before a fault may still
 *   be in flight, and a backup's down timer restarts when it lands.
 * - fault (node.fail, node.shutdown, node.leave, node.stall, link.down): the backups' timers run out by net + MDI. With
 *   preempt_delay D a backup that still hears a lower master (split brain, or the rival that took over first)
 *   accepts its adverts until D after the first, which lands within A + net: by net + A + D + MDI.
 * - router.fail, script.fail: the check fails within fall · interval (a check runs every interval; fall failures in a
 *   row), then as a fault.
 * - partition: a backup cut off from its master hears its last advert within net, then as a fault.
 * - recover / join / link.up (a preemption): the node enters BACKUP and discards lower adverts, so its own timer fires
 *   by MDI; with preempt_delay D it accepts them until D after the first, which lands within MDI (else its
 *   timer fired first), so the last accepted lands before MDI + D and its timer fires by 2 · MDI + D.
 * - router.recover, script.recover: the check passes within rise · interval, then as a recovery.
 * - preempt_delay D: the longest of the instances' and of any joiner's own (node.join preemptDelayMs).
 * - settle: after a node takes the VIP, the time for a rival master or the old one to hear its first advert
 *   and yield (one interval, a lost advert aside, plus net).
 */
export interface FailoverWindows {
  faultUs: number;
  routerFailUs: number;
  partitionUs: number;
  preemptUs: number;
  routerRecoverUs: number;
  settleUs: number;
}

export function failoverWindows(c: ClusterConfig, joinerPreemptDelayMs = 0): FailoverWindows {
  const k = c.keepalived;
  const ipf = c.ipfailover;
  // Each instance's version and interval (its own, else the section's), and any node's own interval.
  const timings: Array<{ version: VrrpVersion; ms: number }> = ipf
    ? [{ version: 2, ms: 1000 }]
    : (k.instances.length > 0 ? k.instances : [{ version: undefined, advertIntervalMs: undefined }]).map((i) => ({ version: i.version ?? k.version, ms: i.advertIntervalMs ?? k.advertIntervalMs }));
  const byNode = Object.values(k.advertIntervalMsByNode);
  let A = 0;
  let mdi = 0;
  for (const t of timings)
    for (const ms of [t.ms, ...byNode]) {
      const a = effectiveAdvertIntervalUs(t.version, ms);
      A = Math.max(A, a);
      mdi = Math.max(mdi, masterDownUs(t.version, 1, a, k.downTimerAdverts));
    }
  // In µs as the network rounds them (msToUs); jitter is drawn in [0, jitter), so delay + jitter bounds a packet.
  const us = (ms: number): number => Math.round(ms * 1000);
  const netUs = Math.max(us(c.network.delayMs) + us(c.network.jitterMs), ...c.network.links.map((l) => us(l.delayMs ?? c.network.delayMs) + us(l.jitterMs ?? c.network.jitterMs)));
  let fallUs = 0;
  let riseUs = 0;
  let delayUs = 0;
  if (ipf) {
    // ipfailover's check: weight 0, rise = fall = 1, every checkIntervalMs rounded down to whole seconds.
    if (ipf.watchPort !== 0) fallUs = riseUs = Math.max(1, Math.floor(ipf.checkIntervalMs / 1000)) * 1_000_000;
    delayUs = parsePreemption(ipf.preemption).preemptDelayMs * 1000;
  } else {
    // A node that joined with its own preempt_delay (its vrrp.membership record says so) may wait longer.
    delayUs = joinerPreemptDelayMs * 1000;
    for (const inst of k.instances) {
      delayUs = Math.max(delayUs, inst.preemptDelayMs * 1000);
      for (const t of inst.track) {
        fallUs = Math.max(fallUs, t.fall * t.intervalMs * 1000);
        riseUs = Math.max(riseUs, t.rise * t.intervalMs * 1000);
      }
    }
  }
  const faultUs = netUs + mdi + (delayUs > 0 ? A + delayUs : 0);
  const preemptUs = netUs + 2 * mdi + delayUs;
  return { faultUs, routerFailUs: fallUs + faultUs, partitionUs: faultUs, preemptUs, routerRecoverUs: riseUs + preemptUs, settleUs: A + netUs };
}
