import type { ClusterConfig } from '../cluster/cluster-schema.ts';
import { expandVirtualIps } from '../../core/vrrp/ipfailover.ts';
import type { GenerateSpec } from '../generate/spec.ts';
import type { TraceName } from '../output/records.ts';

/**
 * How much a scenario asks for, estimated from its generator knobs and durations before anything runs
 * (docs/limits.md). Each knob is bounded on its own, but their products are not: a million services of ten
 * thousand pods, a burst to a hundred million pods, churn over 285 simulated years. A run past a limit is
 * refused unless `--allow-large`: it would exhaust memory or run for days while writing gigabytes.
 *
 * The estimate is an order of magnitude, not a promise: expected counts of the Poisson processes (rate ×
 * horizon), every service at its largest size at once, and fixed costs per endpoint, route, event and
 * output record measured on the bundled scenarios (rounded up).
 */
export interface SizeEstimate {
  /** Input events the generators produce (expected). */
  events: number;
  /** Live simulation state at its largest: endpoints and routes held by the router, HAProxy and the generators. */
  memoryBytes: number;
  /** What the run writes that grows with its events (see Written); 0 when it writes none. */
  outputBytes: number;
  /** Which file that is, to name in a refusal. */
  written: 'output log' | 'event log';
  /** Scheduled steps of the keepalived cluster (adverts sent and received), when it has a known duration. */
  clusterSteps: number;
  /** The knob that contributes most, to name in a refusal: [field, what it asks for]. */
  largest: [string, string];
}

export interface SizeLimits {
  events: number;
  memoryBytes: number;
  outputBytes: number;
  clusterSteps: number;
}

/** Ten times the bench log's 10 million events; a few GiB of heap; tens of GiB of disk; a day of adverts at 10,000/s. */
export const SIZE_LIMITS: Readonly<SizeLimits> = {
  events: 100_000_000,
  memoryBytes: 2 * 1024 ** 3,
  outputBytes: 20 * 1024 ** 3,
  clusterSteps: 1_000_000_000,
};

/**
 * What a command writes whose size follows the events: a run's output log (with `--out`, compact unless
 * traced), or `expand`'s event log. Nothing else a run writes grows with its events.
 */
export type Written = { kind: 'output log'; trace: readonly TraceName[] } | { kind: 'event log' } | undefined;

/** Per live endpoint (router state, HAProxy server, generator pod) and per route (router, maps, backends). */
const ENDPOINT_BYTES = 600;
const ROUTE_BYTES = 4096;
/**
 * Per event of the compact output log: route inputs, reload windows, every refusal and error in full, VRRP
 * changes. Measured on the bench's saturated day (first 50,000 events, 4.08 endpoints each, 3 Dec 2026):
 * 19, 38 and 128 bytes per event under reload-always, dcm-slots and dcm-add-del.
 */
const COMPACT_OUTPUT_BYTES = 300;
/** `--trace inputs`: an `input` line per endpoint event (measured: 74 more bytes per event). */
const TRACED_INPUT_BYTES = 100;
/**
 * `--trace runtime`: a line per runtime command (its reply cut at 200 characters), a few per event and one
 * or two per endpoint that changes. Measured: 665 and 548 more bytes per event under dcm-slots and
 * dcm-add-del; 400 + 4.08 × 200 = 1,216 covers both.
 */
const TRACED_COMMAND_BYTES = 400;
const TRACED_COMMAND_ENDPOINT_BYTES = 200;
/** The event log `expand` writes: per event, and per endpoint it lists (that log: 324 bytes per event). */
const EVENT_LOG_BYTES = 300;
const EVENT_LOG_ENDPOINT_BYTES = 100;
/** How much an event weighs when naming the knob that contributes most: one event log line. */
const EVENT_WEIGHT = EVENT_LOG_BYTES;

const HOUR_MS = 3_600_000;

export function estimateSize(generate: GenerateSpec | undefined, cluster: ClusterConfig | undefined, simDurationMs: number | undefined, written?: Written): SizeEstimate {
  let events = 0;
  let endpointsPerEvent = 1;
  let memoryBytes = 0;
  let largest: [string, string, number] = ['generate', 'nothing', 0];
  const weigh = (field: string, what: string, cost: number): void => {
    if (cost > largest[2]) largest = [field, what, cost];
  };
  if (generate !== undefined) {
    const g = generate;
    const hours = (g.durationMs ?? simDurationMs ?? 0) / HOUR_MS;
    const w = g.world;
    const ports = 1 + w.extraPorts.length;
    // Every service at its largest at once: the initial size, the scale ceiling, a burst's top, a rollout's surge.
    let podsPerService = w.endpointsPerService;
    let sizeField = 'generate.world.endpointsPerService';
    const bigger = (n: number, field: string): void => {
      if (n > podsPerService) {
        podsPerService = n;
        sizeField = field;
      }
    };
    if (g.scale !== undefined) bigger(g.scale.max, 'generate.scale.max');
    if (g.rollouts !== undefined) bigger(w.endpointsPerService + g.rollouts.batchSize, 'generate.rollouts.batchSize');
    let endpoints = w.services * podsPerService * ports;
    endpointsPerEvent = podsPerService * ports;
    // A burst takes its services (not all of them) to its top.
    if (g.bursts !== undefined && g.bursts.scaleTo > podsPerService) {
      endpoints += Math.min(g.bursts.services, w.services) * (g.bursts.scaleTo - podsPerService) * ports;
      endpointsPerEvent = g.bursts.scaleTo * ports;
      if (g.bursts.scaleTo * Math.min(g.bursts.services, w.services) > w.services * podsPerService) sizeField = 'generate.bursts.scaleTo';
    }
    const initialRoutes = g.routes?.initial ?? 0;
    const createdRoutes = (g.routes?.createPerHour ?? 0) * hours;
    const routes = Math.min(initialRoutes + createdRoutes, g.routes?.max ?? Infinity);
    memoryBytes = endpoints * ENDPOINT_BYTES + routes * ROUTE_BYTES;
    weigh(sizeField === 'generate.world.endpointsPerService' ? 'generate.world.services' : sizeField, `${fmt(endpoints)} endpoints`, endpoints * ENDPOINT_BYTES);
    weigh('generate.routes', `${fmt(routes)} routes`, routes * ROUTE_BYTES);

    const add = (field: string, n: number): void => {
      events += n;
      weigh(field, `${fmt(n)} events over ${fmt(hours)} simulated hours`, n * EVENT_WEIGHT);
    };
    add('generate.world.services', w.services);
    add('generate.routes.initial', initialRoutes);
    if (g.routes !== undefined) add('generate.routes.createPerHour', (g.routes.createPerHour + g.routes.deletePerHour) * hours);
    if (g.scale !== undefined) add('generate.scale.perHour', g.scale.perHour * hours);
    // A rollout replaces a service's pods batch by batch: removal, the new pods not ready, then ready.
    if (g.rollouts !== undefined) add('generate.rollouts.perHour', (g.rollouts.perHour * hours + g.rollouts.at.length) * 3 * Math.ceil(podsPerService / g.rollouts.batchSize));
    // A drain moves every pod of a worker: each of its services changes when evicted and when rescheduled.
    if (g.drains !== undefined) add('generate.drains.perHour', (g.drains.perHour * hours + g.drains.at.length) * 2 * w.services);
    // A burst scales its services up in HPA steps (at most doubling each) and back down in one.
    if (g.bursts !== undefined) {
      const steps = Math.ceil(Math.log2(Math.max(2, g.bursts.scaleTo))) + 2;
      add('generate.bursts.perHour', (g.bursts.perHour * hours + g.bursts.at.length) * Math.min(g.bursts.services, w.services) * steps);
    }
    if (g.faults !== undefined) {
      const f = g.faults;
      add('generate.faults', (f.nodeFailPerHour + f.nodeShutdownPerHour + f.routerCrashPerHour + f.nodeStallPerHour + f.partitionPerHour) * hours * 2 + f.schedule.length * 2);
    }
  }
  let clusterSteps = 0;
  const durationMs = simDurationMs ?? (generate?.durationMs !== undefined ? generate.startMs + generate.durationMs : undefined);
  if (cluster !== undefined && durationMs !== undefined) {
    const k = cluster.keepalived;
    const instances = cluster.ipfailover !== undefined ? instanceCount(cluster) : k.instances.length;
    const nodes = cluster.nodes.length;
    const shortest = Math.min(k.advertIntervalMs, ...Object.values(k.advertIntervalMsByNode));
    // Each master's advert reaches every other node: nodes steps per instance per interval.
    clusterSteps = (durationMs / shortest) * instances * nodes;
    weigh('sim.durationMs', `${fmt(clusterSteps)} keepalived steps over ${fmt(durationMs / HOUR_MS)} simulated hours`, (clusterSteps * EVENT_WEIGHT) / 100);
  }
  const listed = Math.min(endpointsPerEvent, 1000);
  let perEvent = 0;
  if (written?.kind === 'event log') perEvent = EVENT_LOG_BYTES + listed * EVENT_LOG_ENDPOINT_BYTES;
  else if (written?.kind === 'output log') {
    perEvent = COMPACT_OUTPUT_BYTES;
    if (written.trace.includes('inputs')) perEvent += TRACED_INPUT_BYTES;
    if (written.trace.includes('runtime')) perEvent += TRACED_COMMAND_BYTES + listed * TRACED_COMMAND_ENDPOINT_BYTES;
  }
  const outputBytes = events * perEvent;
  return { events, memoryBytes, outputBytes, written: written?.kind ?? 'output log', clusterSteps, largest: [largest[0], largest[1]] };
}

function instanceCount(cluster: ClusterConfig): number {
  const ipf = cluster.ipfailover!;
  const vips = expandVirtualIps(ipf.virtualIps).length;
  return ipf.vipGroups > 0 ? Math.min(ipf.vipGroups, vips) : vips;
}

/** What is over its limit, in words, or undefined when the scenario is within every limit. */
export function overLimit(e: SizeEstimate, limits: SizeLimits = SIZE_LIMITS): string | undefined {
  const over: string[] = [];
  if (e.events > limits.events) over.push(`${fmt(e.events)} events (limit ${fmt(limits.events)})`);
  if (e.memoryBytes > limits.memoryBytes) over.push(`${gib(e.memoryBytes)} of memory (limit ${gib(limits.memoryBytes)})`);
  if (e.outputBytes > limits.outputBytes) over.push(`${gib(e.outputBytes)} of ${e.written} (limit ${gib(limits.outputBytes)})`);
  if (e.clusterSteps > limits.clusterSteps) over.push(`${fmt(e.clusterSteps)} keepalived steps (limit ${fmt(limits.clusterSteps)})`);
  return over.length === 0 ? undefined : over.join(', ');
}

function gib(bytes: number): string {
  const g = bytes / 1024 ** 3;
  return g >= 1e6 ? `${g.toExponential(1)} GiB` : `${g.toFixed(1)} GiB`;
}

/** A large number as people read it: 1.2e+15 stays exponential, smaller ones get thousands separators. */
function fmt(n: number): string {
  if (!Number.isFinite(n) || n >= 1e12) return n.toExponential(1);
  return Math.round(n).toLocaleString('en-US');
}
