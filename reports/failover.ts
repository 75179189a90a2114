import type { OutputRecord } from '../sim/output/records.ts';
import { quantile } from './quantile.ts';
import { ipToUint32 } from '../core/vrrp/instance-spec.ts';
import type { ClusterConfig } from '../sim/cluster/cluster-schema.ts';
import { failoverWindows, type FailoverWindows } from './failover-windows.ts';
import type { FailoverIncident, FailoverOwner, Report } from './report.ts';

/**
 * report.failover as a fold over the output log: VRRP records (`vrrp.state`, `vrrp.garp`, `vrrp.node`,
 * `vrrp.exposure`, `vrrp.stats`) plus the `input` records of faults. Fed one record at a time.
 *
 * Definitions:
 * - Incident: an event that should make another node take a VIP, and the takeover it causes. A fault on the
 *   node that was the VIP's only live master (node.fail, node.shutdown, node.leave, node.stall, router.fail)
 *   opens a takeover incident, closed by the first `vrrp.garp` (reason master) for that VIP by another node.
 *   network.partition opens one per VIP, closed by a master GARP from a node that was not master at the
 *   partition. node.recover / router.recover / node.join open one per VIP that has another master, closed
 *   when the recovered node takes the VIP and the old master gives it up: a unicast joiner that claims a VIP
 *   its master keeps (it cannot hear it yet) made split brain, not a failover. latencyMs = that GARP − the
 *   event.
 * - One takeover is one incident. An event can cause a takeover only within its window (failover-windows.ts,
 *   from the RFC timers); past it a pending partition or recovery is dropped (nothing changed: a one-way
 *   partition from backups to master, a recovered node that does not preempt), and a fault nobody took over
 *   from is listed with newMaster and latencyMs null. A fault on the master also drops what was pending on
 *   its VIP (that master can no longer be partitioned away or preempted), and a GARP that several pending
 *   incidents wait for closes the newest and drops the others.
 * - When several nodes take a VIP at once, the new master is the one that kept it (the others yielded).
 * - vipUnavailableMs: summed over VIPs, time with no live master, counted from the VIP's first master on
 *   (the initial election is not an outage). A stalled master is not live.
 * - blackholeMs: summed over VIPs, time the VIP has live masters but none with a serving router
 *   (router.fail → router.recover on that node): clients reach the VIP and get no answer.
 * - splitBrainMs: summed over VIPs, time with two or more live masters.
 * - staleVipMs: summed over VIPs, time a VIP held by a live master was also still on the interface of a
 *   node whose keepalived crashed as its master (keepalived.crash leaves it there; keepalived removes it as it
 *   starts): two hosts answer ARP for it. The new master's gratuitous ARPs win the neighbours' caches, so
 *   traffic goes there, but a neighbour that asks again may be answered by the stale copy. Between the crash
 *   and the takeover the stale copy still takes the traffic (the host and its router run on): that time is
 *   not vipUnavailableMs (it is blackholeMs if that router is down). A keepalived.crash of a master opens a
 *   takeover incident like node.fail, and keepalived.restart may preempt like node.recover.
 * - flaps: MASTER → BACKUP transitions.
 * - owners: each VIP's live masters at the end.
 * Without windows (no cluster section known) nothing is dropped for lateness. A joiner's own preempt_delay
 * (its vrrp.membership record) widens the windows from then on, its own preemption's included.
 */
const TAKEOVER_FAULTS = new Set(['node.fail', 'node.shutdown', 'node.leave', 'node.stall', 'router.fail', 'script.fail', 'link.down', 'keepalived.crash']);
const RECOVERIES = new Set(['node.recover', 'router.recover', 'script.recover', 'link.up', 'node.join', 'keepalived.restart']);

interface VipAcc {
  vrid: number;
  masters: Set<string>;
  lastUs: number;
  hadMaster: boolean;
  unavailableUs: number;
  splitUs: number;
  blackholeUs: number;
  /** Nodes whose crashed keepalived left the VIP on their interface (vrrp.address stale, until removed). */
  stale: Set<string>;
  staleUs: number;
}

interface Claim {
  node: string;
  atUs: number;
}

interface OpenIncident {
  kind: 'takeover' | 'partition' | 'preempt';
  atUs: number;
  fault: string;
  vip: string;
  oldMaster: string | null;
  /** partition and preempt: the masters at the event. */
  excluded: Set<string>;
  /** preempt: the recovering node. */
  wanted: string | null;
  /** The takeover must have begun by then (Infinity without windows). */
  untilUs: number;
  /** Nodes that took the VIP for this incident, in order, less those that yielded while another held it. */
  claims: Claim[];
  /** The first claim: the takeover's time, whoever keeps the VIP. */
  claimedAtUs: number;
}

const NO_WINDOWS: FailoverWindows = { faultUs: Infinity, routerFailUs: Infinity, partitionUs: Infinity, preemptUs: Infinity, routerRecoverUs: Infinity, settleUs: Infinity };

function windowFor(w: FailoverWindows, fault: string): number {
  switch (fault) {
    case 'router.fail':
    case 'script.fail':
      return w.routerFailUs;
    case 'network.partition':
      return w.partitionUs;
    case 'router.recover':
    case 'script.recover':
      return w.routerRecoverUs;
    case 'node.recover':
    case 'node.join':
    case 'link.up':
      return w.preemptUs;
    default:
      return w.faultUs;
  }
}

export function createFailoverProjection(cluster?: ClusterConfig): { add(r: OutputRecord): void; result(endUs: number): Report['failover'] } {
  let windows: FailoverWindows = cluster === undefined ? NO_WINDOWS : failoverWindows(cluster);
  let joinerDelayMs = 0;
  const vips = new Map<string, VipAcc>();
  const live = new Map<string, boolean>();
  const routerDown = new Set<string>();
  const nodes = new Set<string>();
  const open = new Map<string, OpenIncident[]>();
  /** Earliest time a pending incident may expire: records before it skip the scan. */
  let nextExpiryUs = Infinity;
  const closed: FailoverIncident[] = [];
  let flaps = 0;
  let stats: Extract<OutputRecord, { type: 'vrrp.stats' }> | null = null;
  const exposureOpen = new Map<string, { fromUs: number; vips: number }>();
  const exposure: Array<{ node: string; fromMs: number; toMs: number | null; vips: number }> = [];

  const isLive = (n: string): boolean => live.get(n) ?? true;
  const account = (v: VipAcc, nowUs: number): void => {
    const dt = nowUs - v.lastUs;
    if (dt > 0) {
      let k = 0;
      let serving = 0;
      for (const m of v.masters)
        if (isLive(m)) {
          k++;
          if (!routerDown.has(m)) serving++;
        }
      // With no live master a stale copy still takes the traffic that the neighbours' ARP caches send it.
      let staleServing = 0;
      for (const n of v.stale) if (!routerDown.has(n)) staleServing++;
      if (k === 0 && v.stale.size === 0 && v.hadMaster) v.unavailableUs += dt;
      if (k >= 2) v.splitUs += dt;
      if (k >= 1 ? serving === 0 : v.stale.size > 0 && staleServing === 0) v.blackholeUs += dt;
      if (k >= 1 && v.stale.size > 0) v.staleUs += dt;
    }
    v.lastUs = nowUs;
  };
  const vipAcc = (vip: string, vrid: number, atUs: number): VipAcc => {
    let v = vips.get(vip);
    if (!v) {
      v = { vrid, masters: new Set(), lastUs: atUs, hadMaster: false, unavailableUs: 0, splitUs: 0, blackholeUs: 0, stale: new Set(), staleUs: 0 };
      vips.set(vip, v);
    }
    return v;
  };
  const liveMasterOf = (v: VipAcc, except: string | null): boolean => {
    for (const m of v.masters) if (m !== except && isLive(m)) return true;
    return false;
  };
  /** When a pending incident is settled: at the end of its window, or once its claimants have had time to yield. */
  const expiryOf = (inc: OpenIncident): number => (inc.claims.length === 0 ? inc.untilUs : inc.claimedAtUs + windows.settleUs);
  const openIncident = (inc: OpenIncident): void => {
    const list = open.get(inc.vip) ?? [];
    list.push(inc);
    open.set(inc.vip, list);
    nextExpiryUs = Math.min(nextExpiryUs, expiryOf(inc));
  };
  const record = (inc: OpenIncident, newMaster: string | null, atUs: number | null): void => {
    closed.push({
      atMs: inc.atUs / 1000,
      fault: inc.fault,
      vip: inc.vip,
      vrid: vips.get(inc.vip)?.vrid ?? 0,
      oldMaster: inc.oldMaster,
      newMaster,
      latencyMs: atUs === null ? null : (atUs - inc.atUs) / 1000,
    });
  };
  /**
   * Settle an incident for good: a claimed takeover or partition names the claimant that kept the VIP (the
   * first still holding it) with the first claim's time; a preemption counts only once the old master gave
   * the VIP up; an unclaimed fault is unresolved; anything else is dropped.
   */
  const finish = (inc: OpenIncident): void => {
    const first = inc.claims[0];
    if (first === undefined) {
      if (inc.kind === 'takeover') record(inc, null, null);
      return;
    }
    if (inc.kind === 'preempt' && !preemptDone(inc)) return;
    const v = vips.get(inc.vip);
    const keeper = inc.claims.find((c) => v?.masters.has(c.node)) ?? inc.claims[inc.claims.length - 1]!;
    record(inc, keeper.node, inc.claimedAtUs);
  };
  const preemptDone = (inc: OpenIncident): boolean => {
    const v = vips.get(inc.vip)!;
    if (inc.claims.length === 0 || !v.masters.has(inc.wanted!)) return false;
    for (const m of inc.excluded) if (v.masters.has(m) && isLive(m)) return false;
    return true;
  };
  const setOpen = (vip: string, list: OpenIncident[]): void => {
    if (list.length > 0) open.set(vip, list);
    else open.delete(vip);
  };
  /** Give up (or settle) incidents whose time has passed by nowUs. */
  const expire = (nowUs: number): void => {
    if (nowUs <= nextExpiryUs) return;
    nextExpiryUs = Infinity;
    for (const [vip, list] of open) {
      const keep = list.filter((inc) => {
        const at = expiryOf(inc);
        if (at < nowUs) {
          finish(inc);
          return false;
        }
        nextExpiryUs = Math.min(nextExpiryUs, at);
        return true;
      });
      setOpen(vip, keep);
    }
  };
  /** A preemption whose old master gave the VIP up is complete. */
  const confirmPreemptions = (vip: string): void => {
    const list = open.get(vip);
    if (!list) return;
    setOpen(
      vip,
      list.filter((inc) => {
        if (inc.kind !== 'preempt' || !preemptDone(inc)) return true;
        finish(inc);
        return false;
      }),
    );
  };
  /** A new event on the VIP: takeovers already claimed are settled (the claimants have had their chance to yield). */
  const settleClaims = (vip: string): void => {
    const list = open.get(vip);
    if (!list) return;
    setOpen(
      vip,
      list.filter((inc) => {
        if (inc.claims.length === 0 || inc.kind === 'preempt') return true;
        finish(inc);
        return false;
      }),
    );
  };
  const accepts = (inc: OpenIncident, node: string): boolean =>
    inc.kind === 'takeover' ? node !== inc.oldMaster : inc.kind === 'partition' ? !inc.excluded.has(node) : node === inc.wanted;

  return {
    add(r: OutputRecord): void {
      expire(r.atUs);
      switch (r.type) {
        case 'vrrp.state': {
          nodes.add(r.node);
          const v = vipAcc(r.vip, r.vrid, r.atUs);
          account(v, r.atUs);
          if (r.to === 'MASTER') {
            v.masters.add(r.node);
            v.hadMaster = true;
          } else v.masters.delete(r.node);
          if (r.from === 'MASTER' && r.to === 'BACKUP') flaps++;
          const list = open.get(r.vip);
          if (list && r.from === 'MASTER') {
            // A claimant that yields did not keep the VIP (unless it was the only one); a recovering node that
            // stops cannot preempt any more.
            const keep = list.filter((inc) => {
              if (inc.claims.length > 1) inc.claims = inc.claims.filter((c) => c.node !== r.node);
              else if (inc.kind === 'preempt' && inc.claims[0]?.node === r.node) return false;
              return true;
            });
            setOpen(r.vip, keep);
          }
          if (list && (r.to === 'INIT' || r.to === 'FAULT')) setOpen(r.vip, (open.get(r.vip) ?? []).filter((inc) => !(inc.kind === 'preempt' && inc.wanted === r.node)));
          confirmPreemptions(r.vip);
          return;
        }
        case 'vrrp.node': {
          nodes.add(r.node);
          for (const v of vips.values()) if (v.masters.has(r.node)) account(v, r.atUs);
          live.set(r.node, r.live);
          if (!r.live) for (const vip of [...open.keys()]) confirmPreemptions(vip);
          return;
        }
        case 'vrrp.garp': {
          if (r.reason !== undefined && r.reason !== 'master') return;
          const list = open.get(r.vip);
          if (!list) return;
          const claim = { node: r.node, atUs: r.atUs };
          // Another node taking the VIP at once joins a claimed incident; otherwise the newest incident waiting
          // for this node takes the claim and the others waiting for it are done (one takeover, one incident).
          const claimed = list.find((inc) => inc.claims.length > 0 && inc.kind !== 'preempt' && r.atUs <= inc.claimedAtUs + windows.settleUs && accepts(inc, r.node));
          if (claimed) {
            if (!claimed.claims.some((c) => c.node === r.node)) claimed.claims.push(claim);
            return;
          }
          let newest: OpenIncident | null = null;
          for (const inc of list) if (inc.claims.length === 0 && accepts(inc, r.node)) newest = inc;
          if (newest === null) return;
          newest.claims.push(claim);
          newest.claimedAtUs = r.atUs;
          nextExpiryUs = Math.min(nextExpiryUs, expiryOf(newest));
          setOpen(
            r.vip,
            list.filter((inc) => inc === newest || inc.claims.length > 0 || !accepts(inc, r.node)),
          );
          confirmPreemptions(r.vip);
          return;
        }
        case 'input': {
          const untilUs = r.atUs + windowFor(windows, r.event);
          // Read only where it is used, and before router.recover clears it: churn inputs, one per event, skip the lookup.
          const wasRouterDown = r.event === 'router.recover' && routerDown.has(r.subject);
          if (r.event === 'router.fail' || r.event === 'router.recover') {
            for (const v of vips.values()) if (v.masters.has(r.subject) || v.stale.has(r.subject)) account(v, r.atUs);
            if (r.event === 'router.fail') routerDown.add(r.subject);
            else routerDown.delete(r.subject);
          }
          if (TAKEOVER_FAULTS.has(r.event)) {
            for (const [vip, v] of vips) {
              if (!v.masters.has(r.subject) || !isLive(r.subject)) continue;
              // A second fault on a master already failing (two scripts at once) is the same takeover.
              if (open.get(vip)?.some((inc) => inc.kind === 'takeover' && inc.oldMaster === r.subject && inc.claims.length === 0)) continue;
              // A master is gone: what was pending on its VIP cannot happen as it was; claims made are kept.
              for (const inc of open.get(vip) ?? []) finish(inc);
              open.delete(vip);
              // With another live master (split brain) the VIP is still held: nothing to take over.
              if (liveMasterOf(v, r.subject)) continue;
              openIncident({ kind: 'takeover', atUs: r.atUs, fault: r.event, vip, oldMaster: r.subject, excluded: new Set(), wanted: null, untilUs, claims: [], claimedAtUs: -1 });
            }
          } else if (r.event === 'network.partition') {
            for (const [vip, v] of vips) {
              settleClaims(vip);
              openIncident({ kind: 'partition', atUs: r.atUs, fault: r.event, vip, oldMaster: [...v.masters].sort()[0] ?? null, excluded: new Set(v.masters), wanted: null, untilUs, claims: [], claimedAtUs: -1 });
            }
          } else if (RECOVERIES.has(r.event)) {
            // Only a node that was down comes back (a recover of a running node changes nothing); a handover
            // from a live master, not the initial election.
            // (script.recover and link.up leave keepalived running: they always open one.)
            if (r.event === 'router.recover' ? !wasRouterDown : (r.event === 'node.recover' || r.event === 'node.join' || r.event === 'keepalived.restart') && live.get(r.subject) === true) return;
            for (const [vip, v] of vips)
              if (v.masters.size > 0 && !v.masters.has(r.subject)) {
                settleClaims(vip);
                openIncident({ kind: 'preempt', atUs: r.atUs, fault: r.event, vip, oldMaster: [...v.masters].sort()[0] ?? null, excluded: new Set(v.masters), wanted: r.subject, untilUs, claims: [], claimedAtUs: -1 });
              }
          }
          return;
        }
        case 'vrrp.address': {
          const v = vipAcc(r.vip, r.vrid, r.atUs);
          account(v, r.atUs);
          if (r.change === 'stale') v.stale.add(r.node);
          else if (r.change === 'added') {
            v.masters.add(r.node);
            v.hadMaster = true;
          } else {
            v.stale.delete(r.node);
            v.masters.delete(r.node);
            // A VIP a reload took off its master is retired by configuration, not down: not counted unavailable
            // until a node holds it again.
            if (r.cause === 'keepalived.reload' && v.masters.size === 0) v.hadMaster = false;
          }
          return;
        }
        case 'vrrp.membership': {
          if (r.change !== 'join' || cluster === undefined || (r.preemptDelayMs ?? 0) <= joinerDelayMs) return;
          joinerDelayMs = r.preemptDelayMs!;
          windows = failoverWindows(cluster, joinerDelayMs);
          // The join's own preemption was opened by its input record, just before, with the narrower window.
          for (const list of open.values())
            for (const inc of list) if (inc.fault === 'node.join' && inc.wanted === r.node && inc.atUs === r.atUs) inc.untilUs = r.atUs + windows.preemptUs;
          return;
        }
        case 'vrrp.exposure': {
          if (r.open) exposureOpen.set(r.node, { fromUs: r.atUs, vips: r.vips });
          else {
            const o = exposureOpen.get(r.node);
            if (o) {
              exposure.push({ node: r.node, fromMs: o.fromUs / 1000, toMs: r.atUs / 1000, vips: o.vips });
              exposureOpen.delete(r.node);
            }
          }
          return;
        }
        case 'vrrp.stats':
          stats = r;
          return;
      }
    },

    result(endUs: number): Report['failover'] {
      let unavailableUs = 0;
      let splitUs = 0;
      let blackholeUs = 0;
      let staleUs = 0;
      const mastersByNode: Record<string, number> = {};
      for (const n of [...nodes].sort()) mastersByNode[n] = 0;
      const owners: FailoverOwner[] = [];
      for (const [vip, v] of vips) {
        account(v, endUs);
        unavailableUs += v.unavailableUs;
        splitUs += v.splitUs;
        blackholeUs += v.blackholeUs;
        staleUs += v.staleUs;
        const masters = [...v.masters].filter(isLive).sort();
        for (const m of masters) mastersByNode[m] = (mastersByNode[m] ?? 0) + 1;
        owners.push({ vip, vrid: v.vrid, masters });
      }
      owners.sort((a, b) => ipToUint32(a.vip) - ipToUint32(b.vip));
      // result() may be called again: settle copies, leave the pending ones as they are.
      const before = closed.length;
      for (const incs of open.values()) for (const inc of incs) finish({ ...inc, claims: [...inc.claims] });
      const settled = closed.splice(before);
      const list = closed.concat(settled);
      list.sort((a, b) => a.atMs - b.atMs || (a.vip < b.vip ? -1 : a.vip > b.vip ? 1 : 0));
      const lat = list.map((i) => i.latencyMs).filter((x): x is number => x !== null).sort((a, b) => a - b);
      const counts = Object.values(mastersByNode);
      const mean = counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0;
      const sd = counts.length ? Math.sqrt(counts.reduce((a, b) => a + (b - mean) ** 2, 0) / counts.length) : 0;
      const seconds = endUs / 1e6;
      const s = stats as Extract<OutputRecord, { type: 'vrrp.stats' }> | null;
      const exposureWindows = [...exposure];
      for (const [node, o] of exposureOpen) exposureWindows.push({ node, fromMs: o.fromUs / 1000, toMs: null, vips: o.vips });
      return {
        incidents: list.length,
        latencyMs: { p50: quantile(lat, 0.5), p95: quantile(lat, 0.95), p99: quantile(lat, 0.99), max: lat.length ? lat[lat.length - 1]! : null },
        vipUnavailableMs: unavailableUs / 1000,
        blackholeMs: blackholeUs / 1000,
        staleVipMs: staleUs / 1000,
        splitBrainMs: splitUs / 1000,
        flaps,
        list,
        traffic: {
          mode: s?.mode ?? null,
          nodes: s?.nodes ?? nodes.size,
          advertsSent: s?.advertsSent ?? 0,
          packetsSent: s?.packetsSent ?? 0,
          deliveries: s?.deliveries ?? 0,
          dropped: s?.dropped ?? 0,
          advertsPerSec: seconds > 0 ? (s?.advertsSent ?? 0) / seconds : 0,
          packetsPerSec: seconds > 0 ? (s?.packetsSent ?? 0) / seconds : 0,
        },
        spread: { mastersByNode, min: counts.length ? Math.min(...counts) : 0, max: counts.length ? Math.max(...counts) : 0, cv: mean > 0 ? sd / mean : 0 },
        owners,
        exposure: {
          windows: exposureWindows,
          totalMs: exposureWindows.reduce((a, w) => a + ((w.toMs ?? endUs / 1000) - w.fromMs), 0),
        },
      };
    },
  };
}
