import type { InputEvent } from '../core/events.ts';
import { skewUs } from '../core/vrrp/timers.ts';
import { runCluster } from '../sim/cluster/cluster-harness.ts';
import type { OutputRecord } from '../sim/output/records.ts';

/**
 * The keepalived fidelity comparison, its pure half: the cluster both sides run, the faults, the RFC bounds
 * and the simulator's answer for each incident measured on the real keepalived (fidelity/keepalived-real.ts).
 *
 * Cluster: three nodes, two VIPs, VRRPv2, A = 1 s, multicast, garp_master_delay 5 s (keepalived's defaults but
 * for the priorities, which are the shipped scenarios' 150/100 plus a third node at 50). Every instance tracks
 * the router check (weight 0, fall = rise = 1, every 1 s). infra-1 masters .100, infra-2 masters .101.
 * Faults hit infra-1.
 */
export const FIDELITY_ADVERT_MS = 1000;
export const FIDELITY_CHECK_INTERVAL_MS = 1000;
/** How long a partition is held (long enough for the cut-off backup of .101 to take over). */
export const PARTITION_HOLD_MS = 5000;
export const FAULTED_NODE = 'infra-1';

export const FIDELITY_CLUSTER = {
  nodes: [
    { name: 'infra-1', ip: '198.18.0.11' },
    { name: 'infra-2', ip: '198.18.0.12' },
    { name: 'infra-3', ip: '198.18.0.13' },
  ],
  // A veth pair through a bridge: tens of µs.
  network: { delayMs: 0.05, jitterMs: 0.05, loss: 0 },
  keepalived: {
    version: 2 as const,
    advertIntervalMs: FIDELITY_ADVERT_MS,
    instances: [
      { vip: '198.18.0.100', vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100, 'infra-3': 50 }, track: [{ script: 'router-check', intervalMs: FIDELITY_CHECK_INTERVAL_MS }] },
      { vip: '198.18.0.101', vrid: 52, priorities: { 'infra-1': 50, 'infra-2': 150, 'infra-3': 100 }, track: [{ script: 'router-check', intervalMs: FIDELITY_CHECK_INTERVAL_MS }] },
    ],
  },
};

export function basePriority(node: string, vip: string): number {
  const inst = FIDELITY_CLUSTER.keepalived.instances.find((i) => i.vip === vip)!;
  return (inst.priorities as Record<string, number>)[node]!;
}

/**
 * Fault kinds and what they are in each world:
 * - crash: keepalived's VRRP process is SIGKILLed (the host lives on, its VIP stays configured) — sim node.fail.
 * - host-loss: the same plus the node's link down (the host is gone) — sim node.fail.
 * - shutdown: SIGTERM, keepalived resigns with priority 0 — sim node.shutdown.
 * - router-fail: the check script starts failing — sim router.fail.
 * - partition: the faulted node's bridge port silently drops frames for PARTITION_HOLD_MS — sim network.partition
 *   [[infra-1], [infra-2, infra-3]], then network.heal.
 */
export type FaultKind = 'crash' | 'host-loss' | 'shutdown' | 'router-fail' | 'partition';
export const FAULT_KINDS: readonly FaultKind[] = ['crash', 'host-loss', 'shutdown', 'router-fail', 'partition'];

/** One takeover measured on the real keepalived (times in ms, relative to the fault). */
export interface MeasuredIncident {
  kind: FaultKind;
  /** Which repetition of the kind (0-based). */
  index: number;
  vip: string;
  oldMaster: string;
  newMaster: string | null;
  /** Fault → the VIP added on the new master (keepalived adds it, then sends the first GARP burst). */
  latencyMs: number | null;
  /** Fault − when the old master last acquired the VIP: its adverts go out at acquisition + k·A. */
  sinceAcquiredMs: number;
  /**
   * Fault − the old master's last advert that may have reached the others (seen by the observer up to the
   * moment the fault was certainly in effect, plus 3 ms for the observer's read); negative when that advert
   * came just after the stamp. null without an observer.
   */
  sinceAdvertMs: number | null;
  /**
   * When that advert came within the fault's uncertainty window (it may or may not have crossed): fault − the
   * advert before it. null otherwise.
   */
  altSinceAdvertMs: number | null;
  /** Fault → the old master's first priority-0 advert (shutdown, FAULT), as the observer saw it; null if none. */
  zeroAdvertMs: number | null;
  /** Fault → the VIP deleted on the old master (shutdown, FAULT), null if it kept it (crash, partition). */
  resignMs: number | null;
}

/** The interval (lo, hi] a latency must fall in by the RFC, ms, for the winner `newMaster`. */
export interface Bound {
  loMs: number;
  hiMs: number;
  formula: string;
}

export function rfcBound(kind: FaultKind, vip: string, newMaster: string): Bound {
  const A = FIDELITY_ADVERT_MS;
  const S = skewUs(2, basePriority(newMaster, vip), A * 1000) / 1000;
  const I = FIDELITY_CHECK_INTERVAL_MS;
  switch (kind) {
    case 'crash':
    case 'host-loss':
    case 'partition':
      return { loMs: 2 * A + S, hiMs: 3 * A + S, formula: `(2A+S, 3A+S], S = ${S.toFixed(1)} ms` };
    case 'shutdown':
      return { loMs: S, hiMs: S, formula: `≈ S = ${S.toFixed(1)} ms` };
    case 'router-fail':
      return { loMs: S, hiMs: I + S, formula: `(S, fall·I + S], S = ${S.toFixed(1)} ms, I = ${I} ms` };
  }
}

/** The fault as input events for the simulator, at `atMs`. */
export function faultEvents(kind: FaultKind, atMs: number): InputEvent[] {
  switch (kind) {
    case 'crash':
    case 'host-loss':
      return [{ at: atMs, type: 'node.fail', node: FAULTED_NODE }];
    case 'shutdown':
      return [{ at: atMs, type: 'node.shutdown', node: FAULTED_NODE }];
    case 'router-fail':
      return [{ at: atMs, type: 'router.fail', node: FAULTED_NODE }];
    case 'partition':
      return [
        { at: atMs, type: 'network.partition', groups: [[FAULTED_NODE], ['infra-2', 'infra-3']] },
        { at: atMs + PARTITION_HOLD_MS, type: 'network.heal' },
      ];
  }
}

type Garp = Extract<OutputRecord, { type: 'vrrp.garp' }>;
const isMasterGarp = (r: OutputRecord): r is Garp => r.type === 'vrrp.garp' && r.reason === 'master';

/** When `node` first became master of `vip` in a fault-free run (µs): its adverts go out then + k·A. */
function acquiredUs(node: string, vip: string, seed: number): number {
  const run = runCluster(FIDELITY_CLUSTER, [], { durationMs: 15_000, seed });
  const g = run.records.find((r) => isMasterGarp(r) && r.node === node && r.vip === vip);
  if (!g) throw new Error(`keepalived-fidelity: ${node} never became master of ${vip} in the simulator`);
  return g.atUs;
}

export interface SimulatedIncident {
  kind: FaultKind;
  index: number;
  vip: string;
  newMaster: string | null;
  latencyMs: number | null;
}

/** Well after the start-up election, so every backup has heard the masters. */
const SETTLE_US = 10_000_000;

/**
 * The simulator's answer for one real incident, in phase with it:
 * - takeovers by timeout (crash, host-loss, partition): the fault is placed as long after the old master's last
 *   advert as it was on the real keepalived (measured by the advert observer; without it, the time since the
 *   old master acquired the VIP, mod A, which drifts with keepalived's advert period). When an advert came
 *   within the fault's uncertainty window, both orders are simulated and the closer kept (simulateIncident).
 * - router-fail: the fault is placed so the simulated check that first fails comes as long after the fault as
 *   the real one did (the real one's detection = the old master's VIP deletion − the fault; keepalived's
 *   script timer is not ours to phase). Without a measured resignation the seed's own phase is used.
 * - shutdown: no phase (priority-0 advert).
 * The latency is the failover projection's: fault → the new master's first GARP.
 */
export function simulateIncident(real: MeasuredIncident, seed = 1): SimulatedIncident {
  const first = simulateAtPhase(real, real.sinceAdvertMs, seed);
  if (real.altSinceAdvertMs === null || real.latencyMs === null || first.latencyMs === null) return first;
  // The fault and an advert were simultaneous within the measurement's resolution: the simulator runs both
  // orders and the one closer to the real outcome is kept (they differ by about A, so the check still bites).
  const alt = simulateAtPhase(real, real.altSinceAdvertMs, seed);
  if (alt.latencyMs === null) return first;
  return Math.abs(alt.latencyMs - real.latencyMs) < Math.abs(first.latencyMs - real.latencyMs) ? alt : first;
}

function simulateAtPhase(real: MeasuredIncident, sinceAdvertMs: number | null, seed: number): SimulatedIncident {
  const A = FIDELITY_ADVERT_MS * 1000;
  const acq = acquiredUs(real.oldMaster, real.vip, seed);
  // The simulated master advertises at exactly acq + k·A: put the fault as long after one as it was on the real one.
  // An advert at or after the stamp (≤ 0) crossed before the fault took effect: the fault goes 1 µs after it,
  // since at the same instant the fault would come first and drop it. The alternative phase covers the other order.
  const sinceUs =
    sinceAdvertMs !== null ? Math.min(A - 1, Math.max(1, Math.round(sinceAdvertMs * 1000))) : Math.round(real.sinceAcquiredMs * 1000) % A;
  let faultUs = acq + SETTLE_US + sinceUs;
  if (real.kind === 'router-fail' && real.resignMs !== null) {
    // Probe: where do the simulated checks of the faulted node fall? They run every I from a seeded phase.
    const probe = runCluster(FIDELITY_CLUSTER, faultEvents('router-fail', faultUs / 1000), { durationMs: faultUs / 1000 + 10_000, seed });
    const faultRec = probe.records.find((r) => r.type === 'vrrp.state' && r.node === FAULTED_NODE && r.to === 'FAULT' && r.atUs >= faultUs);
    if (!faultRec) throw new Error('keepalived-fidelity: the probe run never saw the router check fail');
    const I = FIDELITY_CHECK_INTERVAL_MS * 1000;
    // The simulated checks run exactly every I, so a detection cannot take longer; a real one that did (the
    // script ran late) is matched by the latest simulated one, I − 1 µs after the fault.
    const detectUs = Math.min(I - 1, Math.max(1, Math.round(real.resignMs * 1000)));
    faultUs = faultRec.atUs + I - detectUs;
  }
  const run = runCluster(FIDELITY_CLUSTER, faultEvents(real.kind, faultUs / 1000), { durationMs: faultUs / 1000 + 20_000, seed });
  const inc = run.failover.list.find((i) => i.vip === real.vip && i.fault === faultEvents(real.kind, 0)[0]!.type);
  return { kind: real.kind, index: real.index, vip: real.vip, newMaster: inc?.newMaster ?? null, latencyMs: inc?.latencyMs ?? null };
}
