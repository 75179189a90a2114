import { stringify } from 'yaml';
import type { StrategyName } from '../../core/strategy.ts';
import { makeStream, type RandomStream } from '../random-streams.ts';
import { parseScenario, type ScenarioRunInput } from '../scenario/load-scenario.ts';
import { livenessBoundMs } from './liveness-bound.ts';

/**
 * Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012): each run turns on a random subset of features
 * instead of all of them at once, so that a rare combination (socket restarts with no reloads, a partition
 * with unicast peers) gets runs of its own rather than being drowned by the rest. A run is a scenario file,
 * drawn from the run's seed alone (stream `<seed>/explore/swarm`): the same seed gives the same bytes.
 *
 * Every run has two phases. Churn and faults for `churnMs`; every drawn fault carries its own recovery, so
 * when the last one has ended the cluster is whole again. Then nothing more happens for `sim.settleMs`, the
 * liveness bound (livenessBoundMs): the router must have settled and every VIP must have one master by then.
 */
export interface Swarm {
  seed: number;
  /** The features this run turned on, in the order drawn (explore.json shows them per finding). */
  features: string[];
  /** The scenario as a plain object (scenarios/SCENARIO-FORMAT.md), router.strategy left to the caller. */
  scenario: Record<string, unknown>;
}

/** Features a run may turn on; docs/explore.md describes each. */
export const FEATURES = [
  'routes-http',
  'routes-edge',
  'routes-passthrough',
  'routes-reencrypt',
  'route-paths',
  'custom-certificates',
  'annotations',
  'multi-port',
  'scale',
  'rollouts',
  'drains',
  'bursts',
  'custom-blueprint',
  'socket-faults',
  'cluster',
  'ipfailover',
  'unicast',
  'track-script',
  'node-failures',
  'router-failures',
  'stalls',
  'partitions',
  'keepalived-crashes',
  'link-flaps',
  'keepalived-reloads',
  'joins-leaves',
  'shared-hosts',
  'wildcards',
] as const;

export function drawSwarm(seed: number): Swarm {
  const rng = makeStream(`${seed}/explore/swarm`);
  const features: string[] = [];
  const on = (feature: (typeof FEATURES)[number], p = 0.5): boolean => {
    const yes = rng.chance(p);
    if (yes) features.push(feature);
    return yes;
  };
  const pick = <T>(values: readonly T[]): T => values[rng.int(values.length)]!;
  const between = (lo: number, hi: number): number => lo + rng.int(hi - lo + 1);

  const churnMs = pick([60_000, 120_000, 300_000]);
  const multiPort = on('multi-port', 0.3);
  const world = {
    namespaces: between(1, 3),
    services: between(1, 6),
    endpointsPerService: between(0, 4),
    workers: between(1, 4),
    ...(multiPort && { extraPorts: [{ name: 'metrics', port: 9090 }] }),
  };
  const mix = { http: 0, edge: 0, passthrough: 0, reencrypt: 0 };
  for (const kind of ['http', 'edge', 'passthrough', 'reencrypt'] as const) if (on(`routes-${kind}`)) mix[kind] = 1;
  if (mix.http + mix.edge + mix.passthrough + mix.reencrypt === 0) {
    mix.http = 1;
    features.push('routes-http');
  }
  const routes: Record<string, unknown> = {
    initial: between(0, 6),
    createPerHour: pick([30, 120, 600]),
    deletePerHour: pick([0, 30, 120, 600]),
    mix,
    paths: on('route-paths', 0.3) ? 0.5 : 0,
    customCertificates: on('custom-certificates', 0.3) ? 0.5 : 0,
    annotations: on('annotations', 0.3) ? 0.5 : 0,
    ...(multiPort && rng.chance(0.5) && { targetPort: 'metrics' }),
  };
  const generate: Record<string, unknown> = { durationMs: churnMs, world, routes };
  if (on('scale')) generate.scale = { perHour: pick([60, 300, 1200]), min: between(0, 1), max: between(2, 8), step: between(1, 3) };
  if (on('rollouts', 0.3)) generate.rollouts = { perHour: pick([10, 60]), batchSize: between(1, 2), batchIntervalMs: pick([2_000, 10_000]), readyAfterMs: pick([0, 3_000]) };
  if (on('drains', 0.3)) generate.drains = { perHour: pick([10, 60]), rescheduleAfterMs: pick([5_000, 20_000]), cordonMs: 60_000 };
  if (on('bursts', 0.3)) generate.bursts = { perHour: pick([10, 60]), services: between(1, 2), scaleTo: pick([6, 12]), stepMs: 5_000, holdMs: 20_000 };

  const router: Record<string, unknown> = {
    maxDynamicServers: between(1, 6),
    blueprintPoolSize: pick([0, 1, 3, 10]),
    reloadIntervalMs: pick([1_000, 2_000, 5_000]),
    reloadDurationMs: pick([0, 200, 1_000, 3_000]),
    // Not the router's hour: its commit reload must come within the liveness phase.
    commitIntervalMs: pick([10_000, 60_000, 300_000]),
  };
  if (on('custom-blueprint', 0.3)) {
    router.blueprints = [{ namespace: 'blueprints', name: 'bp-edge', host: 'bp-edge.blueprints.example.com', service: 'bp', tls: { termination: 'edge' } }];
  }
  const haproxy: Record<string, number> = {};
  if (on('socket-faults', 0.4)) {
    for (const key of ['refusedRate', 'resetRate', 'restartRate', 'slowRate']) if (rng.chance(0.5)) haproxy[key] = pick([0.01, 0.05]);
  }

  const scenario: Record<string, unknown> = { name: `explore-${seed}`, seed, router, haproxy };
  if (on('cluster', 0.6)) {
    const { cluster, events, faults } = drawCluster(rng, on, pick, between, churnMs);
    scenario.cluster = cluster;
    if (events.length > 0) scenario.events = events;
    if (faults !== undefined) generate.faults = faults;
  }
  scenario.generate = generate;
  // Each from a stream of its own, after everything else: every draw above gives a seed what it gave before
  // these features existed (its workload changes only where one of them is on).
  const hosts = makeStream(`${seed}/explore/swarm/shared-hosts`);
  if (hosts.chance(0.3)) {
    features.push('shared-hosts');
    routes.sharedHosts = 0.5;
    if (hosts.chance(0.5)) router.disableNamespaceOwnershipCheck = true;
  }
  const wild = makeStream(`${seed}/explore/swarm/wildcards`);
  if (wild.chance(0.3)) {
    features.push('wildcards');
    routes.wildcards = 0.3;
    // Mostly allowed: otherwise every wildcard route is only rejected.
    router.allowWildcardRoutes = wild.chance(0.8);
  }
  return { seed, features, scenario };
}

type On = (feature: (typeof FEATURES)[number], p?: number) => boolean;

function drawCluster(rng: RandomStream, on: On, pick: <T>(v: readonly T[]) => T, between: (lo: number, hi: number) => number, churnMs: number) {
  const n = between(2, 4);
  const nodes = Array.from({ length: n }, (_, i) => ({ name: `infra-${i + 1}`, ip: `198.18.0.${11 + i}` }));
  const vips = between(1, 3);
  const unicast = on('unicast', 0.4);
  const network = { delayMs: pick([0.2, 1, 5]), jitterMs: pick([0.1, 1]) };
  const cluster: Record<string, unknown> = { nodes, network };
  if (on('ipfailover', 0.3)) {
    cluster.ipfailover = {
      virtualIps: vips === 1 ? '198.18.0.100' : `198.18.0.100-${99 + vips}`,
      watchPort: pick([0, 80]),
      preemption: pick(['preempt', 'nopreempt', 'preempt_delay 5']),
      unicastPeers: unicast,
    };
  } else {
    const version = pick([2, 3] as const);
    const track = on('track-script', 0.4);
    cluster.keepalived = {
      version,
      advertIntervalMs: version === 2 ? pick([1_000, 2_000]) : pick([100, 500, 1_000]),
      unicast,
      instances: Array.from({ length: vips }, (_, i) => ({
        vip: `198.18.0.${100 + i}`,
        vrid: 51 + i,
        priorities: Object.fromEntries(nodes.map((node) => [node.name, between(50, 200)])),
        preempt: rng.chance(0.8),
        preemptDelayMs: pick([0, 0, 2_000]),
        ...(track && { track: [{ script: 'router-check', weight: pick([0, -60]), fall: between(1, 2), rise: between(1, 2), intervalMs: 1_000 }] }),
      })),
    };
  }
  // Joins and leaves are inline events: a node joins during the churn, and with three nodes or more one of
  // the first ones leaves for good (faults then spare it: it is gone).
  const events: Array<Record<string, unknown>> = [];
  let faultNodes = nodes.map((x) => x.name);
  if (on('joins-leaves', 0.3)) {
    events.push({ at: between(1, churnMs / 1000 - 1) * 1000, type: 'node.join', node: `infra-${n + 1}`, ip: `198.18.0.${11 + n}`, priority: between(50, 200) });
    if (n >= 3) {
      const leaver = nodes[rng.int(n)]!.name;
      events.push({ at: between(1, churnMs / 1000 - 1) * 1000, type: 'node.leave', node: leaver });
      faultNodes = faultNodes.filter((x) => x !== leaver);
    }
    events.sort((a, b) => (a.at as number) - (b.at as number));
  }
  const rates: Record<string, number> = {};
  if (on('node-failures', 0.4)) {
    rates.nodeFailPerHour = pick([6, 30, 120]);
    if (rng.chance(0.5)) rates.nodeShutdownPerHour = pick([6, 30]);
  }
  if (on('router-failures', 0.4)) rates.routerCrashPerHour = pick([6, 30, 120]);
  if (on('stalls', 0.3)) rates.nodeStallPerHour = pick([6, 30, 120]);
  if (on('partitions', 0.3)) rates.partitionPerHour = pick([6, 30, 120]);
  const faults = Object.keys(rates).length === 0 ? undefined : { nodes: faultNodes, downMs: pick([5_000, 20_000, 60_000]), ...rates };
  // keepalived's own faults and reloads, inline: drawn after everything above, so that a seed draws what it
  // drew before these existed. Each fault is undone within the churn, on a node that stays.
  const churnS = churnMs / 1000;
  const spans = (down: 'keepalived.crash' | 'link.down', up: 'keepalived.restart' | 'link.up'): void => {
    for (let k = between(1, 2); k > 0; k--) {
      const downS = pick([2, 10, 20].filter((d) => d <= churnS / 2));
      const at = between(1, churnS - downS - 1) * 1000;
      const node = pick(faultNodes);
      events.push({ at, type: down, node }, { at: at + downS * 1000, type: up, node });
    }
  };
  if (on('keepalived-crashes', 0.3)) spans('keepalived.crash', 'keepalived.restart');
  if (on('link-flaps', 0.3)) spans('link.down', 'link.up');
  // A new base priority by SIGHUP (an owner's 255 is not drawn: it is a VIP's address, not a setting).
  if (on('keepalived-reloads', 0.3)) {
    for (let k = between(1, 2); k > 0; k--) events.push({ at: between(1, churnS - 1) * 1000, type: 'keepalived.reload', node: pick(faultNodes), priority: between(50, 200) });
  }
  // Stable: events of one time keep the order they were drawn in.
  events.sort((a, b) => (a.at as number) - (b.at as number));
  return { cluster, events, faults };
}

/** The swarm's scenario as YAML text, under `strategy`, its liveness phase set (sim.settleMs). */
export function swarmScenarioText(swarm: Swarm, strategy: StrategyName): string {
  const draft = withStrategy(swarm.scenario, strategy);
  const input = parseScenario(stringify(draft), `explore seed ${swarm.seed}`);
  // A stall has no recovery event: one that starts with the last event ends downMs later, and the liveness
  // phase runs from there.
  const stallMs = input.generate?.faults?.nodeStallPerHour ? input.generate.faults.downMs : 0;
  return stringify({ ...draft, sim: { settleMs: stallMs + livenessBoundMs(input), invariants: 'settled' } }, { lineWidth: 0 });
}

function withStrategy(scenario: Record<string, unknown>, strategy: StrategyName): Record<string, unknown> {
  return { ...scenario, router: { strategy, ...(scenario.router as object) } };
}

/** The run a swarm stands for, under `strategy`. */
export function swarmInput(swarm: Swarm, strategy: StrategyName): ScenarioRunInput {
  return parseScenario(swarmScenarioText(swarm, strategy), `explore seed ${swarm.seed}`);
}
