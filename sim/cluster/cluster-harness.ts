import { eventSubject, type InputEvent } from '../../core/events.ts';
import { createFailoverProjection } from '../../reports/failover.ts';
import type { Report } from '../../reports/report.ts';
import { Engine } from '../engine.ts';
import type { OutputRecord } from '../output/records.ts';
import { RandomStreams } from '../random-streams.ts';
import { msToUs } from '../scheduler.ts';
import { ClusterSchema } from './cluster-schema.ts';
import { ClusterSim } from './cluster-sim.ts';

/**
 * Runs a cluster alone on the engine, the way a full run wires it (an `input` record per event, then
 * ClusterSim.onEvent), for tests and scenario figures. `cluster` is the raw section (parsed here).
 */
export function runCluster(
  cluster: unknown,
  events: InputEvent[],
  opts: { durationMs: number; seed?: number; keepRecords?: boolean; fastPaths?: boolean },
): { records: OutputRecord[]; failover: Report['failover']; sim: ClusterSim; endUs: number } {
  const engine = new Engine();
  const records: OutputRecord[] = [];
  const config = ClusterSchema.parse(cluster);
  const failover = createFailoverProjection(config);
  const emit = (r: OutputRecord): void => {
    if (opts.keepRecords !== false) records.push(r);
    failover.add(r);
  };
  const sim = new ClusterSim(config, engine, new RandomStreams(opts.seed ?? 1), emit);
  sim.world.fastPaths = opts.fastPaths ?? true;
  sim.start();
  const { endUs } = engine.run(
    events,
    (e) => {
      emit({ atUs: engine.nowUs, type: 'input', event: e.type, subject: eventSubject(e) });
      sim.onEvent(e);
    },
    { settleUs: 0, durationUs: msToUs(opts.durationMs) },
  );
  sim.finish();
  return { records, failover: failover.result(endUs), sim, endUs };
}

/** Masters of a VIP at the end of a record list (node names, sorted). */
export function mastersAt(records: readonly OutputRecord[], vip: string, atUs = Infinity): string[] {
  const m = new Set<string>();
  for (const r of records) {
    if (r.atUs > atUs) break;
    if (r.type !== 'vrrp.state' || r.vip !== vip) continue;
    if (r.to === 'MASTER') m.add(r.node);
    else m.delete(r.node);
  }
  return [...m].sort();
}

/** Two nodes and one VIP: the smallest cluster, for the formula tests. */
export function pairCluster(over: { infra1?: number; infra2?: number; instance?: Record<string, unknown>; keepalived?: Record<string, unknown>; network?: Record<string, unknown> } = {}) {
  return {
    nodes: [
      { name: 'infra-1', ip: '198.18.0.11' },
      { name: 'infra-2', ip: '198.18.0.12' },
    ],
    network: { delayMs: 0.2, jitterMs: 0.1, loss: 0, ...over.network },
    keepalived: {
      ...over.keepalived,
      instances: [{ vip: '198.18.0.100', vrid: 51, priorities: { 'infra-1': over.infra1 ?? 150, 'infra-2': over.infra2 ?? 100 }, ...over.instance }],
    },
  };
}
