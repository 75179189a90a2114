import type { InputEventType } from '../../core/events.ts';
import type { ReloadReason } from '../../core/reload-reason.ts';
import type { TransportFault } from '../../core/runtime-effect.ts';
import type { ClusterConfig } from '../cluster/cluster-schema.ts';

/**
 * The output log: what a run observed, one JSON object per line after a header. The report is a pure
 * projection of these records (`routerbench report <log>` rebuilds it without simulating again), so
 * anything a report shows must be recorded here. Every record carries `atUs`, the virtual time in µs.
 *
 * Version 2 (written since 2026-12-01) adds `runtime.counts`: by default a successful runtime command is
 * counted there, and only failed attempts are `runtime.command` lines; with `--trace runtime` every
 * attempt is a `runtime.command` line, as in version 1, and the header says `trace: ["runtime"]`.
 * Version 3 (written since 2026-12-01) adds `reload.counts`: a reload
 * request without a detail made while another one waits (one was made since the last `reload.start`) is
 * counted there instead of written as a `reload.request` line. Nothing else changed.
 * Version 4 (written since 2026-12-03) adds `input.counts`: by default the endpoint events (`endpoints.set`,
 * `endpoints.delete`) are counted there per simulated second instead of written one `input` line each; with
 * `--trace inputs` every input is a line, as in version 3, and the header's `trace` says `inputs`.
 * Readers take all four versions; a version 1 log is a version 2 log that has every command traced, a
 * version 2 log is a version 3 log that folded no request, and a version 3 log is a version 4 log with every
 * input traced. A reader of version N refuses a later version by its header, before any record.
 */
export interface OutputHeader {
  routerbench: 'outputlog';
  version: OutputLogVersion;
  scenario: string;
  seed: number;
  strategy: string;
  /** The fully resolved settings of the run (after defaults, scenario, --set and --env). */
  settings: Record<string, unknown>;
  /**
   * Where each setting's value came from, by dotted key (`router.maxDynamicServers` →
   * `--env ROUTER_MAX_DYNAMIC_SERVERS=3`; sim/settings-layers.ts). Absent in logs written before it was
   * recorded (2026-12): their reports have none either.
   */
  settingSources?: Record<string, string>;
  /** Budgets to judge the run by, as `path op number` strings (e.g. `reloads.total <= 2`). */
  budgets: string[];
  /** The command that reproduces this run exactly. */
  reproduce: string;
  /** What `--trace` recorded in full (`runtime`: every runtime command); absent when nothing was. */
  trace?: TraceName[];
  /** The scenario's cluster section as run (defaults applied); the failover report's windows come from its timers. */
  cluster?: ClusterConfig;
}

export type OutputLogVersion = 1 | 2 | 3 | 4;
export const OUTPUT_LOG_VERSION = 4;
/**
 * `--trace` values: `runtime` writes every runtime API command and its reply, not only the failed ones;
 * `inputs` writes every endpoint event as an `input` line instead of counting them in `input.counts`.
 */
export const TRACE_NAMES = ['runtime', 'inputs'] as const;
export type TraceName = (typeof TRACE_NAMES)[number];

/**
 * The inputs the compact log counts rather than lists: a long log's endpoint churn, nearly every line of it,
 * which the report reads as counts per time bucket (report.html) or not at all (report.json).
 */
export const COUNTED_INPUTS = ['endpoints.set', 'endpoints.delete'] as const satisfies readonly InputEventType[];
export type CountedInputType = (typeof COUNTED_INPUTS)[number];

/** How many inputs an `input.counts` record counts, of either type. */
export function inputsCounted(r: { events: Partial<Record<CountedInputType, number>> }): number {
  return (r.events['endpoints.set'] ?? 0) + (r.events['endpoints.delete'] ?? 0);
}

/** What the socket did with one attempt; whether HAProxy's reply means success is the client's call. */
export type RuntimeOutcome = 'ok' | TransportFault;

export type VrrpStateName = 'INIT' | 'BACKUP' | 'MASTER' | 'FAULT';
/** `reload`: a master whose VIPs a keepalived.reload changed announces all of them (no takeover). */
export type VrrpGarpReason = 'master' | 'repeat' | 'lower-prio' | 'reload';

export type OutputRecord =
  /** An input event was applied (subject: `ns/name`, `ns/service` or the node). */
  | { atUs: number; type: 'input'; event: InputEventType; subject: string }
  /**
   * Since version 4, by default: endpoint events applied since the last such record, per event type
   * (`endpoints.set`: 41); at most one per simulated second. Every other input is still an `input` line.
   */
  | { atUs: number; type: 'input.counts'; events: Partial<Record<CountedInputType, number>> }
  /**
   * Since version 3, by default only the first request after each reload start and those with a detail;
   * the rest fold into the reload already asked for and are counted in `reload.counts`.
   */
  | { atUs: number; type: 'reload.request'; reason: ReloadReason; detail?: string }
  /** Reload requests folded into a pending reload, per reason, since the last such record; at most one per simulated second. */
  | { atUs: number; type: 'reload.counts'; requests: Partial<Record<ReloadReason, number>> }
  | { atUs: number; type: 'reload.start'; n: number }
  | { atUs: number; type: 'reload.end'; n: number }
  /**
   * One attempt to send a runtime API command line; `reply` is kept when short, for debugging. By default
   * only attempts the socket did not deliver (outcome other than `ok`) and replies HAProxy refused; every
   * one with `--trace runtime`.
   */
  | { atUs: number; type: 'runtime.command'; line: string; outcome: RuntimeOutcome; reply?: string }
  /** Successful runtime commands not written one by one, per verb (`set server`: 12), since the last such record; at most one per simulated second. */
  | { atUs: number; type: 'runtime.counts'; ok: Record<string, number> }
  /** The config manager gave up on a runtime call (retries exhausted or an error reply). */
  | { atUs: number; type: 'runtime.error'; detail: string }
  | { atUs: number; type: 'note'; message: string }
  | { atUs: number; type: 'warning'; message: string }
  /** An invariant check over the HAProxy view; `violations` is empty when it held. */
  | { atUs: number; type: 'invariant'; name: string; violations: string[] }
  // VRRP (keepalived) observations
  /** One instance (node × VIP) changed state; `priority` is its effective priority after the change. */
  | { atUs: number; type: 'vrrp.state'; node: string; vrid: number; vip: string; from: VrrpStateName; to: VrrpStateName; priority: number; cause?: string }
  /** A gratuitous ARP burst for the VIP: on becoming master, the repeat after garp_master_delay, or after hearing a lower priority. */
  | { atUs: number; type: 'vrrp.garp'; node: string; vrid: number; vip: string; reason?: VrrpGarpReason }
  /** A node's keepalived can (live) or cannot (crashed, stopped, stalled, left) act; a stalled master still believes it is master. */
  | { atUs: number; type: 'vrrp.node'; node: string; live: boolean; cause: string }
  /**
   * A VIP put on or taken off a node's interface without a state change: `stale`, left behind by a
   * keepalived that crashed as master (the host still answers ARP for it; nothing advertises it);
   * `removed`, gone (keepalived removes it as it starts, a host loss takes it, a reload dropped it);
   * `added`, a reload gave a master's instance a new VIP.
   */
  | { atUs: number; type: 'vrrp.address'; node: string; vrid: number; vip: string; change: 'added' | 'removed' | 'stale'; cause: string }
  /**
   * Membership: a node joined or left, or the others' unicast peer lists were regenerated to match. A join
   * carries the joiner's own `priority`, `preempt` and `preemptDelayMs` when its node.join event set them
   * (written since 2026-12-01; where absent, the instances' settings in the header apply).
   */
  | { atUs: number; type: 'vrrp.membership'; node: string; change: 'join' | 'leave' | 'peers-updated'; ip?: string; priority?: number; preempt?: boolean; preemptDelayMs?: number }
  /** Unicast exposure: `node` runs `vips` instances whose masters cannot send to it (open) until the peers are regenerated (closed). */
  | { atUs: number; type: 'vrrp.exposure'; node: string; open: boolean; vips: number }
  | {
      atUs: number;
      type: 'vrrp.stats';
      advertsSent: number;
      packetsSent: number;
      deliveries: number;
      dropped: number;
      mode?: 'multicast' | 'unicast';
      nodes?: number;
      instances?: number;
      /** Adverts dropped on receipt for an interval mismatch (v2). */
      intervalDrops?: number;
    }
  /** Last record of every complete run. */
  | { atUs: number; type: 'run.end'; events: number; simulatedMs: number };

export type OutputRecordType = OutputRecord['type'];
