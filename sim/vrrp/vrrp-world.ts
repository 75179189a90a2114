import { transition } from 'xstate';
import { fastBackupAdvert, startBackupContext } from '../../core/vrrp/fast-path.ts';
import { ipToUint32, preemptionFor, vipsOf } from '../../core/vrrp/instance-spec.ts';
import { contextMasterDownUs, initialVrrpContext, vrrpMachine, type VrrpEvent, type VrrpState } from '../../core/vrrp/machine.ts';
import { applyCheckResult, effectivePriority, type TrackSpec } from '../../core/vrrp/track.ts';
import type { ResolvedCluster } from '../cluster/resolve.ts';
import { DROPPED, type Network } from '../network/network.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RandomStreams } from '../random-streams.ts';
import type { Scheduler, TimerHandle } from '../scheduler.ts';
import type { Advert, InstanceRt, NodeRt, ScriptRt } from './instance.ts';

const NO_ADVERT: Advert = { priority: 0, intervalUs: 0, srcIp: 0 };

export interface VrrpCounters {
  advertsSent: number;
  packetsSent: number;
  deliveries: number;
  dropped: number;
  intervalDrops: number;
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
 * Since nothing else touches the instance in between, the result is the same as delivering it on time.
 */
const NO_HANDLER = (): void => {};

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
  readonly counters: VrrpCounters = { advertsSent: 0, packetsSent: 0, deliveries: 0, dropped: 0, intervalDrops: 0, fastAdverts: 0, slowEvents: 0 };

  constructor(
    readonly cluster: ResolvedCluster,
    private readonly sched: Scheduler,
    private readonly streams: RandomStreams,
    readonly network: Network,
    private readonly emit: (r: OutputRecord) => void,
  ) {
    this.groups = cluster.instances.map(() => []);
    this.downTimers = cluster.instances.map(() => null);
    this.downTimerAt = cluster.instances.map(() => 0);
    this.downHandlers = cluster.instances.map((_, vi) => () => this.downTimerFired(vi));
    // Same for the engine's queue entries: one cancelled far-future entry makes their time field a double.
    sched.cancel(sched.at(PRIME_US, () => {}));
  }

  private readonly downTimers: (TimerHandle | null)[];
  private readonly downTimerAt: number[];
  private readonly downHandlers: (() => void)[];

  // ---- nodes -------------------------------------------------------------------------------------------

  addNode(name: string, ip: string): NodeRt {
    const id = this.network.addNode(name);
    const c = this.cluster;
    const node: NodeRt = {
      id,
      name,
      ip,
      ipNum: ipToUint32(ip),
      alive: false,
      member: true,
      stalledUntilUs: 0,
      routerUp: true,
      advertIntervalUs: c.advertIntervalUsByNode[name] ?? c.advertIntervalUs,
      scripts: new Map(),
      instances: [],
      peers: null,
      epoch: 0,
      held: [],
    };
    primeDoubleFields(node, ['stalledUntilUs']);
    c.instances.forEach((spec, vi) => {
      for (const t of spec.track) if (!node.scripts.has(t.script)) node.scripts.set(t.script, { spec: t, status: { ok: true, streak: 0 }, timer: null, timerEpoch: 0, onTimer: null });
      const base = c.priorityFor(name, ip, vi);
      const { preempt, preemptDelayMs } = preemptionFor(spec, name);
      // = initialTransition(vrrpMachine, input), at a fraction of the cost (fast-path.test.ts checks it)
      const snap = vrrpMachine.resolveState({ value: 'INIT', context: initialVrrpContext({
        version: c.version,
        ip: node.ipNum,
        basePriority: base,
        advertIntervalUs: node.advertIntervalUs,
        downTimerAdverts: c.downTimerAdverts,
        preempt,
        preemptDelayUs: preemptDelayMs * 1000,
        garpMasterDelayUs: c.garpMasterDelayUs,
      }) });
      const inst: InstanceRt = {
        node,
        vipIndex: vi,
        spec,
        vips: vipsOf(spec),
        snap,
        ctx: snap.context,
        state: 'INIT',
        masterDownUs: contextMasterDownUs(snap.context),
        advertTimer: null,
        advertEpoch: 0,
        onAdvertTimer: NO_HANDLER,
        pendAtUs: -1,
        pendAdvert: NO_ADVERT,
        fastMinPriority: Infinity,
        fastIntervalUs: -1,
      };
      inst.onAdvertTimer = () => this.advertTimerDue(inst);
      primeDoubleFields(inst, ['pendAtUs']);
      primeDoubleFields(inst.ctx, ['downDeadlineUs', 'preemptAtUs']);
      node.instances[vi] = inst;
      this.groups[vi]![id] = inst;
    });
    this.nodes.push(node);
    this.byName.set(name, node);
    return node;
  }

  /** Start keepalived on a node: run every script once, then START each instance with its effective priority. */
  startNode(node: NodeRt, cause: string): void {
    if (node.alive || !node.member) return;
    node.alive = true;
    node.stalledUntilUs = 0;
    const now = this.sched.nowUs;
    for (const [script, s] of node.scripts) {
      s.status = { ok: this.checkSucceeds(node, script), streak: 0 };
      this.scheduleScript(node, s, script, true);
    }
    this.emit({ atUs: now, type: 'vrrp.node', node: node.name, live: true, cause });
    for (const inst of node.instances) {
      if (!inst) continue;
      const view = this.priorityView(inst);
      if (view.priority !== inst.ctx.priority) this.step(inst, { type: 'SET_PRIORITY', nowUs: now, priority: view.priority }, cause);
      const backup = this.fastPaths && inst.state === 'INIT' ? startBackupContext(inst.ctx, now, view.fault) : null;
      if (backup === null) {
        this.step(inst, { type: 'START', nowUs: now, fault: view.fault }, cause);
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
      this.armDown(inst.vipIndex, backup.downDeadlineUs);
    }
  }

  /** node.fail: keepalived dies silently. */
  crashNode(node: NodeRt, cause: string): void {
    if (!node.alive) return;
    const now = this.sched.nowUs;
    for (const inst of node.instances) if (inst) this.step(inst, { type: 'CRASH', nowUs: now }, cause);
    this.stopNode(node, cause);
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
    for (const s of node.scripts.values()) this.cancel(s.timer), (s.timer = null);
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

  // ---- tracked scripts ---------------------------------------------------------------------------------

  private checkSucceeds(node: NodeRt, script: string): boolean {
    return script === 'router-check' ? node.routerUp : true;
  }

  private scheduleScript(node: NodeRt, s: ScriptRt, script: string, first: boolean): void {
    const intervalUs = s.spec.intervalMs * 1000;
    // The first periodic check lands at a phase drawn per node, so detection takes up to fall · interval.
    const delay = first ? 1 + this.streams.get(`vrrp/script-phase/${node.name}`).int(intervalUs) : intervalUs;
    if (s.onTimer === null) {
      const check = (): void => {
        const before = s.status.ok;
        s.status = applyCheckResult(s.spec, s.status, this.checkSucceeds(node, script));
        this.scheduleScript(node, s, script, false);
        if (s.status.ok !== before) this.scriptChanged(node, script);
      };
      s.onTimer = () => this.fireNodeTimer(node, s.timerEpoch, check);
    }
    // The handler reads the epoch the timer was armed in: re-arming always cancels the timer first.
    s.timerEpoch = node.epoch;
    s.timer = this.sched.at(this.sched.nowUs + delay, s.onTimer);
  }

  private priorityView(inst: InstanceRt) {
    const specs: TrackSpec[] = inst.spec.track;
    return effectivePriority(
      inst.ctx.basePriority,
      specs,
      specs.map((t) => inst.node.scripts.get(t.script)!.status),
    );
  }

  private scriptChanged(node: NodeRt, script: string): void {
    const now = this.sched.nowUs;
    for (const inst of node.instances) {
      if (!inst || !inst.spec.track.some((t) => t.script === script)) continue;
      const view = this.priorityView(inst);
      const cause = `track ${script}`;
      if (view.priority !== inst.ctx.priority) this.step(inst, { type: 'SET_PRIORITY', nowUs: now, priority: view.priority }, cause);
      if (view.fault && inst.state !== 'FAULT' && inst.state !== 'INIT') this.step(inst, { type: 'FAULT', nowUs: now }, cause);
      else if (!view.fault && inst.state === 'FAULT') this.step(inst, { type: 'FAULT_CLEAR', nowUs: now }, cause);
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
          this.armDown(inst.vipIndex, p.atUs);
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
   * Lazy, grouped down timers: one queue entry per VIP, no later than the earliest deadline among its backups.
   * When it fires, every backup whose deadline (or the end of its node's stall) has come runs the machine's
   * DOWN_TIMER; the rest are untouched, exactly as if each had its own timer re-armed to its deadline, and the
   * entry re-arms at the new earliest deadline. A steady VIP costs one queue operation per ~(down − interval).
   */
  private armDown(vi: number, atUs: number): void {
    const t = this.downTimers[vi];
    if (t && !t.cancelled && this.downTimerAt[vi]! <= atUs) return;
    if (t) this.sched.cancel(t);
    this.downTimerAt[vi] = atUs;
    this.downTimers[vi] = this.sched.at(atUs, this.downHandlers[vi]!);
  }

  private downTimerFired(vi: number): void {
    this.downTimers[vi] = null;
    const now = this.sched.nowUs;
    const group = this.groups[vi]!;
    let next = Infinity;
    for (let k = 0; k < group.length; k++) {
      const inst = group[k];
      if (inst === undefined || inst.state !== 'BACKUP') continue;
      // Apply an advert that has arrived; one still in flight stays pending (it can only move the deadline
      // later, and nothing else touches the instance unless it expires now, when step() settles it).
      if (inst.pendAtUs >= 0 && inst.pendAtUs <= now) this.applyPending(inst);
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
    if (next !== Infinity) this.armDown(vi, next);
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
    this.nodeTimer(inst.node, atUs, inst.node.epoch, () => {
      if (inst.state === 'MASTER') this.step(inst, { type: 'GARP_TIMER', nowUs: this.sched.nowUs }, 'garp-repeat');
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
    for (let k = 0; k < n; k++) {
      const to = peers ? peers[k]! : k;
      if (to === fromId) continue;
      const rcv = group[to];
      if (rcv === undefined) continue;
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
        if (this.hold(rcv, arrival, priority, fromIp, intervalUs)) deliveries++;
        else dropped++;
        continue;
      }
      deliveries++;
      // = rcv.state === 'BACKUP' && fastPathEligible(rcv.ctx, priority, intervalUs), precomputed
      if (fast && priority !== 0 && priority >= rcv.fastMinPriority && intervalUs === rcv.fastIntervalUs) {
        if (rcv.pendAtUs >= 0) {
          if (rcv.pendAtUs <= now) this.applyPending(rcv);
          else {
            this.slowDelivery(rcv, arrival, priority, fromIp, intervalUs);
            continue;
          }
        }
        rcv.pendAtUs = arrival;
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

  private slowDelivery(rcv: InstanceRt, atUs: number, priority: number, srcIp: number, intervalUs: number): void {
    const node = rcv.node;
    const epoch = node.epoch;
    this.sched.at(atUs, () => {
      if (node.epoch !== epoch || !node.alive) return;
      if (node.stalledUntilUs > this.sched.nowUs) {
        // Counted as delivered when sent; a full socket loses it after all.
        if (!this.hold(rcv, this.sched.nowUs, priority, srcIp, intervalUs)) this.counters.deliveries--, this.counters.dropped++;
        return;
      }
      if (rcv.state === 'INIT' || rcv.state === 'FAULT') return;
      this.step(rcv, { type: 'ADVERT', nowUs: this.sched.nowUs, priority, srcIp, intervalUs }, `advert prio ${priority}`);
    });
  }

  /**
   * An advert reaching a stalled node waits in its socket (a frozen process or VM: the kernel or the
   * hypervisor keeps queueing) up to HELD_MAX per node; false when the queue is full and it is lost.
   */
  private hold(rcv: InstanceRt, atUs: number, priority: number, srcIp: number, intervalUs: number): boolean {
    const held = rcv.node.held;
    if (held.length >= HELD_MAX) return false;
    held.push({ inst: rcv, atUs, priority, srcIp, intervalUs });
    return true;
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
    const held = node.held;
    node.held = [];
    // Queued in sending order (an advert in flight is queued when it lands): read in arrival order.
    held.sort((a, b) => a.atUs - b.atUs);
    const now = this.sched.nowUs;
    for (const h of held) {
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

  /** Bring the instance up to `nowUs`: apply a fast-path advert that has arrived, re-route one still in flight. */
  settle(inst: InstanceRt, nowUs: number): void {
    if (inst.pendAtUs < 0) return;
    if (inst.pendAtUs <= nowUs) {
      this.applyPending(inst);
      return;
    }
    const at = inst.pendAtUs;
    inst.pendAtUs = -1;
    const a = inst.pendAdvert;
    this.slowDelivery(inst, at, a.priority, a.srcIp, a.intervalUs);
  }
}

/**
 * Times pass 2^31 µs (35.8 simulated minutes) in long runs, beyond V8's small integers. A field that held only
 * small integers then changes representation, which deoptimizes the hot code late in a run and can leave it
 * unoptimized (a 5× slowdown measured on the benchmark). Writing a double once at creation fixes the fields'
 * representation up front; the value is restored at once.
 */
const PRIME_US = 2 ** 41 + 0.5;

/**
 * Adverts a stalled node's socket holds: Linux's default receive buffer (net.core.rmem_default, 212,992
 * bytes) over the ~768 bytes a small datagram is charged (its skb's truesize): about 277. Beyond that the
 * kernel drops what arrives.
 */
const HELD_MAX = 277;
function primeDoubleFields<T extends object>(obj: T, keys: (keyof T)[]): void {
  const o = obj as Record<keyof T, unknown>;
  for (const k of keys) {
    const v = o[k];
    o[k] = PRIME_US;
    o[k] = v;
  }
}
