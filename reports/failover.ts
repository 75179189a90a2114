import type { OutputRecord } from '../sim/output/records.ts';
import { quantile } from './quantile.ts';
import type { FailoverIncident, Report } from './report.ts';

/**
 * report.failover as a fold over the output log: VRRP records (`vrrp.state`, `vrrp.garp`, `vrrp.node`,
 * `vrrp.exposure`, `vrrp.stats`) plus the `input` records of faults. Fed one record at a time.
 *
 * Definitions:
 * - Incident: a fault on the node that was (live) master of a VIP — node.fail, node.shutdown, node.leave,
 *   node.stall, router.fail — opens one per VIP it mastered; it closes at the first `vrrp.garp` (reason
 *   master) for that VIP by another node. latencyMs = that GARP − the fault; null if nobody took over.
 *   network.partition opens one per VIP, closed by the first master GARP from a node that was not master at
 *   the partition (kept only if that happens). node.recover / router.recover / node.join open one per
 *   VIP that has another master, closed when the recovered node becomes master (kept only if it does).
 *   Unresolved takeovers are listed with newMaster and latencyMs null. result() may be called more than once.
 * - vipUnavailableMs: summed over VIPs, time with no live master, counted from the VIP's first master on
 *   (the initial election is not an outage). A stalled master is not live.
 * - splitBrainMs: summed over VIPs, time with two or more live masters.
 * - flaps: MASTER → BACKUP transitions.
 */
const TAKEOVER_FAULTS = new Set(['node.fail', 'node.shutdown', 'node.leave', 'node.stall', 'router.fail', 'script.fail', 'link.down']);

interface VipAcc {
  vrid: number;
  masters: Set<string>;
  lastUs: number;
  hadMaster: boolean;
  unavailableUs: number;
  splitUs: number;
}

interface OpenIncident {
  kind: 'takeover' | 'partition' | 'preempt';
  atUs: number;
  fault: string;
  vip: string;
  oldMaster: string | null;
  /** partition: masters at the fault; preempt: the recovering node. */
  excluded: Set<string>;
  wanted: string | null;
}

export function createFailoverProjection(): { add(r: OutputRecord): void; result(endUs: number): Report['failover'] } {
  const vips = new Map<string, VipAcc>();
  const live = new Map<string, boolean>();
  const nodes = new Set<string>();
  const open = new Map<string, OpenIncident[]>();
  const closed: FailoverIncident[] = [];
  let flaps = 0;
  let stats: Extract<OutputRecord, { type: 'vrrp.stats' }> | null = null;
  const exposureOpen = new Map<string, { fromUs: number; vips: number }>();
  const exposure: Array<{ node: string; fromMs: number; toMs: number | null; vips: number }> = [];

  const isLive = (n: string): boolean => live.get(n) ?? true;
  const liveMasters = (v: VipAcc): number => {
    let k = 0;
    for (const m of v.masters) if (isLive(m)) k++;
    return k;
  };
  const account = (v: VipAcc, nowUs: number): void => {
    const dt = nowUs - v.lastUs;
    if (dt > 0) {
      const k = liveMasters(v);
      if (k === 0 && v.hadMaster) v.unavailableUs += dt;
      if (k >= 2) v.splitUs += dt;
    }
    v.lastUs = nowUs;
  };
  const vipAcc = (vip: string, vrid: number, atUs: number): VipAcc => {
    let v = vips.get(vip);
    if (!v) {
      v = { vrid, masters: new Set(), lastUs: atUs, hadMaster: false, unavailableUs: 0, splitUs: 0 };
      vips.set(vip, v);
    }
    return v;
  };
  const openIncident = (inc: OpenIncident): void => {
    const list = open.get(inc.vip) ?? [];
    list.push(inc);
    open.set(inc.vip, list);
  };
  const finishIncident = (inc: OpenIncident, newMaster: string | null, atUs: number | null): void => {
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

  return {
    add(r: OutputRecord): void {
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
          return;
        }
        case 'vrrp.node': {
          nodes.add(r.node);
          for (const v of vips.values()) if (v.masters.has(r.node)) account(v, r.atUs);
          live.set(r.node, r.live);
          return;
        }
        case 'vrrp.garp': {
          if (r.reason !== undefined && r.reason !== 'master') return;
          const list = open.get(r.vip);
          if (!list) return;
          const keep = list.filter((inc) => {
            const done =
              inc.kind === 'takeover' ? r.node !== inc.oldMaster : inc.kind === 'partition' ? !inc.excluded.has(r.node) : r.node === inc.wanted;
            if (done) finishIncident(inc, r.node, r.atUs);
            return !done;
          });
          if (keep.length > 0) open.set(r.vip, keep);
          else open.delete(r.vip);
          return;
        }
        case 'input': {
          if (TAKEOVER_FAULTS.has(r.event)) {
            for (const [vip, v] of vips)
              if (v.masters.has(r.subject) && isLive(r.subject))
                openIncident({ kind: 'takeover', atUs: r.atUs, fault: r.event, vip, oldMaster: r.subject, excluded: new Set(), wanted: null });
          } else if (r.event === 'network.partition') {
            for (const [vip, v] of vips)
              openIncident({
                kind: 'partition',
                atUs: r.atUs,
                fault: r.event,
                vip,
                oldMaster: [...v.masters].sort()[0] ?? null,
                excluded: new Set(v.masters),
                wanted: null,
              });
          } else if (r.event === 'node.recover' || r.event === 'router.recover' || r.event === 'script.recover' || r.event === 'link.up' || r.event === 'node.join') {
            // A handover from a live master, not the initial election.
            for (const [vip, v] of vips)
              if (v.masters.size > 0 && !v.masters.has(r.subject))
                openIncident({
                  kind: 'preempt',
                  atUs: r.atUs,
                  fault: r.event,
                  vip,
                  oldMaster: [...v.masters].sort()[0] ?? null,
                  excluded: new Set(),
                  wanted: r.subject,
                });
          }
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
      const mastersByNode: Record<string, number> = {};
      for (const n of [...nodes].sort()) mastersByNode[n] = 0;
      for (const v of vips.values()) {
        account(v, endUs);
        unavailableUs += v.unavailableUs;
        splitUs += v.splitUs;
        for (const m of v.masters) if (isLive(m)) mastersByNode[m] = (mastersByNode[m] ?? 0) + 1;
      }
      const list = [...closed];
      for (const incs of open.values())
        for (const inc of incs)
          if (inc.kind === 'takeover')
            list.push({ atMs: inc.atUs / 1000, fault: inc.fault, vip: inc.vip, vrid: vips.get(inc.vip)?.vrid ?? 0, oldMaster: inc.oldMaster, newMaster: null, latencyMs: null });
      list.sort((a, b) => a.atMs - b.atMs || (a.vip < b.vip ? -1 : a.vip > b.vip ? 1 : 0));
      const lat = list.map((i) => i.latencyMs).filter((x): x is number => x !== null).sort((a, b) => a - b);
      const counts = Object.values(mastersByNode);
      const mean = counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0;
      const sd = counts.length ? Math.sqrt(counts.reduce((a, b) => a + (b - mean) ** 2, 0) / counts.length) : 0;
      const seconds = endUs / 1e6;
      const s = stats as Extract<OutputRecord, { type: 'vrrp.stats' }> | null;
      const windows = [...exposure];
      for (const [node, o] of exposureOpen) windows.push({ node, fromMs: o.fromUs / 1000, toMs: null, vips: o.vips });
      return {
        incidents: list.length,
        latencyMs: { p50: quantile(lat, 0.5), p95: quantile(lat, 0.95), p99: quantile(lat, 0.99), max: lat.length ? lat[lat.length - 1]! : null },
        vipUnavailableMs: unavailableUs / 1000,
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
        exposure: {
          windows,
          totalMs: windows.reduce((a, w) => a + ((w.toMs ?? endUs / 1000) - w.fromMs), 0),
        },
      };
    },
  };
}
