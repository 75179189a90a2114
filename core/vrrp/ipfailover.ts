import { ClusterConfigError, type VrrpInstanceSpec } from './instance-spec.ts';
import type { TrackSpec } from './track.ts';

/**
 * OpenShift ipfailover's keepalived config generator, modelled (images/ipfailover/keepalived/lib/
 * config-generators.sh and utils.sh): one VRRP instance per VIP, virtual_router_id = offset + 1, 2, …,
 * VRRPv2 with a 1 s advert, a TCP-connect check of the node's own watch port with weight 0, rise = fall = 1,
 * and priorities spread by the "ipslot" heuristic, whose random part ($RANDOM % 32) comes from `draw32`.
 */
export interface IpfailoverOptions {
  virtualIps: string;
  vrrpIdOffset: number;
  watchPort: number;
  checkIntervalMs: number;
  preemption: string;
  replicas?: number;
  /** OPENSHIFT_HA_VIP_GROUPS: that many instances share the VIPs; 0 (or absent) for one instance per VIP. */
  vipGroups?: number;
}

/**
 * The VIPs of each instance, as config-generators.sh deals them out: with `groups` > 0, ⌊n / groups⌋ each
 * and one more for the first n mod groups; otherwise one each.
 */
export function groupVips(vips: readonly string[], groups: number): string[][] {
  let perGroup = 1;
  let extra = 0;
  if (groups > 0) {
    perGroup = Math.floor(vips.length / groups);
    extra = vips.length % groups;
  }
  const out: string[][] = [];
  for (let i = 0; i < vips.length; ) {
    let n = perGroup;
    if (extra > 0) {
      n++;
      extra--;
    }
    out.push(vips.slice(i, i + n));
    i += n;
  }
  return out;
}

const KEY = 'cluster.ipfailover';

/** Expand "10.0.2.100-102,10.0.2.42" (comma or space separated; a range varies the last octet). */
export function expandVirtualIps(text: string, key = `${KEY}.virtualIps`): string[] {
  const out: string[] = [];
  for (const item of text.split(/[\s,]+/).filter((s) => s.length > 0)) {
    const parts = item.split('-');
    if (parts.length > 2) throw new ClusterConfigError(key, `'${item}': a range has exactly one '-'`);
    const first = parts[0]!;
    const octets = first.split('.');
    if (octets.length !== 4 || !octets.every(isOctet)) throw new ClusterConfigError(key, `'${item}': '${first}' is not an IPv4 address`);
    if (parts.length === 1) {
      out.push(first);
      continue;
    }
    const endText = parts[1]!.split('.').pop()!;
    if (!isOctet(endText)) throw new ClusterConfigError(key, `'${item}': range end '${parts[1]}' is not an octet`);
    const start = Number(octets[3]);
    const end = Number(endText);
    if (end < start) throw new ClusterConfigError(key, `'${item}': range end ${end} is before its start ${start}`);
    const base = octets.slice(0, 3).join('.');
    for (let n = start; n <= end; n++) out.push(`${base}.${n}`);
  }
  if (out.length === 0) throw new ClusterConfigError(key, 'no virtual IPs');
  const seen = new Set<string>();
  for (const ip of out) {
    if (seen.has(ip)) throw new ClusterConfigError(key, `duplicate virtual IP ${ip}`);
    seen.add(ip);
  }
  return out;
}

function isOctet(s: string): boolean {
  return /^\d{1,3}$/.test(s) && Number(s) <= 255;
}

/** "preempt_delay 300" (seconds), "preempt" or "nopreempt". */
export function parsePreemption(text: string, key = `${KEY}.preemption`): { preempt: boolean; preemptDelayMs: number } {
  const t = text.trim();
  if (t === 'nopreempt') return { preempt: false, preemptDelayMs: 0 };
  if (t === 'preempt' || t === '') return { preempt: true, preemptDelayMs: 0 };
  const m = /^preempt_delay\s+(\d+)$/.exec(t);
  if (m) {
    const s = Number(m[1]);
    if (s > 1000) throw new ClusterConfigError(key, `preempt_delay ${s} is outside 0..1000 s`);
    return { preempt: true, preemptDelayMs: s * 1000 };
  }
  throw new ClusterConfigError(key, `'${text}': expected "preempt_delay N", "preempt" or "nopreempt"`);
}

export interface NodePriority {
  priority: number;
  /** The generator marked this node `state MASTER` for the instance. */
  preferredMaster: boolean;
}

/**
 * The generator's priorities for one node over `count` instances: ipslot = last octet mod 128,
 * idx = ipslot mod replicas + 1; instance c (1-based) with c mod idx = 0 is a preferred master with priority
 * 255 − ipslot, or ipslot + 1 when the previous preferred instance took 255 − ipslot (flip-flop); every other
 * instance gets ipslot mod 64 + random(0..31). One draw per instance, as $RANDOM is read for each.
 */
/** VRRP_PRIO_DFL: what keepalived uses for a priority outside 1..255. */
const KEEPALIVED_DEFAULT_PRIORITY = 100;

export function nodePriorities(ip: string, count: number, replicas: number, draw32: () => number, nopreempt = false): NodePriority[] {
  const ipslot = Number(ip.split('.')[3]) % 128;
  const idx = (ipslot % Math.max(1, replicas)) + 1;
  let previous: 'none' | 'master' | 'flip-flop' = 'none';
  const out: NodePriority[] = [];
  for (let c = 1; c <= count; c++) {
    const offset = draw32();
    let priority = (ipslot % 64) + offset;
    let preferredMaster = false;
    if (c % idx === 0) {
      // Under nopreempt the generator writes no `state MASTER` (keepalived would drop nopreempt for it), and
      // since "previous" then never reads "master", no priority flip-flops either (OCPBUGS-33629).
      preferredMaster = !nopreempt;
      if (previous === 'master') {
        priority = ipslot + 1;
        previous = 'flip-flop';
      } else {
        priority = 255 - ipslot;
        previous = nopreempt ? 'none' : 'master';
      }
    }
    out.push({ priority, preferredMaster });
  }
  return out;
}

/** The generated instances for these nodes. `draw32For(node)` gives that node's own $RANDOM % 32 sequence. */
export function expandIpfailover(
  opts: IpfailoverOptions,
  nodes: readonly { name: string; ip: string }[],
  draw32For: (node: string) => () => number,
): VrrpInstanceSpec[] {
  const vips = expandVirtualIps(opts.virtualIps);
  const groups = groupVips(vips, opts.vipGroups ?? 0);
  const lastId = opts.vrrpIdOffset + groups.length;
  if (lastId > 255)
    throw new ClusterConfigError(
      `${KEY}.virtualIps`,
      `${groups.length} VRRP instances from vrrpIdOffset ${opts.vrrpIdOffset} need VRRP ids up to ${lastId}; at most 255 ids exist`,
    );
  const { preempt, preemptDelayMs } = parsePreemption(opts.preemption);
  const track: TrackSpec[] =
    opts.watchPort === 0
      ? []
      : [{ script: 'router-check', weight: 0, rise: 1, fall: 1, intervalMs: Math.max(1, Math.floor(opts.checkIntervalMs / 1000)) * 1000 }];
  const replicas = opts.replicas ?? nodes.length;
  const specs: VrrpInstanceSpec[] = groups.map((group, i) => ({
    vip: group[0]!,
    ...(group.length > 1 ? { moreVips: group.slice(1) } : {}),
    vrid: opts.vrrpIdOffset + i + 1,
    priorities: {},
    preempt,
    preemptDelayMs,
    track,
    initialMasterNodes: [],
  }));
  for (const node of nodes) {
    const prios = nodePriorities(node.ip, groups.length, replicas, draw32For(node.name), !preempt);
    prios.forEach((p, i) => {
      // A node whose address ends in .0 or .128 draws priority 0 one time in 32: keepalived's
      // vrrp_prio_handler refuses it and uses its default, 100 (which makes that node the first backup).
      const priority = p.priority < 1 || p.priority > 255 ? KEEPALIVED_DEFAULT_PRIORITY : p.priority;
      specs[i]!.priorities[node.name] = priority;
      // The generator writes no state line for the others: keepalived then derives MASTER from priority 255.
      if (p.preferredMaster || priority === 255) specs[i]!.initialMasterNodes.push(node.name);
    });
  }
  return specs;
}
