import type { OutputHeader, OutputRecord } from '../sim/output/records.ts';
import { createFailoverProjection } from './failover.ts';
import { createReloadsProjection } from './reloads-projection.ts';
import { WARNINGS_LISTED, type Report, type ReportWarning } from './report.ts';

/**
 * report.json as a fold over the output log. The run feeds records as it emits them; `routerbench report`
 * feeds them from the file: the same code, so the two reports are the same bytes.
 */
export function createReportProjection(header: OutputHeader) {
  const reloads = createReloadsProjection();
  // The windows need the cluster's timers; a header without its cluster section drops nothing for lateness.
  const cluster = header.cluster;
  const failover = createFailoverProjection(cluster);
  let commands = 0;
  let errors = 0;
  let checked = 0;
  const violations: Report['invariants']['violations'] = [];
  let end: { events: number; simulatedMs: number } | null = null;
  let warningTotal = 0;
  const warnings = new Map<string, ReportWarning>();
  return {
    add(r: OutputRecord): void {
      reloads.add(r);
      failover.add(r);
      switch (r.type) {
        case 'runtime.command':
          commands++;
          break;
        case 'runtime.counts':
          // The compact log's successful commands: the same count a traced log gets line by line.
          for (const verb in r.ok) commands += r.ok[verb]!;
          break;
        case 'runtime.error':
          errors++;
          break;
        case 'invariant':
          checked++;
          for (const detail of r.violations) violations.push({ atMs: r.atUs / 1000, name: r.name, detail });
          break;
        case 'warning': {
          warningTotal++;
          const w = warnings.get(r.message);
          if (w !== undefined) w.count++;
          else if (warnings.size < WARNINGS_LISTED) warnings.set(r.message, { atMs: r.atUs / 1000, message: r.message, count: 1 });
          break;
        }
        case 'run.end':
          end = { events: r.events, simulatedMs: r.simulatedMs };
          break;
      }
    },
    result(): Report {
      if (end === null) throw new Error('the output log has no run.end record: the run did not complete');
      return {
        routerbench: 'report',
        version: 1,
        scenario: header.scenario,
        seed: header.seed,
        strategy: header.strategy,
        simulatedMs: end.simulatedMs,
        events: end.events,
        reloads: reloads.result(end.simulatedMs),
        runtimeApi: { commands, errors },
        failover: failover.result(Math.round(end.simulatedMs * 1000)),
        invariants: { checked, violations },
        warnings: { total: warningTotal, list: [...warnings.values()].map((w) => ({ ...w })) },
        budgets: [],
        pass: violations.length === 0,
        reproduce: header.reproduce,
        ...(header.settingSources !== undefined && { settingSources: { ...header.settingSources } }),
      };
    },
  };
}

export function projectReport(header: OutputHeader, records: Iterable<OutputRecord>): Report {
  const p = createReportProjection(header);
  for (const r of records) p.add(r);
  return p.result();
}
