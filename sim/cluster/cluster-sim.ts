import { isChurnEvent, type InputEvent } from '../../core/events.ts';
import type { NodeOverrides } from '../../core/vrrp/instance-spec.ts';
import { Network } from '../network/network.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RandomStreams } from '../random-streams.ts';
import { msToUs, type Scheduler } from '../scheduler.ts';
import type { NodeRt } from '../vrrp/instance.ts';
import { VrrpWorld, type VrrpCounters } from '../vrrp/vrrp-world.ts';
import { vipsOf } from '../../core/vrrp/instance-spec.ts';
import type { ClusterConfig } from './cluster-schema.ts';
import { resolveCluster, type ResolvedCluster } from './resolve.ts';

/**
 * The keepalived cluster as one component of a run: give it the parsed `cluster` section, the engine's
 * scheduler, the run's random streams and the output sink. `start()` at time 0 boots every node;
 * `onEvent` applies node, router and network events (churn events are ignored); `finish()` emits the totals.
 *
 * Random streams used: `net/<from>-><to>` (per directed link: loss, jitter), `vrrp/script-phase/<node>`,
 * `vrrp/ipfailover-priority/<node>`.
 */
export class ClusterSim {
  readonly resolved: ResolvedCluster;
  readonly world: VrrpWorld;

  constructor(
    cluster: ClusterConfig,
    private readonly scheduler: Scheduler,
    streams: RandomStreams,
    private readonly emit: (r: OutputRecord) => void,
  ) {
    this.resolved = resolveCluster(cluster, streams);
    const net = cluster.network;
    const network = new Network({ delayUs: msToUs(net.delayMs), jitterUs: msToUs(net.jitterMs), loss: net.loss }, streams);
    this.world = new VrrpWorld(this.resolved, scheduler, streams, network, emit);
    for (const n of this.resolved.nodes) this.world.addNode(n.name, n.ip);
    for (const l of net.links) {
      const a = this.world.byName.get(l.from)!.id;
      const b = this.world.byName.get(l.to)!.id;
      const params = {
        ...(l.delayMs !== undefined && { delayUs: msToUs(l.delayMs) }),
        ...(l.jitterMs !== undefined && { jitterUs: msToUs(l.jitterMs) }),
        ...(l.loss !== undefined && { loss: l.loss }),
      };
      network.setParams(a, b, params);
      if (!l.oneWay) network.setParams(b, a, params);
    }
    if (this.resolved.unicast) {
      const all = this.world.nodes.map((n) => n.id);
      for (const n of this.world.nodes) n.peers = all.filter((id) => id !== n.id);
    }
  }

  start(): void {
    for (const n of this.world.nodes) this.world.startNode(n, 'start');
  }

  onEvent(e: InputEvent): void {
    if (isChurnEvent(e)) return;
    const w = this.world;
    const node = 'node' in e ? w.byName.get(e.node) : undefined;
    if ('node' in e && node === undefined && e.type !== 'node.join') {
      this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message: `${e.type}: no cluster node '${e.node}'; ignored` });
      return;
    }
    switch (e.type) {
      case 'node.fail':
        if (node) w.clearStale(node, e.type), w.crashNode(node, e.type);
        return;
      case 'node.shutdown':
        if (node) w.clearStale(node, e.type), w.shutdownNode(node, e.type);
        return;
      case 'keepalived.crash':
        if (node && !w.crashKeepalived(node, e.type)) this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message: `${e.type}: keepalived is not running on '${e.node}'; ignored` });
        return;
      case 'keepalived.restart':
        if (node?.alive || node?.member === false) this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message: `${e.type}: ${node.alive ? 'keepalived already runs' : 'left the cluster'} on '${e.node}'; ignored` });
        else if (node) w.startNode(node, e.type);
        return;
      case 'node.recover':
        if (node) w.startNode(node, e.type);
        return;
      case 'router.fail':
      case 'router.recover':
        if (node) w.setRouter(node, e.type === 'router.recover');
        return;
      case 'script.fail':
      case 'script.recover':
        if (node && !w.setScriptFailing(node, e.script, e.type === 'script.fail')) {
          this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message: `${e.type}: node '${e.node}' tracks no script '${e.script}'; ignored` });
        }
        return;
      case 'keepalived.reload':
        if (node) this.reload(node, e);
        return;
      case 'link.down':
      case 'link.up':
        if (node) w.setCarrier(node, e.type === 'link.up', e.type);
        return;
      case 'node.stall':
        if (node) w.stallNode(node, msToUs(e.durationMs));
        return;
      case 'node.join':
        return this.join(e.node, e.ip, { priority: e.priority, preempt: e.preempt, preemptDelayMs: e.preemptDelayMs });
      case 'node.leave':
        if (node) this.leave(node.name);
        return;
      case 'network.partition': {
        for (const n of new Set(e.groups.flat())) {
          if (!w.byName.has(n)) this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message: `${e.type}: no cluster node '${n}'; left out of the groups` });
        }
        const groups = e.groups.map((g) => g.map((n) => w.byName.get(n)?.id).filter((id): id is number => id !== undefined));
        w.network.partition(groups, e.oneWay ?? false);
        return;
      }
      case 'network.heal':
        w.network.heal();
        return;
    }
  }

  /**
   * A node joins. Multicast: it hears and is heard at once. Unicast: its own config lists every member, but
   * the others send to it only once their configs are regenerated (`membership.configRegenDelayMs`); until
   * then it cannot hear any master, so every instance it runs is exposed (it will claim the VIP).
   */
  private join(name: string, ip: string, own: NodeOverrides): void {
    const w = this.world;
    const now = this.scheduler.nowUs;
    // What a join cannot mean is said, never silently changed: the name or the address is already taken.
    const warn = (message: string): void => this.emit({ atUs: now, type: 'warning', message: `node.join ${name} ${ip}: ${message}` });
    const existing = w.byName.get(name);
    if (existing) {
      if (existing.member) return warn(`'${name}' is already a member of the cluster; ignored`);
      if (existing.ip !== ip) warn(`'${name}' rejoins at its first address ${existing.ip}; a node keeps its address`);
      existing.member = true;
      w.startNode(existing, 'node.join');
      return;
    }
    const owner = w.nodes.find((n) => n.ip === ip);
    if (owner !== undefined) return warn(`the address is node '${owner.name}''s; not joined`);
    if (this.resolved.instances.some((spec) => vipsOf(spec).includes(ip))) return warn('the address is one of the cluster\'s virtual IPs; not joined');
    const node = w.addNode(name, ip, own);
    this.emit({
      atUs: now,
      type: 'vrrp.membership',
      node: name,
      change: 'join',
      ip,
      ...(own.priority !== undefined && { priority: own.priority }),
      ...(own.preempt !== undefined && { preempt: own.preempt }),
      ...(own.preemptDelayMs !== undefined && { preemptDelayMs: own.preemptDelayMs }),
    });
    if (this.resolved.unicast) {
      node.peers = w.nodes.filter((n) => n.member && n !== node).map((n) => n.id);
      let vips = 0;
      for (const i of node.instances) if (i !== undefined) vips += i.vips.length;
      this.emit({ atUs: now, type: 'vrrp.exposure', node: name, open: true, vips });
      this.scheduler.after(this.resolved.configRegenDelayUs, () => {
        for (const other of w.nodes) if (other !== node && other.peers && !other.peers.includes(node.id)) other.peers.push(node.id);
        this.emit({ atUs: this.scheduler.nowUs, type: 'vrrp.membership', node: name, change: 'peers-updated' });
        this.emit({ atUs: this.scheduler.nowUs, type: 'vrrp.exposure', node: name, open: false, vips });
      });
    } else {
      node.peers = null;
    }
    w.startNode(node, 'node.join');
  }

  /**
   * keepalived.reload: a new priority and/or new VIP lists. What the node's keepalived.conf could not say is a
   * warning and left out: a vrid the node runs no instance of, a VIP that is a node's address or another of
   * the node's instances' VIP.
   */
  private reload(node: NodeRt, e: Extract<InputEvent, { type: 'keepalived.reload' }>): void {
    const w = this.world;
    const warn = (message: string): void => this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message: `keepalived.reload ${node.name}: ${message}` });
    let vips: Map<number, readonly string[]> | undefined;
    for (const r of e.instances ?? []) {
      const inst = node.instances.find((i) => i?.spec.vrid === r.vrid);
      if (inst === undefined) {
        warn(`the node runs no instance with vrid ${r.vrid}; left out`);
        continue;
      }
      const owner = w.nodes.find((n) => r.vips.includes(n.ip));
      const other = node.instances.find((i) => i !== undefined && i !== inst && i.vips.some((v) => r.vips.includes(v)));
      if (owner !== undefined) warn(`vrid ${r.vrid}: ${owner.ip} is node '${owner.name}''s address; left out`);
      else if (other !== undefined) warn(`vrid ${r.vrid}: ${other.vips.find((v) => r.vips.includes(v))} is a VIP of vrid ${other.spec.vrid}; left out`);
      else (vips ??= new Map()).set(r.vrid, [...r.vips]);
    }
    if (e.priority !== undefined || vips !== undefined) w.reloadNode(node, e.priority, vips, e.type);
  }

  /** A node leaves: keepalived stops gracefully; unicast peers keep sending to it until regenerated. */
  private leave(name: string): void {
    const w = this.world;
    const node = w.byName.get(name)!;
    w.clearStale(node, 'node.leave');
    w.shutdownNode(node, 'node.leave');
    node.member = false;
    this.emit({ atUs: this.scheduler.nowUs, type: 'vrrp.membership', node: name, change: 'leave' });
    if (this.resolved.unicast) {
      this.scheduler.after(this.resolved.configRegenDelayUs, () => {
        for (const other of w.nodes) if (other.peers) other.peers = other.peers.filter((id) => id !== node.id);
        this.emit({ atUs: this.scheduler.nowUs, type: 'vrrp.membership', node: name, change: 'peers-updated' });
      });
    }
  }

  counters(): Readonly<VrrpCounters> {
    return this.world.counters;
  }

  finish(): void {
    const c = this.world.counters;
    this.emit({
      atUs: this.scheduler.nowUs,
      type: 'vrrp.stats',
      advertsSent: c.advertsSent,
      packetsSent: c.packetsSent,
      deliveries: c.deliveries,
      dropped: c.dropped,
      mode: this.resolved.unicast ? 'unicast' : 'multicast',
      nodes: this.world.nodes.filter((n) => n.member).length,
      instances: this.world.groups.length,
      intervalDrops: c.intervalDrops,
    });
  }
}
