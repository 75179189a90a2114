import type { InputEvent } from '../core/events.ts';
import type { ClusterConfig } from './cluster/cluster-schema.ts';
import type { Settings } from './settings.ts';

/**
 * Everything one run needs; a scenario file, a bare event log or a sweep point all become one of these.
 * A run is fully determined by it: same RunInput, byte-identical output log and report.
 */
export interface RunInput {
  /** Scenario name as shown in reports. */
  name: string;
  /** Where it came from (file path), for messages and the reproduce line. */
  source: string;
  settings: Settings;
  /** Every key of `settings` → where its value came from (sim/settings-layers.ts). */
  settingSources?: Record<string, string>;
  /** Budgets as `path op number` strings, e.g. `reloads.total <= 2`. */
  budgets: string[];
  /** The event log, streamed: called once per run, must yield events in non-decreasing `at`. */
  events: () => Iterable<InputEvent>;
  /** The command line that reproduces this run (printed on failure). */
  reproduce: string;
  /** The keepalived cluster in front of the routers; none means no failover is simulated. */
  cluster?: ClusterConfig;
  /** Warnings about the command line's input (`--env`, `--router-deployment`), emitted at time 0. */
  warnings?: string[];
  /**
   * For progress only, never the simulation: how many bytes of the event log file `events()` streams have
   * been read, of its size (a bare .jsonl, or the log a scenario names).
   */
  readProgress?: () => { done: number; total: number };
}
