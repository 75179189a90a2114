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

export interface BudgetResult {
  /** The metric path, e.g. `reloads.total`. */
  name: string;
  /** The bound as written, e.g. `<= 2`. */
  limit: string;
  actual: number | null;
  pass: boolean;
}

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
    splitBrainMs: number;
    flaps: number;
    list: FailoverIncident[];
  };
  invariants: { checked: number; violations: Array<{ atMs: number; name: string; detail: string }> };
  budgets: BudgetResult[];
  pass: boolean;
  reproduce: string;
}
