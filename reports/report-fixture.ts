import type { Report } from './report.ts';

/** A complete, plausible report for tests of projections and renderers; override what a test is about. */
export function sampleReport(over: Partial<Report> = {}): Report {
  return {
    routerbench: 'report',
    version: 1,
    scenario: 'sample',
    seed: 7,
    strategy: 'reload-always',
    simulatedMs: 7_200_000,
    events: 120,
    reloads: { total: 3, requests: { initial: 1, 'route-change': 4 }, perHour: 1.5 },
    runtimeApi: { commands: 10, errors: 1 },
    failover: {
      incidents: 2,
      latencyMs: { p50: 3100, p95: 3900, p99: 3990, max: 4000 },
      vipUnavailableMs: 7100,
      blackholeMs: 0,
      staleVipMs: 0,
      splitBrainMs: 0,
      flaps: 0,
      list: [
        { atMs: 10_000, fault: 'node.fail', vip: '10.0.0.100', vrid: 51, oldMaster: 'node-a', newMaster: 'node-b', latencyMs: 3100 },
        { atMs: 60_000, fault: 'node.fail', vip: '10.0.0.100', vrid: 51, oldMaster: 'node-b', newMaster: 'node-a', latencyMs: 4000 },
      ],
    },
    invariants: { checked: 50, violations: [] },
    warnings: { total: 0, list: [] },
    budgets: [],
    pass: true,
    reproduce: 'routerbench run scenarios/sample.yaml --seed 7',
    ...over,
  };
}
