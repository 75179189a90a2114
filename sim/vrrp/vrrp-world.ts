import { transition } from 'xstate';
import { fastBackupAdvert, startBackupContext } from '../../core/vrrp/fast-path.ts';
import { contextMasterDownUs, vrrpMachine, type VrrpEvent, type VrrpState } from '../../core/vrrp/machine.ts';
import { preemptionFor, vipsOf, type NodeOverrides } from '../../core/vrrp/instance-spec.ts';
import type { ResolvedCluster } from '../cluster/resolve.ts';
import { DROPPED, type Network } from '../network/network.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RandomStreams } from '../random-streams.ts';
import type { Scheduler } from '../scheduler.ts';
import { GroupedDownTimers } from './down-timers.ts';
import { newNodeRt, type Advert, type InstanceRt, type NodeRt, type StaleVip } from './instance.ts';
import { PRIME_US, primeDoubleFields } from './prime-doubles.ts';
import { holdAdvert, takeHeld } from './stalled-socket.ts';
import { priorityView, TrackedScripts } from './tracked-scripts.ts';

export interface VrrpCounters {
  advertsSent: number;
  packetsSent: number;
  deliveries: number;
  dropped: number;
  intervalDrops: number;
  /** Adverts discarded on receipt because the sender's VIP list differs from the receiver's (after a reload). */
  addressDrops: number;
  /** Adverts handled by the fast path / by the machine (for the benchmark). */
  fastAdverts: number;
  slowEvents: number;
}

/**
 * keepalived on every node, driven by the engine's clock. Machine actions become engine timers and packets;
 * the two hot paths (a backup hearing its master, a master's advert timer) skip `transition()` because they
 * provably do what the machine would (core/vrrp/fast-path.ts and its test).
 *
 * Fast-path adverts are not queued as events: the receiver keeps the arrival in `pendAtUs` and applies it at
 * its next event of any kind (or re-routes it through a real delivery event if that next event comes first).
 * Since nothing else touches the instance in between, the result is the same as delivering it on time. It
 * keeps the place in the order of same-microsecond events that its delivery event would have had
 * (Scheduler.reserve), so that two adverts arriving together are read in the order they were sent.
 */
export class VrrpWorld {
  readonly nodes: NodeRt[] = [];
  readonly byName = new Map<string, NodeRt>();
  /** instances[vipIndex][nodeId] */
  readonly groups: (InstanceRt | undefined)[][];
  /**
   * false: every advert, advert timer and down timer goes through the machine (no pending adverts, no
   * shortcuts). For tests that compare the two; the output log must be the same.
   */
  fastPaths = true;
  readonly counters: VrrpCounters = { advertsSent: 0, packetsSent: 0, deliveries: 0, dropped: 0, intervalDrops: 0, addressDrops: 0, fastAdverts: 0, slowEvents: 0 };

  constructor(
    readonly cluster: ResolvedCluster,
    private readonly sched: Scheduler,
    streams: RandomStreams,
    readonly network: Network,
    private readonly emit: (r: OutputRecord) => void,
  ) {
    this.groups = cluster.instances.map(() => []);
    this.downTimers = new GroupedDownTimers(sched, cluster.instances.length, (vi) => this.downTimerFired(vi));
    this.scripts = new TrackedScripts(
      sched,
      streams,
      (node, epoch, fn) => this.fireNodeTimer(node, epoch, fn),
      (node, script) => this.scriptChanged(node, script),
    );
    // Same for the engine's queue entries: one cancelled far-future entry makes their time field a double.
    sched.cancel(sched.at(PRIME_US, () => {}));
  }

  private readonly downTimers: GroupedDownTimers;
  private readonly scripts: TrackedScripts;

  // ---- nodes -------------------------------------------------------------------------------------------

  addNode(name: string, ip: string, own: NodeOverrides = {}): NodeRt {
    const node = newNodeRt(this.network.addNode(name), name, ip, this.cluster, own);
    node.instances.forEach((inst, vi) => {
      if (!inst) return;
      inst.onAdvertTimer = () => this.advertTimerDue(inst);
      this.groups[vi]![node.id] = inst;
    });
    this.nodes.push(node);
    this.byName.set(name, node);
    return node;
  }

  /** Start keepalived on a node: run every script once, then START each instance with its effective priority. */
  startNode(node: NodeRt, cause: string): void {
    if (node.alive || !node.member) return;
    if (node.stale.length > 0) this.clearStale(node, cause);
    node.alive = true;
    node.stalledUntilUs = 0;
    // keepalived reads the interface's state as it starts.
    node.linkDown = !this.network.hasCarrier(node.id);
    const now = this.sched.nowUs;
    this.scripts.start(node);
    this.emit({ atUs: now, type: 'vrrp.node', node: node.name, live: true, cause });
    for (const inst of node.instances) {
      if (!inst) continue;
      const view = priorityView(inst);
      const fault = view.fault || node.linkDown;
      if (view.priority !== inst.ctx.priority) this.step(inst, { type: 'SET_PRIORITY', nowUs: now, priority: view.priority }, cause);
      const backup = this.fastPaths && inst.state === 'INIT' ? startBackupContext(inst.ctx, now, fault) : null;
      if (backup === null) {
        this.step(inst, { type: 'START', nowUs: now, fault }, cause);
        continue;
      }
      // START's INIT → BACKUP without transition(): same snapshot, same record, same armDownTimer.
      inst.snap = vrrpMachine.resolveState({ value: 'BACKUP', context: backup });
      inst.ctx = inst.snap.context;
      inst.state = 'BACKUP';
      inst.masterDownUs = contextMasterDownUs(inst.ctx);
      primeDoubleFields(inst.ctx, ['downDeadlineUs', 'preemptAtUs']);
      this.refreshFastTest(inst);
      this.emitState(inst, 'INIT', 'BACKUP', now, cause);
      this.downTimers.arm(inst.vipIndex, backup.downDeadlineUs);
    }
  }

  /** node.fail: keepalived dies silently. */
  crashNode(node: NodeRt, cause: string): void {
    if (!node.alive) return;
    const now = this.sched.nowUs;
    for (const inst of node.instances) if (inst) this.step(inst, { type: 'CRASH', nowUs: now }, cause);
    this.stopNode(node, cause);
  }

  /**
   * keepalived.crash: the process dies as in crashNode (no priority-0 advert), but the host runs on, so the
   * VIPs of its master instances stay on the interface (keepalived 2.2.7, SIGKILL in network namespaces:
   * no address removed; the backup added its own copy on its down timer). False when keepalived was not running.
   */
  crashKeepalived(node: NodeRt, cause: string): boolean {
    if (!node.alive) return false;
    const left: StaleVip[] = [];
    for (const inst of node.instances) if (inst?.state === 'MASTER') for (const vip of inst.vips) left.push({ vrid: inst.spec.vrid, vip });
    this.crashNode(node, cause);
    const now = this.sched.nowUs;
    for (const s of left) {
      node.stale.push(s);
      this.emit({ atUs: now, type: 'vrrp.address', node: node.name, vrid: s.vrid, vip: s.vip, change: 'stale', cause });
    }
    return true;
  }

  /**
   * The stale VIPs go: keepalived removes every VIP of its instances as it starts ("removing VIPs", 16 ms
   * after the start on keepalived 2.2.7), and a host that is lost or shut down takes them with it.
   */
  clearStale(node: NodeRt, cause: string): void {
    const now = this.sched.nowUs;
    for (const s of node.stale) this.emit({ atUs: now, type: 'vrrp.address', node: node.name, vrid: s.vrid, vip: s.vip, change: 'removed', cause });
    node.stale.length = 0;
  }

  /** node.shutdown / node.leave: masters resign with a priority-0 advert, then keepalived stops. */
  shutdownNode(node: NodeRt, cause: string): void {
    if (!node.alive) return;
    const now = this.sched.nowUs;
    if (node.stalledUntilUs > now) return this.crashNode(node, cause);
    for (const inst of node.instances) if (inst) this.step(inst, { type: 'SHUTDOWN', nowUs: now }, cause);
    this.stopNode(node, cause);
  }

  private stopNode(node: NodeRt, cause: string): void {
    node.alive = false;
    node.epoch++;
    node.held.length = 0;
    this.scripts.stop(node);
    for (const inst of node.instances) if (inst) this.clearTimers(inst);
    this.emit({ atUs: this.sched.nowUs, type: 'vrrp.node', node: node.name, live: false, cause });
  }

  /** node.stall: nothing runs on the node for `durationUs`; its timers fire late, packets to it wait in its socket (releaseHeld). */
  stallNode(node: NodeRt, durationUs: number): void {
    if (!node.alive) return;
    const now = this.sched.nowUs;
    for (const inst of node.instances) if (inst) this.settle(inst, now);
    const until = Math.max(node.stalledUntilUs, now + durationUs);
    node.stalledUntilUs = until;
    this.emit({ atUs: now, type: 'vrrp.node', node: node.name, live: false, cause: 'node.stall' });
    const epoch = node.epoch;
    this.sched.at(until, () => {
      if (node.epoch !== epoch || node.stalledUntilUs !== until) return;
      node.stalledUntilUs = 0;
      this.emit({ atUs: this.sched.nowUs, type: 'vrrp.node', node: node.name, live: true, cause: 'stall-end' });
      this.releaseHeld(node);
    });
  }

  setRouter(node: NodeRt, up: boolean): void {
    node.routerUp = up;
  }

  /**
   * link.down / link.up: the node's carrier goes or comes back. The network stops or resumes carrying its
   * packets at once; keepalived hears of it from the kernel (netlink) in the same instant, as modelled (on
   * keepalived 2.2.7 the VIP was gone 6 ms after the `ip link set … down` command returned), and puts
   * every instance in FAULT, or lets it leave FAULT unless a tracked script still holds it there.
   */
  setCarrier(node: NodeRt, up: boolean, cause: string): void {
    this.network.setCarrier(node.id, up);
    if (!node.alive) return;
    // A stalled keepalived reads the kernel's message when it runs again.
    this.fireNodeTimer(node, node.epoch, () => {
      node.linkDown = !this.network.hasCarrier(node.id);
      const now = this.sched.nowUs;
      for (const inst of node.instances) if (inst) this.refreshFault(inst, now, cause);
    });
  }

  /**
   * A reload's new base priority, with the preemption keepalived works out again from it
   * (vrrp_complete_instance runs on every reload: an owner's `nopreempt` is cleared).
   */
  private setBasePriority(node: NodeRt, inst: InstanceRt, priority: number): void {
    inst.ctx.basePriority = priority;
    const p = preemptionFor(inst.spec, node.name, node.own, priority);
    inst.ctx.preempt = p.preempt;
    inst.ctx.preemptDelayUs = p.preemptDelayMs * 1000;
  }

  /**
   * keepalived.reload: the node's keepalived rereads its configuration (SIGHUP): a new base priority on every
   * instance (`priority`), new VIP lists for some (`vips` by vrid), or both. As keepalived 2.2.7 does it
   * (measured in network namespaces): a master sends one last advert with its old priority, then one with the
   * new, and restarts its advert timer; a backup restarts its down timer from the reload with its new
   * priority (3A + Skew); every instance keeps its state. A reload drops the delayed GARP bursts still
   * pending (thread teardown: the garp_master_delay repeat never came). A master whose VIPs changed removes
   * the dropped ones, adds the new ones and sends one GARP burst for all its VIPs ("setting VIPs"), with no
   * delayed repeat; a backup only takes the new list for when it becomes master. A node whose keepalived is
   * not running takes the new settings at its next start.
   */
  reloadNode(node: NodeRt, priority: number | undefined, vips: ReadonlyMap<number, readonly string[]> | undefined, cause: string): void {
    const apply = (): void => {
      const now = this.sched.nowUs;
      for (const inst of node.instances) {
        if (!inst) continue;
        const newVips = vips?.get(inst.spec.vrid);
        if (!node.alive) {
          if (priority !== undefined) this.setBasePriority(node, inst, priority);
          if (newVips !== undefined) this.setVipList(inst, newVips);
          continue;
        }
        this.settle(inst, now);
        inst.garpEpoch++;
        const wasMaster = inst.state === 'MASTER';
        if (wasMaster) this.step(inst, { type: 'ADVERT_TIMER', nowUs: now }, cause);
        if (priority !== undefined) this.setBasePriority(node, inst, priority);
        const view = priorityView(inst);
        if (view.priority !== inst.ctx.priority) this.step(inst, { type: 'SET_PRIORITY', nowUs: now, priority: view.priority }, cause);
        if (newVips !== undefined) this.replaceVips(inst, newVips, now, cause);
        if (wasMaster && inst.state === 'MASTER') {
          this.step(inst, { type: 'ADVERT_TIMER', nowUs: now }, cause);
        } else if (inst.state === 'BACKUP') {
          inst.ctx.downDeadlineUs = now + inst.masterDownUs;
          inst.ctx.downTimerUs = inst.masterDownUs;
          this.downTimers.arm(inst.vipIndex, inst.ctx.downDeadlineUs);
        }
      }
    };
    // A stalled keepalived handles the signal when it runs again.
    if (node.alive) this.fireNodeTimer(node, node.epoch, apply);
    else apply();
  }

  /** VIP sets by instance and sorted address list; 0 is every instance's configured list (vipsOf its spec). */
  private readonly vipSets = new Map<string, number>();

  private setVipList(inst: InstanceRt, vips: readonly string[]): void {
    inst.vips = vips;
    const key = (list: readonly string[]): string => [...list].sort().join(' ');
    const k = key(vips);
    let id = k === key(vipsOf(inst.spec)) ? 0 : this.vipSets.get(`${inst.vipIndex}/${k}`);
    if (id === undefined) this.vipSets.set(`${inst.vipIndex}/${k}`, (id = this.vipSets.size + 1));
    inst.vipSetId = id;
  }

  /** A reload's new VIP list for an instance; a master changes its interface and announces every VIP it holds. */
  private replaceVips(inst: InstanceRt, vips: readonly string[], now: number, cause: string): void {
    const old = inst.vips;
    this.setVipList(inst, vips);
    if (inst.state !== 'MASTER') return;
    const node = inst.node.name;
    const vrid = inst.spec.vrid;
    let changed = false;
    for (const vip of old)
      if (!vips.includes(vip)) {
        changed = true;
        this.emit({ atUs: now, type: 'vrrp.address', node, vrid, vip, change: 'removed', cause });
      }
    for (const vip of vips)
      if (!old.includes(vip)) {
        changed = true;
        this.emit({ atUs: now, type: 'vrrp.address', node, vrid, vip, change: 'added', cause });
      }
    if (changed) for (const vip of vips) this.emit({ atUs: now, type: 'vrrp.garp', node, vrid, vip, reason: 'reload' });
  }

  /** FAULT or not, as the instance's scripts and the node's link say. */
  private refreshFault(inst: InstanceRt, now: number, cause: string): void {
    const fault = priorityView(inst).fault || inst.node.linkDown;
    if (fault && inst.state !== 'FAULT' && inst.state !== 'INIT') this.step(inst, { type: 'FAULT', nowUs: now }, cause);
    else if (!fault && inst.state === 'FAULT') this.step(inst, { type: 'FAULT_CLEAR', nowUs: now }, cause);
  }

  /** The node's tracked `script` fails (or succeeds again) from its next run on; false if the node does not run it. */
  setScriptFailing(node: NodeRt, script: string, failing: boolean): boolean {
    const s = node.scripts.get(script);
    if (s === undefined) return false;
    s.failing = failing;
    return true;
  }

  // ---- tracked scripts ---------------------------------------------------------------------------------

  /** A tracked script's status changed: the instances tracking it take the new priority, or FAULT. */
  private scriptChanged(node: NodeRt, script: string): void {
    const now = this.sched.nowUs;
    for (const inst of node.instances) {
      if (!inst || !inst.spec.track.some((t) => t.script === script)) continue;
      const view = priorityView(inst);
      const cause = `track ${script}`;
      if (view.priority !== inst.ctx.priority) this.step(inst, { type: 'SET_PRIORITY', nowUs: now, priority: view.priority }, cause);
      this.refreshFault(inst, now, cause);
    }
  }

  // ---- the machine and its actions ---------------------------------------------------------------------

  /** Run one event through the machine and carry out what it asks. */
  step(inst: InstanceRt, event: VrrpEvent, cause: string): void {
    this.settle(inst, event.nowUs);
    this.counters.slowEvents++;
    const from = inst.state;
    const [snap, actions] = transition(vrrpMachine, inst.snap, event);
    inst.snap = snap;
    inst.ctx = snap.context;
    inst.state = snap.value as VrrpState;
    this.refreshFastTest(inst);
    inst.masterDownUs = contextMasterDownUs(inst.ctx);
    const to = inst.state;
    if (from !== to) {
      // Delayed GARP bursts stay armed (keepalived never cancels them); one that fires outside MASTER sends
      // nothing, as the VIPs are gone (vrrp_send_link_update).
      if (from === 'MASTER') this.cancel(inst.advertTimer), (inst.advertTimer = null);
      this.emitState(inst, from, to, event.nowUs, cause);
    }
    for (const a of actions) {
      const p = a.params as { priority: number; atUs: number; reason: 'master' | 'repeat' | 'lower-prio' };
      switch (a.type) {
        case 'sendAdvert':
          this.sendAdvert(inst, p.priority);
          break;
        case 'armDownTimer':
          this.downTimers.arm(inst.vipIndex, p.atUs);
          break;
        case 'armAdvertTimer':
          this.armAdvert(inst, p.atUs);
          break;
        case 'armGarpTimer':
          if (p.atUs > event.nowUs) this.armGarp(inst, p.atUs);
          break;
        case 'garp':
          for (const vip of inst.vips) this.emit({ atUs: event.nowUs, type: 'vrrp.garp', node: inst.node.name, vrid: inst.spec.vrid, vip, reason: p.reason });
          break;
        case 'dropAdvert':
          this.counters.intervalDrops++;
          break;
      }
    }
  }

  private emitState(inst: InstanceRt, from: VrrpState, to: VrrpState, atUs: number, cause: string): void {
    // One record per VIP: the reports follow VIPs, and a group's VIPs change hands together.
    for (const vip of inst.vips) this.emit({ atUs, type: 'vrrp.state', node: inst.node.name, vrid: inst.spec.vrid, vip, from, to, priority: inst.ctx.priority, cause });
  }

  /** Precompute fastPathEligible for this state and context (see InstanceRt.fastMinPriority). */
  private refreshFastTest(inst: InstanceRt): void {
    const c = inst.ctx;
    const ok = inst.state === 'BACKUP' && (c.version === 3 || c.masterAdverIntervalUs === c.advertIntervalUs);
    inst.fastMinPriority = ok ? (c.preempt ? Math.max(1, c.priority) : 1) : Infinity;
    inst.fastIntervalUs = ok ? c.masterAdverIntervalUs : -1;
  }

  private clearTimers(inst: InstanceRt): void {
    // Delayed GARP timers die with the node's epoch (nodeTimer).
    this.cancel(inst.advertTimer);
    inst.advertTimer = null;
    inst.pendAtUs = -1;
  }

  private cancel(h: { cancelled: boolean } | null): void {
    if (h) this.sched.cancel(h);
  }

  /**
   * A timer for something running on `node`: dropped if keepalived restarted since, deferred to the end of a
   * stall (a frozen process runs its overdue timers when it wakes).
   */
  private nodeTimer(node: NodeRt, atUs: number, epoch: number, fn: () => void) {
    // An unnamed closure: tsx keeps function names, and a named one costs a defineProperty per timer armed.
    return this.sched.at(atUs, () => this.fireNodeTimer(node, epoch, fn));
  }

  /** The epoch is the one the timer was armed in; a deferred run keeps it (it is no longer the instance's timer). */
  private fireNodeTimer(node: NodeRt, epoch: number, fn: () => void): void {
    if (node.epoch !== epoch) return;
    if (node.stalledUntilUs > this.sched.nowUs) {
      this.sched.at(node.stalledUntilUs, () => this.fireNodeTimer(node, epoch, fn));
      return;
    }
    fn();
  }

  /**
   * A VIP's grouped down timer (down-timers.ts) is due: every backup whose deadline (or the end of its node's
   * stall) has come runs the machine's DOWN_TIMER, and the timer re-arms at the earliest deadline left.
   */
  private downTimerFired(vi: number): void {
    const now = this.sched.nowUs;
    const group = this.groups[vi]!;
    let next = Infinity;
    for (let k = 0; k < group.length; k++) {
      const inst = group[k];
      if (inst === undefined || inst.state !== 'BACKUP') continue;
      // Apply an advert that has arrived; one still in flight stays pending (it can only move the deadline
      // later, and nothing else touches the instance unless it expires now, when step() settles it).
      if (inst.pendAtUs >= 0 && this.arrived(inst, now)) this.applyPending(inst);
      const due = Math.max(inst.ctx.downDeadlineUs, inst.node.stalledUntilUs);
      if (due <= now) {
        this.step(inst, { type: 'DOWN_TIMER', nowUs: now }, 'master-down');
        if (inst.state !== 'BACKUP') continue;
      }
      // Not yet expired: the machine's DOWN_TIMER would only re-arm (downExpired false), so skip transition().
      if (!this.fastPaths && inst.node.stalledUntilUs <= now) this.step(inst, { type: 'DOWN_TIMER', nowUs: now }, 'master-down');
      const d = Math.max(inst.ctx.downDeadlineUs, inst.node.stalledUntilUs);
      if (d < next) next = d;
    }
    if (next !== Infinity) this.downTimers.arm(vi, next);
  }

  private armAdvert(inst: InstanceRt, atUs: number): void {
    this.cancel(inst.advertTimer);
    inst.advertEpoch = inst.node.epoch;
    inst.advertTimer = this.sched.at(atUs, inst.onAdvertTimer);
  }

  /**
   * The advert timer is due. On a stalled node it waits for the stall's end, still as the instance's timer,
   * so that re-arming it then (an advert read on waking restarts it) cancels the late one.
   */
  private advertTimerDue(inst: InstanceRt): void {
    const node = inst.node;
    if (node.epoch !== inst.advertEpoch) return;
    if (node.stalledUntilUs > this.sched.nowUs) {
      inst.advertTimer = this.sched.at(node.stalledUntilUs, inst.onAdvertTimer);
      return;
    }
    this.advertTimerFired(inst);
  }

  /** MASTER's advert timer, fast path: the machine sends an advert at its priority and re-arms, nothing else. */
  private advertTimerFired(inst: InstanceRt): void {
    inst.advertTimer = null;
    if (inst.state !== 'MASTER') return;
    const now = this.sched.nowUs;
    this.settle(inst, now);
    if (!this.fastPaths) return this.step(inst, { type: 'ADVERT_TIMER', nowUs: now }, 'advert-timer');
    this.sendAdvert(inst, inst.ctx.priority);
    this.armAdvert(inst, now + inst.ctx.advertIntervalUs);
  }

  /** A delayed GARP burst: each is its own timer (thread_add_timer), none replaces another. */
  private armGarp(inst: InstanceRt, atUs: number): void {
    const garpEpoch = inst.garpEpoch;
    this.nodeTimer(inst.node, atUs, inst.node.epoch, () => {
      if (inst.state === 'MASTER' && inst.garpEpoch === garpEpoch) this.step(inst, { type: 'GARP_TIMER', nowUs: this.sched.nowUs }, 'garp-repeat');
    });
  }

  // ---- adverts on the wire -----------------------------------------------------------------------------

  private sendAdvert(inst: InstanceRt, priority: number): void {
    const from = inst.node;
    const fromId = from.id;
    const fromIp = from.ipNum;
    const now = this.sched.nowUs;
    const c = this.counters;
    const network = this.network;
    const fast = this.fastPaths;
    const group = this.groups[inst.vipIndex]!;
    const intervalUs = inst.ctx.advertIntervalUs;
    const peers = from.peers;
    const n = peers ? peers.length : this.nodes.length;
    const advert: Advert = { priority, intervalUs, srcIp: fromIp };
    c.advertsSent++;
    c.packetsSent += peers ? peers.length : 1;
    // Counted in locals and written back once: this loop runs ~35 million times an hour on the benchmark.
    let dropped = 0;
    let deliveries = 0;
    let fastAdverts = 0;
    const vipSetId = inst.vipSetId;
    for (let k = 0; k < n; k++) {
      const to = peers ? peers[k]! : k;
      if (to === fromId) continue;
      const rcv = group[to];
      if (rcv === undefined) continue;
      // keepalived discards an advert whose VIPs are not the receiver's own list (vrrp_check_packet: the
      // count, then every configured VIP present), whatever its state: after a reload on one node only,
      // the others time out and take over, and the two masters ignore each other (split brain; measured
      // on 2.2.7: "received an unexpected ip number count 2, expected 1!").
      if (rcv.vipSetId !== vipSetId) {
        this.counters.addressDrops++;
        continue;
      }
      const delay = network.route(fromId, to, now);
      if (delay === DROPPED) {
        dropped++;
        continue;
      }
      const node = rcv.node;
      const arrival = now + delay;
      if (!node.alive) {
        dropped++;
        continue;
      }
      if (node.stalledUntilUs > arrival) {
        if (holdAdvert(node, { inst: rcv, atUs: arrival, priority, srcIp: fromIp, intervalUs })) deliveries++;
        else dropped++;
        continue;
      }
      deliveries++;
      // = rcv.state === 'BACKUP' && fastPathEligible(rcv.ctx, priority, intervalUs), precomputed
      if (fast && priority !== 0 && priority >= rcv.fastMinPriority && intervalUs === rcv.fastIntervalUs) {
        if (rcv.pendAtUs >= 0) {
          if (this.arrived(rcv, now)) this.applyPending(rcv);
          else {
            this.slowDelivery(rcv, arrival, priority, fromIp, intervalUs);
            continue;
          }
        }
        rcv.pendAtUs = arrival;
        rcv.pendSeq = this.sched.reserve();
        rcv.pendAdvert = advert;
        fastAdverts++;
      } else {
        this.slowDelivery(rcv, arrival, priority, fromIp, intervalUs);
      }
    }
    c.dropped += dropped;
    c.deliveries += deliveries;
    c.fastAdverts += fastAdverts;
  }

  /** An advert's delivery event; `seq`, a place reserved when it was sent (see settle), else it takes one now. */
  private slowDelivery(rcv: InstanceRt, atUs: number, priority: number, srcIp: number, intervalUs: number, seq = this.sched.reserve()): void {
    const node = rcv.node;
    const epoch = node.epoch;
    this.sched.atReserved(atUs, seq, () => {
      if (node.epoch !== epoch || !node.alive) return;
      if (node.stalledUntilUs > this.sched.nowUs) {
        // Counted as delivered when sent; a full socket loses it after all.
        if (!holdAdvert(node, { inst: rcv, atUs: this.sched.nowUs, priority, srcIp, intervalUs })) this.counters.deliveries--, this.counters.dropped++;
        return;
      }
      if (rcv.state === 'INIT' || rcv.state === 'FAULT') return;
      this.step(rcv, { type: 'ADVERT', nowUs: this.sched.nowUs, priority, srcIp, intervalUs }, `advert prio ${priority}`);
    });
  }

  /**
   * The stall ends (this runs before any timer deferred to this instant): keepalived reads what its socket
   * queued, in arrival order, before it runs its overdue timers, and an advert read restarts the timer it
   * bears on. Timed on keepalived 2.2.7 (docs/fidelity-keepalived.md): a backup stalled past its down timer,
   * with its master's adverts queued, does not take over on waking; a master stalled past its advert timer
   * answers each queued advert of the backup that took over (2 queued, 2 adverts; 7 queued, 7) and sends no
   * advert of its own timer.
   */
  private releaseHeld(node: NodeRt): void {
    if (node.held.length === 0) return;
    const now = this.sched.nowUs;
    for (const h of takeHeld(node)) {
      const inst = h.inst;
      if (inst.state === 'INIT' || inst.state === 'FAULT') continue;
      this.settle(inst, now);
      this.step(inst, { type: 'ADVERT', nowUs: now, priority: h.priority, srcIp: h.srcIp, intervalUs: h.intervalUs }, `advert prio ${h.priority} (queued)`);
    }
  }

  private applyPending(rcv: InstanceRt): void {
    const a = rcv.pendAdvert;
    fastBackupAdvert(rcv.ctx, rcv.pendAtUs, a.priority, a.intervalUs, rcv.masterDownUs);
    rcv.pendAtUs = -1;
  }

  /**
   * Whether the pending advert's delivery event would have fired by now: before now, or at now but earlier in
   * the order of same-time events (an input runs before every timer due at its instant).
   */
  private arrived(inst: InstanceRt, nowUs: number): boolean {
    return inst.pendAtUs < nowUs || (inst.pendAtUs === nowUs && inst.pendSeq < this.sched.nowSeq);
  }

  /**
   * Bring the instance up to `nowUs`: apply a fast-path advert that has arrived, re-route one still in flight.
   * The re-routed delivery keeps the place it took when sent: another advert may be due at the same
   * microsecond, and the two must be read in the order they would have been without the fast path.
   */
  settle(inst: InstanceRt, nowUs: number): void {
    if (inst.pendAtUs < 0) return;
    if (this.arrived(inst, nowUs)) {
      this.applyPending(inst);
      return;
    }
    const at = inst.pendAtUs;
    inst.pendAtUs = -1;
    const a = inst.pendAdvert;
    this.slowDelivery(inst, at, a.priority, a.srcIp, a.intervalUs, inst.pendSeq);
  }
}
