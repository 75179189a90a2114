/**
 * report.json, version 1: a pure projection of a run's output log. Renderers (terminal, JSON, Markdown,
 * JUnit, HTML) read only this and the records; they never reach into the simulation.
 */
export interface LatencySummaryMs {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export interface FailoverIncident {
  /** Fault time, ms of simulated time. */
  atMs: number;
  fault: string;
  vip: string;
  vrid: number;
  oldMaster: string | null;
  newMaster: string | null;
  /** Fault to the new master's first GARP; null if no node took over before the run ended. */
  latencyMs: number | null;
}

/** A VIP and its live masters at the end of the run: none when it is down, two or more in split brain. */
export interface FailoverOwner {
  vip: string;
  vrid: number;
  masters: string[];
}

export interface FailoverTraffic {
  mode: 'multicast' | 'unicast' | null;
  nodes: number;
  advertsSent: number;
  /** Multicast: one packet per advert; unicast: one per peer, n·(n−1) per interval for n nodes. */
  packetsSent: number;
  deliveries: number;
  dropped: number;
  advertsPerSec: number;
  packetsPerSec: number;
}

export interface FailoverSpread {
  /** VIPs each node is (live) master of; every node that runs VRRP appears, with 0 if it masters none. */
  mastersByNode: Record<string, number>;
  min: number;
  max: number;
  /** Coefficient of variation (stddev / mean) of mastersByNode; 0 is perfectly even. */
  cv: number;
}

export interface BudgetResult {
  /** The metric path, e.g. `reloads.total`. */
  name: string;
  /** The bound as written, e.g. `<= 2`. */
  limit: string;
  actual: number | null;
  pass: boolean;
  /**
   * Why the budget was not judged (live mode cannot judge failover budgets: it runs no keepalived
   * cluster). A skipped budget neither passes nor fails the run; every output shows it as skipped.
   */
  skipped?: string;
}

export interface ReportWarning {
  /** First time the message was emitted, ms of simulated time. */
  atMs: number;
  message: string;
  count: number;
}

/** Distinct warning messages kept in report.json; the rest are only counted (`warnings.total`). */
export const WARNINGS_LISTED = 20;

export interface Report {
  routerbench: 'report';
  version: 1;
  scenario: string;
  seed: number;
  strategy: string;
  simulatedMs: number;
  events: number;
  reloads: {
    /** Reloads actually run, the initial one included. */
    total: number;
    /** Reload requests by reason (many requests can fold into one reload). */
    requests: Record<string, number>;
    /** total per simulated hour. */
    perHour: number;
  };
  runtimeApi: { commands: number; errors: number };
  failover: {
    incidents: number;
    latencyMs: LatencySummaryMs;
    vipUnavailableMs: number;
    /**
     * Time (summed over VIPs) a VIP had live masters but none with a serving router: traffic black-holed while
     * the tracked check has not yet moved the VIP.
     */
    blackholeMs: number;
    splitBrainMs: number;
    /**
     * Time (summed over VIPs) a VIP held by a live master was still also on the interface of a node whose
     * keepalived crashed as master (a stale copy: two hosts answer ARP for it).
     */
    staleVipMs: number;
    /** Times a master was demoted to BACKUP by a higher-priority advert (bounces; one per preemption). */
    flaps: number;
    list: FailoverIncident[];
    /** VRRP traffic over the run (from `vrrp.stats`). */
    traffic?: FailoverTraffic;
    /** How the VIPs' masters are spread over the nodes at the end of the run. */
    spread?: FailoverSpread;
    /** Which node holds each VIP at the end (live masters), in address order. */
    owners?: FailoverOwner[];
    /** Unicast membership exposure: joined nodes that could not hear the masters until peers were regenerated. */
    exposure?: { windows: Array<{ node: string; fromMs: number; toMs: number | null; vips: number }>; totalMs: number };
  };
  invariants: { checked: number; violations: Array<{ atMs: number; name: string; detail: string }> };
  /**
   * The run's `warning` records: something in the input was ignored or a check was skipped. `total` counts
   * them all; `list` holds each distinct message once (first time, count), the first WARNINGS_LISTED of them.
   * Warnings never fail a run: a budget or an invariant does.
   */
  warnings: { total: number; list: ReportWarning[] };
  budgets: BudgetResult[];
  pass: boolean;
  reproduce: string;
  /**
   * Every setting's source by dotted key, in the order settings print (`seed`, `router.*`, `sim.*`,
   * `haproxy.*`): `default`, `FILE:LINE` (a scenario key, or an event log's header line 1),
   * `--router-deployment FILE:LINE NAME=VALUE`, `--env NAME=VALUE`, `--set KEY=VALUE`, `--seed N`,
   * `--strategies LIST` (compare), `--grid KEY` and `--seeds N` (sweep). Copied from the output log's
   * header; a log written before sources were recorded (2026-12) gives a report without them.
   */
  settingSources?: Record<string, string>;
  /**
   * With `run --baseline`: the comparison, whose regressions count in `pass`. `routerbench report` rebuilds a
   * report from its output log alone, so it never has one.
   */
  baseline?: BaselineSection;
}

export type ComparisonVerdict = 'same' | 'improved' | 'within-tolerance' | 'regressed' | 'changed';

/** One metric of a report against its baseline (reports/baseline.ts compares them). */
export interface MetricComparison {
  path: string;
  baseline: number | null;
  actual: number | null;
  /** actual − baseline, when both have a value. */
  delta: number | null;
  /** delta / baseline, when the baseline is non-zero. */
  deltaRatio: number | null;
  tolerance?: string;
  verdict: ComparisonVerdict;
}

export interface BaselineSection {
  /** The baseline report.json compared with. */
  file: string;
  tolerances: string[];
  regressions: number;
  pass: boolean;
  /** Every compared metric, regressed or not. */
  rows: MetricComparison[];
  warnings: string[];
}
