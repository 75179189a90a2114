import type { AnyActorLogic, SnapshotFrom } from 'xstate';
import type { VrrpInstanceSpec } from '../../core/vrrp/instance-spec.ts';
import type { VrrpContext, VrrpMachine, VrrpState } from '../../core/vrrp/machine.ts';
import type { TrackSpec, TrackStatus } from '../../core/vrrp/track.ts';
import type { TimerHandle } from '../scheduler.ts';

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
  /** vipsOf(spec), made once. */
  vips: readonly string[];
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
