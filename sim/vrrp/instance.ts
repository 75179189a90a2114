import type { AnyActorLogic, SnapshotFrom } from 'xstate';
import { ipToUint32, preemptionFor, vipsOf, type NodeOverrides, type VrrpInstanceSpec } from '../../core/vrrp/instance-spec.ts';
import { contextMasterDownUs, initialVrrpContext, vrrpMachine, type VrrpContext, type VrrpMachine, type VrrpState } from '../../core/vrrp/machine.ts';
import type { TrackSpec, TrackStatus } from '../../core/vrrp/track.ts';
import type { ResolvedCluster } from '../cluster/resolve.ts';
import type { TimerHandle } from '../scheduler.ts';
import { primeDoubleFields } from './prime-doubles.ts';

/** Runtime state of one node's keepalived. */
export interface NodeRt {
  id: number;
  name: string;
  ip: string;
  ipNum: number;
  /** keepalived is running (not crashed, stopped or gone). */
  alive: boolean;
  /** Still part of the cluster (false after node.leave). */
  member: boolean;
  /** Frozen until this time (node.stall); 0 when running. */
  stalledUntilUs: number;
  routerUp: boolean;
  /** keepalived has been told the link is down (no carrier): every instance is held in FAULT. */
  linkDown: boolean;
  advertIntervalUs: number;
  scripts: Map<string, ScriptRt>;
  /** By VIP index; undefined where the node runs no instance. */
  instances: (InstanceRt | undefined)[];
  /** Unicast: node ids this node sends to; null with multicast. */
  peers: number[] | null;
  /** Bumped on crash/stop so timers armed before it are ignored. */
  epoch: number;
  /** Adverts that reached the node while it was stalled: its socket queue (read by releaseHeld). */
  held: HeldAdvert[];
  /** VIPs a crashed keepalived left on the interface (keepalived.crash of a master), until it starts again. */
  stale: StaleVip[];
  /** The node's own settings (a joined node's keepalived.conf), for a reload to work preemption out again. */
  own: NodeOverrides;
}

export interface StaleVip {
  vrid: number;
  vip: string;
}

/** An advert queued in a stalled node's socket. */
export interface HeldAdvert {
  inst: InstanceRt;
  atUs: number;
  priority: number;
  srcIp: number;
  intervalUs: number;
}

export interface ScriptRt {
  spec: TrackSpec;
  /** Set by `script.fail` until `script.recover`: every run of the script fails (not used for router-check). */
  failing: boolean;
  status: TrackStatus;
  timer: TimerHandle | null;
  /** The node's epoch when `timer` was armed. */
  timerEpoch: number;
  /** The timer's handler, made once: a check runs every interval for the whole run. */
  onTimer: (() => void) | null;
}

export type VrrpSnapshot = SnapshotFrom<VrrpMachine>;

/** Runtime state of one VRRP instance (node × VIP). */
export interface InstanceRt {
  node: NodeRt;
  vipIndex: number;
  spec: VrrpInstanceSpec;
  /** vipsOf(spec), made once; a keepalived.reload may give the node's instance another list. */
  vips: readonly string[];
  /** Bumped by a reload: the delayed GARP bursts armed before it do not fire. */
  garpEpoch: number;
  /** Which VIP list the instance runs: 0 is its spec's; a reload to another list gets another id (adverts between different lists are discarded). */
  vipSetId: number;
  snap: VrrpSnapshot;
  /** snap.context, mutated in place by the fast paths (see core/vrrp/fast-path.ts). */
  ctx: VrrpContext;
  state: VrrpState;
  /** Cached Master_Down_Interval for ctx (priority, learned interval). */
  masterDownUs: number;
  advertTimer: TimerHandle | null;
  /** The node's epoch when `advertTimer` was armed. */
  advertEpoch: number;
  /** `advertTimer`'s handler, made once: a master arms it every advert interval. */
  onAdvertTimer: () => void;
  /** A fast-path advert in flight (arrival time), −1 when none; applied or re-routed at the next event. */
  pendAtUs: number;
  /** The pending advert's place among events due at pendAtUs (Scheduler.reserve), as a delivery event would have had. */
  pendSeq: number;
  /** The pending advert (shared by all its receivers). */
  pendAdvert: Advert;
  /**
   * The fast-path test precomputed from state and context after every machine step: an advert qualifies when
   * priority > 0, priority ≥ fastMinPriority and its interval is fastIntervalUs (fastPathEligible, in BACKUP).
   * Infinity when the instance is not in BACKUP.
   */
  fastMinPriority: number;
  fastIntervalUs: number;
}

/** One advert as sent: what a receiver needs of it. */
export interface Advert {
  priority: number;
  intervalUs: number;
  srcIp: number;
}

export type { AnyActorLogic };

const NO_ADVERT: Advert = { priority: 0, intervalUs: 0, srcIp: 0 };
const NO_HANDLER = (): void => {};

/** A node's keepalived before it starts: not alive, its scripts not yet run, one instance per VIP it serves. */
export function newNodeRt(id: number, name: string, ip: string, cluster: ResolvedCluster, own: NodeOverrides = {}): NodeRt {
  const node: NodeRt = {
    id,
    name,
    ip,
    ipNum: ipToUint32(ip),
    alive: false,
    member: true,
    stalledUntilUs: 0,
    routerUp: true,
    linkDown: false,
    advertIntervalUs: cluster.advertIntervalUsByNode[name] ?? cluster.advertIntervalUs,
    scripts: new Map(),
    instances: [],
    peers: null,
    epoch: 0,
    held: [],
    stale: [],
    own,
  };
  primeDoubleFields(node, ['stalledUntilUs']);
  cluster.instances.forEach((spec, vi) => {
    for (const t of spec.track) if (!node.scripts.has(t.script)) node.scripts.set(t.script, { spec: t, failing: false, status: { ok: true, streak: 0 }, timer: null, timerEpoch: 0, onTimer: null });
    node.instances[vi] = newInstanceRt(node, vi, spec, cluster, own);
  });
  return node;
}

/** One VRRP instance in INIT; the owner sets `onAdvertTimer`. */
function newInstanceRt(node: NodeRt, vi: number, spec: VrrpInstanceSpec, cluster: ResolvedCluster, own: NodeOverrides): InstanceRt {
  const basePriority = own.priority ?? cluster.priorityFor(node.name, node.ip, vi);
  const { preempt, preemptDelayMs } = preemptionFor(spec, node.name, own, basePriority);
  // = initialTransition(vrrpMachine, input), at a fraction of the cost (fast-path.test.ts checks it)
  const snap = vrrpMachine.resolveState({ value: 'INIT', context: initialVrrpContext({
    version: spec.version ?? cluster.version,
    ip: node.ipNum,
    basePriority,
    initialMaster: spec.initialMasterNodes.includes(node.name),
    // A node's own (misconfigured) interval applies to all its instances; else the instance's, else the cluster's.
    advertIntervalUs: cluster.advertIntervalUsByNode[node.name] ?? spec.advertIntervalUs ?? cluster.advertIntervalUs,
    downTimerAdverts: cluster.downTimerAdverts,
    preempt,
    preemptDelayUs: preemptDelayMs * 1000,
    garpMasterDelayUs: cluster.garpMasterDelayUs,
  }) });
  const inst: InstanceRt = {
    node,
    vipIndex: vi,
    spec,
    vips: vipsOf(spec),
    garpEpoch: 0,
    vipSetId: 0,
    snap,
    ctx: snap.context,
    state: 'INIT',
    masterDownUs: contextMasterDownUs(snap.context),
    advertTimer: null,
    advertEpoch: 0,
    onAdvertTimer: NO_HANDLER,
    pendAtUs: -1,
    pendSeq: -1,
    pendAdvert: NO_ADVERT,
    fastMinPriority: Infinity,
    fastIntervalUs: -1,
  };
  // Not pendSeq: primed, it made bench/vrrp.ts 45% slower (CPU time), and places pass 2^31 only after some
  // 60 simulated hours of that benchmark's 35 million deliveries an hour.
  primeDoubleFields(inst, ['pendAtUs']);
  primeDoubleFields(inst.ctx, ['downDeadlineUs', 'preemptAtUs', 'downTimerUs']);
  return inst;
}
