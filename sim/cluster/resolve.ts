import { expandIpfailover, nodePriorities } from '../../core/vrrp/ipfailover.ts';
import type { VrrpInstanceSpec } from '../../core/vrrp/instance-spec.ts';
import { effectiveAdvertIntervalUs, type VrrpVersion } from '../../core/vrrp/timers.ts';
import type { RandomStreams } from '../random-streams.ts';
import type { ClusterConfig } from './cluster-schema.ts';

/** Everything the VRRP simulation needs, both configuration forms reduced to one. */
export interface ResolvedCluster {
  nodes: { name: string; ip: string }[];
  version: VrrpVersion;
  advertIntervalUs: number;
  /** Misconfigured nodes' own interval. */
  advertIntervalUsByNode: Record<string, number>;
  downTimerAdverts: number;
  garpMasterDelayUs: number;
  unicast: boolean;
  configRegenDelayUs: number;
  instances: VrrpInstanceSpec[];
  /** Base priority of `node` (at `ip`) for instance `index`, also for nodes that join later. */
  priorityFor: (node: string, ip: string, index: number) => number;
}

/** The stream behind ipfailover's $RANDOM for one node: `vrrp/ipfailover-priority/<node>`. */
export function ipfailoverStreamName(node: string): string {
  return `vrrp/ipfailover-priority/${node}`;
}

export function resolveCluster(c: ClusterConfig, streams: RandomStreams): ResolvedCluster {
  const k = c.keepalived;
  const ipf = c.ipfailover;
  const draw32For = (node: string) => {
    const s = streams.get(ipfailoverStreamName(node));
    return () => s.int(32);
  };
  let instances: VrrpInstanceSpec[];
  let priorityFor: ResolvedCluster['priorityFor'];
  if (ipf) {
    instances = expandIpfailover(ipf, c.nodes, draw32For);
    const replicas = ipf.replicas ?? c.nodes.length;
    const joined = new Map<string, number[]>();
    priorityFor = (node, ip, index) => {
      const known = instances[index]!.priorities[node];
      if (known !== undefined) return known;
      let list = joined.get(node);
      if (!list) {
        list = nodePriorities(ip, instances.length, replicas, draw32For(node)).map((p) => p.priority);
        joined.set(node, list);
      }
      return list[index]!;
    };
  } else {
    instances = k.instances.map((i) => {
      const spec: VrrpInstanceSpec = {
        vip: i.vip,
        vrid: i.vrid,
        priorities: { ...i.priorities },
        preempt: i.preempt,
        preemptDelayMs: i.preemptDelayMs,
        track: i.track.map((t) => ({ ...t })),
        initialMasterNodes: [...i.masterNodes],
      };
      if (i.version !== undefined) spec.version = i.version;
      if (i.version !== undefined || i.advertIntervalMs !== undefined) {
        spec.advertIntervalUs = effectiveAdvertIntervalUs(i.version ?? k.version, i.advertIntervalMs ?? k.advertIntervalMs);
      }
      return spec;
    });
    priorityFor = (node, _ip, index) => instances[index]!.priorities[node] ?? k.defaultPriority;
  }
  // ipfailover generates VRRPv2 with a 1 s advert; the keepalived section still sets the other timers.
  const version: VrrpVersion = ipf ? 2 : k.version;
  const intervalMs = ipf ? 1000 : k.advertIntervalMs;
  const byNode: Record<string, number> = {};
  for (const [node, ms] of Object.entries(k.advertIntervalMsByNode)) byNode[node] = effectiveAdvertIntervalUs(version, ms);
  return {
    nodes: c.nodes.map((n) => ({ name: n.name, ip: n.ip })),
    version,
    advertIntervalUs: effectiveAdvertIntervalUs(version, intervalMs),
    advertIntervalUsByNode: byNode,
    downTimerAdverts: k.downTimerAdverts,
    garpMasterDelayUs: k.garpMasterDelayMs * 1000,
    unicast: ipf ? ipf.unicastPeers : k.unicast,
    configRegenDelayUs: c.membership.configRegenDelayMs * 1000,
    instances,
    priorityFor,
  };
}
