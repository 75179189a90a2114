import type { VrrpVersion } from './timers.ts';
import type { TrackSpec } from './track.ts';

/** A VRRP instance as configured, for every node that runs it (resolved from either configuration form). */
export interface VrrpInstanceSpec {
  vip: string;
  /** The instance's other VIPs, which move with `vip` (ipfailover's OPENSHIFT_HA_VIP_GROUPS). */
  moreVips?: string[];
  vrid: number;
  /** Base priority per node name. */
  priorities: Record<string, number>;
  preempt: boolean;
  preemptDelayMs: number;
  track: TrackSpec[];
  /**
   * Nodes whose keepalived wants to start as MASTER: `state MASTER` in the config (ipfailover's preferred
   * masters), or no state line and priority 255. keepalived ≥ 2.0 starts a non-owner of them in BACKUP anyway,
   * an owner as master at once, and clears `nopreempt` and `preempt_delay` for them.
   */
  initialMasterNodes: string[];
  /** The instance's own VRRP version and advert interval (µs, as keepalived uses it); absent: the cluster's. */
  version?: VrrpVersion;
  advertIntervalUs?: number;
}

/** A node's own settings that override its instances' (a node that joins with its own keepalived.conf). */
export interface NodeOverrides {
  priority?: number;
  preempt?: boolean;
  preemptDelayMs?: number;
}

/**
 * Preemption as one node's keepalived runs it at base priority `priority`: vrrp_complete_instance clears
 * `nopreempt` for an address owner (priority 255: "nopreempt is incompatible with priority 255"), and both
 * `nopreempt` and `preempt_delay` for `state MASTER`.
 */
export function preemptionFor(spec: VrrpInstanceSpec, node: string, own: NodeOverrides = {}, priority = 0): { preempt: boolean; preemptDelayMs: number } {
  if (spec.initialMasterNodes.includes(node)) return { preempt: true, preemptDelayMs: 0 };
  return { preempt: priority === 255 || (own.preempt ?? spec.preempt), preemptDelayMs: own.preemptDelayMs ?? spec.preemptDelayMs };
}

/** A configuration value that cannot be run; `key` is the dotted path of the offending setting. */
export class ClusterConfigError extends Error {
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key}: ${detail}`);
    this.name = 'ClusterConfigError';
  }
}

export function ipToUint32(ip: string): number {
  const p = ip.split('.');
  return ((Number(p[0]) << 24) >>> 0) + (Number(p[1]) << 16) + (Number(p[2]) << 8) + Number(p[3]);
}

/** Every VIP the instance holds, `vip` first. */
export function vipsOf(spec: VrrpInstanceSpec): readonly string[] {
  return spec.moreVips === undefined ? [spec.vip] : [spec.vip, ...spec.moreVips];
}
