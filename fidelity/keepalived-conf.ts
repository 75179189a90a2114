import { preemptionFor, vipsOf, type NodeOverrides } from '../core/vrrp/instance-spec.ts';
import type { TrackSpec } from '../core/vrrp/track.ts';
import type { ResolvedCluster } from '../sim/cluster/resolve.ts';

/**
 * A real keepalived.conf for one node of a resolved cluster: the configuration the simulator runs, written the
 * way keepalived 2.2 reads it, so a real keepalived can be run on the same settings (fidelity/netns-harness.ts).
 * Pure: no I/O; the check script commands come from the caller.
 *
 * Mapping (ResolvedCluster → keepalived.conf):
 * - version → `global_defs { vrrp_version }`; one `vrrp_instance VI_<vrid>` per VIP, `state MASTER` on the
 *   instance's initialMasterNodes and `state BACKUP` elsewhere (keepalived ≥ 2.0 starts a non-owner
 *   `state MASTER` in BACKUP anyway and applies preemption on, no delay, which preemptionFor also gives);
 *   an instance's own version → `version` inside its block.
 * - the node's own interval (advertIntervalUsByNode), else the instance's, else advertIntervalUs →
 *   `advert_int` in seconds (v2 whole seconds, v3 centiseconds); downTimerAdverts → `down_timer_adverts`
 *   when not the default 3.
 * - priorityFor(node, ip, index) → `priority`; preempt false → `nopreempt`; preemptDelayMs → `preempt_delay`.
 * - garpMasterDelayUs → `garp_master_delay` (whole seconds; 0 = no second burst).
 * - unicast → `unicast_src_ip` + `unicast_peer` listing every other node.
 * - track scripts → one `vrrp_script` per script name (the first spec of that name, as the simulator keeps one
 *   status per script and node) with interval, weight, fall, rise, and `track_script` in each instance.
 */
export interface KeepalivedConfOptions {
  /** The VRRP interface in the node's namespace. */
  interfaceName?: string;
  /** The command a `vrrp_script` runs for this node; default `/bin/true` (always succeeds). */
  scriptCommand?: (script: string, node: string) => string;
  /** `script_user` in global_defs (Debian has no keepalived_script user); default root. */
  scriptUser?: string;
  /** The node's own priority and preemption (a `node.join` event's), over the instances'. */
  own?: NodeOverrides;
  /** VIP lists by vrid over the instances' (a `keepalived.reload` event's `instances`). */
  vipsByVrid?: ReadonlyMap<number, readonly string[]>;
}

export function keepalivedScriptName(script: string): string {
  return `chk_${script.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

export function keepalivedInstanceName(vrid: number): string {
  return `VI_${vrid}`;
}

/** Seconds as keepalived reads them, without float noise: 1000 ms → "1", 1500 → "1.5", 10 → "0.01". */
function seconds(us: number): string {
  return String(Math.round(us / 1000) / 1000);
}

function assertPrecondition(ok: boolean, message: string): void {
  if (!ok) throw new Error(`keepalived-conf: ${message}`);
}

export function renderKeepalivedConf(cluster: ResolvedCluster, nodeName: string, opts: KeepalivedConfOptions = {}): string {
  const node = cluster.nodes.find((n) => n.name === nodeName);
  assertPrecondition(node !== undefined, `unknown node '${nodeName}'`);
  const self = node!;
  const iface = opts.interfaceName ?? 'eth0';
  const scriptCommand = opts.scriptCommand ?? (() => '/bin/true');
  const nodeAdvertUs = cluster.advertIntervalUsByNode[self.name];
  assertPrecondition(cluster.garpMasterDelayUs % 1_000_000 === 0, `garp_master_delay must be whole seconds, got ${cluster.garpMasterDelayUs} µs`);

  const out: string[] = [];
  out.push(`# Rendered by routerbench (fidelity/keepalived-conf.ts) for node ${self.name} (${self.ip}).`);
  out.push('global_defs {');
  out.push(`  router_id ${self.name}`);
  out.push(`  vrrp_version ${cluster.version}`);
  out.push(`  script_user ${opts.scriptUser ?? 'root'}`);
  out.push('  enable_script_security');
  out.push('}');

  const scripts = new Map<string, TrackSpec>();
  for (const spec of cluster.instances) for (const t of spec.track) if (!scripts.has(t.script)) scripts.set(t.script, t);
  for (const [script, t] of scripts) {
    out.push('');
    out.push(`vrrp_script ${keepalivedScriptName(script)} {`);
    out.push(`  script "${scriptCommand(script, self.name)}"`);
    out.push(`  interval ${seconds(t.intervalMs * 1000)}`);
    out.push(`  weight ${t.weight}`);
    out.push(`  fall ${t.fall}`);
    out.push(`  rise ${t.rise}`);
    out.push('}');
  }

  const peers = cluster.nodes.filter((n) => n.name !== self.name);
  cluster.instances.forEach((spec, index) => {
    const { preempt, preemptDelayMs } = preemptionFor(spec, self.name, opts.own);
    const version = spec.version ?? cluster.version;
    const advertUs = nodeAdvertUs ?? spec.advertIntervalUs ?? cluster.advertIntervalUs;
    assertPrecondition(version === 3 || advertUs % 1_000_000 === 0, `v2 advert interval must be whole seconds, got ${advertUs} µs`);
    out.push('');
    out.push(`vrrp_instance ${keepalivedInstanceName(spec.vrid)} {`);
    out.push(`  state ${spec.initialMasterNodes.includes(self.name) ? 'MASTER' : 'BACKUP'}`);
    out.push(`  interface ${iface}`);
    out.push(`  virtual_router_id ${spec.vrid}`);
    if (version !== cluster.version) out.push(`  version ${version}`);
    out.push(`  priority ${opts.own?.priority ?? cluster.priorityFor(self.name, self.ip, index)}`);
    out.push(`  advert_int ${seconds(advertUs)}`);
    if (cluster.downTimerAdverts !== 3) out.push(`  down_timer_adverts ${cluster.downTimerAdverts}`);
    if (!preempt) out.push('  nopreempt');
    else if (preemptDelayMs > 0) out.push(`  preempt_delay ${seconds(preemptDelayMs * 1000)}`);
    out.push(`  garp_master_delay ${cluster.garpMasterDelayUs / 1_000_000}`);
    if (cluster.unicast) {
      out.push(`  unicast_src_ip ${self.ip}`);
      out.push('  unicast_peer {');
      for (const p of peers) out.push(`    ${p.ip}`);
      out.push('  }');
    }
    out.push('  virtual_ipaddress {');
    for (const vip of opts.vipsByVrid?.get(spec.vrid) ?? vipsOf(spec)) out.push(`    ${vip}/32 dev ${iface}`);
    out.push('  }');
    if (spec.track.length > 0) {
      out.push('  track_script {');
      for (const t of spec.track) out.push(`    ${keepalivedScriptName(t.script)}`);
      out.push('  }');
    }
    out.push('}');
  });
  return out.join('\n') + '\n';
}
