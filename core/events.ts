import type { Endpoint } from './endpoint.ts';
import type { Route } from './route.ts';

/**
 * Event log format v1: the canonical input. `at` is integer milliseconds of simulated time.
 * Events with the same `at` apply in file order.
 */
export type InputEvent =
  | { at: number; type: 'route.upsert'; route: Route }
  | { at: number; type: 'route.delete'; namespace: string; name: string }
  | { at: number; type: 'endpoints.set'; namespace: string; service: string; endpoints: Endpoint[] }
  | { at: number; type: 'endpoints.delete'; namespace: string; service: string }
  | { at: number; type: 'blueprint.upsert'; route: Route }
  | { at: number; type: 'blueprint.delete'; namespace: string; name: string }
  | { at: number; type: 'node.fail' | 'node.recover' | 'node.shutdown'; node: string }
  | { at: number; type: 'router.fail' | 'router.recover'; node: string }
  /**
   * A tracked script other than the router check starts failing on the node (every run exits non-zero
   * until `script.recover`); keepalived counts it against the script's fall and rise like any check.
   */
  | { at: number; type: 'script.fail' | 'script.recover'; node: string; script: string }
  /**
   * The node's network link loses carrier (cable, switch port, NIC): nothing reaches it or leaves it, and
   * keepalived, told by the kernel, puts its instances in FAULT; `link.up` restores both.
   */
  | { at: number; type: 'link.down' | 'link.up'; node: string }
  /**
   * The node's keepalived process dies (SIGKILL, OOM kill) while the host runs on: no priority-0 advert, and
   * nothing removes the VIPs it held, which stay on the interface (stale) until keepalived starts again
   * (`keepalived.restart`, which removes them first) or the host goes. Distinct from `node.fail`, a host loss.
   */
  | { at: number; type: 'keepalived.crash' | 'keepalived.restart'; node: string }
  /**
   * The node's keepalived reloads its configuration (SIGHUP): a new base `priority` on every instance, and/or
   * new `virtual_ipaddress` lists for some of its instances (by `vrid`).
   */
  | { at: number; type: 'keepalived.reload'; node: string; priority?: number; instances?: KeepalivedReloadInstance[] }
  /**
   * A node (its keepalived) joins the cluster with this primary IP. Its keepalived.conf may set its own
   * `priority` on every instance (else the instance's or the cluster's default, or ipfailover's draw) and its
   * own preemption (`preempt` false = nopreempt, `preemptDelayMs` = preempt_delay; else the instance's).
   */
  | { at: number; type: 'node.join'; node: string; ip: string; priority?: number; preempt?: boolean; preemptDelayMs?: number }
  /** A node leaves the cluster for good (keepalived stopped gracefully, address dropped from the peers). */
  | { at: number; type: 'node.leave'; node: string }
  /** The node is frozen (paused VM, CPU starvation): no adverts sent or heard for `durationMs`. */
  | { at: number; type: 'node.stall'; node: string; durationMs: number }
  /**
   * Nodes in different groups cannot reach each other; nodes in no group form one more group. With
   * `oneWay`, only traffic from an earlier group to a later one is blocked.
   */
  | { at: number; type: 'network.partition'; groups: string[][]; oneWay?: boolean }
  | { at: number; type: 'network.heal' };

/** One instance's VIPs after a keepalived.reload: the whole new `virtual_ipaddress` list, in order. */
export interface KeepalivedReloadInstance {
  vrid: number;
  vips: string[];
}

export type InputEventType = InputEvent['type'];

export const INPUT_EVENT_TYPES: readonly InputEventType[] = [
  'route.upsert',
  'route.delete',
  'endpoints.set',
  'endpoints.delete',
  'blueprint.upsert',
  'blueprint.delete',
  'node.fail',
  'node.recover',
  'node.shutdown',
  'router.fail',
  'router.recover',
  'script.fail',
  'script.recover',
  'link.down',
  'link.up',
  'keepalived.crash',
  'keepalived.restart',
  'keepalived.reload',
  'node.join',
  'node.leave',
  'node.stall',
  'network.partition',
  'network.heal',
];

/** Events the config manager handles; the rest concern nodes and the network. */
export type ChurnEvent = Extract<
  InputEvent,
  { type: 'route.upsert' | 'route.delete' | 'endpoints.set' | 'endpoints.delete' | 'blueprint.upsert' | 'blueprint.delete' }
>;

export function isChurnEvent(e: InputEvent): e is ChurnEvent {
  // A switch rather than prefixes: the event log reader hands out each type as its constant, compared by identity.
  switch (e.type) {
    case 'route.upsert':
    case 'route.delete':
    case 'endpoints.set':
    case 'endpoints.delete':
    case 'blueprint.upsert':
    case 'blueprint.delete':
      return true;
    default:
      return false;
  }
}

/** A short stable identity of what an event touches, for the output log and timelines. */
export function eventSubject(e: InputEvent): string {
  switch (e.type) {
    case 'route.upsert':
    case 'blueprint.upsert':
      return `${e.route.namespace}/${e.route.name}`;
    case 'route.delete':
    case 'blueprint.delete':
      return `${e.namespace}/${e.name}`;
    case 'endpoints.set':
    case 'endpoints.delete':
      return `${e.namespace}/${e.service}`;
    case 'network.partition':
      return e.groups.map((g) => g.join(',')).join(e.oneWay ? '>' : '|');
    case 'network.heal':
      return '';
    default:
      return e.node;
  }
}
